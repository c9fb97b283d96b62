import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { decided } from '../decisions/decision';
import { checkDnsLabel } from '../decisions/inputs';
import { KubernetesVersion } from '../decisions/kubernetes-version';
import { namespaceLabels, NamespaceProps } from '../decisions/namespaces';
import { Reasons } from '../justify/reasons';
import { registerDecidedValuesCheck } from '../invariants/decided-values';

export interface ServiceNamespaceProps extends NamespaceProps {
  /** The namespace's name (a DNS label). */
  readonly name: string;
  /**
   * The Kubernetes version whose Pod Security definition is enforced.
   * @default KubernetesVersion.V1_28
   */
  readonly kubernetesVersion?: KubernetesVersion;
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
    const name = checkDnsLabel('name', props.name, 'shop');
    const r = new Reasons();
    const labels = r.use('metadata.labels', namespaceLabels(name, props, props.kubernetesVersion ?? KubernetesVersion.V1_28));
    // Several sync options in one annotation are joined with "," (argo-cd v3.5.1
    // docs/user-guide/sync-options.md); Prune=false and Delete=false keep the resource on prune and
    // on Application deletion ("No Prune Resources", "No Resource Deletion").
    const options = r.use('metadata.annotations["argocd.argoproj.io/sync-options"]', decided('Prune=false,Delete=false', 'Deleting a namespace deletes everything in it, every service\'s objects and Secrets included: if Argo CD applies this object, it never prunes it (removed from Git) or deletes it (with its Application); delete a namespace by hand, deliberately.'));
    this.namespace = new ApiObject(this, 'namespace', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, labels: { ...labels, 'app.kubernetes.io/managed-by': 'rollwise' }, annotations: { 'argocd.argoproj.io/sync-options': options, ...r.annotations() } },
    });
  }
}
