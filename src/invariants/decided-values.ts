import { ApiObject } from 'cdk8s';
import { Construct, IConstruct } from 'constructs';
import { RollwiseInputError } from '../errors';
import { ANNOTATIONS } from '../justify/annotations';
import { parseReasonLines } from '../justify/reasons';
import { rec } from '../rules/k8s';
import { registerRenderCheck } from '../synth/render-checks';
import { registerDuplicateObjectsCheck } from './conflicts';
import { acceptPatchedValue, unpatchedRender } from './final-objects';
import { checkDecidedValues } from './invariants';

/**
 * INV01 (a decided value a patch changed is refused unless accepted with a reason) for every
 * object of the app, not only a service's. It used to run only inside HttpService's check, on the
 * service's own subtree, so the objects rollwise decides elsewhere escaped it: an Argo CD
 * Application's managedNamespaceMetadata labels (its own check compared four other fields), a
 * ServiceNamespace's Pod Security labels, the plugin ConfigMap's trafficRouterPlugins. Patched to
 * "privileged", their rollwise.dev/reasons still said "enforces restricted". Now one app-wide check
 * covers every ApiObject with a reasons annotation; a subtree whose construct runs the invariants
 * itself (HttpService) declares so and is skipped, so nothing is reported twice.
 */

const selfChecked = new WeakSet<IConstruct>();
const registered = new WeakSet<IConstruct>();

/** Declares that a construct runs INV01 on its own subtree (HttpService, through checkInvariants). */
export function declareDecidedValuesChecked(scope: Construct): void {
  selfChecked.add(scope);
}

/** Adds the app-wide check once per app (every construct that decides values calls this). */
export function registerDecidedValuesCheck(scope: Construct): void {
  const root = scope.node.root;
  if (registered.has(root)) return;
  registered.add(root);
  // every construct that writes decided objects calls this, so the app-wide duplicate check is added here too
  registerDuplicateObjectsCheck(root as Construct);
  registerRenderCheck(root as Construct, (r) => {
    const out: string[] = [];
    for (const { apiObject, json } of r.objectsOf(root as Construct)) {
      if (inSelfChecked(apiObject)) continue;
      const reasons = rec(rec(json.metadata)?.annotations)?.[ANNOTATIONS.reasons];
      const { patched, unpatched } = unpatchedRender(apiObject, json);
      // A shortcut only; an object it lets through that it could skip (not patched: unpatched === json; or no
      // reasons in its unpatched render, the only reasons INV01 reads) gets no finding from checkDecidedValues, so a
      // mutant that skips less is equivalent (those that skip more, which the tests kill, are disabled with them).
      // Stryker disable next-line ConditionalExpression,LogicalOperator,EqualityOperator: a shortcut only (above)
      if (
        !patched ||
        (typeof reasons !== 'string' &&
          typeof rec(rec(unpatched?.metadata)?.annotations)?.[ANNOTATIONS.reasons] !== 'string')
      )
        continue;
      for (const f of checkDecidedValues({ objects: [json], unpatched: [unpatched] })) {
        // A finding exists only when INV01 read a reasons string in `unpatched` (metadata.annotations), so none
        // of these is nullish here.
        // Stryker disable next-line OptionalChaining: never nullish here (above)
        const why = parseReasonLines(String(rec(rec(unpatched?.metadata)?.annotations)?.[ANNOTATIONS.reasons] ?? ''));
        const decidedAt = Object.keys(why)
          .filter((p) => f.path === p || f.path.startsWith(`${p}.`) || f.path.startsWith(`${p}[`))
          .sort((a, b) => b.length - a.length)[0];
        const reason = decidedAt ? ` The reason it would keep claiming: "${short(why[decidedAt])}".` : '';
        out.push(
          `${f.invariant.id} ${f.object} (${apiObject.node.path}) ${f.path}: ${f.message}.${reason} Fix: remove the ` +
            `patch, or accept the patched value with acceptPatch(object, '${f.path}', '<why it is right here>'), ` +
            'which records the reason in rollwise.dev/overrides and rollwise.dev/reasons.',
        );
      }
    }
    return out;
  });
}

function inSelfChecked(o: IConstruct): boolean {
  for (let c: IConstruct | undefined = o; c; c = c.node.scope) if (selfChecked.has(c)) return true;
  return false;
}

function short(s: string): string {
  return s.length > 160 ? `${s.slice(0, 157)}...` : s;
}

/**
 * Accepts a value an escape-hatch patch changed on any object rollwise decided (an Argo CD
 * Application, a ServiceNamespace, the ClusterPrerequisites' ConfigMap, or a service's object), with
 * the reason it is right: the reason replaces rollwise's in rollwise.dev/reasons (so `explain` and
 * the YAML comment describe the patched value) and is recorded in rollwise.dev/overrides, which the
 * invariants and lint accept. The API server's and the controllers' checks still apply.
 * @param object the ApiObject the patch changed (e.g. `application.application`, `namespace.namespace`)
 * @param path the field path as the refusal names it
 * (`spec.syncPolicy.managedNamespaceMetadata.labels["pod-security.kubernetes.io/enforce"]`)
 */
export function acceptPatch(object: ApiObject, path: string, because: string): void {
  if (!ApiObject.isApiObject(object)) {
    throw new RollwiseInputError(
      'acceptPatch(object)',
      String(object),
      'is not an ApiObject, so it carries no patch to accept.',
      'pass the ApiObject the patch was added to, e.g. application.application or namespace.namespace.',
    );
  }
  acceptPatchedValue(object, path, because);
}
