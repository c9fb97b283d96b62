import { RollwiseInputError } from '../errors';
import { Measurements } from '../measure/measurements';
import { AlertDecisions, decideAlerts, WorkloadKind } from './alerts';
import { AutoscalingDecisions, decideAutoscaling, AutoscalingProps } from './autoscaling';
import { Delivery } from './canary';
import { CanaryPlan, decideCanary } from './canary-plan';
import { decided, Decision, Override } from './decision';
import { checkDnsLabel } from './inputs';
import { AppServer } from './keep-alive';
import { Platform } from './platform';
import { checkRoute, decideRoute, RouteDecisions, RouteProps, requirePlatform, requireRoute } from './route';
import { decideServiceCore, ServiceCoreDecisions, ServiceCoreInputs } from './service-core';
import { decideServiceTrafficPolicy, TrafficPolicyDecisions } from './traffic-policy';

// The service's inputs and core decisions (probes, resources, rollout, budget, pod) are in service-core.ts.
export * from './service-core';

/** The inputs of a service, as HttpService takes them. */
export interface ServiceInputs extends ServiceCoreInputs {
  /** The app server: its keep-alive sets the proxy's idle timeout. Required for the full pass (`where`). */
  readonly appServer?: AppServer;
  /** Passive health checking on the route. @default false */
  readonly passiveHealthCheck?: boolean;
  /** @default 0.01 (see HttpServiceProps.sloErrorRatio) */
  readonly sloErrorRatio?: Override<number>;
  /** @default none: `replicas` is fixed */
  readonly autoscaling?: AutoscalingProps;
  readonly route?: RouteProps;
}

/** Where the service is deployed, which only its construct knows (the chart's namespace). */
export interface ServicePlacement {
  /** @default none (the Argo CD Application's destination namespace applies; refused under canary delivery) */
  readonly namespace?: string;
}

/**
 * Every decision for one service: the pure core that the constructs render. With a placement
 * (`decideService(inputs, platform, where)`, as HttpService calls it) the delivery, route, proxy
 * policy, autoscaler and alerts are decided too; without one only the core.
 */
export interface ServiceDecisions extends ServiceCoreDecisions {
  /** The namespace every object is written to. */
  readonly namespace?: string;
  /** The app server, as checked (its keep-alive is a fact on the workload and the Services). */
  readonly appServer?: AppServer;
  /** Canary delivery's plan (Rollout strategy, volume gate, analysis); none with a rolling update. */
  readonly canary?: CanaryPlan;
  /** The HTTPRoute (the canary's, or a rolling update's own); none without a route. */
  readonly route?: RouteDecisions;
  /** The PodDisruptionBudget's policy for pods that are not Ready. */
  readonly unhealthyPodEvictionPolicy?: Decision<string>;
  /** The BackendTrafficPolicy on the route (keep-alive, timeouts, retries, outlier detection). */
  readonly trafficPolicy?: TrafficPolicyDecisions;
  /** The HorizontalPodAutoscaler, with `autoscaling`. */
  readonly autoscaling?: AutoscalingDecisions;
  /** The alert rules, when the platform has a runbook URL. */
  readonly alerts?: AlertDecisions;
}

/**
 * The one pass that decides every value of a service with its reason: the core (service-core.ts),
 * then, given where the service is deployed, its delivery (canary-plan.ts), route (route.ts), proxy
 * policy (traffic-policy.ts), autoscaler (autoscaling.ts) and alerts (alerts.ts), in the order
 * HttpService has always checked them, so the first refusal is the same.
 */
