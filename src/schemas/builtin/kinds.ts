import { arr, Json, rec } from './common';

/**
 * Which kinds are built in, each kind's name function and where it keeps a pod template (core, apps, batch,
 * rbac validation.go: the Validate<Kind> functions).
 * Split from src/schemas/builtin.ts (issue 26); each check cites its source where it is.
 */

/**
 * The groups of Kubernetes' built-in kinds (every x-kubernetes-group-version-kind group of the
 * v1.33.0 OpenAPI definitions). A kind of another group is a custom resource.
 */
export const BUILTIN_GROUPS: ReadonlySet<string> = new Set([
  '',
  'admissionregistration.k8s.io',
  'apiextensions.k8s.io',
  'apiregistration.k8s.io',
  'apps',
  'authentication.k8s.io',
  'authorization.k8s.io',
  'autoscaling',
  'batch',
  'certificates.k8s.io',
  'coordination.k8s.io',
  'discovery.k8s.io',
  'events.k8s.io',
  'flowcontrol.apiserver.k8s.io',
  'internal.apiserver.k8s.io',
  'networking.k8s.io',
  'node.k8s.io',
  'policy',
  'rbac.authorization.k8s.io',
  'resource.k8s.io',
  'scheduling.k8s.io',
  'storage.k8s.io',
  'storagemigration.k8s.io',
]);

/** The group of an apiVersion ("apps/v1" -> "apps", "v1" -> ""). */
export function groupOf(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}

/**
 * How the API server validates `metadata.name`: each kind's validation passes its own name
 * function to ValidateObjectMeta (k8s.io/apimachinery pkg/api/validation/generic.go:
 * NameIsDNSSubdomain, NameIsDNSLabel, NameIsDNS1035Label), and then every create runs
 * ValidateObjectMetaAccessor again with path.ValidatePathSegmentName (k8s.io/apiserver v0.33.0 and
 * v0.28.0 pkg/registry/rest/create.go, BeforeCreate: no "/" or "%", not "." or ".."), so the path
 * segment rule is the least any kind's name must meet.
 */
export type NameRule = 'dns1123-subdomain' | 'dns1123-label' | 'dns1035-label' | 'path-segment';

/** Where a kind keeps a pod template, and who refuses an invalid one. */
interface PodTemplate {
  readonly at: 'spec' | 'template' | 'jobTemplate';
  /**
   * `object`: the API server validates the template with the object (ValidatePodTemplateSpec) and
   * refuses the object; `pods`: it does not, and refuses each Pod the controller creates from it;
   * `replicaset`: a custom resource whose controller creates a ReplicaSet from it, which the API
   * server refuses.
   */
  readonly refusedBy: 'object' | 'pods' | 'replicaset';
}

export interface KindRules {
  readonly name: NameRule;
  readonly namespaced?: boolean;
  readonly maxNameLength?: number;
  readonly pods?: PodTemplate;
  /** The validation function that picks the name rule, and where it was read. */
  readonly source: string;
}

