import { ApiObject, Chart } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { decided } from '../decisions/decision';
import { Platform } from '../decisions/platform';
import { CapacityProps, decideService, HealthProps, HttpServiceOverrides, ResourcesProps, ServiceDecisions } from '../decisions/service';
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
}

/**
 * An HTTP service on the golden path: a Deployment, a Service and a PodDisruptionBudget in which
 * every safety-relevant value is derived from the inputs and carries its reason. The construct id
 * is the service's name and the name of every object it emits.
 */
export class HttpService extends Construct {
  public readonly name: string;
  public readonly decisions: ServiceDecisions;
  public readonly platform: Platform;
  public readonly workload: ApiObject;
  public readonly service: ApiObject;
  public readonly podDisruptionBudget: ApiObject;

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
      replicas: dep.use('spec.replicas', decided(d.replicas, `Input: ${d.replicas} replicas${d.capacity ? `, ${(d.capacity.peakRps / d.replicas).toFixed(0)} req/s each at the ${d.capacity.peakRps} req/s peak (${Math.round((d.capacity.peakRps / d.replicas / d.capacity.saturationRpsPerReplica) * 100)} % of saturation)` : ''}.`)),
      minReadySeconds: dep.use('spec.minReadySeconds', d.rollout.minReadySeconds),
      progressDeadlineSeconds: dep.use('spec.progressDeadlineSeconds', d.rollout.progressDeadlineSeconds),
      selector: { matchLabels: selectorLabels(d.name) },
      strategy,
      template,
    };
    this.workload = new k8s.KubeDeployment(this, 'deployment', { metadata: meta(dep, workloadFacts(d)), spec });

    const svc = new Reasons();
    svc.note('spec.ports[0]', `Port 80 forwards to the container's named port "${PORT_NAME}" (${d.port}); only Ready endpoints receive traffic, which is why readiness timing matters (field-notes 1).`);
    this.service = new k8s.KubeService(this, 'service', {
      metadata: meta(svc),
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
  }
}

/** The measured facts the lint rules need and a manifest cannot otherwise hold. */
function workloadFacts(d: ServiceDecisions): Record<string, string> {
  const facts: Record<string, string> = { [ANNOTATIONS.readinessCallsDependency]: 'false' };
  if (d.readinessP99Seconds !== undefined) facts[ANNOTATIONS.readinessP99Seconds] = String(d.readinessP99Seconds);
  if (d.capacity) {
    facts[ANNOTATIONS.peakRps] = String(d.capacity.peakRps);
    facts[ANNOTATIONS.saturationRpsPerReplica] = String(d.capacity.saturationRpsPerReplica);
  }
  return facts;
}

