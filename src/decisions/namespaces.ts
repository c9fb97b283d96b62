import { RollwiseInputError } from '../errors';
import { decided, Decision } from './decision';
import { checkDnsLabel, checkLabels } from './inputs';
import { KubernetesVersion } from './kubernetes-version';

/**
 * How a service's namespace comes to exist, and the labels a platform expects on it: the Pod
 * Security admission levels. Label names from kubernetes/pod-security-admission api/constants.go
 * (v0.28.0, Kubernetes 1.28): pod-security.kubernetes.io/{enforce,audit,warn} with the levels
 * privileged, baseline, restricted, and a -version label each ("latest" or "v1.N").
 */

/** A Pod Security Standards level. */
export type PodSecurityLevel = 'restricted' | 'baseline' | 'privileged';
const LEVELS: readonly PodSecurityLevel[] = ['restricted', 'baseline', 'privileged'];

/** The namespace's labels. Every prop of a namespace is declared here. */
export interface NamespaceProps {
  /**
   * The Pod Security level enforced in the namespace.
   * @default 'restricted': every pod rollwise emits (app, sidecars, migration) meets it, and it refuses a hand-made
   * privileged pod
   */
  readonly podSecurity?: PodSecurityLevel;
  /**
   * Further labels the platform selects namespaces by (a team, a NetworkPolicy or quota selector).
   * @default none
   */
  readonly labels?: Record<string, string>;
}

/** How the namespaces of an Argo CD Application's destination come to exist. */
export class NamespacePolicy {
  /**
   * Argo CD creates the destination namespace when it is missing (`CreateNamespace=true`) and keeps
   * the Pod Security labels on it (`managedNamespaceMetadata`), before the PreSync hooks run. Not
   * with a migration whose Job needs a ServiceAccount, Secret or ConfigMap in the namespace: the
   * Application's own objects are applied only after its PreSync hooks, so in a new namespace
   * nothing has created them (refused; use `existing()`).
   */
  public static createdByArgoCd(props: NamespaceProps = {}): NamespacePolicy {
    return new NamespacePolicy('argocd', props);
  }

  /**
   * The namespace exists and someone else owns it (a platform repository; `rollwise platform
   * --namespace` prints one with its labels). No CreateNamespace: a sync into a missing namespace fails.
   */
  public static existing(): NamespacePolicy {
    return new NamespacePolicy('existing', {});
  }

  private constructor(
    public readonly kind: 'argocd' | 'existing',
    public readonly props: NamespaceProps,
  ) {}
}

/** The labels of a namespace: the Pod Security admission labels, then the platform's own. */
export function namespaceLabels(
  input: string,
  props: NamespaceProps,
  version: KubernetesVersion,
  /** Where the version came from, as the reason names it. */
  versionSource = "the platform's kubernetesVersion",
): Decision<Record<string, string>> {
  const level = props.podSecurity ?? 'restricted';
  if (!LEVELS.includes(level))
    throw new RollwiseInputError(
      `${input}.podSecurity`,
      level,
      'is not a Pod Security Standards level; the admission controller knows privileged, baseline and restricted.',
      'use "restricted" (rollwise\'s pods meet it) or "baseline".',
    );
  const own = checkLabels(`${input}.labels`, props.labels);
  for (const k of Object.keys(own)) {
    if (k.startsWith('pod-security.kubernetes.io/'))
      throw new RollwiseInputError(
        `${input}.labels.${k}`,
        own[k],
        'rollwise sets the Pod Security labels from podSecurity and the Kubernetes version; a second value would ' +
          'contradict them.',
        `use ${input}.podSecurity instead.`,
      );
  }
  const pinned = `v${version.name}`;
  const labels = {
    ...own,
    'pod-security.kubernetes.io/enforce': level,
    'pod-security.kubernetes.io/enforce-version': pinned,
    'pod-security.kubernetes.io/warn': level,
    'pod-security.kubernetes.io/warn-version': 'latest',
    'pod-security.kubernetes.io/audit': level,
    'pod-security.kubernetes.io/audit-version': 'latest',
  };
  const why =
    level === 'restricted'
      ? 'every pod rollwise emits (the app, its sidecars, the migration Job) runs non-root with all capabilities ' +
        'dropped, RuntimeDefault seccomp and no privilege escalation, so it passes, and a hand-made privileged pod in ' +
        'the namespace is refused'
      : level === 'baseline'
        ? `input (${input}.podSecurity): rollwise's pods meet restricted, but others in the ` +
          'namespace may need baseline'
        : `input (${input}.podSecurity): nothing is enforced`;
  return decided(
    labels,
    `Pod Security admission enforces "${level}": ${why}. It judges by the ${version.name} definition of the level ` +
      `(enforce-version ${pinned}, ${versionSource}), so a cluster upgrade never starts refusing pods unreviewed; ` +
      'warn and audit judge by the latest definition, so what a later version would refuse shows up as a warning ' +
      'first.',
    { podSecurity: level, enforceVersion: pinned },
  );
}