/*
 * The name function of each kind, read in the code index's copies of kubernetes/kubernetes (the
 * repository is too big to fetch here, and the index does not name a copy's tag: each copy is dated
 * by what it contains, and a rule is taken as holding at 1.28.0 and 1.33.0 where an older copy and a
 * newer one agree, or where the change that made it is dated):
 * - pkg/apis/core/validation/validation.go, a copy of 1.29 or later (VolumeAttributesClass options
 *   in PersistentVolume validation), the same as copies of 2016-2018: ValidatePodName,
 *   ValidateReplicationControllerName, ValidateNodeName, ValidateLimitRangeName,
 *   ValidateResourceQuotaName, ValidateSecretName, ValidateConfigMapName, ValidateEndpointsName,
 *   ValidatePersistentVolumeName (used for PV and PVC) and apimachinery's ValidateServiceAccountName
 *   are NameIsDNSSubdomain, ValidateServiceName is NameIsDNS1035Label, ValidateNamespaceName is
 *   NameIsDNSLabel, and the ValidateX functions pass them to ValidateObjectMeta;
 * - pkg/apis/apps/validation/validation.go, a copy of 2024 (CHANGELOG-1.28.md at its commit lists
 *   v1.28.9): ValidateDeploymentName, ValidateReplicaSetName, ValidateDaemonSetName are
 *   NameIsDNSSubdomain; ValidateStatefulSetName is NameIsDNSLabel since kubernetes/kubernetes#114172
 *   (merged November 2022, released in 1.27; a copy of 2017 still has NameIsDNSSubdomain);
 * - pkg/apis/batch/validation/validation.go, a copy of 1.30 or later (Job successPolicy and
 *   managedBy): ValidateJob and ValidateCronJobCreate pass ValidateReplicationControllerName
 *   (NameIsDNSSubdomain); ValidateCronJobCreate also refuses a name over 52 characters (63 less the
 *   11 of the "-<timestamp>" suffix of the Jobs it creates; kubernetes/kubernetes#52733, 2017);
 * - pkg/apis/networking/validation/validation.go, a copy of 1.33 or later (IsValidCIDRForLegacyField):
 *   ValidateIngressName and ValidateNetworkPolicyName are NameIsDNSSubdomain;
 * - pkg/apis/autoscaling/validation/validation.go: ValidateHorizontalPodAutoscalerName is
 *   NameIsDNSSubdomain (ValidateReplicationControllerName in older copies, the same function);
 * - pkg/apis/policy/validation/validation.go, a copy of 1.26 or later (unhealthyPodEvictionPolicy):
 *   ValidatePodDisruptionBudget validates the spec only, no ObjectMeta, so a PodDisruptionBudget's
 *   name meets only the path segment rule;
 * - pkg/apis/rbac/validation/validation.go: Role, ClusterRole, RoleBinding and ClusterRoleBinding
 *   names are ValidateRBACName (minimalNameRequirements in older copies) = path.IsValidPathSegmentName,
 *   "identical to the validation for OpenShift", in a copy of 2017 and in one with
 *   declarative-validation markers (1.34 or later): `system:metrics-server` is a valid name;
 * - pkg/apis/scheduling (PriorityClass), storage (StorageClass: ValidateClassName) and discovery
 *   (ValidateEndpointSliceName) validation: NameIsDNSSubdomain;
 * - k8s.io/apiextensions-apiserver (fetched at v0.33.0 and v0.28.0) pkg/apis/apiextensions/validation/
 *   validation.go: a CustomResourceDefinition's name is NameIsDNSSubdomain and must be
 *   spec.names.plural + "." + spec.group (the second rule is not checked here).
 * A built-in kind not listed here meets the path segment rule (its own name function was not read).
 */
