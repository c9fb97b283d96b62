import { KubernetesVersion } from '../decisions/kubernetes-version';
import { ClusterValidator, ClusterProblem, findSchemaDir } from '../schemas/cluster-validator';
import { BUILTIN_GROUPS, groupOf } from '../schemas/builtin';
import { pinnedOrigin } from '../schemas/pinned';
import { Pass } from '../schemas/structural';
import { LintResult } from './engine';
import { aboutPlaceholder } from './placeholders';
import { LintObject } from './source';
import { Finding, Severity } from './types';
import { ENGINE_RULES } from './catalogue';
import { RuleMeta } from './rule';

/**
 * The cluster's own validation as a lint stage, separate from the composition rules: what synth
 * runs on every object it writes (src/schemas/cluster-validator.ts) on any manifests. One rule per
 * validator: RW801 the kind's OpenAPI schema (strict), RW802 a CRD's CEL rule, RW803 the API
 * server's built-in validation (their texts are in the catalogue, so docs/rules.md lists them).
 * Findings are errors (the cluster refuses the object, or every pod its controller creates); they
 * are not suppressible, because no reason makes the API server accept it.
 */
export const CLUSTER_RULES: Record<ClusterProblem['source'], RuleMeta> = {
  schema: ENGINE_RULES.kindSchema,
  cel: ENGINE_RULES.crdValidationRule,
  builtin: ENGINE_RULES.apiServerValidation,
};

/** A map list's duplicate key, as structural.ts reports it. */
const MAP_LIST_DUPLICATE = /^two items have the same .* \(a map list\)$/;

/**
 * How sure lint is that the cluster refuses the object, as a severity with the words that say why
 * it is not an error (undefined: an error).
 *
 * - A custom resource's schema is that of the CRD version rollwise pins, and the cluster's
 *   installed CRD may be another release or channel (Gateway API's experimental channel adds
 *   HTTPRoute filters such as ExternalAuth that the standard channel's enum lacks: kubernetes-sigs/
 *   gateway-api v1.6.1 config/crd/experimental/gateway.networking.k8s.io_httproutes.yaml has the
 *   ExternalAuth filter type, config/crd/standard/ does not, read at the tag): a warning that
 *   names the CRD it was checked against. A CEL rule (RW802) stays an error: the rules are
 *   restrictions the CRD adds, and a channel or a later release that adds fields does not lift them.
 * - Two items of a built-in kind's list with the same map-list key (a container's ports with the
 *   same containerPort and protocol): the OpenAPI list-map keys bind only server-side apply, whose
 *   merge refuses duplicate keys. Create, update and client-side `kubectl apply` decode into the Go
 *   types and run the hand-written validation, which only warns ("duplicate port definition with",
 *   kubernetes pkg/api/pod/warnings.go warningsForPodSpecAndMeta, read in the code index's copy);
 *   the duplicates that validation refuses (container, volume and port names, mount paths) are
 *   RW803's.
 */
function clusterSeverity(o: LintObject, p: ClusterProblem, validator: ClusterValidator): { severity: Severity; note: string } | undefined {
  const builtin = BUILTIN_GROUPS.has(groupOf(o.apiVersion));
  if (!builtin && p.source === 'schema') {
    const file = validator.crdFileOf(o.apiVersion, o.kind);
    const origin = file ? pinnedOrigin(file) : undefined;
    return { severity: 'warning', note: `checked against the CRD of ${origin ?? 'the version rollwise pins'}; the cluster's installed CRD version or channel may accept it, so this is a warning, not an error` };
  }
  if (builtin && p.source === 'schema' && MAP_LIST_DUPLICATE.test(p.message)) {
    return { severity: 'warning', note: 'the API server accepts it on create, update and client-side kubectl apply with a warning ("duplicate port definition"); server-side apply (kubectl apply --server-side, Argo CD ServerSideApply=true) refuses it' };
  }
  return undefined;
}

/** JSON pointer to the field path style of findings (`/spec/ports/0/name` -> `spec.ports[0].name`). */
function fieldPath(pointer: string): string {
  return pointer.split('/').filter(Boolean).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : /^[A-Za-z0-9_-]+$/.test(s) ? (acc ? `${acc}.${s}` : s) : `${acc}["${s}"]`), '');
}

/**
 * Adds the cluster-validation findings to a lint result, at `version` (@default the newest
 * supported Kubernetes version). Without pinned schemas only the built-in checks run.
 *
 * Only objects of kinds the validator covers are checked: Kubernetes kinds of that version and the
 * pinned CRDs' kinds (ClusterValidator.covers). A file of another kind may never be sent to an API
 * server (eksctl's ClusterConfig, kind's Cluster, a Backstage entity), and how one would validate
 * it is not known, so nothing is said of it. A value that is an unrendered placeholder
 * (`${VAR}`, `<PROJECT_ID>`, placeholders.ts) is not what is applied: a problem with it is not
 * reported (it is checked once substituted).
 *
 * Two kinds of problem are warnings here, not errors (synth, which writes the objects itself, keeps
 * them errors): see clusterSeverity.
 */
export function withClusterFindings(result: LintResult, objects: readonly LintObject[], version: KubernetesVersion = KubernetesVersion.supported().slice(-1)[0]): LintResult {
  const dir = findSchemaDir(version);
  const validator = dir === undefined ? ClusterValidator.builtinOnly(version) : ClusterValidator.for(dir, version);
  const pass = new Pass();
  const extra: Finding[] = [];
  for (const o of objects) {
    if (!validator.covers(o.apiVersion, o.kind)) continue;
    const problems = validator.check(o.obj, pass);
    // A fill-in recognized in one field is the same fill-in wherever the object repeats it
    // (`port: PORT` is a placeholder where a number belongs, so `targetPort: PORT` is too).
    const fillIns = new Set(problems.filter(aboutPlaceholder).map((p) => p.value).filter((v): v is string => typeof v === 'string'));
    for (const p of problems) {
      if (aboutPlaceholder(p) || (typeof p.value === 'string' && fillIns.has(p.value))) continue;
      const rule = CLUSTER_RULES[p.source];
      const path = fieldPath(p.path);
      const lenient = clusterSeverity(o, p, validator);
      extra.push({
        ruleId: rule.id, severity: lenient?.severity ?? 'error', file: o.file, line: o.line(path), kind: o.kind, ...(o.namespace ? { namespace: o.namespace } : {}), name: o.name, object: o.ref,
        path, message: `${p.message} (Kubernetes ${version.name}${lenient ? `; ${lenient.note}` : ''})`, mechanism: rule.mechanism, fix: rule.fix, values: {}, status: 'open',
      });
    }
  }
  if (extra.length === 0) return result;
  const findings = [...result.findings, ...extra].sort((a, b) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1));
  return { ...result, findings };
}