/** The namespace decisions of one Application. */
export interface NamespaceDecisions {
  /** CreateNamespace=true (Argo CD creates it), or not (it must exist). */
  readonly createNamespace: Decision<boolean>;
  /** managedNamespaceMetadata.labels, when Argo CD creates it. */
  readonly labels?: Decision<Record<string, string>>;
}

/** A PreSync hook (the migration Job) and the namespaced objects its pod needs that rollwise does not create. */
export interface HookNeeds {
  /** e.g. "Job orders-api-migrate". */
  readonly hook: string;
  /** e.g. ["ServiceAccount orders-api", "Secret orders-db"]. */
  readonly needs: readonly string[];
  /** The hook's activeDeadlineSeconds, when it has one. */
  readonly deadlineSeconds?: number;
}

type Obj = Record<string, unknown>;
const asObj = (v: unknown): Obj | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Obj) : undefined;
const asArr = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const named = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/**
 * The objects in its own namespace a pod spec needs before its pod can be created or its
 * containers start: its ServiceAccount (the ServiceAccount admission plugin refuses a pod whose
 * account does not exist), pull Secrets (without them a private image is not pulled), and every
 * Secret, ConfigMap and PersistentVolumeClaim its containers read through env, envFrom or volumes,
 * unless the reference is `optional` (the kubelet holds the container in CreateContainerConfigError
 * or the pod in ContainerCreating until a required one exists). In order, without repeats.
 */
export function objectsThePodNeeds(podSpec: unknown): string[] {
  const spec = asObj(podSpec) ?? {};
  const out: string[] = [];
  const add = (kind: string, name: string | undefined, optional?: unknown) => {
    if (name !== undefined && optional !== true && !out.includes(`${kind} ${name}`)) out.push(`${kind} ${name}`);
  };
  add('ServiceAccount', named(spec.serviceAccountName));
  for (const s of asArr(spec.imagePullSecrets)) add('Secret', named(asObj(s)?.name));
  for (const c of [...asArr(spec.initContainers), ...asArr(spec.containers)]) {
    for (const e of asArr(asObj(c)?.env)) {
      const from = asObj(asObj(e)?.valueFrom);
      const secret = asObj(from?.secretKeyRef);
      const config = asObj(from?.configMapKeyRef);
      if (secret) add('Secret', named(secret.name), secret.optional);
      if (config) add('ConfigMap', named(config.name), config.optional);
    }
    for (const e of asArr(asObj(c)?.envFrom)) {
      const secret = asObj(asObj(e)?.secretRef);
      const config = asObj(asObj(e)?.configMapRef);
      if (secret) add('Secret', named(secret.name), secret.optional);
      if (config) add('ConfigMap', named(config.name), config.optional);
    }
  }
  for (const v of asArr(spec.volumes)) {
    const vol = asObj(v) ?? {};
    const secret = asObj(vol.secret);
    const config = asObj(vol.configMap);
    const pvc = asObj(vol.persistentVolumeClaim);
    if (secret) add('Secret', named(secret.secretName), secret.optional);
    if (config) add('ConfigMap', named(config.name), config.optional);
    if (pvc) add('PersistentVolumeClaim', named(pvc.claimName));
    for (const src of asArr(asObj(vol.projected)?.sources)) {
      const ps = asObj(asObj(src)?.secret);
      const pc = asObj(asObj(src)?.configMap);
      if (ps) add('Secret', named(ps.name), ps.optional);
      if (pc) add('ConfigMap', named(pc.name), pc.optional);
    }
  }
  return out;
}

