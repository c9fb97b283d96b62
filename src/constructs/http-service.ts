import { ApiObject, Chart } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { decided } from '../decisions/decision';
import { checkDelivery, Delivery } from '../decisions/canary';
import { checkDnsLabel, checkHostname, checkInteger, checkName, checkPath, MAX_ROUTE_HOSTNAMES } from '../decisions/inputs';
import { RollwiseInputError } from '../errors';
import { CanaryDelivery } from './canary-delivery';
import { renderHttpRoute, RouteProps } from './http-route';
import { ContainerProps, InitContainerProps, PodProps, SidecarProps, WorkloadMetadataProps } from '../decisions/containers';
import { inService } from '../errors';
import { RouteTrafficPolicy } from './backend-traffic-policy';
import { AppServer } from '../decisions/keep-alive';
import { Override } from '../decisions/decision';
import { WorkloadKind } from '../decisions/alerts';
import { addSynthWarning } from '../synth/output';
import { ServiceAlerts } from './service-alerts';
import { blockingFindings, lintObjects } from '../rules/synth-check';
import { rehearseForSynth, synthRehearsalEnabled } from '../rehearse/synth-check';
import { checkInvariants, formatInvariantFailure } from '../invariants/invariants';
import { acceptPatchedValue, finalObjects } from '../invariants/final-objects';
import { registerForConflicts } from '../invariants/conflicts';
import { declareInputMapper, declareKubernetesVersion, RenderedApp, registerRenderCheck } from '../synth/render-checks';
import { Platform } from '../decisions/platform';
import { CapacityProps, decideService, replicasDecision, HealthProps, HttpServiceOverrides, ResourcesProps, ServiceDecisions } from '../decisions/service';
import { ANNOTATIONS, valueAtPath } from '../justify/annotations';
import { stableJson } from '../rules/k8s';
import { Reasons } from '../justify/reasons';
import { MIGRATION_CONTAINER, podTemplatePatches, PORT_NAME, renderPodTemplate, selectorLabels } from './pod-template';
import { Measurements } from '../measure/measurements';
import { Migration } from '../decisions/migrations';
import { MigrationJob } from './migration-job';
import { CAPACITY_KEYS, checkKeys, CONTAINER_KEYS, EXTRA_OVERRIDES_KEYS, EXTRA_RESOURCES_KEYS, HEALTH_KEYS, INIT_CONTAINER_KEYS, keysOf, METADATA_KEYS, MIGRATION_KEYS, MOUNT_KEYS, NAMED_PORT_KEYS, OVERRIDES_KEYS, POD_KEYS, RESOURCES_KEYS, RUN_AS_KEYS, SERVICE_ACCOUNT_KEYS, SIDECAR_KEYS, SIDECAR_PORT_KEYS, TOLERATION_KEYS } from '../decisions/props-keys';
import { declareDecidedValuesChecked, registerDecidedValuesCheck } from '../invariants/decided-values';
import { unresolvedReferences } from '../checks/references';

