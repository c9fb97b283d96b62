import { RollwiseInputError } from '../errors';
import { decided, Decision, Fact, withOverride } from './decision';
import { replicasNeededAtPeak } from './disruption';
import { generatedNameRegex, ownedBy, replicaSetRegex } from './generated-names';
import { checkName, seconds } from './inputs';
import { Platform } from './platform';
import type { ServiceCoreDecisions } from './service-core';
import {
  AlertRule,
  AlertSettings,
  AlertTargets,
  DEFAULT_CPU_THROTTLING_RATIO,
  DEFAULT_SCRAPE_INTERVAL_SECONDS,
  DEFAULT_SLO_ERROR_RATIO,
  FLAP_CHANGES,
  FLAP_WINDOW_FLOOR_SECONDS,
  githubSlug,
  OSCILLATION_CROSSINGS,
  WorkloadKind,
} from './alert-rule';
import { SOURCES } from './alert-sources';

/**
 * The values every alert family builds on, decided once per service with their reasons: the scrape
 * interval and rate window, the readiness floor, the sustained-shortfall, oscillation and flap
 * windows, the SLO and throttling ratios; and the selectors of the service's series (its route's
 * Envoy clusters, its pods by owner, its EndpointSlices, desired replicas by workload kind).
 * Each decided window is stored once, as its Decision (`scrapeD`, `floorD`...): a family reads the
 * number as its `.value`.
 */
export interface AlertValues {
  readonly d: ServiceCoreDecisions;
  readonly name: string;
  readonly ns: string;
  readonly runbookUrl: string;
  readonly container: string;
  readonly platform: Platform;
  readonly isRollout: boolean;
  readonly hasRoute: boolean;
  readonly scrapeD: Decision<number>;
  readonly rateWindowD: Decision<number>;
  /** Readiness leave and return windows, minReadySeconds, the startup budget, endpoint propagation (s). */
  readonly leave: number;
  readonly ret: number;
  readonly minReady: number;
  readonly startup: number;
  readonly propagation: number;
  readonly floorD: Decision<number>;
  readonly sustainedD: Decision<number>;
  readonly oscWindowD: Decision<number>;
  readonly flapWindowD: Decision<number>;
  readonly slo: Decision<number>;
  readonly throttle: Decision<number>;
  /** Regex of the route's Envoy clusters, and its label matcher. */
  readonly route: string;
  readonly routeSel: string;
  readonly rsRegex: string;
  readonly ownPods: (expr: string, window: string) => string;
  readonly sliceRegex: (service: string) => string;
  readonly readyOf: (service: string) => string;
  readonly ready: string;
  readonly desired: string;
  readonly desiredSource: string;
  readonly endpointsExported: string;
  readonly below: string;
}

