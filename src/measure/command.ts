import * as fs from 'fs';
import * as path from 'path';
import { App } from 'cdk8s';
import { RollwiseInputError } from '../errors';
import { decidedServices } from '../service-registry';
import { measureService } from './measure';
import { Measured, MeasurementsDocument } from './measurements';
import { MeasureError, PrometheusClient, PrometheusClientOptions } from './prometheus';
import { ServiceTarget } from './queries';
import { showRange } from './series';
import { formatVerify, verifyService, VerifyOptions } from './verify';

type Write = (text: string) => void;

/** Builds the project's app (construct tree only, nothing written), to read a service's settings. */
export type AppLoader = () => App;

/** What the app says about a service: its namespace, workload, Prometheus and disruption budget. */
export interface ServiceSettings {
  readonly namespace?: string;
  readonly prometheus?: string;
  readonly workload: 'rollout' | 'deployment';
  readonly maxUnavailable: number;
  /** (failureThreshold + 1) x period: a stopped listener's first failing probe comes up to one period late. */
  readonly leaveWithinSeconds: number;
  readonly leaveWithinSource: string;
}

/**
 * The HttpService named `service` in the app (in `namespace` when given). The platform settings
 * give the Prometheus address; the decisions give the workload kind and the disruption budget.
 */
export function serviceFromApp(app: App, service: string, namespace?: string): ServiceSettings {
  const all = decidedServices(app).filter((s) => s.name === service);
  const found = all.filter((s) => namespace === undefined || s.namespace === namespace);
  if (found.length !== 1) {
    const where = all.map((s) => s.namespace ?? '(no namespace)').join(', ');
    throw new RollwiseInputError(
      namespace ? '--namespace' : 'service',
      namespace ?? service,
      found.length === 0
        ? 'the app has no ' +
            `HttpService ${service}${namespace ? ` in namespace ${namespace}` : ''}${
              all.length ? ` (it has one in ${where})` : ''
            }.`
        : `the app has ${found.length} ` + `HttpServices named ${service}, in ${where}: one per environment.`,
      found.length === 0
        ? 'check the name, or pass --prometheus and --namespace instead of reading them from the app.'
        : 'pass --namespace to choose the ' + 'environment.',
    );
  }
  const s = found[0];
  const r = s.decisions.readiness;
  const ft = r.failureThreshold.value;
  const period = r.periodSeconds.value;
  return {
    namespace: s.namespace,
    prometheus: s.platform.prometheusAddress,
    workload: s.workload,
    maxUnavailable: s.decisions.pdbMaxUnavailable.value,
    leaveWithinSeconds: (ft + 1) * period,
    leaveWithinSource:
      `the app's readiness: (failureThreshold ${ft} + 1) x period ${period} s, the first failing ` +
      'probe coming up to a period after the stop',
  };
}

/** Flags first; what they leave out comes from the app (when one can be loaded). */
function resolve(
  service: string,
  o: PrometheusCliOptions,
  loadApp?: AppLoader,
): { options: PrometheusCliOptions; fromApp?: ServiceSettings } {
  const needApp = o.app !== undefined || o.prometheus === undefined || o.namespace === undefined;
  if (!needApp || !loadApp) return { options: o };
  let app: App;
  try {
    app = loadApp();
  } catch (e) {
    if (o.app !== undefined) throw e;
    return { options: o }; // no app here: the flags must do
  }
  const fromApp = serviceFromApp(app, service, o.namespace);
  return {
    options: {
      ...o,
      namespace: o.namespace ?? fromApp.namespace,
      prometheus: o.prometheus ?? fromApp.prometheus,
      workload: o.workload ?? fromApp.workload,
    },
    fromApp,
  };
}

/** Options shared by `measure` and `verify` (flags; credentials come from the environment). */
export interface PrometheusCliOptions {
  /** The app module to read the service's settings from (default: cdk8s.yaml's, when flags leave something out). */
  readonly app?: string;
  readonly prometheus?: string;
  readonly namespace?: string;
  readonly container?: string;
  readonly endpoints?: string;
  readonly workload?: string;
  readonly user?: string;
}

