import { ANNOTATIONS, parseFieldPath, valueAtPath } from '../justify/annotations';
import { reasonsOf } from '../justify/comments';
import { parseReasonLines } from '../justify/reasons';
import { lintParsed } from '../rules/engine';
import { FACTS } from '../rules/facts';
import { rec, stableJson } from '../rules/k8s';
import { LintObject, parseManifestText } from '../rules/source';
import { Finding, SEVERITY_RANK } from '../rules/types';
import { compositionFigures } from './composition';
import { ChangedFile, changedFiles, DiffSide, listSide, readFiles } from './sources';

/** A decided value (one with a reason) whose value or reason changed. */
export interface ValueChange {
  readonly object: string;
  readonly path: string;
  /** `changed`: the value moved; `reason`: same value, new reason; `added`/`removed`: decided on one side only. */
  readonly change: 'changed' | 'reason' | 'added' | 'removed';
  readonly old?: unknown;
  readonly new?: unknown;
  readonly oldReason?: string;
  readonly newReason?: string;
  /** For a changed block (an object or list), the leaves that changed inside it. */
  readonly details?: readonly string[];
}

/** An override (a value replaced with a `because`) that appeared, went away or changed its reason. */
export interface OverrideChange {
  readonly object: string;
  readonly path: string;
  readonly change: 'added' | 'removed' | 'changed';
  readonly oldBecause?: string;
  readonly newBecause?: string;
}

/** A field without a rollwise reason (an image tag, a label, a fact annotation) that changed. */
export interface FieldChange {
  readonly object: string;
  readonly path: string;
  readonly old?: unknown;
  readonly new?: unknown;
  /** The field is a declared fact annotation (an input the decisions were made from). */
  readonly fact?: boolean;
}

export interface CompositionChange {
  readonly figure: string;
  readonly old?: string;
  readonly new?: string;
}

/** Everything that changed for one service in one environment (one output file and its runbook). */
export interface UnitDiff {
  /** The file's path without its suffix, e.g. `prod/checkout-api` or `argocd/prod/checkout-api`. */
  readonly unit: string;
  readonly files: readonly ChangedFile[];
  readonly objectsAdded: readonly string[];
  readonly objectsRemoved: readonly string[];
  readonly values: readonly ValueChange[];
  readonly overrides: readonly OverrideChange[];
  readonly fields: readonly FieldChange[];
  /** Declared inputs (the `rollwise.dev/...` fact annotations such as the readiness p99) that changed. */
  readonly facts: readonly FieldChange[];
  /** Changes that were not listed (beyond the per-object cap of undecided fields). */
  readonly fieldsNotShown: number;
  readonly composition: readonly CompositionChange[];
  readonly findingsIntroduced: readonly Finding[];
  readonly findingsResolved: readonly Finding[];
  /** Files that are not manifests (runbooks) and how much they changed. */
  readonly documents: readonly string[];
}

export interface DiffReport {
  readonly old: string;
  readonly new: string;
  readonly units: readonly UnitDiff[];
  /** Services (output files) present on either side that did not change. */
  readonly unchanged: number;
  /** Files read and parsed: only changed files are (a measure of the work done). */
  readonly filesRead: number;
}

export interface DiffOptions {
  /**
   * Undecided fields listed per object before the rest are only counted.
   * @default 20
   */
  readonly maxFieldsPerObject?: number;
}

const MANIFEST = /\.k8s\.ya?ml$|\.ya?ml$|\.json$/;

/**
 * The service an output file belongs to: `prod/checkout-api.k8s.yaml` and `prod/checkout-api.runbook.md` ->
 * `prod/checkout-api`.
 */
export function unitOf(file: string): string {
  return file
    .replace(/\.runbook\.md$/, '')
    .replace(/\.k8s\.ya?ml$/, '')
    .replace(/\.(ya?ml|json|md)$/, '');
}

/** Compares two sides of an output folder: reads only the files that differ. */
export function diffOutputs(oldSide: DiffSide, newSide: DiffSide, opts: DiffOptions = {}): DiffReport {
  const changes = changedFiles(oldSide, newSide);
  const allUnits = new Set([...listSide(oldSide), ...listSide(newSide)].map(unitOf));
  const byUnit = new Map<string, ChangedFile[]>();
  for (const c of changes) (byUnit.get(unitOf(c.path)) ?? byUnit.set(unitOf(c.path), []).get(unitOf(c.path))!).push(c);
  const oldTexts = readFiles(
    oldSide,
    changes.filter((c) => c.change !== 'added').map((c) => c.path),
  );
  const newTexts = readFiles(
    newSide,
    changes.filter((c) => c.change !== 'removed').map((c) => c.path),
  );
  const units = [...byUnit.keys()].sort().map((unit) => diffUnit(unit, byUnit.get(unit)!, oldTexts, newTexts, opts));
  return {
    old: oldSide.label,
    new: newSide.label,
    units,
    unchanged: allUnits.size - byUnit.size,
    filesRead: oldTexts.size + newTexts.size,
  };
}

