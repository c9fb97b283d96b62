// What a keep-alive BackendTrafficPolicy may target.
import { RollwiseInputError } from '../errors';

export interface PolicyTargetRef {
  readonly group: string;
  readonly kind: string;
  readonly name: string;
}

/**
 * A keep-alive policy must target the service's HTTPRoute: on the shared Gateway it would change
 * every upstream behind it (docs/mechanisms.md#keep-alive-race), and `mergeType` is only valid on route targets.
 */
export function checkPolicyTargets(refs: readonly PolicyTargetRef[]): void {
  if (refs.length === 0) {
    throw new RollwiseInputError(
      'targetRefs',
      '[]',
      'a BackendTrafficPolicy with no target applies nowhere.',
      "target the service's HTTPRoute.",
    );
  }
  for (const ref of refs) {
    if (ref.group !== 'gateway.networking.k8s.io' || ref.kind !== 'HTTPRoute') {
      throw new RollwiseInputError(
        'targetRefs',
        `${ref.kind}/${ref.name}`,
        `a keep-alive policy derived from one app's keep-alive must target that app's HTTPRoute (group ` +
          `gateway.networking.k8s.io); on a ${ref.kind} it would change every upstream behind it, e.g. Grafana or ` +
          'Argo CD, whose servers keep connections alive differently (docs/mechanisms.md#keep-alive-race), and ' +
          'mergeType StrategicMerge is only valid on route targets.',
        'target the service\'s HTTPRoute: { group: "gateway.networking.k8s.io", kind: "HTTPRoute", name: <service ' +
          'name> }.',
      );
    }
  }
}
