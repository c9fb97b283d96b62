import { ApiObject, Chart } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { checkDelivery, Delivery } from '../decisions/canary';
import { checkName } from '../decisions/inputs';
import { RollwiseInputError } from '../errors';
import { CanaryDelivery } from './canary-delivery';
import { renderHttpRoute } from './http-route';
import { inService } from '../errors';
import { RouteTrafficPolicy } from './backend-traffic-policy';
import { AppServer } from '../decisions/keep-alive';
import { AutoscalingDecisions } from '../decisions/autoscaling';
import { addSynthWarning } from '../synth/output';
import { ServiceAlerts } from './service-alerts';
import { blockingFindings, lintObjects } from '../rules/synth-check';
import { rehearseForSynth, synthRehearsalEnabled } from '../rehearse/synth-check';
import { checkInvariants, formatInvariantFailure } from '../invariants/invariants';
import { acceptPatchedValue, finalObjects } from '../invariants/final-objects';
import { registerForConflicts } from '../invariants/conflicts';
import { declareInputMapper, declareKubernetesVersion, RenderedApp, registerRenderCheck } from '../synth/render-checks';
import { Platform } from '../decisions/platform';
import { decideService, ServiceDecisions } from '../decisions/service';
import { ANNOTATIONS, valueAtPath } from '../justify/annotations';
import { stableJson } from '../rules/k8s';
import { Reasons } from '../justify/reasons';
import { podTemplatePatches, PORT_NAME, renderPodTemplate, selectorLabels } from './pod-template';
import { MigrationJob } from './migration-job';
import { declareDecidedValuesChecked, registerDecidedValuesCheck } from '../invariants/decided-values';
import { unresolvedReferences } from '../checks/references';
import { registerDecidedService } from '../service-registry';
import { HttpServiceProps } from './http-service-props';
import { checkServiceProps } from './check-service-props';
import { inputOfField } from './service-field-inputs';
import { WORKLOAD_KINDS, undeclaredContainers } from './service-workloads';

export type { HttpServiceProps } from './http-service-props';
export { undeclaredContainers } from './service-workloads';

export type { AutoscalingProps } from '../decisions/autoscaling';

/**
 * An HTTP service on the golden path, in which every safety-relevant value is derived from the
 * inputs and carries its reason: the workload (an Argo Rollout with canary analysis, or a
 * Deployment), its Service(s), HTTPRoute and BackendTrafficPolicy, a PodDisruptionBudget, an
 * optional HorizontalPodAutoscaler, and the PrometheusRule with its runbook. The construct id is the
 * service's name and the name of the objects it emits. Unsafe compositions fail synth.
 */
export class HttpService extends Construct {
  public readonly name: string;
  public readonly decisions: ServiceDecisions;
  public readonly platform: Platform;
  public readonly workload: ApiObject;
  public readonly service: ApiObject;
  public readonly podDisruptionBudget: ApiObject;
  public readonly namespace?: string;
  /** The canary objects (Rollout, canary Service, HTTPRoute, AnalysisTemplates), in canary mode. */
  public readonly canary?: CanaryDelivery;
  public readonly autoscaler?: ApiObject;
  /** The BackendTrafficPolicy on the service's HTTPRoute (whenever there is a route). */
  public readonly trafficPolicy?: RouteTrafficPolicy;
  /** The HTTPRoute (the canary's under canary delivery; its own with a rolling update and a route). */
  public readonly route?: ApiObject;
  /** The PrometheusRule and runbook (when the platform has a runbook URL). */
  public readonly alerts?: ServiceAlerts;
  /** The schema migration Job (an Argo CD PreSync hook), with `migrations`. */
  public readonly migration?: MigrationJob;