function parse(texts: Map<string, string>, files: readonly ChangedFile[]): LintObject[] {
  const out: LintObject[] = [];
  for (const f of files) {
    const t = texts.get(f.path);
    if (t !== undefined && MANIFEST.test(f.path)) out.push(...parseManifestText(t, f.path).objects);
  }
  return out;
}

function diffUnit(
  unit: string,
  files: ChangedFile[],
  oldTexts: Map<string, string>,
  newTexts: Map<string, string>,
  opts: DiffOptions,
): UnitDiff {
  const before = parse(oldTexts, files);
  const after = parse(newTexts, files);
  const key = (o: LintObject) => `${o.apiVersion.split('/')[0]}|${o.ref}`;
  const oldByKey = new Map(before.map((o) => [key(o), o]));
  const newByKey = new Map(after.map((o) => [key(o), o]));
  const values: ValueChange[] = [];
  const overrides: OverrideChange[] = [];
  const fields: FieldChange[] = [];
  const facts: FieldChange[] = [];
  let fieldsNotShown = 0;
  for (const [k, n] of newByKey) {
    const o = oldByKey.get(k);
    if (!o) continue;
    values.push(...valueChanges(o, n));
    overrides.push(...overrideChanges(o, n));
    const all = fieldChanges(o, n);
    facts.push(...all.filter((c) => c.fact));
    const f = all.filter((c) => !c.fact);
    const max = opts.maxFieldsPerObject ?? 20;
    fields.push(...f.slice(0, max));
    fieldsNotShown += Math.max(0, f.length - max);
  }
  const figuresOld = compositionFigures(before);
  const figuresNew = compositionFigures(after);
  const composition: CompositionChange[] = [];
  for (const figure of new Set([...figuresOld.keys(), ...figuresNew.keys()])) {
    const a = figuresOld.get(figure);
    const b = figuresNew.get(figure);
    if (a !== b) composition.push({ figure, old: a, new: b });
  }
  const findingKey = (f: Finding) => `${f.ruleId}|${f.object}|${f.path}|${f.status}`;
  const findingsOld = lintParsed(before).findings;
  const findingsNew = lintParsed(after).findings;
  const oldKeys = new Set(findingsOld.map(findingKey));
  const newKeys = new Set(findingsNew.map(findingKey));
  const documents = files
    .filter((f) => !MANIFEST.test(f.path))
    .map((f) => describeDocument(f, oldTexts.get(f.path), newTexts.get(f.path)));
  return {
    unit,
    files,
    objectsAdded: [...newByKey.keys()].filter((k) => !oldByKey.has(k)).map((k) => newByKey.get(k)!.ref),
    objectsRemoved: [...oldByKey.keys()].filter((k) => !newByKey.has(k)).map((k) => oldByKey.get(k)!.ref),
    values,
    overrides,
    fields,
    facts,
    fieldsNotShown,
    composition,
    findingsIntroduced: findingsNew.filter((f) => !oldKeys.has(findingKey(f))),
    findingsResolved: findingsOld.filter((f) => !newKeys.has(findingKey(f))),
    documents,
  };
}

function describeDocument(f: ChangedFile, before: string | undefined, after: string | undefined): string {
  if (f.change !== 'modified' || before === undefined || after === undefined) return `${f.path} ${f.change}`;
  const a = new Set(before.split('\n'));
  const b = new Set(after.split('\n'));
  const removed = [...a].filter((l) => !b.has(l)).length;
  const added = [...b].filter((l) => !a.has(l)).length;
  return `${f.path} changed (${added} line(s) added, ${removed} removed)`;
}

function same(a: unknown, b: unknown): boolean {
  return stableJson(a) === stableJson(b);
}

/**
 * The keys that name a list element, in order: a volume mount's `mountPath` (unique in a container,
 * while one volume may be mounted twice), a PrometheusRule rule's `alert` or `record`, the `name` of
 * containers, env vars, ports, volumes and AnalysisTemplate metrics, then `containerPort` (an
 * unnamed port).
 */
const IDENTITY_KEYS = ['mountPath', 'alert', 'record', 'name', 'containerPort'];

/**
 * An array element's identity: the first identity key it has whose value is unique in the array,
 * else its index. Paths are matched by identity, so an alert inserted in the middle of a rule list
 * is one added value, not every later rule "changed".
 */
function elementId(list: unknown[], i: number): string {
  const e = rec(list[i]);
  if (e) {
    for (const k of IDENTITY_KEYS) {
      const v = e[k];
      if (typeof v !== 'string' && typeof v !== 'number') continue;
      if (list.filter((x) => rec(x)?.[k] === v).length === 1) return `[${k}=${String(v)}]`;
    }
  }
  return `[${i}]`;
}