export interface HttpServiceProps {
  // --- What runs ---------------------------------------------------------------------------
  /** Container image, pinned by tag or digest. */
  readonly image: string;
  /** Port the server listens on. */
  readonly port: number;
  /** Number of replicas (at least 2). */
  readonly replicas: number;
  /** Health endpoints and their measured behaviour. */
  readonly health: HealthProps;
  /** CPU request and memory. */
  readonly resources: ResourcesProps;
  /**
   * The application server and its idle keep-alive (e.g. `AppServer.uvicorn()`): the proxy's idle
   * timeout is derived from it. Required: a guessed keep-alive is the unchecked pairing that causes
   * the 503 UC race (docs/mechanisms.md#keep-alive-race).
   */
  readonly appServer: AppServer;
  /**
   * Command, args, environment (values, Secret and ConfigMap keys, the downward API), mounted
   * files, extra named ports, the numeric user and the image's shutdown delay.
   * @default the image's entrypoint, no environment, user 65532, the platform's shutdown delay
   */
  readonly container?: ContainerProps;
  /**
   * Containers beside the app (a proxy, an agent), checked like it: resources without a CPU limit
   * unless overridden with a reason, the restricted security context, a readiness probe when they
   * serve. Native sidecars where platform.kubernetesVersion allows (1.29+).
   * @default none
   */
  readonly sidecars?: SidecarProps[];
  /**
   * Containers that run to completion before the app starts (after the native sidecars), in
   * every pod; one that looks like a schema migration is questioned at synth (use `migrations`).
   * @default none
   */
  readonly initContainers?: InitContainerProps[];
  /**
   * The schema migration, run once per release before the new pods start and outside them:
   * `Migration.job({ command: [...] })`, an Argo CD PreSync hook Job with the app's image,
   * environment and security context (docs/mechanisms.md#migrations).
   * @default none
   */
  readonly migrations?: Migration;
  // --- What it needs -----------------------------------------------------------------------
  /**
   * The service account, image pull secrets, volumes, placement (node selector, tolerations,
   * affinity, priority class) and the pods' own labels and annotations.
   * @default the namespace's default service account without its token; no extra volumes or placement
   */
  readonly pod?: PodProps;
  /**
   * Labels and annotations of the workload object (Rollout or Deployment).
   * @default the platform labels and rollwise's annotations
   */
  readonly metadata?: WorkloadMetadataProps;
  // --- How it is reached and delivered -----------------------------------------------------
  /**
   * Passive health checking (Envoy outlier detection) on the route, with an ejection cap derived
   * from the disruption budget.
   * @default false: no outlier detection (the readiness probe decides which pods serve)
   */
  readonly passiveHealthCheck?: boolean;
  /**
   * The service's error-ratio SLO for the route 5xx alert.
   * @default 0.01 (the canary gate's threshold, docs/mechanisms.md#canary-analysis)
   */
  readonly sloErrorRatio?: Override<number>;
  /**
   * Measured capacity figures; they size the PodDisruptionBudget.
   * @default none: the budget is 1 pod and the reason says why
   */
  readonly capacity?: CapacityProps;
  /**
   * Org-wide settings shared by every service.
   * @default Platform.defaults()
   */
  readonly platform?: Platform;
  /**
   * Replacements for decided values, each with its reason.
   * @default none
   */
  readonly overrides?: HttpServiceOverrides;
  /**
   * Namespace of every object, written on each, so that the objects, the plugin config, the
   * analysis, the alerts and the Argo CD Application's destination all name the same one.
   * @default the chart's namespace; required for canary delivery (and alerts), else none (the Argo CD Application's destination namespace applies)
   */
  readonly namespace?: string;
  /**
   * How new versions reach users.
   * @default Delivery.canary(): an Argo Rollout with analysis; needs `route` and the platform's gateway and Prometheus
   */
  readonly delivery?: Delivery;
  /**
   * The HTTPRoute's hostnames and path (required for canary delivery). With a rolling update the
   * route, its BackendTrafficPolicy and the route's alerts are emitted too.
   * @default none: no HTTPRoute (only allowed with Delivery.rollingUpdate())
   */
  readonly route?: RouteProps;
  /**
   * A HorizontalPodAutoscaler between `replicas` (the floor) and `maxReplicas`.
   * @default none: `replicas` is fixed
   */
  readonly autoscaling?: AutoscalingProps;
  /**
   * Measured inputs from `rollwise measure` (`Measurements.fromFile('measurements/<service>.json')`):
   * the readiness p99 at peak, with its provenance in the reason. Older than
   * `platform.measurementMaxAge` is a synth warning.
   * @default none: inputs are typed, and the reasons say so
   */
  readonly measurements?: Measurements;
}

