/**
 * Reads what a rehearsal needs from rendered manifests: a canary Rollout, the AnalysisTemplates it
 * names (Prometheus provider), and the HTTPRoute the Gateway API plugin drives. Works on rollwise's
 * output and on anyone's; every problem is a RehearseInputError naming the object, field and value.
 */
import { parseAllDocuments } from 'yaml';

/** Unusable input for `rollwise rehearse` (exit code 2). */
export class RehearseInputError extends Error {
  constructor(
    public readonly where: string,
    public readonly value: unknown,
    public readonly why: string,
    public readonly fix: string,
  ) {
    super(`${where} = ${typeof value === 'string' ? value : JSON.stringify(value)}: ${why} Fix: ${fix}`);
    this.name = 'RehearseInputError';
  }
}

/** One metric of an AnalysisTemplate, with Argo Rollouts' defaults applied. */
export interface MetricSpec {
  readonly name: string;
  /** The query with `{{args.*}}` resolved. */
  readonly query: string;
  readonly successCondition?: string;
  readonly failureCondition?: string;
  readonly initialDelaySeconds: number;
  /** Absent: one measurement (count defaults to 1 without interval). */
  readonly intervalSeconds?: number;
  /** Absent with an interval: measures until the run is stopped (background only). */
  readonly count?: number;
  /** Default 0 (analysis/analysis.go v1.9.1: `failureLimit := int32(0)`). */
  readonly failureLimit: number;
  /** Default 0 (analysis/analysis.go v1.9.1). */
  readonly inconclusiveLimit: number;
  /** Default 4 (utils/defaults/defaults.go v1.9.1, DefaultConsecutiveErrorLimit). */
  readonly consecutiveErrorLimit: number;
  readonly consecutiveSuccessLimit?: number;
  readonly dryRun: boolean;
}

export interface RunSpec {
  readonly kind: 'background' | 'gate';
  readonly templates: string[];
  readonly metrics: MetricSpec[];
}

export type StepSpec =
  | { readonly kind: 'setWeight'; readonly weight: number }
  | { readonly kind: 'pause'; readonly seconds: number | null }
  | { readonly kind: 'analysis'; readonly run: RunSpec }
  | { readonly kind: 'other'; readonly what: string };

export interface ProbeTiming {
  readonly periodSeconds: number;
  readonly successThreshold: number;
  readonly failureThreshold: number;
  readonly initialDelaySeconds: number;
}

/** Everything about one canary Rollout that the rehearsal replays. */
export interface RolloutModel {
  readonly name: string;
  readonly namespace: string;
  readonly replicas: number;
  readonly minReadySeconds: number;
  readonly progressDeadlineSeconds: number;
  readonly steps: StepSpec[];
  readonly background?: RunSpec & { readonly startingStep: number };
  readonly readiness: ProbeTiming;
  /** Start-up budget from the startupProbe (period x failureThreshold), if any. */
  readonly startupBudgetSeconds?: number;
  readonly startupPeriodSeconds: number;
  /** Envoy Gateway cluster names the canary and stable backendRefs are counted on. */
  readonly canaryCluster: string;
  readonly stableCluster: string;
  /** The pod-template hashes the rehearsal gives the two ReplicaSets. */
  readonly canaryHash: string;
  readonly stableHash: string;
  /** `rollwise.dev/peak-rps`, if the Rollout carries it. */
  readonly peakRps?: number;
  /** `rollwise.dev/release-rps`: the traffic a release sees at its usual time, if declared. */
  readonly releaseRps?: number;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const get = (o: unknown, ...path: Array<string | number>): unknown => {
  let cur: unknown = o;
  for (const p of path) {
    if (cur === null || cur === undefined) return undefined;
    cur = (cur as Record<string | number, unknown>)[p];
  }
  return cur;
};

/**
 * Go's time.ParseDuration subset Argo Rollouts accepts in DurationString (`1h30m`, `2m`, `30s`,
 * `500ms`); a bare integer is seconds (the pause duration's int form).
 */
export function parseDuration(v: unknown, where: string): number {
  if (typeof v === 'number' && Number.isFinite(v) && v >= 0) return v;
  if (typeof v === 'string') {
    if (/^\d+$/.test(v)) return Number(v);
    const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
    let total = 0;
    let consumed = '';
    for (let m = re.exec(v); m; m = re.exec(v)) {
      consumed += m[0];
      total += Number(m[1]) * { ms: 0.001, s: 1, m: 60, h: 3600 }[m[2] as 'ms' | 's' | 'm' | 'h'];
    }
    if (consumed === v && v.length > 0) return total;
  }
  throw new RehearseInputError(
    where,
    v,
    'is not a duration Argo Rollouts can parse.',
    'write a Go duration such as "30s", "2m" or "1h30m".',
  );
}

function intField(v: unknown, def: number, where: string): number {
  if (v === undefined || v === null) return def;
  const n = typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) {
    throw new RehearseInputError(where, v, 'is not an integer.', 'write a whole number.');
  }
  return n;
}

