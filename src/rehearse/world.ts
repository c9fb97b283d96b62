/**
 * The world a canary runs in, second by second, and the series the exporters expose at each scrape.
 *
 * Until the first analysis verdict that stops it, a rollout does not depend on analysis outcomes:
 * it scales, sets weights and waits through pauses on its own. So one timeline per release, built
 * as if every analysis passed, can be measured measurement by measurement until the first verdict
 * that aborts or pauses (the analysis loop, loop.ts, stops there).
 *
 * Faithful where it matters:
 * - Argo Rollouts (v1.9.1): the canary ReplicaSet is scaled to ceil(weight x replicas / 100)
 *   (utils/replicaset/canary.go trafficWeightToReplicas) when a setWeight step starts; the route
 *   weight moves to the step's weight only once the canary has those pods available, keeps the
 *   previous setWeight while it has not, and is 0 while the canary has no available pod at all
 *   (rollout/trafficrouting.go reconcileTrafficRouting). A pod is available after minReadySeconds
 *   Ready. The background run starts when the step index reaches startingStep
 *   (rollout/analysis.go) and ends at full promotion; after the last step the canary is scaled to
 *   every replica and the rollout is fully promoted once they are available.
 * - Envoy Gateway (v1.9.0): a backendRef with weight 0 is skipped (internal/gatewayapi/route.go),
 *   so its cluster exists only while its weight is above 0; a backendRef with filters of its own is
 *   a cluster `.../rule/<n>/backend/<i>` (internal/gatewayapi/helpers.go). Envoy creates the
 *   response-code and response-class counters at their first use, each on its own
 *   (source/common/http/codes.cc), and Envoy Gateway's bootstrap sets enableDeferredCreationStats
 *   (internal/xds/bootstrap/bootstrap.yaml.tpl), so the cluster's traffic stats (upstream_rq_total,
 *   upstream_cx_none_healthy, ...: ClusterTrafficStats, envoy/upstream/upstream.h
 *   ALL_CLUSTER_TRAFFIC_STATS) are created as one block at the first use of any of them, every
 *   counter at 0 but the one counted (source/common/stats/deferred_creation.h DeferredStats: one
 *   `new StatsStructType` at the first getOrCreate), here the cluster's first request; of the block
 *   the analysis reads upstream_rq_total only, so only it is written; the endpoint and load-balancer
 *   stats (membership_healthy, membership_total, lb_healthy_panic) exist with the cluster
 *   (docs/mechanisms.md#counters-created-at-first-use). 503s for "no healthy upstream" are charged to
 *   upstream_rq_xx class 5 and not to upstream_rq_total: the router's local reply
 *   (envoyproxy/envoy source/common/router/router.cc Filter::sendNoHealthyUpstreamResponse calls
 *   chargeUpstreamCode(503) without an upstream request, and upstream_rq_total counts requests sent
 *   upstream).
 * - Panic routing (docs/mechanisms.md#panic-routing): Envoy Gateway sends a not-Ready endpoint as
 *   DRAINING (internal/gatewayapi/route.go getIREndpointsFromEndpointSlice, internal/xds/translator/
 *   cluster.go) and keeps Envoy's 50 % panic threshold (cluster.go); Envoy excludes DRAINING hosts
 *   from the panic arithmetic and enters panic when the healthy share of the rest is below it, i.e.
 *   only when no host is Ready, and in panic picks from all hosts, the DRAINING ones included
 *   (source/common/upstream/upstream_impl.cc excludeBasedOnHealthFlag; source/extensions/
 *   load_balancing_policies/common/load_balancer_impl.cc isHostSetInPanic, hostSourceToHosts). So
 *   requests to a cluster whose pods are all not Ready reach those pods (lb_healthy_panic counts
 *   them). A cluster without any host is not routed to: Envoy Gateway answers the rule with a direct
 *   503 when no backendRef has an endpoint (internal/gatewayapi/route.go failedNoReadyEndpoints) or
 *   sends the empty backendRef's share to the non-existent invalid-backend-cluster (503 NC,
 *   internal/xds/translator/route.go buildXdsWeightedRouteAction), and Envoy answers both before it
 * picks a cluster (router.cc decodeHeaders), so the empty cluster counts none of it. The Envoy files were read in the
 * code
 *   index's copy of envoyproxy/envoy main, not at v1.39.0 (the image Envoy Gateway v1.9.0 ships,
 *   api/v1alpha1/shared_types.go): the repository is over the size `fetch` can bring here. The
 *   runtime guard exclude_host_in_eds_status_draining is on by default there (RUNTIME_GUARD).
 *   Envoy Gateway's files were read at v1.9.0.
 * - kube-state-metrics (v2.19.1): kube_pod_status_ready{condition="true"|"false"|"unknown"} for each
 *   pod, from its Ready condition, and kube_pod_owner{owner_kind="ReplicaSet", owner_name} for every
 *   pod (internal/store/pod.go); a new pod is not Ready until its readiness probe passed
 *   successThreshold times in a row after the start-up probe passed once.
 * - Pod names are what the API server makes of `generateName: <rollout>-<hash>-`: cut to 58
 *   characters, then 5 random ones (src/decisions/generated-names.ts, docs/mechanisms.md#generated-names).
 */
