import { KubernetesVersion } from '../decisions/kubernetes-version';
import { ClusterValidator, ClusterProblem, findSchemaDir } from '../schemas/cluster-validator';
import { Pass } from '../schemas/structural';
import { LintResult } from './engine';
import { aboutPlaceholder } from './placeholders';
import { LintObject } from './source';
import { Finding } from './types';
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
