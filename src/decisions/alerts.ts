import { decided, Decision } from './decision';
import type { ServiceCoreDecisions } from './service-core';
import type { AlertDecisions, AlertSettings, AlertTargets } from './alert-rule';
import { decideAlertValues } from './alert-values';
import { readinessAlerts } from './readiness-alerts';
import { routeAlerts } from './route-alerts';
import { cpuAlerts } from './cpu-alerts';
import { rolloutAlerts } from './rollout-alerts';
import { signalAlerts } from './signal-alerts';

// The alerts of a service, one file per family; their types and constants are in alert-rule.ts.
export * from './alert-rule';

/**
 * The service's alert rules. Every rule selects this service's series by namespace and names
 * (workload `<name>`, Services `<name>` / `<name>-canary`, HTTPRoute `<name>`), and every
 * threshold and `for` is derived from the service's decisions with its reason.
 */
export function decideAlerts(
  d: ServiceCoreDecisions,
  targets: AlertTargets,
  settings: AlertSettings = {},
): AlertDecisions {
  const v = decideAlertValues(d, targets, settings);
  const rules = [...readinessAlerts(v), ...routeAlerts(v), ...cpuAlerts(v), ...rolloutAlerts(v), ...signalAlerts(v)];
  const {
    name,
    ns,
    runbookUrl,
    container,
    hasRoute,
    route,
    rsRegex,
    ownPods,
    sliceRegex,
    readyOf,
    floorD,
    sustainedD,
    oscWindowD,
    flapWindowD,
    slo,
    scrapeD,
    rateWindowD,
    throttle,
  } = v;
  const values: Record<string, Decision<number | string>> = {
    'Ready floor (replicas)': floorD,
    'Sustained-shortfall for (s)': sustainedD,
    'Oscillation window (s)': oscWindowD,
    'Flap window (s)': flapWindowD,
    ...(hasRoute ? { 'SLO error ratio': slo } : {}),
    'Scrape interval (s)': scrapeD,
    'Rate window (s)': rateWindowD,
  };
  if (d.resources.cpuLimit.value !== undefined) values['CPU throttling ratio'] = throttle;
  // The route's Envoy alerts (added above only when hasRoute) exist only for a route that exists:
  // without one their series never do.
  return {
    name,
    namespace: ns,
    workload: targets.workload,
    runbookUrl,
    routeClusterRegex: route,
    route: hasRoute,
    replicaSetRegex: rsRegex,
    endpointSliceRegex: sliceRegex(name),
    readyEndpoints: (service = name) => readyOf(service),
    ownPods,
    containerName: container,
    group: decided(
      `${name}.rollwise`,
      'One group per service: its rules are evaluated together at the Prometheus evaluation interval, and the name ' +
        'says which service and which generator own them.',
    ),
    rules,
    values,
  };
}
