import { decided, Decision } from './decision';
import { ownedBy, replicaSetName } from './generated-names';
import { formatGoDuration } from './inputs';

/** Names that the analysis queries refer to. */
export interface AnalysisTargets {
  readonly namespace: string;
  /** Service (and Rollout, HTTPRoute) name. */
  readonly name: string;
  /** Prometheus base URL, e.g. http://prometheus.monitoring:9090 */
  readonly prometheusAddress: string;
  /** Highest acceptable 5xx ratio (e.g. 0.01). */
  readonly maxErrorRatio: number;
  /** Canary share of traffic at the first step (%), for the dilution arithmetic. */
  readonly firstWeightPercent: number;
  /**
   * The measurement window of the error ratios and the request volume, in seconds (from the
   * volume plan, see `planCanaryVolume`).
   * @default RATE_WINDOW_SECONDS (2 min)
   */
  readonly windowSeconds?: number;
  /**
   * Minimum canary requests per window (from the volume plan).
   * @default minimumSample(maxErrorRatio)
   */
  readonly minRequests?: number;
  /** The volume plan's sentence (traffic, weight, window), appended to the volume metric's reason. */
  readonly volumeReason?: string;
  /**
   * The readiness return window (successThreshold x periodSeconds), in seconds: the shortest time a
   * pod that left Ready stays out.
   * @default 30 (rollwise's readiness probe: 3 x 10 s)
   */
  readonly returnWindowSeconds?: number;
  /**
   * The Rollout's minReadySeconds.
   * @default 30 (MIN_READY_FLOOR_SECONDS)
   */
  readonly minReadySeconds?: number;
}

/** The Envoy Gateway cluster names of the service's route (rule 0): stable and, via its filter, canary. */
export function envoyClusters(namespace: string, name: string): { route: string; routeRegex: string; canary: string } {
  const route = `httproute/${namespace}/${name}/rule/0`;
  return { route, routeRegex: `${route}(/backend/[0-9]+)?`, canary: `${route}/backend/1` };
}

/** Condition for a ratio: no data or NaN is neither success nor failure, i.e. Inconclusive. */
export function guardedConditions(threshold: number): { successCondition: string; failureCondition: string } {
  return {
    successCondition: `len(result) > 0 && !isNaN(result[0]) && result[0] < ${threshold}`,
    failureCondition: `len(result) > 0 && !isNaN(result[0]) && result[0] >= ${threshold}`,
  };
}

/** Shortest measurement window: 4 scrapes at the common 30 s interval, so one lost scrape does not empty it. */
export const RATE_WINDOW_SECONDS = 120;
/** Shortest measurement window in Prometheus notation. */
export const RATE_WINDOW = '2m';
/**
 * Shortest window of the readiness-departure count: it must overlap the next measurement's window by at least one
 * scrape.
 */
export const READINESS_WINDOW = '2m';
export const READINESS_WINDOW_SECONDS = 120;
/** The scrape interval the analysis windows assume (kube-prometheus-stack's default, 4 per RATE_WINDOW). */
export const ASSUMED_SCRAPE_SECONDS = 30;
/** One measurement a minute. */
export const INTERVAL = '1m';
export const INTERVAL_SECONDS = 60;
/** The gate measures for at least five minutes before it lets the canary reach 100 %. */
export const GATE_COUNT = 5;
/**
 * The longest burst of errors the limits treat as a blip rather than a pattern
 * (docs/mechanisms.md#one-burst-and-the-limits).
 */
export const BLIP_SECONDS = 60;

/**
 * How many measurements one burst of errors of up to BLIP_SECONDS can fail, with windows of
 * `windowSeconds` measured every INTERVAL_SECONDS: the windows that hold any of it end in the open
 * interval (burst start, burst end + window), which holds at most ceil((window + burst) / interval)
 * measurement instants (docs/mechanisms.md#one-burst-and-the-limits).
 */
export function measurementsOneBurstTouches(windowSeconds: number): number {
  return Math.ceil((windowSeconds + BLIP_SECONDS) / INTERVAL_SECONDS);
}

/**
 * The error ratios' failureLimit for a window: exactly the measurements one blip can fail, so the run
 * fails (failed > failureLimit, analysis/analysis.go v1.9.1) only on evidence no single blip produces.
 */
