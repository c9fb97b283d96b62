import { decided, Decision } from './decision';

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

/** Rate window of every query: 4 scrapes at the common 30 s interval, so one lost scrape does not empty it. */
export const RATE_WINDOW = '2m';
/** One measurement a minute: twice per rate window, so consecutive measurements overlap and a burst is seen twice. */
export const INTERVAL = '1m';
/** The gate measures for five minutes before it lets the canary reach 100 %. */
export const GATE_COUNT = 5;

export interface MetricSpec {
  readonly name: string;
  readonly query: string;
  readonly reason: string;
  readonly successCondition: string;
  readonly failureCondition: string;
}

/** The metrics both templates evaluate, each with its reason. */
export function analysisMetrics(t: AnalysisTargets): MetricSpec[] {
  const c = envoyClusters(t.namespace, t.name);
  const thr = t.maxErrorRatio;
  const w = t.firstWeightPercent / 100;
  const pct = (x: number) => `${Math.round(x * 10000) / 100} %`;
  const minRequests = Math.ceil(10 / thr);
  const ratio = (cluster: string) => `sum(rate(envoy_cluster_upstream_rq_xx{envoy_cluster_name${cluster}, envoy_response_code_class="5"}[${RATE_WINDOW}])) / sum(rate(envoy_cluster_upstream_rq_xx{envoy_cluster_name${cluster}}[${RATE_WINDOW}]))`;
  return [
    {
      name: 'canary-error-ratio',
      query: ratio(`="${c.canary}"`),
      ...guardedConditions(thr),
      reason: `Canary-only 5xx ratio from Envoy Gateway's per-backend cluster ${c.canary} (the canary backendRef carries a header filter, which makes Envoy Gateway build it a cluster of its own). The route ratio blends both: at ${t.firstWeightPercent} % weight it is ${w} x canary errors + ${1 - w} x stable errors, so a ${pct(thr)} threshold on it trips only when the canary fails ${pct(thr / w)} of its requests; here ${pct(thr)} means ${pct(thr)} of canary requests (docs/mechanisms.md#canary-analysis). No data or NaN (0/0, no traffic) is Inconclusive: it pauses, never passes and never aborts.`,
    },
    {
      name: 'route-error-ratio',
      query: ratio(`=~"${c.routeRegex}"`),
      ...guardedConditions(thr),
      reason: `The route's blended 5xx ratio (stable and canary clusters of ${c.route}), against the same ${pct(thr)} threshold: guards the users as a whole; alone it would need the canary to fail ${pct(thr / w)} of its requests at ${t.firstWeightPercent} % weight. No data or NaN is Inconclusive.`,
    },
    {
      name: 'canary-request-volume',
      query: `sum(increase(envoy_cluster_upstream_rq_total{envoy_cluster_name="${c.canary}"}[${RATE_WINDOW}]))`,
      successCondition: `len(result) > 0 && !isNaN(result[0]) && result[0] >= ${minRequests}`,
      failureCondition: 'false',
      reason: `At least ${minRequests} canary requests per ${RATE_WINDOW} (10 / ${thr}): below that one stray error moves the ratio by more than a tenth of the ${pct(thr)} threshold, so a ratio from too little traffic is Inconclusive (pause for a human), never a pass.`,
    },
    {
      name: 'canary-not-ready-pods',
      query: `sum(max_over_time(kube_pod_status_ready{namespace="${t.namespace}", condition="false", pod=~"${t.name}-{{args.canary-hash}}-.*"}[${RATE_WINDOW}]))`,
      successCondition: 'len(result) > 0 && !isNaN(result[0]) && result[0] == 0',
      failureCondition: 'len(result) > 0 && !isNaN(result[0]) && result[0] > 0',
      reason: `Canary pods (named ${t.name}-<pod-template-hash>-*) that were not Ready at any scrape in the last ${RATE_WINDOW}, from kube-state-metrics: a backend with no ready endpoints is answered 503 by the proxy without reaching the cluster's counters, so a readiness collapse can be invisible to the error ratio; a canary whose pods flip Ready must fail (docs/mechanisms.md#readiness-control-loop, #rollout-complete). A readiness flap lasts at least the 30 s leave window, so a 30 s scrape sees it.`,
    },
  ];
}

export interface MetricLimits {
  readonly failureLimit: Decision<number>;
  readonly inconclusiveLimit: Decision<number>;
  readonly consecutiveErrorLimit: Decision<number>;
}

export function metricLimits(): MetricLimits {
  return {
    failureLimit: decided(1, 'Aborts on the second failed measurement (fails when failures > 1): one minute of errors can be a blip at the moment of a weight change, two are a pattern (the design card\'s failureLimit 1).'),
    inconclusiveLimit: decided(1, 'A second measurement with no data or too little traffic stops the analysis as Inconclusive: the rollout pauses for a human instead of promoting blind.'),
    consecutiveErrorLimit: decided(2, 'Two consecutive query errors (Prometheus unreachable, a bad query) end the run in Error, which aborts: the default 4 hides a broken query for minutes, and errors never count as failures.'),
  };
}
