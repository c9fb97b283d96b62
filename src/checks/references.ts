import { checkController, ControllerCheck } from './controller-spec';
import { lookupIn } from './rollout-spec';

type Json = Record<string, unknown>;

/** The controller checks that follow a reference to another object. */
const NOT_FOUND: readonly ControllerCheck[] = [
  'serviceNotFound',
  'templateNotFound',
  'rwPluginRouteNotFound',
  'workloadRefUnresolved',
];

function rec(x: unknown): Json | undefined {
  return typeof x === 'object' && x !== null && !Array.isArray(x) ? (x as Json) : undefined;
}
function arr(x: unknown): unknown[] {
  return Array.isArray(x) ? x : [];
}

/**
 * The references between one service's written objects that name no object among them. Every
 * object a rollwise service refers to is one it writes itself, so a reference that resolves to
 * nothing was broken by an escape-hatch patch (a renamed Service, a templateName changed):
 * - a Rollout's stableService/canaryService, analysis templates, the Gateway API plugin's
 *   HTTPRoute and a workloadRef: the Argo Rollouts controller marks the Rollout InvalidSpec
 *   (argo-rollouts v1.9.1 rollout/controller.go getRolloutValidationErrors ->
 *   getRolloutReferencedResources: getReferencedService, getReferencedAnalysisTemplates "not
 *   found"; the checks ported in ./controller-spec.ts, which lint reports as info because there
 *   the object may come from elsewhere);
 * - an HTTPRoute backendRef to a Service: Gateway API v1.6.1 (the pinned HTTPRoute CRD,
 *   spec.rules.backendRefs): an invalid backendRef (one that refers to a resource that does not
 *   exist) gets 500 for the share of requests that would have gone to it.
 */
export function unresolvedReferences(objects: readonly Json[]): string[] {
  const lookup = lookupIn(objects);
  const out: string[] = [];
  const ref = (o: Json) => {
    const m = rec(o.metadata) ?? {};
    return `${String(o.kind)} ${m.namespace ? `${String(m.namespace)}/` : ''}${String(m.name)}`;
  };
  for (const ro of objects.filter((o) => o.kind === 'Rollout')) {
    for (const f of checkController(ro, lookup)) {
      if (NOT_FOUND.includes(f.check))
        out.push(
          `${ref(ro)} ${f.path}: ${f.message} Every object a rollwise Rollout refers to is written by the service ` +
            'itself, so a patch broke the reference (renamed or removed the object, or changed the name). Fix: remove ' +
            'the patch, or rename both sides.',
        );
    }
  }
  for (const route of objects.filter((o) => o.kind === 'HTTPRoute')) {
    const ns = rec(route.metadata)?.namespace as string | undefined;
    arr(rec(route.spec)?.rules).forEach((rule, i) => {
      arr(rec(rule)?.backendRefs).forEach((b0, j) => {
        const b = rec(b0) ?? {};
        if ((b.group ?? '') !== '' || (b.kind ?? 'Service') !== 'Service' || typeof b.name !== 'string') return;
        const target = (typeof b.namespace === 'string' ? b.namespace : ns) || undefined;
        if (!lookup.get('Service', target, b.name)) {
          out.push(
            `${ref(route)} spec.rules[${i}].backendRefs[${j}]: names Service ${target ? `${target}/` : ''}${b.name}, ` +
              'which the service does not write: the Gateway answers 500 to the requests routed to it (Gateway API ' +
              `v1.6.1 HTTPRoute spec.rules.backendRefs: an invalid backendRef's share of requests MUST receive a ` +
              '500). A patch broke the reference (renamed or removed the Service, or changed the name). Fix: remove ' +
              'the patch, or rename both sides.',
          );
        }
      });
    });
  }
  return out;
}