/** Autoscaling on CPU; `replicas` is the floor the capacity figures were checked against. */
export interface AutoscalingProps {
  readonly maxReplicas: number;
  /** Target average CPU utilisation of the request, in percent, measured in a load test (no default: it depends on how CPU tracks load for this service). */
  readonly targetCpuUtilisationPercent: number;
}

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
        throw new RollwiseInputError('props', props === undefined ? 'undefined' : Array.isArray(props) ? 'a list' : props, `is the third argument of new HttpService(scope, '${id}', props) and must be an object with the service's inputs (image, port, replicas, health, resources, appServer, ...).`, `pass the props object, e.g. new HttpService(chart, '${id}', { image: 'ghcr.io/acme/${id || 'web'}:1.0.0', port: 8080, ... }) (see HttpServiceProps).`);
      }
      if (!chartOf(scope)) {
        throw new RollwiseInputError('scope', scope.node.path === '' ? 'the app itself' : scope.node.path, `is not inside a cdk8s Chart: every object is written to its chart's file and takes the chart's namespace, so an HttpService must be created in a Chart.`, `create it in a chart: new HttpService(new Chart(app, '${id}', { namespace: 'shop' }), '${id}', props).`);
      }
      checkServiceProps(props);
      // a step made with a bad value (CanaryStep.setWeight(150)) is refused here, naming the service
      if (props.delivery instanceof Delivery) checkDelivery(props.delivery);
      if (!(props.appServer instanceof AppServer)) throw new RollwiseInputError('appServer', props.appServer ?? 'missing', 'is required: the proxy\'s idle timeout is derived from the server\'s keep-alive, and a guessed one is the 503 UC race (docs/mechanisms.md#keep-alive-race).', 'pass e.g. appServer: AppServer.uvicorn() (see AppServer for the presets).');
      this.platform = props.platform ?? Platform.defaults();
      this.decisions = decideService({ ...props, name: id }, this.platform);
      this.name = this.decisions.name;
      if (props.measurements) warnAboutMeasurements(this, props.measurements, this.platform);
      const d = this.decisions;
      for (const w of d.warnings) addSynthWarning(this, w);
      const namespace = props.namespace ?? Chart.of(this).namespace;
      if (namespace !== undefined) checkDnsLabel('namespace', namespace, 'shop');
      // One namespace everywhere: the plugin config names the HTTPRoute's namespace and the analysis
      // selects Envoy's clusters (httproute/<namespace>/<name>/...) and the pods by it, so it must be
      // the namespace the objects are applied to, known now rather than left to Argo CD or kubectl -n.
      if (namespace === undefined && (props.delivery ?? Delivery.canary()).kind === 'canary') {
        throw new RollwiseInputError('namespace', 'unset', 'neither the props nor the chart give one, and canary delivery needs it at synth: the Rollout\'s traffic-router plugin config names the HTTPRoute\'s namespace and the analysis selects the Envoy clusters httproute/<namespace>/<name>/... and the canary pods by namespace. Applied with `kubectl -n` or by an Argo CD Application into another namespace, they would look in "default": the canary would never shift traffic and every analysis would be Inconclusive.', 'give the chart a namespace (new Chart(app, id, { namespace: "shop" })) or set namespace; Environment.addChart uses the environment\'s destination namespace.');
      }
      const measuredNs = props.measurements?.document.service.namespace;
      if (props.measurements && namespace !== undefined && measuredNs !== namespace) {
        throw new RollwiseInputError(`measurements ${props.measurements.origin} service.namespace`, measuredNs, `measures ${props.measurements.document.service.name} in namespace ${measuredNs}, but this service is deployed to ${namespace}: another deployment's p99 would size this one's probes.`, `measure the service where it runs: rollwise measure ${id} --namespace ${namespace}.`);
      }
      const labels = { ...this.platform.labels, ...selectorLabels(d.name), 'app.kubernetes.io/managed-by': 'rollwise' };
      const workloadLabels = { ...d.pod.workloadLabels, ...labels };
      const meta = (reasons: Reasons, extra: Record<string, string> = {}) => ({
        name: d.name, namespace, labels, annotations: { ...extra, ...reasons.annotations() },
      });

      const delivery = props.delivery ?? Delivery.canary();
      this.namespace = namespace;
      const gateway = (canary = true) => requirePlatform('gateway', this.platform.gateway, '{ name: "public", namespace: "envoy-gateway-system" }', canary);
      if (delivery.kind === 'canary') {
        this.canary = new CanaryDelivery(this, 'canary', {
          decisions: d,
          namespace,
          labels,
          workloadLabels,
          workloadAnnotations: d.pod.workloadAnnotations,
          route: requireRoute(props.route),
          gateway: gateway(),
          prometheusAddress: requirePlatform('prometheusAddress', this.platform.prometheusAddress, '"http://prometheus-operated.monitoring.svc:9090"'),
          maxErrorRatio: this.platform.canaryMaxErrorRatio.value,
          steps: delivery.steps,
          manualPromotion: delivery.manualPromotion,
          facts: workloadFacts(d, props.appServer),
          replicasOwnedByAutoscaler: props.autoscaling !== undefined,
        });
        this.workload = this.canary.rollout;
        this.route = this.canary.route;
      } else {
        this.workload = this.deployment(d, labels, workloadLabels, namespace, props.autoscaling !== undefined, props.appServer);
      }
      // A rolling update may still have a route (after the Service, which it points at).
      const ownRoute = !this.canary && props.route !== undefined
        ? { route: checkRoute(props.route, 'add route: { hostnames: ["checkout.example.com"] }, or remove route to expose the Service another way.'), gateway: gateway(false) }
        : undefined;

      const svc = new Reasons();
      svc.note('spec.ports[0]', `Port 80 forwards to the container's named port "${PORT_NAME}" (${d.port}); only Ready endpoints receive traffic, which is why readiness timing matters (docs/mechanisms.md#readiness-control-loop).`);
      this.service = new k8s.KubeService(this, 'service', {
        metadata: meta(svc, { [ANNOTATIONS.appKeepAliveSeconds]: props.appServer.keepAliveFact }),
        spec: {
          type: 'ClusterIP',
          selector: selectorLabels(d.name),
          ports: [{ name: PORT_NAME, port: 80, targetPort: k8s.IntOrString.fromString(PORT_NAME), protocol: 'TCP' }],
        },
      });

      if (ownRoute) this.route = renderHttpRoute(this, 'route', { name: d.name, namespace, labels, ...ownRoute });

      const pdb = new Reasons();
      const pdbSpec: k8s.PodDisruptionBudgetSpec = {
        maxUnavailable: k8s.IntOrString.fromNumber(pdb.use('spec.maxUnavailable', d.pdbMaxUnavailable)),
        selector: { matchLabels: selectorLabels(d.name) },
        unhealthyPodEvictionPolicy: pdb.use('spec.unhealthyPodEvictionPolicy', decided('AlwaysAllow',
          'A pod that is not Ready serves nothing, so evicting it never costs capacity; without this a single crash-looping pod blocks every node drain.')),
      };
      this.podDisruptionBudget = new k8s.KubePodDisruptionBudget(this, 'pdb', { metadata: meta(pdb), spec: pdbSpec });

      if (this.route) {
        const o = props.overrides ?? {};
        this.trafficPolicy = asServiceInputs(POLICY_INPUTS, () => new RouteTrafficPolicy(new Construct(this, 'traffic'), d.name, {
          routeName: d.name,
          namespace,
          appServer: props.appServer,
          idleTimeout: o.proxyIdleTimeout,
          connectTimeout: o.proxyConnectTimeout,
          acceptKeepAliveRace: o.acceptKeepAliveRace,
          retryOnReset: o.retryOnReset,
          passiveHealthCheck: props.passiveHealthCheck ? { replicas: d.replicas, maxUnavailable: d.pdbMaxUnavailable.value } : undefined,
          labels,
        }));
      }
      if (props.autoscaling) this.autoscaler = this.horizontalPodAutoscaler(props.autoscaling, labels, namespace);
      if (d.migration) this.migration = new MigrationJob(this, 'migration', { decisions: d, migration: d.migration, namespace, labels });
      const runbookBase = this.platform.runbookBaseUrl;
      if (runbookBase && Object.keys(this.platform.prometheusRuleLabels).length === 0) {
        // kube-prometheus-stack-88.0.0 (Prometheus Operator v0.93.0): ruleSelectorNilUsesHelmValues
        // defaults to true (charts/kube-prometheus-stack/values.yaml), and then the Prometheus's
        // ruleSelector is matchLabels release: <Helm release name> (templates/prometheus/prometheus.yaml).
        addSynthWarning(this, 'platform.prometheusRuleLabels is not set, so the PrometheusRule carries only the platform labels: kube-prometheus-stack\'s Prometheus selects rules by the label release: <its Helm release name> (ruleSelectorNilUsesHelmValues: true by default, kube-prometheus-stack 88.0.0), ignores every other PrometheusRule, and none of these alerts would ever fire. Set prometheusRuleLabels to what your Prometheus selects, e.g. { release: \'kube-prometheus-stack\' } (`kubectl get prometheus -A -o jsonpath=\'{..ruleSelector}\'` shows it).');
      }
      if (runbookBase) {
        this.alerts = new ServiceAlerts(new Construct(this, 'alerts'), d.name, {
          decisions: d,
          namespace,
          route: this.route !== undefined,
          workload: this.canary ? WorkloadKind.ROLLOUT : WorkloadKind.DEPLOYMENT,
          runbookUrl: `${runbookBase}/${d.name}.runbook.md`,
          runbookPath: `${d.name}.runbook.md`,
          platform: this.platform,
          sloErrorRatio: props.sloErrorRatio,
          gatewayNamespace: this.platform.gateway?.namespace,
          ruleLabels: this.platform.prometheusRuleLabels,
        });
      } else {
        addSynthWarning(this, 'no PrometheusRule: platform.runbookBaseUrl is not set, and every alert must link to its runbook section. Without alerts on ready endpoints / desired replicas, a readiness cascade is invisible (restarts and error logs stay flat, docs/mechanisms.md#fixes-and-verification).');
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
  }

  /** Whether an autoscaler owns the replica count (Argo CD must then ignore it). */
  public get replicasOwnedByAutoscaler(): boolean {
    return this.autoscaler !== undefined;
  }

  private deployment(d: ServiceDecisions, labels: Record<string, string>, workloadLabels: Record<string, string>, namespace: string | undefined, autoscaled: boolean, appServer: AppServer): ApiObject {
    const dep = new Reasons();
    const template = renderPodTemplate(d, labels, dep);
    const strategy = {
      type: 'RollingUpdate',
      rollingUpdate: {
        maxUnavailable: k8s.IntOrString.fromNumber(dep.use('spec.strategy.rollingUpdate.maxUnavailable', d.rollout.maxUnavailable)),
        maxSurge: k8s.IntOrString.fromString(dep.use('spec.strategy.rollingUpdate.maxSurge', d.rollout.maxSurge)),
      },
    };
    const spec: k8s.DeploymentSpec = {
      replicas: autoscaled ? undefined : dep.use('spec.replicas', replicasDecision(d)),
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
      metadata: { name: d.name, namespace, labels: workloadLabels, annotations: { ...d.pod.workloadAnnotations, ...workloadFacts(d, appServer), ...dep.annotations() } },
      spec: k8s.toJson_DeploymentSpec(spec),
    });
    deployment.addJsonPatch(...podTemplatePatches(d));
    return deployment;
  }

  private horizontalPodAutoscaler(a: AutoscalingProps, labels: Record<string, string>, namespace: string | undefined): ApiObject {
    const d = this.decisions;
    checkInteger('autoscaling.maxReplicas', a.maxReplicas, d.replicas, 10000, `it must be at least replicas (${d.replicas}), the floor the capacity figures were checked against.`, `use a maximum of at least ${d.replicas}.`);
    checkInteger('autoscaling.targetCpuUtilisationPercent', a.targetCpuUtilisationPercent, 10, 95, 'utilisation is measured against the CPU request; at 100 % and above the pods are already saturated when the autoscaler reacts.', 'use the utilisation your load test showed at about 80 % of the saturation rate.');
    const r = new Reasons();
    const spec: k8s.HorizontalPodAutoscalerSpecV2 = {
      scaleTargetRef: { apiVersion: this.workload.apiVersion, kind: this.workload.kind, name: d.name },
      minReplicas: r.use('spec.minReplicas', decided(d.replicas, `The replicas input (${d.replicas}): the floor the disruption budget and capacity figures were checked against; the autoscaler may add, never go below.`)),
      maxReplicas: r.use('spec.maxReplicas', decided(a.maxReplicas, 'Input: the most replicas the service may run.')),
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: a.targetCpuUtilisationPercent } } }],
    };
    r.note('spec.metrics[0]', `Input: scale out above ${a.targetCpuUtilisationPercent} % average CPU utilisation of the request, as measured in the service's load test.`);
    return new k8s.KubeHorizontalPodAutoscalerV2(this, 'hpa', { metadata: { name: d.name, namespace, labels, annotations: r.annotations() }, spec });
  }

  /**
   * The synth-time checks on everything this service emits (escape-hatch patches included): what
   * the Argo Rollouts controller checks (the RW7xx lint rules) and the other lint rules, whose error-level findings fail synth
   * unless the value was overridden with a reason (rollwise.dev/overrides).
   */
  private check(r: RenderedApp): string[] {
    const rendered = finalObjects(this, r);
    const invariants = checkInvariants({
      objects: rendered.objects, unpatched: rendered.unpatched,
      endpointPropagationSeconds: this.platform.endpointPropagationSeconds.value,
      shutdownInApplication: this.decisions.shutdown.delay.kind === 'app',
    }).map(formatInvariantFailure);
    const objects = rendered.objects as { kind?: string }[];
    const composition = blockingFindings(lintObjects(objects)).map((f) => `${f.ruleId} ${f.object} ${f.path}: ${f.message} Fix: ${f.fix}`);
    const workloads = rendered.objects.filter((o) => WORKLOAD_KINDS.includes(String(o.kind)));
    const problems = [...invariants, ...composition, ...unresolvedReferences(rendered.objects), ...workloads.flatMap((w) => undeclaredContainers(w, this.decisions)), ...this.unusedAcceptances(r, rendered)];
    // The canary replayed through its analysis (src/rehearse): a healthy release must promote, a
    // 10 % error release must abort at the first weight. Skipped when other checks already failed.
    if (!this.canary || problems.length > 0 || !synthRehearsalEnabled()) return problems;
    const rehearsal = rehearseForSynth(objects, { releaseRps: this.decisions.releaseRps });
    for (const w of rehearsal.warnings) addSynthWarning(this, w);
    const refused = rehearsal.refusals[0];
    if (refused) throw new RollwiseInputError(refused.input, refused.value, rehearsal.refusals.map((r) => r.why).join(' Also, '), refused.fix);
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
      throw new RollwiseInputError('acceptPatch(object)', object?.node?.path ?? String(object), 'is not one of this service\'s objects, so no invariant of this service reads it.', 'pass one of the service\'s objects, e.g. service.workload or service.podDisruptionBudget.');
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
      out.push(`acceptPatch(${object.kind}/${object.name}, '${path}'): no escape-hatch patch changes this field (it is ${before === undefined ? 'absent' : stableJson(before)} with and without the patches), so there is nothing to accept, and the accepted reason would replace rollwise's own on a value rollwise decided. Fix: remove the acceptPatch call, or give the path of the field the patch changes, as the reasons and lint findings print it (\`rollwise explain\` on the output).`);
    }
    return out;
  }
}

