import { ApiObject } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { AnalysisTemplate } from '../../imports/analysistemplate-argoproj.io';
import { Rollout } from '../../imports/rollout-argoproj.io';
import { analysisMetrics, gateCountFor, INTERVAL, metricLimits, RATE_WINDOW } from '../decisions/analysis';
import { canaryStrategy, CanaryStep, CanaryStrategyDecisions } from '../decisions/canary';
import { planCanaryVolume, VolumePlan } from '../decisions/canary-volume';
import { formatGoDuration } from '../decisions/inputs';
import { decided } from '../decisions/decision';
import { GatewayRef } from '../decisions/platform';
import { replicasDecision, ServiceDecisions } from '../decisions/service';
import { Reasons } from '../justify/reasons';
import { RouteProps, renderHttpRoute } from './http-route';
import { podTemplatePatches, PORT_NAME, renderPodTemplate, selectorLabels } from './pod-template';
import { registerDecidedValuesCheck } from '../invariants/decided-values';

export type { RouteProps } from './http-route';

export interface CanaryDeliveryProps {
  readonly decisions: ServiceDecisions;
  readonly namespace?: string;
  readonly labels: Record<string, string>;
  /** @default labels */
  readonly workloadLabels?: Record<string, string>;
  /** Extra annotations of the Rollout. @default none */
  readonly workloadAnnotations?: Record<string, string>;
  readonly route: RouteProps;
  readonly gateway: GatewayRef;
  readonly prometheusAddress: string;
  readonly maxErrorRatio: number;
  /** @default the rollwise default steps */
  readonly steps?: CanaryStep[];
  /**
   * Why a human promotes instead of the volume gate (Delivery.canary({ manualPromotion })).
   * @default the analysis promotes
   */
  readonly manualPromotion?: string;
  /** Annotations with facts for the lint rules, put on the Rollout. */
  readonly facts: Record<string, string>;
  /** Omit spec.replicas (an autoscaler owns it). */
  readonly replicasOwnedByAutoscaler: boolean;
}

/** The label Argo Rollouts puts on each revision's pods. */
export const ROLLOUT_HASH_LABEL = 'rollouts-pod-template-hash';

/**
 * Canary delivery: an Argo Rollout splitting traffic on the service's HTTPRoute through the
 * Gateway API plugin, a canary Service, and the analysis that aborts a bad release at its first
 * weight. The stable Service (named after the service) is created by the caller.
 */
export class CanaryDelivery extends Construct {
  public readonly rollout: ApiObject;
  public readonly canaryService: ApiObject;
  public readonly route: ApiObject;
  public readonly backgroundTemplate: ApiObject;
  public readonly gateTemplate: ApiObject;
  public readonly strategy: CanaryStrategyDecisions;
  /** The volume gate: measurement window, minimum sample, first weight, with the arithmetic. */
  public readonly volume: VolumePlan;