/**
 * Whether Argo CD creates `namespace`, and with which labels. Argo CD v3.5.1's vendored
 * gitops-engine (pkg/sync/sync_context.go autoCreateNamespace) adds the namespace as a task of the
 * PreSync phase, so it exists before the PreSync hooks (the migration Job) run. The labels go to an
 * existing namespace too, by server-side apply; Argo CD's own caveat: a namespace whose labels were
 * applied client-side must be upgraded to server-side apply first, or Argo CD may remove them
 * (docs/user-guide/sync-options.md "Namespace Metadata", v3.5.1, which says kubectl cannot manage
 * client-side-applied fields with server-side apply).
 */
export function decideNamespace(
  namespace: string,
  policy: NamespacePolicy,
  version: KubernetesVersion,
  preSync?: HookNeeds,
  policyInput = 'namespacePolicy',
): NamespaceDecisions {
  checkDnsLabel('destinationNamespace', namespace, 'shop');
  if (!(policy instanceof NamespacePolicy))
    throw new RollwiseInputError(
      'namespacePolicy',
      policy,
      'must be a NamespacePolicy.',
      'use NamespacePolicy.createdByArgoCd() or NamespacePolicy.existing().',
    );
  if (policy.kind === 'argocd' && preSync !== undefined && preSync.needs.length > 0) {
    // Argo CD v3.5.1, gitops-engine/pkg/sync: every object without a hook annotation is a task of
    // the Sync phase (sync_phase.go syncPhases), the phases run in the order PreSync, Sync, PostSync
    // (sync_tasks.go syncPhaseOrder), and the next phase starts only after the hooks of the one
    // before completed (sync_context.go Sync waits while a hook is running, then runs the lowest
    // phase and wave still pending). autoCreateNamespace makes the missing namespace a task of the PreSync phase,
    // sorted
    // before the hooks in it (sync_tasks.go Sort/adjustDeps). So in a namespace created by this sync,
    // nothing of the Application exists while its PreSync hook runs.
    const list = preSync.needs.join(', ');
    const deadline =
      preSync.deadlineSeconds === undefined ? '' : ` (${preSync.deadlineSeconds} s, its ` + 'activeDeadlineSeconds)';
    throw new RollwiseInputError(
      policyInput,
      'NamespacePolicy.createdByArgoCd() (CreateNamespace=true)',
      `the ${preSync.hook} is an Argo CD PreSync hook and needs ${list} in namespace ${namespace}, which rollwise ` +
        `does not create. On the first sync Argo CD creates ${namespace} at the start of the PreSync phase and runs ` +
        'the hook right after it, and no object of the Application is applied before every PreSync hook has ' +
        'completed (objects without a hook annotation belong to the Sync phase, which comes after: argo-cd v3.5.1 ' +
        'gitops-engine/pkg/sync/sync_phase.go, sync_tasks.go syncPhaseOrder). In a namespace that did not exist a ' +
        `moment earlier nothing has made them, so the hook's pod is not created (a missing ServiceAccount) or does ` +
        `not start (a missing Secret or ConfigMap), the Job waits until its deadline${deadline}, fails, and the sync ` +
        'stops with nothing applied; a ServiceAccount or Secret kept in this Application would never be applied, ' +
        'since every sync runs the hook first (docs/mechanisms.md#migrations).',
      `create ${namespace} and ${list} before the first sync, outside this Application, and say so: namespaces: ` +
        `NamespacePolicy.existing() in platform.argoCd (or this Application's namespacePolicy). \`rollwise platform ` +
        `--namespace ${namespace}\` prints the Namespace with its Pod Security labels; the ServiceAccount and ` +
        'Secrets come from where they are made today (the platform repository, an external secret store).',
    );
  }
  if (policy.kind === 'existing') {
    return {
      createNamespace: decided(
        false,
        `Namespace ${namespace} exists and is managed elsewhere (NamespacePolicy.existing()): no CreateNamespace, so a ` +
          `sync into a missing namespace fails instead of creating one without the platform's labels (\`rollwise ` +
          `platform --namespace ${namespace}\` prints it with its Pod Security labels).`,
      ),
    };
  }
  return {
    createNamespace: decided(
      true,
      `CreateNamespace=true: Argo CD creates ${namespace} when it is missing, in the PreSync phase before any hook ` +
        '(gitops-engine sync_context.go autoCreateNamespace, argo-cd v3.5.1), so the first sync of a new service ' +
        'does not fail on a missing namespace (a migration whose PreSync hook needs a ServiceAccount, Secret or ' +
        'ConfigMap in it is refused with this policy: nothing of the Application exists before its PreSync hooks ' +
        'run, docs/mechanisms.md#migrations). Argo CD does not track the namespace it creates, so it never prunes or ' +
        'deletes it with the Application (docs/user-guide/sync-options.md "Create Namespace"). The Pod Security ' +
        'labels are managedNamespaceMetadata: Argo CD applies them with server-side apply on every sync, also to a ' +
        'namespace that already exists, keeping the labels other field managers own (controller/sync_namespace.go, ' +
        'v3.5.1). A namespace that already exists with labels applied client-side (kubectl apply without ' +
        '--server-side) must first be upgraded to server-side apply, or Argo CD may remove its existing labels ' +
        '(argo-cd v3.5.1 docs/user-guide/sync-options.md "Namespace Metadata"). Every Application deploying into the ' +
        `namespace must keep the same labels on it: Argo CD applies each one's at every sync under one field ` +
        'manager, so different ones would flip at each sync (refused at synth). For a namespace shared with ' +
        'workloads that need more than its level, use NamespacePolicy.existing().',
    ),
    labels: namespaceLabels('namespacePolicy', policy.props, version),
  };
}

