import { DEFAULT_CPU_THROTTLING_RATIO, DEFAULT_SLO_ERROR_RATIO } from '../decisions/alerts';
import { RollwiseInputError } from '../errors';
import { PEAK_SECONDS } from './measure';
import { PrometheusClient, Sample } from './prometheus';
import { ServiceQueries, ServiceTarget, SOURCES } from './queries';
import {
  counterIncrease,
  iso,
  ownedPodNames,
  promRange,
  rawCounter,
  requireSeries,
  scalar,
  showRange,
  showTime,
} from './series';

export interface VerifyOptions {
  readonly client: PrometheusClient;
  readonly target: ServiceTarget;
  /** Start of the window (seconds since the epoch), e.g. the sync that shipped the change. */
  readonly since: number;
  /**
   * End of the window.
   * @default now
   */
  readonly until?: number;
  /**
   * Pods that may be not Ready at once: the floor is desired minus this.
   * @default 1 (rollwise's disruption budget without capacity figures; pass the PodDisruptionBudget's maxUnavailable)
   */
  readonly maxUnavailable?: number;
  /**
   * Where maxUnavailable came from, for the report.
   * @default "--max-unavailable" when given, else rollwise's budget without capacity figures
   */
  readonly maxUnavailableSource?: string;
  /**
   * Highest CFS throttled-periods ratio at peak, where a CPU limit is kept.
   * @default 0.25 (kubernetes-mixin's CPUThrottlingHigh, as in the service's alerts)
   */
  readonly throttleThreshold?: number;
  /**
   * Highest 5xx ratio of the route, at peak and over the window.
   * @default 0.01 (the service alerts' default SLO, docs/mechanisms.md#canary-analysis)
   */
  readonly sloErrorRatio?: number;
  /**
   * A listener-stop experiment to check that the probe can still fail: the pod whose listener was
   * stopped at `at` must leave Ready within `leaveWithinSeconds`.
   * @default none: the check is not run
   */
  readonly probeCanFail?: ProbeFailureExperiment;
}

export interface ProbeFailureExperiment {
  readonly pod: string;
  /** When the listener was stopped (seconds since the epoch). */
  readonly at: number;
  /** The window the probe timing implies, e.g. (failureThreshold + 1) x period. */
  readonly leaveWithinSeconds: number;
  /** Where that window came from, for the report. */
  readonly leaveWithinSource: string;
}

/**
 * A window "includes a peak" when its busiest hour reaches this share of the busiest hour of the week up to its end.
 */
export const PEAK_SHARE = 0.8;
const WEEK = 7 * 86400;

export type CheckVerdict = 'pass' | 'fail' | 'skip';

export interface VerifyCheck {
  readonly name: string;
  readonly verdict: CheckVerdict;
  /** The measured figure, as a sentence. */
  readonly figure: string;
  readonly threshold: string;
  readonly query: string;
  readonly source: string;
}

export interface VerifyReport {
  readonly service: string;
  readonly window: { readonly start: string; readonly end: string };
  /** pass: every check passed; fail: at least one failed; refused: the window cannot verify anything. */
  readonly verdict: 'pass' | 'fail' | 'refused';
  readonly refusal?: string;
  readonly peak?: {
    readonly start: string;
    readonly end: string;
    readonly requestsPerSecond: number;
    readonly referenceRequestsPerSecond: number;
  };
  readonly checks: readonly VerifyCheck[];
}

/**
 * The post-change verification (docs/mechanisms.md#fixes-and-verification): counts, over a real peak, the signals that
 * moved.
 */