const CORE = 'pkg/apis/core/validation/validation.go';
const APPS = 'pkg/apis/apps/validation/validation.go';
const BATCH = 'pkg/apis/batch/validation/validation.go';
const RBAC = 'pkg/apis/rbac/validation/validation.go ValidateRBACName = path.IsValidPathSegmentName';
export const KINDS: ReadonlyMap<string, KindRules> = new Map<string, KindRules>([
  [
    '/Pod',
    {
      name: 'dns1123-subdomain',
      namespaced: true,
      pods: { at: 'spec', refusedBy: 'object' },
      source: `${CORE} ValidatePodName`,
    },
  ],
  [
    '/PodTemplate',
    {
      name: 'dns1123-subdomain',
      namespaced: true,
      pods: { at: 'template', refusedBy: 'object' },
      source: `${CORE} ValidatePodTemplate (ValidatePodName)`,
    },
  ],
  [
    '/ReplicationController',
    {
      name: 'dns1123-subdomain',
      namespaced: true,
      pods: { at: 'template', refusedBy: 'object' },
      source: `${CORE} ValidateReplicationControllerName`,
    },
  ],
  ['/Service', { name: 'dns1035-label', namespaced: true, source: `${CORE} ValidateServiceName` }],
  ['/Namespace', { name: 'dns1123-label', namespaced: false, source: `${CORE} ValidateNamespaceName` }],
  ['/Node', { name: 'dns1123-subdomain', namespaced: false, source: `${CORE} ValidateNodeName` }],
  ['/LimitRange', { name: 'dns1123-subdomain', namespaced: true, source: `${CORE} ValidateLimitRangeName` }],
  ['/ResourceQuota', { name: 'dns1123-subdomain', namespaced: true, source: `${CORE} ValidateResourceQuotaName` }],
  ['/Secret', { name: 'dns1123-subdomain', namespaced: true, source: `${CORE} ValidateSecretName` }],
  ['/ConfigMap', { name: 'dns1123-subdomain', namespaced: true, source: `${CORE} ValidateConfigMapName` }],
  ['/ServiceAccount', { name: 'dns1123-subdomain', namespaced: true, source: `${CORE} ValidateServiceAccountName` }],
  ['/Endpoints', { name: 'dns1123-subdomain', namespaced: true, source: `${CORE} ValidateEndpointsName` }],
  [
    '/PersistentVolume',
    { name: 'dns1123-subdomain', namespaced: false, source: `${CORE} ValidatePersistentVolumeName` },
  ],
  [
    '/PersistentVolumeClaim',
    { name: 'dns1123-subdomain', namespaced: true, source: `${CORE} ValidatePersistentVolumeName` },
  ],
  [
    'apps/Deployment',
    {
      name: 'dns1123-subdomain',
      namespaced: true,
      pods: { at: 'template', refusedBy: 'object' },
      source: `${APPS} ValidateDeploymentName`,
    },
  ],
  [
    'apps/ReplicaSet',
    {
      name: 'dns1123-subdomain',
      namespaced: true,
      pods: { at: 'template', refusedBy: 'object' },
      source: `${APPS} ValidateReplicaSetName`,
    },
  ],
  [
    'apps/DaemonSet',
    {
      name: 'dns1123-subdomain',
      namespaced: true,
      pods: { at: 'template', refusedBy: 'object' },
      source: `${APPS} ValidateDaemonSetName`,
    },
  ],
  [
    'apps/StatefulSet',
    {
      name: 'dns1123-label',
      namespaced: true,
      pods: { at: 'template', refusedBy: 'pods' },
      source: `${APPS} ValidateStatefulSetName`,
    },
  ],
  [
    'batch/Job',
    {
      name: 'dns1123-subdomain',
      namespaced: true,
      pods: { at: 'template', refusedBy: 'object' },
      source: `${BATCH} ValidateJob`,
    },
  ],
  [
    'batch/CronJob',
    {
      name: 'dns1123-subdomain',
      namespaced: true,
      maxNameLength: 52,
      pods: { at: 'jobTemplate', refusedBy: 'object' },
      source: `${BATCH} ValidateCronJobCreate`,
    },
  ],
  [
    'autoscaling/HorizontalPodAutoscaler',
    {
      name: 'dns1123-subdomain',
      namespaced: true,
      source: 'pkg/apis/autoscaling/validation/validation.go ValidateHorizontalPodAutoscalerName',
    },
  ],
  [
    'policy/PodDisruptionBudget',
    {
      name: 'path-segment',
      namespaced: true,
      source: 'pkg/apis/policy/validation/validation.go ValidatePodDisruptionBudget (no ObjectMeta validation)',
    },
  ],
  [
    'networking.k8s.io/Ingress',
    {
      name: 'dns1123-subdomain',
      namespaced: true,
      source: 'pkg/apis/networking/validation/validation.go ValidateIngressName',
    },
  ],
  [
    'networking.k8s.io/NetworkPolicy',
    {
      name: 'dns1123-subdomain',
      namespaced: true,
      source: 'pkg/apis/networking/validation/validation.go ValidateNetworkPolicyName',
    },
  ],
  ['rbac.authorization.k8s.io/Role', { name: 'path-segment', namespaced: true, source: RBAC }],
  ['rbac.authorization.k8s.io/RoleBinding', { name: 'path-segment', namespaced: true, source: RBAC }],
  ['rbac.authorization.k8s.io/ClusterRole', { name: 'path-segment', namespaced: false, source: RBAC }],
  ['rbac.authorization.k8s.io/ClusterRoleBinding', { name: 'path-segment', namespaced: false, source: RBAC }],
  [
    'scheduling.k8s.io/PriorityClass',
    {
      name: 'dns1123-subdomain',
      namespaced: false,
      source: 'pkg/apis/scheduling/validation/validation.go ValidatePriorityClass',
    },
  ],
  [
    'storage.k8s.io/StorageClass',
    {
      name: 'dns1123-subdomain',
      namespaced: false,
      source: 'pkg/apis/storage/validation/validation.go ValidateStorageClass (ValidateClassName)',
    },
  ],
  [
    'discovery.k8s.io/EndpointSlice',
    {
      name: 'dns1123-subdomain',
      namespaced: true,
      source: 'pkg/apis/discovery/validation/validation.go ValidateEndpointSliceName',
    },
  ],
  [
    'apiextensions.k8s.io/CustomResourceDefinition',
    {
      name: 'dns1123-subdomain',
      namespaced: false,
      source:
        'k8s.io/apiextensions-apiserver v0.33.0 pkg/apis/apiextensions/validation/validation.go ' +
        'ValidateCustomResourceDefinition',
    },
  ],
]);

