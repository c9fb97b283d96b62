import { KubernetesVersion } from '../decisions/kubernetes-version';
import { pointerKey } from './structural';

/**
 * The API server's built-in validation (and the kubelet's parsing) of the fields rollwise writes,
 * which no OpenAPI schema expresses. Each rule cites its source; "apimachinery" is
 * k8s.io/apimachinery at v0.33.0 (Kubernetes 1.33.0; the same functions in v0.28.0), "core" is
 * kubernetes/kubernetes pkg/apis/core/validation/validation.go (read in the code index's copies, see
 * KINDS below for how they are dated).
 *
 * Only what the API server validates for each kind is checked: an object's name by its kind's
 * name function, a pod template only where the kind's validation checks it (a StatefulSet's is
 * checked as the pods its controller creates, with the volumes of its volumeClaimTemplates; an
 * Argo Rollout's as the ReplicaSet its controller creates), the Service port rules on core
 * Services only. Custom resources get the object metadata rules (apiextensions-apiserver) and,
 * for a Rollout, the pod template rules.
 */

type Json = Record<string, unknown>;

export interface BuiltinProblem {
  readonly path: string;
  readonly message: string;
  /** The value the check refused (a name, an image, a label key or value), when it is one value. */
  readonly value?: unknown;
}

// apimachinery pkg/util/validation/validation.go
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
/**
 * IsEnvVarName (envVarNameFmt); used by core's validateEnv unless RelaxedEnvironmentVariableValidation is on (beta, on
 * by default from 1.32).
 */
const ENV_VAR_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
/** IsRelaxedEnvVarName: printable ASCII except "=". */
const RELAXED_ENV_VAR_NAME = /^[ -<>-~]+$/;
const CONFIG_MAP_KEY = /^[-._a-zA-Z0-9]+$/;

export function isDns1123Label(v: string): boolean {
  return v.length <= 63 && DNS1123_LABEL.test(v);
}

/** IsDNS1123Subdomain: at most 253 characters of DNS labels joined by dots. */
export function isDns1123Subdomain(v: string): boolean {
  return v.length > 0 && v.length <= 253 && v.split('.').every((l) => DNS1123_LABEL.test(l));
}

/** IsQualifiedName (label and annotation keys): an optional DNS-subdomain prefix and "/", then a name of 1-63. */
export function isQualifiedName(v: string): boolean {
  const parts = v.split('/');
  if (parts.length > 2) return false;
  const name = parts[parts.length - 1];
  if (parts.length === 2 && !isDns1123Subdomain(parts[0])) return false;
  return name.length > 0 && name.length <= 63 && QUALIFIED_NAME.test(name);
}

/** IsValidLabelValue: empty, or a qualified name part of at most 63. */
export function isLabelValue(v: string): boolean {
  return v === '' || (v.length <= 63 && QUALIFIED_NAME.test(v));
}

/** IsValidPortName (IANA_SVC_NAME): 1-15 of [-a-z0-9] with a letter, no "--", no leading or trailing "-". */
export function isPortName(v: string): boolean {
  return (
    v.length > 0 &&
    v.length <= 15 &&
    /^[-a-z0-9]+$/.test(v) &&
    /[a-z]/.test(v) &&
    !v.includes('--') &&
    !v.startsWith('-') &&
    !v.endsWith('-')
  );
}

/**
 * The container image as the kubelet parses it: pkg/kubelet/images/image_manager.go
 * (applyDefaultImageTag, v1.33.0) calls distribution/reference's ParseNormalizedNamed, and a
 * failure is the pod's InvalidImageName. The grammar is github.com/distribution/reference v0.6.0
 * (regexp.go, normalize.go, reference.go): a 64-hex string alone is refused, the repository must
 * be lower case, the name at most 255 characters, the tag `[\w][\w.-]{0,127}`, the digest
 * `algorithm:hex` with the algorithm's exact length (go-digest: sha256 64, sha384 96, sha512 128
 * lower-case hex digits). The API server refuses leading or trailing whitespace (core,
 * validateContainers) and an empty image.
 * Returns the problem, or undefined when the kubelet accepts it.
 */
export function imageReferenceProblem(image: string): string | undefined {
  if (image === '') return 'is empty';
  if (image.trim() !== image)
    return (
      'has leading or trailing whitespace (the API server refuses a Pod with it, core ' +
      'validateContainersOnlyForPod)'
    );
  if (/^[a-f0-9]{64}$/.test(image))
    return 'is a 64-character hexadecimal string, which the kubelet refuses as a ' + 'repository name';
  const slash = image.indexOf('/');
  let domain = 'docker.io';
  let remainder = image;
  if (slash >= 0) {
    const maybe = image.slice(0, slash);
    if (maybe === 'localhost' || /[.:]/.test(maybe) || maybe.toLowerCase() !== maybe) {
      domain = maybe;
      remainder = image.slice(slash + 1);
    }
  }
  const tagSep = remainder.indexOf(':');
  const remote = tagSep >= 0 ? remainder.slice(0, tagSep) : remainder;
  if (remote.toLowerCase() !== remote)
    return `has an upper-case repository name (${remote}); the kubelet requires ` + 'lower case';
  const domainComponent = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
  const host = `(?:${domainComponent}(?:\\.${domainComponent})*|\\[(?:[a-fA-F0-9:]+)\\])(?::[0-9]+)?`;
  const path = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*)*';
  const ref = new RegExp(
    `^((?:${host}/)?${path})(?::([\\w][\\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}))?$`,
  );
  const full = `${domain}/${remainder}`;
  const m = ref.exec(full);
  if (!m)
    return (
      'is not a valid image reference ([registry/]repository[:tag][@digest]: lower-case path components, ' +
      'one tag of at most 128 word characters, one digest)'
    );
  const name = m[1];
  const repoPath = name.slice(domain.length + 1);
  if (repoPath.length > 255) return `has a repository name of ${repoPath.length} characters, more than 255`;
  const digest = m[3];
  if (digest) {
    const [alg, hex] = digest.split(':');
    const len: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };
    if (len[alg] === undefined) return `has a digest with the unsupported algorithm ${alg} (sha256, sha384 or sha512)`;
    if (hex.length !== len[alg] || !/^[a-f0-9]+$/.test(hex))
      return `has a ${alg} digest that is not ${len[alg]} ` + 'lower-case hexadecimal digits';
  }
  return undefined;
}

/** apimachinery pkg/api/validation/objectmeta.go: TotalAnnotationSizeLimitB, keys plus values in bytes. */
export const TOTAL_ANNOTATION_BYTES = 256 * 1024;

/**
 * etcd's request limit (--max-request-bytes, DefaultMaxRequestBytes = 1.5 MiB in etcd's
 * server/embed/config.go): a larger object cannot be stored, whatever the API server accepted
 * (its own body limit is 3 MiB, k8s.io/apiserver pkg/server/config.go). The JSON text is
 * measured; the API server stores built-in kinds as protobuf, which is smaller, and custom
 * resources as JSON.
 */
export const ETCD_MAX_REQUEST_BYTES = 1.5 * 1024 * 1024;

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
type NameRule = 'dns1123-subdomain' | 'dns1123-label' | 'dns1035-label' | 'path-segment';

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