/** The RouteTrafficPolicy's props as HttpService's users write them (overrides.proxyIdleTimeout, not idleTimeout). */
const POLICY_INPUTS: Record<string, string> = {
  idleTimeout: 'overrides.proxyIdleTimeout', connectTimeout: 'overrides.proxyConnectTimeout',
  acceptKeepAliveRace: 'overrides.acceptKeepAliveRace', retryOnReset: 'overrides.retryOnReset',
};

/**
 * Runs `make`; an input error it throws about one of `names` (an inner construct's prop) is
 * rethrown naming the input as the service's user wrote it, in the input and in the fix.
 */
function asServiceInputs<T>(names: Record<string, string>, make: () => T): T {
  try {
    return make();
  } catch (e) {
    if (!(e instanceof RollwiseInputError)) throw e;
    const outer = names[e.input];
    const rename = (text: string) => text.replace(/(?<![.\w])(idleTimeout|connectTimeout|acceptKeepAliveRace|retryOnReset)\b/g, (m) => names[m] ?? m);
    if (outer === undefined) throw e;
    throw new RollwiseInputError(outer, e.value, rename(e.why), rename(e.fix));
  }
}

/** The chart a construct is in, or undefined (Chart.of throws "cannot find a parent chart"). */
function chartOf(scope: Construct): Chart | undefined {
  for (let c: Construct | undefined = scope; c; c = c.node.scope) if (Chart.isChart(c)) return c;
  return undefined;
}