  constructor(scope: Construct, id: string, props: HttpServiceProps) {
    // an empty id fails in constructs ("Only root constructs may have an empty ID"), before any check of ours
    super(scope, typeof id === 'string' && id !== '' ? id : checkName('name', id));
    // INV01 runs on this subtree in checkInvariants; the app-wide check covers everything else.
    declareDecidedValuesChecked(this);
    registerDecidedValuesCheck(this);
    // With many services in an app, an error must say which one it is about (and where).
    try {
      if (props === null || typeof props !== 'object' || Array.isArray(props)) {
        throw new RollwiseInputError(
          'props',
          props === undefined ? 'undefined' : Array.isArray(props) ? 'a list' : props,
          `is the third argument of new HttpService(scope, '${id}', props) and must be an object with the service's ` +
            'inputs (image, port, replicas, health, resources, appServer, ...).',
          `pass the props object, e.g. new HttpService(chart, '${id}', { image: 'ghcr.io/acme/${id || 'web'}:1.0.0', ` +
            'port: 8080, ... }) (see HttpServiceProps).',
        );
      }
      if (!chartOf(scope)) {
        throw new RollwiseInputError(
          'scope',
          scope.node.path === '' ? 'the app itself' : scope.node.path,
          `is not inside a cdk8s Chart: every object is written to its chart's file and takes the chart's namespace, ` +
            'so an HttpService must be created in a Chart.',
          `create it in a chart: new HttpService(new Chart(app, '${id}', { namespace: 'shop' }), '${id}', props).`,
        );
      }
      checkServiceProps(props);
      // a step made with a bad value (CanaryStep.setWeight(150)) is refused here, naming the service
      if (props.delivery instanceof Delivery) checkDelivery(props.delivery);
      if (!(props.appServer instanceof AppServer))
        throw new RollwiseInputError(
          'appServer',
          props.appServer ?? 'missing',
          "is required: the proxy's idle timeout is derived from the server's keep-alive, and a guessed one is the " +
            '503 UC race (docs/mechanisms.md#keep-alive-race).',
          'pass e.g. appServer: AppServer.uvicorn() (see AppServer for the presets).',
        );
      this.platform = props.platform ?? Platform.defaults();
      // Every value is decided in one pass (src/decisions/service.ts); what follows renders it.
      const namespace = props.namespace ?? Chart.of(this).namespace;
      this.decisions = decideService({ ...props, name: id }, this.platform, { namespace });
      this.name = this.decisions.name;
      const d = this.decisions;
      for (const w of d.warnings) addSynthWarning(this, w);
      const labels = { ...this.platform.labels, ...selectorLabels(d.name), 'app.kubernetes.io/managed-by': 'rollwise' };
      const workloadLabels = { ...d.pod.workloadLabels, ...labels };
      const meta = (reasons: Reasons, extra: Record<string, string> = {}) => ({
        name: d.name,
        namespace,
        labels,
        annotations: { ...extra, ...reasons.annotations() },
      });

      this.namespace = namespace;
      if (d.canary && d.route) {
        this.canary = new CanaryDelivery(this, 'canary', {
          decisions: d,
          namespace,
          labels,
          workloadLabels,
          workloadAnnotations: d.pod.workloadAnnotations,
          plan: d.canary,
          route: d.route,
          facts: workloadFacts(d),
          replicasOwnedByAutoscaler: d.autoscaling !== undefined,
        });
        this.workload = this.canary.rollout;
        this.route = this.canary.route;
      } else {
        this.workload = this.deployment(d, labels, workloadLabels, namespace, d.autoscaling !== undefined);
      }

      const svc = new Reasons();
      const servicePort = svc.use('spec.ports[0]', d.servicePort);
      this.service = new k8s.KubeService(this, 'service', {
        metadata: meta(svc, { [ANNOTATIONS.appKeepAliveSeconds]: appServerOf(d).keepAliveFact }),
        spec: {
          type: 'ClusterIP',
          selector: selectorLabels(d.name),
          ports: [
            { name: PORT_NAME, port: servicePort, targetPort: k8s.IntOrString.fromString(PORT_NAME), protocol: 'TCP' },
          ],
        },
      });

      // A rolling update may still have a route (after the Service, which it points at).
      if (!this.canary && d.route)
        this.route = renderHttpRoute(this, 'route', { name: d.name, namespace, labels, route: d.route });

      const pdb = new Reasons();
      const pdbSpec: k8s.PodDisruptionBudgetSpec = {
        maxUnavailable: k8s.IntOrString.fromNumber(pdb.use('spec.maxUnavailable', d.pdbMaxUnavailable)),
        selector: { matchLabels: selectorLabels(d.name) },
        unhealthyPodEvictionPolicy: pdb.use('spec.unhealthyPodEvictionPolicy', d.unhealthyPodEvictionPolicy!),
      };
      this.podDisruptionBudget = new k8s.KubePodDisruptionBudget(this, 'pdb', { metadata: meta(pdb), spec: pdbSpec });

      if (d.trafficPolicy) {
        this.trafficPolicy = RouteTrafficPolicy.fromDecisions(new Construct(this, 'traffic'), d.name, {
          decisions: d.trafficPolicy,
          namespace,
          labels,
        });
      }
      if (d.autoscaling) this.autoscaler = this.horizontalPodAutoscaler(d.autoscaling, labels, namespace);
      if (d.migration)
        this.migration = new MigrationJob(this, 'migration', {
          decisions: d,
          migration: d.migration,
          namespace,
          labels,
        });
      const runbookBase = this.platform.runbookBaseUrl;
      if (runbookBase && Object.keys(this.platform.prometheusRuleLabels).length === 0) {
        // kube-prometheus-stack-88.0.0 (Prometheus Operator v0.93.0): ruleSelectorNilUsesHelmValues
        // defaults to true (charts/kube-prometheus-stack/values.yaml), and then the Prometheus's
        // ruleSelector is matchLabels release: <Helm release name> (templates/prometheus/prometheus.yaml).
        addSynthWarning(
          this,
          'platform.prometheusRuleLabels is not set, so the PrometheusRule carries only the platform labels: ' +
            "kube-prometheus-stack's Prometheus selects rules by the label release: <its Helm release name> " +
            '(ruleSelectorNilUsesHelmValues: true by default, kube-prometheus-stack 88.0.0), ignores every other ' +
            'PrometheusRule, and none of these alerts would ever fire. Set prometheusRuleLabels to what your ' +
            "Prometheus selects, e.g. { release: 'kube-prometheus-stack' } (`kubectl get prometheus -A -o " +
            "jsonpath='{..ruleSelector}'` shows it).",
        );
      }
      if (d.alerts) {
        this.alerts = ServiceAlerts.fromDecisions(new Construct(this, 'alerts'), d.name, {
          decisions: d,
          alerts: d.alerts,
          runbookPath: `${d.name}.runbook.md`,
          platform: this.platform,
          gatewayNamespace: this.platform.gateway?.namespace,
          ruleLabels: this.platform.prometheusRuleLabels,
        });
      } else {
        addSynthWarning(
          this,
          'no PrometheusRule: platform.runbookBaseUrl is not set, and every alert must link to its runbook section. ' +
            'Without alerts on ready endpoints / desired replicas, a readiness cascade is invisible (restarts and ' +
            'error logs stay flat, docs/mechanisms.md#fixes-and-verification).',
        );
      }
    } catch (e) {
      throw inService(e, id, this.node.path);
    }
    // The checks run on the objects the synth pass renders and writes (synth/render-checks.ts), on
    // every pass: nothing is reused from an earlier synth().
    registerRenderCheck(this, (r) => this.check(r), { validateObjects: true });
    declareKubernetesVersion(this, this.platform.kubernetesVersion);
    declareInputMapper(this, (o, pointer) => inputOfField(o, pointer, this.decisions));
    registerForConflicts(this, this.platform.argoCd?.server);
    registerDecidedService(this, {
      name: this.name,
      namespace: this.namespace,
      platform: this.platform,
      decisions: this.decisions,
      workload: this.canary ? 'rollout' : 'deployment',
    });
  }

