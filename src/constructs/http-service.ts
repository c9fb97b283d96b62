import { ApiObject, Chart } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { decided } from '../decisions/decision';
import { Delivery } from '../decisions/canary';
import { checkInteger, checkPath } from '../decisions/inputs';
import { checkRolloutSpec } from '../checks/rollout-spec';
import { RollwiseInputError } from '../errors';
import { CanaryDelivery, RouteProps } from './canary-delivery';
import { RouteTrafficPolicy } from './backend-traffic-policy';
import { AppServer } from '../decisions/keep-alive';
import { Override } from '../decisions/decision';
import { WorkloadKind } from '../decisions/alerts';
import { addSynthWarning } from '../synth/output';
import { ServiceAlerts } from './service-alerts';
import { blockingFindings, lintObjects } from '../rules/synth-check';
import { Platform } from '../decisions/platform';
import { CapacityProps, decideService, replicasDecision, HealthProps, HttpServiceOverrides, ResourcesProps, ServiceDecisions } from '../decisions/service';
import { ANNOTATIONS } from '../justify/annotations';
import { Reasons } from '../justify/reasons';
import { PORT_NAME, renderPodTemplate, selectorLabels } from './pod-template';

export interface HttpServiceProps {
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
   * Namespace of every object.
   * @default the chart's namespace, else none (the Argo CD Application's destination namespace applies)
   */
  readonly namespace?: string;
  /**
   * How new versions reach users.
   * @default Delivery.canary(): an Argo Rollout with analysis; needs `route` and the platform's gateway and Prometheus
   */
  readonly delivery?: Delivery;
  /**
   * The HTTPRoute's hostnames and path (required for canary delivery).
   * @default none: no HTTPRoute (only allowed with Delivery.rollingUpdate())
   */
  readonly route?: RouteProps;
  /**
   * A HorizontalPodAutoscaler between `replicas` (the floor) and `maxReplicas`.
   * @default none: `replicas` is fixed
   */
  readonly autoscaling?: AutoscalingProps;
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
  /** The BackendTrafficPolicy on the service's HTTPRoute (canary delivery only). */
  public readonly trafficPolicy?: RouteTrafficPolicy;
  /** The PrometheusRule and runbook (when the platform has a runbook URL). */
  public readonly alerts?: ServiceAlerts;

  constructor(scope: Construct, id: string, props: HttpServiceProps) {
    super(scope, id);
    this.platform = props.platform ?? Platform.defaults();
    this.decisions = decideService({ ...props, name: id }, this.platform);
    this.name = this.decisions.name;
    const d = this.decisions;
    const namespace = props.namespace ?? Chart.of(this).namespace;
    const labels = { ...this.platform.labels, ...selectorLabels(d.name), 'app.kubernetes.io/managed-by': 'rollwise' };
    const meta = (reasons: Reasons, extra: Record<string, string> = {}) => ({
      name: d.name, namespace, labels, annotations: { ...extra, ...reasons.annotations() },
    });

    const delivery = props.delivery ?? Delivery.canary();
    this.namespace = namespace;
    if (delivery.kind === 'canary') {
      this.canary = new CanaryDelivery(this, 'canary', {
        decisions: d,
        namespace,
        labels,
        route: requireRoute(props.route),
        gateway: requirePlatform('gateway', this.platform.gateway, '{ name: "public", namespace: "envoy-gateway-system" }'),
        prometheusAddress: requirePlatform('prometheusAddress', this.platform.prometheusAddress, '"http://prometheus-operated.monitoring.svc:9090"'),
        maxErrorRatio: this.platform.canaryMaxErrorRatio.value,
        steps: delivery.steps,
        facts: workloadFacts(d, props.appServer),
        replicasOwnedByAutoscaler: props.autoscaling !== undefined,
      });
      this.workload = this.canary.rollout;
    } else {
      if (props.route) throw new RollwiseInputError('route', JSON.stringify(props.route), 'a route is only emitted with canary delivery: with Delivery.rollingUpdate() nothing would split or measure its traffic.', 'use Delivery.canary() (the default), or remove route and expose the Service another way.');
      this.workload = this.deployment(d, labels, namespace, props.autoscaling !== undefined, props.appServer);
    }

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

    const pdb = new Reasons();
    const pdbSpec: k8s.PodDisruptionBudgetSpec = {
      maxUnavailable: k8s.IntOrString.fromNumber(pdb.use('spec.maxUnavailable', d.pdbMaxUnavailable)),
      selector: { matchLabels: selectorLabels(d.name) },
      unhealthyPodEvictionPolicy: pdb.use('spec.unhealthyPodEvictionPolicy', decided('AlwaysAllow',
        'A pod that is not Ready serves nothing, so evicting it never costs capacity; without this a single crash-looping pod blocks every node drain.')),
    };
    this.podDisruptionBudget = new k8s.KubePodDisruptionBudget(this, 'pdb', { metadata: meta(pdb), spec: pdbSpec });

    if (this.canary) {
      const o = props.overrides ?? {};
      this.trafficPolicy = new RouteTrafficPolicy(new Construct(this, 'traffic'), d.name, {
        routeName: d.name,
        namespace,
        appServer: props.appServer,
        idleTimeout: o.proxyIdleTimeout,
        connectTimeout: o.proxyConnectTimeout,
        acceptKeepAliveRace: o.acceptKeepAliveRace,
        retryOnReset: o.retryOnReset,
        passiveHealthCheck: props.passiveHealthCheck ? { replicas: d.replicas, maxUnavailable: d.pdbMaxUnavailable.value } : undefined,
        labels,
      });
    }
    if (props.autoscaling) this.autoscaler = this.horizontalPodAutoscaler(props.autoscaling, labels, namespace);
    const runbookBase = this.platform.runbookBaseUrl;
    if (runbookBase) {
      this.alerts = new ServiceAlerts(new Construct(this, 'alerts'), d.name, {
        decisions: d,
        namespace,
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
    // cdk8s' App.synth() validates the whole app once per chart; the tree is final by then, so the
    // checks run once per service and their result is reused (otherwise n charts cost n^2 lint runs).
    let checked: string[] | undefined;
    this.node.addValidation({ validate: () => (checked ??= this.check()) });
  }

  /** Whether an autoscaler owns the replica count (Argo CD must then ignore it). */
  public get replicasOwnedByAutoscaler(): boolean {
    return this.autoscaler !== undefined;
  }

  private deployment(d: ServiceDecisions, labels: Record<string, string>, namespace: string | undefined, autoscaled: boolean, appServer: AppServer): ApiObject {
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
    return new k8s.KubeDeployment(this, 'deployment', { metadata: { name: d.name, namespace, labels, annotations: { ...workloadFacts(d, appServer), ...dep.annotations() } }, spec });
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
   * the Argo Rollouts controller checks, and the lint rules, whose error-level findings fail synth
   * unless the value was overridden with a reason (rollwise.dev/overrides).
   */
  private check(): string[] {
    const objects = this.node.findAll().filter((c): c is ApiObject => c instanceof ApiObject).map((o) => o.toJson() as { kind?: string });
    const controller = this.canary ? checkRolloutSpec(objects.find((o) => o.kind === 'Rollout') ?? {}, objects) : [];
    const composition = blockingFindings(lintObjects(objects)).map((f) => `${f.ruleId} ${f.object} ${f.path}: ${f.message} Fix: ${f.fix}`);
    return [...controller, ...composition];
  }
}

function requireRoute(route: RouteProps | undefined): RouteProps {
  if (!route || !Array.isArray(route.hostnames) || route.hostnames.length === 0) {
    throw new RollwiseInputError('route', JSON.stringify(route ?? null), 'canary delivery splits traffic on an HTTPRoute and needs its hostnames; a route without hostnames would capture every host on the shared Gateway.', 'add route: { hostnames: ["checkout.example.com"] }, or use delivery: Delivery.rollingUpdate().');
  }
  for (const h of route.hostnames) {
    if (!/^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(h)) {
      throw new RollwiseInputError('route.hostnames', h, 'is not a DNS hostname (lower case, optionally starting with "*."); the Gateway API rejects it.', 'use a hostname like "checkout.example.com".');
    }
  }
  if (route.pathPrefix !== undefined) checkPath('route.pathPrefix', route.pathPrefix);
  return route;
}

function requirePlatform<T>(setting: string, value: T | undefined, example: string): T {
  if (value === undefined) {
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
  return facts;
}