/**
 * The input that set a field of one of the service's (unpatched) objects, as the user wrote it, for
 * the cluster problems found there (render-checks.ts); undefined for fields rollwise decided
 * itself (those are rollwise's bugs, reported as they are).
 */
function inputOfField(o: Record<string, unknown>, pointer: string, d: ServiceDecisions): string | { input: string; pointer: string } | undefined {
  const seg = pointer.split('/').filter(Boolean);
  if (seg.length === 0) {
    // A problem of the whole object (its size above etcd's limit): the input whose value makes it
    // so, when one value is most of the object (a 2 MiB environment value, annotation, label...).
    const big = largestString(o);
    const input = big && big.length >= 256 * 1024 ? inputOfField(o, big.pointer, d) : undefined;
    return typeof input === 'string' ? { input, pointer: big!.pointer } : undefined;
  }
  const at = (...p: string[]) => p.every((x, i) => x === '*' || seg[i] === x);
  if (at('metadata', 'namespace')) return 'namespace';
  if (o.kind === 'HTTPRoute') {
    if (at('spec', 'rules', '*', 'matches')) return 'route.pathPrefix';
    if (at('spec', 'hostnames')) return seg[2] === undefined ? 'route.hostnames' : `route.hostnames[${seg[2]}]`;
    return undefined;
  }
  if (!WORKLOAD_KINDS.includes(String(o.kind))) return undefined;
  if (at('metadata', 'labels')) return 'metadata.labels';
  if (at('metadata', 'annotations')) return 'metadata.annotations';
  if (at('spec', 'template', 'metadata', 'labels')) return 'pod.labels';
  if (at('spec', 'template', 'metadata', 'annotations')) return 'pod.annotations';
  if (!at('spec', 'template', 'spec')) return undefined;
  const [field, index, sub, subIndex] = seg.slice(3);
  const simple: Record<string, string> = { tolerations: 'pod.tolerations', affinity: 'pod.affinity', nodeSelector: 'pod.nodeSelector', volumes: 'pod.volumes', imagePullSecrets: 'pod.imagePullSecrets', serviceAccountName: 'pod.serviceAccount', priorityClassName: 'pod.priorityClassName' };
  if (simple[field]) return index !== undefined && /^\d+$/.test(index) ? `${simple[field]}[${index}]` : simple[field];
  if (field !== 'containers' && field !== 'initContainers') return undefined;
  const c = ((((o.spec as Record<string, unknown>).template as Record<string, unknown>).spec as Record<string, unknown>)[field] as { name?: string; env?: { name?: string }[] }[] | undefined)?.[Number(index)];
  const name = c?.name;
  const sidecar = d.pod.sidecars.findIndex((x) => x.name === name);
  const init = d.pod.initContainers.findIndex((x) => x.name === name);
  const group = name === 'app' ? 'container' : sidecar >= 0 ? `sidecars[${sidecar}]` : init >= 0 ? `initContainers[${init}]` : undefined;
  if (!group) return undefined;
  const top = name === 'app';
  switch (sub) {
    case 'image': return top ? 'image' : `${group}.image`;
    case 'resources': return top ? 'resources' : `${group}.resources`;
    case 'env': return `${group}.env${c?.env?.[Number(subIndex)]?.name !== undefined ? `.${c.env[Number(subIndex)].name}` : ''}`;
    case 'volumeMounts': return subIndex !== undefined ? `${group}.mounts[${subIndex}]` : `${group}.mounts`;
    case 'command': case 'args': case 'ports': case 'envFrom': return `${group}.${sub}`;
    case 'name': return top ? undefined : `${group}.name`;
    default: return undefined;
  }
}

