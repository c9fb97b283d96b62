import { Duration } from 'cdk8s';
import { RollwiseInputError } from '../errors';
import { decided, Decision, Fact, Override, withOverride } from './decision';
import { replicasNeededAtPeak } from './disruption';
import { escapeRegex, generatedNameRegex, HASH_ALPHABET, MAX_HASH_LENGTH, ownedBy, replicaSetRegex } from './generated-names';
import { checkName, formatGoDuration, seconds } from './inputs';
import { Platform } from './platform';
import { ServiceDecisions } from './service';

/**
 * Which controller runs the pods. It decides where "desired replicas" and "the rollout is
 * degraded" come from (the Argo Rollouts controller's metrics or kube-state-metrics).
 */
export class WorkloadKind {
  /** An Argo Rollout named like the service (canary with traffic routing). */
  public static readonly ROLLOUT = new WorkloadKind('Rollout');
  /** A Deployment named like the service. */
  public static readonly DEPLOYMENT = new WorkloadKind('Deployment');
  private constructor(public readonly kind: 'Rollout' | 'Deployment') {}
}

/** Where the service's objects are, so each alert selects exactly this service's series. */
export interface AlertTargets {
  /** The namespace of the workload, its Services and its HTTPRoute. */
  readonly namespace: string;
  readonly workload: WorkloadKind;
  /** Base URL of the service's runbook (e.g. the Git web URL of the committed file); each alert links `<runbookUrl>#<section>`. */
  readonly runbookUrl: string;
  /**
   * Whether the service has an HTTPRoute; without one, no Envoy alerts (their series would never exist).
   * @default true
   */
  readonly route?: boolean;
  /**
   * Name of the application container (cAdvisor's `container` label).
   * @default "app" (the container the pod template renders)
   */
  readonly containerName?: string;
}

/** Settings of the alerts; each has a reasoned default. */
export interface AlertSettings {
  /**
   * The route's 5xx ratio above which the service is out of its SLO.
   * @default 0.01 (the canary analysis threshold of docs/mechanisms.md#canary-analysis, so the gate and the alert agree)
   */
  readonly sloErrorRatio?: Override<number>;
  /**
   * CPU throttled-periods ratio above which the throttling alert fires (only with a CPU limit).
   * @default 0.25 (kubernetes-mixin's CPUThrottlingHigh default)
   */
  readonly cpuThrottlingRatio?: Override<number>;
  /**
   * Scrape interval of kube-state-metrics, cAdvisor and the Envoy proxies; rate windows and
   * subquery steps are multiples of it.
   * @default 30 s (kube-prometheus-stack's ServiceMonitor interval)
   */
  readonly scrapeInterval?: Duration;
  /**
   * Platform settings (utilisation ceiling, endpoint propagation).
   * @default Platform.defaults()
   */
  readonly platform?: Platform;
}

export type AlertSeverity = 'critical' | 'warning';

/** One alerting rule with what a responder needs; the reason lives in the enclosing Decision. */
export interface AlertRule {
  /** Alert name (also the runbook heading). */
  readonly alert: string;
  /** The mechanism it detects, as a label value (e.g. "UH", "readiness-floor"). */
  readonly mechanism: string;
  readonly severity: AlertSeverity;
  readonly expr: string;
  /** Prometheus duration, e.g. "2m". */
  readonly for: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<{ summary: string; description: string; runbook_url: string }>;
  /** Runbook section anchor (GitHub-style slug of the heading `alert`). */
  readonly anchor: string;
  /** What the alert means, for the runbook. */
  readonly meaning: string;
  /** What to check first, for the runbook (Markdown, one item per entry). */
  readonly checkFirst: readonly string[];
}

/** The alert rules and the values they are built from (shown in the runbook with their reasons). */
export interface AlertDecisions {
  readonly name: string;
  readonly namespace: string;
  readonly workload: WorkloadKind;
  readonly runbookUrl: string;
  /** Regex on `envoy_cluster_name` matching every cluster of the service's HTTPRoute. */
  readonly routeClusterRegex: string;
  /** Whether the service has an HTTPRoute (and so the Envoy alerts). */
  readonly route: boolean;
  /** Regex on kube_pod_owner's `owner_name` matching the service's ReplicaSets (its pods are selected by owner). */
  readonly replicaSetRegex: string;
  /** Regex on kube_endpointslice_*'s `endpointslice` matching the EndpointSlices of the service's Service. */
  readonly endpointSliceRegex: string;
  /** Ready endpoints of the Service `service` (the stable one by default) from its EndpointSlices, 0 when none. */
  readonly readyEndpoints: (service?: string) => string;
  /** Restricts a per-pod expression to the service's pods (by owner), reading the owner over `window`. */
  readonly ownPods: (expr: string, window: string) => string;
  readonly containerName: string;
  readonly rules: readonly Decision<AlertRule>[];
  /** Named values in force (floor, windows, thresholds), each with its reason. */
  readonly values: Readonly<Record<string, Decision<number | string>>>;
}

/** The default SLO error ratio: the canary gate of docs/mechanisms.md#canary-analysis. */
export const DEFAULT_SLO_ERROR_RATIO = 0.01;
/** kubernetes-mixin's CPUThrottlingHigh threshold (cpuThrottlingPercent: 25). */
export const DEFAULT_CPU_THROTTLING_RATIO = 0.25;
/** kube-prometheus-stack scrapes its ServiceMonitors every 30 s. */
export const DEFAULT_SCRAPE_INTERVAL_SECONDS = 30;
/** Crossings of the floor within the oscillation window that make a saw-tooth (down, up, down). */
export const OSCILLATION_CROSSINGS = 3;
/** Ready transitions of one pod within the flap window that count as flapping (two round trips). */
export const FLAP_CHANGES = 4;
/** How long a failed AnalysisRun may claim the abort it caused: a day, so an aborted release can wait a night for its revert in Git and still be reported as a failed analysis; the rule looks no further back. */
export const CLAIM_WINDOW_SECONDS = 24 * 3600;
/** Scrapes that may show a run Failed before the rollout shows Abort (two status writes read at one scrape). */
export const CLAIM_SKEW_SCRAPES = 2;
/** The shortest flap window: a slow flap (one round trip every few minutes, docs/mechanisms.md#readiness-calls-a-dependency) must fit twice. */
export const FLAP_WINDOW_FLOOR_SECONDS = 600;

/** Prometheus duration text for whole seconds: 120 -> "2m", 90 -> "1m30s", 0 -> "0s". */
export function promDuration(totalSeconds: number): string {
  const s = Math.round(totalSeconds);
  return s === 0 ? '0s' : formatGoDuration(s);
}

