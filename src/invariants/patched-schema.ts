import { KubernetesVersion } from '../decisions/kubernetes-version';
import { SchemaValidator } from '../schemas/validator';

/**
 * Objects an escape-hatch patch changed, against the real schema of their kind: rollwise's own
 * rendering is schema-valid by test, a user's patch is not (a string where an integer belongs, a
 * list where the schema has an object), and the API server would reject it after Argo CD applied
 * everything else. Only patched objects are checked, so an app without patches never pays for
 * loading the schemas (about 8 s).
 */
const validators = new Map<string, SchemaValidator | Error>();

function validatorFor(version: KubernetesVersion): SchemaValidator | Error {
  let v = validators.get(version.name);
  if (!v) {
    try {
      v = SchemaValidator.load(undefined, version);
    } catch (e) {
      v = e as Error;
    }
    validators.set(version.name, v);
  }
  return v;
}

export interface PatchedSchemaResult {
  /** One "<Kind>/<name> <path> <message>. Fix: ..." per violation. */
  readonly errors: string[];
  /** Set when patched objects could not be checked because no pinned schemas were found. */
  readonly warning?: string;
}

export function checkPatchedSchemas(objects: readonly Record<string, unknown>[], patched: readonly boolean[], version: KubernetesVersion): PatchedSchemaResult {
  const targets = objects.filter((_, i) => patched[i]);
  if (targets.length === 0) return { errors: [] };
  const validator = validatorFor(version);
  const name = (o: Record<string, unknown>) => `${String(o.kind)}/${String((o.metadata as { name?: string } | undefined)?.name)}`;
  if (validator instanceof Error) {
    return { errors: [], warning: `${targets.map(name).join(', ')} carry escape-hatch patches and were not checked against the Kubernetes and CRD schemas: ${validator.message}. A patch that sets a field to the wrong type passes synth and is rejected by the API server.` };
  }
  const errors: string[] = [];
  for (const o of targets) {
    for (const e of validator.validate(o)) errors.push(`${name(o)} ${e}: an escape-hatch patch made the object invalid for the ${String(o.apiVersion)} ${String(o.kind)} schema (Kubernetes ${version.name} and the pinned CRDs), so the API server would reject it. Fix: correct the patch (see the schema of that field), or remove it.`);
  }
  return { errors };
}