function loadDocs(texts: Array<{ file: string; text: string }>): Obj[] {
  const out: Obj[] = [];
  for (const { file, text } of texts) {
    for (const doc of parseAllDocuments(text)) {
      if ('errors' in doc && doc.errors.length > 0) {
        throw new RehearseInputError(
          file,
          doc.errors[0].message,
          'is not valid YAML.',
          'pass the rendered manifests (e.g. dist/prod/<service>.k8s.yaml).',
        );
      }
      const js: unknown = doc.toJS();
      if (isObj(js)) out.push(js);
    }
  }
  return out;
}

function resolveArgs(text: string, values: Map<string, string>, where: string): string {
  return text.replace(/\{\{\s*args\.([A-Za-z0-9_.-]+)\s*\}\}/g, (_m, name: string) => {
    const v = values.get(name);
    if (v === undefined) {
      // analysis/analysis.go v1.9.1 getResolvedMetricsWithoutSecrets: an unresolved arg puts the run in Error.
      throw new RehearseInputError(
        where,
        `{{args.${name}}}`,
        'names an argument that neither the template nor the Rollout gives a value.',
        `add args: [{name: ${name}, value or valueFrom}] to the Rollout's analysis.`,
      );
    }
    return v;
  });
}

function argValues(
  templateArgs: unknown,
  rolloutArgs: unknown,
  hashes: { canary: string; stable: string },
  where: string,
): Map<string, string> {
  const m = new Map<string, string>();
  for (const a of Array.isArray(templateArgs) ? templateArgs : []) {
    if (isObj(a) && typeof a.name === 'string' && typeof a.value === 'string') m.set(a.name, a.value);
  }
  for (const a of Array.isArray(rolloutArgs) ? rolloutArgs : []) {
    if (!isObj(a) || typeof a.name !== 'string') continue;
    if (typeof a.value === 'string') m.set(a.name, a.value);
    const hash = get(a, 'valueFrom', 'podTemplateHashValue');
    if (hash === 'Latest') m.set(a.name, hashes.canary);
    else if (hash === 'Stable') m.set(a.name, hashes.stable);
    else if (get(a, 'valueFrom', 'fieldRef', 'fieldPath') !== undefined) {
      throw new RehearseInputError(
        `${where}.args[${a.name}].valueFrom.fieldRef`,
        get(a, 'valueFrom', 'fieldRef', 'fieldPath'),
        'is resolved from the live Rollout, which a rehearsal does not have.',
        'use value or podTemplateHashValue for the rehearsal.',
      );
    }
  }
  return m;
}

