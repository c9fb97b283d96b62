import { CapacityPoint, Measured, MEASUREMENTS_API_VERSION, MeasurementsDocument } from './measurements';
import { MeasureError, PrometheusClient } from './prometheus';
import { MetricSource, ServiceQueries, ServiceTarget, SOURCES } from './queries';
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

export interface MeasureOptions {
  readonly client: PrometheusClient;
  readonly target: ServiceTarget;
  /**
   * End of the window (seconds since the epoch).
   * @default now
   */
  readonly end?: number;
  /**
   * Length of the window in seconds.
   * @default 7 days: a week holds every weekday's peak, and a single day can be a quiet one
   */
  readonly windowSeconds?: number;
  /**
   * The clock, for `measuredAt`.
   * @default Date.now
   */
  readonly now?: () => number;
  /**
   * The app's own HTTP histogram for the readiness path, e.g.
   * `http_request_duration_seconds{handler="/healthz"}`: a second p99, measured inside the app.
   * @default none: only the kubelet's probe durations
   */
  readonly appHistogram?: string;
}

export const DEFAULT_WINDOW_SECONDS = 7 * 86400;
/**
 * The peak is the busiest hour: long enough for hundreds of probes per pod, short enough to be the peak and not the
 * afternoon.
 */
export const PEAK_SECONDS = 3600;
/** Candidate peak hours start every 15 minutes. */
const PEAK_STEP = 900;
/** A knee: the p99 at a load is at least this multiple of the p99 at the lightest load measured. */
export const KNEE_FACTOR = 3;
const CAPACITY_BINS = 8;