/** Seconds since the epoch from an ISO 8601 time ("2026-11-24T12:00:00Z"), a unix time, or "now". */
export function parseTime(input: string, value: string): number {
  if (value === 'now') return Math.floor(Date.now() / 1000);
  if (/^\d+(\.\d+)?$/.test(value)) return Math.floor(Number(value));
  const rel = /^(\d+)([mhd])$/.exec(value);
  if (rel)
    return Math.floor(Date.now() / 1000) - Number(rel[1]) * { m: 60, h: 3600, d: 86400 }[rel[2] as 'm' | 'h' | 'd'];
  const t = Date.parse(value);
  if (!Number.isFinite(t))
    throw new RollwiseInputError(
      input,
      value,
      'is not a time.',
      'give an ISO 8601 time with its zone (2026-11-24T12:00:00Z), a unix time, a duration back from now (24h, 7d) or ' +
        '"now".',
    );
  return Math.floor(t / 1000);
}

/** "7d", "36h", "90m" to seconds. */
export function parseWindow(input: string, value: string): number {
  const m = /^(\d+)([mhd])$/.exec(value);
  if (!m || Number(m[1]) <= 0)
    throw new RollwiseInputError(
      input,
      value,
      'is not a duration in minutes, hours or days.',
      'write e.g. 7d, 36h or 90m.',
    );
  return Number(m[1]) * { m: 60, h: 3600, d: 86400 }[m[2] as 'm' | 'h' | 'd'];
}

export function clientFrom(o: PrometheusCliOptions, env: NodeJS.ProcessEnv = process.env): PrometheusClient {
  const url = o.prometheus ?? env.ROLLWISE_PROMETHEUS_URL;
  if (!url)
    throw new RollwiseInputError(
      '--prometheus',
      'missing',
      "measure and verify read the cluster's Prometheus and need its address, and neither the flags nor the app's " +
        'platform (prometheusAddress) give one.',
      'pass --prometheus http://<host>:9090 or set ROLLWISE_PROMETHEUS_URL (from outside the cluster: kubectl -n ' +
        'monitoring port-forward svc/prometheus-operated 9090).',
    );
  const opts: PrometheusClientOptions = { url };
  if (o.user !== undefined) {
    const password = env.ROLLWISE_PROMETHEUS_PASSWORD;
    if (password === undefined)
      throw new RollwiseInputError(
        '--user',
        o.user,
        'basic auth needs a password, and rollwise reads it from the environment only (a command-line password is ' +
          'visible to every process on the machine).',
        'set ROLLWISE_PROMETHEUS_PASSWORD.',
      );
    return new PrometheusClient({ ...opts, basicAuth: { username: o.user, password } });
  }
  if (env.ROLLWISE_PROMETHEUS_TOKEN)
    return new PrometheusClient({ ...opts, bearerToken: env.ROLLWISE_PROMETHEUS_TOKEN });
  return new PrometheusClient(opts);
}

export function targetFrom(service: string, o: PrometheusCliOptions): ServiceTarget {
  if (!o.namespace)
    throw new RollwiseInputError(
      '--namespace',
      'missing',
      `the series of ${service} are selected by namespace.`,
      'pass --namespace <the namespace the service runs in>.',
    );
  if (o.workload !== undefined && o.workload !== 'rollout' && o.workload !== 'deployment') {
    throw new RollwiseInputError(
      '--workload',
      o.workload,
      'desired replicas come from the Argo Rollouts controller (rollout) or kube-state-metrics (deployment).',
      'use rollout (canary delivery, the default) or deployment (Delivery.rollingUpdate()).',
    );
  }
  if (o.endpoints !== undefined && o.endpoints !== 'endpointslices' && o.endpoints !== 'endpoints') {
    throw new RollwiseInputError(
      '--endpoints',
      o.endpoints,
      "ready endpoints come from kube-state-metrics' EndpointSlice metrics (collected by default) or its Endpoints " +
        'metrics (only with "endpoints" in its --resources).',
      'use endpointslices (the default) or endpoints.',
    );
  }
  return {
    name: service,
    namespace: o.namespace,
    container: o.container,
    workload: o.workload as ServiceTarget['workload'],
    endpoints: o.endpoints as ServiceTarget['endpoints'],
  };
}