function readMetric(t: Obj, i: number, args: Map<string, string>, inline: boolean): MetricSpec {
  const name = String(get(t, 'metadata', 'name'));
  const m = get(t, 'spec', 'metrics', i) as Obj;
  const where = `AnalysisTemplate ${name} spec.metrics[${i}]`;
  const prom = get(m, 'provider', 'prometheus');
  if (!isObj(prom)) {
    const kinds = Object.keys(isObj(m.provider) ? m.provider : {}).join(', ') || 'none';
    throw new RehearseInputError(
      `${where}.provider`,
      kinds,
      'is not the Prometheus provider; the rehearsal replays Prometheus queries only.',
      'rehearse a template whose metrics use provider.prometheus.',
    );
  }
  if (prom.rangeQuery !== undefined) {
    throw new RehearseInputError(
      `${where}.provider.prometheus.rangeQuery`,
      prom.rangeQuery,
      "is a range query; the rehearsal replays instant queries (the provider's default).",
      'drop rangeQuery or rehearse another template.',
    );
  }
  if (typeof prom.query !== 'string' || prom.query.trim() === '') {
    throw new RehearseInputError(
      `${where}.provider.prometheus.query`,
      prom.query,
      'is missing.',
      'give the metric a PromQL query.',
    );
  }
  const interval = m.interval === undefined ? undefined : parseDuration(m.interval, `${where}.interval`);
  const countRaw = m.count;
  let count = countRaw === undefined ? undefined : intField(countRaw, 0, `${where}.count`);
  // EffectiveCount (pkg/apis/rollouts/v1alpha1/analysis_types.go v1.9.1): no count and no
  // interval means one measurement.
  if (count === undefined && interval === undefined) count = 1;
  if (inline && count === undefined) {
    throw new RehearseInputError(
      `${where}.count`,
      'unset',
      'an inline analysis step needs a finite count, or it never completes.',
      'set count.',
    );
  }
  return {
    name: String(m.name ?? `metric-${i}`),
    query: resolveArgs(prom.query, args, `${where}.provider.prometheus.query`),
    successCondition:
      typeof m.successCondition === 'string' && m.successCondition !== '' ? m.successCondition : undefined,
    failureCondition:
      typeof m.failureCondition === 'string' && m.failureCondition !== '' ? m.failureCondition : undefined,
    initialDelaySeconds: m.initialDelay === undefined ? 0 : parseDuration(m.initialDelay, `${where}.initialDelay`),
    intervalSeconds: interval,
    count,
    failureLimit: intField(m.failureLimit, 0, `${where}.failureLimit`),
    inconclusiveLimit: intField(m.inconclusiveLimit, 0, `${where}.inconclusiveLimit`),
    consecutiveErrorLimit: intField(m.consecutiveErrorLimit, 4, `${where}.consecutiveErrorLimit`),
    consecutiveSuccessLimit:
      m.consecutiveSuccessLimit === undefined
        ? undefined
        : intField(m.consecutiveSuccessLimit, 0, `${where}.consecutiveSuccessLimit`),
    dryRun: false,
  };
}

function readRun(
  kind: 'background' | 'gate',
  spec: unknown,
  templates: Map<string, Obj>,
  hashes: { canary: string; stable: string },
  where: string,
): RunSpec {
  const refs = get(spec, 'templates');
  if (!Array.isArray(refs) || refs.length === 0) {
    throw new RehearseInputError(
      `${where}.templates`,
      refs ?? 'missing',
      'names no AnalysisTemplate.',
      'list the templates the analysis runs.',
    );
  }
  const names: string[] = [];
  const metrics: MetricSpec[] = [];
  for (const [k, ref] of refs.entries()) {
    const name = get(ref, 'templateName');
    if (typeof name !== 'string') {
      throw new RehearseInputError(
        `${where}.templates[${k}]`,
        ref,
        'has no templateName (ClusterAnalysisTemplates are not read).',
        'pass the AnalysisTemplate manifests and reference them by templateName.',
      );
    }
    const t = templates.get(name);
    if (!t) {
      throw new RehearseInputError(
        `${where}.templates[${k}].templateName`,
        name,
        'is not among the manifests given.',
        'pass the file that holds this AnalysisTemplate too.',
      );
    }
    names.push(name);
    const args = argValues(get(t, 'spec', 'args'), get(spec, 'args'), hashes, where);
    const ms = get(t, 'spec', 'metrics');
    const dry = new Set(
      (Array.isArray(get(t, 'spec', 'dryRun')) ? (get(t, 'spec', 'dryRun') as Obj[]) : []).map((d) =>
        String(d.metricName),
      ),
    );
    for (let i = 0; i < (Array.isArray(ms) ? ms.length : 0); i++) {
      const metric = readMetric(t, i, args, kind === 'gate');
      metrics.push({ ...metric, dryRun: dry.has(metric.name) || dry.has('.*') });
    }
  }
  if (metrics.length === 0) {
    throw new RehearseInputError(
      `${where}.templates`,
      names,
      'hold no metrics.',
      'give the templates at least one metric.',
    );
  }
  return { kind, templates: names, metrics };
}

