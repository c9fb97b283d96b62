// The workloadRef of a Rollout resolved as the controller does (rollout/templateref.go, v1.9.1).
import { Findings, Json, ObjectLookup, rec, set, show, str } from './findings';

/**
 * The template resolver of a workloadRef Rollout (informerBasedTemplateResolver.Resolve,
 * rollout/templateref.go, v1.9.1): the template must be empty; the workload must be a PodTemplate,
 * Deployment or ReplicaSet and exist; its template (and, when the Rollout has none, its selector)
 * become the Rollout's. Returns the Rollout the controller validates, marked as resolved.
 */
const WORKLOAD_KINDS: Readonly<Record<string, { template: string[]; selector?: string[] }>> = {
  '/PodTemplate': { template: ['template'] },
  'apps/Deployment': { template: ['spec', 'template'], selector: ['spec', 'selector'] },
  'apps/ReplicaSet': { template: ['spec', 'template'], selector: ['spec', 'selector'] },
};
export const RESOLVED = Symbol('templateResolvedFromRef');

export function resolveWorkloadRef(ro: Json, lookup: ObjectLookup, out: Findings): Json {
  const spec = rec(ro.spec) ?? {};
  const ref = rec(spec.workloadRef);
  if (!ref) return ro;
  const tmeta = rec(rec(spec.template)?.metadata) ?? {};
  if (Object.keys(rec(tmeta.labels) ?? {}).length > 0 || Object.keys(rec(tmeta.annotations) ?? {}).length > 0) {
    out.add(
      'workloadRefWithTemplate',
      'spec.template',
      'spec.workloadRef and spec.template are both set: the controller refuses it ("template must be empty for ' +
        'workload reference rollout"). Remove spec.template (labels and annotations included), or remove ' +
        'spec.workloadRef.',
    );
    return ro;
  }
  const apiVersion = str(ref.apiVersion);
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  const kind = str(ref.kind);
  const info = WORKLOAD_KINDS[`${group}/${kind}`];
  if (!info) {
    out.add(
      'workloadRefUnresolved',
      'spec.workloadRef',
      `spec.workloadRef ${show(ref)}: the controller resolves only a PodTemplate, Deployment or ReplicaSet and ` +
        `refuses the Rollout ("workload of type ${group}/${kind} is not supported"). Reference a Deployment ` +
        '(apps/v1).',
      { kind, apiVersion },
    );
    return ro;
  }
  const ns = str(rec(ro.metadata)?.namespace) || undefined;
  const w = lookup.get(kind, ns, str(ref.name));
  if (!w) {
    out.add(
      'workloadRefUnresolved',
      'spec.workloadRef.name',
      `spec.workloadRef names ${kind} "${str(ref.name)}", which is not among the checked objects in ` +
        `namespace ${ns ?? '(unset)'}: the controller cannot resolve the template and marks the Rollout InvalidSpec ` +
        `(${kind.toLowerCase()}s "${str(ref.name)}" not found). Add the ${kind} (or lint it with the Rollout) or fix ` +
        'the name.',
      { kind, name: str(ref.name) },
    );
    return ro;
  }
  const at = (o: unknown, path: string[]) => path.reduce<unknown>((x, k) => rec(x)?.[k], o);
  const resolved: Json = { ...spec, template: at(w, info.template) ?? {} };
  if (!set(spec.selector) && info.selector && rec(at(w, info.selector))) resolved.selector = at(w, info.selector);
  return { ...ro, spec: resolved, [RESOLVED]: true };
}
