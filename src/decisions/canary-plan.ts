import {
  analysisMetrics,
  gateCountFor,
  INTERVAL,
  MetricLimits,
  metricLimits,
  MetricSpec,
  RATE_WINDOW,
} from './analysis';
import { canaryStrategy, CanaryStep, CanaryStrategyDecisions } from './canary';
import { planCanaryVolume, VolumePlan } from './canary-volume';
import { decided, Decision } from './decision';
import { formatGoDuration } from './inputs';
import type { ServiceCoreDecisions } from './service-core';

/** What the canary plan is decided from, besides the service's own decisions. */
export interface CanaryPlanInputs {
  /** Namespace of the objects; the analysis selects the Envoy clusters and pods by it. @default "default" */
  readonly namespace?: string;
  /** The platform's Prometheus, queried by the analysis. */
  readonly prometheusAddress: string;
  /** The platform's canary error-ratio threshold. */
  readonly maxErrorRatio: number;
  /** Delivery.canary({ steps }). @default the steps the volume plan derives */
  readonly steps?: CanaryStep[];
  /** Delivery.canary({ manualPromotion }): why a human promotes. @default the analysis promotes */
  readonly manualPromotion?: string;
}

/** Every value of the canary delivery: the objects' names, the volume gate, the Rollout's strategy and the analysis. */
export interface CanaryPlan {
  /** The canary Service, the inline gate's AnalysisTemplate and the background run's. */
  readonly names: {
    readonly canaryService: string;
    readonly gateTemplate: string;
    readonly backgroundTemplate: string;
  };
  /** The volume gate: measurement window, minimum sample, first weight, with the arithmetic. */
  readonly volume: VolumePlan;
  readonly strategy: CanaryStrategyDecisions;
  readonly prometheusAddress: string;
  /** The analysis metrics (without the request-volume metric under manual promotion). */
  readonly metrics: readonly MetricSpec[];
  readonly limits: MetricLimits;
  /** The first metric's interval, with its reason. */
  readonly interval: Decision<string>;
  /** The inline gate's measurement count. */
  readonly gateCount: Decision<number>;
  /** The background run's first measurement: one full window after it starts. */
  readonly initialDelay: Decision<string>;
  /** The Rollout's traffic router: the Gateway API plugin, which sets the HTTPRoute's weights. */
  readonly trafficRouting: Decision<string>;
  /** The canary and stable Services' names, which the plugin looks for among the route's backendRefs. */
  readonly serviceNames: Decision<{ readonly canary: string; readonly stable: string }>;
  /** The canary Service selects what the stable Service does (value: the stable Service's name). */
  readonly canarySelector: Decision<string>;
  /** Each metric's successCondition, guarded against an empty result and NaN. */
  readonly successConditions: readonly Decision<string>[];
  /** Each metric's failureLimit: its own, or (after the first) the first metric's, for the same reasons. */
  readonly failureLimits: readonly Decision<number>[];
}

/** The plugin the Rollout routes traffic with (registered in the argo-rollouts-config ConfigMap). */
export const GATEWAY_API_PLUGIN = 'argoproj-labs/gatewayAPI';

/** The label Argo Rollouts puts on each revision's pods. */
export const ROLLOUT_HASH_LABEL = 'rollouts-pod-template-hash';

/**
 * The canary's plan: the volume gate sized for the release-time traffic (planCanaryVolume), the
 * steps and strategy (canaryStrategy), and the analysis metrics with their limits.
 */
