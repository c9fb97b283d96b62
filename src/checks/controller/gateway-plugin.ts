// rollwise's own checks (rw*) of the HTTPRoutes a Rollout names for the Gateway API traffic-router
// plugin, which the controller does not look at.
import { selectorMatches } from '../go-values';
import { arr, Findings, Json, ObjectLookup, readSelector, rec, set, show, str } from './findings';

const GATEWAY_PLUGIN = 'argoproj-labs/gatewayAPI';

/** The Gateway API plugin (rollouts-plugin-trafficrouter-gatewayapi v0.15.0, pkg/plugin/httproute.go). */
export function validatePluginRoute(ro: Json, canary: Json, lookup: ObjectLookup, out: Findings): void {
  const config = rec(rec(rec(canary.trafficRouting)?.plugins)?.[GATEWAY_PLUGIN]);
  if (!config) return;
  const at = `spec.strategy.canary.trafficRouting.plugins["${GATEWAY_PLUGIN}"]`;
  const canarySvc = str(canary.canaryService);
  const stableSvc = str(canary.stableService);
  for (const [field, v] of [
    ['canaryService', canarySvc],
    ['stableService', stableSvc],
  ] as const) {
    if (v === '')
      out.add(
        'rwPluginWithoutServices',
        `spec.strategy.canary.${field}`,
        `spec.strategy.canary.${field} is empty: the controller accepts this for plugin routers, but the Gateway API ` +
          'plugin sets route weights on the backendRefs named after canaryService and stableService and fails every ' +
          'weight change with "backendRef was not found in httpRoute" (pkg/plugin/httproute.go, v0.15.0). Set both ' +
          'canaryService and stableService.',
        { field },
      );
  }
  const routeNs = str(config.namespace) || str(rec(ro.metadata)?.namespace) || undefined;
  const names: { name: string; path: string }[] = [];
  if (str(config.httpRoute) !== '') names.push({ name: str(config.httpRoute), path: `${at}.httpRoute` });
  arr(config.httpRoutes).forEach((r, i) =>
    names.push({ name: str(rec(r)?.name), path: `${at}.httpRoutes[${i}].name` }),
  );
  // discoverRoutesBySelector (pkg/plugin/plugin.go, v0.15.0): routes found by label in the namespace.
  if (set(config.httpRouteSelector)) {
    const sel = readSelector(config.httpRouteSelector);
    const found = lookup
      .list('HTTPRoute', routeNs)
      .filter((r) => selectorMatches(sel, (rec(rec(r.metadata)?.labels) ?? {}) as Record<string, string>));
    const ns = routeNs ?? '(unset)';
    if (found.length === 0)
      out.add(
        'rwPluginRouteNotFound',
        `${at}.httpRouteSelector`,
        `${at}.httpRouteSelector ${show(config.httpRouteSelector)} selects no HTTPRoute in ` +
          `namespace ${ns} among the checked objects: the controller accepts it, but the plugin then ` +
          'finds no route to set weights on. Label the HTTPRoute or fix the selector.',
      );
    for (const r of found) names.push({ name: str(rec(r.metadata)?.name), path: `${at}.httpRouteSelector` });
  }
  const other =
    ['grpcRoute', 'tcpRoute', 'tlsRoute'].some((k) => str(config[k]) !== '') ||
    ['grpcRoutes', 'tcpRoutes', 'tlsRoutes'].some((k) => arr(config[k]).length > 0) ||
    ['grpcRouteSelector', 'tcpRouteSelector', 'tlsRouteSelector'].some((k) => set(config[k]));
  if (names.length === 0 && !other && !set(config.httpRouteSelector)) {
    out.add(
      'rwPluginRouteNotFound',
      at,
      `${at} names no route: the controller accepts it, but the plugin fails every weight change ("No routes ` +
        `configured. At least one of 'httpRoutes', ... or 'tlsRoute' must be set", pkg/plugin/errors.go v0.15.0). ` +
        `Set httpRoute: "<the HTTPRoute's name>".`,
    );
  }
  for (const { name, path } of names) {
    const route = lookup.get('HTTPRoute', routeNs, name);
    if (!route) {
      out.add(
        'rwPluginRouteNotFound',
        path,
        `${path} = "${name}" names no HTTPRoute in namespace ${routeNs ?? '(unset)'} among the checked objects: the ` +
          'controller accepts it, but the plugin Gets the route at every weight change and fails while it does not ' +
          'exist. Add the HTTPRoute or fix the name.',
        { route: name },
      );
      continue;
    }
    const rules = arr(rec(route.spec)?.rules);
    const refsOf = (r: unknown) => arr(rec(r)?.backendRefs).map((b) => str(rec(b)?.name));
    for (const svc of [canarySvc, stableSvc]) {
      if (svc === '') continue;
      if (!rules.some((r) => refsOf(r).includes(svc))) {
        out.add(
          'rwPluginBackendRefMissing',
          path,
          `HTTPRoute ${name} has no rule with a backendRef to Service "${svc}": the controller accepts it, but the ` +
            'plugin fails every weight change with "backendRef was not found in httpRoute" (it needs the canary and ' +
            'the stable Service among the backendRefs, pkg/plugin/httproute.go v0.15.0). Add backendRefs to both ' +
            `"${canarySvc}" and "${stableSvc}" (the canary at weight 0).`,
          { route: name, service: svc },
        );
      }
    }
    rules.forEach((r, i) => {
      const refs = refsOf(r);
      if (canarySvc === '' || stableSvc === '' || refs.includes(canarySvc) === refs.includes(stableSvc)) return;
      const missing = refs.includes(canarySvc) ? stableSvc : canarySvc;
      if (!rules.some((x) => refsOf(x).includes(missing))) return; // reported above: the plugin fails
      out.add(
        'rwPluginRuleWithoutBoth',
        path,
        `HTTPRoute ${name} rule ${i} has a backendRef to "${missing === canarySvc ? stableSvc : canarySvc}" but none ` +
          `to "${missing}": the plugin accepts the route (another rule has it) and sets weights only on the ` +
          `backendRefs it finds, so this rule's ` +
          `traffic ${
            missing === canarySvc
              ? 'never reaches the canary and escapes the analysis'
              : 'has no stable backend: it goes only to ' + 'the canary'
          }. ` +
          'Give the rule backendRefs to both Services.',
        { route: name, rule: i, missing },
      );
    });
  }
}
