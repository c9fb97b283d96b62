/**
 * Scenario types, YAML scenario parsing/validation, and reading probe and
 * resource settings from a synthesized manifest.
 *
 * A scenario file (YAML) describes a fleet (replicas, probes, capacity), the
 * offered load and the events (drains, rollouts). Every field is checked and
 * every problem is reported with the field path, the value, why it is wrong
 * and how to fix it. Defaults are filled in here, each with its reason, so the
 * model (model.ts) only ever sees a complete, valid `Scenario`.
 *
 * Reference for the format: docs/simulate.md.
 */
import * as path from 'path';
import * as YAML from 'yaml';
import { estimateWork } from './work-estimate';
import { InputTooLargeError, readTextCapped } from '../read-limit';
import { RollwiseInputError } from '../errors';
import { Measurements } from '../measure/measurements';
import type {
  CapacityModel,
  DependencySettings,
  LivenessSettings,
  LoadProfile,
  ReadinessSettings,
  Scenario,
  SimEvent,
} from './scenario-types';
import { DEFAULTS } from './scenario-defaults';
import { ScenarioError } from './scenario-error';
import { type Obj, Reader } from './scenario-reader';
import { type ManifestProbe, type ManifestSettings, readManifestSettings } from './manifest-settings';

// The parts of the scenario, one file each (kept exported from here as before).
export type {
  ProbeSettings,
  DependencySettings,
  ReadinessSettings,
  LivenessSettings,
  CapacityModel,
  LoadProfile,
  SimEvent,
  Scenario,
} from './scenario-types';
export { DEFAULTS } from './scenario-defaults';
export { ScenarioError, type ScenarioProblem } from './scenario-error';
export { parseCpuQuantity, readManifestSettings, type ManifestProbe, type ManifestSettings } from './manifest-settings';

// ---------------------------------------------------------------------------
// Scenario parsing
// ---------------------------------------------------------------------------

const TOP = [
  'name',
  'seed',
  'durationSeconds',
  'stepSeconds',
  'sampleSeconds',
  'manifest',
  'replicas',
  'readiness',
  'liveness',
  'capacity',
  'load',
  'proxy',
  'pods',
  'events',
  'floor',
  'errorBudget',
] as const;
const PROBE = ['periodSeconds', 'timeoutSeconds', 'failureThreshold', 'successThreshold', 'dependency'] as const;

export interface ParseOptions {
  /** Name used in error messages (the file path). */
  source?: string;
  /** Directory that a relative `manifest:` path is resolved against. */
  baseDir?: string;
  /** How to read the manifest file (defaults to fs.readFileSync). */
  readFile?: (p: string) => string;
}

/** Parse and validate a YAML scenario; returns a complete Scenario with defaults applied. */
export function parseScenario(yamlText: string, opts: ParseOptions = {}): Scenario {
  const source = opts.source ?? 'scenario';
  let raw: unknown;
  try {
    raw = YAML.parse(yamlText);
  } catch (e) {
    throw new ScenarioError(
      [
        {
          field: '(yaml)',
          value: (e as Error).message.split('\n')[0],
          why: 'the file is not valid YAML',
          fix: 'check indentation and quoting at the position given',
        },
      ],
      source,
    );
  }
  return scenarioFromObject(raw, opts);
}

