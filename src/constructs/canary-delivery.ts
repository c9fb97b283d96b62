import { ApiObject } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { AnalysisTemplate } from '../../imports/analysistemplate-argoproj.io';
import { Rollout } from '../../imports/rollout-argoproj.io';
import { CanaryStrategyDecisions } from '../decisions/canary';
import { CanaryPlan, ROLLOUT_HASH_LABEL } from '../decisions/canary-plan';
import { VolumePlan } from '../decisions/canary-volume';
import { RouteDecisions } from '../decisions/route';
import { ServiceDecisions } from '../decisions/service';
import { Reasons } from '../justify/reasons';
import { renderHttpRoute } from './http-route';
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
  /** The canary's plan (decideService's `canary`): names, volume gate, strategy and analysis. */
  readonly plan: CanaryPlan;
  /** The HTTPRoute and the Gateway it attaches to (decideService's `route`). */
  readonly route: RouteDecisions;
  /** Annotations with facts for the lint rules, put on the Rollout. */
  readonly facts: Record<string, string>;
  /** Omit spec.replicas (an autoscaler owns it). */
  readonly replicasOwnedByAutoscaler: boolean;
}

// The label Argo Rollouts puts on each revision's pods, decided beside the canary's plan.
export { ROLLOUT_HASH_LABEL } from '../decisions/canary-plan';

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
    const plan = props.plan;
    const canaryName = plan.names.canaryService;
    const gateName = plan.names.gateTemplate;
    const backgroundName = plan.names.backgroundTemplate;
    const meta = (name: string, reasons: Reasons, extra: Record<string, string> = {}) => ({
      name,
      namespace: ns,
      labels: props.labels,
      annotations: { ...extra, ...reasons.annotations() },
    });
    this.volume = plan.volume;
    this.strategy = plan.strategy;

    // The Rollout.
    const ro = new Reasons();
    const s = this.strategy;
    const serviceNames = ro.use('spec.strategy.canary.canaryService', plan.serviceNames);
    const router = ro.use('spec.strategy.canary.trafficRouting', plan.trafficRouting);
    const canary = {
      canaryService: serviceNames.canary,
      stableService: serviceNames.stable,
      maxSurge: ro.use('spec.strategy.canary.maxSurge', s.maxSurge),
      maxUnavailable: ro.use('spec.strategy.canary.maxUnavailable', s.maxUnavailable),
      scaleDownDelaySeconds: ro.use('spec.strategy.canary.scaleDownDelaySeconds', s.scaleDownDelaySeconds),
      abortScaleDownDelaySeconds: ro.use(
        'spec.strategy.canary.abortScaleDownDelaySeconds',
        s.abortScaleDownDelaySeconds,
      ),
      dynamicStableScale: ro.use('spec.strategy.canary.dynamicStableScale', s.dynamicStableScale),
      trafficRouting: { plugins: { [router]: { httpRoute: d.name, namespace: ns ?? 'default' } } },
      analysis: {
        templates: [{ templateName: backgroundName }],
        args: [{ name: 'canary-hash', valueFrom: { podTemplateHashValue: 'Latest' } }],
        startingStep: ro.use('spec.strategy.canary.analysis.startingStep', s.backgroundStartingStep),
      },
      steps: ro.use('spec.strategy.canary.steps', s.steps),
    };
    const podTemplate = renderPodTemplate(d, props.labels, ro, ROLLOUT_HASH_LABEL);
    const spec = {
      ...(props.replicasOwnedByAutoscaler ? {} : { replicas: ro.use('spec.replicas', d.replicaCount) }),
      minReadySeconds: ro.use('spec.minReadySeconds', d.rollout.minReadySeconds),
      progressDeadlineSeconds: ro.use('spec.progressDeadlineSeconds', d.rollout.progressDeadlineSeconds),
      progressDeadlineAbort: ro.use('spec.progressDeadlineAbort', s.progressDeadlineAbort),
      rollbackWindow: { revisions: ro.use('spec.rollbackWindow.revisions', s.rollbackWindow) },
      selector: { matchLabels: selectorLabels(d.name) },
      template: k8s.toJson_PodTemplateSpec(podTemplate),
      strategy: { canary },
    };
    this.rollout = new ApiObject(this, 'rollout', {
      ...Rollout.GVK,
      metadata: {
        ...meta(d.name, ro, { ...props.workloadAnnotations, ...props.facts }),
        labels: props.workloadLabels ?? props.labels,
      },
      spec,
    });
    this.rollout.addJsonPatch(...podTemplatePatches(d));

    // Canary Service: same selector as stable; the controller adds the revision hash at runtime.
    const svc = new Reasons();
    const selectedLike = svc.use('spec.selector', plan.canarySelector);
    this.canaryService = new k8s.KubeService(this, 'canary-service', {
      metadata: meta(canaryName, svc),
      spec: {
        type: 'ClusterIP',
        selector: selectorLabels(selectedLike),
        ports: [
          {
            name: PORT_NAME,
            port: d.servicePort.value,
            targetPort: k8s.IntOrString.fromString(PORT_NAME),
            protocol: 'TCP',
          },
        ],
      },
    });

    // HTTPRoute with both backendRefs explicit.
    this.route = renderHttpRoute(this, 'route', {
      name: d.name,
      namespace: ns,
      labels: props.labels,
      route: props.route,
      canaryService: canaryName,
    });

    // Analysis templates.
    const { metrics, limits } = plan;
    const gateCount = plan.gateCount.value;
    const window = plan.initialDelay.value;
    const analysisTemplate = (name: string, inline: boolean) => {
      const r = new Reasons();
      const spec = {
        args: [{ name: 'canary-hash' }],
        metrics: metrics.map((m, i) => {
          r.note(`spec.metrics[${i}].provider.prometheus.query`, m.reason);
          const successCondition = r.use(`spec.metrics[${i}].successCondition`, plan.successConditions[i]);
          const failureLimit = r.use(`spec.metrics[${i}].failureLimit`, plan.failureLimits[i]);
          if (!inline && m.initialDelay) r.use(`spec.metrics[${i}].initialDelay`, m.initialDelay);
          if (i === 0) {
            r.use(`spec.metrics[${i}].interval`, plan.interval);
            r.use(`spec.metrics[${i}].inconclusiveLimit`, limits.inconclusiveLimit);
            r.use(`spec.metrics[${i}].consecutiveErrorLimit`, limits.consecutiveErrorLimit);
            if (inline) r.use(`spec.metrics[${i}].count`, plan.gateCount);
            else r.use(`spec.metrics[${i}].initialDelay`, plan.initialDelay);
          }
          return {
            name: m.name,
            interval: plan.interval.value,
            ...(inline ? { count: gateCount } : { initialDelay: m.initialDelay?.value ?? window }),
            successCondition,
            failureCondition: m.failureCondition,
            failureLimit,
            inconclusiveLimit: limits.inconclusiveLimit.value,
            consecutiveErrorLimit: limits.consecutiveErrorLimit.value,
            provider: { prometheus: { address: plan.prometheusAddress, query: m.query } },
          };
        }),
      };
      return new ApiObject(this, inline ? 'gate-template' : 'background-template', {
        ...AnalysisTemplate.GVK,
        metadata: meta(name, r),
        spec,
      });
    };
    this.backgroundTemplate = analysisTemplate(backgroundName, false);
    this.gateTemplate = analysisTemplate(gateName, true);
  }
}