import { GENERATED_ALPHABET, podName, replicaSetName } from '../decisions/generated-names';
import type { RolloutModel, RunSpec } from './manifest';
import { HEALTHY_START_SECONDS, LOW_TRAFFIC_FRACTION, type Release } from './releases';

/** kube-prometheus-stack scrapes its ServiceMonitors every 30 s. */
export const DEFAULT_SCRAPE_SECONDS = 30;
/** Scrapes are not aligned with measurements: the first one lands this many seconds in. */
export const SCRAPE_OFFSET_SECONDS = 7;
/** Envoy proxies in front of the service; each gets half of the requests. */
export const PROXIES = ['envoy-public-7d4b9-kx2lp', 'envoy-public-7d4b9-q8zrt'];
/** How long the rehearsal's human takes to promote a pause without duration. */
export const HUMAN_PROMOTE_SECONDS = 300;
/** Beyond this the rehearsal stops (a rollout waiting on a pause without duration). */
export const HORIZON_SECONDS = 4 * 3600;

export interface WorldOptions {
  readonly scrapeSeconds?: number;
  /** Requests per second at a release's usual time; default the model's release-rps, else peak. */
  readonly releaseRps?: number;
  /** Requests per second in quiet hours; default LOW_TRAFFIC_FRACTION of the peak. */
  readonly lowRps?: number;
}

export interface Series {
  readonly name: string;
  readonly labels: Record<string, string>;
  /** [seconds since the rollout started, value], at scrapes. */
  readonly samples: Array<[number, number]>;
}

export type WorldEvent = { readonly t: number; readonly text: string };

export interface GatePlan {
  readonly stepIndex: number;
  readonly start: number;
  readonly run: RunSpec;
}

export interface World {
  readonly release: Release;
  readonly rps: number;
  readonly durationSeconds: number;
  readonly scrapeSeconds: number;
  /** Per second: the canary's route weight, its pods, Ready pods and available pods, the step index. */
  readonly weight: number[];
  readonly canaryPods: number[];
  readonly canaryReady: number[];
  readonly canaryAvailable: number[];
  readonly stepIndex: number[];
  readonly series: Series[];
  readonly events: WorldEvent[];
  readonly backgroundStart?: number;
  readonly gates: GatePlan[];
  /** Full promotion, if the rollout gets there. */
  readonly promotedAt?: number;
  /** Pauses without duration the rehearsal's human promoted. */
  readonly manualPromotions: number;
  /** Why the world stopped without promotion (the progress deadline). */
  readonly stuck?: { readonly t: number; readonly why: string; readonly outcome: 'aborted' | 'paused' };
}

/** Seconds a gate needs when every metric succeeds: initialDelay + (count - 1) x interval. */
export function gateDuration(run: RunSpec): number {
  let d = 0;
  for (const m of run.metrics) d = Math.max(d, m.initialDelaySeconds + ((m.count ?? 1) - 1) * (m.intervalSeconds ?? 0));
  return d;
}

interface Pod {
  readonly name: string;
  readonly uid: string;
  /** The owning ReplicaSet (kube_pod_owner's owner_name). */
  readonly replicaSet: string;
  readonly created: number;
  /** Per second from creation: Ready? */
  readyAt(t: number): boolean;
}

