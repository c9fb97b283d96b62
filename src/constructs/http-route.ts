import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { HttpRoute } from '../../imports/gateway-api-gateway.networking.k8s.io';
import { envoyClusters } from '../decisions/analysis';
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
  const clusters = envoyClusters(ns ?? 'default', props.name);
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
  const gateway = props.route.gateway;
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
        matches: [{ path: { type: 'PathPrefix', value: props.route.pathPrefix ?? '/' } }],
        backendRefs: canary
          ? [backendRef(props.name, 100, 'stable'), backendRef(canary, 0, 'canary')]
          : [backendRef(props.name, 100, 'stable')],
      },
    ],
  };
  // gateway-api v1.6.1 apis/v1/gateway_types.go: Listener.AllowedRoutes defaults to
  // {namespaces: {from: Same}}; Envoy Gateway v1.9.0 internal/gatewayapi/route.go then sets
  // Accepted=False, NotAllowedByListeners, for a route in another namespace.
  const gw = `${gateway.namespace}/${gateway.name}${gateway.sectionName ? ` (listener ${gateway.sectionName})` : ''}`;
  rt.note(
    'spec.parentRefs',
    ns === gateway.namespace
      ? `The platform's Gateway ${gw} (platform.gateway), in the route's own namespace: a listener admits routes from ` +
          'its own namespace by default.'
      : `The platform's Gateway ${gw} (platform.gateway). Its listener must admit routes from ` +
          `namespace ${ns ?? '(the namespace this is applied to)'}: allowedRoutes.namespaces.from defaults to Same, the ` +
          `Gateway's own namespace (gateway-api v1.6.1), and Envoy Gateway then leaves this route Accepted: False ` +
          '(NotAllowedByListeners) and no traffic reaches the service. Set from: All, or Selector on the service ' +
          `namespaces, on the listener (docs/cluster.md, "The Gateway's listeners must admit the services' routes").`,
  );
  rt.note(
    'spec.rules[0].matches[0]',
    `Every path under ${props.route.pathPrefix ?? '/'} ` +
      `(route.pathPrefix${props.route.pathPrefix ? '' : ', default "/": the whole host belongs to this service'}), ` +
      'in one rule, ' +
      `so ${
        canary
          ? 'the canary split and the per-backend clusters the analysis reads cover'
          : "the route's alerts and traffic policy " + 'cover'
      } ` +
      `all of the service's traffic.`,
  );
  if (canary) {
    rt.note(
      'spec.rules[0].backendRefs[0]',
      'Stable backend at weight 100, written out with group "" and kind Service so Argo CD sees no defaulting drift; ' +
        'the Gateway API plugin sets the weights during a canary (Argo CD ignores them).',
    );
    rt.note(
      'spec.rules[0].backendRefs[1]',
      'Canary backend at weight 0. Its header filter (x-rollwise-backend: canary, seen only by the app) makes Envoy ' +
        `Gateway build it a cluster of its own, ${clusters.canary}, so the analysis can measure the canary alone.`,
    );
  } else {
    rt.note(
      'spec.rules[0].backendRefs[0]',
      'The Service as the only backend at weight 100, written out with group "" and kind Service so Argo CD sees no ' +
        'defaulting drift; a rolling update needs no traffic split, so no canary backend.',
    );
  }
  registerDecidedValuesCheck(scope);
  return new ApiObject(scope, id, {
    ...HttpRoute.GVK,
    metadata: { name: props.name, namespace: ns, labels: props.labels, annotations: rt.annotations() },
    spec: routeSpec,
  });
}
