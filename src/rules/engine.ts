import { ANNOTATIONS } from '../justify/annotations';
import { parseReasonLines } from '../justify/reasons';
import { reasonProblem } from '../decisions/reason';
import { foreignGroup } from './api-groups';
import { ENGINE_RULES, findRule, RULES } from './catalogue';
import { factDefinition, FactName, FactReader, hasUnreadableFact, LintFacts } from './facts';
import { rec } from './k8s';
import { ObjectIndex, RuleContext, RuleDefinition, RuleMeta } from './rule';
import { ObjectScope, ScopeIndex } from './scope';
import { LintObject } from './source';
import { Finding, FindingValue, ParseProblem, Severity, Skip } from './types';

export interface LintOptions {
  /**
   * Facts by object name (or `namespace/name`), e.g. from `--p99 checkout-api=0.25`; they win over
   * the object's `rollwise.dev/...` annotations.
   * @default - only annotations
   */
  readonly facts?: LintFacts;
  /**
   * Let composition rules run the fleet simulator's drain at peak on each workload whose capacity
   * facts (peak-rps, saturation-rps-per-replica) are declared, and quote its verdict.
   * @default true
   */
  readonly simulate?: boolean;
  /**
   * Where each object is deployed (namespace defaults, kustomization builds, Argo CD Applications),
   * as a folder scan finds it (layout.ts).
   * @default - each object's own namespace, labels and folder
   */
  readonly scopes?: ReadonlyMap<LintObject, ObjectScope>;
  /** Findings about the input as a whole (a kustomization linted file by file, ...). @default - none */
  readonly notes?: readonly Finding[];
  /**
   * Only what can be an error: rules whose findings are never error-level are not run (a rule
   * reports at most its own severity: test/rules/errors-only.test.ts checks every severity a rule
   * passes), unless an object declares a fact that cannot be read, which any rule reading it
   * reports as an error (RW903). For synth, which reads only open errors (blockingFindings): the
   * same errors as a full run, for less work (docs/performance.md, seventh round).
   * @default false
   */
  readonly errorsOnly?: boolean;
}

export interface LintResult {
  /** Findings sorted by file, then line (so each object's findings stay together). */
  readonly findings: Finding[];
  /** Rules that did not run for lack of a fact. */
  readonly skips: Skip[];
  /** Objects read. */
  readonly objects: number;
  /** Objects of kinds that no rule looks at, by kind (Jobs, ConfigMaps, ...). */
  readonly skippedKinds: Readonly<Record<string, number>>;
}

/**
 * Kinds no rule is registered for but that rules read across objects (a PDB, an HPA, a route's
 * Service...): they are checked as context, not skipped.
 */
const CONTEXT_KINDS = new Set([
  'Service',
  'PodDisruptionBudget',
  'HorizontalPodAutoscaler',
  'ScaledObject',
  'Gateway',
  'BackendTrafficPolicy',
]);

const RULES_BY_KIND = new Map<string, RuleDefinition[]>();
for (const r of RULES) for (const k of r.kinds) (RULES_BY_KIND.get(k) ?? RULES_BY_KIND.set(k, []).get(k)!).push(r);

class Index implements ObjectIndex {
  private readonly byKind = new Map<string, LintObject[]>();
  private readonly byKey = new Map<string, LintObject>();
  private readonly byKindNs = new Map<string, LintObject[]>();
  public readonly scopes: ScopeIndex;

  constructor(
    public readonly all: readonly LintObject[],
    scopes?: ReadonlyMap<LintObject, ObjectScope>,
  ) {
    this.scopes = new ScopeIndex(all, scopes);
    for (const o of all) {
      (this.byKind.get(o.kind) ?? this.byKind.set(o.kind, []).get(o.kind)!).push(o);
      const kn = `${o.kind}\u0000${o.namespace ?? ''}`;
      (this.byKindNs.get(kn) ?? this.byKindNs.set(kn, []).get(kn)!).push(o);
      const key = `${kn}\u0000${o.name}`;
      if (!this.byKey.has(key)) this.byKey.set(key, o);
    }
  }

  public ofKind(kind: string): readonly LintObject[] {
    return this.byKind.get(kind) ?? [];
  }