interface KindRules {
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
const KINDS: ReadonlyMap<string, KindRules> = new Map<string, KindRules>([
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
function kindRules(apiVersion: unknown, kind: unknown): KindRules {
  const group = typeof apiVersion === 'string' ? groupOf(apiVersion) : '';
  const k = typeof kind === 'string' ? kind : '';
  if (!BUILTIN_GROUPS.has(group)) return CUSTOM_RESOURCE;
  return KINDS.get(`${group}/${k}`) ?? OTHER_BUILTIN;
}

/**
 * The problem with a name under a rule, or undefined (apimachinery pkg/util/validation/validation.go,
 * pkg/api/validation/path/name.go).
 */
function nameProblem(name: string, rule: NameRule): string | undefined {
  switch (rule) {
    case 'dns1123-subdomain':
      return isDns1123Subdomain(name)
        ? undefined
        : 'a DNS-1123 subdomain: lower-case letters, digits, "-" and ".", ' + 'at most 253';
    case 'dns1123-label':
      return isDns1123Label(name) ? undefined : 'a DNS-1123 label: lower-case letters, digits and "-", at most 63';
    case 'dns1035-label':
      return name.length <= 63 && DNS1035_LABEL.test(name)
        ? undefined
        : 'a DNS-1035 label: lower-case letters, ' + 'digits and "-", starting with a letter, at most 63';
    case 'path-segment':
      return name === '.' || name === '..' || name.includes('/') || name.includes('%')
        ? 'a path segment: not "." or "..", ' + 'without "/" or "%"'
        : undefined;
  }
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
function podSpecs(o: Json, rules: KindRules): PodSpecAt[] {
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
function refusal(kind: string, refusedBy: PodTemplate['refusedBy']): string {
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

function rec(x: unknown): Json | undefined {
  return x && typeof x === 'object' && !Array.isArray(x) ? (x as Json) : undefined;
}

function arr(x: unknown): unknown[] {
  return Array.isArray(x) ? x : [];
}

const show = (v: unknown) => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 70 ? `${s.slice(0, 67)}...` : s;
};

/** Quantity syntax (apimachinery pkg/api/resource/quantity.go, ParseQuantity). */
const QUANTITY = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+|[KMGTPE]i|[numkMGTPE])?$/;

type Add = (path: string, message: string, value?: unknown) => void;

export interface BuiltinOptions {
  /**
   * Whether the kind is namespaced, for a custom resource (its CRD's scope); built-in kinds of
   * KINDS know theirs. A namespace is checked only on a namespaced kind: on a cluster-scoped one
   * the API server clears it (k8s.io/apiserver v0.33.0 pkg/registry/rest/create.go,
   * EnsureObjectNamespaceMatchesRequestNamespace).
   * @default - unknown: the namespace is not checked
   */
  readonly namespaced?: boolean;
}

/** The built-in checks on one object; `version` picks the rules that changed between 1.28 and 1.33. */
export function builtinProblems(o: Json, version: KubernetesVersion, opts: BuiltinOptions = {}): BuiltinProblem[] {
  const out: BuiltinProblem[] = [];
  const add: Add = (path, message, value) => out.push({ path, message, ...(value !== undefined ? { value } : {}) });
  // Serializing every object to measure it costs more than all the other checks together, so it
  // is measured exactly only when a cheap upper bound of its JSON size could exceed the limit.
  const size = jsonSizeBound(o, ETCD_MAX_REQUEST_BYTES) > ETCD_MAX_REQUEST_BYTES ? JSON.stringify(o).length : 0;
  if (size > ETCD_MAX_REQUEST_BYTES)
    add(
      '/',
      `the object is ${size} bytes as JSON, above etcd's 1.5 MiB request limit (--max-request-bytes); it cannot be ` +
        'stored',
    );
  const rules = kindRules(o.apiVersion, o.kind);
  const kind = typeof o.kind === 'string' ? o.kind : 'object';
  const meta = rec(o.metadata);
  if (meta) {
    objectName(meta, rules, opts.namespaced ?? rules.namespaced, add);
    labelsAndAnnotations(meta, '/metadata', add);
  }
  for (const p of podSpecs(o, rules)) {
    const suffix = refusal(kind, p.refusedBy);
    const addPod: Add = suffix ? (path, message, value) => add(path, `${message}${suffix}`, value) : add;
    if (p.meta) labelsAndAnnotations(p.meta.m, p.meta.path, p.refusedBy === 'replicaset' ? addPod : add);
    podSpec(p.spec, p.path, addPod, add, version, p.addedVolumes);
    podEnvReferences(p.spec, p.path, addPod, version);
    podAffinityTerms(rec(p.spec.affinity), `${p.path}/affinity`, addPod);
    containerProbesAndResources(p.spec, p.path, addPod);
  }
  kindSpecificRules(o, add);
  if (o.kind === 'Service' && groupOf(String(o.apiVersion ?? '')) === '') {
    const names = new Set<string>();
    arr(rec(o.spec)?.ports).forEach((p, i) => {
      const name = rec(p)?.name;
      if (typeof name === 'string' && name !== '') {
        if (!isDns1123Label(name))
          add(`/spec/ports/${i}/name`, `${show(name)} is not a DNS label (core: validateServicePort)`, name);
        if (names.has(name)) add(`/spec/ports/${i}/name`, `${show(name)} is used by two ports`, name);
        names.add(name);
      }
      const target = rec(p)?.targetPort;
      if (typeof target === 'string' && !isPortName(target))
        add(
          `/spec/ports/${i}/targetPort`,
          `${show(target)} is not a port name (IANA_SVC_NAME: 1-15 lower-case letters, digits and "-", with a letter)`,
          target,
        );
    });
  }
  return out;
}

/**
 * An upper bound of the length of JSON.stringify(x), computed without building it (each string
 * counted at 6 characters per code unit, the most an escape takes, plus quotes and separators; a
 * number at 24), stopping once it passes `stop`.
 */
export function jsonSizeBound(x: unknown, stop: number): number {
  let total = 0;
  const walk = (v: unknown): void => {
    if (total > stop) return;
    if (typeof v === 'string') total += v.length * 6 + 3;
    else if (typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined) total += 25;
    else if (Array.isArray(v)) {
      total += 2;
      // one comma (or the last element's slack) per element: [{},[]] is 7 characters, not 2 + 2 + 2
      for (const e of v) {
        total += 1;
        walk(e);
      }
    } else if (typeof v === 'object') {
      total += 2;
      for (const k in v as Json) {
        total += k.length * 6 + 4;
        walk((v as Json)[k]);
      }
    } else total += 25;
  };
  walk(x);
  return total;
}

/** metadata.name by the kind's rule (and a CronJob's 52), metadata.namespace on a namespaced kind. */
function objectName(meta: Json, rules: KindRules, namespaced: boolean | undefined, add: Add): void {
  const name = meta.name;
  if (typeof name === 'string' && name !== '') {
    const problem = nameProblem(name, rules.name);
    if (problem)
      add('/metadata/name', `${show(name)} is not a valid name for this kind (${problem}; ${rules.source})`, name);
    else if (rules.maxNameLength !== undefined && name.length > rules.maxNameLength)
      add(
        '/metadata/name',
        `${show(name)} is ${name.length} characters, more than the ${rules.maxNameLength} this kind allows ` +
          `(${rules.source})`,
        name,
      );
  }
  // apimachinery v0.33.0 pkg/api/validation/objectmeta.go ValidateObjectMetaAccessor: a namespaced
  // object's namespace is ValidateNamespaceName (a DNS-1123 label)
  if (
    namespaced === true &&
    typeof meta.namespace === 'string' &&
    meta.namespace !== '' &&
    !isDns1123Label(meta.namespace)
  )
    add('/metadata/namespace', `${show(meta.namespace)} is not a DNS-1123 label`, meta.namespace);
}

/** apimachinery pkg/apis/meta/v1/validation ValidateLabels and pkg/api/validation/objectmeta.go ValidateAnnotations. */
function labelsAndAnnotations(meta: Json, path: string, add: Add): void {
  for (const [k, v] of Object.entries(rec(meta.labels) ?? {})) {
    if (!isQualifiedName(k))
      add(
        `${path}/labels/${pointerKey(k)}`,
        `the label key ${show(k)} is not a qualified name (an optional DNS-subdomain prefix and "/", then 1-63 ` +
          'letters, digits, "-", "_" or ".", starting and ending with a letter or digit)',
        k,
      );
    if (typeof v === 'string' && !isLabelValue(v))
      add(
        `${path}/labels/${pointerKey(k)}`,
        `the label value ${show(v)} is not valid (at most 63 letters, digits, "-", "_" or ".", starting and ending ` +
          'with a letter or digit)',
        v,
      );
  }
  // lower-cased keys are qualified names; keys and values at most 256 KiB in total
  let total = 0;
  for (const [k, v] of Object.entries(rec(meta.annotations) ?? {})) {
    if (!isQualifiedName(k.toLowerCase()))
      add(`${path}/annotations/${pointerKey(k)}`, `the annotation key ${show(k)} is not a qualified name`, k);
    total += Buffer.byteLength(k) + (typeof v === 'string' ? Buffer.byteLength(v) : 0);
  }
  if (total > TOTAL_ANNOTATION_BYTES)
    add(
      `${path}/annotations`,
      `the annotations are ${total} bytes, more than the API server's total of ${TOTAL_ANNOTATION_BYTES} (256 KiB)`,
    );
}

/**
 * core ValidatePodSpec and what it calls, on a pod spec: `add` for what the API server refuses,
 * `kubelet` for what the kubelet refuses once the pod exists (the image reference).
 * `addedVolumes` are volumes the controller adds to each pod (a StatefulSet's claim templates).
 */
function podSpec(
  spec: Json,
  path: string,
  add: Add,
  kubelet: Add,
  version: KubernetesVersion,
  addedVolumes: readonly string[],
): void {
  const volumes = new Set<string>();
  arr(spec.volumes).forEach((v, i) => {
    const name = rec(v)?.name;
    if (typeof name !== 'string') return;
    if (!isDns1123Label(name))
      add(`${path}/volumes/${i}/name`, `${show(name)} is not a DNS-1123 label (core: ValidateVolumes)`, name);
    if (volumes.has(name)) add(`${path}/volumes/${i}/name`, `the volume name ${show(name)} is used twice`, name);
    volumes.add(name);
  });
  for (const v of addedVolumes) volumes.add(v);
  const containerNames = new Set<string>();
  for (const list of ['initContainers', 'containers'] as const) {
    arr(spec[list]).forEach((c0, i) => {
      const c = rec(c0);
      if (!c) return;
      const cp = `${path}/${list}/${i}`;
      const name = c.name;
      if (typeof name === 'string') {
        if (!isDns1123Label(name)) add(`${cp}/name`, `${show(name)} is not a DNS-1123 label`, name);
        if (containerNames.has(name))
          add(`${cp}/name`, `the container name ${show(name)} is used twice in the pod`, name);
        containerNames.add(name);
      }
      if (typeof c.image === 'string') {
        const problem = imageReferenceProblem(c.image);
        if (problem)
          kubelet(
            `${cp}/image`,
            `the image ${show(c.image)} ${problem}: the pod would fail with InvalidImageName`,
            c.image,
          );
      }
      container(c, cp, volumes, addedVolumes.length > 0, add, version);
    });
  }
  arr(spec.tolerations).forEach((t0, i) => tolerations(rec(t0), `${path}/tolerations/${i}`, add));
  affinity(rec(spec.affinity), `${path}/affinity`, add);
  for (const [k, v] of Object.entries(rec(spec.nodeSelector) ?? {})) {
    if (!isQualifiedName(k))
      add(`${path}/nodeSelector/${k}`, `the node selector key ${show(k)} is not a qualified name`, k);
    if (typeof v === 'string' && !isLabelValue(v))
      add(`${path}/nodeSelector/${k}`, `the node selector value ${show(v)} is not a label value`, v);
  }
  if (
    typeof spec.serviceAccountName === 'string' &&
    spec.serviceAccountName !== '' &&
    !isDns1123Subdomain(spec.serviceAccountName)
  )
    add(
      `${path}/serviceAccountName`,
      `${show(spec.serviceAccountName)} is not a DNS-1123 subdomain`,
      spec.serviceAccountName,
    );
  if (
    typeof spec.priorityClassName === 'string' &&
    spec.priorityClassName !== '' &&
    !isDns1123Subdomain(spec.priorityClassName)
  )
    add(
      `${path}/priorityClassName`,
      `${show(spec.priorityClassName)} is not a DNS-1123 subdomain`,
      spec.priorityClassName,
    );
}

function container(
  c: Json,
  cp: string,
  volumes: Set<string>,
  claimTemplates: boolean,
  add: Add,
  version: KubernetesVersion,
): void {
  // core validateEnv: names by IsEnvVarName, or IsRelaxedEnvVarName once RelaxedEnvironmentVariableValidation is on by
  // default (1.32+)
  const relaxed = version.minor >= 32;
  arr(c.env).forEach((e0, j) => {
    const name = rec(e0)?.name;
    if (typeof name !== 'string') return;
    if (name === '' || !(relaxed ? RELAXED_ENV_VAR_NAME : ENV_VAR_NAME).test(name)) {
      add(
        `${cp}/env/${j}/name`,
        `${show(name)} is not a valid environment variable name ` +
          `(${
            relaxed ? 'printable ASCII other than "="' : 'letters, digits, "_", "-" or ".", not starting with a digit'
          }, ` +
          `Kubernetes ${version.name})`,
        name,
      );
    }
    for (const ref of ['configMapKeyRef', 'secretKeyRef'] as const) {
      const key = rec(rec(rec(e0)?.valueFrom)?.[ref])?.key;
      if (typeof key === 'string' && !(key.length <= 253 && CONFIG_MAP_KEY.test(key)))
        add(`${cp}/env/${j}/valueFrom/${ref}/key`, `${show(key)} is not a valid ConfigMap or Secret key`, key);
    }
  });
  const ports = new Set<string>();
  arr(c.ports).forEach((p0, j) => {
    const name = rec(p0)?.name;
    if (typeof name === 'string' && name !== '') {
      if (!isPortName(name))
        add(
          `${cp}/ports/${j}/name`,
          `${show(name)} is not a port name (IANA_SVC_NAME: 1-15 lower-case letters, digits and "-", with a letter)`,
          name,
        );
      if (ports.has(name))
        add(`${cp}/ports/${j}/name`, `the port name ${show(name)} is used twice in the container`, name);
      ports.add(name);
    }
  });
  // core ValidateVolumeMounts: the volume exists, mountPath is set and unique within the container
  const paths = new Set<string>();
  arr(c.volumeMounts).forEach((m0, j) => {
    const m = rec(m0);
    if (!m) return;
    if (typeof m.name === 'string' && !volumes.has(m.name))
      add(
        `${cp}/volumeMounts/${j}/name`,
        `the volume ${show(m.name)} is not a volume of the pod${claimTemplates ? ' nor a volumeClaimTemplate' : ''}`,
        m.name,
      );
    const p = m.mountPath;
    if (typeof p !== 'string') return;
    if (p === '') add(`${cp}/volumeMounts/${j}/mountPath`, 'is required');
    const norm = p.replace(/\/+$/, '') || '/';
    if (paths.has(norm))
      add(
        `${cp}/volumeMounts/${j}/mountPath`,
        `${show(p)} is mounted twice in the container (mountPath must be unique)`,
        p,
      );
    paths.add(norm);
    // Not an API-server rule: a volume mounted at "/" would hide the image's whole file system, and
    // container runtimes refuse a mount over the container's root.
    if (norm === '/')
      add(
        `${cp}/volumeMounts/${j}/mountPath`,
        '"/" would mount the volume over the container\'s root file system; the container runtime refuses it',
        p,
      );
    if (typeof m.subPath === 'string' && (m.subPath.startsWith('/') || m.subPath.split('/').includes('..')))
      add(
        `${cp}/volumeMounts/${j}/subPath`,
        `${show(m.subPath)} must be a relative path without ".." (core: validateLocalDescendingPath)`,
        m.subPath,
      );
  });
  const res = rec(c.resources);
  for (const kind of ['requests', 'limits'] as const) {
    for (const [k, v] of Object.entries(rec(res?.[kind]) ?? {})) {
      if (typeof v === 'string' && !QUANTITY.test(v))
        add(`${cp}/resources/${kind}/${k}`, `${show(v)} is not a Kubernetes quantity`, v);
    }
  }
}

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** core validateTolerations (unchanged from v1.28.0 to v1.33.0). */
function tolerations(t: Json | undefined, p: string, add: Add): void {
  if (!t) return;
  const key = typeof t.key === 'string' ? t.key : '';
  const op = typeof t.operator === 'string' ? t.operator : '';
  if (key !== '' && !isQualifiedName(key)) add(`${p}/key`, `${show(key)} is not a qualified name (a label key)`, key);
  if (key === '' && op !== 'Exists')
    add(`${p}/operator`, 'operator must be Exists when key is empty (which means "match all values and all keys")');
  if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && t.effect !== 'NoExecute')
    add(`${p}/effect`, 'effect must be NoExecute when tolerationSeconds is set');
  if (op === 'Equal' || op === '') {
    if (typeof t.value === 'string' && !isLabelValue(t.value))
      add(`${p}/value`, `${show(t.value)} is not a label value`, t.value);
  } else if (op === 'Exists') {
    if (typeof t.value === 'string' && t.value !== '') add(`${p}/value`, 'value must be empty when operator is Exists');
  } else add(`${p}/operator`, `${show(op)} is not supported (Equal or Exists)`, op);
  if (typeof t.effect === 'string' && t.effect !== '' && !TAINT_EFFECTS.includes(t.effect))
    add(`${p}/effect`, `${show(t.effect)} is not supported (${TAINT_EFFECTS.join(', ')})`, t.effect);
}

/** core ValidateNodeSelectorRequirement and apimachinery ValidateLabelSelectorRequirement (metav1 validation). */
function affinity(a: Json | undefined, p: string, add: Add): void {
  if (!a) return;
  const node = rec(a.nodeAffinity);
  const nodeTerms = [
    ...arr(rec(node?.requiredDuringSchedulingIgnoredDuringExecution)?.nodeSelectorTerms).map((t, i) => ({
      t: rec(t),
      at: `${p}/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/${i}`,
    })),
    ...arr(node?.preferredDuringSchedulingIgnoredDuringExecution).map((w, i) => ({
      t: rec(rec(w)?.preference),
      at: `${p}/nodeAffinity/preferredDuringSchedulingIgnoredDuringExecution/${i}/preference`,
    })),
  ];
  for (const { t, at } of nodeTerms) {
    for (const field of ['matchExpressions', 'matchFields'] as const) {
      arr(t?.[field]).forEach((r0, i) => {
        const r = rec(r0) ?? {};
        const rp = `${at}/${field}/${i}`;
        const values = arr(r.values);
        if (typeof r.key === 'string' && field === 'matchExpressions' && !isQualifiedName(r.key))
          add(`${rp}/key`, `${show(r.key)} is not a qualified name`, r.key);
        switch (r.operator) {
          case 'In':
          case 'NotIn':
            if (values.length === 0) add(`${rp}/values`, `must be specified when operator is ${r.operator}`);
            break;
          case 'Exists':
          case 'DoesNotExist':
            if (values.length > 0) add(`${rp}/values`, `may not be specified when operator is ${r.operator}`);
            break;
          case 'Gt':
          case 'Lt':
            if (values.length !== 1 || !/^-?[0-9]+$/.test(String(values[0])))
              add(`${rp}/values`, `must be one integer when operator is ${r.operator}`, values);
            break;
          default:
            add(
              `${rp}/operator`,
              `${show(r.operator)} is not a valid node selector operator (In, NotIn, Exists, DoesNotExist, Gt, Lt)`,
              r.operator,
            );
        }
      });
    }
  }
  for (const kind of ['podAffinity', 'podAntiAffinity'] as const) {
    const pa = rec(a[kind]);
    const terms = [
      ...arr(pa?.requiredDuringSchedulingIgnoredDuringExecution).map((t, i) => ({
        t: rec(t),
        at: `${p}/${kind}/requiredDuringSchedulingIgnoredDuringExecution/${i}`,
      })),
      ...arr(pa?.preferredDuringSchedulingIgnoredDuringExecution).map((w, i) => ({
        t: rec(rec(w)?.podAffinityTerm),
        at: `${p}/${kind}/preferredDuringSchedulingIgnoredDuringExecution/${i}/podAffinityTerm`,
      })),
    ];
    for (const { t, at } of terms) {
      if (!t) continue;
      if (typeof t.topologyKey !== 'string' || !isQualifiedName(t.topologyKey))
        add(`${at}/topologyKey`, `${show(t.topologyKey)} must be a qualified name (a node label key)`, t.topologyKey);
      arr(rec(t.labelSelector)?.matchExpressions).forEach((r0, i) => {
        const r = rec(r0) ?? {};
        const rp = `${at}/labelSelector/matchExpressions/${i}`;
        const values = arr(r.values);
        if (r.operator === 'In' || r.operator === 'NotIn') {
          if (values.length === 0) add(`${rp}/values`, `must be specified when operator is ${r.operator}`);
        } else if (r.operator === 'Exists' || r.operator === 'DoesNotExist') {
          if (values.length > 0) add(`${rp}/values`, `may not be specified when operator is ${r.operator}`);
        } else
          add(
            `${rp}/operator`,
            `${show(r.operator)} is not a valid label selector operator (In, NotIn, Exists, DoesNotExist)`,
            r.operator,
          );
      });
    }
  }
}

/**
 * apimachinery pkg/util/validation/validation.go hasChDirPrefix, which IsEnvVarName and
 * IsConfigMapKey add to their patterns: ".", ".." and names starting with ".." are refused (a key
 * becomes a file name in a volume, and these would walk out of it). IsRelaxedEnvVarName (1.32+)
 * does not call it. Read in the stored kubernetes/kubernetes copy of staging apimachinery (the
 * 1.30+ file that has IsRelaxedEnvVarName); the function is the same in v0.28.0.
 */
export function chDirPrefixProblem(v: string): string | undefined {
  if (v === '.') return 'must not be "."';
  if (v === '..') return 'must not be ".."';
  if (v.startsWith('..')) return 'must not start with ".."';
  return undefined;
}

/**
 * The downward-API field paths an env var may read (core validation.go
 * validEnvDownwardAPIFieldPathExpressions, read in the stored kubernetes/kubernetes copy, a
 * 1.33-era file with AllowRelaxedEnvironmentVariableValidation): status.hostIPs is in the list from
 * 1.29, when PodHostIPs went beta (at 1.28 it is alpha, off by default, and the API server
 * refuses it: PodValidationOptions.AllowHostIPsField follows the gate).
 */
function envFieldPaths(version: KubernetesVersion): string[] {
  return [
    'metadata.name',
    'metadata.namespace',
    'metadata.uid',
    'spec.nodeName',
    'spec.serviceAccountName',
    'status.hostIP',
    'status.podIP',
    'status.podIPs',
    ...(version.minor >= 29 ? ['status.hostIPs'] : []),
  ];
}

/**
 * core validateObjectFieldSelector: a subscripted path (fieldpath.SplitMaybeSubscriptedPath,
 * `path['key']`) is allowed for metadata.labels (the key a qualified name) and
 * metadata.annotations (the lower-cased key a qualified name); any other path must be one of the
 * expressions. Returns the problem, or undefined.
 */
export function envFieldPathProblem(fieldPath: string, version: KubernetesVersion): string | undefined {
  if (fieldPath === '') return 'is required';
  if (fieldPath.endsWith("']")) {
    const parts = fieldPath.slice(0, -2).split("['");
    if (parts.length >= 2 && parts[0] !== '') {
      const [base, ...rest] = parts;
      const key = rest.join("['");
      if (base === 'metadata.labels')
        return isQualifiedName(key) ? undefined : `the label key ${show(key)} is not a ` + 'qualified name';
      if (base === 'metadata.annotations')
        return isQualifiedName(key.toLowerCase())
          ? undefined
          : `the annotation key ${show(key)} is not ` + 'a qualified name';
      return (
        `${show(base)} does not support a subscript (only metadata.labels['<key>'] and ` +
        `metadata.annotations['<key>'] do)`
      );
    }
  }
  const allowed = envFieldPaths(version);
  return allowed.includes(fieldPath)
    ? undefined
    : `${show(fieldPath)} is not supported ` +
        `(Kubernetes ${version.name}: ${allowed.join(', ')}, metadata.labels['<key>'] or metadata.annotations['<key>'])`;
}

/**
 * Env vars and envFrom of every container, as core ValidateEnv / ValidateEnvFrom check them
 * beyond the name pattern builtinProblems already applies: hasChDirPrefix on names and
 * envFrom prefixes (strict IsEnvVarName, before RelaxedEnvironmentVariableValidation is on by
 * default in 1.32), on configMapKeyRef and secretKeyRef keys (IsConfigMapKey, always), and the
 * fieldRef paths (validateObjectFieldSelector).
 */
function podEnvReferences(
  spec: Json,
  path: string,
  add: (p: string, m: string) => void,
  version: KubernetesVersion,
): void {
  const strict = version.minor < 32;
  for (const list of ['initContainers', 'containers'] as const) {
    arr(spec[list]).forEach((c0, i) => {
      const c = rec(c0);
      if (!c) return;
      const cp = `${path}/${list}/${i}`;
      arr(c.env).forEach((e0, j) => {
        const e = rec(e0);
        if (!e) return;
        const name = e.name;
        const chdir =
          typeof name === 'string' && strict && ENV_VAR_NAME.test(name) ? chDirPrefixProblem(name) : undefined;
        if (chdir)
          add(
            `${cp}/env/${j}/name`,
            `${show(name)} is not a valid environment variable name: it ${chdir} (apimachinery IsEnvVarName, ` +
              `Kubernetes ${version.name})`,
          );
        for (const ref of ['configMapKeyRef', 'secretKeyRef'] as const) {
          const key = rec(rec(e.valueFrom)?.[ref])?.key;
          const p =
            typeof key === 'string' && key.length <= 253 && CONFIG_MAP_KEY.test(key)
              ? chDirPrefixProblem(key)
              : undefined;
          if (p)
            add(
              `${cp}/env/${j}/valueFrom/${ref}/key`,
              `${show(key)} is not a valid ConfigMap or Secret key: it ${p} (apimachinery IsConfigMapKey)`,
            );
        }
        const fieldRef = rec(rec(e.valueFrom)?.fieldRef);
        if (fieldRef && typeof fieldRef.fieldPath === 'string') {
          const p = envFieldPathProblem(fieldRef.fieldPath, version);
          if (p)
            add(
              `${cp}/env/${j}/valueFrom/fieldRef/fieldPath`,
              `the downward-API field path ${p} (core: validateObjectFieldSelector)`,
            );
        }
      });
      arr(c.envFrom).forEach((f0, j) => {
        const prefix = rec(f0)?.prefix;
        if (typeof prefix !== 'string' || prefix === '') return;
        const bad = strict
          ? !ENV_VAR_NAME.test(prefix)
            ? 'is not letters, digits, "_", "-" or ".", not starting ' + 'with a digit'
            : chDirPrefixProblem(prefix)
          : RELAXED_ENV_VAR_NAME.test(prefix)
            ? undefined
            : 'is not printable ASCII other than "="';
        if (bad)
          add(
            `${cp}/envFrom/${j}/prefix`,
            'the envFrom ' +
              `prefix ${show(prefix)} ${
                bad.startsWith('must') ? `is not a valid environment variable name: it ${bad}` : bad
              } ` +
              `(core: ValidateEnvFrom, Kubernetes ${version.name})`,
          );
      });
    });
  }
}

/**
 * Node and pod affinity as core validation.go checks it beyond the operators (read in the stored
 * kubernetes/kubernetes copy; unchanged from 1.28): ValidateNodeSelector wants at least one
 * nodeSelectorTerm when requiredDuringScheduling... is set; ValidateNodeFieldSelectorRequirement
 * allows matchFields only on "metadata.name" (nodeFieldSelectorValidators) with In or NotIn and
 * exactly one value, a node name; ValidatePreferredSchedulingTerms and
 * validateWeightedPodAffinityTerms want each weight in 1-100.
 */
function podAffinityTerms(a: Json | undefined, p: string, add: (p: string, m: string) => void): void {
  if (!a) return;
  const node = rec(a.nodeAffinity);
  const required = rec(node?.requiredDuringSchedulingIgnoredDuringExecution);
  if (required && arr(required.nodeSelectorTerms).length === 0) {
    add(
      `${p}/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms`,
      'must have at least one node selector term (core: ValidateNodeSelector); an empty list matches no node, so no ' +
        'pod could be scheduled',
    );
  }
  const terms = [
    ...arr(required?.nodeSelectorTerms).map((t, i) => ({
      t: rec(t),
      at: `${p}/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/${i}`,
    })),
    ...arr(node?.preferredDuringSchedulingIgnoredDuringExecution).map((w, i) => ({
      t: rec(rec(w)?.preference),
      at: `${p}/nodeAffinity/preferredDuringSchedulingIgnoredDuringExecution/${i}/preference`,
    })),
  ];
  for (const { t, at } of terms) {
    arr(t?.matchFields).forEach((r0, i) => {
      const r = rec(r0) ?? {};
      const rp = `${at}/matchFields/${i}`;
      if (r.key !== 'metadata.name')
        add(
          `${rp}/key`,
          `${show(r.key)} is not a valid field selector key: node affinity matchFields supports only "metadata.name" ` +
            '(core: ValidateNodeFieldSelectorRequirement)',
        );
      if (['Exists', 'DoesNotExist', 'Gt', 'Lt'].includes(String(r.operator)))
        add(`${rp}/operator`, `${show(r.operator)} is not allowed for a node field selector (In or NotIn)`);
      const values = arr(r.values);
      if ((r.operator === 'In' || r.operator === 'NotIn') && values.length > 1)
        add(`${rp}/values`, `must be exactly one value when operator is ${r.operator} for a node field selector`);
      values.forEach((v, j) => {
        if (r.key === 'metadata.name' && typeof v === 'string' && !isDns1123Subdomain(v))
          add(`${rp}/values/${j}`, `${show(v)} is not a node name (a DNS-1123 subdomain)`);
      });
    });
  }
  const weights: { w: unknown; at: string }[] = [
    ...arr(node?.preferredDuringSchedulingIgnoredDuringExecution).map((w, i) => ({
      w: rec(w)?.weight,
      at: `${p}/nodeAffinity/preferredDuringSchedulingIgnoredDuringExecution/${i}/weight`,
    })),
    ...(['podAffinity', 'podAntiAffinity'] as const).flatMap((k) =>
      arr(rec(a[k])?.preferredDuringSchedulingIgnoredDuringExecution).map((w, i) => ({
        w: rec(w)?.weight,
        at: `${p}/${k}/preferredDuringSchedulingIgnoredDuringExecution/${i}/weight`,
      })),
    ),
  ];
  for (const { w, at } of weights) {
    if (typeof w === 'number' && !(w >= 1 && w <= 100))
      add(
        at,
        `${w} must be in the range 1-100 (core: ValidatePreferredSchedulingTerms, validateWeightedPodAffinityTerms)`,
      );
  }
}

/** core types.go MaxSecretSize: the most a ConfigMap's or Secret's data may hold, 1 MiB. */
export const MAX_SECRET_SIZE = 1024 * 1024;

const QUANTITY_SUFFIX: Record<string, number> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** A quantity's value as a number (apimachinery resource.ParseQuantity's grammar), or undefined when it is not one. */
export function quantityValue(q: unknown): number | undefined {
  if (typeof q === 'number') return Number.isFinite(q) ? q : undefined;
  if (typeof q !== 'string') return undefined;
  const m = /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:[eE]([+-]?[0-9]+)|([KMGTPE]i|[numkMGTPE]))?$/.exec(q);
  if (!m) return undefined;
  return Number(m[1]) * (m[2] !== undefined ? 10 ** Number(m[2]) : QUANTITY_SUFFIX[m[3] ?? '']);
}

/**
 * Probes and resources of every container, as core validation.go checks them (read in the stored
 * kubernetes/kubernetes copy; the same rules at v1.28.0, where validateContainers tests
 * LivenessProbe/StartupProbe.SuccessThreshold inline): validateLivenessProbe and
 * validateStartupProbe want successThreshold 1 (regular containers and restartable init
 * containers); validateResourceRequirements wants each request at most its limit, and equal to it
 * for a resource that cannot be overcommitted (hugepages-*, extended resources: a limit is then
 * required), helper.IsOvercommitAllowed.
 */
function containerProbesAndResources(spec: Json, path: string, add: (p: string, m: string) => void): void {
  for (const list of ['initContainers', 'containers'] as const) {
    arr(spec[list]).forEach((c0, i) => {
      const c = rec(c0);
      if (!c) return;
      const cp = `${path}/${list}/${i}`;
      if (list === 'containers' || c.restartPolicy === 'Always') {
        for (const probe of ['livenessProbe', 'startupProbe'] as const) {
          const st = rec(c[probe])?.successThreshold;
          if (st !== undefined && st !== null && st !== 1)
            add(
              `${cp}/${probe}/successThreshold`,
              `${show(st)} must be 1 for a ${probe === 'livenessProbe' ? 'liveness' : 'startup'} probe (core: ` +
                `validate${probe === 'livenessProbe' ? 'Liveness' : 'Startup'}Probe)`,
            );
        }
      }
      const res = rec(c.resources);
      const limits = rec(res?.limits) ?? {};
      for (const [name, request] of Object.entries(rec(res?.requests) ?? {})) {
        const native = !name.includes('/') || name.includes('kubernetes.io/');
        const overcommit = native && !name.startsWith('hugepages-');
        const r = quantityValue(request);
        if (!(name in limits)) {
          if (!overcommit)
            add(
              `${cp}/resources/limits`,
              `a limit must be set for ${show(name)}, a resource that cannot be overcommitted (core: ` +
                'validateResourceRequirements)',
            );
          continue;
        }
        const l = quantityValue(limits[name]);
        if (r === undefined || l === undefined) continue;
        if (!overcommit && r !== l)
          add(
            `${cp}/resources/requests/${name}`,
            `the request ${show(request)} must equal the limit ${show(limits[name])} for ${show(name)}, a resource ` +
              'that cannot be overcommitted (core: validateResourceRequirements)',
          );
        else if (r > l)
          add(
            `${cp}/resources/requests/${name}`,
            `the request ${show(request)} must be less than or equal to the ${name} limit ${show(limits[name])} ` +
              `(resources.limits.${name}; core: validateResourceRequirements)`,
          );
      }
    });
  }
}

/** Standard base64 with padding, as Go's encoding/json decodes a []byte field (\r and \n are skipped). */
function isBase64(v: string): boolean {
  return /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(v.replace(/[\r\n]/g, ''));
}

function base64Bytes(v: string): number {
  const t = v.replace(/[\r\n]/g, '');
  return (t.length / 4) * 3 - (t.endsWith('==') ? 2 : t.endsWith('=') ? 1 : 0);
}

/**
 * apimachinery IsConfigMapKey: at most 253 of [-._a-zA-Z0-9], not ".", "..", or starting "..". Returns the problem or
 * undefined.
 */
export function configMapKeyProblem(key: string): string | undefined {
  if (key.length > 253) return 'is longer than 253 characters';
  if (!CONFIG_MAP_KEY.test(key)) return 'must consist of letters, digits, "-", "_" or "."';
  return chDirPrefixProblem(key);
}

/** The values of the Service spec.type (core ValidateService supportedServiceType). */
const SERVICE_TYPES = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'];

/**
 * Kinds whose pod template must carry the selector's labels (apps validation ValidateDeploymentSpec,
 * ValidateReplicaSetSpec, ValidateDaemonSetSpec).
 */
const SELECTOR_TEMPLATE_KINDS: Record<string, string> = {
  'apps/Deployment': 'ValidateDeploymentSpec',
  'apps/ReplicaSet': 'ValidateReplicaSetSpec',
  'apps/DaemonSet': 'ValidateDaemonSetSpec',
};

/** Whether a label selector (matchLabels and matchExpressions) selects `labels`; undefined when it is malformed. */
function selects(selector: Json, labels: Record<string, unknown>): boolean | undefined {
  for (const [k, v] of Object.entries(rec(selector.matchLabels) ?? {})) if (labels[k] !== v) return false;
  for (const e0 of arr(selector.matchExpressions)) {
    const e = rec(e0);
    if (!e || typeof e.key !== 'string') return undefined;
    const values = arr(e.values);
    const has = Object.prototype.hasOwnProperty.call(labels, e.key);
    switch (e.operator) {
      case 'In':
        if (!has || !values.includes(labels[e.key])) return false;
        break;
      case 'NotIn':
        if (has && values.includes(labels[e.key])) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return undefined;
    }
  }
  return true;
}

/**
 * Rules of single kinds, read in the stored kubernetes/kubernetes copies (core validation.go, a
 * 1.33-era file; apps and batch validation; the same rules at v1.28.0):
 * - Service: spec.type one of ClusterIP, NodePort, LoadBalancer, ExternalName (ValidateService).
 * - ConfigMap: data and binaryData keys by IsConfigMapKey, no key in both, binaryData base64, the
 *   values at most MaxSecretSize (1 MiB) in all (ValidateConfigMap).
 * - Secret: data values base64 (the JSON decoder of a []byte field refuses anything else before
 *   validation), data and stringData keys by IsConfigMapKey, at most 1 MiB in all (ValidateSecret;
 *   stringData is merged into data first).
 * - Deployment, ReplicaSet, DaemonSet: a non-empty selector that selects the pod template's labels
 *   ("`selector` does not match template `labels`"), and a template with restartPolicy Always and
 *   no activeDeadlineSeconds (ValidatePodTemplateSpecForReplicaSet).
 * - CronJob: spec.schedule as robfig/cron v3.0.1 ParseStandard parses it, and no TZ/CRON_TZ in it
 *   on create (batch validateScheduleFormat).
 * - Namespace: the Pod Security labels as the pod-security-admission plugin reads them on create
 *   (admission.go ValidateNamespace -> api PolicyToEvaluate: levels privileged, baseline,
 *   restricted; versions "latest" or "v1.<n>"); an invalid one refuses the Namespace.
 */
function kindSpecificRules(o: Json, add: Add): void {
  const group = typeof o.apiVersion === 'string' && o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : '';
  const spec = rec(o.spec);
  if (
    group === '' &&
    o.kind === 'Service' &&
    spec &&
    spec.type !== undefined &&
    !SERVICE_TYPES.includes(String(spec.type))
  ) {
    add('/spec/type', `${show(spec.type)} is not supported (${SERVICE_TYPES.join(', ')}; core: ValidateService)`);
  }
  if (group === '' && (o.kind === 'ConfigMap' || o.kind === 'Secret')) dataRules(o, add);
  if (group === '' && o.kind === 'Namespace') {
    for (const p of podSecurityLabelProblems(rec(rec(o.metadata)?.labels) ?? {}))
      add(`/metadata/labels/${p.key}`, p.message);
  }
  const rule = SELECTOR_TEMPLATE_KINDS[`${group}/${String(o.kind)}`];
  if (rule && spec) {
    const selector = rec(spec.selector);
    const tmpl = rec(spec.template);
    if (!selector) add('/spec/selector', `is required (apps: ${rule})`);
    else if (Object.keys(rec(selector.matchLabels) ?? {}).length + arr(selector.matchExpressions).length === 0)
      add('/spec/selector', `an empty selector is invalid (it would select every pod of the namespace; apps: ${rule})`);
    else if (selects(selector, rec(rec(tmpl?.metadata)?.labels) ?? {}) === false)
      add(
        '/spec/template/metadata/labels',
        `${show(rec(rec(tmpl?.metadata)?.labels) ?? {})} is not selected by spec.selector ${show(selector)}: ` +
          `"\`selector\` does not match template \`labels\`" (apps: ${rule}); the controller could not own the pods it ` +
          'creates',
      );
    const ps = rec(tmpl?.spec);
    if (ps && ps.restartPolicy !== undefined && ps.restartPolicy !== 'Always')
      add(
        '/spec/template/spec/restartPolicy',
        `${show(ps.restartPolicy)} is not supported for a ${String(o.kind)}'s pods (Always; apps: ` +
          'ValidatePodTemplateSpecForReplicaSet)',
      );
    if (ps && ps.activeDeadlineSeconds !== undefined && ps.activeDeadlineSeconds !== null)
      add(
        '/spec/template/spec/activeDeadlineSeconds',
        `is forbidden for a ${String(o.kind)}'s pods (apps: ValidatePodTemplateSpecForReplicaSet)`,
      );
  }
  if (group === 'batch' && o.kind === 'CronJob' && spec && typeof spec.schedule === 'string') {
    const p = cronScheduleProblem(spec.schedule);
    if (p) add('/spec/schedule', `${show(spec.schedule)} ${p} (batch: validateScheduleFormat)`);
  }
}

function dataRules(o: Json, add: Add): void {
  let total = 0;
  const data = rec(o.data) ?? {};
  const keyRule = o.kind === 'Secret' ? 'ValidateSecret' : 'ValidateConfigMap';
  const stringData = o.kind === 'Secret' ? (rec(o.stringData) ?? {}) : {};
  for (const [k, v] of Object.entries(data)) {
    const p = configMapKeyProblem(k);
    if (p) add(`/data/${k}`, `the key ${show(k)} ${p} (apimachinery IsConfigMapKey; core: ${keyRule})`);
    if (typeof v !== 'string') continue;
    if (o.kind === 'Secret') {
      if (!isBase64(v))
        add(
          `/data/${k}`,
          "is not base64: a Secret's data values are base64-encoded bytes, and the API server refuses the request " +
            'when one does not decode ("illegal base64 data"); put plain text in stringData',
          v,
        );
      else if (!(k in stringData)) total += base64Bytes(v);
    } else total += Buffer.byteLength(v);
  }
  for (const [k, v] of Object.entries(stringData)) {
    const p = configMapKeyProblem(k);
    if (p) add(`/stringData/${k}`, `the key ${show(k)} ${p} (apimachinery IsConfigMapKey; core: ValidateSecret)`);
    if (typeof v === 'string') total += Buffer.byteLength(v);
  }
  if (o.kind === 'ConfigMap') {
    for (const [k, v] of Object.entries(rec(o.binaryData) ?? {})) {
      const p = configMapKeyProblem(k);
      if (p) add(`/binaryData/${k}`, `the key ${show(k)} ${p} (apimachinery IsConfigMapKey; core: ValidateConfigMap)`);
      if (k in data)
        add(
          `/data/${k}`,
          `the key ${show(k)} is also in binaryData (core: ValidateConfigMap, "duplicate of key present in binaryData")`,
        );
      if (typeof v !== 'string') continue;
      if (!isBase64(v))
        add(
          `/binaryData/${k}`,
          'is not base64 (binaryData values are base64-encoded bytes; the API server refuses the request)',
          v,
        );
      else total += base64Bytes(v);
    }
  }
  if (total > MAX_SECRET_SIZE)
    add(
      '/',
      `the ${String(o.kind)}'s data is ${total} bytes, more than the 1 MiB (${MAX_SECRET_SIZE} bytes) the API server ` +
        `allows (core: ${keyRule}, MaxSecretSize)`,
    );
}

/**
 * Pod Security admission's namespace labels that would refuse the namespace (pod-security-admission
 * api/helpers.go PolicyToEvaluate, ParseLevel, ParseVersion; admission.go ValidateNamespace
 * "require valid labels on create"), read in the stored kubernetes/kubernetes staging copy; the
 * same at 1.28 and 1.33. Also used for the labels Argo CD puts on a namespace it creates.
 */
export function podSecurityLabelProblems(labels: Record<string, unknown>): { key: string; message: string }[] {
  const out: { key: string; message: string }[] = [];
  for (const mode of ['enforce', 'audit', 'warn']) {
    const level = labels[`pod-security.kubernetes.io/${mode}`];
    if (level !== undefined && !['privileged', 'baseline', 'restricted'].includes(String(level))) {
      out.push({
        key: `pod-security.kubernetes.io/${mode}`,
        message:
          `${show(level)} is not a Pod Security level (privileged, baseline or restricted): the PodSecurity admission ` +
          'plugin refuses the namespace (pod-security-admission ValidateNamespace)',
      });
    }
    const version = labels[`pod-security.kubernetes.io/${mode}-version`];
    if (version !== undefined && version !== 'latest' && !/^v1\.([0-9]|[1-9][0-9]*)$/.test(String(version))) {
      out.push({
        key: `pod-security.kubernetes.io/${mode}-version`,
        message:
          `${show(version)} is not "latest" or "v1.<minor>": the PodSecurity admission plugin refuses the namespace ` +
          '(pod-security-admission ValidateNamespace)',
      });
    }
  }
  return out;
}

const CRON_FIELDS: readonly { name: string; min: number; max: number; names?: readonly string[] }[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  {
    name: 'month',
    min: 1,
    max: 12,
    names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'],
  },
  { name: 'day of week', min: 0, max: 6, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

/**
 * A CronJob schedule as the API server parses it on create: robfig/cron v3.0.1 ParseStandard
 * (parser.go: five whitespace-separated fields, each a comma list of `*`/`?`, a number or a name,
 * a range, each with an optional /step; or a descriptor @yearly, @annually, @monthly, @weekly,
 * @daily, @midnight, @hourly, @every <Go duration>), then batch validateScheduleFormat refuses
 * any "TZ" in it (use spec.timeZone). Returns the problem, or undefined.
 */
export function cronScheduleProblem(schedule: string): string | undefined {
  if (schedule === '') return 'is empty';
  if (schedule.includes('TZ'))
    return (
      'contains TZ or CRON_TZ: the API server refuses a time zone in the schedule on ' + 'create (use spec.timeZone)'
    );
  if (schedule.startsWith('@')) {
    if (['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'].includes(schedule))
      return undefined;
    if (schedule.startsWith('@every '))
      return /^[-+]?(0|([0-9]*(\.[0-9]*)?(ns|us|µs|μs|ms|s|m|h))+)$/.test(schedule.slice(7)) &&
        /[0-9]/.test(schedule.slice(7))
        ? undefined
        : 'is not a Go duration after "@every"';
    return (
      'is not a known descriptor (@yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly, @every ' +
      '<duration>)'
    );
  }
  const fields = schedule.split(/[ \t\n\r\v\f]+/).filter(Boolean);
  if (fields.length !== 5)
    return (
      'is not a cron schedule: expected exactly 5 fields (minute hour day-of-month month ' +
      `day-of-week), found ${fields.length}`
    );
  for (let f = 0; f < 5; f++) {
    const b = CRON_FIELDS[f];
    const num = (x: string): number | undefined => {
      const i = b.names?.indexOf(x.toLowerCase()) ?? -1;
      if (i >= 0) return i + b.min;
      return /^[+-]?[0-9]+$/.test(x) && Number(x) >= 0 ? Number(x) : undefined;
    };
    for (const expr of fields[f].split(',').filter((x) => x !== '')) {
      const [range, step, ...extraSlash] = expr.split('/');
      if (extraSlash.length > 0) return `has too many slashes in ${b.name} "${expr}"`;
      const lohi = range.split('-');
      let start: number | undefined;
      let end: number | undefined;
      if (lohi[0] === '*' || lohi[0] === '?') {
        start = b.min;
        end = b.max;
      } else {
        if (lohi.length > 2) return `has too many hyphens in ${b.name} "${expr}"`;
        start = num(lohi[0]);
        end = lohi.length === 2 ? num(lohi[1]) : start;
        if (start === undefined || end === undefined)
          return (
            `has "${expr}" where the ${b.name} must be a ` + `number${b.names ? ' or a name' : ''}, a range or "*"`
          );
      }
      if (step !== undefined) {
        if (!/^[+-]?[0-9]+$/.test(step) || Number(step) < 0)
          return `has the step "${step}" in ${b.name} "${expr}", ` + 'not a number';
        if (lohi.length === 1 && lohi[0] !== '*' && lohi[0] !== '?') end = b.max;
        if (Number(step) === 0) return `has a step of 0 in ${b.name} "${expr}"`;
      }
      if (start < b.min) return `has ${b.name} ${start} below the minimum ${b.min} in "${expr}"`;
      if (end > b.max) return `has ${b.name} ${end} above the maximum ${b.max} in "${expr}"`;
      if (start > end) return `has a ${b.name} range that starts after it ends in "${expr}"`;
    }
  }
  return undefined;
}
