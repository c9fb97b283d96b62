import { KubernetesVersion } from '../decisions/kubernetes-version';
import { Add, arr, Json, rec, show } from './builtin/common';
import { containerProbesAndResources, podEnvReferences } from './builtin/container';
import { groupOf, kindRules, podSpecs, refusal } from './builtin/kinds';
import { ETCD_MAX_REQUEST_BYTES, jsonSizeBound, labelsAndAnnotations, objectName } from './builtin/metadata';
import { isDns1123Label, isPortName } from './builtin/names';
import { kindSpecificRules } from './builtin/objects';
import { podAffinityTerms, podSpec } from './builtin/pod';
export { quantityValue } from './builtin/common';
export { envFieldPathProblem, imageReferenceProblem } from './builtin/container';
export { BUILTIN_GROUPS, groupOf } from './builtin/kinds';
export {
  ETCD_MAX_REQUEST_BYTES,
  jsonSizeBound,
  podSecurityLabelProblems,
  TOTAL_ANNOTATION_BYTES,
} from './builtin/metadata';
export {
  chDirPrefixProblem,
  configMapKeyProblem,
  isDns1123Label,
  isDns1123Subdomain,
  isLabelValue,
  isPortName,
  isQualifiedName,
} from './builtin/names';
export { cronScheduleProblem, MAX_SECRET_SIZE } from './builtin/objects';

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

export interface BuiltinProblem {
  readonly path: string;
  readonly message: string;
  /** The value the check refused (a name, an image, a label key or value), when it is one value. */
  readonly value?: unknown;
}

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