  public inNamespace(kind: string, namespace: string | undefined): readonly LintObject[] {
    return this.byKindNs.get(`${kind}\u0000${namespace ?? ''}`) ?? [];
  }

  public get(kind: string, namespace: string | undefined, name: string): LintObject | undefined {
    return this.byKey.get(`${kind}\u0000${namespace ?? ''}\u0000${name}`);
  }
}

/** What an object says about findings on it: suppressed rules and overridden field paths, with reasons. */
interface ObjectPolicy {
  readonly suppress: Map<string, string>;
  readonly overrides: [string, string][];
}

function annotationsOf(o: LintObject): Record<string, unknown> {
  return rec(rec(o.obj.metadata)?.annotations) ?? {};
}

/**
 * Runs every rule on parsed objects. Parse problems become `RW000` findings; suppressions and
 * overrides are applied (the finding stays in the result with status `suppressed` / `accepted`).
 */
export function lintParsed(
  objects: readonly LintObject[],
  problems: readonly ParseProblem[] = [],
  opts: LintOptions = {},
): LintResult {
  // Another operator's kind of the same name (a `rollouts.example.com` AnalysisTemplate) is not the
  // kind the rules know: no rule runs on it and no rule finds it across objects (api-groups.ts).
  const index = new Index(
    objects.filter((o) => foreignGroup(o) === undefined),
    opts.scopes,
  );
  const facts = new FactReader(opts.facts);
  const errorsOnly = opts.errorsOnly === true && !objects.some((o) => hasUnreadableFact(facts, o));
  const findings: Finding[] = [];
  const seq = new Map<Finding, number>();
  const seen = new Set<string>();
  const skips: Skip[] = [];
  const policies = new Map<LintObject, ObjectPolicy>();

  const policyOf = (o: LintObject): ObjectPolicy => {
    let p = policies.get(o);
    if (!p) {
      p = readPolicy(o, (rule, path, message, values) => push(rule, o, path, message, values));
      policies.set(o, p);
    }
    return p;
  };

  const push = (
    rule: RuleMeta,
    o: LintObject,
    path: string,
    message: string,
    values: Record<string, FindingValue>,
    severity: Severity = rule.severity,
  ): void => {
    const key = `${rule.id}\u0000${o.ref}\u0000${o.file}\u0000${path}\u0000${message}`;
    if (seen.has(key)) return;
    seen.add(key);
    let status: Finding['status'] = 'open';
    let justification: string | undefined;
    if (!rule.id.startsWith('RW9') && !rule.id.startsWith('RW000')) {
      const pol = policyOf(o);
      const sup = pol.suppress.get(rule.id) ?? pol.suppress.get(rule.id.split('-')[0]);
      const ov = pol.overrides.find(([p]) => path === p || path.startsWith(`${p}.`) || path.startsWith(`${p}[`));
      if (ov) {
        status = 'accepted';
        justification = `override of ${ov[0]}: ${ov[1]}`;
      } else if (sup !== undefined) {
        status = 'suppressed';
        justification = sup;
      }
    }
    // An object read from a rendered kustomization says so, since its file holds the base values.
    const scope = index.scopes.scopeOf(o);
    const rendered = scope.renderedBy;
    const f: Finding = {
      ruleId: rule.id,
      severity,
      file: o.file,
      line: o.line(path),
      kind: o.kind,
      namespace: o.namespace,
      name: o.name,
      object: o.ref,
      path,
      ...(scope.render ? { render: scope.render.folder } : {}),
      message: rendered ? `${message} (as rendered by ${rendered})` : message,
      mechanism: `${rule.mechanism} (${rule.fieldNotes})`,
      fix: rule.fix,
      values,
      status,
      ...(justification !== undefined ? { justification } : {}),
    };
    seq.set(f, seq.size);
    findings.push(f);
  };

  const skippedKinds: Record<string, number> = {};
  for (const o of objects) {
    policyOf(o);
    const foreign = foreignGroup(o);
    if (foreign !== undefined) {
      const k = `${o.kind} (${foreign})`;
      skippedKinds[k] = (skippedKinds[k] ?? 0) + 1;
      continue;
    }
    const rules = RULES_BY_KIND.get(o.kind);
    if (!rules) {
      if (!CONTEXT_KINDS.has(o.kind)) skippedKinds[o.kind] = (skippedKinds[o.kind] ?? 0) + 1;
      continue;
    }
    const isParked = parked(o, index);
    for (const rule of rules) {
      // A parked workload runs no pods: what its pods would do (probes, rollouts, drains) is not
      // said; what refuses the object or its composition (errors) still is.
      if ((isParked || errorsOnly) && rule.severity !== 'error') continue;
      const ctx: RuleContext = {
        index,
        facts,
        simulate: opts.simulate ?? true,
        report: (target, path, message, values, severity) => push(rule, target, path, message, values, severity),
        skip: (target, fact, detail) =>
          skips.push({
            ruleId: rule.id,
            file: target.file,
            object: target.ref,
            fact,
            detail: detail ?? missingFact(target, fact),
          }),
        invalidFact: (target, fact, raw, source) =>
          push(
            ENGINE_RULES.invalidFact,
            target,
            'metadata.annotations',
            `${factDefinition(fact).annotation} = ${JSON.stringify(raw)} (${source}) is ` +
              `not ${factDefinition(fact).format}; ${rule.id} cannot run.`,
            { fact, value: raw },
          ),
      };
      rule.check(o, ctx);
    }
  }

  for (const p of problems) {
    if (p.duplicateKey) {
      const rule = ENGINE_RULES.duplicateKey;
      const severity: Severity = p.includedBy ? 'error' : p.duplicateKey.sameValue ? 'info' : 'warning';
      const consequence = p.includedBy
        ? `; ${p.includedBy} includes this file, and kustomize refuses it ("mapping key already defined"), so it ` +
          'does not build'
        : p.duplicateKey.sameValue
          ? '; kubectl keeps one of them, nothing changes'
          : '; kubectl applies the second and ' + 'silently drops the first';
      const f: Finding = {
        ruleId: rule.id,
        severity,
        file: p.file,
        line: p.line,
        kind: p.kind ?? '(document)',
        name: `line ${p.line}`,
        object: `(document at line ${p.line})`,
        path: p.duplicateKey.key,
        message: `${p.message}${consequence}.`,
        mechanism: `${rule.mechanism} (${rule.fieldNotes})`,
        fix: rule.fix,
        values: { key: p.duplicateKey.key, firstLine: p.duplicateKey.firstLine, sameValue: p.duplicateKey.sameValue },
        status: 'open',
      };
      seq.set(f, seq.size);
      findings.push(f);
      continue;
    }
    // A document of a kind no rule checks (a CRD, a Role) hides no hazard when it does not parse
    // here; it is shown as info, not as an error, since this parser is stricter than kubectl's on
    // some indentation: under-indented continuation lines of quoted scalars, as in the Istio CRDs
    // that Argo Rollouts' e2e suite applies (test/e2e/crds/istio.yaml, v1.9.1).
    const unchecked = p.kind !== undefined && !RULES_BY_KIND.has(p.kind) && !CONTEXT_KINDS.has(p.kind);
    const f: Finding = {
      ruleId: ENGINE_RULES.malformed.id,
      severity: unchecked ? 'info' : (p.severity ?? 'error'),
      file: p.file,
      line: p.line,
      kind: p.kind ?? '(document)',
      name: `line ${p.line}`,
      object: `(document at line ${p.line})`,
      path: '',
      message: unchecked ? `${p.message} (kind ${p.kind}, which no rule checks: nothing was missed)` : p.message,
      mechanism: `${ENGINE_RULES.malformed.mechanism} (${ENGINE_RULES.malformed.fieldNotes})`,
      fix: ENGINE_RULES.malformed.fix,
      values: {},
      status: 'open',
    };
    seq.set(f, seq.size);
    findings.push(f);
  }

  for (const n of opts.notes ?? []) {
    seq.set(n, seq.size);
    findings.push(n);
  }

  const fileOrder = new Map<string, number>();
  for (const o of objects) if (!fileOrder.has(o.file)) fileOrder.set(o.file, fileOrder.size);
  for (const p of problems) if (!fileOrder.has(p.file)) fileOrder.set(p.file, fileOrder.size);
  for (const n of opts.notes ?? []) if (!fileOrder.has(n.file)) fileOrder.set(n.file, fileOrder.size);
  findings.sort(
    (a, b) => fileOrder.get(a.file)! - fileOrder.get(b.file)! || a.line - b.line || seq.get(a)! - seq.get(b)!,
  );
  return { findings, skips, objects: objects.length, skippedKinds };
}