/** GitHub's heading anchor: lower case, punctuation other than "-" and "_" removed, spaces to "-". */
export function githubSlug(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

const SOURCES = {
  endpointSlice: 'kube_endpointslice_endpoints{endpointslice, ready, address} (kube-state-metrics v2.19.1 internal/store/endpointslice.go, one series per address of each EndpointSlice, collected by default: "endpointslices" is in pkg/options/resource.go DefaultResources, "endpoints" is not; selected by the slices\' generated names <service>-<5 characters>, kubernetes endpointslice utils.go getEndpointSlicePrefix; addresses are counted once each, as a slice change may list one twice for a moment; only the ready and address labels are read: the same v2.19.1 code writes the Terminating condition into the serving label and swaps the hostname and terminating values)',
  rolloutDesired: 'rollout_info_replicas_desired{namespace,name} (Argo Rollouts controller metrics, controller/metrics/prommetrics.go; namespace is the Rollout\'s, kept by the scrape\'s honorLabels, docs/mechanisms.md#an-exporters-own-namespace-label)',
  deploymentDesired: 'kube_deployment_spec_replicas{namespace,deployment} (kube-state-metrics v2)',
  podReady: 'kube_pod_status_ready{condition="true"} (kube-state-metrics v2, one 0/1 series per condition)',
  podOwner: 'kube_pod_owner{owner_kind="ReplicaSet", owner_name} (kube-state-metrics v2.19.1 internal/store/pod.go, collected by default), joined on(namespace, pod): pods are selected by their ReplicaSet <name>-<pod-template-hash>, because the API server cuts a pod\'s generateName to 58 characters and long service names lose the hash from the pod names (docs/mechanisms.md#generated-names)',
  restarts: 'kube_pod_container_status_restarts_total (kube-state-metrics v2)',
  rqXx: 'envoy_cluster_upstream_rq_xx{envoy_response_code_class="5"} and envoy_cluster_upstream_rq_total (Envoy cluster stats on Envoy Gateway\'s /stats/prometheus, port 19001)',
  membership: 'envoy_cluster_membership_healthy (gauge, an endpoint stat that exists with the cluster), envoy_cluster_upstream_cx_none_healthy (counter, in the cluster\'s traffic-stats block, which Envoy Gateway\'s deferred stats create whole, every counter at 0 but the one counted, at the cluster\'s first traffic) and envoy_cluster_lb_healthy_panic (counter, a load-balancer stat that exists with the cluster), Envoy cluster stats via Envoy Gateway',
  cfs: 'container_cpu_cfs_throttled_periods_total / container_cpu_cfs_periods_total (cAdvisor, kubelet /metrics/cadvisor)',
  rolloutInfo: 'rollout_info{namespace,name,strategy,traffic_router,phase} with phase one of Completed, Progressing, Paused, Timeout, Error, Abort, InvalidSpec (Argo Rollouts controller, controller/metrics/rollouts.go calculatePhase)',
  analysisRunInfo: 'analysis_run_info{namespace,name,phase} (Argo Rollouts controller; analysis_run_phase is its deprecated twin), runs named <rollout>-<pod-hash>-<revision>[-<step>] (rollout/analysis.go newAnalysisRunFromRollout, v1.9.1) and, when that name is taken (a re-run of the same revision), <name>.<N> (utils/analysis/helpers.go CreateWithCollisionCounter)',
  replicaSetOwner: 'kube_replicaset_owner{namespace, replicaset, owner_kind="Rollout", owner_name} (kube-state-metrics v2.19.1 internal/store/replicaset.go, collected by default), joined on(namespace, replicaset) with the run name\'s <rollout>-<hash> part (label_replace)',
  deploymentCondition: 'kube_deployment_status_condition{condition="Progressing",status="false"} (kube-state-metrics v2)',
};

/** Envoy counters, one alert per response flag (docs/mechanisms.md#response-flags). */
const ENVOY_FLAGS = [
  { flag: 'UF', alert: 'EnvoyUpstreamConnectFailure', metric: 'envoy_cluster_upstream_cx_connect_fail', what: 'could not connect to a pod (connect failure)',
    meaning: 'Envoy could not open a TCP connection to an endpoint it believed healthy: nothing listens on the port, a NetworkPolicy drops the gateway\'s traffic, or a pod was removed from the proxy\'s view later than it stopped listening.',
    checkFirst: ['A NetworkPolicy change in the namespace (does it still admit the gateway\'s namespace?).', 'The Service\'s targetPort against the container port name "http".', 'Whether pods stop listening before the preStop delay ended (shutdown order, docs/mechanisms.md#readiness-control-loop delay).'] },
  { flag: 'UO', alert: 'EnvoyUpstreamOverflow', metric: 'envoy_cluster_upstream_rq_pending_overflow', what: 'circuit breaker overflow',
    meaning: 'Envoy refused requests because the cluster\'s circuit breaker (max pending requests / connections, 1024 each by default) was full: the pods answer more slowly than requests arrive.',
    checkFirst: ['Latency of the pods (a slow dependency fills the pending queue).', 'Whether ready endpoints dropped (fewer pods hold the same load).', 'The BackendTrafficPolicy circuitBreaker limits for this route.'] },
  { flag: 'UT', alert: 'EnvoyUpstreamTimeout', metric: 'envoy_cluster_upstream_rq_timeout', what: 'upstream request timeout',
    meaning: 'Requests exceeded the route\'s request timeout and Envoy answered 504 with flag UT: the application (or what it calls) is too slow.',
    checkFirst: ['The application\'s latency percentiles and its database / downstream latency.', 'CPU throttling of the pods if a CPU limit is set.', 'Whether the route\'s timeout (HTTPRoute timeouts.request) changed recently.'] },
] as const;

/** Mechanisms of the alerts on the HTTPRoute's Envoy clusters (emitted only when there is a route). */

/**
 * The service's alert rules. Every rule selects this service's series by namespace and names
 * (workload `<name>`, Services `<name>` / `<name>-canary`, HTTPRoute `<name>`), and every
 * threshold and `for` is derived from the service's decisions with its reason.
 */
export function decideAlerts(d: ServiceDecisions, targets: AlertTargets, settings: AlertSettings = {}): AlertDecisions {
  const name = d.name;
  const ns = checkName('namespace', targets.namespace);
  const runbookUrl = checkRunbookUrl(targets.runbookUrl);
  const container = targets.containerName ?? 'app';
  const platform = settings.platform ?? Platform.defaults();
  const isRollout = targets.workload === WorkloadKind.ROLLOUT;
  const hasRoute = targets.route ?? true;

  // --- values -------------------------------------------------------------------------------
  const scrape = settings.scrapeInterval === undefined ? DEFAULT_SCRAPE_INTERVAL_SECONDS : seconds(settings.scrapeInterval);
  if (!Number.isInteger(scrape) || scrape < 5 || scrape > 120) {
    throw new RollwiseInputError('scrapeInterval', `${scrape} s`, 'must be a whole number of seconds from 5 to 120: rate windows are 4 scrapes long, and a scrape interval over 2 minutes cannot see a readiness leave window at all.', 'give the interval your ServiceMonitors / PodMonitors use, e.g. Duration.seconds(30).');
  }
  const scrapeD = decided(scrape, settings.scrapeInterval === undefined
    ? `Scrape interval assumed ${scrape} s (kube-prometheus-stack's default); windows below are multiples of it. Pass scrapeInterval if yours differs.`
    : `Scrape interval ${scrape} s (input); windows below are multiples of it.`, { scrapeIntervalSeconds: scrape });
  const rateWindow = 4 * scrape;
  const rateWindowD = decided(rateWindow, `rate() windows are 4 scrapes (4 x ${scrape} s = ${rateWindow} s): at least two samples per window even when one scrape fails, the usual Prometheus guidance.`, { scrapeIntervalSeconds: scrape });

  const period = d.readiness.periodSeconds.value;
  const leave = d.readiness.failureThreshold.value * period;
  const ret = d.readiness.successThreshold.value * period;
  const minReady = d.rollout.minReadySeconds.value;
  const startup = d.startup.failureThreshold.value * d.startup.periodSeconds.value;
  const propagation = platform.endpointPropagationSeconds.value;

  let floorD: Decision<number>;
  if (d.noHeadroomAccepted !== undefined) {
    const floor = d.replicas - d.pdbMaxUnavailable.value;
    floorD = decided(floor,
      `The fleet has no headroom at peak, accepted by override (overrides.acceptNoHeadroom: ${d.noHeadroomAccepted}), so the capacity floor would be every replica and the alert would never clear; the floor is what the disruption budget allows instead, ${d.replicas} - ${d.pdbMaxUnavailable.value} = ${floor}: it fires on more than the one planned disruption, while even that one already runs the survivors past the utilisation ceiling at peak (docs/mechanisms.md#readiness-control-loop).`,
      { replicas: d.replicas, pdbMaxUnavailable: d.pdbMaxUnavailable.value, noHeadroomAccepted: true });
  } else if (d.capacity) {
    const ceiling = platform.peakUtilisationCeiling.value;
    const needed = replicasNeededAtPeak(d.capacity, ceiling);
    floorD = decided(needed,
      `Peak ${d.capacity.peakRps} req/s / (saturation ${d.capacity.saturationRpsPerReplica} req/s x ceiling ${Math.round(ceiling * 100)} %) needs ${needed} ready replicas; below that the survivors run past ${Math.round(ceiling * 100)} % of saturation at peak and the readiness loop gains above one (docs/mechanisms.md#readiness-control-loop). As a ratio of desired replicas: ${needed}/${d.replicas}, so the alert scales with the desired count (ready < desired x ${needed} / ${d.replicas}).`,
      { peakRps: d.capacity.peakRps, saturationRpsPerReplica: d.capacity.saturationRpsPerReplica, ceiling, replicas: d.replicas });
  } else {
    const budget = d.pdbMaxUnavailable.value;
    const floor = d.replicas - budget;
    floorD = decided(floor,
      `No capacity figures, so the floor is what the disruption budget allows: ${d.replicas} replicas - PDB maxUnavailable ${budget} = ${floor}. Fewer ready endpoints than that is more than any planned disruption or rollout step causes (maxUnavailable 0). Declare capacity to derive the floor from load (docs/mechanisms.md#readiness-control-loop, #fixes-and-verification).`,
      { replicas: d.replicas, pdbMaxUnavailable: budget });
  }
  const floor = floorD.value;

  const sustained = startup + ret + minReady;
  const sustainedD = decided(sustained,
    `A single rollout step or scale-up leaves ready < desired for at most one new pod's way in: start-up budget ${startup} s (startup probe ${d.startup.failureThreshold.value} x ${d.startup.periodSeconds.value} s) + readiness return window ${ret} s + minReadySeconds ${minReady} s (the controller counts the pod and starts the next surge wave only after it) = ${sustained} s; a shortfall lasting longer is not a step (docs/mechanisms.md#rollout-complete).`,
    { startupBudgetSeconds: startup, returnWindowSeconds: ret, minReadySeconds: minReady });

  const cycle = sustained + leave + 2 * propagation;
  const oscWindow = Math.ceil((2 * cycle) / scrape) * scrape;
  const oscWindowD = decided(oscWindow,
    `A saw-tooth the sustained-shortfall alert misses has down phases shorter than its ${sustained} s for; the up phase lasts about the readiness leave window ${leave} s plus 2 x endpoint propagation ${propagation} s (pods back in, full load, out again; docs/mechanisms.md#saw-tooth). So one missed cycle is at most ${sustained} + ${leave} + ${2 * propagation} = ${cycle} s, and the window holds two (${2 * cycle} s, rounded up to whole ${scrape} s scrapes = ${oscWindow} s): at least ${OSCILLATION_CROSSINGS} crossings of the floor (down, up, down). A single scale-up or drain dip crosses it only twice, and scale-ups never lower the ready count, which the rule also requires twice.`,
    { sustainedForSeconds: sustained, leaveWindowSeconds: leave, endpointPropagationSeconds: propagation, scrapeIntervalSeconds: scrape });

  const flapWindow = Math.max(FLAP_WINDOW_FLOOR_SECONDS, 4 * (leave + ret));
  const flapWindowD = decided(flapWindow,
    `A pod that flaps changes Ready at least ${FLAP_CHANGES} times (two round trips) in max(${FLAP_WINDOW_FLOOR_SECONDS} s, 4 x (leave ${leave} s + return ${ret} s)) = ${flapWindow} s; one round trip takes at least ${leave + ret} s, so two fit with room, and a single out-and-back (a node blip) is only 2 changes (docs/mechanisms.md#readiness-calls-a-dependency).`,
    { leaveWindowSeconds: leave, returnWindowSeconds: ret });

  const slo = withOverride('sloErrorRatio', decided(DEFAULT_SLO_ERROR_RATIO,
    `1 % of the route's responses: the same threshold the canary analysis uses (successCondition result[0] < 0.01, docs/mechanisms.md#canary-analysis), so the fleet is held to what a canary must meet.`),
  settings.sloErrorRatio, (v) => `${v}`);
  checkRatio('sloErrorRatio', slo.value);
  const throttle = withOverride('cpuThrottlingRatio', decided(DEFAULT_CPU_THROTTLING_RATIO,
    `25 % of CFS periods throttled (kubernetes-mixin's CPUThrottlingHigh default): at that rate the probe handler, which shares the quota, is regularly descheduled for the rest of a 100 ms period and the probe starts measuring load (docs/mechanisms.md#cpu-limits-and-cfs-throttling, #fixes-and-verification).`),
  settings.cpuThrottlingRatio, (v) => `${v}`);
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
  const readyOf = (service: string) => `(count(group by (address) (kube_endpointslice_endpoints{namespace="${ns}", endpointslice=~"${sliceRegex(service)}", ready="true"})) or on() vector(0))`;
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
  const endpointsExported = `count(kube_endpointslice_info{namespace="${ns}", endpointslice=~"${sliceRegex(name)}"}) > 0`;
  const below = `(${ready} < ${desired} * ${floor} / ${d.replicas}) and on() (${endpointsExported})`;

  const rules: Decision<AlertRule>[] = [];
  const add = (r: Omit<AlertRule, 'labels' | 'annotations' | 'anchor'> & { summary: string; description: string }, reason: string, inputs: Record<string, Fact>) => {
    const anchor = githubSlug(r.alert);
    const { summary, description, ...rest } = r;
    rules.push(decided<AlertRule>({
      ...rest,
      anchor,
      labels: { severity: r.severity, namespace: ns, service: name, mechanism: r.mechanism },
      annotations: { summary, description, runbook_url: `${runbookUrl}#${anchor}` },
    }, reason, inputs));
  };

  add({
    alert: 'ReadyEndpointsBelowFloor', mechanism: 'readiness-floor', severity: 'critical',
    expr: below, for: promDuration(sustained),
    summary: `${name}: ready endpoints below the capacity floor (readiness removed pods; restarts and error logs stay flat)`,
    description: `Service ${ns}/${name} has {{ $value }} ready endpoints, fewer than ${floor} of every ${d.replicas} desired replicas, for over ${promDuration(sustained)}. Survivors run past the utilisation ceiling; this is the start of the readiness cascade (docs/mechanisms.md#readiness-control-loop, #fixes-and-verification).`,
    meaning: `Fewer pods are in the Service's endpoints than the capacity figures need (${floor} of ${d.replicas}, scaled to the desired count), for longer than any single rollout step or scale-up takes. Readiness removed them: nothing restarts, no exit code, no error log, so this is the only early signal of the readiness cascade (docs/mechanisms.md#readiness-control-loop, #fixes-and-verification).`,
    checkFirst: [
      `Probe failure events: \`kubectl -n ${ns} get events --field-selector reason=Unhealthy\` and read the text: statuscode 503 vs context deadline exceeded (see "A timeout is not a status code").`,
      `CPU of the remaining pods (throttling if a CPU limit is set) and the health path's latency at this load.`,
      'Scale out first (raise replicas in Git) to leave the oscillating region; then find the cause (docs/mechanisms.md#fixes-and-verification).',
    ],
  }, `Ready endpoints of Service ${name} (${SOURCES.endpointSlice}) against desired replicas (${desiredSource}): fires when ready < desired x ${floor} / ${d.replicas}. Floor: ${floorD.reason} for ${promDuration(sustained)}: ${sustainedD.reason} Zero ready endpoints leave no kube_endpointslice_endpoints{ready="true"} series, so the count falls back to 0 (or on() vector(0)) instead of going silent; the fallback applies only while kube_endpointslice_info shows the Service's EndpointSlices are exported (ReadyEndpointsMetricMissing says when they are not).`,
  { floor, replicas: d.replicas, forSeconds: sustained });

  add({
    alert: 'ReadyEndpointsOscillating', mechanism: 'readiness-sawtooth', severity: 'critical',
    expr: `(changes((${ready} < bool ${desired} * ${floor} / ${d.replicas})[${promDuration(oscWindow)}:${promDuration(scrape)}]) >= ${OSCILLATION_CROSSINGS}) and on() (resets(${ready}[${promDuration(oscWindow)}:${promDuration(scrape)}]) >= 2) and on() (${endpointsExported})`,
    for: '0s',
    summary: `${name}: ready endpoints collapse and recover in a saw-tooth (readiness cascade)`,
    description: `Service ${ns}/${name}'s ready endpoint count crossed the floor (${floor} of ${d.replicas} desired) {{ $value }} times in ${promDuration(oscWindow)}: pods leave together, return together and collapse again (docs/mechanisms.md#readiness-control-loop). A sustained-shortfall alert never fires on this shape because every recovery resets its timer.`,
    meaning: 'The ready count drops below the floor and recovers, repeatedly: all ready, none ready, all ready. Once every pod is out, traffic is zero, every probe passes, the fleet re-enters at full load, cold, and collapses again (docs/mechanisms.md#readiness-control-loop). Users see waves of 503 (UH while no endpoint is ready).',
    checkFirst: [
      'Scale out immediately (replicas in Git, then sync): fewer pods per request is the only thing that leaves the oscillation.',
      `The readiness probe's failure text in events (deadline exceeded = the handler is starved: CPU limit, load).`,
      'Whether the readiness handler calls a dependency (it must not, docs/mechanisms.md#readiness-calls-a-dependency).',
    ],
  }, `Counts crossings of the floor by the ready count (${SOURCES.endpointSlice}; desired from ${desiredSource}) in a ${promDuration(oscWindow)} subquery at the ${scrape} s scrape step; ${OSCILLATION_CROSSINGS} crossings = down, up, down; and the ready count itself fell at least twice (resets() counts decreases), so an autoscaler raising desired replicas twice, which moves the floor but never lowers the ready count, does not fire. Window: ${oscWindowD.reason} No for: the window already requires the pattern to repeat. A saw-tooth faster than two scrapes (${2 * scrape} s) aliases and may be missed; the golden path's leave/return windows (${leave} s / ${ret} s) keep cycles slower than that.`,
  { floor, windowSeconds: oscWindow, crossings: OSCILLATION_CROSSINGS });

  add({
    alert: 'ReadinessFlapping', mechanism: 'readiness-flapping', severity: 'warning',
    expr: `count((max by (pod) (${ownPods(`changes(kube_pod_status_ready{namespace="${ns}", condition="true"}[${promDuration(flapWindow)}])`, promDuration(flapWindow))}) >= ${FLAP_CHANGES}) unless on(pod) (max by (pod) (increase(kube_pod_container_status_restarts_total{namespace="${ns}"}[${promDuration(flapWindow)}])) > 0)) > 0`,
    for: promDuration(rateWindow),
    summary: `${name}: pods flapping Ready without restarting (readiness leaves and returns)`,
    description: `{{ $value }} pod(s) of ${ns}/${name} changed Ready at least ${FLAP_CHANGES} times in ${promDuration(flapWindow)} without a container restart: the readiness probe fails intermittently (deadline below the handler's p99 under load, or a dependency in the handler), and the gateway serves a steady trickle of 503s in waves (docs/mechanisms.md#readiness-calls-a-dependency).`,
    meaning: `A few pods keep leaving and re-entering the Service: with 10 pods, 2-3 out at any moment. Nothing restarts, so restart-based alerts are silent. Typical causes: the probe deadline is below the handler's p99 under load, or the handler calls a dependency (docs/mechanisms.md#readiness-calls-a-dependency).`,
    checkFirst: [
      `The failure text of the flapping pods' probe events (\`kubectl -n ${ns} get events --field-selector reason=Unhealthy\`).`,
      "The health path's p99 under current load against the probe's timeoutSeconds (values below).",
      'Whether the readiness handler calls a database or another service (it must not).',
    ],
  }, `Per pod of the service (owned by a ReplicaSet ${rsRegex}, which Deployment and Rollout pods share: ${SOURCES.podOwner}; kube_pod_status_ready carries no pod labels without --metric-labels-allowlist): changes of ${SOURCES.podReady} over ${promDuration(flapWindow)} >= ${FLAP_CHANGES}, minus pods whose ${SOURCES.restarts} increased (restart loops are a different failure, docs/mechanisms.md#liveness-vs-readiness). Window: ${flapWindowD.reason} for ${promDuration(rateWindow)} (4 scrapes) so one evaluation on a half-scraped window does not fire.`,
  { windowSeconds: flapWindow, changes: FLAP_CHANGES });

  // Every response Envoy gives, from a pod or its own (UH), counts in exactly one class counter;
  // upstream_rq_total counts only requests sent upstream, so a total outage of local 503s would
  // leave it flat and the ratio without a sample (docs/mechanisms.md#counters-created-at-first-use).
  const total = `sum(rate(envoy_cluster_upstream_rq_xx{${routeSel}}[5m]))`;
  if (hasRoute) {
    add({
      alert: 'Route5xxOverSlo', mechanism: '5xx-slo', severity: 'critical',
      expr: `(sum(rate(envoy_cluster_upstream_rq_xx{${routeSel}, envoy_response_code_class="5"}[5m])) / ${total} > ${slo.value}) and on() (${total} > 0)`,
      for: '5m',
      summary: `${name}: route 5xx ratio above the ${slo.value * 100} % SLO (read the response flags to find the mechanism)`,
      description: `HTTPRoute ${ns}/${name} answered {{ $value | humanizePercentage }} 5xx over 5 minutes (SLO ${slo.value * 100} %). The status code alone does not say why: the response flags in the gateway's access log do (docs/mechanisms.md#response-flags).`,
      meaning: `More than ${slo.value * 100} % of the route's responses were 5xx for 5 minutes, counted over every response class, so 503s Envoy answers itself (UH, charged to class 5 but never to upstream_rq_total) count in the numerator and the denominator alike and a total outage reads 100 %, not "no data". The ratio blends every cluster of the route. A Service with no endpoints at all is not in it: Envoy Gateway answers that backend's share with a direct 503 (no response flag) or sends it to a cluster that does not exist (503 NC), and neither is counted on any cluster, so in that outage this alert stays silent and ReadyEndpointsBelowFloor pages (docs/mechanisms.md#counters-created-at-first-use, #panic-routing).`,
      checkFirst: [
        'The response flags of the 503s in Loki (query below): "-" = the pod answered 5xx (with response_code_details "direct_response" the gateway answered itself: the Service has no endpoints), UC = keep-alive race, UF = connect failure, UO = overflow, UT = timeout, NC = a backend with no endpoints.',
        'Whether a canary is in progress (a canary failing at 20 % shows as 1 % at 5 % weight).',
        'The application\'s own error logs when the flag is "-".',
      ],
    }, `Ratio of envoy_cluster_upstream_rq_xx{envoy_response_code_class="5"} to all envoy_cluster_upstream_rq_xx classes (Envoy cluster stats on Envoy Gateway's /stats/prometheus, port 19001; each class counter is created at its first response, source/common/http/codes.cc) over the route's clusters (envoy_cluster_name=~"${route}", Envoy Gateway's names for HTTPRoute ${name}'s rule clusters, including per-backend clusters) over 5 minutes, above the SLO: ${slo.reason} The denominator is every class, not upstream_rq_total: a 503 Envoy answers itself for lack of a healthy host is charged to class 5 without an upstream request (source/common/router/router.cc sendNoHealthyUpstreamResponse), so over upstream_rq_total a total outage would divide by 0 and vanish. A route that never failed has no class-5 series, so no sample: silent; 0/0 with no traffic is NaN, and the "and ... > 0" guard says so explicitly. for 5m: a single burst (one pod restarting) does not page; an SLO breach lasting 5 minutes does.`,
    { sloErrorRatio: slo.value });

    // Envoy's router answers a cluster with no healthy host itself and still charges the 503 to the
    // cluster (source/common/router/router.cc, Filter::sendNoHealthyUpstreamResponse ->
    // chargeUpstreamCode). With Envoy Gateway's 50 % panic threshold (internal/xds/translator/cluster.go,
    // v1.9.0) a cluster whose pods are all not Ready is in panic and sends every request to those pods
    // instead (docs/mechanisms.md#panic-routing), so the alert fires on either: UH (cx_none_healthy)
    // or panic picks (lb_healthy_panic).
    //
    // A Service with no endpoints at all is not routed to its cluster, and no route alert can see it.
    // Envoy Gateway v1.9.0 gives the rule a direct 503 when no backendRef of it has an endpoint
    // (internal/gatewayapi/route.go: processBackendRef's "no ready endpoints" error at line 3122 and the
    // failedNoReadyEndpoints case at lines 404-420), or, when another backendRef is valid, sends the
    // empty one's share to the cluster "invalid-backend-cluster", which does not exist, with
    // clusterNotFoundResponseCode 503 (internal/xds/translator/route.go buildXdsWeightedRouteAction,
    // lines 350-398). Envoy answers the first in Filter::decodeHeaders' direct-response branch (no
    // response flag, response_code_details "direct_response", counter http.<prefix>.rq_direct_response)
    // and the second in its unknown-cluster branch (flag NC, NoClusterFound; details
    // "cluster_not_found"; counter http.<prefix>.no_cluster); both return before a cluster is chosen,
    // so neither calls chargeUpstreamCode and no cluster counts them (router.cc decodeHeaders; flag
    // strings in source/common/stream_info/utility.h; both read on Envoy's main branch, commit
    // 001b1c0c in the index, as no release tag was available there; Envoy Gateway v1.9.0 runs Envoy
    // v1.39.0, api/v1alpha1/shared_types.go). The per-route stats a routeStatName turns on are charged
    // in chargeUpstreamCode as well. The counters that do move are the HTTP connection manager's, one
    // set per listener (stat prefix http-<port>, internal/xds/translator/listener.go hcmStatPrefix,
    // v1.9.0) shared by every route on it, and they count deliberate direct responses too: no sound
    // per-service signal. ReadyEndpointsBelowFloor is the alert for this case (ready endpoints 0
    // against desired replicas, from kube-state-metrics).
    add({
      alert: 'EnvoyNoHealthyUpstream', mechanism: 'UH', severity: 'critical',
      expr: `(max by (envoy_cluster_name) (envoy_cluster_membership_healthy{${routeSel}}) == 0) and on(envoy_cluster_name) ((sum by (envoy_cluster_name) (rate(envoy_cluster_upstream_cx_none_healthy{${routeSel}}[${promDuration(rateWindow)}])) > 0) or (sum by (envoy_cluster_name) (rate(envoy_cluster_lb_healthy_panic{${routeSel}}[${promDuration(rateWindow)}])) > 0))`,
      for: promDuration(2 * scrape),
      summary: `${name}: no Ready endpoint behind {{ $labels.envoy_cluster_name }} while requests arrive (Envoy UH, or panic routing to not-Ready pods)`,
      description: `Envoy cluster {{ $labels.envoy_cluster_name }} of route ${ns}/${name} has no healthy endpoint while requests arrive. With endpoints that are all not Ready, Envoy is in panic mode (Envoy Gateway keeps the 50 % threshold) and sends every request to those pods; a cluster that is routed to with no endpoint at all answers 503 with flag UH. A Service with no endpoints is not routed to its cluster at all (a direct 503, or 503 NC), which no Envoy alert sees: ReadyEndpointsBelowFloor does (docs/mechanisms.md#panic-routing, #response-flags).`,
      meaning: 'No endpoint Envoy has for this route (or for one backend of it, e.g. the canary) is Ready while requests arrive. If the cluster still lists the not-Ready pods, Envoy is in panic mode and routes every request to them, answered slowly or with 5xx by pods readiness took out; if a cluster that is still routed to lists none, Envoy answers 503 UH itself. This is the bottom of the readiness cascade, or a canary whose pods never became ready. Once the Service has no endpoint at all, Envoy Gateway stops routing to the cluster: users get a direct 503 (response flag "-", response_code_details direct_response) or a 503 NC, no cluster counts them, and this alert and Route5xxOverSlo go quiet while the outage goes on; ReadyEndpointsBelowFloor is the alert for that (docs/mechanisms.md#readiness-control-loop, #panic-routing, #response-flags).',
      checkFirst: [
        `Ready endpoints: \`kubectl -n ${ns} get endpointslices -l kubernetes.io/service-name=${name}\` (and ${name}-canary).`,
        'Which cluster: a name ending in /backend/<i> is one backendRef (the canary when it is the second one).',
        'Probe failure events, as for ReadyEndpointsBelowFloor.',
      ],
    }, `${SOURCES.membership}, per cluster of the route: the healthy-member gauge is 0 on every Envoy replica (max) while requests arrive, seen as UH (the no-healthy-host counter grows) or as panic routing (the panic counter grows: Envoy excludes not-Ready endpoints, which Envoy Gateway sends as DRAINING, from the healthy share and enters panic when none is left, then picks among all of them, upstream_impl.cc excludeBasedOnHealthFlag, load_balancer_impl.cc isHostSetInPanic; docs/mechanisms.md#panic-routing). An idle empty cluster does not fire. A Service with no endpoints at all is not seen here: Envoy Gateway (v1.9.0, internal/gatewayapi/route.go, internal/xds/translator/route.go) answers its share with a direct 503 or routes it to a cluster that does not exist (503 NC), and Envoy charges neither to any cluster (router.cc decodeHeaders); ReadyEndpointsBelowFloor is the alert for it (docs/mechanisms.md#panic-routing). for ${promDuration(2 * scrape)} (two scrapes): one stale gauge sample during an xDS update does not page.`,
    { forSeconds: 2 * scrape });

    add({
      alert: 'EnvoyUpstreamResetKeepAliveRace', mechanism: 'UC', severity: 'warning',
      expr: `(sum by (envoy_cluster_name) (increase(envoy_cluster_upstream_cx_destroy_remote_with_active_rq{${routeSel}}[15m])) > 0) or (max by (envoy_cluster_name) (envoy_cluster_upstream_cx_destroy_remote_with_active_rq{${routeSel}} unless envoy_cluster_upstream_cx_destroy_remote_with_active_rq{${routeSel}} offset 15m) > 0)`,
      for: '0s',
      summary: `${name}: upstream closed a connection with a request on it (Envoy UC, the keep-alive race)`,
      description: `Envoy cluster {{ $labels.envoy_cluster_name }} saw connections closed by the pod with a request in flight in the last 15 minutes: each is a 503 UC the client sees. The proxy's idle timeout must be shorter than the application's keep-alive (docs/mechanisms.md#keep-alive-race).`,
      meaning: 'A pod closed a pooled connection exactly as Envoy wrote a request onto it: no byte of response, 503 UC (upstream_reset_before_response_started). Rare under steady load, clustered when pools are redistributed (scale-out, rollout). Ratios never show it; any occurrence means the two idle timeouts are in the wrong order or a pod closes connections before it left the endpoints (docs/mechanisms.md#keep-alive-race).',
      checkFirst: [
        `The BackendTrafficPolicy attached to HTTPRoute ${name}: connectionIdleTimeout must be below the app's keep-alive (uvicorn 5 s, Node <= 25 5 s, ...).`,
        'Whether envoy_cluster_upstream_cx_idle_timeout grows (the proxy closing first: it should, after the fix).',
        'Pod terminations at the same moments (preStop delay shorter than endpoint propagation).',
        'Do not add retry-on-reset to hide it: unsafe for non-idempotent requests (docs/mechanisms.md#keep-alive-race).',
      ],
    }, `envoy_cluster_upstream_cx_destroy_remote_with_active_rq (Envoy cluster stat via Envoy Gateway; the keep-alive race signature in the reference) over 15 minutes per cluster of the route, above 0. The counter is one of the cluster's traffic stats, which Envoy Gateway's deferred stats create as one block at the cluster's first traffic (Envoy envoy/upstream/upstream.h ALL_CLUSTER_TRAFFIC_STATS, source/common/stats/deferred_creation.h), so on a route with traffic it exists at 0 before the first race and increase() sees the race. Only a race within the first scrape of a cluster's traffic (a canary cluster at its first weight, a restarted proxy) makes the series' first sample already 1, which increase() cannot see (it needs a sample before), so a series that exists now with a value above 0 and did not exist 15 minutes ago counts too (docs/mechanisms.md#counters-created-at-first-use). The race is rare (a few per hour under steady load), so a ratio or a short rate window would never see it; with the proxy's idle timeout below the app's and a preStop delay, the counter stays flat, so any increase is a misconfiguration. No for: each event is already a user-visible 503.`,
    { windowSeconds: 900 });

    for (const f of ENVOY_FLAGS) {
      add({
        alert: f.alert, mechanism: f.flag, severity: 'warning',
        expr: `sum by (envoy_cluster_name) (rate(${f.metric}{${routeSel}}[${promDuration(rateWindow)}])) > 0`,
        for: promDuration(rateWindow),
        summary: `${name}: ${f.what} (Envoy ${f.flag}) on {{ $labels.envoy_cluster_name }}`,
        description: `Envoy cluster {{ $labels.envoy_cluster_name }} of route ${ns}/${name} counts ${f.metric} for over ${promDuration(rateWindow)}: 5xx with response flag ${f.flag} (docs/mechanisms.md#response-flags).`,
        meaning: f.meaning,
        checkFirst: [...f.checkFirst],
      }, `${f.metric} (Envoy cluster stat via Envoy Gateway) per cluster of the route, rate over ${promDuration(rateWindow)} (4 scrapes) above 0, for another ${promDuration(rateWindow)}: one mechanism per alert so the responder starts at the right place (docs/mechanisms.md#response-flags); a transient event (one pod going away) does not last two windows. The counter is one of the cluster's traffic stats, which Envoy Gateway's deferred stats create together at the cluster's first traffic, all at 0 but the one counted (docs/mechanisms.md#counters-created-at-first-use): on a route with traffic the series is there at 0 and the rate sees the first event; a cluster that never had traffic has no series and no alert; a failure that is a new cluster's very first traffic (UF at its first connect) starts the series already counting, and the rate sees the events from its second scrape, which a sustained failure has.`,
      { windowSeconds: rateWindow });
    }
  }

  if (d.resources.cpuLimit.value !== undefined) {
    const sel = `namespace="${ns}", container="${container}"`;
    add({
      alert: 'CpuThrottlingHigh', mechanism: 'cpu-throttling', severity: 'warning',
      expr: `sum by (pod) (${ownPods(`rate(container_cpu_cfs_throttled_periods_total{${sel}}[5m])`, '5m')}) / sum by (pod) (${ownPods(`rate(container_cpu_cfs_periods_total{${sel}}[5m])`, '5m')}) > ${throttle.value}`,
      for: '5m',
      summary: `${name}: container throttled by its CPU limit (CFS quota): the probe measures load`,
      description: `Pod {{ $labels.pod }} of ${ns}/${name} was throttled in {{ $value | humanizePercentage }} of CFS periods over 5 minutes under the CPU limit ${d.resources.cpuLimit.value} kept by override. The readiness handler shares the quota: at peak it answers in seconds and readiness removes capacity (docs/mechanisms.md#cpu-limits-and-cfs-throttling).`,
      meaning: `The container used its CPU quota (limit ${d.resources.cpuLimit.value}, kept by override: ${d.resources.cpuLimit.reason}) in many 100 ms periods and was descheduled for the rest of each. The probe handler shares that quota, so probes time out exactly at peak (docs/mechanisms.md#readiness-control-loop).`,
      checkFirst: [
        'Whether the readiness events say "context deadline exceeded" on the throttled pods.',
        'Remove or raise the CPU limit in Git (keep the request: the pod stays Burstable, docs/mechanisms.md#fixes-and-verification).',
      ],
    }, `Throttled-period ratio from ${SOURCES.cfs} per pod of the service (${SOURCES.podOwner}), container "${container}", over 5 minutes, above ${throttle.value}: ${throttle.reason} Emitted only because a CPU limit (${d.resources.cpuLimit.value}) was kept by override; without a limit there is no CFS quota to throttle. for 5m: a peak, not a spike.`,
    { cpuThrottlingRatio: throttle.value, cpuLimit: d.resources.cpuLimit.value });
  }

  if (isRollout) {
    // <rollout>-<pod-template-hash>-<revision>[-<step index>][.<N>] (argo-rollouts v1.9.1
    // rollout/analysis.go, utils/analysis/helpers.go CreateWithCollisionCounter); the hash alphabet
    // keeps out another Rollout named <name>-<word> unless its word is spelled in it (see ownRuns).
    const runRegex = `${escapeRegex(name)}-[${HASH_ALPHABET}]{1,${MAX_HASH_LENGTH}}-[0-9]+(-[0-9]+)?([.][0-9]+)?`;
    // A failed run outlives its abort: the controller keeps the last 5 unsuccessful AnalysisRuns of a
    // Rollout (utils/defaults/defaults.go DefaultAnalysisRunUnsuccessfulHistoryLimit, v1.9.1), and
    // analysis_run_info{namespace, name, phase} is 1 for every run in its informer cache, with no
    // revision or time label (controller/metrics/analysis.go collectAnalysisRuns, prommetrics.go,
    // v1.9.1). So a run claims the current abort only if the rollout has been aborted ever since the
    // run failed: any scrape in which the run was Failed while rollout_info showed another phase
    // (the next release Progressing or Paused, a retry, a revert Completed) means the abort it caused
    // ended, and a later Abort is someone else's. The run's status and the rollout's are two writes,
    // both read from informer caches at scrape time, so the scrape between them may show the run
    // Failed and the rollout not yet Abort: up to CLAIM_SKEW_SCRAPES such scrapes are tolerated. A
    // rule sees only its window back: a run that failed more than CLAIM_WINDOW_SECONDS ago claims
    // nothing, so an abort older than that is RolloutDegraded's, never an old run's.
    // The pattern alone cannot tell this Rollout's runs from another's: a Rollout named
    // <name>-<word> whose word is spelled in the hash alphabet (checkout-api-bff) and whose hash is
    // all digits has runs like checkout-api-bff-5974865-7, read as hash "bff", revision 5974865,
    // step 7. analysis_run_info carries only namespace, name and phase (prommetrics.go
    // MetricAnalysisRunInfo, v1.9.1), no Rollout. But a run's name begins with the name of the
    // ReplicaSet it analyses, <rollout>-<pod-template-hash> (newAnalysisRunFromRollout joins
    // rollout.Name, podHash and the revision; the ReplicaSet is <rollout>-<hash>, rollout/sync.go),
    // and that ReplicaSet is owned by the Rollout (NewControllerRef, kind Rollout, rollout/sync.go),
    // which kube-state-metrics exports as kube_replicaset_owner{namespace, replicaset, owner_kind,
    // owner_name} (v2.19.1 internal/store/replicaset.go; "replicasets" is in DefaultResources,
    // pkg/options/resource.go). So a run claims only if the ReplicaSet its name starts with is this
    // Rollout's: checkout-api-bff is not checkout-api's. The hash class holds no "-", so the
    // ReplicaSet part of a name is read in one way only.
    const runReplicaSet = `label_replace(analysis_run_info{namespace="${ns}", name=~"${runRegex}", phase=~"Failed|Error"}, "replicaset", "$1", "name", "(${rsRegex})-.*")`;
    const ownRuns = `max by (namespace, name) (${runReplicaSet} and on(namespace, replicaset) kube_replicaset_owner{namespace="${ns}", owner_kind="Rollout", owner_name="${name}"})`;
    const failedRuns = (offset = '') => `max by (namespace, name, phase) (analysis_run_info{namespace="${ns}", name=~"${runRegex}", phase=~"Failed|Error"}${offset})`;
    const aborted = `max by (namespace) (rollout_info{namespace="${ns}", name="${name}", phase="Abort"})`;
    const notAborted = `max by (namespace) (rollout_info{namespace="${ns}", name="${name}", phase!="Abort"})`;
    const claimWindow = promDuration(CLAIM_WINDOW_SECONDS);
    const movedOn = `count_over_time((${failedRuns()} and on(namespace) ${notAborted})[${claimWindow}:${promDuration(scrape)}]) > ${CLAIM_SKEW_SCRAPES}`;
    const claiming = `(${failedRuns()} unless ${failedRuns(` offset ${claimWindow}`)}) unless on(namespace, name, phase) (${movedOn})`;
    const analysisFailed = `(${claiming} and on(namespace, name) ${ownRuns}) and on(namespace) ${aborted}`;
    add({
      alert: 'CanaryAnalysisFailed', mechanism: 'canary-analysis', severity: 'warning',
      expr: analysisFailed, for: promDuration(2 * scrape),
      summary: `${name}: canary analysis {{ $labels.name }} {{ $labels.phase }} and aborted the rollout (stable still serves)`,
      description: `AnalysisRun ${ns}/{{ $labels.name }} ended {{ $labels.phase }} and Rollout ${ns}/${name} is aborted: canary weight is back to 0 and the stable version serves. Argo CD shows the app Degraded until Git changes; the rollback is a git revert (docs/mechanisms.md#canary-analysis, #gitops-rollback).`,
      meaning: 'The canary analysis measured the new version failing (Failed) or could not measure it (Error) and aborted the rollout: the canary gets no traffic, stable serves (docs/mechanisms.md#canary-analysis). The bad version is still what Git declares, so the app stays Degraded until Git changes.',
      checkFirst: [
        `\`kubectl argo rollouts get rollout ${name} -n ${ns}\` and \`kubectl -n ${ns} describe analysisrun <name>\`: which metric, which measured value.`,
        'Error (not Failed) means the query returned nothing or NaN: check the analysis query, not the app.',
        'Roll back with `git revert` of the release commit; do not `kubectl argo rollouts undo` (self-heal re-applies Git, docs/mechanisms.md#gitops-rollback).',
      ],
    }, `${SOURCES.analysisRunInfo} in phase Failed or Error for a run of Rollout ${name}, while ${SOURCES.rolloutInfo} says phase Abort, and only a run that caused this abort: Argo Rollouts keeps the last 5 unsuccessful runs (utils/defaults/defaults.go, v1.9.1), so a run of an older release stays Failed in the metrics and would otherwise claim a later abort by hand. A run claims the abort when the rollout has been in Abort ever since the run failed: if the ${claimWindow} subquery at the ${scrape} s scrape step finds more than ${CLAIM_SKEW_SCRAPES} scrapes with the run Failed and the rollout in another phase (the next release progressing, a retry, a revert), the abort the run caused is over; up to ${CLAIM_SKEW_SCRAPES} are the moment between the run's status write and the rollout's. A run claims only if the ReplicaSet its name begins with, <name>-<pod-template-hash>, is owned by Rollout ${name} (${SOURCES.replicaSetOwner}): the name pattern alone also matches runs of a Rollout named ${name}-<word> whose word is spelled in the hash alphabet (e.g. ${name}-bff-5974865-7, read as hash "bff"); without kube-state-metrics' replicasets the abort is reported by RolloutDegraded instead. A run whose Failed series already existed ${claimWindow} ago claims nothing, because the rule cannot see further back: a failed-analysis abort left for over ${claimWindow} is reported by RolloutDegraded from then on. for ${promDuration(2 * scrape)} (two scrapes).`,
    { forSeconds: 2 * scrape, claimWindowSeconds: CLAIM_WINDOW_SECONDS, claimSkewScrapes: CLAIM_SKEW_SCRAPES });

    add({
      alert: 'RolloutDegraded', mechanism: 'rollout-degraded', severity: 'warning',
      expr: `max by (namespace, name, phase) (rollout_info{namespace="${ns}", name="${name}", phase=~"Abort|Timeout|Error|InvalidSpec"}) unless on(namespace) (${analysisFailed})`,
      for: promDuration(2 * scrape),
      summary: `${name}: rollout {{ $labels.phase }} (Argo CD shows Degraded)`,
      description: `Rollout ${ns}/${name} is in phase {{ $labels.phase }}: Abort (aborted by hand, or by a failed analysis over ${claimWindow} ago), Timeout (progress deadline exceeded: a new pod never became available), Error (ReplicaSet or Service missing) or InvalidSpec (the controller rejected the spec; there is no admission webhook).`,
      meaning: `The rollout is stuck or stopped for a reason other than a fresh failed analysis: a new pod never became available within progressDeadlineSeconds (Timeout), someone aborted it (a failed run of an earlier release, still kept in the run history, does not claim this abort), a referenced Service is missing (Error), or the spec is invalid (InvalidSpec, only visible at reconcile time). An abort by a failed analysis that has lasted over ${claimWindow} is shown here too.`,
      checkFirst: [
        `\`kubectl argo rollouts get rollout ${name} -n ${ns}\`: the message names the condition.`,
        'Timeout: the new pods\' readiness events (a broken image stalls here by design, maxUnavailable 0).',
        'Fix forward or `git revert` in Git; an in-place undo is reverted by self-heal (docs/mechanisms.md#gitops-rollback).',
      ],
    }, `${SOURCES.rolloutInfo}: the phases Argo CD shows as Degraded (Abort, Timeout = ProgressDeadlineExceeded, InvalidSpec) plus Error; an abort a failed run claims (CanaryAnalysisFailed's expression, which leaves out runs of earlier releases) is left to CanaryAnalysisFailed so one incident pages once. for ${promDuration(2 * scrape)} (two scrapes) so a phase seen in one reconcile does not fire.`,
    { forSeconds: 2 * scrape });
  } else {
    add({
      alert: 'RolloutDegraded', mechanism: 'rollout-degraded', severity: 'warning',
      expr: `max by (namespace, deployment) (kube_deployment_status_condition{namespace="${ns}", deployment="${name}", condition="Progressing", status="false"}) == 1`,
      for: promDuration(2 * scrape),
      summary: `${name}: rollout exceeded its progress deadline (Deployment Progressing=False)`,
      description: `Deployment ${ns}/${name} has Progressing=False: a new pod did not become available within progressDeadlineSeconds (${d.rollout.progressDeadlineSeconds.value} s). With maxUnavailable 0 the old pods keep serving (docs/mechanisms.md#rollout-complete).`,
      meaning: `A new pod did not become available within progressDeadlineSeconds (${d.rollout.progressDeadlineSeconds.value} s): with maxUnavailable 0 the rollout stalls instead of completing while pods flap (docs/mechanisms.md#rollout-complete). The old pods keep serving.`,
      checkFirst: [
        `\`kubectl -n ${ns} rollout status deployment/${name}\` and the new pods' readiness events.`,
        'Roll back with `git revert`; `kubectl rollout undo` is reverted by Argo CD self-heal (docs/mechanisms.md#gitops-rollback).',
      ],
    }, `${SOURCES.deploymentCondition}: the Deployment controller sets Progressing=False (ProgressDeadlineExceeded) when the deadline passes. for ${promDuration(2 * scrape)} (two scrapes).`,
    { forSeconds: 2 * scrape });
  }

  const missingFor = 10 * 60;
  add({
    alert: 'ReadyEndpointsMetricMissing', mechanism: 'readiness-signal-missing', severity: 'warning',
    expr: `absent(kube_endpointslice_info{namespace="${ns}", endpointslice=~"${sliceRegex(name)}"})`,
    for: promDuration(missingFor),
    summary: `${name}: no ready-endpoints signal (kube-state-metrics exports no EndpointSlice of the Service): the readiness-cascade alerts are blind`,
    description: `Prometheus has no kube_endpointslice_info for the EndpointSlices of Service ${ns}/${name}: kube-state-metrics does not collect endpointslices (they are in its defaults; a --resources list may leave them out), is not scraped, or the Service is gone. ReadyEndpointsBelowFloor and ReadyEndpointsOscillating cannot fire until it does (docs/mechanisms.md#fixes-and-verification).`,
    meaning: 'The only early signal of a readiness cascade is ready endpoints against desired replicas, and that count comes from kube-state-metrics\' EndpointSlice metrics. Without them the floor and saw-tooth alerts stay silent while pods leave the Service (docs/mechanisms.md#fixes-and-verification).',
    checkFirst: [
      'kube-state-metrics\' --resources flag (Helm: kube-state-metrics.collectors): `endpointslices` must be in the list (it is in the defaults), and its ServiceMonitor must be scraped.',
      `That the Service and its slices exist: \`kubectl -n ${ns} get endpointslices -l kubernetes.io/service-name=${name}\`.`,
    ],
  }, `absent() of kube_endpointslice_info{namespace, endpointslice=~"${sliceRegex(name)}"} (kube-state-metrics v2.19.1 internal/store/endpointslice.go; 1 for every EndpointSlice, with or without endpoints), which exists only while kube-state-metrics collects endpointslices (in its DefaultResources, pkg/options/resource.go, v2.19.1) and the Service has slices, named <service>- cut to 58 characters plus 5 generated ones (docs/mechanisms.md#generated-names). The ready-endpoints alerts require it, so that a missing collector gives this warning instead of a permanent "0 ready" page. for ${promDuration(missingFor)}: longer than a new Service takes to appear in the scrape.`,
  { forSeconds: missingFor });

  if (isRollout) {
    // The controller exports rollout_info for every Rollout in its informer cache at every scrape
    // (argo-rollouts v1.9.1 controller/metrics/rollouts.go Collect, RolloutLister.List), labelled with
    // the Rollout's own namespace. It is absent only when the controller is not scraped, or when the
    // scrape did not keep that label: with honor_labels false the target's namespace (the
    // controller's) wins and the metric's is stored as exported_namespace (prometheus-operator v0.93.0
    // pkg/prometheus/promcfg.go generatePodMonitorConfig and AddHonorLabels; prometheus
    // scrape/scrape.go mutateSampleLabels), and a Prometheus with enforcedNamespaceLabel overwrites it
    // last (pkg/namespacelabeler/labeler.go GetRelabelingConfigs).
    add({
      alert: 'RolloutMetricsMissing', mechanism: 'rollout-signal-missing', severity: 'warning',
      expr: `absent(rollout_info{namespace="${ns}", name="${name}"})`,
      for: promDuration(missingFor),
      summary: `${name}: no rollout_info for Rollout ${ns}/${name} (the Argo Rollouts controller is not scraped with its own namespace label): the rollout and readiness-floor alerts are blind`,
      description: `Prometheus has no rollout_info{namespace="${ns}", name="${name}"}: the Argo Rollouts controller is not scraped, or it is scraped without honorLabels and its namespace label is stored as exported_namespace beside the controller's own namespace. ReadyEndpointsBelowFloor, ReadyEndpointsOscillating, CanaryAnalysisFailed and RolloutDegraded select the controller's series by namespace and cannot fire until it is fixed (docs/mechanisms.md#an-exporters-own-namespace-label).`,
      meaning: `The alerts on this Rollout read the Argo Rollouts controller's metrics by the service's namespace: desired replicas (the readiness floor), the rollout's phase and its analysis runs. The controller labels each series with the Rollout's namespace, and Prometheus keeps that label only when the scrape honours it; otherwise every series is stored under the controller's namespace and these alerts stay silent through an aborted release or a readiness cascade (docs/mechanisms.md#an-exporters-own-namespace-label).`,
      checkFirst: [
        `In Prometheus: \`count by (job, namespace) (rollout_info{exported_namespace="${ns}", name="${name}"})\`. A result means the controller is scraped without honorLabels: set honorLabels: true on that ServiceMonitor or PodMonitor (\`rollwise platform\`'s argo-rollouts-controller has it), or see docs/cluster.md for a Prometheus with overrideHonorLabels or enforcedNamespaceLabel.`,
        'No result: whether anything scrapes the controller (port "metrics", 8090, path /metrics) and its target is up.',
        `That the Rollout exists: \`kubectl -n ${ns} get rollout ${name}\`.`,
      ],
    }, `absent() of ${SOURCES.rolloutInfo} for Rollout ${name}. The controller exports it for every Rollout it knows at every scrape, labelled with the Rollout's namespace, so it is absent only when the controller is not scraped or its namespace label was not kept: without honorLabels the Prometheus Operator's target label namespace wins and the controller's is stored as exported_namespace (prometheus-operator v0.93.0 promcfg.go; docs/mechanisms.md#an-exporters-own-namespace-label). ReadyEndpointsBelowFloor, ReadyEndpointsOscillating, CanaryAnalysisFailed and RolloutDegraded would then be silent; this warning makes that loud. for ${promDuration(missingFor)}: longer than a new Rollout takes to appear in the scrape.`,
    { forSeconds: missingFor });
  }

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
  return { name, namespace: ns, workload: targets.workload, runbookUrl, routeClusterRegex: route, route: hasRoute, replicaSetRegex: rsRegex, endpointSliceRegex: sliceRegex(name), readyEndpoints: (service = name) => readyOf(service), ownPods, containerName: container, rules, values };
}

function checkRatio(input: string, v: number): void {
  if (typeof v !== 'number' || !(v > 0 && v < 1)) {
    throw new RollwiseInputError(input, v, 'must be a fraction above 0 and below 1 (0.01 = 1 %); 0 alerts on every error, 1 never alerts.', 'give a fraction, e.g. 0.01.');
  }
}

function checkRunbookUrl(url: string): string {
  if (typeof url !== 'string' || !/^https?:\/\/[^\s#]+$/.test(url)) {
    throw new RollwiseInputError('runbookUrl', url, 'must be an absolute http(s) URL without a "#" fragment: each alert appends "#<section>" to it, and a responder opens it from the alert.', 'give the web URL of the committed runbook file, e.g. "https://github.com/acme/deploy/blob/main/dist/checkout-api.runbook.md".');
  }
  return url;
}