/** Read, parse and validate a scenario file (a relative `manifest:` is resolved against the file's directory). */
export function loadScenarioFile(file: string): Scenario {
  let text: string;
  try {
    text = readTextCapped(file);
  } catch (e) {
    throw new ScenarioError(
      [
        {
          field: '(file)',
          value: file,
          why:
            e instanceof InputTooLargeError
              ? e.message
              : 'cannot read it ' + `(${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
          fix: 'check the path',
        },
      ],
      file,
    );
  }
  return parseScenario(text, { source: file, baseDir: path.dirname(file) });
}

/** Validate a scenario given as a plain object (as parsed from YAML or built in code). */
export function scenarioFromObject(raw: unknown, opts: ParseOptions = {}): Scenario {
  const source = opts.source ?? 'scenario';
  const r = new Reader();
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ScenarioError(
      [
        {
          field: '(top level)',
          value: raw,
          why: 'a scenario must be a YAML mapping',
          fix: 'start from one of examples/scenarios/*.yaml',
        },
      ],
      source,
    );
  }
  const top = r.obj(raw, '', TOP) as Obj;

  // --- manifest (optional): provides probe, cpu and replica settings ------------
  let m: ManifestSettings | undefined;
  const manifestPath = r.str(top, 'manifest', '');
  if (manifestPath !== undefined) {
    const full = path.resolve(opts.baseDir ?? process.cwd(), manifestPath);
    const read = opts.readFile ?? ((p: string) => readTextCapped(p));
    let text: string | undefined;
    try {
      text = read(full);
    } catch (e) {
      r.problem(
        'manifest',
        manifestPath,
        e instanceof InputTooLargeError
          ? e.message
          : `cannot read ${full} ` + `(${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
        'give a path relative to the scenario file',
      );
    }
    if (text !== undefined) {
      try {
        m = readManifestSettings(text, full);
      } catch (e) {
        if (!(e instanceof ScenarioError)) throw e;
        for (const p of e.problems) r.problem(`manifest: ${p.field}`, p.value, p.why, p.fix);
      }
    }
  }

  // --- basics --------------------------------------------------------------------
  const name = r.str(top, 'name', '') ?? (opts.source ? path.basename(opts.source) : 'scenario');
  const seed = r.num(top, 'seed', '', { min: 0, integer: true, why: 'it seeds a 32-bit PRNG' }) ?? DEFAULTS.seed;
  const durationSeconds =
    r.num(top, 'durationSeconds', '', { above: 0, max: 7 * 86400, unit: 's' }) ?? DEFAULTS.durationSeconds;
  const stepSeconds =
    r.num(top, 'stepSeconds', '', {
      above: 0,
      max: 1,
      unit: 's',
      why: 'a step above 1 s cannot resolve probe timeouts',
    }) ?? DEFAULTS.stepSeconds;
  const sampleSeconds =
    r.num(top, 'sampleSeconds', '', { above: 0, unit: 's' }) ?? Math.max(DEFAULTS.sampleSeconds, stepSeconds);
  if (sampleSeconds < stepSeconds)
    r.problem('sampleSeconds', sampleSeconds, `is below stepSeconds (${stepSeconds})`, 'sample at least once per step');

  const replicas = r.num(top, 'replicas', '', { min: 1, integer: true, max: 5000, why: 'a pod count' }) ?? m?.replicas;
  if (replicas === undefined && !r.problems.some((p) => p.field === 'replicas')) {
    r.problem(
      'replicas',
      undefined,
      'no replica count: neither the scenario nor the manifest (spec.replicas) gives one',
      'add "replicas: 10" to the scenario',
    );
  }

  // --- probes -------------------------------------------------------------------
  const readiness = readProbeSection(r, top.readiness, 'readiness', m?.readiness, false);
  let liveness: LivenessSettings | undefined;
  if (top.liveness !== undefined || m?.liveness) {
    const l = readProbeSection(r, top.liveness, 'liveness', m?.liveness, true);
    if (l) liveness = l as LivenessSettings;
  }
  if (!readiness && !r.problems.some((p) => p.field.startsWith('readiness'))) {
    r.problem(
      'readiness',
      undefined,
      'no readiness probe: neither the scenario nor the manifest has one',
      'add a readiness section (periodSeconds, timeoutSeconds, failureThreshold, successThreshold) or a ' +
        'readinessProbe to the manifest',
    );
  }

  // --- capacity ------------------------------------------------------------------
  const capacity = readCapacity(r, top.capacity, m, opts);

  // --- load ----------------------------------------------------------------------
  const load = readLoad(r, top.load, durationSeconds);

  // --- proxy and pods --------------------------------------------------------------
  const proxyO = r.obj(top.proxy, 'proxy', ['propagationSeconds', 'requestTimeoutSeconds']);
  const proxy = {
    propagationSeconds:
      r.num(proxyO, 'propagationSeconds', 'proxy', { min: 0, max: 600, unit: 's' }) ?? DEFAULTS.propagationSeconds,
    requestTimeoutSeconds:
      r.num(proxyO, 'requestTimeoutSeconds', 'proxy', { above: 0, unit: 's' }) ?? DEFAULTS.requestTimeoutSeconds,
  };
  const podsO = r.obj(top.pods, 'pods', ['startSeconds']);
  const pods = { startSeconds: r.num(podsO, 'startSeconds', 'pods', { min: 0, unit: 's' }) ?? DEFAULTS.startSeconds };

  // --- events ----------------------------------------------------------------------
  const events = readEvents(r, top, replicas ?? 1, durationSeconds);

  // --- floor and budget ------------------------------------------------------------
  // Default floor: the fleet minus what the scenario takes away on purpose (the
  // largest drain, or the rollout's maxUnavailable): the PDB promises that much.
  const planned = events.reduce((acc, e) => Math.max(acc, e.kind === 'drain' ? e.count : e.maxUnavailable), 0);
  const floor =
    r.num(top, 'floor', '', { min: 0, integer: true, why: 'a count of ready endpoints' }) ??
    Math.max(0, (replicas ?? 1) - planned);
  if (replicas !== undefined && floor > replicas)
    r.problem('floor', floor, `is above replicas (${replicas})`, `use at most ${replicas}`);
  const errorBudget =
    r.num(top, 'errorBudget', '', { min: 0, max: 1, why: 'a ratio of failed requests' }) ?? DEFAULTS.errorBudget;

  if (r.problems.length === 0 && replicas !== undefined) {
    const work = estimateWork({ durationSeconds, stepSeconds, sampleSeconds, replicas, events });
    if (work.problem)
      r.problem(
        'durationSeconds',
        durationSeconds,
        work.problem,
        'raise stepSeconds (up to 1 s) or sampleSeconds, shorten durationSeconds, or simulate fewer replicas at the ' +
          'same load per pod',
      );
  }
  if (r.problems.length > 0 || !readiness || !capacity || !load || replicas === undefined) {
    throw new ScenarioError(r.problems, source);
  }
  const s: Scenario = {
    name,
    seed,
    durationSeconds,
    stepSeconds,
    sampleSeconds,
    replicas,
    readiness,
    capacity,
    load,
    proxy,
    pods,
    events,
    floor,
    errorBudget,
  };
  if (liveness) s.liveness = liveness;
  return s;
}

function readProbeSection(
  r: Reader,
  v: unknown,
  field: 'readiness' | 'liveness',
  fromManifest: ManifestProbe | undefined,
  isLiveness: boolean,
): ReadinessSettings | LivenessSettings | undefined {
  const o = r.obj(v, field, isLiveness ? [...PROBE, 'handler'] : PROBE);
  if (!o && !fromManifest) return undefined;
  const base = fromManifest ?? DEFAULTS.probe;
  const why = 'Kubernetes rejects it';
  const periodSeconds =
    r.num(o, 'periodSeconds', field, { min: 1, integer: true, unit: 's', why }) ?? base.periodSeconds;
  const timeoutSeconds =
    r.num(o, 'timeoutSeconds', field, { min: 1, integer: true, unit: 's', why }) ?? base.timeoutSeconds;
  const failureThreshold = r.num(o, 'failureThreshold', field, { min: 1, integer: true, why }) ?? base.failureThreshold;
  const successThreshold = r.num(o, 'successThreshold', field, { min: 1, integer: true, why }) ?? base.successThreshold;
  if (isLiveness && successThreshold !== 1) {
    r.problem(
      `${field}.successThreshold`,
      successThreshold,
      'must be 1 for a liveness probe (Kubernetes rejects anything else)',
      'remove it or set it to 1',
    );
  }
  let dependency: DependencySettings | undefined;
  const dO = r.obj(o?.dependency, `${field}.dependency`, ['p50Seconds', 'p99Seconds']);
  if (dO) {
    const p50 = r.num(dO, 'p50Seconds', `${field}.dependency`, { above: 0, unit: 's' });
    const p99 = r.num(dO, 'p99Seconds', `${field}.dependency`, { above: 0, unit: 's' });
    if (dO.p50Seconds === undefined)
      r.problem(
        `${field}.dependency.p50Seconds`,
        undefined,
        'is required to fit the latency distribution',
        'give the dependency median latency, e.g. 0.2',
      );
    if (dO.p99Seconds === undefined)
      r.problem(
        `${field}.dependency.p99Seconds`,
        undefined,
        'is required to fit the latency distribution',
        'give the dependency p99 latency under load, e.g. 1.5',
      );
    if (p50 !== undefined && p99 !== undefined) {
      if (p99 <= p50)
        r.problem(
          `${field}.dependency.p99Seconds`,
          p99,
          `must be above p50Seconds (${p50}) for a lognormal fit`,
          'use the measured p99, which is never below the median',
        );
      else dependency = { p50Seconds: p50, p99Seconds: p99 };
    }
  }
  const out: ReadinessSettings = { periodSeconds, timeoutSeconds, failureThreshold, successThreshold };
  if (dependency) out.dependency = dependency;
  if (!isLiveness) return out;
  const handler =
    (r.str(o, 'handler', field, ['http', 'tcp']) as 'http' | 'tcp' | undefined) ?? fromManifest?.handler ?? 'http';
  return { ...out, handler };
}

function readCapacity(
  r: Reader,
  v: unknown,
  m: ManifestSettings | undefined,
  opts: ParseOptions,
): CapacityModel | undefined {
  const o = r.obj(v, 'capacity', ['cpu', 'points', 'saturationRps', 'measurements']);
  if (o && o.measurements !== undefined) return readMeasuredCapacity(r, o, opts);
  if (!o) {
    return r.problem(
      'capacity',
      v,
      'is required: the model needs per-replica capacity',
      'add capacity.cpu (cpuSecondsPerRequest, ...) or capacity.points (rps -> p99Seconds)',
    );
  }
  const hasCpu = o.cpu !== undefined;
  const hasPoints = o.points !== undefined;
  if (hasCpu === hasPoints) {
    return r.problem(
      'capacity',
      Object.keys(o),
      'give exactly one of cpu or points',
      'use capacity.cpu for a CPU model or capacity.points for measured latency points',
    );
  }
  if (hasCpu) {
    if (o.saturationRps !== undefined)
      r.problem(
        'capacity.saturationRps',
        o.saturationRps,
        'only applies to capacity.points',
        'remove it: the CPU model derives saturation from cores / cpuSecondsPerRequest',
      );
    const c = r.obj(o.cpu, 'capacity.cpu', [
      'requestCores',
      'limitCores',
      'burstCores',
      'cpuSecondsPerRequest',
      'healthSeconds',
    ]);
    if (!c) return undefined;
    const requestCores = r.num(c, 'requestCores', 'capacity.cpu', { above: 0, unit: 'cores' }) ?? m?.cpuRequestCores;
    // limitCores: null in the scenario removes a manifest's limit explicitly.
    const limitCores =
      c.limitCores === null
        ? undefined
        : (r.num(c, 'limitCores', 'capacity.cpu', { above: 0, unit: 'cores' }) ?? m?.cpuLimitCores);
    const cpuSecondsPerRequest = r.num(c, 'cpuSecondsPerRequest', 'capacity.cpu', { above: 0, unit: 'core-seconds' });
    const healthSeconds = r.num(c, 'healthSeconds', 'capacity.cpu', { above: 0, unit: 's' }) ?? DEFAULTS.healthSeconds;
    if (requestCores === undefined) {
      r.problem(
        'capacity.cpu.requestCores',
        undefined,
        'no CPU request: neither the scenario nor the manifest (resources.requests.cpu) gives one',
        'add requestCores, e.g. 1',
      );
    }
    if (c.cpuSecondsPerRequest === undefined) {
      r.problem(
        'capacity.cpu.cpuSecondsPerRequest',
        undefined,
        'is required: CPU cost of one request',
        'measure CPU seconds / requests at steady load, e.g. 0.0025 (400 req/s per core)',
      );
    }
    const burstCores =
      r.num(c, 'burstCores', 'capacity.cpu', { above: 0, unit: 'cores' }) ?? (requestCores ?? 1) * DEFAULTS.burstFactor;
    if (requestCores !== undefined && burstCores < requestCores) {
      r.problem(
        'capacity.cpu.burstCores',
        burstCores,
        `is below requestCores (${requestCores}): cpu.shares guarantee at least the request`,
        `use at least ${requestCores}`,
      );
    }
    if (requestCores !== undefined && limitCores !== undefined && limitCores < requestCores) {
      r.problem(
        'capacity.cpu.limitCores',
        limitCores,
        `is below requestCores (${requestCores}); Kubernetes rejects a limit under the request`,
        `raise it to at least ${requestCores} or remove it (limitCores: null)`,
      );
    }
    if (requestCores === undefined || cpuSecondsPerRequest === undefined) return undefined;
    const cap: CapacityModel = { kind: 'cpu', requestCores, burstCores, cpuSecondsPerRequest, healthSeconds };
    if (limitCores !== undefined) cap.limitCores = limitCores;
    return cap;
  }
  const list = r.arr(o, 'points', 'capacity');
  if (!list) return undefined;
  if (list.length === 0)
    return r.problem('capacity.points', list, 'is empty', 'give at least one {rps, p99Seconds} point');
  const points: Array<{ rps: number; p99Seconds: number }> = [];
  list.forEach((p, i) => {
    const f = `capacity.points[${i}]`;
    const po = r.obj(p, f, ['rps', 'p99Seconds']);
    const rps = r.num(po, 'rps', f, { min: 0, unit: 'req/s per replica' });
    const p99 = r.num(po, 'p99Seconds', f, { above: 0, unit: 's' });
    if (po && (po.rps === undefined || po.p99Seconds === undefined))
      r.problem(f, p, 'needs both rps and p99Seconds', 'write {rps: 300, p99Seconds: 0.25}');
    if (rps === undefined || p99 === undefined) return;
    const prev = points[points.length - 1];
    if (prev && rps <= prev.rps)
      r.problem(
        `${f}.rps`,
        rps,
        `must be above the previous point's rps (${prev.rps})`,
        'sort the points by rps, one point per rate',
      );
    points.push({ rps, p99Seconds: p99 });
  });
  // Default saturation: the last measured rate. Beyond the measurements we cannot
  // know, so we assume the last point is the knee where requests start to queue.
  const last = points[points.length - 1];
  const saturationRps =
    r.num(o, 'saturationRps', 'capacity', { above: 0, unit: 'req/s per replica' }) ??
    (last && last.rps > 0 ? last.rps : undefined);
  if (saturationRps === undefined && !r.problems.some((p) => p.field.startsWith('capacity'))) {
    r.problem(
      'capacity.saturationRps',
      undefined,
      'cannot be derived (the only point is at 0 req/s)',
      'give saturationRps, the per-replica rate where requests start to queue',
    );
  }
  if (saturationRps === undefined) return undefined;
  return { kind: 'points', points, saturationRps };
}

/**
 * `capacity.measurements: <file>`: the capacity points `rollwise measure` wrote (per-replica load
 * -> the readiness handler's p99, hour by hour), and its saturation estimate where the data showed
 * a knee; without a knee `saturationRps` must be given.
 */
function readMeasuredCapacity(r: Reader, o: Obj, opts: ParseOptions): CapacityModel | undefined {
  const file = r.str(o, 'measurements', 'capacity');
  if (file === undefined) return undefined;
  if (o.points !== undefined || o.cpu !== undefined)
    return r.problem(
      'capacity',
      Object.keys(o),
      'give exactly one of cpu, points or measurements',
      'keep capacity.measurements alone (with saturationRps when the file has no knee)',
    );
  const full = path.resolve(opts.baseDir ?? process.cwd(), file);
  let m: Measurements;
  try {
    const read = opts.readFile ?? ((p: string) => readTextCapped(p));
    m = Measurements.fromJson(JSON.parse(read(full)), path.basename(full));
  } catch (e) {
    const why =
      e instanceof RollwiseInputError
        ? e.why
        : `cannot read ${full} ` + `(${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`;
    return r.problem(
      'capacity.measurements',
      file,
      why,
      'give the path (relative to the scenario) of a file `rollwise measure` wrote',
    );
  }
  const points = m.document.capacity.points
    .filter((p, i, all) => i === 0 || p.rps > all[i - 1].rps)
    .map((p) => ({ rps: p.rps, p99Seconds: p.p99Seconds }));
  if (points.length === 0)
    return r.problem(
      'capacity.measurements',
      file,
      `holds no capacity points (${m.document.capacity.saturation.sentence})`,
      'measure over a window with traffic, or give capacity.points',
    );
  const saturationRps =
    r.num(o, 'saturationRps', 'capacity', { above: 0, unit: 'req/s per replica' }) ??
    m.document.capacity.saturation.estimateRps ??
    undefined;
  if (saturationRps === undefined) {
    return r.problem(
      'capacity.saturationRps',
      undefined,
      `the measurements show no knee (${m.document.capacity.saturation.sentence})`,
      'give saturationRps from a load test of one replica',
    );
  }
  return { kind: 'points', points, saturationRps };
}

function readLoad(r: Reader, v: unknown, durationSeconds: number): LoadProfile | undefined {
  const o = r.obj(v, 'load', ['constantRps', 'steps', 'daily']);
  if (!o) return r.problem('load', v, 'is required', 'add load.constantRps: 3000 (or load.steps / load.daily)');
  const kinds = ['constantRps', 'steps', 'daily'].filter((k) => o[k] !== undefined);
  if (kinds.length !== 1)
    return r.problem(
      'load',
      Object.keys(o),
      'give exactly one of constantRps, steps or daily',
      'keep a single load shape',
    );
  if (kinds[0] === 'constantRps') {
    const rps = r.num(o, 'constantRps', 'load', { min: 0, unit: 'req/s' });
    return rps === undefined ? undefined : { kind: 'constant', rps };
  }
  if (kinds[0] === 'steps') {
    const list = r.arr(o, 'steps', 'load');
    if (!list) return undefined;
    if (list.length === 0)
      return r.problem('load.steps', list, 'is empty', 'give at least one {atSeconds: 0, rps: ...} step');
    const steps: Array<{ atSeconds: number; rps: number }> = [];
    list.forEach((s, i) => {
      const f = `load.steps[${i}]`;
      const so = r.obj(s, f, ['atSeconds', 'rps']);
      const at = r.num(so, 'atSeconds', f, { min: 0, unit: 's' });
      const rps = r.num(so, 'rps', f, { min: 0, unit: 'req/s' });
      if (so && (so.atSeconds === undefined || so.rps === undefined))
        r.problem(f, s, 'needs both atSeconds and rps', 'write {atSeconds: 300, rps: 3000}');
      if (at === undefined || rps === undefined) return;
      const prev = steps[steps.length - 1];
      if (prev && at <= prev.atSeconds)
        r.problem(
          `${f}.atSeconds`,
          at,
          `must be after the previous step (${prev.atSeconds} s)`,
          'sort the steps by time',
        );
      if (at > durationSeconds)
        r.problem(
          `${f}.atSeconds`,
          at,
          `is after the end of the run (durationSeconds ${durationSeconds})`,
          'raise durationSeconds or drop the step',
        );
      steps.push({ atSeconds: at, rps });
    });
    if (steps.length > 0 && steps[0].atSeconds !== 0)
      r.problem(
        'load.steps[0].atSeconds',
        steps[0].atSeconds,
        'the first step must start at 0 so the load is defined from the start',
        'add {atSeconds: 0, rps: ...}',
      );
    return { kind: 'steps', steps };
  }
  const d = r.obj(o.daily, 'load.daily', ['troughRps', 'peakRps', 'peakAtSeconds']);
  if (!d) return undefined;
  const troughRps = r.num(d, 'troughRps', 'load.daily', { min: 0, unit: 'req/s' });
  const peakRps = r.num(d, 'peakRps', 'load.daily', { min: 0, unit: 'req/s' });
  const peakAtSeconds = r.num(d, 'peakAtSeconds', 'load.daily', { min: 0, unit: 's after the start' });
  for (const k of ['troughRps', 'peakRps', 'peakAtSeconds']) {
    if (d[k] === undefined)
      r.problem(
        `load.daily.${k}`,
        undefined,
        'is required for a daily curve',
        'give troughRps, peakRps and peakAtSeconds',
      );
  }
  if (troughRps !== undefined && peakRps !== undefined && peakRps < troughRps)
    r.problem('load.daily.peakRps', peakRps, `is below troughRps (${troughRps})`, 'swap them');
  if (troughRps === undefined || peakRps === undefined || peakAtSeconds === undefined) return undefined;
  return { kind: 'daily', troughRps, peakRps, peakAtSeconds };
}

/** "25%" of n, or an integer count; Kubernetes rounds surge up and unavailable down. */
function readIntOrPercent(r: Reader, v: unknown, field: string, n: number, round: 'up' | 'down'): number | undefined {
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0) return v;
  if (typeof v === 'string') {
    const m = /^(\d+(?:\.\d+)?)%$/.exec(v.trim());
    if (m && Number(m[1]) <= 100) {
      const x = (Number(m[1]) / 100) * n;
      return round === 'up' ? Math.ceil(x - 1e-9) : Math.floor(x + 1e-9);
    }
  }
  return r.problem(field, v, 'must be a whole number of pods or a percentage like "25%"', 'write e.g. 1 or "25%"');
}

function readEvents(r: Reader, top: Obj, replicas: number, durationSeconds: number): SimEvent[] {
  const list = r.arr(top, 'events', '') ?? [];
  const events: SimEvent[] = [];
  list.forEach((e, i) => {
    const f = `events[${i}]`;
    const eo = r.obj(e, f, ['drain', 'rollout']);
    if (!eo) return;
    const keys = Object.keys(eo);
    if (keys.length !== 1) {
      r.problem(f, e, 'each event must have exactly one kind (drain or rollout)', 'split it into separate list items');
      return;
    }
    if (eo.drain !== undefined) {
      const g = `${f}.drain`;
      const d = r.obj(eo.drain, g, ['atSeconds', 'count', 'replaceAfterSeconds']);
      if (!d) return r.problem(g, eo.drain, 'must be a mapping', 'write drain: {atSeconds: 60, count: 2}');
      const at = r.num(d, 'atSeconds', g, { min: 0, unit: 's' });
      const count = r.num(d, 'count', g, { min: 1, integer: true, why: 'a pod count' });
      const replaceAfterSeconds = r.num(d, 'replaceAfterSeconds', g, { min: 0, unit: 's' });
      if (d.atSeconds === undefined)
        r.problem(`${g}.atSeconds`, undefined, 'is required', 'give the time of the drain in seconds from the start');
      if (d.count === undefined) r.problem(`${g}.count`, undefined, 'is required', 'give the number of pods evicted');
      if (at !== undefined && at >= durationSeconds)
        r.problem(
          `${g}.atSeconds`,
          at,
          `is not before the end of the run (durationSeconds ${durationSeconds})`,
          'move it earlier or raise durationSeconds',
        );
      if (count !== undefined && count > replicas)
        r.problem(`${g}.count`, count, `is more than the fleet (${replicas} replicas)`, `drain at most ${replicas}`);
      if (at === undefined || count === undefined) return;
      const ev: SimEvent = { kind: 'drain', atSeconds: at, count };
      if (replaceAfterSeconds !== undefined) ev.replaceAfterSeconds = replaceAfterSeconds;
      events.push(ev);
      return;
    }
    const g = `${f}.rollout`;
    const ro = r.obj(eo.rollout, g, ['atSeconds', 'maxSurge', 'maxUnavailable', 'minReadySeconds']);
    if (!ro) return r.problem(g, eo.rollout, 'must be a mapping', 'write rollout: {atSeconds: 120}');
    const at = r.num(ro, 'atSeconds', g, { min: 0, unit: 's' });
    if (ro.atSeconds === undefined)
      r.problem(`${g}.atSeconds`, undefined, 'is required', 'give the time the new ReplicaSet is created');
    if (at !== undefined && at >= durationSeconds)
      r.problem(
        `${g}.atSeconds`,
        at,
        `is not before the end of the run (durationSeconds ${durationSeconds})`,
        'move it earlier or raise durationSeconds',
      );
    const maxSurge = readIntOrPercent(r, ro.maxSurge ?? DEFAULTS.rollout.maxSurge, `${g}.maxSurge`, replicas, 'up');
    const maxUnavailable = readIntOrPercent(
      r,
      ro.maxUnavailable ?? DEFAULTS.rollout.maxUnavailable,
      `${g}.maxUnavailable`,
      replicas,
      'down',
    );
    const minReadySeconds =
      r.num(ro, 'minReadySeconds', g, { min: 0, integer: true, unit: 's' }) ?? DEFAULTS.rollout.minReadySeconds;
    if (maxSurge === 0 && maxUnavailable === 0) {
      r.problem(
        `${g}.maxUnavailable`,
        ro.maxUnavailable ?? 0,
        'maxSurge and maxUnavailable cannot both be 0 (Kubernetes rejects it: the rollout could never progress)',
        'set maxSurge: 1',
      );
    }
    if (at === undefined || maxSurge === undefined || maxUnavailable === undefined) return;
    events.push({ kind: 'rollout', atSeconds: at, maxSurge, maxUnavailable, minReadySeconds });
  });
  return events.sort((a, b) => a.atSeconds - b.atSeconds);
}