/**
 * A workload scaled to zero on purpose: `spec.replicas: 0` written in the manifest, and no KEDA
 * ScaledObject (which scales from zero) or Argo Rollout (workloadRef: the Rollout runs the pods of a
 * Deployment kept at 0) deployed with it. Its controller creates no pods, and an HPA does not scale
 * a target at 0 replicas either (kubernetes pkg/controller/podautoscaler/horizontal.go
 * reconcileAutoscaler: "scaling is disabled since the replica count of the target is zero", read in
 * the code index's copies), so findings about running pods were judged noise (docs/lint-precision.md).
 */
export function parked(o: LintObject, index: ObjectIndex): boolean {
  if (!PARKABLE.has(o.kind) || rec(o.obj.spec)?.replicas !== 0) return false;
  const names = (ref: unknown, dflt: string): boolean => {
    const r = rec(ref);
    return !!r && r.name === o.name && (typeof r.kind === 'string' ? r.kind : dflt) === o.kind;
  };
  if (index.scopes.inScope(o, 'ScaledObject').some((s) => names(rec(s.obj.spec)?.scaleTargetRef, 'Deployment')))
    return false;
  if (index.scopes.inScope(o, 'Rollout').some((r) => names(rec(r.obj.spec)?.workloadRef, 'Deployment'))) return false;
  return true;
}

