import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { KubernetesVersion } from '../decisions/kubernetes-version';
import { decideServiceNamespace, NamespaceProps } from '../decisions/namespaces';
import { Reasons } from '../justify/reasons';
import { registerDecidedValuesCheck } from '../invariants/decided-values';

export interface ServiceNamespaceProps extends NamespaceProps {
  /** The namespace's name (a DNS label). */
  readonly name: string;
  /**
   * The Kubernetes version whose Pod Security definition is enforced: your cluster's (or the
   * platform's kubernetesVersion). Not given, the reason says that 1.28 is the default.
   * @default KubernetesVersion.V1_28
   */
  readonly kubernetesVersion?: KubernetesVersion;
  /**
   * Where kubernetesVersion came from, as the reason names it (e.g. "--kubernetes-version 1.33").
   * @default "kubernetesVersion", or, when it is not given, its default 1.28
   */
  readonly kubernetesVersionSource?: string;
}

/**
 * A Namespace with the labels a platform expects (Pod Security admission, the platform's own),
 * for the namespaces that `NamespacePolicy.existing()` expects to exist: emitted once per
 * namespace, by the platform (`rollwise platform --namespace <ns>` or in a platform app), never
 * beside each service (several services share a namespace, and one object must have one owner).
 */
export class ServiceNamespace extends Construct {
  public readonly namespace: ApiObject;

  constructor(scope: Construct, id: string, props: ServiceNamespaceProps) {
    super(scope, id);
    registerDecidedValuesCheck(this);
    const { name, labels: labelsD, syncOptions } = decideServiceNamespace(props);
    const r = new Reasons();
    const labels = r.use('metadata.labels', labelsD);
    const options = r.use('metadata.annotations["argocd.argoproj.io/sync-options"]', syncOptions);
    this.namespace = new ApiObject(this, 'namespace', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: {
        name,
        labels: { ...labels, 'app.kubernetes.io/managed-by': 'rollwise' },
        annotations: { 'argocd.argoproj.io/sync-options': options, ...r.annotations() },
      },
    });
  }
}