export interface MeasureCliOptions extends PrometheusCliOptions {
  readonly appHistogram?: string;
  readonly end?: string;
  readonly window?: string;
  readonly out?: string;
  readonly json?: boolean;
}

/**
 * `rollwise measure <service>`: writes the measurements file (atomically) and prints the summary. Returns the exit
 * code.
 */
export async function runMeasureCli(
  service: string,
  flags: MeasureCliOptions,
  out: Write,
  err: Write,
  loadApp?: AppLoader,
): Promise<number> {
  try {
    const o = { ...flags, ...resolve(service, flags, loadApp).options };
    const doc = await measureService({
      client: clientFrom(o),
      target: targetFrom(service, o),
      end: o.end ? parseTime('--end', o.end) : undefined,
      windowSeconds: o.window ? parseWindow('--window', o.window) : undefined,
      appHistogram: o.appHistogram,
    });
    const file = o.out ?? path.join('measurements', `${service}.json`);
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    const tmp = `${file}.tmp-${process.pid}`;
    fs.writeFileSync(tmp, `${JSON.stringify(doc, null, 2)}\n`);
    fs.renameSync(tmp, file);
    out(o.json ? `${JSON.stringify(doc, null, 2)}\n` : `${formatMeasurements(doc)}\nwrote ${file}\n`);
    return 0;
  } catch (e) {
    return reportError(e, err);
  }
}

export interface VerifyCliOptions extends PrometheusCliOptions {
  readonly since: string;
  readonly until?: string;
  readonly maxUnavailable?: string;
  readonly throttleThreshold?: string;
  readonly slo?: string;
  /** "<pod>@<time>": a pod whose listener was stopped then (the probe-can-still-fail check). */
  readonly listenerStopped?: string;
  readonly leaveWithin?: string;
  readonly json?: boolean;
}

/** `rollwise verify <service> --since <time>`: 0 all checks pass, 1 a check failed, 2 refused or could not run. */
export async function runVerifyCli(
  service: string,
  flags: VerifyCliOptions,
  out: Write,
  err: Write,
  loadApp?: AppLoader,
): Promise<number> {
  try {
    const resolved = resolve(service, flags, loadApp);
    const o = { ...flags, ...resolved.options };
    const num = (input: string, v: string | undefined) => {
      if (v === undefined) return undefined;
      const n = Number(v);
      if (!Number.isFinite(n) || n < 0)
        throw new RollwiseInputError(input, v, 'is not a non-negative number.', `give ${input} as a number.`);
      return n;
    };
    const report = await verifyService({
      client: clientFrom(o),
      target: targetFrom(service, o),
      since: parseTime('--since', o.since),
      until: o.until ? parseTime('--until', o.until) : undefined,
      maxUnavailable: num('--max-unavailable', o.maxUnavailable) ?? resolved.fromApp?.maxUnavailable,
      maxUnavailableSource:
        o.maxUnavailable !== undefined
          ? '--max-unavailable'
          : resolved.fromApp
            ? "the app's PodDisruptionBudget " + 'maxUnavailable'
            : undefined,
      throttleThreshold: num('--throttle-threshold', o.throttleThreshold),
      sloErrorRatio: num('--slo', o.slo),
      probeCanFail: experiment(o, resolved.fromApp),
    });
    out(o.json ? `${JSON.stringify(report, null, 2)}\n` : formatVerify(report));
    return report.verdict === 'pass' ? 0 : report.verdict === 'fail' ? 1 : 2;
  } catch (e) {
    return reportError(e, err);
  }
}