const PARKABLE = new Set(['Deployment', 'StatefulSet', 'ReplicaSet', 'Rollout']);

function missingFact(o: LintObject, fact: FactName): string {
  const d = factDefinition(fact);
  return (
    `${o.ref} declares no ${fact} (${d.meaning.replace(/\.$/, '')}): annotate the ${d.on} with ${d.annotation}: ` +
    `"${d.example}" or pass ${d.option.replace('<name>', o.name).replace(/<[^>]+>$/, d.example)}.`
  );
}

/** Reads `rollwise.dev/suppress` (reporting lines without a reason) and `rollwise.dev/overrides`. */
function readPolicy(
  o: LintObject,
  report: (rule: RuleMeta, path: string, message: string, values: Record<string, FindingValue>) => void,
): ObjectPolicy {
  const a = annotationsOf(o);
  const suppress = new Map<string, string>();
  const raw = a[ANNOTATIONS.suppress];
  if (typeof raw === 'string') {
    for (const line of raw.split('\n')) {
      const t = line.trim();
      if (t === '') continue;
      const i = t.indexOf(':');
      const id = (i < 0 ? t : t.slice(0, i)).trim();
      const reason = i < 0 ? '' : t.slice(i + 1).trim();
      const rule = findRule(id);
      if (!rule) {
        report(
          ENGINE_RULES.unknownSuppression,
          'metadata.annotations',
          `${ANNOTATIONS.suppress} line "${t}" names no known rule.`,
          { line: t },
        );
        continue;
      }
      // The same rule as an override's `because` (decisions/reason.ts): a placeholder is no reason.
      const problem = reason === '' ? undefined : reasonProblem(reason);
      if (reason === '' || problem !== undefined) {
        const what = reason === '' ? 'without a reason' : `with no real reason (${problem})`;
        report(
          ENGINE_RULES.suppressionWithoutReason,
          'metadata.annotations',
          `${ANNOTATIONS.suppress} line "${t}" suppresses ${rule.id} ${what}; the suppression is ignored.`,
          { line: t, rule: rule.id },
        );
        continue;
      }
      suppress.set(rule.id, reason);
    }
  }
  const ov = a[ANNOTATIONS.overrides];
  const overrides = typeof ov === 'string' ? Object.entries(parseReasonLines(ov)) : [];
  return { suppress, overrides };
}