  constructor(scope: Construct, id: string, props: CanaryDeliveryProps) {
    super(scope, id);
    registerDecidedValuesCheck(this);
    const d = props.decisions;
    const ns = props.namespace;
    const canaryName = `${d.name}-canary`;
    const gateName = `${d.name}-canary-gate`;
    const backgroundName = `${d.name}-canary-background`;
    const meta = (name: string, reasons: Reasons, extra: Record<string, string> = {}) => ({ name, namespace: ns, labels: props.labels, annotations: { ...extra, ...reasons.annotations() } });
    this.volume = planCanaryVolume({ maxErrorRatio: props.maxErrorRatio, peakRps: d.capacity?.peakRps, releaseRps: d.releaseRps, steps: props.steps, manualPromotion: props.manualPromotion });
    this.strategy = canaryStrategy(d.rollout, gateName, props.steps, { steps: this.volume.steps, reason: this.volume.reason, manualPromotion: props.manualPromotion });
    const firstWeight = this.volume.firstWeightPercent;

    // The Rollout.
    const ro = new Reasons();
    const s = this.strategy;
    const canary = {
      canaryService: canaryName,
      stableService: d.name,
      maxSurge: ro.use('spec.strategy.canary.maxSurge', s.maxSurge),
      maxUnavailable: ro.use('spec.strategy.canary.maxUnavailable', s.maxUnavailable),
      scaleDownDelaySeconds: ro.use('spec.strategy.canary.scaleDownDelaySeconds', s.scaleDownDelaySeconds),
      abortScaleDownDelaySeconds: ro.use('spec.strategy.canary.abortScaleDownDelaySeconds', s.abortScaleDownDelaySeconds),
      dynamicStableScale: ro.use('spec.strategy.canary.dynamicStableScale', s.dynamicStableScale),
      trafficRouting: { plugins: { 'argoproj-labs/gatewayAPI': { httpRoute: d.name, namespace: ns ?? 'default' } } },
      analysis: {
        templates: [{ templateName: backgroundName }],
        args: [{ name: 'canary-hash', valueFrom: { podTemplateHashValue: 'Latest' } }],
        startingStep: ro.use('spec.strategy.canary.analysis.startingStep', s.backgroundStartingStep),
      },
      steps: ro.use('spec.strategy.canary.steps', s.steps),
    };
    ro.note('spec.strategy.canary.trafficRouting', `Traffic is split on the HTTPRoute ${d.name} by the argoproj-labs/gatewayAPI plugin (registered in the argo-rollouts-config ConfigMap, see README), which sets the stable/canary backendRef weights.`);
    ro.note('spec.strategy.canary.canaryService', `Canary and stable Services (${canaryName}, ${d.name}) are required in practice: the plugin finds the route's backendRefs by exactly these names.`);
    const podTemplate = renderPodTemplate(d, props.labels, ro, ROLLOUT_HASH_LABEL);
    const spec = {
      ...(props.replicasOwnedByAutoscaler ? {} : { replicas: ro.use('spec.replicas', replicasDecision(d)) }),
      minReadySeconds: ro.use('spec.minReadySeconds', d.rollout.minReadySeconds),
      progressDeadlineSeconds: ro.use('spec.progressDeadlineSeconds', d.rollout.progressDeadlineSeconds),
      progressDeadlineAbort: ro.use('spec.progressDeadlineAbort', s.progressDeadlineAbort),
      rollbackWindow: { revisions: ro.use('spec.rollbackWindow.revisions', s.rollbackWindow) },
      selector: { matchLabels: selectorLabels(d.name) },
      template: k8s.toJson_PodTemplateSpec(podTemplate),
      strategy: { canary },
    };
    this.rollout = new ApiObject(this, 'rollout', { ...Rollout.GVK, metadata: { ...meta(d.name, ro, { ...props.workloadAnnotations, ...props.facts }), labels: props.workloadLabels ?? props.labels }, spec });
    this.rollout.addJsonPatch(...podTemplatePatches(d));

    // Canary Service: same selector as stable; the controller adds the revision hash at runtime.
    const svc = new Reasons();
    svc.note('spec.selector', `Same selector as the stable Service ${d.name}; Argo Rollouts adds the canary revision's ${ROLLOUT_HASH_LABEL} at runtime, so this Service reaches canary pods only.`);
    this.canaryService = new k8s.KubeService(this, 'canary-service', {
      metadata: meta(canaryName, svc),
      spec: { type: 'ClusterIP', selector: selectorLabels(d.name), ports: [{ name: PORT_NAME, port: 80, targetPort: k8s.IntOrString.fromString(PORT_NAME), protocol: 'TCP' }] },
    });

    // HTTPRoute with both backendRefs explicit.
    this.route = renderHttpRoute(this, 'route', { name: d.name, namespace: ns, labels: props.labels, route: props.route, gateway: props.gateway, canaryService: canaryName });

    // Analysis templates.
    const v = this.volume;
    const window = formatGoDuration(v.windowSeconds);
    const metrics = analysisMetrics({ namespace: ns ?? 'default', name: d.name, prometheusAddress: props.prometheusAddress, maxErrorRatio: props.maxErrorRatio, firstWeightPercent: firstWeight, windowSeconds: v.windowSeconds, minRequests: v.minRequests, volumeReason: v.reason, returnWindowSeconds: d.readiness.successThreshold.value * d.readiness.periodSeconds.value, minReadySeconds: d.rollout.minReadySeconds.value })
      .filter((m) => v.volumeMetric || m.name !== 'canary-request-volume');
    const limits = metricLimits(v.windowSeconds);
    const gateCount = gateCountFor(v.windowSeconds);
    const analysisTemplate = (name: string, inline: boolean) => {
      const r = new Reasons();
      const spec = {
        args: [{ name: 'canary-hash' }],
        metrics: metrics.map((m, i) => {
          r.note(`spec.metrics[${i}].provider.prometheus.query`, m.reason);
          r.note(`spec.metrics[${i}].successCondition`, 'Guarded: an empty result (no series) or NaN (0/0 without traffic) satisfies neither condition, so the measurement is Inconclusive and the rollout pauses; unguarded, `result[0]` on an empty result is an Error and NaN fails the comparison (reference: AnalysisTemplate).');
          if (i > 0 && m.failureLimit) r.use(`spec.metrics[${i}].failureLimit`, m.failureLimit);
          else if (i > 0) r.note(`spec.metrics[${i}].failureLimit`, `The same interval and limits as ${metrics[0].name}, for the same reasons.`);
          if (!inline && m.initialDelay) r.use(`spec.metrics[${i}].initialDelay`, m.initialDelay);
          if (i === 0) {
            r.use(`spec.metrics[${i}].interval`, decided(INTERVAL, `One measurement a minute over a ${window} window (at least ${RATE_WINDOW}, 4 scrapes at 30 s, so one lost scrape does not empty it): consecutive windows overlap, so no minute between two measurements goes unmeasured, and the failureLimit counts the measurements one burst touches (docs/mechanisms.md#one-burst-and-the-limits).`));
            r.use(`spec.metrics[${i}].failureLimit`, limits.failureLimit);
            r.use(`spec.metrics[${i}].inconclusiveLimit`, limits.inconclusiveLimit);
            r.use(`spec.metrics[${i}].consecutiveErrorLimit`, limits.consecutiveErrorLimit);
            if (inline) r.use(`spec.metrics[${i}].count`, decided(gateCount, `${gateCount} measurements, one a minute: the gate watches the canary at its last weight for ${gateCount} minutes (at least 5, and failureLimit ${limits.failureLimit.value} + 1 so that a canary failing every measurement fails the gate); an inline step needs a finite count, and ${gateCount} >= failureLimit + consecutiveSuccessLimit (utils/analysis/factory.go v1.9.1).`, { failureLimit: limits.failureLimit.value }));
            else r.use(`spec.metrics[${i}].initialDelay`, decided(window, `Waits ${window}, one full window, after the run starts at the first weight (the canary's cluster exists only from then on), so the first measurement reads exactly the run's first window of canary traffic, instead of a partial one that reads as too little traffic; every later window overlaps the one before, so the whole run is measured from its start (docs/mechanisms.md#one-burst-and-the-limits).`));
          }
          return {
            name: m.name,
            interval: INTERVAL,
            ...(inline ? { count: gateCount } : { initialDelay: m.initialDelay?.value ?? window }),
            successCondition: m.successCondition,
            failureCondition: m.failureCondition,
            failureLimit: (m.failureLimit ?? limits.failureLimit).value,
            inconclusiveLimit: limits.inconclusiveLimit.value,
            consecutiveErrorLimit: limits.consecutiveErrorLimit.value,
            provider: { prometheus: { address: props.prometheusAddress, query: m.query } },
          };
        }),
      };
      return new ApiObject(this, inline ? 'gate-template' : 'background-template', { ...AnalysisTemplate.GVK, metadata: meta(name, r), spec });
    };
    this.backgroundTemplate = analysisTemplate(backgroundName, false);
    this.gateTemplate = analysisTemplate(gateName, true);

  }
}