function experiment(o: VerifyCliOptions, app: ServiceSettings | undefined): VerifyOptions['probeCanFail'] {
  if (o.listenerStopped === undefined) return undefined;
  const m = /^([a-z0-9][-a-z0-9.]*)@(.+)$/.exec(o.listenerStopped);
  if (!m)
    throw new RollwiseInputError(
      '--listener-stopped',
      o.listenerStopped,
      'must name the pod and the time its listener was stopped.',
      'write <pod>@<time>, e.g. checkout-api-6f7c9d8b5-x2k9q@2026-11-26T10:00:00Z.',
    );
  const at = parseTime('--listener-stopped', m[2]);
  if (o.leaveWithin !== undefined) {
    const s = Number(o.leaveWithin);
    if (!(s > 0))
      throw new RollwiseInputError(
        '--leave-within',
        o.leaveWithin,
        'is not a positive number of seconds.',
        'give (failureThreshold + 1) x period of the readiness probe, e.g. 40.',
      );
    return { pod: m[1], at, leaveWithinSeconds: s, leaveWithinSource: '--leave-within' };
  }
  if (!app)
    throw new RollwiseInputError(
      '--leave-within',
      'missing',
      'the check needs the window the probe timing implies, and without the app rollwise cannot read the readiness ' +
        'probe.',
      'pass --leave-within <(failureThreshold + 1) x period seconds>, or --app.',
    );
  return { pod: m[1], at, leaveWithinSeconds: app.leaveWithinSeconds, leaveWithinSource: app.leaveWithinSource };
}

function reportError(e: unknown, err: Write): number {
  if (e instanceof MeasureError) {
    err(`rollwise: ${e.what}\n  why: ${e.why}\n  fix: ${e.fix}\n`);
    return 2;
  }
  throw e;
}

function fig(m: Measured, digits = 3): string {
  if (m.value === null) return `not measured (${m.note ?? 'no data'})`;
  const v = Math.abs(m.value) >= 100 ? Math.round(m.value).toString() : Number(m.value.toPrecision(digits)).toString();
  return `${v} ${m.unit}${m.note ? ` (${m.note})` : ''}`;
}

/** The readable summary of a measurements document: each figure with the query that gave it. */
export function formatMeasurements(d: MeasurementsDocument): string {
  const p = d.readiness.p99;
  const rows: Array<[string, Measured]> = [
    ['readiness p99 at peak', p],
    ['readiness p50 at peak', d.readiness.p50],
    ...(d.readiness.appP99
      ? [["readiness p99 at peak, the app's own histogram", d.readiness.appP99] as [string, Measured]]
      : []),
    ['readiness failures at peak', d.readiness.failedAtPeak],
    ['peak request rate', d.traffic.peakRequestsPerSecond],
    ['per ready replica at peak', d.traffic.perReadyReplicaAtPeak],
    ['CPU seconds per request at peak', d.cpu.secondsPerRequestAtPeak],
    ['CFS throttled ratio at peak', d.cpu.throttledRatioAtPeak],
    ['lowest ready endpoints / desired', d.endpoints.lowestReadyRatio],
    ['resets with a request in flight', d.proxy.remoteResetsWithActiveRequest],
    ['proxy idle-timeout closes', d.proxy.idleTimeouts],
  ];
  const lines = [
    `${d.service.namespace}/${d.service.name}: measured ${d.measuredAt} from ${d.prometheus}`,
    `window ${showRange(Date.parse(d.window.start) / 1000, Date.parse(d.window.end) / 1000)}; busiest ` +
      `hour ${showRange(Date.parse(d.peak.start) / 1000, Date.parse(d.peak.end) / 1000)} ` +
      `(${Math.round(d.peak.requestsPerSecond)} req/s, ${d.peak.pods} pods)`,
    '',
  ];
  for (const [label, m] of rows) lines.push(`${label}: ${fig(m)}`, `  query: ${m.query}`);
  lines.push(
    '',
    'capacity points (per-replica req/s -> ' +
      `p99): ${d.capacity.points.map((c) => `${c.rps} -> ${Math.round(c.p99Seconds * 1000)} ms`).join(', ') || 'none'}`,
    `saturation: ${d.capacity.saturation.sentence}`,
  );
  return `${lines.join('\n')}\n`;
}