export async function verifyService(o: VerifyOptions): Promise<VerifyReport> {
  const c = o.client;
  const q = new ServiceQueries(o.target);
  const until = Math.floor(o.until ?? Date.now() / 1000);
  const since = Math.floor(o.since);
  const service = `${o.target.namespace}/${o.target.name}`;
  const window = { start: iso(since), end: iso(until) };
  const refuse = (why: string): VerifyReport => ({ service, window, verdict: 'refused', refusal: why, checks: [] });
  if (until - since < PEAK_SECONDS)
    return refuse(
      `the window ${showRange(since, until)} is shorter than an hour, so it cannot hold a peak hour; verify over at ` +
        'least a day that includes the daily peak.',
    );

  await requireSeries(c, SOURCES.requests, q.route, since, until, service);
  await requireSeries(c, SOURCES.probeTotal, `probe_type="Readiness", ${q.pods}`, since, until, service);
  await requireSeries(c, SOURCES.podOwner, q.owner.replace(/^kube_pod_owner\{|\}$/g, ''), since, until, service);
  await requireSeries(c, q.readySource, q.readySelector, since, until, service);
  // Every check below needs its series: a check skipped for missing data would let verify pass a
  // fix nothing measured (the floor check without desired replicas, e.g. the controller scraped
  // without honorLabels), so a missing series refuses the run (exit 2) and says which and why. The
  // only skip left is CPU throttling without a CPU limit: cAdvisor is scraped and exports no CFS
  // counters because there is no quota (docs/mechanisms.md#fixes-and-verification).
  await requireSeries(c, q.desiredSource, q.desiredSelector, since, until, service);
  await requireSeries(c, SOURCES.responseClasses, q.route, since, until, service);
  await requireSeries(c, SOURCES.cpu, q.pods, since, until, service);

  // --- the window must include a peak ----------------------------------------------------------
  const hourly = q.requests('1h');
  const busiest = async (from: number) => {
    const first = Math.ceil((from + PEAK_SECONDS) / 900) * 900;
    const s = (await c.range(hourly, first, until, 900))[0]?.samples.filter((x) => Number.isFinite(x.v)) ?? [];
    return s.reduce<Sample | undefined>((b, x) => (b === undefined || x.v > b.v ? x : b), undefined);
  };
  const best = await busiest(since);
  const reference = await busiest(Math.min(since, until - WEEK));
  const between = `between ${showTime(since)} and ${showTime(until)}`;
  if (!best || best.v <= 0 || !reference)
    return refuse(`no requests on the route ${between}: nothing was served, so nothing can ` + 'be verified.');
  const rps = best.v / PEAK_SECONDS;
  const refRps = reference.v / PEAK_SECONDS;
  if (rps < PEAK_SHARE * refRps) {
    return refuse(
      `the window has no peak: its busiest hour (${showRange(best.t - PEAK_SECONDS, best.t)}, ${Math.round(rps)} ` +
        `req/s) is below ${PEAK_SHARE * 100} % of the busiest hour of the week up to its end ` +
        `(${showRange(reference.t - PEAK_SECONDS, reference.t)}, ${Math.round(refRps)} req/s). Readiness timeouts, ` +
        'throttling and emptied endpoints happen at peak load; a quiet window passes every check and proves nothing ' +
        '(docs/mechanisms.md#fixes-and-verification). Verify over a window that includes the daily peak (--since ' +
        'before it, --until after it).',
    );
  }
  const peakEnd = best.t;
  const peakStart = peakEnd - PEAK_SECONDS;
  const peakText = showRange(peakStart, peakEnd);
  const checks: VerifyCheck[] = [];

  // --- 1. zero readiness failures at the peak ---------------------------------------------------
  const failedQuery = q.probeResultsRaw('failed', promRange(PEAK_SECONDS + 600));
  // The kubelet's series name the pod; the service's pods are those its ReplicaSets own (kube_pod_owner).
  const owned = await ownedPodNames(c, q, since, until);
  const ownedOnly = (xs: Awaited<ReturnType<typeof rawCounter>>) => xs.filter((x) => owned.has(x.labels.pod));
  const failed = counterIncrease(
    ownedOnly(await rawCounter(c, (w) => q.probeResultsRaw('failed', w), peakStart, peakEnd)),
    peakStart,
  );
  const windowFailed = counterIncrease(
    ownedOnly(await rawCounter(c, (w) => q.probeResultsRaw('failed', w), since, until)),
    since,
  );
  const worst = failed.events.reduce<{ t: number; n: number } | undefined>(
    (b, e) => (b === undefined || e.n > b.n ? e : b),
    undefined,
  );
  checks.push({
    name: 'readiness timeouts at peak',
    verdict: failed.total === 0 ? 'pass' : 'fail',
    figure:
      failed.total === 0
        ? `0 failed readiness probes in the busiest hour ${peakText} (${windowFailed.total} over the whole window)`
        : `${failed.total} failed readiness probes in the busiest hour ${peakText}, ` +
          `from ${showTime(failed.events[0].t)} to ${showTime(failed.events[failed.events.length - 1].t)}, most ` +
          `(${worst!.n}) in the minute to ${showTime(worst!.t)}; the kubelet counts timeouts and error status codes ` +
          `together, so read the pods' Unhealthy events ("context deadline exceeded" is a timeout, ` +
          'docs/mechanisms.md#probe-failure-texts)',
    threshold: '0',
    query: failedQuery,
    source: SOURCES.probeTotal.source,
  });

  // --- 2. ready endpoints never below the floor ------------------------------------------------
  const maxUnavailable = o.maxUnavailable ?? 1;
  const readySamples = (await c.range(q.ready, since, until, 60))[0]?.samples ?? [];
  const desiredSamples = new Map(
    ((await c.range(q.desired, since, until, 60))[0]?.samples ?? []).map((s) => [s.t, s.v]),
  );
  if (desiredSamples.size === 0)
    return refuse(
      `no desired replicas sampled between ${showTime(since)} and ${showTime(until)} (${q.desired}), so the ` +
        `ready-endpoints floor cannot be checked: ${q.desiredSource.enable}`,
    );
  const below = readySamples.filter((s) => desiredSamples.has(s.t) && s.v < desiredSamples.get(s.t)! - maxUnavailable);
  const lowest = readySamples
    .filter((s) => desiredSamples.has(s.t))
    .reduce<Sample | undefined>(
      (b, s) => (b === undefined || s.v / desiredSamples.get(s.t)! < b.v / desiredSamples.get(b.t)! ? s : b),
      undefined,
    );
  checks.push({
    name: 'ready endpoints / desired replicas',
    verdict: below.length === 0 ? 'pass' : 'fail',
    figure:
      below.length === 0
        ? 'never below the floor; ' +
          `lowest ${lowest ? `${lowest.v} of ${desiredSamples.get(lowest.t)} at ${showTime(lowest.t)}` : 'n/a'}`
        : `below the floor in ${below.length} minute(s), first at ${showTime(below[0].t)} (${below[0].v} ` +
          `of ${desiredSamples.get(below[0].t)} ready), lowest ${lowest!.v} of ${desiredSamples.get(lowest!.t)} ` +
          `at ${showTime(lowest!.t)}`,
    threshold:
      `ready >= desired - ${maxUnavailable} ` +
      `(${
        o.maxUnavailableSource ??
        (o.maxUnavailable === undefined
          ? "rollwise's disruption budget without " + 'capacity figures'
          : 'maxUnavailable given')
      }; ` +
      'sampled every minute)',
    query: `${q.ready} / ${q.desired}`,
    source: `${q.readySource.source} / ${q.desiredSource.source}`,
  });

  // --- 3. CFS throttling at peak, where a limit is kept ------------------------------------------
  const throttleMax = o.throttleThreshold ?? DEFAULT_CPU_THROTTLING_RATIO;
  const throttleQuery = q.throttledRatio('1h');
  const throttled = await scalar(c, throttleQuery, peakEnd);
  checks.push({
    name: 'CPU throttling at peak',
    verdict: throttled === undefined ? 'skip' : throttled < throttleMax ? 'pass' : 'fail',
    figure:
      throttled === undefined
        ? 'no CFS series while cAdvisor is scraped (container_cpu_usage_seconds_total ' +
          'exists): no CPU limit, so never throttled'
        : `${pct(throttled)} of CFS periods throttled in ${peakText}`,
    threshold: `< ${pct(throttleMax)}`,
    query: throttleQuery,
    source: SOURCES.cfs.source,
  });

  // --- 4. no upstream resets with a request in flight ------------------------------------------
  const resets = counterIncrease(
    await rawCounter(c, (w) => q.counterRaw(SOURCES.remoteResets.metric, w), since, until),
    since,
  );
  const firstReset = resets.total === 0 ? '' : showTime(resets.events[0].t);
  checks.push({
    name: 'resets with a request in flight',
    verdict: resets.total === 0 ? 'pass' : 'fail',
    figure:
      resets.total === 0
        ? '0 connections closed by the pods with a request in flight'
        : `${resets.total} connections closed by ` +
          `the pods with a request in flight (each a 503 UC), first at ${firstReset}: the proxy's idle ` +
          `timeout is not below the app's keep-alive, or pods exit without a shutdown delay ` +
          '(docs/mechanisms.md#keep-alive-race)',
    threshold: '0',
    query: q.counterRaw(SOURCES.remoteResets.metric, promRange(until - since + 600)),
    source: SOURCES.remoteResets.source,
  });

  // --- 5. the route's 5xx ratio under the SLO, at peak and over the window -----------------------
  const slo = o.sloErrorRatio ?? DEFAULT_SLO_ERROR_RATIO;
  const atPeak = await scalar(c, q.errorRatio('1h'), peakEnd);
  const overall = await scalar(c, q.errorRatio(promRange(until - since)), until);
  const hourlyRatio = q.errorRatio('1h');
  if (atPeak === undefined && overall === undefined)
    return refuse(
      `the route's 5xx ratio has no value in the busiest hour ${peakText} or over the window (${hourlyRatio}): ` +
        'the response-class counters were scraped, but not over the requests the peak counted.',
    );
  const worstRatio = Math.max(atPeak ?? 0, overall ?? 0);
  checks.push({
    name: 'route 5xx ratio',
    verdict: worstRatio < slo ? 'pass' : 'fail',
    figure:
      `${atPeak === undefined ? 'n/a' : pct(atPeak)} in the busiest ` +
      `hour ${peakText}, ${overall === undefined ? 'n/a' : pct(overall)} over the window`,
    threshold: `< ${pct(slo)}`,
    query: q.errorRatio('1h'),
    source: SOURCES.responseClasses.source,
  });

  if (o.probeCanFail) checks.push(await probeCanFailCheck(c, o.target, o.probeCanFail, since, until));

  return {
    service,
    window,
    verdict: checks.some((x) => x.verdict === 'fail') ? 'fail' : 'pass',
    peak: { start: iso(peakStart), end: iso(peakEnd), requestsPerSecond: rps, referenceRequestsPerSecond: refRps },
    checks,
  };
}