/** The values and selectors of one service's alerts (see AlertValues). */
export function decideAlertValues(
  d: ServiceCoreDecisions,
  targets: AlertTargets,
  settings: AlertSettings = {},
): AlertValues {
  const name = d.name;
  const ns = checkName('namespace', targets.namespace);
  const runbookUrl = checkRunbookUrl(targets.runbookUrl);
  const container = targets.containerName ?? 'app';
  const platform = settings.platform ?? Platform.defaults();
  const isRollout = targets.workload === WorkloadKind.ROLLOUT;
  const hasRoute = targets.route ?? true;

  // --- values -------------------------------------------------------------------------------
  const scrape =
    settings.scrapeInterval === undefined ? DEFAULT_SCRAPE_INTERVAL_SECONDS : seconds(settings.scrapeInterval);
  if (!Number.isInteger(scrape) || scrape < 5 || scrape > 120) {
    throw new RollwiseInputError(
      'scrapeInterval',
      `${scrape} s`,
      'must be a whole number of seconds from 5 to 120: rate windows are 4 scrapes long, and a scrape interval over ' +
        '2 minutes cannot see a readiness leave window at all.',
      'give the interval your ServiceMonitors / PodMonitors use, e.g. Duration.seconds(30).',
    );
  }
  const scrapeD = decided(
    scrape,
    settings.scrapeInterval === undefined
      ? `Scrape interval assumed ${scrape} s (kube-prometheus-stack's default); windows below are multiples of it. ` +
          'Pass scrapeInterval if yours differs.'
      : `Scrape interval ${scrape} s (input); windows below are multiples of it.`,
    { scrapeIntervalSeconds: scrape },
  );
  const rateWindow = 4 * scrape;
  const rateWindowD = decided(
    rateWindow,
    `rate() windows are 4 scrapes (4 x ${scrape} s = ${rateWindow} s): at least two samples per window even when one ` +
      'scrape fails, the usual Prometheus guidance.',
    { scrapeIntervalSeconds: scrape },
  );

  const period = d.readiness.periodSeconds.value;
  const leave = d.readiness.failureThreshold.value * period;
  const ret = d.readiness.successThreshold.value * period;
  const minReady = d.rollout.minReadySeconds.value;
  const startup = d.startup.failureThreshold.value * d.startup.periodSeconds.value;
  const propagation = platform.endpointPropagationSeconds.value;

  let floorD: Decision<number>;
  if (d.noHeadroomAccepted !== undefined) {
    const floor = d.replicas - d.pdbMaxUnavailable.value;
    floorD = decided(
      floor,
      'The fleet has no headroom at peak, accepted by override ' +
        `(overrides.acceptNoHeadroom: ${d.noHeadroomAccepted}), so the capacity floor would be every replica and the ` +
        `alert would never clear; the floor is what the disruption budget allows instead, ${d.replicas} ` +
        `- ${d.pdbMaxUnavailable.value} = ${floor}: it fires on more than the one planned disruption, while even ` +
        'that one already runs the survivors past the utilisation ceiling at peak ' +
        '(docs/mechanisms.md#readiness-control-loop).',
      { replicas: d.replicas, pdbMaxUnavailable: d.pdbMaxUnavailable.value, noHeadroomAccepted: true },
    );
  } else if (d.capacity) {
    const ceiling = platform.peakUtilisationCeiling.value;
    const needed = replicasNeededAtPeak(d.capacity, ceiling);
    floorD = decided(
      needed,
      `Peak ${d.capacity.peakRps} req/s / (saturation ${d.capacity.saturationRpsPerReplica} req/s x ` +
        `ceiling ${Math.round(ceiling * 100)} %) needs ${needed} ready replicas; below that the survivors run ` +
        `past ${Math.round(ceiling * 100)} % of saturation at peak and the readiness loop gains above one ` +
        `(docs/mechanisms.md#readiness-control-loop). As a ratio of desired replicas: ${needed}/${d.replicas}, so ` +
        `the alert scales with the desired count (ready < desired x ${needed} / ${d.replicas}).`,
      {
        peakRps: d.capacity.peakRps,
        saturationRpsPerReplica: d.capacity.saturationRpsPerReplica,
        ceiling,
        replicas: d.replicas,
      },
    );
  } else {
    const budget = d.pdbMaxUnavailable.value;
    const floor = d.replicas - budget;
    floorD = decided(
      floor,
      `No capacity figures, so the floor is what the disruption budget allows: ${d.replicas} replicas - PDB ` +
        `maxUnavailable ${budget} = ${floor}. Fewer ready endpoints than that is more than any planned disruption or ` +
        'rollout step causes (maxUnavailable 0). Declare capacity to derive the floor from load ' +
        '(docs/mechanisms.md#readiness-control-loop, #fixes-and-verification).',
      { replicas: d.replicas, pdbMaxUnavailable: budget },
    );
  }
  const floor = floorD.value;

  const sustained = startup + ret + minReady;
  const sustainedD = decided(
    sustained,
    `A single rollout step or scale-up leaves ready < desired for at most one new pod's way in: start-up ` +
      `budget ${startup} s (startup probe ${d.startup.failureThreshold.value} x ${d.startup.periodSeconds.value} s) ` +
      `+ readiness return window ${ret} s + minReadySeconds ${minReady} s (the controller counts the pod and starts ` +
      `the next surge wave only after it) = ${sustained} s; a shortfall lasting longer is not a step ` +
      '(docs/mechanisms.md#rollout-complete).',
    { startupBudgetSeconds: startup, returnWindowSeconds: ret, minReadySeconds: minReady },
  );

  const cycle = sustained + leave + 2 * propagation;
  const oscWindow = Math.ceil((2 * cycle) / scrape) * scrape;
  const oscWindowD = decided(
    oscWindow,
    `A saw-tooth the sustained-shortfall alert misses has down phases shorter than its ${sustained} s for; the up ` +
      `phase lasts about the readiness leave window ${leave} s plus 2 x endpoint propagation ${propagation} s (pods ` +
      `back in, full load, out again; docs/mechanisms.md#saw-tooth). So one missed cycle is at most ${sustained} ` +
      `+ ${leave} + ${2 * propagation} = ${cycle} s, and the window holds two (${2 * cycle} s, rounded up to ` +
      `whole ${scrape} s scrapes = ${oscWindow} s): at least ${OSCILLATION_CROSSINGS} crossings of the floor (down, ` +
      'up, down). A single scale-up or drain dip crosses it only twice, and scale-ups never lower the ready count, ' +
      'which the rule also requires twice.',
    {
      sustainedForSeconds: sustained,
      leaveWindowSeconds: leave,
      endpointPropagationSeconds: propagation,
      scrapeIntervalSeconds: scrape,
    },
  );

  const flapWindow = Math.max(FLAP_WINDOW_FLOOR_SECONDS, 4 * (leave + ret));
  const flapWindowD = decided(
    flapWindow,
    `A pod that flaps changes Ready at least ${FLAP_CHANGES} times (two round trips) in ` +
      `max(${FLAP_WINDOW_FLOOR_SECONDS} s, 4 x (leave ${leave} s + return ${ret} s)) = ${flapWindow} s; one round ` +
      `trip takes at least ${leave + ret} s, so two fit with room, and a single out-and-back (a node blip) is only 2 ` +
      'changes (docs/mechanisms.md#readiness-calls-a-dependency).',
    { leaveWindowSeconds: leave, returnWindowSeconds: ret },
  );

  const slo = withOverride(
    'sloErrorRatio',
    decided(
      DEFAULT_SLO_ERROR_RATIO,
      `1 % of the route's responses: the same threshold the canary analysis uses (successCondition result[0] < 0.01, ` +
        'docs/mechanisms.md#canary-analysis), so the fleet is held to what a canary must meet.',
    ),
    settings.sloErrorRatio,
    (v) => `${v}`,
  );
  checkRatio('sloErrorRatio', slo.value);
  const throttle = withOverride(
    'cpuThrottlingRatio',
    decided(
      DEFAULT_CPU_THROTTLING_RATIO,
      `25 % of CFS periods throttled (kubernetes-mixin's CPUThrottlingHigh default): at that rate the probe handler, ` +
        'which shares the quota, is regularly descheduled for the rest of a 100 ms period and the probe starts ' +
        'measuring load (docs/mechanisms.md#cpu-limits-and-cfs-throttling, #fixes-and-verification).',
    ),
    settings.cpuThrottlingRatio,
    (v) => `${v}`,
  );
  checkRatio('cpuThrottlingRatio', throttle.value);

  // --- selectors ----------------------------------------------------------------------------
  const route = `httproute/${ns}/${name}/rule/.*`;
  const routeSel = `envoy_cluster_name=~"${route}"`;
  // Pods by owner (kube_pod_owner), EndpointSlices by their generated names (src/decisions/generated-names.ts).
  const rsRegex = replicaSetRegex(name);
  const ownPods = (expr: string, window: string) => ownedBy(expr, ns, `owner_name=~"${rsRegex}"`, window);
  const sliceRegex = (service: string) => generatedNameRegex(`${service}-`);
  // Only the `ready` and `address` labels of kube_endpointslice_endpoints are trustworthy in
  // kube-state-metrics v2.19.1 (internal/store/endpointslice.go createEndpointsSliceEndpoints, lines 150-177):
  // the label values are listed as ready, serving, terminating, hostname against the keys ready,
  // serving, hostname, terminating, so `hostname` carries the (never assigned, always empty)
  // terminating value and `terminating` the hostname, and `serving` is overwritten with the
  // Terminating condition. Do not extend these queries to `serving` or `terminating`.
  const readyOf = (service: string) =>
    `(count(group by (address) (kube_endpointslice_endpoints{namespace="${ns}", ` +
    `endpointslice=~"${sliceRegex(service)}", ready="true"})) or on() vector(0))`;
  const ready = readyOf(name);
  const desired = isRollout
    ? `max(rollout_info_replicas_desired{namespace="${ns}", name="${name}"})`
    : `max(kube_deployment_spec_replicas{namespace="${ns}", deployment="${name}"})`;
  const desiredSource = isRollout ? SOURCES.rolloutDesired : SOURCES.deploymentDesired;
  // kube_endpointslice_info{namespace, endpointslice} is 1 for every EndpointSlice, with or without
  // endpoints (kube-state-metrics v2.19.1 internal/store/endpointslice.go), and exists only while
  // kube-state-metrics collects endpointslices (its default) and the Service has slices. Without this
  // guard the ready count's fallback to 0 would page "below the floor" forever where they are not
  // collected.
  const endpointsExported =
    `count(kube_endpointslice_info{namespace="${ns}", endpointslice=~"${sliceRegex(name)}"}) ` + '> 0';
  const below = `(${ready} < ${desired} * ${floor} / ${d.replicas}) and on() (${endpointsExported})`;
  return {
    d,
    name,
    ns,
    runbookUrl,
    container,
    platform,
    isRollout,
    hasRoute,
    scrapeD,
    rateWindowD,
    leave,
    ret,
    minReady,
    startup,
    propagation,
    floorD,
    sustainedD,
    oscWindowD,
    flapWindowD,
    slo,
    throttle,
    route,
    routeSel,
    rsRegex,
    ownPods,
    sliceRegex,
    readyOf,
    ready,
    desired,
    desiredSource,
    endpointsExported,
    below,
  };
}