/** Finds the busiest hour of the window and measures the service in it (see docs/measure.md). */
export async function measureService(o: MeasureOptions): Promise<MeasurementsDocument> {
  const c = o.client;
  const target = o.target;
  const q = new ServiceQueries(target);
  const end = Math.floor(o.end ?? Date.now() / 1000);
  const windowSeconds = o.windowSeconds ?? DEFAULT_WINDOW_SECONDS;
  if (!(windowSeconds >= 2 * PEAK_SECONDS)) {
    throw new MeasureError(
      `window ${windowSeconds} s`,
      'is shorter than two hours, so it cannot tell a peak from the hours around it.',
      'measure over a week (the default) or at least a day with --window 1d.',
    );
  }
  const start = end - windowSeconds;
  const window = { start: iso(start), end: iso(end) };
  const service = `${target.namespace}/${target.name}`;

  await requireSeries(c, SOURCES.requests, q.route, start, end, service);
  await requireSeries(c, SOURCES.probeDuration, `probe_type="Readiness", ${q.pods}`, start, end, service);
  await requireSeries(c, SOURCES.podOwner, q.owner.replace(/^kube_pod_owner\{|\}$/g, ''), start, end, service);

  // --- the peak: the hour with the most requests on the route --------------------------------
  const hourly = q.requests('1h');
  const first = Math.ceil((start + PEAK_SECONDS) / PEAK_STEP) * PEAK_STEP;
  const counts = (await c.range(hourly, first, end, PEAK_STEP))[0]?.samples.filter((s) => Number.isFinite(s.v)) ?? [];
  const best = counts.reduce<{ t: number; v: number } | undefined>(
    (b, s) => (b === undefined || s.v > b.v ? s : b),
    undefined,
  );
  if (!best || best.v <= 0) {
    throw new MeasureError(
      `requests of ${service} between ${showTime(start)} and ${showTime(end)}`,
      'none were recorded: the window holds no traffic on the route, so it has no peak to measure.',
      'measure a window in which the service served its usual traffic (--end, --window), or check that Envoy Gateway ' +
        'routes it (HTTPRoute attached, backends resolved).',
    );
  }
  const peakEnd = best.t;
  const peakStart = peakEnd - PEAK_SECONDS;
  const peakRps = best.v / PEAK_SECONDS;
  const peakWindow = { start: iso(peakStart), end: iso(peakEnd) };
  const peakText = `busiest hour ${showRange(peakStart, peakEnd)}`;

  // --- the readiness handler's latency at the peak ----------------------------------------------
  // The kubelet observes the duration of successful probes only; a failed one (a timeout, a 5xx) is
  // counted in prober_probe_total{result="failed"} and never observed (pkg/kubelet/prober/worker.go
  // doProbe). So the p99 is read over successes and failures together, every failure counted as
  // slower than every success: a timed-out probe took at least timeoutSeconds, and one that answered
  // 503 fast is counted the same, which can only raise the figure
  // (docs/mechanisms.md#probe-durations-leave-out-failures).
  const bucketsQuery = q.probeBuckets('1h');
  const buckets = (await c.instant(bucketsQuery, peakEnd))
    .map((s) => ({ le: Number(s.labels.le === '+Inf' ? Infinity : s.labels.le), n: s.samples[0].v }))
    .sort((a, b) => a.le - b.le);
  const probes = buckets.find((b) => b.le === Infinity)?.n ?? 0;
  if (!(probes > 0)) {
    throw new MeasureError(
      `readiness probe durations of ${service} in the ${peakText}`,
      'there are none: the kubelet recorded no successful readiness probe of these pods in the busiest hour (every ' +
        'probe failed, or the pods have no readiness probe).',
      "check the pods' readiness probe and events (kubectl describe pod); a fleet whose probes all fail at peak has " +
        'no p99 to measure, only an outage to fix.',
    );
  }
  const owned = await ownedPodNames(c, q, peakStart, peakEnd);
  const failedQuery = q.probeResultsRaw('failed', promRange(PEAK_SECONDS + 600));
  const failed = counterIncrease(
    (await rawCounter(c, (w) => q.probeResultsRaw('failed', w), peakStart, peakEnd)).filter((x) =>
      owned.has(x.labels.pod),
    ),
    peakStart,
  );
  const failedAtPeak = measured(
    failed.total,
    'probes',
    failedQuery,
    peakWindow,
    SOURCES.probeTotal.source,
    'timeouts and error status codes are both result="failed" in the kubelet\'s counter; it cannot split them (the ' +
      'Unhealthy events\' messages can: "context deadline exceeded" vs "statuscode: 503", ' +
      'docs/mechanisms.md#probe-failure-texts). A missing "failed" series means none failed.',
  );
  const counted = probes + failed.total;
  const rankShare = quantileShareWithFailures(0.99, probes, failed.total) ?? Infinity;
  const successOnly = quantileBucket(buckets, 0.99);
  const pods = (await scalar(c, q.probedPods('1h'), peakEnd)) ?? 0;
  const pct = (x: number) => `${Math.round(x * 10000) / 100} %`;
  const failedText =
    `${Math.round(failed.total)} of ${Math.round(counted)} readiness probes ` +
    `(${pct(failed.total / counted)}) failed`;
  const probeSource =
    `${SOURCES.probeDuration.source}, ${Math.round(probes)} successful ` +
    `and ${Math.round(failed.total)} failed probes (${SOURCES.probeTotal.source})`;
  let p99: MeasurementsDocument['readiness']['p99'];
  const base = {
    unit: 'seconds',
    window: peakWindow,
    source: probeSource,
    probesCounted: Math.round(counted),
    failedProbes: Math.round(failed.total),
    successfulOnlySeconds: Number.isFinite(successOnly.upper) ? successOnly.upper : null,
  };
  if (rankShare > 1) {
    const p99Query = q.probeQuantile(0.99, '1h');
    p99 = {
      ...base,
      value: null,
      query: `${p99Query} (successful probes only); failures: ${failedQuery}`,
      interpolatedSeconds: null,
      bucketLowerSeconds: null,
      note:
        `${failedText} in the busiest hour, more than 1 %: the p99 is a failed probe, at least the probe's ` +
        `timeout (the kubelet never observes a failed probe's duration), so no bucket holds it; the successful ` +
        'probes alone put it ' +
        `at ${Number.isFinite(successOnly.upper) ? `${successOnly.upper} s` : 'above the largest bucket'}, which is ` +
        'not the tail. Fix why the probes failed at peak (docs/mechanisms.md#probe-durations-leave-out-failures).',
    };
  } else {
    const share = Math.round(rankShare * 1e6) / 1e6;
    const p99Query = q.probeQuantile(share, '1h');
    const b = quantileBucket(buckets, rankShare);
    const interpolated = await scalar(c, p99Query, peakEnd);
    p99 = {
      ...base,
      value: Number.isFinite(b.upper) ? b.upper : null,
      query: p99Query,
      interpolatedSeconds: interpolated ?? null,
      bucketLowerSeconds: b.lower,
      note: Number.isFinite(b.upper)
        ? `p99 of successful and failed probes together lies in the bucket (${b.lower}, ${b.upper}] ` +
          `s: ${failedText}${
            failed.total > 0
              ? ', each counted as slower than every success (the kubelet leaves ' +
                "failures out of the histogram), so the p99 is the successes' " +
                `${Math.round(share * 10000) / 100}th ` +
                'percentile'
              : ''
          } ` +
          '(docs/mechanisms.md#probe-durations-leave-out-failures).'
        : `p99 is above the largest bucket (${b.lower} s): the handler is far too slow to measure with the kubelet's ` +
          'buckets.',
    };
  }
  const p50Query = q.probeQuantile(0.5, '1h');
  const p50 = measured(
    await scalar(c, p50Query, peakEnd),
    'seconds',
    p50Query,
    peakWindow,
    probeSource,
    "interpolated by histogram_quantile within the kubelet's buckets, over successful probes",
  );

  const appP99 =
    o.appHistogram === undefined
      ? undefined
      : await appHistogramP99(c, o.appHistogram, target, peakStart, peakEnd, peakWindow, service);

  // --- traffic and CPU at the peak ------------------------------------------------------------------
  const rpsQuery = `${hourly} / ${PEAK_SECONDS}`;
  const peakRpsM = measured(peakRps, 'req/s', rpsQuery, peakWindow, SOURCES.requests.source);
  const readyAvgQuery = q.readyAvg('1h', '1m');
  const readyAtPeak = await scalar(c, readyAvgQuery, peakEnd);
  const perReplicaQuery = `${rpsQuery} / ${readyAvgQuery}`;
  const perReplica = measured(
    readyAtPeak ? peakRps / readyAtPeak : undefined,
    'req/s',
    perReplicaQuery,
    peakWindow,
    `${SOURCES.requests.source} / ${q.readySource.source}`,
    readyAtPeak
      ? `${Math.round(readyAtPeak * 10) / 10} ready endpoints on average`
      : 'no ready endpoints ' + `recorded: ${q.readySource.enable}`,
  );
  const cpuQuery = `${q.cpuSeconds('1h')} / ${hourly}`;
  const cpuPerRequest = await optional(
    c,
    SOURCES.cpu,
    q.pods,
    peakStart,
    peakEnd,
    cpuQuery,
    'cpu-seconds',
    peakWindow,
    service,
  );
  const throttleQuery = q.throttledRatio('1h');
  const throttled = await scalar(c, throttleQuery, peakEnd);
  const throttledM = measured(
    throttled,
    'ratio',
    throttleQuery,
    peakWindow,
    SOURCES.cfs.source,
    throttled === undefined
      ? 'no CFS series: the container has no CPU limit (cAdvisor exports CFS counters only ' +
          'under a quota), so it is never throttled.'
      : undefined,
  );

  // --- endpoints over the window ----------------------------------------------------------------
  const ratioQuery = `${q.ready} / ${q.desired}`;
  const ratio = (await c.range(ratioQuery, start, end, 60))[0]?.samples.filter((s) => Number.isFinite(s.v)) ?? [];
  const lowest = ratio.reduce<{ t: number; v: number } | undefined>(
    (b, s) => (b === undefined || s.v < b.v ? s : b),
    undefined,
  );
  const lowestM = measured(
    lowest?.v,
    'ratio',
    ratioQuery,
    window,
    `${q.readySource.source} / ${q.desiredSource.source}`,
    lowest
      ? `lowest at ${showTime(lowest.t)} (sampled every minute)`
      : 'no ready endpoints or desired replicas ' + `recorded: ${q.readySource.enable} ${q.desiredSource.enable}`,
  );

  // --- the proxy's connection counters over the window ---------------------------------------
  const proxyCounter = async (src: MetricSource) => {
    const query = q.counterRaw(src.metric, promRange(end - start + 600));
    const ev = counterIncrease(await rawCounter(c, (w) => q.counterRaw(src.metric, w), start, end), start);
    return measured(
      ev.total,
      'connections',
      query,
      window,
      src.source,
      ev.events.length ? 'last ' + `at ${showTime(ev.events[ev.events.length - 1].t)}` : undefined,
    );
  };

  // --- capacity points: per-replica load -> handler p99, hour by hour -----------------------------
  const hourStart = Math.ceil((start + PEAK_SECONDS) / PEAK_SECONDS) * PEAK_SECONDS;
  // Hour by hour over successful probes (the failures' share per hour is not read here).
  const p99ByHour = (await c.range(q.probeQuantile(0.99, '1h'), hourStart, end, PEAK_SECONDS))[0]?.samples ?? [];
  const loadByHour = (await c.range(perReplicaQuery, hourStart, end, PEAK_SECONDS))[0]?.samples ?? [];
  const loadAt = new Map(loadByHour.map((s) => [s.t, s.v]));
  const hours = p99ByHour
    .filter((s) => Number.isFinite(s.v) && Number.isFinite(loadAt.get(s.t) ?? NaN))
    .map((s) => ({ rps: loadAt.get(s.t)!, p99: s.v }));
  const capacity = capacityPoints(hours);

  return {
    apiVersion: MEASUREMENTS_API_VERSION,
    kind: 'Measurements',
    service: {
      name: target.name,
      namespace: target.namespace,
      container: q.container,
      workload: target.workload ?? 'rollout',
    },
    prometheus: c.url,
    measuredAt: iso((o.now ?? Date.now)() / 1000),
    window,
    peak: { start: peakWindow.start, end: peakWindow.end, requestsPerSecond: peakRps, pods, query: hourly },
    readiness: { p99, p50, failedAtPeak, ...(appP99 ? { appP99 } : {}) },
    traffic: { peakRequestsPerSecond: peakRpsM, perReadyReplicaAtPeak: perReplica },
    cpu: { secondsPerRequestAtPeak: cpuPerRequest, throttledRatioAtPeak: throttledM },
    endpoints: { lowestReadyRatio: lowestM },
    proxy: {
      remoteResetsWithActiveRequest: await proxyCounter(SOURCES.remoteResets),
      idleTimeouts: await proxyCounter(SOURCES.idleTimeouts),
    },
    capacity,
  };
}