/** The longest string in a JSON value and its JSON pointer. */
function largestString(v: unknown, pointer = '', depth = 0): { pointer: string; length: number } | undefined {
  if (typeof v === 'string') return { pointer, length: v.length };
  if (depth > 32 || v === null || typeof v !== 'object') return undefined;
  let best: { pointer: string; length: number } | undefined;
  for (const [k, x] of Object.entries(v)) {
    const found = largestString(x, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, depth + 1);
    if (found && (!best || found.length > best.length)) best = found;
  }
  return best;
}

/** Kinds that run pods from a template; each one under a service is checked (invariants, undeclared containers). */
const WORKLOAD_KINDS = ['Rollout', 'Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job', 'CronJob', 'Pod'];

/**
 * Containers added to the pod template by an escape-hatch patch: rollwise decided none of their
 * resources, probes or security context, so synth refuses them instead of shipping them unchecked.
 */
export function undeclaredContainers(workload: unknown, d: ServiceDecisions): string[] {
  type PodSpec = { containers?: { name?: string }[]; initContainers?: { name?: string }[] };
  const w = workload as { kind?: string; metadata?: { name?: string }; spec?: PodSpec & { template?: { spec?: PodSpec }; jobTemplate?: { spec?: { template?: { spec?: PodSpec } } } } };
  // where each kind keeps its pod spec (a Pod or CronJob under the service is read too)
  const spec = w.kind === 'Pod' ? w.spec : w.kind === 'CronJob' ? w.spec?.jobTemplate?.spec?.template?.spec : w.spec?.template?.spec;
  const base = w.kind === 'Pod' ? 'spec' : w.kind === 'CronJob' ? 'spec.jobTemplate.spec.template.spec' : 'spec.template.spec';
  // The service's own migration Job runs MIGRATION_CONTAINER (decided in src/decisions/migrations.ts) instead of the app.
  const migration = d.migration !== undefined && w.kind === 'Job' && w.metadata?.name === d.migration.name;
  const known = new Set([migration ? MIGRATION_CONTAINER : 'app', ...d.pod.sidecars.map((x) => x.name), ...d.pod.initContainers.map((x) => x.name)]);
  const out: string[] = [];
  for (const list of ['containers', 'initContainers'] as const) {
    (spec?.[list] ?? []).forEach((c, i) => {
      if (!known.has(c?.name ?? '')) {
        out.push(`${w.metadata?.name ?? d.name} ${base}.${list}[${i}]: container "${c?.name}" was added by a patch, so rollwise decided none of its resources, probes or security context and no rule vouches for them. Fix: declare it in sidecars (or initContainers), where it is checked like the app.`);
      }
    });
  }
  return out;
}

