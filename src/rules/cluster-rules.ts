import { KubernetesVersion } from '../decisions/kubernetes-version';
import { ClusterValidator, ClusterProblem, findSchemaDir } from '../schemas/cluster-validator';
import { Pass } from '../schemas/structural';
import { LintResult } from './engine';
import { LintObject } from './source';
import { Finding } from './types';

/**
 * The cluster's own validation as a lint stage, separate from the composition rules: what synth
 * runs on every object it writes (src/schemas/cluster-validator.ts) on any manifests. One rule per
 * validator: RW901 the kind's OpenAPI schema (strict), RW902 a CRD's CEL rule, RW903 the API
 * server's built-in validation. Findings are errors (the cluster refuses the object); they are not
 * suppressible, because no reason makes the API server accept it.
 */
export const CLUSTER_RULES: Record<ClusterProblem['source'], { readonly id: string; readonly mechanism: string; readonly fix: string }> = {
  schema: {
    id: 'RW901-kind-schema',
    mechanism: 'The API server validates every object against its kind\'s OpenAPI schema and drops (or, with strict field validation, refuses) unknown fields; a wrong type is refused at apply time, after the pipeline passed (docs/synth.md#what-is-checked-before-anything-is-written).',
    fix: 'give the field the type and value its kind\'s schema allows, or remove an unknown field.',
  },
  cel: {
    id: 'RW902-crd-validation-rule',
    mechanism: 'The CRD\'s x-kubernetes-validations rules (CEL) run in the API server on every create and update, after defaulting; a false rule refuses the object (docs/synth.md#what-is-checked-before-anything-is-written).',
    fix: 'change the value so that the rule quoted in the message holds.',
  },
  builtin: {
    id: 'RW903-api-server-validation',
    mechanism: 'The API server\'s built-in validation (names, labels, annotations, tolerations, affinity, mounts, env names), the kubelet\'s image parsing and etcd\'s request size refuse these values whatever the schema says (docs/synth.md#what-is-checked-before-anything-is-written).',
    fix: 'correct the value as the message says.',
  },
};

/** JSON pointer to the field path style of findings (`/spec/ports/0/name` -> `spec.ports[0].name`). */
function fieldPath(pointer: string): string {
  return pointer.split('/').filter(Boolean).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : /^[A-Za-z0-9_-]+$/.test(s) ? (acc ? `${acc}.${s}` : s) : `${acc}["${s}"]`), '');
}

/**
 * Adds the cluster-validation findings to a lint result, at `version` (@default the newest
 * supported Kubernetes version). Without pinned schemas only the built-in checks run.
 */
export function withClusterFindings(result: LintResult, objects: readonly LintObject[], version: KubernetesVersion = KubernetesVersion.supported().slice(-1)[0]): LintResult {
  const dir = findSchemaDir(version);
  const validator = dir === undefined ? ClusterValidator.builtinOnly(version) : ClusterValidator.for(dir, version);
  const pass = new Pass();
  const extra: Finding[] = [];
  for (const o of objects) {
    for (const p of validator.check(o.obj, pass)) {
      const rule = CLUSTER_RULES[p.source];
      const path = fieldPath(p.path);
      extra.push({
        ruleId: rule.id, severity: 'error', file: o.file, line: o.line(path), kind: o.kind, ...(o.namespace ? { namespace: o.namespace } : {}), name: o.name, object: o.ref,
        path, message: `${p.message} (Kubernetes ${version.name})`, mechanism: rule.mechanism, fix: rule.fix, values: {}, status: 'open',
      });
    }
  }
  if (extra.length === 0) return result;
  const findings = [...result.findings, ...extra].sort((a, b) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1));
  return { ...result, findings };
}