const SUFFIX = GENERATED_ALPHABET;
function podSuffix(i: number): string {
  let s = '';
  let x = i * 7919 + 104729;
  for (let k = 0; k < 5; k++) {
    s += SUFFIX[x % SUFFIX.length];
    x = Math.floor(x / SUFFIX.length) + k * 31;
  }
  return s;
}

/** When a pod created at `created` turns Ready, from its probes and the process start time. */
export function firstReady(model: RolloutModel, created: number, startSeconds: number): number {
  const r = model.readiness;
  let probesFrom = created + r.initialDelaySeconds;
  if (model.startupPeriodSeconds > 0) {
    // Start-up probe every period from container start; readiness probes only count after it passed.
    const p = model.startupPeriodSeconds;
    probesFrom = created + Math.ceil(startSeconds / p) * p;
  }
  // Readiness probes tick every period from the pod's start; the first success is the first tick at
  // or after both the process answering and the start-up probe passing.
  const ready = Math.max(probesFrom, created + startSeconds);
  const firstTick =
    created +
    r.initialDelaySeconds +
    Math.ceil(Math.max(0, ready - created - r.initialDelaySeconds) / r.periodSeconds) * r.periodSeconds;
  return firstTick + (r.successThreshold - 1) * r.periodSeconds;
}

/**
 * The names a pod of ReplicaSet `hash` gets, by its index: its ReplicaSet, its name as the API server makes it, its
 * uid.
 */
function podIdentity(
  model: RolloutModel,
  hash: string,
  index: number,
): { replicaSet: string; name: string; uid: string } {
  const replicaSet = replicaSetName(model.name, hash);
  const name = podName(replicaSet, podSuffix(index + (hash === model.canaryHash ? 100 : 0)));
  const uid = `00000000-0000-4000-8000-${String(index + (hash === model.canaryHash ? 100 : 0)).padStart(12, '0')}`;
  return { replicaSet, name, uid };
}

/** The envoy metrics the exporters' series carry, and kube-state-metrics' two. */
const METRIC_NAMES = [
  'envoy_cluster_membership_healthy',
  'envoy_cluster_membership_total',
  'envoy_cluster_lb_healthy_panic',
  'envoy_cluster_upstream_rq_total',
  'envoy_cluster_upstream_rq_xx',
  'envoy_cluster_upstream_rq',
  'kube_pod_status_ready',
  'kube_pod_owner',
];

/**
 * Every value each label of the exporters' series can take in any world of `model` (every release,
 * every traffic), by label name, in a fixed order of roles (the stable cluster before the canary's,
 * proxies, then stable pods, then canary pods by index); the metric names under `__name__`. The
 * synth rehearsal's memo (memo.ts) sees a model's names only through these values, and
 * test/rehearse/memo.test.ts checks that every world's series use no other.
 */
export function seriesLabelValues(model: RolloutModel): Record<string, string[]> {
  const N = model.replicas;
  // The canary is scaled to ceil(weight x replicas / 100) at a setWeight step and to every replica at the end.
  let canaryPods = N;
  for (const s of model.steps)
    if (s.kind === 'setWeight') canaryPods = Math.max(canaryPods, Math.ceil((s.weight * N) / 100));
  const stable = Array.from({ length: Math.max(0, N) }, (_, i) => podIdentity(model, model.stableHash, i));
  const canary = Array.from({ length: Math.max(0, canaryPods) }, (_, i) => podIdentity(model, model.canaryHash, i));
  return {
    __name__: METRIC_NAMES,
    envoy_cluster_name: [model.stableCluster, model.canaryCluster],
    namespace: ['envoy-gateway-system', model.namespace],
    pod: [...PROXIES, ...stable.map((p) => p.name), ...canary.map((p) => p.name)],
    uid: [...stable.map((p) => p.uid), ...canary.map((p) => p.uid)],
    envoy_response_code_class: ['2', '5'],
    envoy_response_code: ['200', '503'],
    condition: ['true', 'false', 'unknown'],
    owner_kind: ['ReplicaSet'],
    owner_name: [replicaSetName(model.name, model.stableHash), replicaSetName(model.name, model.canaryHash)],
    owner_is_controller: ['true'],
  };
}