/**
 * The stopped pod's Ready condition, sampled as kube-state-metrics is scraped: the first sample
 * after the stop that reads not Ready must come within the implied window plus one sample interval
 * (the scrape can only see the change at its next sample).
 */
async function probeCanFailCheck(
  c: PrometheusClient,
  target: ServiceTarget,
  x: ProbeFailureExperiment,
  since: number,
  until: number,
): Promise<VerifyCheck> {
  if (x.at < since || x.at > until) {
    throw new RollwiseInputError(
      '--listener-stopped',
      `${x.pod}@${iso(x.at)}`,
      `the experiment lies outside the verified window ${showRange(since, until)}.`,
      'give the time the listener was stopped, inside --since .. --until.',
    );
  }
  const selector = `namespace="${target.namespace}", pod="${x.pod}", condition="true"`;
  const from = x.at - 600;
  const to = Math.min(until, x.at + x.leaveWithinSeconds + 600);
  await requireSeries(c, SOURCES.podReady, selector, from, to, `${target.namespace}/${x.pod}`);
  const query = `kube_pod_status_ready{${selector}}[${promRange(to - from)}]`;
  const samples = ((await c.instant(query, to))[0]?.samples ?? []).slice().sort((a, b) => a.t - b.t);
  const gaps = samples
    .slice(1)
    .map((s, i) => s.t - samples[i].t)
    .sort((a, b) => a - b);
  const interval = gaps.length ? gaps[Math.floor(gaps.length / 2)] : 0;
  const left = samples.find((s) => s.t >= x.at && s.v === 0);
  const limit = x.leaveWithinSeconds + interval;
  const base = {
    name: 'probe can still fail',
    threshold: `not Ready within ${x.leaveWithinSeconds} s ` + `(${x.leaveWithinSource}) + one ${interval} s sample`,
    query,
    source: SOURCES.podReady.source,
  };
  if (!left) {
    const last = samples[samples.length - 1];
    const lastAt = last ? showTime(last.t) : 'the end of the data';
    const after = last ? last.t - x.at : '?';
    const stoppedAt = showTime(x.at);
    return {
      ...base,
      verdict: 'fail',
      figure:
        `${x.pod} was still Ready ` +
        `at ${lastAt}, ${after} s after its listener was ` +
        `stopped at ${stoppedAt}: a probe that cannot fail protects nothing (readiness on another port, a handler ` +
        'that answers without the listener, or no readiness probe)',
    };
  }
  const after = left.t - x.at;
  return {
    ...base,
    verdict: after <= limit ? 'pass' : 'fail',
    figure:
      `${x.pod} was first seen not Ready ${after} s after its listener was stopped at ${showTime(x.at)} (sample ` +
      `at ${showTime(left.t)}, every ${interval} s)`,
  };
}

function pct(r: number): string {
  return `${Math.round(r * 10000) / 100} %`;
}

/** Text form: one line per check with its figure, then the verdict. */
export function formatVerify(r: VerifyReport): string {
  const lines = [
    `verify ${r.service} ` + `over ${showRange(Date.parse(r.window.start) / 1000, Date.parse(r.window.end) / 1000)}`,
  ];
  if (r.verdict === 'refused') return `${lines[0]}\nREFUSED: ${r.refusal}\n`;
  lines.push(
    `peak: ${showRange(
      Date.parse(r.peak!.start) / 1000,
      Date.parse(r.peak!.end) / 1000,
    )}, ${Math.round(r.peak!.requestsPerSecond)} ` +
      `req/s (busiest hour of the week: ${Math.round(r.peak!.referenceRequestsPerSecond)} req/s)`,
  );
  for (const ch of r.checks)
    lines.push(`${ch.verdict.toUpperCase().padEnd(4)} ${ch.name}: ${ch.figure} (threshold ${ch.threshold})`);
  lines.push(`verdict: ${r.verdict.toUpperCase()}`);
  return `${lines.join('\n')}\n`;
}