export function failureLimitFor(windowSeconds: number): number {
  return measurementsOneBurstTouches(windowSeconds);
}

/**
 * When a canary that fails every measurement is aborted, counted from the run's start: the first
 * measurement at initialDelay (one window), then one a minute until failed > failureLimit.
 */
export function sustainedAbortSeconds(windowSeconds: number): number {
  return windowSeconds + failureLimitFor(windowSeconds) * INTERVAL_SECONDS;
}

/**
 * The inline gate's count: GATE_COUNT, raised so that failureLimit + 1 failures fit (count >= failureLimit,
 * utils/analysis/factory.go v1.9.1, and a gate that can fail).
 */
export function gateCountFor(windowSeconds: number): number {
  return Math.max(GATE_COUNT, failureLimitFor(windowSeconds) + 1);
}

/**
 * Minimum canary requests per window for a ratio against `maxErrorRatio`: one error moves it by a tenth of the
 * threshold.
 */
export function minimumSample(maxErrorRatio: number): number {
  return Math.ceil(10 / maxErrorRatio);
}

export interface MetricSpec {
  readonly name: string;
  readonly query: string;
  readonly reason: string;
  readonly successCondition: string;
  readonly failureCondition: string;
  /** This metric's failureLimit, when it differs from the shared one. */
  readonly failureLimit?: Decision<number>;
  /**
   * This metric's first measurement in the background run, when it differs from one window.
   * @default the ratios' window: their first measurement reads one full window from the run's start
   */
  readonly initialDelay?: Decision<string>;
}

/**
 * The error ratio of `selector`'s Envoy clusters over `window`. Envoy creates the response-class
 * counters on first use (source/common/http/codes.cc): a cluster that never answered a 5xx has no
 * class "5" series, so the numerator defaults to 0 (`or on() vector(0)`) while the denominator
 * keeps "no traffic" an empty result (no sample: Inconclusive) and 0/0 a NaN (Inconclusive).
 */
/**
 * Departures from Ready of the pods of ReplicaSet `replicaSet` in the last `window`, by owner
 * (docs/mechanisms.md#generated-names).
 */
export function departuresQuery(namespace: string, replicaSet: string, window: string = READINESS_WINDOW): string {
  return `sum(${ownedBy(
    `resets(kube_pod_status_ready{namespace="${namespace}", condition="true"}[${window}])`,
    namespace,
    `owner_name="${replicaSet}"`,
    window,
  )})`;
}

/**
 * How far the readiness-departure count looks back, so that its first measurement (INTERVAL after
 * the run starts) still sees a canary pod that left Ready before it was first available
 * (docs/mechanisms.md#one-burst-and-the-limits). Such a pod was out for at least the return window
 * and then Ready for minReadySeconds before the controller counted it available, set the first weight
 * and started the run, so its departure lies at least returnWindow + minReadySeconds before the run's
 * start; resets() sees the drop only with the last sample that still read Ready, up to a scrape
 * before it; and one more scrape covers the controllers' reaction between availability and the
 * measurement (seconds). Never below READINESS_WINDOW_SECONDS.
 */
export function departuresWindowSeconds(
  returnWindowSeconds: number,
  minReadySeconds: number,
  scrapeSeconds: number = ASSUMED_SCRAPE_SECONDS,
): number {
  return Math.max(
    READINESS_WINDOW_SECONDS,
    INTERVAL_SECONDS + returnWindowSeconds + minReadySeconds + 2 * scrapeSeconds,
  );
}

export function errorRatioQuery(selector: string, window: string): string {
  const xx = (extra: string) =>
    `sum(rate(envoy_cluster_upstream_rq_xx{envoy_cluster_name${selector}${extra}}[${window}]))`;
  return `(${xx(', envoy_response_code_class="5"')} or on() vector(0)) / ${xx('')}`;
}