const SERVICE_KEYS = keysOf<HttpServiceProps>()({
  image: true, port: true, replicas: true, health: true, resources: true, appServer: true, container: true, sidecars: true, initContainers: true,
  pod: true, metadata: true, passiveHealthCheck: true, sloErrorRatio: true, capacity: true, platform: true, overrides: true, namespace: true,
  delivery: true, route: true, autoscaling: true, measurements: true, migrations: true,
});
const ROUTE_KEYS = keysOf<RouteProps>()({ hostnames: true, pathPrefix: true });
const AUTOSCALING_KEYS = keysOf<AutoscalingProps>()({ maxReplicas: true, targetCpuUtilisationPercent: true });

/**
 * The props as a JavaScript caller may pass them: every group a plain object with known keys (a
 * typo is refused with "did you mean"), lists where lists belong, factories where factories belong.
 */
function checkServiceProps(props: HttpServiceProps): void {
  checkKeys('', props, SERVICE_KEYS);
  refuseNullAndBigInt('', props);
  if (props.passiveHealthCheck !== undefined && typeof props.passiveHealthCheck !== 'boolean') {
    throw new RollwiseInputError('passiveHealthCheck', props.passiveHealthCheck, 'must be true or false.', 'use passiveHealthCheck: true, or leave it out.');
  }
  checkKeys('health', props.health, HEALTH_KEYS);
  checkKeys('resources', props.resources, RESOURCES_KEYS);
  checkKeys('capacity', props.capacity, CAPACITY_KEYS);
  checkKeys('overrides', props.overrides, OVERRIDES_KEYS);
  checkKeys('container', props.container, CONTAINER_KEYS);
  checkKeys('pod', props.pod, POD_KEYS);
  checkKeys('metadata', props.metadata, METADATA_KEYS);
  checkKeys('route', props.route, ROUTE_KEYS);
  checkKeys('autoscaling', props.autoscaling, AUTOSCALING_KEYS);
  if (props.migrations instanceof Migration) checkKeys('migrations', props.migrations.props, MIGRATION_KEYS);
  // the objects inside a container and the pod (lists are checked as lists where they are read)
  const each = (input: string, list: unknown, known: readonly string[]) => {
    if (Array.isArray(list)) list.forEach((x, i) => checkKeys(`${input}[${i}]`, x, known));
  };
  const inside = (group: string, c: ContainerProps | SidecarProps | undefined) => {
    if (c === null || typeof c !== 'object') return;
    each(`${group}.mounts`, c.mounts, MOUNT_KEYS);
    checkKeys(`${group}.runAs`, c.runAs, RUN_AS_KEYS);
    if ('ports' in c) each(`${group}.ports`, c.ports, NAMED_PORT_KEYS);
    if ('resources' in c) checkKeys(`${group}.resources`, c.resources, EXTRA_RESOURCES_KEYS);
    if ('overrides' in c) checkKeys(`${group}.overrides`, c.overrides, EXTRA_OVERRIDES_KEYS);
  };
  inside('container', props.container);
  checkKeys('pod.serviceAccount', props.pod?.serviceAccount, SERVICE_ACCOUNT_KEYS);
  each('pod.tolerations', props.pod?.tolerations, TOLERATION_KEYS);
  // `port` on an init container is refused by its own check, which says why (it runs to completion)
  for (const [group, known] of [['sidecars', SIDECAR_KEYS], ['initContainers', [...INIT_CONTAINER_KEYS, 'port']]] as const) {
    const list = props[group];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new RollwiseInputError(group, list, 'must be a list of containers.', `pass ${group}: [{ name, image, resources, ... }], or leave it out.`);
    list.forEach((c, i) => checkKeys(`${group}[${i}]`, c, known));
    list.forEach((c, i) => inside(`${group}[${i}]`, c));
    if (group === 'sidecars') list.forEach((c, i) => checkKeys(`sidecars[${i}].port`, (c as SidecarProps).port, SIDECAR_PORT_KEYS));
  }
  const factories: [string, unknown, boolean, string][] = [
    ['delivery', props.delivery, props.delivery instanceof Delivery, 'Delivery.canary() or Delivery.rollingUpdate()'],
    ['platform', props.platform, props.platform instanceof Platform, 'new Platform({ ... }) or Platform.defaults()'],
    ['measurements', props.measurements, props.measurements instanceof Measurements, "Measurements.fromFile('measurements/<service>.json')"],
  ];
  for (const [input, value, made, example] of factories) {
    if (value !== undefined && !made) {
      throw new RollwiseInputError(input, value === null ? null : typeof value === 'object' ? 'a plain object' : value, `must be made by its factory (${example}); a plain object carries none of the checks and defaults the factory applies.`, `use ${example}.`);
    }
  }
}

/**
 * JavaScript callers: a `null` (for "unset") or a BigInt anywhere in the plain objects and lists
 * of the props is refused naming its path (values made by factories, such as Duration or
 * Platform, are theirs to check). Without this they surface as TypeErrors deep inside, or as
 * "Do not know how to serialize a BigInt".
 */
