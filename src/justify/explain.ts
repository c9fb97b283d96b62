import * as YAML from 'yaml';
import { ANNOTATIONS, parseFieldPath, valueAtPath } from './annotations';
import { reasonsOf } from './comments';
import { parseReasonLines } from './reasons';

export interface Explained {
  readonly object: string;
  readonly path: string;
  readonly value: unknown;
  readonly reason: string;
  readonly overridden: boolean;
  /** For a leaf without a reason of its own: the nearest ancestor whose reason covers it. */
  readonly via?: string;
  /** The container the path is in, e.g. "cloud-sql-proxy (initContainers[0])". */
  readonly container?: string;
}

/** The container a path walks into from `root`: its name and where it is, or undefined. */
function containerAt(root: unknown, segs: readonly (string | number)[]): string | undefined {
  let cur: unknown = root;
  let found: string | undefined;
  for (let i = 0; i < segs.length && cur !== null && typeof cur === 'object'; i++) {
    cur = (cur as Record<string | number, unknown>)[segs[i]];
    const list = segs[i - 1];
    if (typeof segs[i] === 'number' && (list === 'containers' || list === 'initContainers')) {
      const name = cur !== null && typeof cur === 'object' ? (cur as { name?: unknown }).name : undefined;
      found = `${typeof name === 'string' ? name : '?'} (${list}[${segs[i]}])`;
    }
  }
  return found;
}

/** Every decided value in a multi-document manifest, with its reason, read from the reasons annotation. */
export function explainManifest(text: string): Explained[] {
  const out: Explained[] = [];
  for (const doc of YAML.parseAllDocuments(text, { version: '1.1' })) {
    const obj = doc.toJS() as {
      kind?: string;
      metadata?: { name?: string; annotations?: Record<string, string> };
    } | null;
    if (!obj || typeof obj !== 'object') continue;
    const overrides = obj.metadata?.annotations?.[ANNOTATIONS.overrides];
    const overridden = new Set(overrides ? Object.keys(parseReasonLines(overrides)) : []);
    for (const [path, reason] of Object.entries(reasonsOf(obj))) {
      const container = containerAt(obj, parseFieldPath(path));
      out.push({
        object: `${obj.kind}/${obj.metadata?.name}`,
        path,
        value: valueAtPath(obj, path),
        reason,
        overridden: overridden.has(path),
        ...(container ? { container } : {}),
      });
    }
  }
  return out;
}

/** Human-readable `explain` output: one block per value. */
export function formatExplained(items: readonly Explained[]): string {
  return items
    .map((e) => {
      const shown =
        e.value === undefined ? '(absent)' : typeof e.value === 'object' ? JSON.stringify(e.value) : String(e.value);
      return (
        `${e.object} ${e.path}${e.container ? ` [container ${e.container}]` : ''} ` +
        `= ${shown}${e.overridden ? '  [overridden]' : ''}${
          e.via ? `  (no reason of its own: the reason of ${e.via}, ` + 'which holds it)' : ''
        }\n    ${e.reason}`
      );
    })
    .join('\n');
}

/** Whether `arg` reads as a field path ("readinessProbe.timeoutSeconds", "spec.replicas") rather than a file. */
export function isFieldPath(arg: string): boolean {
  if (/[\\/]|\.ya?ml$|\.json$/i.test(arg.replace(/\["[^"]*"\]/g, ''))) return false;
  try {
    parseFieldPath(arg);
    return true;
  } catch {
    return false;
  }
}

/**
 * The explained values whose path is `field` or ends with it at a segment boundary:
 * "readinessProbe.timeoutSeconds" matches "spec.template.spec.containers[0].readinessProbe.timeoutSeconds"
 * and every other container's (a sidecar's, in the Rollout and in the migration Job), "containers[0].readinessProbe"
 * matches that probe's fields too. A place whose leaf has no reason of its own (a sidecar's
 * readinessProbe carries one reason for its timing) is answered by its nearest ancestor with a
 * reason that holds the leaf, saying so, also when other places answer directly.
 */
export function explainedAt(items: readonly Explained[], field: string): Explained[] {
  const want = parseFieldPath(field);
  const key = (segs: (string | number)[]) => segs.map((x) => (typeof x === 'number' ? `[${x}]` : `.${x}`)).join('');
  const suffix = key(want);
  const keys = items.map((e) => key(parseFieldPath(e.path)));
  const answered = new Set<string>();
  const out: { at: number; e: Explained }[] = [];
  items.forEach((e, i) => {
    const k = keys[i];
    if (k === suffix || k.endsWith(suffix) || k.includes(`${suffix}.`) || k.includes(`${suffix}[`)) {
      out.push({ at: i, e });
      answered.add(`${e.object}\0${k}`);
    }
  });
  // Every other place where the field is: its nearest ancestor with a reason answers.
  for (let drop = 1; drop < want.length; drop++) {
    const parent = key(want.slice(0, want.length - drop));
    const rest = want.slice(want.length - drop);
    items.forEach((e, i) => {
      const k = keys[i];
      if (k !== parent && !k.endsWith(parent)) return;
      const leaf = `${e.object}\0${k}${key(rest)}`;
      if (answered.has(leaf)) return;
      let v: unknown = e.value;
      for (const seg of rest)
        v = v !== null && typeof v === 'object' ? (v as Record<string | number, unknown>)[seg] : undefined;
      if (v === undefined) return;
      answered.add(leaf);
      const container = containerAt(e.value, rest) ?? e.container;
      out.push({
        at: i,
        e: { ...e, path: `${e.path}${key(rest)}`, value: v, via: e.path, ...(container ? { container } : {}) },
      });
    });
  }
  // in the order of the manifest: object by object, as explain prints them without a field path
  return out.sort((a, b) => a.at - b.at).map((x) => x.e);
}