/**
 * The p99 of the app's own histogram at the peak. Its labels are the app's and the scrape's, so
 * only namespace and pod are added to the user's matchers (a PodMonitor or ServiceMonitor adds
 * both). The value is the upper bound of the bucket holding the p99, as for the kubelet's.
 */
async function appHistogramP99(
  c: PrometheusClient,
  spec: string,
  target: ServiceTarget,
  peakStart: number,
  peakEnd: number,
  window: Measured['window'],
  service: string,
): Promise<Measured> {
  const m = /^\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\s*(?:\{(.*)\})?\s*$/.exec(spec);
  if (!m)
    throw new MeasureError(
      `--app-histogram ${spec}`,
      'is not a metric name with optional matchers.',
      'write e.g. http_request_duration_seconds{handler="/healthz"}.',
    );
  const name = m[1].endsWith('_bucket') ? m[1] : `${m[1]}_bucket`;
  const sel = [m[2]?.trim(), `namespace="${target.namespace}"`].filter((x) => x).join(', ');
  const q = new ServiceQueries(target);
  const src: MetricSource = {
    metric: name,
    source: `the app's own request histogram (${name}{${m[2] ?? ''}}, as the ` + 'app exports it)',
    enable:
      "check the metric name and its labels in the app's /metrics, and that a " +
      'ServiceMonitor or PodMonitor scrapes the pods.',
  };
  await requireSeries(c, src, sel, peakStart, peakEnd, service);
  const bucketsQuery = `sum by (le) (${q.owned(`increase(${name}{${sel}}[1h])`, '1h')})`;
  const query = `histogram_quantile(0.99, ${bucketsQuery})`;
  const buckets = (await c.instant(bucketsQuery, peakEnd))
    .map((s) => ({ le: s.labels.le === '+Inf' ? Infinity : Number(s.labels.le), n: s.samples[0].v }))
    .sort((a, b) => a.le - b.le);
  if (!buckets.length || !(buckets[buckets.length - 1].n > 0))
    return measured(
      undefined,
      'seconds',
      query,
      window,
      src.source,
      'no requests to the readiness path in the busiest hour',
    );
  const b = quantileBucket(buckets, 0.99);
  const interpolated = await scalar(c, query, peakEnd);
  return measured(
    Number.isFinite(b.upper) ? b.upper : undefined,
    'seconds',
    query,
    window,
    src.source,
    `in the app's bucket (${b.lower}, ${b.upper}] ` +
      `s${interpolated === undefined ? '' : `, interpolated ${Math.round(interpolated * 1000)} ms`}; measured inside ` +
      'the app, so it leaves out the network, the kubelet and any queueing before the handler that the probe sees',
  );
}