function probe(c: unknown, key: string): ProbeTiming | undefined {
  const p = get(c, key);
  if (!isObj(p)) return undefined;
  // Kubernetes probe defaults: period 10, success 1, failure 3, initial delay 0.
  return {
    periodSeconds: intField(p.periodSeconds, 10, key),
    successThreshold: intField(p.successThreshold, 1, key),
    failureThreshold: intField(p.failureThreshold, 3, key),
    initialDelaySeconds: intField(p.initialDelaySeconds, 0, key),
  };
}

/** Cluster name Envoy Gateway gives a backendRef (internal/gatewayapi/helpers.go v1.9.0). */
function clusterOf(route: Obj, serviceName: string, where: string): string {
  const ns = String(get(route, 'metadata', 'namespace') ?? 'default');
  const name = String(get(route, 'metadata', 'name'));
  const rules = get(route, 'spec', 'rules');
  for (const [n, rule] of (Array.isArray(rules) ? rules : []).entries()) {
    const refs = get(rule, 'backendRefs');
    for (const [i, ref] of (Array.isArray(refs) ? refs : []).entries()) {
      if (get(ref, 'name') !== serviceName) continue;
      // irRouteDestinationName: httproute/<ns>/<name>/rule/<n>; a backendRef with filters of its own
      // gets a destination setting irDestinationSettingName(.., i) = .../backend/<i>.
      const filters = get(ref, 'filters');
      const base = `httproute/${ns}/${name}/rule/${n}`;
      return Array.isArray(filters) && filters.length > 0 ? `${base}/backend/${i}` : base;
    }
  }
  throw new RehearseInputError(
    `${where}`,
    serviceName,
    'is not a backendRef of the HTTPRoute the plugin drives (the plugin would fail with "backendRef was not found in ' +
      'httpRoute").',
    "name the Service in the route's backendRefs.",
  );
}

export interface ReadOptions {
  /** Traffic at peak when the Rollout carries no rollwise.dev/peak-rps. */
  readonly peakRps?: number;
  /** Traffic a release sees at its usual time. */
  readonly releaseRps?: number;
}

/** Every canary Rollout in the manifests, ready to rehearse. */
export function readRollouts(texts: Array<{ file: string; text: string }>, opts: ReadOptions = {}): RolloutModel[] {
  return readRolloutObjects(loadDocs(texts), opts, texts.map((t) => t.file).join(', '));
}

/** The same from objects already in memory (what a chart synthesizes). */
export function readRolloutObjects(
  objects: readonly unknown[],
  opts: ReadOptions = {},
  source = 'the manifests',
): RolloutModel[] {
  const docs = objects.filter(isObj);
  const templates = new Map<string, Obj>();
  const routes = new Map<string, Obj>();
  for (const d of docs) {
    const key = `${String(get(d, 'metadata', 'namespace') ?? 'default')}/${String(get(d, 'metadata', 'name'))}`;
    if (d.kind === 'AnalysisTemplate') templates.set(key, d);
    if (d.kind === 'HTTPRoute') routes.set(key, d);
  }
  const rollouts = docs.filter((d) => d.kind === 'Rollout' && isObj(get(d, 'spec', 'strategy', 'canary')));
  if (rollouts.length === 0) {
    throw new RehearseInputError(
      source,
      'no canary Rollout',
      'holds no argoproj.io Rollout with a canary strategy.',
      'pass the manifest file of a service with a canary (e.g. dist/prod/<service>.k8s.yaml).',
    );
  }
  return rollouts.map((r) => readRollout(r, templates, routes, opts));
}