function makePod(model: RolloutModel, release: Release | undefined, hash: string, index: number, created: number): Pod {
  const { replicaSet, name, uid } = podIdentity(model, hash, index);
  if (!release) return { name, uid, replicaSet, created, readyAt: () => true };
  const budget = model.startupBudgetSeconds;
  const start = release.startSeconds === 'budget' ? Math.floor(0.9 * (budget ?? 60)) : release.startSeconds;
  const ready = firstReady(model, created, start);
  const flap = release.flapAfterReadySeconds;
  const once = release.failReadinessOnceAfterReadySeconds;
  const r = model.readiness;
  const leave = r.failureThreshold * r.periodSeconds;
  const back = r.successThreshold * r.periodSeconds;
  return {
    name,
    uid,
    replicaSet,
    created,
    readyAt: (t: number) => {
      if (t < ready) return false;
      // Readiness fails once: out after the leave window, back after the return window.
      if (once !== undefined) return !(t - ready >= once + leave && t - ready < once + leave + back);
      if (flap === undefined) return true;
      // Ready for `flap` s, then the probe fails: out after the leave window, back after the return window.
      const cycle = flap + leave + back;
      return (t - ready) % cycle < flap + leave;
    },
  };
}

/** Build the world of one release for one rollout. */
export function buildWorld(model: RolloutModel, release: Release, opts: WorldOptions = {}): World {
  const scrape = opts.scrapeSeconds ?? DEFAULT_SCRAPE_SECONDS;
  const peak = model.peakRps ?? 0;
  const releaseRps = opts.releaseRps ?? model.releaseRps ?? peak;
  const rps =
    release.traffic === 'none'
      ? 0
      : release.traffic === 'low'
        ? (opts.lowRps ?? peak * LOW_TRAFFIC_FRACTION)
        : releaseRps;
  const N = model.replicas;
  const events: WorldEvent[] = [];
  const stable: Pod[] = Array.from({ length: N }, (_, i) => makePod(model, undefined, model.stableHash, i, -3600));
  const canary: Pod[] = [];
  const weight: number[] = [];
  const canaryPods: number[] = [];
  const canaryReady: number[] = [];
  const canaryAvailable: number[] = [];
  const stepIndex: number[] = [];
  const gates: GatePlan[] = [];
  const readySince = new Map<string, number>();

  let index = 0;
  let stepStarted = 0;
  let currentWeight = 0;
  let backgroundStart: number | undefined;
  let promotedAt: number | undefined;
  let stuck: World['stuck'];
  let lastProgress = 0;
  let lastAvailable = 0;
  let desiredCanary = 0;
  let manualPromotions = 0;
  const steps = model.steps;
  const setWeightAt = (i: number): number => {
    for (let k = Math.min(i, steps.length - 1); k >= 0; k--) {
      const s = steps[k];
      if (s.kind === 'setWeight') return s.weight;
    }
    return 0;
  };
  const prevSetWeight = (i: number): number => {
    for (let k = i - 1; k >= 0; k--) {
      const s = steps[k];
      if (s.kind === 'setWeight') return s.weight;
    }
    return 0;
  };

  const scale = (t: number, want: number) => {
    if (want <= canary.length) return;
    for (let i = canary.length; i < want; i++) canary.push(makePod(model, release, model.canaryHash, i, t));
    events.push({ t, text: `canary scaled to ${want} pod(s)` });
    desiredCanary = want;
  };

  const enterStep = (t: number) => {
    stepStarted = t;
    lastProgress = t;
    if (
      model.background &&
      backgroundStart === undefined &&
      index >= model.background.startingStep &&
      index < steps.length
    ) {
      backgroundStart = t;
      events.push({ t, text: `background analysis starts (${model.background.templates.join(', ')})` });
    }
    if (index >= steps.length) {
      events.push({ t, text: 'all steps done: canary scaled to every replica for full promotion' });
      scale(t, N);
      return;
    }
    const s = steps[index];
    if (s.kind === 'setWeight') scale(t, Math.ceil((s.weight * N) / 100));
    if (s.kind === 'analysis') {
      gates.push({ stepIndex: index, start: t, run: s.run });
      events.push({ t, text: `gate analysis starts (${s.run.templates.join(', ')})` });
    }
  };

  enterStep(0);
  let t = 0;
  for (; t <= HORIZON_SECONDS; t++) {
    // Pod readiness and availability.
    let ready = 0;
    let available = 0;
    for (const p of canary) {
      const r = p.readyAt(t);
      if (r) {
        ready++;
        if (!readySince.has(p.name)) readySince.set(p.name, t);
        if (t - (readySince.get(p.name) ?? t) >= model.minReadySeconds) available++;
      } else readySince.delete(p.name);
    }
    if (available > lastAvailable) lastProgress = t;
    lastAvailable = available;
    // Route weight (rollout/trafficrouting.go v1.9.1).
    const atDesired = available >= desiredCanary;
    let w: number;
    if (available === 0) w = 0;
    else if (index >= steps.length) w = atDesired ? 100 : prevSetWeight(steps.length);
    else if (!atDesired) w = prevSetWeight(index);
    else w = setWeightAt(index);
    if (w !== currentWeight)
      events.push({ t, text: `route weight ${currentWeight} -> ${w} % (${available} canary ` + 'pod(s) available)' });
    currentWeight = w;
    weight.push(w);
    canaryPods.push(canary.length);
    canaryReady.push(ready);
    canaryAvailable.push(available);
    stepIndex.push(index);

    if (index >= steps.length && available >= N) {
      promotedAt = t;
      events.push({ t, text: 'fully promoted: the canary is the stable ReplicaSet' });
      break;
    }
    // Progress deadline (the clock stops while paused, reference: Argo Rollouts).
    const s = steps[index];
    const waitingForPods = index >= steps.length || s.kind === 'setWeight';
    if (waitingForPods && t - lastProgress > model.progressDeadlineSeconds) {
      stuck = {
        t,
        why: `no canary pod became available for ${model.progressDeadlineSeconds} s (progress deadline)`,
        outcome: 'aborted',
      };
      break;
    }
    if (index >= steps.length) continue;
    let done = false;
    if (s.kind === 'setWeight') done = atDesired && available > 0 && w === s.weight;
    else if (s.kind === 'pause') {
      // A pause without duration waits for `kubectl argo rollouts promote`: the service chose a
      // human here. The rehearsal has that human promote after HUMAN_PROMOTE_SECONDS and goes on,
      // so the analysis after the step is rehearsed too.
      const wait = s.seconds ?? HUMAN_PROMOTE_SECONDS;
      done = t - stepStarted >= wait;
      if (done && s.seconds === null) {
        manualPromotions++;
        events.push({
          t,
          text:
            `step ${index}: pause without duration, promoted by a human (the rehearsal assumes ` +
            `after ${HUMAN_PROMOTE_SECONDS / 60} min)`,
        });
      }
    } else if (s.kind === 'analysis') done = t - stepStarted >= gateDuration(s.run);
    else done = true;
    if (done) {
      if (s.kind === 'setWeight') events.push({ t, text: `step ${index}: setWeight ${s.weight} done` });
      index++;
      enterStep(t);
    }
  }
  const duration = Math.min(t, HORIZON_SECONDS);

  const series = exporterSeries(
    model,
    release,
    rps,
    scrape,
    { weight, canaryReady, canaryReadyOf: (p, at) => p.readyAt(at) },
    canary,
    stable,
    duration,
  );
  return {
    release,
    rps,
    durationSeconds: duration,
    scrapeSeconds: scrape,
    weight,
    canaryPods,
    canaryReady,
    canaryAvailable,
    stepIndex,
    series,
    events,
    backgroundStart,
    gates,
    promotedAt,
    stuck,
    manualPromotions,
  };
}

