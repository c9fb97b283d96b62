import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { HttpRoute } from '../../imports/gateway-api-gateway.networking.k8s.io';
import { SERVICE_PORT } from '../decisions/pod';
import type { RouteDecisions } from '../decisions/route';
import { Reasons } from '../justify/reasons';
import { registerDecidedValuesCheck } from '../invariants/decided-values';

export type { RouteProps } from '../decisions/route';

export interface ServiceRouteProps {
  /** The service's name: the route's name and its stable backend Service. */
  readonly name: string;
  /** @default none (the Argo CD Application's destination namespace applies) */
  readonly namespace?: string;
  readonly labels: Record<string, string>;
  /** The route's decided values (decideService's `route`). */
  readonly route: RouteDecisions;
  /**
   * The canary Service, a second backend at weight 0 that the Gateway API plugin shifts traffic to.
   * @default none: one backend (rolling update)
   */
  readonly canaryService?: string;
}

/**
 * The service's HTTPRoute on the platform's Gateway: one rule for the whole path prefix, with the
 * stable Service as its backend and, under canary delivery, the canary Service at weight 0.
 */
export function renderHttpRoute(scope: Construct, id: string, props: ServiceRouteProps): ApiObject {
  const ns = props.namespace;
  const rt = new Reasons();
  const decided = props.route;
  const canary = props.canaryService;
  const backendRef = (name: string, weight: number, role: string) => ({
    group: '',
    kind: 'Service',
    name,
    port: SERVICE_PORT,
    weight,
    ...(canary
      ? {
          filters: [
            {
              type: 'RequestHeaderModifier',
              requestHeaderModifier: { set: [{ name: 'x-rollwise-backend', value: role }] },
            },
          ],
        }
      : {}),
  });
  const gateway = rt.use('spec.parentRefs', decided.parentRef);
  if (decided.backendWeights.length !== (canary ? 2 : 1))
    throw new Error(
      `renderHttpRoute(${props.name}): the route was decided for ${decided.backendWeights.length} backend(s) but ` +
        `is rendered with ${canary ? 2 : 1}; pass canaryService exactly when decideRoute was told canary: true.`,
    );
  const weights = decided.backendWeights.map((w, i) => rt.use(`spec.rules[0].backendRefs[${i}]`, w));
  const routeSpec = {
    parentRefs: [
      {
        group: 'gateway.networking.k8s.io',
        kind: 'Gateway',
        name: gateway.name,
        namespace: gateway.namespace,
        ...(gateway.sectionName ? { sectionName: gateway.sectionName } : {}),
      },
    ],
    hostnames: rt.use('spec.hostnames', props.route.hostnames),
    rules: [
      {
        matches: [{ path: { type: 'PathPrefix', value: rt.use('spec.rules[0].matches[0]', decided.pathMatch) } }],
        backendRefs: canary
          ? [backendRef(props.name, weights[0], 'stable'), backendRef(canary, weights[1], 'canary')]
          : [backendRef(props.name, weights[0], 'stable')],
      },
    ],
  };
  registerDecidedValuesCheck(scope);
  return new ApiObject(scope, id, {
    ...HttpRoute.GVK,
    metadata: { name: props.name, namespace: ns, labels: props.labels, annotations: rt.annotations() },
    spec: routeSpec,
  });
}