  /** Whether an autoscaler owns the replica count (Argo CD must then ignore it). */
  public get replicasOwnedByAutoscaler(): boolean {
    return this.autoscaler !== undefined;
  }

  private deployment(
    d: ServiceDecisions,
    labels: Record<string, string>,
    workloadLabels: Record<string, string>,
    namespace: string | undefined,
    autoscaled: boolean,
  ): ApiObject {
    const dep = new Reasons();
    const template = renderPodTemplate(d, labels, dep);
    const strategy = {
      type: 'RollingUpdate',
      rollingUpdate: {
        maxUnavailable: k8s.IntOrString.fromNumber(
          dep.use('spec.strategy.rollingUpdate.maxUnavailable', d.rollout.maxUnavailable),
        ),
        maxSurge: k8s.IntOrString.fromString(dep.use('spec.strategy.rollingUpdate.maxSurge', d.rollout.maxSurge)),
      },
    };
    const spec: k8s.DeploymentSpec = {
      replicas: autoscaled ? undefined : dep.use('spec.replicas', d.replicaCount),
      minReadySeconds: dep.use('spec.minReadySeconds', d.rollout.minReadySeconds),
      progressDeadlineSeconds: dep.use('spec.progressDeadlineSeconds', d.rollout.progressDeadlineSeconds),
      selector: { matchLabels: selectorLabels(d.name) },
      strategy,
      template,
    };
    // A plain ApiObject with the serialized spec (like the Rollout), so fields newer than
    // cdk8s-plus-28's 1.28 types survive: KubeDeployment re-serializes after JSON patches.
    const deployment = new ApiObject(this, 'deployment', {
      ...k8s.KubeDeployment.GVK,
      metadata: {
        name: d.name,
        namespace,
        labels: workloadLabels,
        annotations: { ...d.pod.workloadAnnotations, ...workloadFacts(d), ...dep.annotations() },
      },
      spec: k8s.toJson_DeploymentSpec(spec),
    });
    deployment.addJsonPatch(...podTemplatePatches(d));
    return deployment;
  }