/** The input of one rule: the AlertRule without what `alertRule` derives (labels, annotations, anchor). */
export type AlertRuleInput = Omit<AlertRule, 'labels' | 'annotations' | 'anchor'> & {
  summary: string;
  description: string;
};

/** One alert rule with its reason: labels, annotations and the runbook anchor derived from the service. */
export function alertRule(
  v: AlertValues,
  r: AlertRuleInput,
  reason: string,
  inputs: Record<string, Fact>,
): Decision<AlertRule> {
  const { ns, name, runbookUrl } = v;
  const anchor = githubSlug(r.alert);
  const { summary, description, ...rest } = r;
  return decided<AlertRule>(
    {
      ...rest,
      anchor,
      labels: { severity: r.severity, namespace: ns, service: name, mechanism: r.mechanism },
      annotations: { summary, description, runbook_url: `${runbookUrl}#${anchor}` },
    },
    reason,
    inputs,
  );
}

/** A family's list of rules and the function that adds one to it. */
export function ruleList(
  v: AlertValues,
): [Decision<AlertRule>[], (r: AlertRuleInput, reason: string, inputs: Record<string, Fact>) => void] {
  const rules: Decision<AlertRule>[] = [];
  return [
    rules,
    (r, reason, inputs) => {
      rules.push(alertRule(v, r, reason, inputs));
    },
  ];
}

function checkRatio(input: string, v: number): void {
  if (typeof v !== 'number' || !(v > 0 && v < 1)) {
    throw new RollwiseInputError(
      input,
      v,
      'must be a fraction above 0 and below 1 (0.01 = 1 %); 0 alerts on every error, 1 never alerts.',
      'give a fraction, e.g. 0.01.',
    );
  }
}

function checkRunbookUrl(url: string): string {
  if (typeof url !== 'string' || !/^https?:\/\/[^\s#]+$/.test(url)) {
    throw new RollwiseInputError(
      'runbookUrl',
      url,
      'must be an absolute http(s) URL without a "#" fragment: each alert appends "#<section>" to it, and a ' +
        'responder opens it from the alert.',
      'give the web URL of the committed runbook file, e.g. ' +
        '"https://github.com/acme/deploy/blob/main/dist/checkout-api.runbook.md".',
    );
  }
  return url;
}