function measured(
  v: number | undefined,
  unit: string,
  query: string,
  window: Measured['window'],
  source: string,
  note?: string,
): Measured {
  return {
    value: v === undefined || !Number.isFinite(v) ? null : v,
    unit,
    query,
    window,
    source,
    ...(note ? { note } : {}),
  };
}

async function optional(
  c: PrometheusClient,
  src: MetricSource,
  selector: string,
  start: number,
  end: number,
  query: string,
  unit: string,
  window: Measured['window'],
  service: string,
): Promise<Measured> {
  try {
    await requireSeries(c, src, selector, start, end, service);
  } catch (e) {
    if (e instanceof MeasureError)
      return measured(undefined, unit, query, window, src.source, `not measured: ${e.why} ${e.fix}`);
    throw e;
  }
  return measured(await scalar(c, query, end), unit, query, window, src.source);
}

/**
 * The quantile of the successful probes' histogram that is the q-quantile of all probes, when every
 * failed probe is counted as slower than every successful one (the kubelet counts failures but never
 * observes their duration); undefined when the q-quantile is itself a failure.
 */
export function quantileShareWithFailures(q: number, successful: number, failed: number): number | undefined {
  const share = (q * (successful + failed)) / successful;
  return share <= 1 ? share : undefined;
}

/** The bucket (lower, upper] holding the q-quantile of cumulative bucket counts sorted by le. */
export function quantileBucket(
  buckets: ReadonlyArray<{ le: number; n: number }>,
  q: number,
): { lower: number; upper: number } {
  const total = buckets[buckets.length - 1].n;
  const rank = q * total;
  let lower = 0;
  for (const b of buckets) {
    if (b.n >= rank) return { lower, upper: b.le };
    lower = b.le;
  }
  return { lower, upper: Infinity };
}