/**
 * Custom resources whose controller creates a ReplicaSet from their pod template: Argo Rollouts
 * v1.9.1 rollout/sync.go (getNewReplicaSet) copies spec.template into the ReplicaSet it creates
 * (adding the pod-template-hash label and, with anti-affinity set, an affinity term), and the API
 * server validates that ReplicaSet's template in full.
 */
const CUSTOM_POD_TEMPLATES: ReadonlyMap<string, PodTemplate> = new Map([
  ['argoproj.io/Rollout', { at: 'template', refusedBy: 'replicaset' }],
]);

/**
 * The name rule of a custom resource: k8s.io/apiextensions-apiserver v0.33.0 (and v0.28.0)
 * pkg/registry/customresource/validator.go, NameIsDNSSubdomain.
 */
const CUSTOM_RESOURCE: KindRules = {
  name: 'dns1123-subdomain',
  source: 'k8s.io/apiextensions-apiserver v0.33.0 pkg/registry/customresource/validator.go',
};
/** A built-in kind whose own name function is not in KINDS: the generic rule every create runs. */
const OTHER_BUILTIN: KindRules = {
  name: 'path-segment',
  source: 'k8s.io/apiserver v0.33.0 pkg/registry/rest/create.go BeforeCreate',
};

/** The rules of a kind: built-in (KINDS, else the path segment rule) or a custom resource. */
export function kindRules(apiVersion: unknown, kind: unknown): KindRules {
  const group = typeof apiVersion === 'string' ? groupOf(apiVersion) : '';
  const k = typeof kind === 'string' ? kind : '';
  if (!BUILTIN_GROUPS.has(group)) return CUSTOM_RESOURCE;
  return KINDS.get(`${group}/${k}`) ?? OTHER_BUILTIN;
}

interface PodSpecAt {
  readonly spec: Json;
  readonly path: string;
  /** The template's metadata (labels, annotations), when the pod spec is a template's. */
  readonly meta?: { readonly m: Json; readonly path: string };
  readonly refusedBy: PodTemplate['refusedBy'];
  /** Volumes the controller adds to each pod (a StatefulSet's volumeClaimTemplates). */
  readonly addedVolumes: readonly string[];
}

/** The pod spec of a kind that has one (KINDS, CUSTOM_POD_TEMPLATES), where it is, and who refuses it. */
export function podSpecs(o: Json, rules: KindRules): PodSpecAt[] {
  const pods =
    rules.pods ??
    (typeof o.apiVersion === 'string'
      ? CUSTOM_POD_TEMPLATES.get(`${groupOf(o.apiVersion)}/${String(o.kind)}`)
      : undefined);
  const spec = rec(o.spec);
  if (!pods || !spec) return [];
  if (pods.at === 'spec') return [{ spec, path: '/spec', refusedBy: pods.refusedBy, addedVolumes: [] }];
  const [tmpl, at] =
    pods.at === 'jobTemplate'
      ? [rec(rec(rec(spec.jobTemplate)?.spec)?.template), '/spec/jobTemplate/spec/template']
      : [rec(spec.template), '/spec/template'];
  const ps = rec(tmpl?.spec);
  if (!ps) return [];
  // pkg/controller/statefulset/stateful_set_utils.go updateStorage (kubernetes, read in the code
  // index's copies from 2017 to 2024): each pod gets one volume per volumeClaimTemplate, named
  // after it (replacing a template volume of the same name).
  const addedVolumes =
    o.kind === 'StatefulSet'
      ? arr(spec.volumeClaimTemplates)
          .map((c) => rec(rec(c)?.metadata)?.name)
          .filter((n): n is string => typeof n === 'string')
      : [];
  const meta = rec(tmpl?.metadata);
  return [
    {
      spec: ps,
      path: `${at}/spec`,
      ...(meta ? { meta: { m: meta, path: `${at}/metadata` } } : {}),
      refusedBy: pods.refusedBy,
      addedVolumes,
    },
  ];
}

/** What the message adds when the API server refuses the pods (or ReplicaSet) rather than the object. */
export function refusal(kind: string, refusedBy: PodTemplate['refusedBy']): string {
  if (refusedBy === 'pods')
    return (
      ` (the API server accepts the ${kind}, whose validation checks only the ` +
      `template's labels and annotations (apps ValidatePodTemplateSpecForStatefulSet), but refuses each Pod its ` +
      'controller creates from the template: no replica starts)'
    );
  if (refusedBy === 'replicaset')
    return (
      ` (the API server accepts the ${kind}, whose CRD schema does not check ` +
      'this, but refuses the ReplicaSet its controller creates from spec.template: no pod of the revision starts)'
    );
  return '';
}