  private horizontalPodAutoscaler(
    a: AutoscalingDecisions,
    labels: Record<string, string>,
    namespace: string | undefined,
  ): ApiObject {
    const d = this.decisions;
    const r = new Reasons();
    const spec: k8s.HorizontalPodAutoscalerSpecV2 = {
      scaleTargetRef: { apiVersion: this.workload.apiVersion, kind: this.workload.kind, name: d.name },
      minReplicas: r.use('spec.minReplicas', a.minReplicas),
      maxReplicas: r.use('spec.maxReplicas', a.maxReplicas),
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: a.targetCpuUtilisationPercent } },
        },
      ],
    };
    r.note('spec.metrics[0]', a.metricReason);
    return new k8s.KubeHorizontalPodAutoscalerV2(this, 'hpa', {
      metadata: { name: d.name, namespace, labels, annotations: r.annotations() },
      spec,
    });
  }

  /**
   * The synth-time checks on everything this service emits (escape-hatch patches included): what
   * the Argo Rollouts controller checks (the RW7xx lint rules) and the other lint rules, whose error-level findings
   * fail synth
   * unless the value was overridden with a reason (rollwise.dev/overrides).
   */
  private check(r: RenderedApp): string[] {
    const rendered = finalObjects(this, r);
    const invariants = checkInvariants({
      objects: rendered.objects,
      unpatched: rendered.unpatched,
      endpointPropagationSeconds: this.platform.endpointPropagationSeconds.value,
      shutdownInApplication: this.decisions.shutdown.delay.kind === 'app',
    }).map(formatInvariantFailure);
    const objects = rendered.objects as { kind?: string }[];
    const composition = blockingFindings(lintObjects(objects, { errorsOnly: true })).map(
      (f) => `${f.ruleId} ${f.object} ${f.path}: ${f.message} ` + `Fix: ${f.fix}`,
    );
    const workloads = rendered.objects.filter((o) => WORKLOAD_KINDS.includes(String(o.kind)));
    const problems = [
      ...invariants,
      ...composition,
      ...unresolvedReferences(rendered.objects),
      ...workloads.flatMap((w) => undeclaredContainers(w, this.decisions)),
      ...this.unusedAcceptances(r, rendered),
    ];
    // The canary replayed through its analysis (src/rehearse): a healthy release must promote, a
    // 10 % error release must abort at the first weight. Skipped when other checks already failed.
    if (!this.canary || problems.length > 0 || !synthRehearsalEnabled()) return problems;
    const rehearsal = rehearseForSynth(objects, { releaseRps: this.decisions.releaseRps });
    for (const w of rehearsal.warnings) addSynthWarning(this, w);
    const refused = rehearsal.refusals[0];
    if (refused)
      throw new RollwiseInputError(
        refused.input,
        refused.value,
        rehearsal.refusals.map((r) => r.why).join(' Also, '),
        refused.fix,
      );
    return [];
  }

  /**
   * Accepts a value an escape-hatch patch changed on one of this service's objects, with the reason
   * it is right for this service (held to the same rule as an override's `because`). The reason
   * replaces rollwise's in the comment, `rollwise.dev/reasons` and `rollwise.dev/overrides`, so
   * `explain` describes the patched value. Only invariants that an override may change accept it.
   * @param object one of this service's objects (e.g. `service.workload`)
   * @param path the field path, as in the reasons (`spec.template.spec.containers[0].resources.limits.cpu`)
   */
  public acceptPatch(object: ApiObject, path: string, because: string): void {
    if (!this.node.findAll().includes(object)) {
      throw new RollwiseInputError(
        'acceptPatch(object)',
        object?.node?.path ?? String(object),
        "is not one of this service's objects, so no invariant of this service reads it.",
        "pass one of the service's objects, e.g. service.workload or service.podDisruptionBudget.",
      );
    }
    acceptPatchedValue(object, path, because);
    this.acceptedPatches.push({ object, path });
  }

  /** The patched values accepted with acceptPatch: each must be one a patch changed (checked at synth). */
  private readonly acceptedPatches: { object: ApiObject; path: string }[] = [];

  /**
   * An accepted patch that no patch made: the field is the same with and without the escape-hatch
   * patches, so there is nothing to accept, and the "Patched:" reason would replace rollwise's on a
   * value rollwise decided (a typo in the path, or a patch that was removed).
   */
  private unusedAcceptances(r: RenderedApp, rendered: ReturnType<typeof finalObjects>): string[] {
    const list = r.objectsOf(this);
    const out: string[] = [];
    for (const { object, path } of this.acceptedPatches) {
      const i = list.findIndex((x) => x.apiObject === object);
      if (i < 0 || rendered.unpatched[i] === undefined) continue;
      const before = valueAtPath(rendered.unpatched[i], path);
      const after = valueAtPath(rendered.objects[i], path);
      if (stableJson(before) !== stableJson(after)) continue;
      out.push(
        `acceptPatch(${object.kind}/${object.name}, '${path}'): no escape-hatch patch changes this field (it ` +
          `is ${before === undefined ? 'absent' : stableJson(before)} with and without the patches), so there is ` +
          `nothing to accept, and the accepted reason would replace rollwise's own on a value rollwise decided. Fix: ` +
          'remove the acceptPatch call, or give the path of the field the patch changes, as the reasons and lint ' +
          `findings print it (\`rollwise explain\` on the output).`,
      );
    }
    return out;
  }
}