interface Counters {
  total: number;
  appErr: number;
  panic: number;
}

/** The traffic stats of one cluster and proxy, created at first use: the bits of `used`. */
const USED_2XX = 1;
const USED_5XX = 2;
const USED_RQ_TOTAL = 4;

/**
 * The exporters' series, second by second. Written for speed (synth runs it for every canary
 * service): clusters and proxies by index, the traffic stats' first use as bits, each series
 * created at its first sample and listed in that order. The arithmetic is the same expressions in
 * the same order as the plain per-second model it replaces, so the samples are the same numbers.
 */
function exporterSeries(
  model: RolloutModel,
  release: Release,
  rps: number,
  scrape: number,
  state: { weight: number[]; canaryReady: number[]; canaryReadyOf: (p: Pod, t: number) => boolean },
  canary: Pod[],
  stable: Pod[],
  duration: number,
): Series[] {
  const shared = model.canaryCluster === model.stableCluster;
  // Per cluster and proxy: cumulative expected counts since the cluster was (re)created.
  const clusters = shared ? [model.canaryCluster] : [model.stableCluster, model.canaryCluster];
  const P = PROXIES.length;
  const isCanary = clusters.map((c) => c === model.canaryCluster);
  const isStable = clusters.map((c) => c === model.stableCluster);
  const acc: Array<Counters | undefined> = new Array<Counters | undefined>(clusters.length * P).fill(undefined);
  const used: number[] = new Array<number>(clusters.length * P).fill(0);
  const hosts: number[] = new Array<number>(clusters.length).fill(0);
  const readyHosts: number[] = new Array<number>(clusters.length).fill(0);
  const firstTraffic = state.weight.findIndex((w) => w > 0);
  const burst = release.burst;
  const canaryErrorAt = (t: number) =>
    burst &&
    firstTraffic >= 0 &&
    t >= firstTraffic + burst.afterFirstTrafficSeconds &&
    t < firstTraffic + burst.afterFirstTrafficSeconds + burst.seconds
      ? burst.errorRatio
      : release.canaryErrorRatio;
  // Hosts of a cluster at t: the canary's pods that exist (a pod is an endpoint, Ready or not, from
  // its creation), the stable's all Ready. Canary pods are created in time order (scale() appends).
  const sorted = canary.every((p, i) => i === 0 || canary[i - 1].created <= p.created);
  let created = 0;
  const canaryHostsAt = (t: number): number => {
    if (!sorted) return canary.filter((p) => p.created <= t).length;
    while (created < canary.length && canary[created].created <= t) created++;
    return created;
  };
  // Series in the order of their first sample; envoy series by (cluster, proxy, which of 8).
  const envoy: Array<Series | undefined> = [];
  const order: Series[] = [];
  const put = (slot: number, name: string, labels: Record<string, string>, t: number, v: number) => {
    let s = envoy[slot];
    if (!s) {
      s = { name, labels, samples: [] };
      envoy[slot] = s;
      order.push(s);
    }
    s.samples.push([t, v]);
  };
  // kube-state-metrics' four series of each pod, by pod (stable first, then canary), listed in the
  // order of their first sample.
  const podSeries: Series[][] = [];
  const podOrder: Series[][] = [];
  const perProxy = rps / P;
  const stableErrorRatio = release.stableErrorRatio;
  for (let t = 0; t <= duration; t++) {
    const w = state.weight[Math.min(t, state.weight.length - 1)];
    const readyCanary = state.canaryReady[Math.min(t, state.canaryReady.length - 1)];
    const canaryError = canaryErrorAt(t);
    const canaryHosts = canaryHostsAt(t);
    for (let ci = 0; ci < clusters.length; ci++) {
      const canaryShare = isCanary[ci] ? w / 100 : 0;
      const stableShare = isStable[ci] ? (100 - w) / 100 : 0;
      const exists = canaryShare + stableShare > 0;
      let h: number;
      let ready: number;
      if (shared) {
        h = canaryHosts + stable.length;
        ready = readyCanary + stable.length;
      } else if (isCanary[ci]) {
        h = canaryHosts;
        ready = readyCanary;
      } else {
        h = stable.length;
        ready = stable.length;
      }
      hosts[ci] = h;
      readyHosts[ci] = ready;
      for (let pi = 0; pi < P; pi++) {
        const k = ci * P + pi;
        if (!exists) {
          acc[k] = undefined;
          used[k] = 0;
          continue;
        }
        let a = acc[k];
        if (!a) {
          a = { total: 0, appErr: 0, panic: 0 };
          acc[k] = a;
          used[k] = 0;
        }
        const toCanary = perProxy * canaryShare;
        const toStable = perProxy * stableShare;
        const offered = toCanary + toStable;
        // No host at all: Envoy Gateway does not route to the cluster (a direct 503 for the rule, or
        // the share sent to a cluster that does not exist, 503 NC), and Envoy answers both before it
        // picks a cluster, so this cluster counts none of it (docs/mechanisms.md#panic-routing).
        if (!(offered > 0 && h === 0)) {
          // No Ready host but some hosts: panic mode, every request goes to a not-Ready pod.
          if (offered > 0 && ready === 0) a.panic += offered;
          a.total += offered;
          a.appErr += toCanary * canaryError + toStable * stableErrorRatio;
        }
        if (Math.floor(a.total - a.appErr) > 0) used[k] |= USED_2XX;
        if (Math.floor(a.appErr) > 0) used[k] |= USED_5XX;
        if (Math.floor(a.total) > 0) used[k] |= USED_RQ_TOTAL;
      }
    }
    if ((t - SCRAPE_OFFSET_SECONDS) % scrape !== 0 || t < SCRAPE_OFFSET_SECONDS) continue;
    for (let ci = 0; ci < clusters.length; ci++) {
      for (let pi = 0; pi < P; pi++) {
        const k = ci * P + pi;
        const a = acc[k];
        if (!a) continue;
        const slot = k * 8;
        const base = { envoy_cluster_name: clusters[ci], namespace: 'envoy-gateway-system', pod: PROXIES[pi] };
        const total = Math.floor(a.total);
        const err = Math.floor(a.appErr);
        const u = used[k];
        // Endpoint and load-balancer stats exist with the cluster; the traffic-stats block (here
        // upstream_rq_total) from the cluster's first request; each response class at its first response.
        put(slot, 'envoy_cluster_membership_healthy', base, t, readyHosts[ci]);
        put(slot + 1, 'envoy_cluster_membership_total', base, t, hosts[ci]);
        put(slot + 2, 'envoy_cluster_lb_healthy_panic', base, t, Math.floor(a.panic));
        if (u & USED_RQ_TOTAL) put(slot + 3, 'envoy_cluster_upstream_rq_total', base, t, total);
        if (u & USED_2XX) {
          put(
            slot + 4,
            'envoy_cluster_upstream_rq_xx',
            envoy[slot + 4]?.labels ?? { ...base, envoy_response_code_class: '2' },
            t,
            total - err,
          );
          put(
            slot + 5,
            'envoy_cluster_upstream_rq',
            envoy[slot + 5]?.labels ?? { ...base, envoy_response_code: '200' },
            t,
            total - err,
          );
        }
        if (u & USED_5XX) {
          put(
            slot + 6,
            'envoy_cluster_upstream_rq_xx',
            envoy[slot + 6]?.labels ?? { ...base, envoy_response_code_class: '5' },
            t,
            err,
          );
          put(
            slot + 7,
            'envoy_cluster_upstream_rq',
            envoy[slot + 7]?.labels ?? { ...base, envoy_response_code: '503' },
            t,
            err,
          );
        }
      }
    }
    for (let i = 0; i < stable.length + canary.length; i++) {
      const pod = i < stable.length ? stable[i] : canary[i - stable.length];
      if (pod.created > t) continue;
      const r = i < stable.length || state.canaryReadyOf(pod, t);
      let four = podSeries[i];
      if (!four) {
        const labels = { namespace: model.namespace, pod: pod.name, uid: pod.uid };
        four = (['true', 'false', 'unknown'] as const).map((condition) => ({
          name: 'kube_pod_status_ready',
          labels: { ...labels, condition },
          samples: [] as Array<[number, number]>,
        }));
        four.push({
          name: 'kube_pod_owner',
          labels: { ...labels, owner_kind: 'ReplicaSet', owner_name: pod.replicaSet, owner_is_controller: 'true' },
          samples: [],
        });
        podSeries[i] = four;
        podOrder.push(four);
      }
      four[0].samples.push([t, r ? 1 : 0]);
      four[1].samples.push([t, r ? 0 : 1]);
      four[2].samples.push([t, 0]);
      four[3].samples.push([t, 1]);
    }
  }
  return [...order, ...podOrder.flat()];
}

/** Traffic and start time this release uses, for the report. */
export function describeRelease(model: RolloutModel, release: Release, world: World): string {
  const start =
    release.startSeconds === 'budget'
      ? Math.floor(0.9 * (model.startupBudgetSeconds ?? 60))
      : (release.startSeconds ?? HEALTHY_START_SECONDS);
  return `${world.rps.toFixed(world.rps < 10 ? 1 : 0)} req/s, pods answer after ${start} s`;
}