function refuseNullAndBigInt(at: string, value: unknown, depth = 0): void {
  if (depth > 8) return;
  const entries: [string, unknown][] = Array.isArray(value) ? value.map((v, i) => [`${at}[${i}]`, v])
    : value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype ? Object.entries(value).map(([k, v]) => [at ? `${at}.${k}` : k, v]) : [];
  for (const [p, v] of entries) {
    if (v === null) throw new RollwiseInputError(p, null, 'is null; rollwise reads a missing prop as its default, and null as nothing it can use.', `leave ${p} out to use the default, or give a value.`);
    if (typeof v === 'bigint') throw new RollwiseInputError(p, v, 'is a BigInt; Kubernetes numbers are JSON numbers, which a BigInt cannot be written as.', `use a plain number, e.g. ${Number(v)}.`);
    refuseNullAndBigInt(p, v, depth + 1);
  }
}

function requireRoute(route: RouteProps | undefined): RouteProps {
  if (!route || !Array.isArray(route.hostnames) || route.hostnames.length === 0) {
    throw new RollwiseInputError('route', JSON.stringify(route ?? null), 'canary delivery splits traffic on an HTTPRoute and needs its hostnames; a route without hostnames would capture every host on the shared Gateway.', 'add route: { hostnames: ["checkout.example.com"] }, or use delivery: Delivery.rollingUpdate().');
  }
  return checkRoute(route, '');
}

function checkRoute(route: RouteProps, fix: string): RouteProps {
  if (!route || !Array.isArray(route.hostnames) || route.hostnames.length === 0) {
    throw new RollwiseInputError('route', JSON.stringify(route ?? null), 'an HTTPRoute needs its hostnames: a route without hostnames would capture every host on the shared Gateway.', fix);
  }
  if (route.hostnames.length > MAX_ROUTE_HOSTNAMES) throw new RollwiseInputError('route.hostnames', `${route.hostnames.length} hostnames`, `an HTTPRoute holds at most ${MAX_ROUTE_HOSTNAMES}; the API server rejects more.`, 'split the service\'s hosts over fewer names (a wildcard "*.example.com" counts as one).');
  route.hostnames.forEach((h, i) => checkHostname(`route.hostnames[${i}]`, h));
  if (route.pathPrefix !== undefined) checkPath('route.pathPrefix', route.pathPrefix);
  return route;
}

function requirePlatform<T>(setting: string, value: T | undefined, example: string, canary = true): T {
  if (value === undefined) {
    if (!canary) {
      throw new RollwiseInputError(`platform.${setting}`, 'unset', 'the route needs it: the HTTPRoute attaches to the platform\'s Gateway.', `set ${setting}: ${example} in the shared Platform, or remove route.`);
    }
    throw new RollwiseInputError(`platform.${setting}`, 'unset', `canary delivery needs it: the HTTPRoute attaches to the platform's Gateway and the analysis queries Prometheus.`, `set ${setting}: ${example} in the shared Platform, or use delivery: Delivery.rollingUpdate().`);
  }
  return value;
}

/** The measured facts the lint rules need and a manifest cannot otherwise hold. */
function workloadFacts(d: ServiceDecisions, appServer: AppServer): Record<string, string> {
  const facts: Record<string, string> = { [ANNOTATIONS.readinessCallsDependency]: 'false', [ANNOTATIONS.appKeepAliveSeconds]: appServer.keepAliveFact };
  if (d.readinessP99Seconds !== undefined) facts[ANNOTATIONS.readinessP99Seconds] = String(d.readinessP99Seconds);
  if (d.capacity) {
    facts[ANNOTATIONS.peakRps] = String(d.capacity.peakRps);
    facts[ANNOTATIONS.saturationRpsPerReplica] = String(d.capacity.saturationRpsPerReplica);
  }
  if (d.releaseRps !== undefined) facts[ANNOTATIONS.releaseRps] = String(d.releaseRps);
  return facts;
}

/**
 * Synth warnings about measurements: older than the platform allows, or a p99 that leaves out
 * probes that failed at the peak (the kubelet observes durations of successful probes only).
 */
function warnAboutMeasurements(scope: Construct, m: Measurements, platform: Platform): void {
  const failed = m.document.readiness.failedAtPeak.value;
  if (typeof failed === 'number' && failed > 0) {
    addSynthWarning(scope, `measurements ${m.origin}: ${failed} readiness probes failed in the busiest hour. The kubelet's duration histogram leaves failed probes out, so rollwise measure counted each as slower than every success (docs/mechanisms.md#probe-durations-leave-out-failures); still, probes failing at peak mean the handler's tail reaches the timeout. Find out why they failed (timeouts or status codes: the pods' Unhealthy events, docs/mechanisms.md#probe-failure-texts) before trusting the timeout derived from it.`);
  }
  const age = m.ageSeconds();
  const max = platform.measurementMaxAgeSeconds.value;
  if (age > max) {
    addSynthWarning(scope, `measurements ${m.origin} are ${Math.floor(age / 86400)} days old (measured ${m.document.measuredAt}), older than platform.measurementMaxAge (${Math.round(max / 86400)} days): the p99 that sized the readiness timeout may no longer hold at peak. Run \`rollwise measure ${m.document.service.name} --namespace ${m.document.service.namespace}\` again and commit the file.`);
  }
}