/** The chart a construct is in, or undefined (Chart.of throws "cannot find a parent chart"). */
function chartOf(scope: Construct): Chart | undefined {
  for (let c: Construct | undefined = scope; c; c = c.node.scope) if (Chart.isChart(c)) return c;
  return undefined;
}

/** The app server decideService checked (HttpService requires one). */
function appServerOf(d: ServiceDecisions): AppServer {
  return d.appServer!;
}

/** The measured facts the lint rules need and a manifest cannot otherwise hold. */
function workloadFacts(d: ServiceDecisions): Record<string, string> {
  const facts: Record<string, string> = {
    [ANNOTATIONS.readinessCallsDependency]: 'false',
    [ANNOTATIONS.appKeepAliveSeconds]: appServerOf(d).keepAliveFact,
  };
  if (d.readinessP99Seconds !== undefined) facts[ANNOTATIONS.readinessP99Seconds] = String(d.readinessP99Seconds);
  if (d.capacity) {
    facts[ANNOTATIONS.peakRps] = String(d.capacity.peakRps);
    facts[ANNOTATIONS.saturationRpsPerReplica] = String(d.capacity.saturationRpsPerReplica);
  }
  if (d.releaseRps !== undefined) facts[ANNOTATIONS.releaseRps] = String(d.releaseRps);
  return facts;
}
