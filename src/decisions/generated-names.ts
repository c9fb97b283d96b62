/**
 * The names the cluster generates for the objects rollwise's objects create: ReplicaSets, their
 * pods, a Service's EndpointSlices. Queries select them by these rules, never by a pattern guessed
 * from a short example name (docs/mechanisms.md#generated-names).
 *
 * Upstream facts (file, version):
 * - The API server turns `generateName: <base>` into `<base[:58]><5 random characters>`: bases longer
 *   than 63 - 5 = 58 characters are cut (kubernetes staging/src/k8s.io/apiserver/pkg/storage/names/
 *   generate.go, simpleNameGenerator.GenerateName, MaxGeneratedNameLength).
 * - The random characters and every pod-template hash come from one alphabet,
 *   "bcdfghjklmnpqrstvwxz2456789" (k8s.io/apimachinery pkg/util/rand/rand.go, alphanums, String and
 *   SafeEncodeString; v0.34.1 is what Argo Rollouts v1.9.1 builds with, go.mod).
 * - A pod-template hash is SafeEncodeString(fmt.Sprint(fnv32a)), a decimal number of 1-10 digits,
 *   each digit mapped to alphanums[digit's byte % 27]: only "4"-"9", "b", "c", "d", "f" occur
 *   (argo-rollouts v1.9.1 utils/hash/hash.go ComputePodTemplateHash; kubernetes
 *   pkg/controller/controller_utils.go ComputeHash for Deployments).
 * - A Rollout's ReplicaSet is named `<rollout>-<pod-template-hash>` (argo-rollouts v1.9.1
 *   rollout/sync.go), a Deployment's the same (kubernetes pkg/controller/deployment/sync.go); neither
 *   is truncated (a ReplicaSet name is a DNS subdomain of up to 253 characters).
 * - A ReplicaSet's pods get `generateName: <replicaset>-` (kubernetes pkg/controller/controller_utils.go
 *   getPodsPrefix), so a ReplicaSet name of 58 characters or more loses its last characters, the hash
 *   first, in the pod names: the pod of a 56-character service keeps one character of its hash.
 * - kube-state-metrics exports `kube_pod_owner{namespace, pod, uid, owner_kind, owner_name,
 *   owner_is_controller}` for every pod, collected by default (v2.19.1 internal/store/pod.go
 *   createPodOwnerFamilyGenerator; "pods" is in pkg/options/resource.go DefaultResources). It names the
 *   ReplicaSet untruncated, so pods are selected by owner and joined `on(namespace, pod)`.
 * - The EndpointSlice controller names a Service's slices with `generateName: <service>-`
 *   (kubernetes staging/src/k8s.io/endpointslice/utils.go getEndpointSlicePrefix), so they are the
 *   generated names of that base.
 * The kubernetes/kubernetes files were read in the code index's copy of the main branch, not at a
 * release tag: the repository is over the size `fetch` can bring here. The Argo Rollouts and
 * kube-state-metrics facts were read at their tags with `git grep`.
 */

/** k8s.io/apimachinery pkg/util/rand alphanums: generated suffixes and SafeEncodeString. */
export const GENERATED_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
/** The characters a pod-template hash can hold: SafeEncodeString of decimal digits ("0" -> "4", ..., "9" -> "f"). */
export const HASH_ALPHABET = '456789bcdf';
/** apiserver names.MaxGeneratedNameLength: 63 - 5. */
export const MAX_GENERATED_BASE = 58;
/** apiserver names randomLength. */
export const GENERATED_SUFFIX_LENGTH = 5;
/** The longest pod-template hash: SafeEncodeString of a uint32 in decimal. */
export const MAX_HASH_LENGTH = 10;

/** The part of `base` the API server keeps in a generated name. */
export function generatedNameBase(base: string): string {
  return base.length > MAX_GENERATED_BASE ? base.slice(0, MAX_GENERATED_BASE) : base;
}

/** The name the API server generates from `base` with the given random suffix (5 characters of GENERATED_ALPHABET). */
export function generateName(base: string, randomSuffix: string): string {
  return `${generatedNameBase(base)}${randomSuffix}`;
}

/** `s` with the regular-expression metacharacters escaped (Prometheus' RE2 and JavaScript agree on these). */
export function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A (fully anchored, as Prometheus anchors `=~`) regex matching every name generated from `base`. */
export function generatedNameRegex(base: string): string {
  return `${escapeRegex(generatedNameBase(base))}[${GENERATED_ALPHABET}]{${GENERATED_SUFFIX_LENGTH}}`;
}

/** The name of the ReplicaSet of a Rollout or Deployment `workload` at pod-template hash `hash`. */
export function replicaSetName(workload: string, hash: string): string {
  return `${workload}-${hash}`;
}

/** A regex matching the names of every ReplicaSet of the Rollout or Deployment `workload` (and no other workload's). */
export function replicaSetRegex(workload: string): string {
  return `${escapeRegex(workload)}-[${HASH_ALPHABET}]{1,${MAX_HASH_LENGTH}}`;
}

/** The name the API server gives the pod of ReplicaSet `replicaSet` with the random suffix `randomSuffix`. */
export function podName(replicaSet: string, randomSuffix: string): string {
  return generateName(`${replicaSet}-`, randomSuffix);
}

/**
 * `kube_pod_owner` of the ReplicaSet(s) `ownerMatcher` selects (e.g. `owner_name="x-5d8f"` or
 * `owner_name=~"..."`), as a selector body, in `namespace`.
 */
export function podOwnerSelector(namespace: string, ownerMatcher: string): string {
  return `kube_pod_owner{namespace="${namespace}", owner_kind="ReplicaSet", ${ownerMatcher}}`;
}

/**
 * Restricts a per-pod vector to the pods owned by the ReplicaSet(s) `ownerMatcher` selects:
 * `<expr> and on(namespace, pod) max_over_time(kube_pod_owner{...}[window])`. The owner series is
 * read over `window` so that a pod deleted inside it (a replaced or evicted pod) still counts.
 */
export function ownedBy(expr: string, namespace: string, ownerMatcher: string, window: string): string {
  return `${expr} and on(namespace, pod) max_over_time(${podOwnerSelector(namespace, ownerMatcher)}[${window}])`;
}
