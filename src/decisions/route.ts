import { RollwiseInputError } from '../errors';
import { decided, Decision } from './decision';
import { checkHostname, checkPath, MAX_ROUTE_HOSTNAMES } from './inputs';
import type { GatewayRef } from './platform';
import { envoyClusters } from './analysis';

/** Where the route listens. */
export interface RouteProps {
  /**
   * Hostnames the route serves (required: a route without hostnames captures every host on a shared Gateway listener).
   */
  readonly hostnames: string[];
  /**
   * Path prefix routed to the service.
   * @default '/'
   */
  readonly pathPrefix?: string;
}

/** The service's HTTPRoute: where it listens and the platform Gateway it attaches to. */
export interface RouteDecisions {
  readonly hostnames: Decision<string[]>;
  /** @default '/' */
  readonly pathPrefix?: string;
  readonly gateway: GatewayRef;
  /** The parentRef: the platform's Gateway, and whether its listener must admit another namespace. */
  readonly parentRef: Decision<GatewayRef>;
  /** The one rule's PathPrefix match. */
  readonly pathMatch: Decision<string>;
  /** The backendRefs' weights: the stable Service's, then (canary delivery) the canary Service's. */
  readonly backendWeights: readonly Decision<number>[];
}

/** Where the route is written: the service's name and namespace, and whether a canary splits it. */
export interface RoutePlacement {
  readonly name: string;
  /** @default none (the Argo CD Application's destination namespace applies) */
  readonly namespace?: string;
  readonly canary: boolean;
}

/** The route's values, from a checked route, the platform's Gateway and where the route is written. */
export function decideRoute(route: RouteProps, gateway: GatewayRef, at: RoutePlacement): RouteDecisions {
  const ns = at.namespace;
  const clusters = envoyClusters(ns ?? 'default', at.name);
  // gateway-api v1.6.1 apis/v1/gateway_types.go: Listener.AllowedRoutes defaults to
  // {namespaces: {from: Same}}; Envoy Gateway v1.9.0 internal/gatewayapi/route.go then sets
  // Accepted=False, NotAllowedByListeners, for a route in another namespace.
  const gw = `${gateway.namespace}/${gateway.name}${gateway.sectionName ? ` (listener ${gateway.sectionName})` : ''}`;
  const prefix = route.pathPrefix ?? '/';
  return {
    hostnames: decided(
      route.hostnames,
      'Only these hostnames: a route without hostnames would capture every host on the shared ' +
        `Gateway ${gateway.namespace}/${gateway.name}.`,
    ),
    pathPrefix: route.pathPrefix,
    gateway,
    parentRef: decided(
      gateway,
      ns === gateway.namespace
        ? `The platform's Gateway ${gw} (platform.gateway), in the route's own namespace: a listener admits ` +
            'routes from its own namespace by default.'
        : `The platform's Gateway ${gw} (platform.gateway). Its listener must admit routes from ` +
            `namespace ${ns ?? '(the namespace this is applied to)'}: allowedRoutes.namespaces.from defaults to ` +
            "Same, the Gateway's own namespace (gateway-api v1.6.1), and Envoy Gateway then leaves this route " +
            'Accepted: False (NotAllowedByListeners) and no traffic reaches the service. Set from: All, or ' +
            'Selector on the service namespaces, on the listener (docs/cluster.md, "The Gateway\'s listeners ' +
            'must admit the services\' routes").',
    ),
    pathMatch: decided(
      prefix,
      `Every path under ${prefix} ` +
        `(route.pathPrefix${route.pathPrefix ? '' : ', default "/": the whole host belongs to this service'}), ` +
        'in one rule, ' +
        `so ${
          at.canary
            ? 'the canary split and the per-backend clusters the analysis reads cover'
            : "the route's alerts and traffic policy " + 'cover'
        } ` +
        `all of the service's traffic.`,
    ),
    backendWeights: at.canary
      ? [
          decided(
            100,
            'Stable backend at weight 100, written out with group "" and kind Service so Argo CD sees no ' +
              'defaulting drift; the Gateway API plugin sets the weights during a canary (Argo CD ignores them).',
          ),
          decided(
            0,
            'Canary backend at weight 0. Its header filter (x-rollwise-backend: canary, seen only by the app) ' +
              `makes Envoy Gateway build it a cluster of its own, ${clusters.canary}, so the analysis can measure ` +
              'the canary alone.',
          ),
        ]
      : [
          decided(
            100,
            'The Service as the only backend at weight 100, written out with group "" and kind Service so Argo CD ' +
              'sees no defaulting drift; a rolling update needs no traffic split, so no canary backend.',
          ),
        ],
  };
}

/** The route canary delivery splits traffic on: required, with hostnames. */
export function requireRoute(route: RouteProps | undefined): RouteProps {
  if (!route || !Array.isArray(route.hostnames) || route.hostnames.length === 0) {
    throw new RollwiseInputError(
      'route',
      JSON.stringify(route ?? null),
      'canary delivery splits traffic on an HTTPRoute and needs its hostnames; a route without hostnames would ' +
        'capture every host on the shared Gateway.',
      'add route: { hostnames: ["checkout.example.com"] }, or use delivery: Delivery.rollingUpdate().',
    );
  }
  return checkRoute(route, '');
}

export function checkRoute(route: RouteProps, fix: string): RouteProps {
  if (!route || !Array.isArray(route.hostnames) || route.hostnames.length === 0) {
    throw new RollwiseInputError(
      'route',
      JSON.stringify(route ?? null),
      'an HTTPRoute needs its hostnames: a route without hostnames would capture every host on the shared Gateway.',
      fix,
    );
  }
  if (route.hostnames.length > MAX_ROUTE_HOSTNAMES)
    throw new RollwiseInputError(
      'route.hostnames',
      `${route.hostnames.length} hostnames`,
      `an HTTPRoute holds at most ${MAX_ROUTE_HOSTNAMES}; the API server rejects more.`,
      'split the service\'s hosts over fewer names (a wildcard "*.example.com" counts as one).',
    );
  route.hostnames.forEach((h, i) => checkHostname(`route.hostnames[${i}]`, h));
  if (route.pathPrefix !== undefined) checkPath('route.pathPrefix', route.pathPrefix);
  return route;
}

/** A platform setting the route (and under canary delivery the analysis) needs. */
export function requirePlatform<T>(setting: string, value: T | undefined, example: string, canary = true): T {
  if (value === undefined) {
    if (!canary) {
      throw new RollwiseInputError(
        `platform.${setting}`,
        'unset',
        "the route needs it: the HTTPRoute attaches to the platform's Gateway.",
        `set ${setting}: ${example} in the shared Platform, or remove route.`,
      );
    }
    throw new RollwiseInputError(
      `platform.${setting}`,
      'unset',
      `canary delivery needs it: the HTTPRoute attaches to the platform's Gateway and the analysis queries ` +
        'Prometheus.',
      `set ${setting}: ${example} in the shared Platform, or use delivery: Delivery.rollingUpdate().`,
    );
  }
  return value;
}