/** The metrics both templates evaluate, each with its reason. */
export function analysisMetrics(t: AnalysisTargets): MetricSpec[] {
  const c = envoyClusters(t.namespace, t.name);
  const thr = t.maxErrorRatio;
  const w = t.firstWeightPercent / 100;
  const pct = (x: number) => `${Math.round(x * 10000) / 100} %`;
  const windowSeconds = t.windowSeconds ?? RATE_WINDOW_SECONDS;
  const window = formatGoDuration(windowSeconds);
  const minRequests = t.minRequests ?? minimumSample(thr);
  const ret = t.returnWindowSeconds ?? 30;
  const minReady = t.minReadySeconds ?? 30;
  const depSeconds = departuresWindowSeconds(ret, minReady);
  const dep = formatGoDuration(depSeconds);
  const depWhy =
    `${dep} = the first measurement's delay ${INTERVAL} + readiness return window ${ret} s + ` +
    `minReadySeconds ${minReady} s + 2 x the ${ASSUMED_SCRAPE_SECONDS} s ` +
    `scrape${
      depSeconds === INTERVAL_SECONDS + ret + minReady + 2 * ASSUMED_SCRAPE_SECONDS
        ? ''
        : ` (at least ${READINESS_WINDOW})`
    }`;
  const absent =
    'Envoy creates the class "5" counter at a cluster\'s first 5xx, so a healthy canary has no such ' +
    'series: the numerator defaults to 0 (`or on() vector(0)`) only while the denominator has traffic. Without ' +
    'traffic the division has no sample and 0/0 is NaN; both are Inconclusive (pause), never a pass ' +
    '(docs/mechanisms.md#canary-analysis).';
  // What reaches the canary cluster's counters when its pods are not Ready: Envoy Gateway sends
  // not-Ready endpoints as draining (internal/gatewayapi/route.go getIREndpointsFromEndpointSlice,
  // v1.9.0) and Envoy panic-routes to them (docs/mechanisms.md#panic-routing); their answers and
  // the resets' 503s are charged to the cluster (router.cc chargeUpstreamCode, chargeUpstreamAbort).
  // With no endpoint at all Envoy Gateway routes the backendRef's share to the non-existent
  // "invalid-backend-cluster" (503 NC) or gives the rule a direct 503 (internal/xds/translator/route.go
  // buildXdsWeightedRouteAction, internal/gatewayapi/route.go failedNoReadyEndpoints, v1.9.0), which
  // Envoy answers before choosing a cluster, so no cluster counts them (router.cc decodeHeaders, read
  // on Envoy's main branch). See src/decisions/alerts.ts for the line-level citations.
  return [
    {
      name: 'canary-error-ratio',
      query: errorRatioQuery(`="${c.canary}"`, window),
      ...guardedConditions(thr),
      reason:
        `Canary-only 5xx ratio over ${window} from Envoy Gateway's per-backend cluster ${c.canary} (the canary ` +
        'backendRef carries a header filter, which makes Envoy Gateway build it a cluster of its own; it exists only ' +
        `while the canary weight is above 0). The route ratio blends both: at ${t.firstWeightPercent} % weight it ` +
        `is ${w} x canary errors + ${Math.round((1 - w) * 100) / 100} x stable errors, so a ${pct(thr)} threshold on ` +
        `it trips only when the canary fails ${pct(thr / w)} of its requests; here ${pct(thr)} means ${pct(thr)} of ` +
        `canary requests (docs/mechanisms.md#canary-analysis). ${absent} A canary whose pods are all not Ready still ` +
        'gets its share: Envoy Gateway lists them as draining and Envoy, in panic, sends the requests to them ' +
        `(docs/mechanisms.md#panic-routing), so their answers, and Envoy's 503s when they do not answer, are counted ` +
        'here. A canary Service with no endpoint at all is not routed to: Envoy Gateway sends its share to a cluster ' +
        'that does not exist (503, flag NC), or answers the whole rule with a direct 503 when the stable has none ' +
        'either, and no cluster counts those (docs/mechanisms.md#response-flags), so this cluster sees no traffic ' +
        'and the measurement is Inconclusive (a pause, never a pass); the readiness-departures metric catches the ' +
        'pods leaving Ready.',
    },
    {
      name: 'route-error-ratio',
      query: errorRatioQuery(`=~"${c.routeRegex}"`, window),
      ...guardedConditions(thr),
      reason:
        `The route's blended 5xx ratio over ${window} (stable and canary clusters of ${c.route}), against the ` +
        `same ${pct(thr)} threshold: guards the users as a whole; alone it would need the canary to ` +
        `fail ${pct(thr / w)} of its requests at ${t.firstWeightPercent} % weight. ${absent}`,
    },
    {
      name: 'canary-request-volume',
      query: `sum(increase(envoy_cluster_upstream_rq_total{envoy_cluster_name="${c.canary}"}[${window}]))`,
      successCondition: `len(result) > 0 && !isNaN(result[0]) && result[0] >= ${minRequests}`,
      failureCondition: 'false',
      reason:
        `At least ${minRequests} canary requests per ${window} (10 / ${thr}): below that one stray error moves ` +
        `the ratio by more than a tenth of the ${pct(thr)} threshold, so a ratio from too little traffic is ` +
        'Inconclusive (pause for a human), never a pass. No canary cluster (weight 0) is no sample: ' +
        `Inconclusive.${t.volumeReason ? ` ${t.volumeReason}` : ''}`,
    },
    {
      name: 'canary-readiness-departures',
      query: departuresQuery(t.namespace, replicaSetName(t.name, '{{args.canary-hash}}'), dep),
      successCondition: 'len(result) > 0 && !isNaN(result[0]) && result[0] == 0',
      failureCondition: 'len(result) > 0 && !isNaN(result[0]) && result[0] > 0',
      failureLimit: decided(
        0,
        'One departure from Ready fails the run (failures > 0): a canary pod that passed readiness and then left it, ' +
          'under a few percent of the traffic, is the flapping that later takes the fleet ' +
          '(docs/mechanisms.md#readiness-control-loop); the overlapping windows may see one departure twice, and a ' +
          'limit of 0 makes one departure abort either way.',
      ),
      initialDelay: decided(
        INTERVAL,
        `The first departure count comes one interval (${INTERVAL}) after the run starts and looks back ${dep}, to ` +
          `before the canary's first pod was available; every later one looks back ${dep} from a minute later. So no ` +
          `minute of the run is unmeasured, also when the ratios' window (${window}) is longer: a canary pod that ` +
          `leaves Ready in the run's first minute is counted within ${INTERVAL}, and one that left Ready before it ` +
          'was first available is counted at the first measurement (docs/mechanisms.md#one-burst-and-the-limits).',
        { returnWindowSeconds: ret, minReadySeconds: minReady, windowSeconds: depSeconds },
      ),
      reason:
        `Canary pods that left Ready in the last ${dep}, selected by their owner, the canary ` +
        `ReplicaSet ${replicaSetName(t.name, '<pod-template-hash>')}: kube-state-metrics' ` +
        'kube_pod_owner{owner_kind="ReplicaSet", owner_name} (collected by default; v2.19.1 internal/store/pod.go) ' +
        `joined on(namespace, pod). A name pattern would not do: the API server cuts a pod's generateName ` +
        '"<replicaset>-" to 58 characters, so from about 47 characters of service name the pods no longer carry the ' +
        'hash (docs/mechanisms.md#generated-names). resets() counts each drop of ' +
        'kube_pod_status_ready{condition="true"} from 1 to 0. kube-state-metrics exports one series per status ' +
        '(true, false, unknown), each 0 or 1, and only once the pod has a Ready condition (internal/store/pod.go, ' +
        'utils.go addConditionMetrics, v2.19.1), so a pod still starting goes 0 -> 1 and is never counted: scale-ups ' +
        '(the first canary pod, 1 -> 3 at 25 %, the whole fleet at promotion) pass. A pod that leaves Ready ' +
        '(readiness failures, a crash or any other container restart, a node going Unknown) is counted; its 503s may ' +
        'never reach the error ratio because with no Ready endpoint the weight drops back and the canary cluster ' +
        'disappears (docs/mechanisms.md#readiness-control-loop, #rollout-complete). The owner is read over the ' +
        `same ${dep} (max_over_time), so a pod deleted inside the window still counts. A canary pod that never ` +
        `becomes Ready is the progress deadline's job, not this metric's. Window: ${depWhy}. A canary pod that ` +
        'leaves Ready before it is first available (failing from its first probe after Ready) stays out for at least ' +
        'the return window and must then be Ready for minReadySeconds before the controller counts it, sets the ' +
        `first weight and starts this run, so the departure lies at least ${ret + minReady} s before the run's start ` +
        `and the first measurement, ${INTERVAL} later, must reach back past it, to the last sample that still read ` +
        `Ready (up to a scrape earlier; the second scrape covers the controllers' seconds between availability and ` +
        'the measurement). A pod out for longer than its return window before it was first available left Ready ' +
        'earlier still and may be missed at the first measurement. The window overlaps the next measurement ' +
        `by ${formatGoDuration(depSeconds - INTERVAL_SECONDS)}, so no departure falls between two windows. Since ` +
        `every pod it counts is the canary ReplicaSet's, a longer window only counts a departure at more ` +
        'measurements, which abort at the first; but a retry of the same revision (kubectl argo rollouts retry) ' +
        `within ${dep} of a departure counts it again, as its pods belong to the same ReplicaSet. No series ` +
        '(kube-state-metrics not scraped) is Inconclusive.',
    },
  ];
}