/**
 * Bins hourly (per-replica load, p99) pairs into up to 8 load ranges (the worst p99 of each) and
 * looks for a knee: the first range whose p99 is at least 3x the lightest range's.
 */
export function capacityPoints(hours: ReadonlyArray<{ rps: number; p99: number }>): MeasurementsDocument['capacity'] {
  if (hours.length === 0)
    return {
      points: [],
      saturation: {
        estimateRps: null,
        sentence: 'no hour had both probe durations and ready endpoints, so there are no capacity points.',
      },
    };
  const lo = Math.min(...hours.map((h) => h.rps));
  const hi = Math.max(...hours.map((h) => h.rps));
  const width = (hi - lo) / CAPACITY_BINS || 1;
  const bins = new Map<number, Array<{ rps: number; p99: number }>>();
  for (const h of hours) {
    const b = Math.min(CAPACITY_BINS - 1, Math.floor((h.rps - lo) / width));
    bins.set(b, [...(bins.get(b) ?? []), h]);
  }
  const points: CapacityPoint[] = [...bins.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([, hs]) => ({
      rps: round(hs.reduce((s, h) => s + h.rps, 0) / hs.length),
      p99Seconds: round(Math.max(...hs.map((h) => h.p99)), 4),
      hours: hs.length,
    }));
  const base = points[0].p99Seconds;
  const knee = points.findIndex((p) => p.p99Seconds >= KNEE_FACTOR * base);
  if (knee <= 0) {
    const [lightest, highest] = [points[0].rps, points[points.length - 1].rps];
    return {
      points,
      saturation: {
        estimateRps: null,
        sentence:
          `no knee in the data: the p99 stays below ${KNEE_FACTOR}x the lightest load's (${ms(base)} at ${lightest} ` +
          `req/s per replica) up to the highest load measured, ${highest} req/s per replica; ` +
          'saturation is above that and unknown (load-test one replica to find it).',
      },
    };
  }
  const below = points[knee - 1];
  const at = points[knee];
  return {
    points,
    saturation: {
      estimateRps: below.rps,
      sentence:
        `a knee between ${below.rps} and ${at.rps} req/s per replica: the p99 rises from ${ms(below.p99Seconds)} ` +
        `to ${ms(at.p99Seconds)} (${KNEE_FACTOR}x or more the lightest load's ${ms(base)}); saturation is estimated ` +
        `at ${below.rps} req/s per replica, the highest load below the knee.`,
    },
  };
}

function round(v: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

function ms(s: number): string {
  return s < 1 ? `${Math.round(s * 1000)} ms` : `${round(s, 2)} s`;
}