function readRollout(
  r: Obj,
  allTemplates: Map<string, Obj>,
  routes: Map<string, Obj>,
  opts: ReadOptions,
): RolloutModel {
  const name = String(get(r, 'metadata', 'name'));
  const namespace = String(get(r, 'metadata', 'namespace') ?? 'default');
  // An AnalysisTemplate is looked up in the Rollout's namespace.
  const templates = new Map<string, Obj>();
  for (const [key, t] of allTemplates)
    if (key.startsWith(`${namespace}/`)) templates.set(key.slice(namespace.length + 1), t);
  const where = `Rollout ${namespace}/${name}`;
  const canary = get(r, 'spec', 'strategy', 'canary') as Obj;
  // The rehearsal's pod-template hashes, shaped like real ones: 10 characters of "4"-"9", "b", "c",
  // "d", "f" (SafeEncodeString of a uint32 in decimal; see src/decisions/generated-names.ts).
  const hashes = { canary: '7f9d8c6b54', stable: '5c8b9d6f47' };
  const plugin = get(canary, 'trafficRouting', 'plugins', 'argoproj-labs/gatewayAPI');
  if (!isObj(plugin)) {
    throw new RehearseInputError(
      `${where} spec.strategy.canary.trafficRouting.plugins`,
      get(canary, 'trafficRouting') ?? 'missing',
      "does not route traffic with the argoproj-labs/gatewayAPI plugin; the rehearsal models Envoy Gateway's " +
        'per-backend clusters.',
      'rehearse a Rollout that splits traffic on an HTTPRoute.',
    );
  }
  const routeName = typeof plugin.httpRoute === 'string' ? plugin.httpRoute : get(plugin, 'httpRoutes', 0, 'name');
  const routeNs = typeof plugin.namespace === 'string' ? plugin.namespace : namespace;
  const route = routes.get(`${routeNs}/${String(routeName)}`);
  if (!route) {
    throw new RehearseInputError(
      `${where} trafficRouting.plugins["argoproj-labs/gatewayAPI"].httpRoute`,
      `${routeNs}/${String(routeName)}`,
      'is not among the manifests given.',
      'pass the file that holds the HTTPRoute too.',
    );
  }
  const canaryService = String(canary.canaryService ?? '');
  const stableService = String(canary.stableService ?? '');
  const container = get(r, 'spec', 'template', 'spec', 'containers', 0);
  const readiness = probe(container, 'readinessProbe') ?? {
    periodSeconds: 10,
    successThreshold: 1,
    failureThreshold: 3,
    initialDelaySeconds: 0,
  };
  const startup = probe(container, 'startupProbe');
  const steps: StepSpec[] = [];
  const rawSteps = get(canary, 'steps');
  for (const [i, s] of (Array.isArray(rawSteps) ? rawSteps : []).entries()) {
    const sw = get(s, 'setWeight');
    if (sw !== undefined) steps.push({ kind: 'setWeight', weight: intField(sw, 0, `${where} steps[${i}].setWeight`) });
    else if (get(s, 'pause') !== undefined) {
      const d = get(s, 'pause', 'duration');
      steps.push({
        kind: 'pause',
        seconds: d === undefined ? null : parseDuration(d, `${where} steps[${i}].pause.duration`),
      });
    } else if (get(s, 'analysis') !== undefined) {
      steps.push({
        kind: 'analysis',
        run: readRun('gate', get(s, 'analysis'), templates, hashes, `${where} steps[${i}].analysis`),
      });
    } else steps.push({ kind: 'other', what: Object.keys(isObj(s) ? s : {}).join(',') });
  }
  const bg = get(canary, 'analysis');
  const annotations = (get(r, 'metadata', 'annotations') ?? {}) as Obj;
  const num = (v: unknown): number | undefined =>
    v === undefined || v === null || v === '' || !Number.isFinite(Number(v)) ? undefined : Number(v);
  return {
    name,
    namespace,
    replicas: intField(get(r, 'spec', 'replicas'), 1, `${where} spec.replicas`),
    minReadySeconds: intField(get(r, 'spec', 'minReadySeconds'), 0, `${where} spec.minReadySeconds`),
    progressDeadlineSeconds: intField(
      get(r, 'spec', 'progressDeadlineSeconds'),
      600,
      `${where} spec.progressDeadlineSeconds`,
    ),
    steps,
    background: isObj(bg)
      ? {
          ...readRun('background', bg, templates, hashes, `${where} spec.strategy.canary.analysis`),
          startingStep: intField(bg.startingStep, 0, `${where} analysis.startingStep`),
        }
      : undefined,
    readiness,
    startupBudgetSeconds: startup
      ? startup.periodSeconds * startup.failureThreshold + startup.initialDelaySeconds
      : undefined,
    startupPeriodSeconds: startup ? startup.periodSeconds : 0,
    canaryCluster: clusterOf(route, canaryService, `${where} spec.strategy.canary.canaryService`),
    stableCluster: clusterOf(route, stableService, `${where} spec.strategy.canary.stableService`),
    canaryHash: hashes.canary,
    stableHash: hashes.stable,
    peakRps: num(annotations['rollwise.dev/peak-rps']) ?? opts.peakRps,
    releaseRps: opts.releaseRps ?? num(annotations['rollwise.dev/release-rps']),
  };
}