export interface MetricLimits {
  readonly failureLimit: Decision<number>;
  readonly inconclusiveLimit: Decision<number>;
  readonly consecutiveErrorLimit: Decision<number>;
}

// The limits' semantics, from argo-rollouts analysis/analysis.go (v1.9.1):
// assessMetricFailureInconclusiveOrError compares failed > failureLimit, inconclusive >
// inconclusiveLimit and consecutiveErrors > consecutiveErrorLimit (all strict); an errored
// measurement is retried after DefaultErrorRetryInterval (10 s), not after the metric's interval.
// The default consecutiveErrorLimit is 4 (utils/defaults/defaults.go DefaultConsecutiveErrorLimit, v1.9.1);
// the Prometheus provider's default query timeout is 30 s (metricproviders/prometheus/prometheus.go, v1.9.1).
export function metricLimits(windowSeconds: number = RATE_WINDOW_SECONDS): MetricLimits {
  const window = formatGoDuration(windowSeconds);
  const limit = failureLimitFor(windowSeconds);
  const abortAt = sustainedAbortSeconds(windowSeconds);
  const mins = (sec: number) => (sec % 60 === 0 ? `${sec / 60} min` : `${sec} s`);
  return {
    failureLimit: decided(
      limit,
      `A burst of errors up to ${mins(BLIP_SECONDS)} long (a cold cache at a weight change, a dependency's hiccup) ` +
        `lies in the ${window} windows of at most ceil((${window} + ${mins(BLIP_SECONDS)}) / ${INTERVAL}) = ${limit} ` +
        `consecutive measurements, so failureLimit ${limit}: the run fails when failed measurements > ${limit} (Argo ` +
        'Rollouts compares with ">", analysis/analysis.go v1.9.1), which no single blip can cause, while a canary ' +
        `that keeps failing is aborted at its ${limit + 1}th failed measurement, ${mins(abortAt)} after the run ` +
        'starts (first measurement after one window, then one a minute). Failures add up over the run: two blips ' +
        'abort. A canary pod that leaves Ready, by a restart too, is not a blip for these limits: the ' +
        'readiness-departures metric (failureLimit 0) aborts on it (docs/mechanisms.md#one-burst-and-the-limits).',
      { windowSeconds, intervalSeconds: INTERVAL_SECONDS, blipSeconds: BLIP_SECONDS },
    ),
    inconclusiveLimit: decided(
      1,
      'The run ends Inconclusive when inconclusive measurements > 1, i.e. on the second one with no data or too ' +
        'little traffic: the rollout pauses for a human instead of promoting blind.',
    ),
    consecutiveErrorLimit: decided(
      2,
      'The run ends in Error, which aborts, when consecutive errors > 2, i.e. on the third consecutive query error ' +
        '(Prometheus unreachable, a bad query); an errored measurement is retried after 10 s, not after the ' +
        'interval, so that is about 20 s after the first error when queries fail fast (a query that times out adds ' +
        "the provider's timeout, 30 s by default, per attempt). Errors never count as failures, so the run must not " +
        'go on blind; the default 4 would end it on the fifth, about 40 s in.',
    ),
  };
}