/** A namespace the platform emits on its own (ServiceNamespace): its name, labels and sync options. */
export interface ServiceNamespaceInputs extends NamespaceProps {
  readonly name: string;
  readonly kubernetesVersion?: KubernetesVersion;
  readonly kubernetesVersionSource?: string;
}

export interface ServiceNamespaceDecisions {
  readonly name: string;
  readonly labels: Decision<Record<string, string>>;
  /** The `argocd.argoproj.io/sync-options` annotation. */
  readonly syncOptions: Decision<string>;
}

/** What ServiceNamespace (src/constructs/service-namespace.ts) renders. */
export function decideServiceNamespace(props: ServiceNamespaceInputs): ServiceNamespaceDecisions {
  const name = checkDnsLabel('name', props.name, 'shop');
  const labels = namespaceLabels(
    name,
    props,
    props.kubernetesVersion ?? KubernetesVersion.V1_28,
    props.kubernetesVersionSource ??
      (props.kubernetesVersion
        ? `input (kubernetesVersion ${props.kubernetesVersion.name})`
        : "the default, as kubernetesVersion was not given: set it to your cluster's version"),
  );
  // Several sync options in one annotation are joined with "," (argo-cd v3.5.1
  // docs/user-guide/sync-options.md); Prune=false and Delete=false keep the resource on prune and
  // on Application deletion ("No Prune Resources", "No Resource Deletion").
  const syncOptions = decided(
    'Prune=false,Delete=false',
    "Deleting a namespace deletes everything in it, every service's objects and Secrets included: if Argo CD " +
      'applies this object, it never prunes it (removed from Git) or deletes it (with its Application); delete a ' +
      'namespace by hand, deliberately.',
  );
  return { name, labels, syncOptions };
}