export function decideService(inp: ServiceInputs, platform: Platform, where?: ServicePlacement): ServiceDecisions {
  const core = decideServiceCore(inp, platform);
  if (where === undefined) return core;
  const name = core.name;
  const namespace = where.namespace;
  if (namespace !== undefined) checkDnsLabel('namespace', namespace, 'shop');
  const delivery = inp.delivery ?? Delivery.canary();
  // One namespace everywhere: the plugin config names the HTTPRoute's namespace and the analysis
  // selects Envoy's clusters (httproute/<namespace>/<name>/...) and the pods by it, so it must be
  // the namespace the objects are applied to, known now rather than left to Argo CD or kubectl -n.
  if (namespace === undefined && delivery.kind === 'canary') {
    throw new RollwiseInputError(
      'namespace',
      'unset',
      "neither the props nor the chart give one, and canary delivery needs it at synth: the Rollout's " +
        "traffic-router plugin config names the HTTPRoute's namespace and the analysis selects the Envoy clusters " +
        'httproute/<namespace>/<name>/... and the canary pods by namespace. Applied with `kubectl -n` or by an Argo ' +
        'CD Application into another namespace, they would look in "default": the canary would never shift traffic ' +
        'and every analysis would be Inconclusive.',
      'give the chart a namespace (new Chart(app, id, { namespace: "shop" })) or set namespace; Environment.addChart ' +
        "uses the environment's destination namespace.",
    );
  }
  const measuredNs = inp.measurements?.document.service.namespace;
  if (inp.measurements && namespace !== undefined && measuredNs !== namespace) {
    throw new RollwiseInputError(
      `measurements ${inp.measurements.origin} service.namespace`,
      measuredNs,
      `measures ${inp.measurements.document.service.name} in namespace ${measuredNs}, but this service is deployed ` +
        `to ${namespace}: another deployment's p99 would size this one's probes.`,
      `measure the service where it runs: rollwise measure ${name} --namespace ${namespace}.`,
    );
  }
  let canary: CanaryPlan | undefined;
  let route: RouteDecisions | undefined;
  if (delivery.kind === 'canary') {
    const routeProps = requireRoute(inp.route);
    const gateway = requirePlatform(
      'gateway',
      platform.gateway,
      '{ name: "public", namespace: "envoy-gateway-system" }',
    );
    const prometheusAddress = requirePlatform(
      'prometheusAddress',
      platform.prometheusAddress,
      '"http://prometheus-operated.monitoring.svc:9090"',
    );
    canary = decideCanary(core, {
      namespace,
      prometheusAddress,
      maxErrorRatio: platform.canaryMaxErrorRatio.value,
      steps: delivery.steps,
      manualPromotion: delivery.manualPromotion,
    });
    route = decideRoute(routeProps, gateway, { name, namespace, canary: true });
  } else if (inp.route !== undefined) {
    // A rolling update may still have a route.
    const routeProps = checkRoute(
      inp.route,
      'add route: { hostnames: ["checkout.example.com"] }, or remove route to expose the Service another way.',
    );
    route = decideRoute(
      routeProps,
      requirePlatform('gateway', platform.gateway, '{ name: "public", namespace: "envoy-gateway-system" }', false),
      { name, namespace, canary: false },
    );
  }
  const unhealthyPodEvictionPolicy = decided(
    'AlwaysAllow',
    'A pod that is not Ready serves nothing, so evicting it never costs capacity; without this a single ' +
      'crash-looping pod blocks every node drain.',
  );
  const o = inp.overrides ?? {};
  const trafficPolicy =
    route === undefined
      ? undefined
      : decideServiceTrafficPolicy({
          routeName: name,
          appServer: inp.appServer as AppServer,
          idleTimeout: o.proxyIdleTimeout,
          connectTimeout: o.proxyConnectTimeout,
          acceptKeepAliveRace: o.acceptKeepAliveRace,
          retryOnReset: o.retryOnReset,
          passiveHealthCheck: inp.passiveHealthCheck
            ? { replicas: core.replicas, maxUnavailable: core.pdbMaxUnavailable.value }
            : undefined,
        });
  const autoscaling = inp.autoscaling ? decideAutoscaling(inp.autoscaling, core.replicas) : undefined;
  const runbookBase = platform.runbookBaseUrl;
  const alerts =
    runbookBase === undefined
      ? undefined
      : decideAlerts(
          core,
          {
            namespace: requireAlertNamespace(namespace),
            workload: canary ? WorkloadKind.ROLLOUT : WorkloadKind.DEPLOYMENT,
            runbookUrl: `${runbookBase}/${name}.runbook.md`,
            route: route !== undefined,
          },
          { sloErrorRatio: inp.sloErrorRatio, platform },
        );
  const warnings = [...(inp.measurements ? measurementWarnings(inp.measurements, platform) : []), ...core.warnings];
  return {
    ...core,
    warnings,
    namespace,
    appServer: inp.appServer,
    canary,
    route,
    unhealthyPodEvictionPolicy,
    trafficPolicy,
    autoscaling,
    alerts,
  };
}

/** The alerts' namespace: required, as every expression selects the service's series by it. */
export function requireAlertNamespace(namespace: string | undefined): string {
  if (!namespace) {
    // 'unset', as the canary's refusal names it (decideService), not "undefined"
    throw new RollwiseInputError(
      'namespace',
      'unset',
      'neither the props nor the chart give one, and the alerts need it at synth: every PrometheusRule expression ' +
        "selects the service's series by namespace (kube-state-metrics' pods and EndpointSlices, the Envoy " +
        'clusters httproute/<namespace>/<name>/...). Applied with `kubectl -n` or by an Argo CD Application into a ' +
        'namespace, the objects would land there while the alerts look in none of them, and would never fire.',
      'give the chart a namespace (new Chart(app, id, { namespace: "shop" })) or set namespace; Environment.addChart ' +
        "uses the environment's destination namespace.",
    );
  }
  return namespace;
}

/**
 * Synth warnings about measurements: older than the platform allows, or a p99 that leaves out
 * probes that failed at the peak (the kubelet observes durations of successful probes only).
 */
export function measurementWarnings(m: Measurements, platform: Platform): string[] {
  const out: string[] = [];
  const failed = m.document.readiness.failedAtPeak.value;
  if (typeof failed === 'number' && failed > 0) {
    out.push(
      `measurements ${m.origin}: ${failed} readiness probes failed in the busiest hour. The kubelet's duration ` +
        'histogram leaves failed probes out, so rollwise measure counted each as slower than every success ' +
        `(docs/mechanisms.md#probe-durations-leave-out-failures); still, probes failing at peak mean the handler's ` +
        `tail reaches the timeout. Find out why they failed (timeouts or status codes: the pods' Unhealthy events, ` +
        'docs/mechanisms.md#probe-failure-texts) before trusting the timeout derived from it.',
    );
  }
  const age = m.ageSeconds();
  const max = platform.measurementMaxAgeSeconds.value;
  if (age > max) {
    out.push(
      `measurements ${m.origin} are ${Math.floor(age / 86400)} days old (measured ${m.document.measuredAt}), older ` +
        `than platform.measurementMaxAge (${Math.round(max / 86400)} days): the p99 that sized the readiness timeout ` +
        `may no longer hold at peak. Run \`rollwise measure ${m.document.service.name} ` +
        `--namespace ${m.document.service.namespace}\` again and commit the file.`,
    );
  }
  return out;
}