export function decideCanary(d: ServiceCoreDecisions, inp: CanaryPlanInputs): CanaryPlan {
  const names = {
    canaryService: `${d.name}-canary`,
    gateTemplate: `${d.name}-canary-gate`,
    backgroundTemplate: `${d.name}-canary-background`,
  };
  const volume = planCanaryVolume({
    maxErrorRatio: inp.maxErrorRatio,
    peakRps: d.capacity?.peakRps,
    releaseRps: d.releaseRps,
    steps: inp.steps,
    manualPromotion: inp.manualPromotion,
  });
  const strategy = canaryStrategy(d.rollout, names.gateTemplate, inp.steps, {
    steps: volume.steps,
    reason: volume.reason,
    manualPromotion: inp.manualPromotion,
  });
  const v = volume;
  const window = formatGoDuration(v.windowSeconds);
  const metrics = analysisMetrics({
    namespace: inp.namespace ?? 'default',
    name: d.name,
    prometheusAddress: inp.prometheusAddress,
    maxErrorRatio: inp.maxErrorRatio,
    firstWeightPercent: v.firstWeightPercent,
    windowSeconds: v.windowSeconds,
    minRequests: v.minRequests,
    volumeReason: v.reason,
    returnWindowSeconds: d.readiness.successThreshold.value * d.readiness.periodSeconds.value,
    minReadySeconds: d.rollout.minReadySeconds.value,
  }).filter((m) => v.volumeMetric || m.name !== 'canary-request-volume');
  const limits = metricLimits(v.windowSeconds);
  const gateCount = gateCountFor(v.windowSeconds);
  const failureLimits = metrics.map((m, i) =>
    i > 0 && !m.failureLimit
      ? decided(limits.failureLimit.value, `The same interval and limits as ${metrics[0].name}, for the same reasons.`)
      : i === 0
        ? { ...limits.failureLimit, value: (m.failureLimit ?? limits.failureLimit).value }
        : (m.failureLimit ?? limits.failureLimit),
  );
  return {
    names,
    volume,
    strategy,
    prometheusAddress: inp.prometheusAddress,
    metrics,
    limits,
    interval: decided(
      INTERVAL,
      `One measurement a minute over a ${window} window (at least ${RATE_WINDOW}, 4 scrapes at 30 s, so one lost ` +
        'scrape does not empty it): consecutive windows overlap, so no minute between two measurements goes ' +
        'unmeasured, and the failureLimit counts the measurements one burst touches ' +
        '(docs/mechanisms.md#one-burst-and-the-limits).',
    ),
    gateCount: decided(
      gateCount,
      `${gateCount} measurements, one a minute: the gate watches the canary at its last weight for ${gateCount} ` +
        `minutes (at least 5, and failureLimit ${limits.failureLimit.value} + 1 so that a canary failing every ` +
        `measurement fails the gate); an inline step needs a finite count, and ${gateCount} >= failureLimit + ` +
        'consecutiveSuccessLimit (utils/analysis/factory.go v1.9.1).',
      { failureLimit: limits.failureLimit.value },
    ),
    initialDelay: decided(
      window,
      `Waits ${window}, one full window, after the run starts at the first weight (the canary's cluster exists only ` +
        `from then on), so the first measurement reads exactly the run's first window of canary traffic, instead of ` +
        'a partial one that reads as too little traffic; every later window overlaps the one before, so the whole ' +
        'run is measured from its start (docs/mechanisms.md#one-burst-and-the-limits).',
    ),
    trafficRouting: decided(
      GATEWAY_API_PLUGIN,
      `Traffic is split on the HTTPRoute ${d.name} by the ${GATEWAY_API_PLUGIN} plugin (registered in the ` +
        'argo-rollouts-config ConfigMap, see README), which sets the stable/canary backendRef weights.',
    ),
    serviceNames: decided(
      { canary: names.canaryService, stable: d.name },
      `Canary and stable Services (${names.canaryService}, ${d.name}) are required in practice: the plugin finds ` +
        "the route's backendRefs by exactly these names.",
    ),
    canarySelector: decided(
      d.name,
      `Same selector as the stable Service ${d.name}; Argo Rollouts adds the canary revision's ` +
        `${ROLLOUT_HASH_LABEL} at runtime, so this Service reaches canary pods only.`,
    ),
    successConditions: metrics.map((m) =>
      decided(
        m.successCondition,
        'Guarded: an empty result (no series) or NaN (0/0 without traffic) satisfies neither condition, so the ' +
          'measurement is Inconclusive and the rollout pauses; unguarded, `result[0]` on an empty result is an ' +
          'Error and NaN fails the comparison (reference: AnalysisTemplate).',
      ),
    ),
    failureLimits,
  };
}