/**
 * The value in `obj` at the element identities of `path` in `other` (a path of the other side):
 * `spec.groups[0].rules[9]` of the new side is the rule with the same alert name in the old, at
 * whatever index, and nothing when the old side has no such rule. A positional element stays
 * positional.
 */
function valueAtIdentityOf(obj: unknown, other: unknown, path: string): unknown {
  let cur: unknown = obj;
  let there: unknown = other;
  for (const s of parseFieldPath(path)) {
    if (typeof s === 'number') {
      const id = Array.isArray(there) ? elementId(there, s) : `[${s}]`;
      there = Array.isArray(there) ? there[s] : undefined;
      if (!Array.isArray(cur)) return undefined;
      const m = /^\[([^=\]]+)=(.*)\]$/.exec(id);
      const list: unknown[] = cur;
      const at = m ? list.findIndex((_x, i) => elementId(list, i) === id) : s;
      cur = at >= 0 ? list[at] : undefined;
    } else {
      cur = rec(cur)?.[s];
      there = rec(there)?.[s];
    }
    if (cur === undefined) return undefined;
  }
  return cur;
}

const keySeg = (k: string) => (/^[A-Za-z_$][\w$-]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`);

/** The identity form of a real field path of `obj` (numeric indexes replaced by element identities). */
function identityPath(obj: unknown, path: string): string {
  let cur: unknown = obj;
  let out = '';
  for (const s of parseFieldPath(path)) {
    if (typeof s === 'number') {
      out += Array.isArray(cur) ? elementId(cur, s) : `[${s}]`;
      cur = Array.isArray(cur) ? cur[s] : undefined;
    } else {
      out += keySeg(s);
      cur = rec(cur)?.[s];
    }
  }
  return out.replace(/^\./, '');
}

interface Leaf {
  readonly real: string;
  readonly value: unknown;
}

/** Leaves of a value by identity path; arrays of scalars (hostnames, args) are one leaf. */
function leaves(value: unknown, real = '', id = '', out = new Map<string, Leaf>()): Map<string, Leaf> {
  if (Array.isArray(value) && value.some((x) => typeof x === 'object' && x !== null)) {
    value.forEach((x, i) => leaves(x, `${real}[${i}]`, `${id}${elementId(value, i)}`, out));
  } else if (rec(value) && Object.keys(value as object).length > 0) {
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const seg = keySeg(k);
      leaves(v, `${real}${seg}`.replace(/^\./, ''), `${id}${seg}`.replace(/^\./, ''), out);
    }
  } else {
    out.set(id, { real, value });
  }
  return out;
}

/** Leaf-level differences inside two values (what changed within a decided block), as "path: a -> b". */
function innerChanges(a: unknown, b: unknown, max = 6): string[] {
  if (!rec(a) && !Array.isArray(a)) return [];
  if (!rec(b) && !Array.isArray(b)) return [];
  const la = leaves(a);
  const lb = leaves(b);
  // A list of scalars (sync options, hostnames) is one leaf: shown as before -> after, not as "."
  if ([...la.keys(), ...lb.keys()].every((k) => k === '')) return [];
  const out: string[] = [];
  for (const id of new Set([...la.keys(), ...lb.keys()])) {
    const x = la.get(id)?.value;
    const y = lb.get(id)?.value;
    if (!same(x, y)) out.push(`${id || '.'}: ${brief(x)} -> ${brief(y)}`);
  }
  return out.length > max ? [...out.slice(0, max), `... ${out.length - max} more`] : out;
}

/** A value shortened for a one-line mention (reasons are never shortened). */
export function brief(v: unknown, max = 160): string {
  const t = v === undefined ? '(absent)' : typeof v === 'string' ? v : JSON.stringify(v);
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}

function valueChanges(o: LintObject, n: LintObject): ValueChange[] {
  const ro = reasonsOf(o.obj);
  const rn = reasonsOf(n.obj);
  const byId = new Map<string, { oldPath?: string; newPath?: string }>();
  for (const p of Object.keys(ro)) byId.set(identityPath(o.obj, p), { oldPath: p });
  for (const p of Object.keys(rn)) {
    const id = identityPath(n.obj, p);
    byId.set(id, { ...byId.get(id), newPath: p });
  }
  const out: ValueChange[] = [];
  for (const { oldPath, newPath } of [...byId.values()].sort((a, b) =>
    (a.newPath ?? a.oldPath!).localeCompare(b.newPath ?? b.oldPath!),
  )) {
    // A field decided on one side only still has its value on the other (a CPU limit added by
    // override moves the decided path from resources.limits to resources.limits.cpu, while
    // limits.memory stays): read it at the same path, so nothing looks removed that is there.
    // The other side's path is matched by element identity (an alert inserted before this one
    // moves it to another index: the old value is the same alert's, not the one at the index).
    const old = oldPath !== undefined ? valueAtPath(o.obj, oldPath) : valueAtIdentityOf(o.obj, n.obj, newPath!);
    const now = newPath !== undefined ? valueAtPath(n.obj, newPath) : valueAtIdentityOf(n.obj, o.obj, oldPath!);
    const oldReason = oldPath === undefined ? undefined : ro[oldPath];
    const newReason = newPath === undefined ? undefined : rn[newPath];
    let change: ValueChange['change'] | undefined;
    if (oldReason === undefined) change = 'added';
    else if (newReason === undefined) change = 'removed';
    else if (!same(old, now)) change = 'changed';
    else if (oldReason !== newReason) change = 'reason';
    if (!change) continue;
    const details =
      change === 'changed' || (old !== undefined && now !== undefined && !same(old, now)) ? innerChanges(old, now) : [];
    out.push({
      object: n.ref,
      path: newPath ?? oldPath!,
      change,
      old,
      new: now,
      oldReason,
      newReason,
      ...(details.length ? { details } : {}),
    });
  }
  return out;
}

function overridesOf(o: LintObject): Record<string, string> {
  const text = rec(rec(o.obj.metadata)?.annotations)?.[ANNOTATIONS.overrides];
  return typeof text === 'string' ? parseReasonLines(text) : {};
}

function overrideChanges(o: LintObject, n: LintObject): OverrideChange[] {
  const a = overridesOf(o);
  const b = overridesOf(n);
  const out: OverrideChange[] = [];
  for (const path of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
    if (a[path] === b[path]) continue;
    const change = a[path] === undefined ? 'added' : b[path] === undefined ? 'removed' : 'changed';
    out.push({ object: n.ref, path, change, oldBecause: a[path], newBecause: b[path] });
  }
  return out;
}

/** The annotations that carry reasons; their changes are reported as value and override changes instead. */
const REASON_ANNOTATIONS = new Set<string>([ANNOTATIONS.reasons, ANNOTATIONS.overrides]);
/** The fact annotations: inputs, reported as such. */
const FACT_ANNOTATIONS = new Set<string>(FACTS.map((f) => f.annotation));

/** Leaf changes outside the decided paths (matched by identity), in the reasons annotation's notation. */
function fieldChanges(o: LintObject, n: LintObject): FieldChange[] {
  const decided = [
    ...Object.keys(reasonsOf(o.obj)).map((p) => identityPath(o.obj, p)),
    ...Object.keys(reasonsOf(n.obj)).map((p) => identityPath(n.obj, p)),
  ];
  const covered = (id: string) => decided.some((d) => id === d || id.startsWith(`${d}.`) || id.startsWith(`${d}[`));
  const la = leaves(o.obj);
  const lb = leaves(n.obj);
  const out: FieldChange[] = [];
  for (const id of [...new Set([...la.keys(), ...lb.keys()])].sort()) {
    const a = la.get(id);
    const b = lb.get(id);
    if (same(a?.value, b?.value) || covered(id)) continue;
    const annotation = /^metadata\.annotations\["(.+)"\]$|^metadata\.annotations\.(.+)$/.exec(id);
    const key = annotation ? (annotation[1] ?? annotation[2]) : undefined;
    if (key !== undefined && REASON_ANNOTATIONS.has(key)) continue;
    out.push({
      object: n.ref,
      path: (b ?? a)!.real,
      old: a?.value,
      new: b?.value,
      ...(key !== undefined && FACT_ANNOTATIONS.has(key) ? { fact: true } : {}),
    });
  }
  return out;
}

/** What `--fail-on` can name: a new finding at or above a severity, or a new or changed override. */
export type DiffFailOn = 'error' | 'warning' | 'info' | 'override';

/** The reasons a report should fail a CI job under `failOn`, one sentence each (empty: pass). */
export function failures(report: DiffReport, failOn: readonly DiffFailOn[]): string[] {
  const out: string[] = [];
  for (const u of report.units) {
    for (const f of u.findingsIntroduced) {
      if (f.status !== 'open') continue;
      const hit = failOn
        .filter((s): s is 'error' | 'warning' | 'info' => s !== 'override')
        .some((s) => SEVERITY_RANK[f.severity] >= SEVERITY_RANK[s]);
      if (hit) out.push(`${u.unit}: new ${f.severity} ${f.ruleId} on ${f.object} ${f.path}`);
    }
    if (failOn.includes('override')) {
      for (const o of u.overrides)
        if (o.change !== 'removed')
          out.push(`${u.unit}: override ${o.change} on ${o.object} ${o.path} (because: ${o.newBecause})`);
    }
  }
  return out;
}
