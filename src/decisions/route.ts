import { RollwiseInputError } from '../errors';
import { decided, Decision } from './decision';
import { checkHostname, checkPath, MAX_ROUTE_HOSTNAMES } from './inputs';
import type { GatewayRef } from './platform';

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
}

/** The route's values, from a checked route and the platform's Gateway. */
export function decideRoute(route: RouteProps, gateway: GatewayRef): RouteDecisions {
  return {
    hostnames: decided(
      route.hostnames,
      'Only these hostnames: a route without hostnames would capture every host on the shared ' +
        `Gateway ${gateway.namespace}/${gateway.name}.`,
    ),
    pathPrefix: route.pathPrefix,
    gateway,
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
