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
}

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
  };
}
