/**
 * The fleet model: the readiness control loop of field notes section 1.
 *
 *   handler latency -> probe misses -> pod leaves the EndpointSlice ->
 *   survivors get more load -> their handler latency rises -> more misses
 *
 * A fixed-step simulation (default 100 ms). Each step:
 *   1. events fire (drain, new ReplicaSet), the Deployment controller acts,
 *      containers finish starting / back-off ends;
 *   2. the proxy applies readiness changes that are `propagationSeconds` old
 *      (kubelet -> API server -> EndpointSlice -> kube-proxy / xDS);
 *   3. the offered load is spread evenly over the endpoints the PROXY believes
 *      ready; with none, every request fails (UH). A pod the proxy still
 *      routes to whose container is dead refuses (UF). Each pod serves up to
 *      its capacity; the rest queues (backlog, seconds of work); a request that
 *      would wait past the proxy's request timeout fails (UT);
 *   4. probes due now measure the health handler latency (a function of the
 *      pod's load and backlog, plus a dependency draw when the handler calls
 *      one) against `timeoutSeconds`; results are applied when the probe
 *      completes, with the kubelet's failure/success threshold counting;
 *      liveness failures kill the container (CrashLoopBackOff back-off).
 *
 * Latency (per pod, seconds):
 *   CPU model:   healthSeconds / (1 - min(u, 0.99))  +  [CFS limit] 0.1 * min(u, 1)  +  backlog
 *   points:      p99(rps) interpolated from the user's points                        +  backlog
 *   u = per-pod req/s / capacity req/s; capacity = cores / cpuSecondsPerRequest, with
 *   cores = min(limit, burst) under a limit, burst without one.
 * The first term is the mean response time of an M/G/1 processor-sharing queue
 * (x / (1 - u), independent of the service-time distribution): the kernel's
 * CFS scheduler shares the CPU between the health handler and request work
 * roughly like processor sharing. The 0.99 cap keeps it finite; past u = 1 the
 * backlog term takes over. The second term is CFS throttling: quota is
 * accounted per 100 ms period, and a probe that lands after the period's quota
 * is spent waits for the next period; the share of throttled periods grows
 * with the use of the quota, so we add up to one period. With these numbers a
 * 20 ms handler takes over a second at the quota (field notes section 1).
 *
 * The latency is treated as the health path's p99 under that load: every probe
 * sees it (pessimistic by design: field notes section 3 says compare timeouts
 * with the p99 under load). Randomness enters through the probe phase of each
 * pod and the dependency draws, both from per-pod seeded PRNG streams, so the
 * same seed gives the same run, and pod i sees the same random numbers
 * whatever the fleet size (which keeps "more replicas is never worse" a fair
 * comparison).
 */
import type { DependencySettings, LivenessSettings, ProbeSettings, Scenario, SimEvent } from './scenario';

// ---------------------------------------------------------------------------
// Constants (each traced to Kubernetes or the kernel)
// ---------------------------------------------------------------------------

/** CFS bandwidth period: the kernel accounts `limits.cpu` quota per 100 ms (cpu.cfs_period_us default). */
const CFS_PERIOD_SECONDS = 0.1;
/** Cap on utilisation in the processor-sharing term; beyond it the backlog term models overload. */
const PS_UTILISATION_CAP = 0.99;
/** CrashLoopBackOff: 10 s doubling, capped at 5 min (Kubernetes pod lifecycle docs). */
const BACKOFF_INITIAL_SECONDS = 10;
const BACKOFF_MAX_SECONDS = 300;
/** The kubelet resets the back-off once a container has run 10 min without a problem. */
const BACKOFF_RESET_SECONDS = 600;
/** The Deployment controller reacts to pod status within about a second. */
const CONTROLLER_INTERVAL_SECONDS = 1;
/** z-score of the 99th percentile of a standard normal, to fit a lognormal to p50 and p99. */
const Z99 = 2.3263478740408408;

// ---------------------------------------------------------------------------
// Seeded randomness (never Math.random)
// ---------------------------------------------------------------------------

/** mulberry32: a small, fast 32-bit PRNG; returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One independent stream per (seed, pod id): mixes the two into a 32-bit seed. */
function streamSeed(seed: number, podId: number): number {
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(podId + 1, 0xc2b2ae35);
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}

/** Lognormal parameters from p50 and p99: mu = ln p50, sigma = ln(p99 / p50) / z99. */
export function lognormalFromP50P99(d: DependencySettings): { mu: number; sigma: number } {
  return { mu: Math.log(d.p50Seconds), sigma: Math.log(d.p99Seconds / d.p50Seconds) / Z99 };
}

function drawLognormal(rng: () => number, mu: number, sigma: number): number {
  // Box-Muller; 1 - rng() is in (0, 1] so the log is finite.
  const z = Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
  return Math.exp(mu + sigma * z);
}

// ---------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------

export type Verdict = 'stable' | 'degraded' | 'flapping' | 'oscillating' | 'cascade';

/** Severity order used by the verdict and by the "never worse" properties. */
export const VERDICT_RANK: Record<Verdict, number> = { stable: 0, degraded: 1, flapping: 2, oscillating: 3, cascade: 3 };

/** Verdicts that fail `rollwise simulate` (exit code 1). */
export function isBadVerdict(v: Verdict): boolean {
  return v === 'flapping' || v === 'oscillating' || v === 'cascade';
}

/** Time series, one entry per sample (`sampleSeconds`). */
export interface SimSeries {
  /** End of the sample interval, seconds. */
  t: number[];
  /** Endpoints the proxy routes to (its view, after the propagation delay), at the end of the sample. */
  readyEndpoints: number[];
  /** Pods the kubelet reports ready, at the end of the sample. */
  readyPods: number[];
  /** Offered req/s divided by ready endpoints (null when there are none). */
  loadPerReady: Array<number | null>;
  offeredRps: number[];
  /** Readiness and liveness probes that failed within the sample. */
  probeFailures: number[];
  /** Failed requests / offered requests within the sample. */
  errorRatio: number[];
}

export interface SimSummary {
  name: string;
  seed: number;
  replicas: number;
  durationSeconds: number;
  stepSeconds: number;
  floor: number;
  errorBudget: number;
  /** Per-replica rate where requests start to queue, req/s. */
  capacityRpsPerReplica: number;
  minReady: number;
  minReadyAtSeconds: number;
  readyAtEnd: number;
  timeBelowFloorSeconds: number;
  /** Times the proxy's ready endpoints fell to 0. */
  collapses: number;
  /** Times they came back to the floor after a collapse. */
  recoveries: number;
  /** Time average of live pods the proxy does not route to. */
  meanNotReady: number;
  /** Ready -> not-ready transitions caused by probes (readiness or liveness), not by drains or rollouts. */
  departures: number;
  /** Most departures of a single pod. */
  maxDeparturesPerPod: number;
  restarts: number;
  /** When the last rollout event finished (all replicas new and available), or null. */
  rolloutCompletedAtSeconds: number | null;
  probeFailures: number;
  requests: number;
  errors: { total: number; noEndpoint: number; refused: number; timeout: number; reset: number };
  errorRatio: number;
  verdict: Verdict;
  explanation: string;
}

export interface SimResult {
  summary: SimSummary;
  series: SimSeries;
}

// ---------------------------------------------------------------------------
// Pods
// ---------------------------------------------------------------------------

/**
 * starting: container not yet up (no probes, not ready);
 * running: container up, probed;
 * backoff: killed by liveness, waiting for the CrashLoopBackOff delay;
 * terminating: evicted or scaled down; still serves what the proxy sends
 *   until the proxy drops it (graceful shutdown), then gone.
 */
type Phase = 'starting' | 'running' | 'backoff' | 'terminating' | 'gone';

interface PendingProbe {
  at: number;
  ok: boolean;
}

class Pod {
  phase: Phase = 'starting';
  /** When the current phase's wait ends (starting -> running, backoff -> starting). */
  phaseEndsAt = 0;
  containerStartedAt = 0;
  /** kubelet's view. */
  ready = false;
  readySince = 0;
  /** proxy's view, and the changes on their way to it. */
  proxyReady = false;
  proxyQueue: Array<{ at: number; ready: boolean }> = [];
  readyRun = 0; // consecutive readiness results of the same kind as the last one
  readyLastOk: boolean | undefined = undefined;
  nextReadinessAt: number;
  pendingReadiness: PendingProbe | null = null;
  livenessFails = 0;
  nextLivenessAt: number;
  pendingLiveness: PendingProbe | null = null;
  /** Per-pod load now (req/s), and queued work (seconds of service at full capacity). */
  rps = 0;
  backlog = 0;
  restarts = 0;
  departures = 0;

  constructor(
    readonly id: number,
    readonly revision: number,
    readonly rng: () => number,
    readinessPeriod: number,
    livenessPeriod: number,
    now: number,
  ) {
    // Random probe phase: the kubelet's probe ticker of each pod starts at an
    // unrelated moment (pod admission, kubelet start jitter).
    this.nextReadinessAt = now + rng() * readinessPeriod;
    this.nextLivenessAt = now + rng() * livenessPeriod;
  }

  get live(): boolean {
    return this.phase !== 'terminating' && this.phase !== 'gone';
  }

  /** The process exists and can serve requests. */
  get serving(): boolean {
    return this.phase === 'running' || this.phase === 'terminating';
  }
}

// ---------------------------------------------------------------------------
// Load and latency
// ---------------------------------------------------------------------------

/** Offered load (req/s) at time t. */
export function loadAt(s: Scenario, t: number): number {
  const l = s.load;
  switch (l.kind) {
    case 'constant':
      return l.rps;
    case 'steps': {
      let rps = l.steps[0].rps;
      for (const st of l.steps) if (st.atSeconds <= t) rps = st.rps;
      return rps;
    }
    case 'daily': {
      // One cosine peak per 24 h: trough 12 h away from the peak.
      const phase = (2 * Math.PI * (t - l.peakAtSeconds)) / 86400;
      return l.troughRps + ((l.peakRps - l.troughRps) * (1 + Math.cos(phase))) / 2;
    }
  }
}

/** Per-replica rate (req/s) above which requests queue. */
export function capacityRps(s: Scenario): number {
  const c = s.capacity;
  if (c.kind === 'points') return c.saturationRps;
  const cores = c.limitCores !== undefined ? Math.min(c.limitCores, c.burstCores) : c.burstCores;
  return cores / c.cpuSecondsPerRequest;
}

/** Health handler latency (seconds) of a pod receiving `rps` with `backlog` seconds of queued work. */
export function handlerLatency(s: Scenario, rps: number, backlog: number): number {
  const c = s.capacity;
  if (c.kind === 'points') return interpolate(c.points, rps) + backlog;
  const u = rps / capacityRps(s);
  const shared = c.healthSeconds / (1 - Math.min(u, PS_UTILISATION_CAP));
  const throttled = c.limitCores !== undefined ? CFS_PERIOD_SECONDS * Math.min(u, 1) : 0;
  return shared + throttled + backlog;
}

/** Piecewise-linear through the points; extrapolates the last segment (flat below the first point). */
function interpolate(points: Array<{ rps: number; p99Seconds: number }>, rps: number): number {
  if (points.length === 1 || rps <= points[0].rps) return points[0].p99Seconds;
  for (let i = 1; i < points.length; i++) {
    if (rps <= points[i].rps || i === points.length - 1) {
      const a = points[i - 1];
      const b = points[i];
      return Math.max(0, a.p99Seconds + ((b.p99Seconds - a.p99Seconds) * (rps - a.rps)) / (b.rps - a.rps));
    }
  }
  return points[points.length - 1].p99Seconds; // not reached
}

// ---------------------------------------------------------------------------
// The simulation
// ---------------------------------------------------------------------------

export function simulate(s: Scenario): SimResult {
  const dt = s.stepSeconds;
  const steps = Math.round(s.durationSeconds / dt);
  const samplesEvery = Math.max(1, Math.round(s.sampleSeconds / dt));
  const rd = s.readiness;
  const lv: LivenessSettings | undefined = s.liveness;
  const capRps = capacityRps(s);
  const tmax = s.proxy.requestTimeoutSeconds;
  const readyDep = rd.dependency ? lognormalFromP50P99(rd.dependency) : undefined;
  const liveDep = lv?.dependency ? lognormalFromP50P99(lv.dependency) : undefined;

  const pods: Pod[] = [];
  let nextPodId = 0;
  const newPod = (revision: number, now: number): Pod => {
    const id = nextPodId++;
    const p = new Pod(id, revision, mulberry32(streamSeed(s.seed, id)), rd.periodSeconds, lv?.periodSeconds ?? 1, now);
    p.containerStartedAt = now;
    p.phaseEndsAt = now + s.pods.startSeconds;
    pods.push(p);
    return p;
  };

  // Steady state at t = 0: every replica up, ready, and routed to.
  for (let i = 0; i < s.replicas; i++) {
    const p = newPod(0, 0);
    p.phase = 'running';
    p.ready = true;
    p.proxyReady = true;
    p.readyLastOk = true;
    p.readyRun = rd.successThreshold;
  }

  // Counters.
  let requests = 0;
  const errors = { total: 0, noEndpoint: 0, refused: 0, timeout: 0, reset: 0 };
  let probeFailures = 0;
  let restarts = 0;
  let minReady = s.replicas;
  let minReadyAt = 0;
  let belowFloor = 0;
  let notReadyArea = 0;
  let collapses = 0;
  let recoveries = 0;
  let collapsed = false;
  let firstCollapseAt = -1;

  const series: SimSeries = { t: [], readyEndpoints: [], readyPods: [], loadPerReady: [], offeredRps: [], probeFailures: [], errorRatio: [] };
  let sOffered = 0;
  let sErrors = 0;
  let sProbeFailures = 0;

  // Kubelet readiness change, seen by the proxy `propagationSeconds` later.
  const setReady = (p: Pod, ready: boolean, now: number): void => {
    if (p.ready === ready) return;
    p.ready = ready;
    if (ready) p.readySince = now;
    p.proxyQueue.push({ at: now + s.proxy.propagationSeconds, ready });
  };

  // Liveness kill: the container dies now; queued requests are reset (UC).
  const kill = (p: Pod, now: number): void => {
    if (p.ready) p.departures++;
    setReady(p, false, now);
    const lost = p.backlog * capRps;
    errors.reset += lost;
    sErrors += lost;
    p.backlog = 0;
    p.rps = 0;
    if (now - p.containerStartedAt >= BACKOFF_RESET_SECONDS) p.restarts = 0;
    p.restarts++;
    restarts++;
    p.phase = 'backoff';
    p.phaseEndsAt = now + Math.min(BACKOFF_MAX_SECONDS, BACKOFF_INITIAL_SECONDS * 2 ** (p.restarts - 1));
    p.pendingReadiness = null;
    p.pendingLiveness = null;
    p.readyRun = 0;
    p.readyLastOk = undefined;
    p.livenessFails = 0;
  };

  // Eviction or scale-down: endpoint marked not ready, pod serves until the proxy drops it.
  const terminate = (p: Pod, now: number): void => {
    setReady(p, false, now);
    p.phase = 'terminating';
  };

  // Events and the rolling update.
  const events: SimEvent[] = [...s.events];
  let eventIdx = 0;
  const replacements: number[] = []; // times at which a replacement pod is created
  let rollout: Extract<SimEvent, { kind: 'rollout' }> | undefined;
  let revision = 0;
  let nextControllerAt = 0;
  let rolloutCompletedAt: number | null = null;

  const deploymentController = (now: number): void => {
    if (!rollout) return;
    const r = rollout;
    const live = pods.filter((p) => p.live);
    const fresh = live.filter((p) => p.revision === revision);
    const old = live.filter((p) => p.revision !== revision);
    const available = (p: Pod): boolean => p.ready && now - p.readySince >= r.minReadySeconds;
    // As the Deployment controller does (rolling.go): scale the new ReplicaSet up
    // within maxSurge, then scale the old one down by at most
    // allPods - (replicas - maxUnavailable) - unavailable new pods,
    // unavailable old pods first (removing them costs no availability).
    const create = Math.max(0, Math.min(s.replicas + r.maxSurge - live.length, s.replicas - fresh.length));
    for (let k = 0; k < create; k++) fresh.push(newPod(revision, now));
    const allPods = live.length + create;
    let maxScaledDown = allPods - (s.replicas - r.maxUnavailable) - fresh.filter((p) => !available(p)).length;
    for (const p of [...old].sort((a, b) => Number(available(a)) - Number(available(b)))) {
      if (maxScaledDown <= 0) break;
      terminate(p, now);
      maxScaledDown--;
    }
    if (old.every((p) => !p.live) && fresh.length === s.replicas && fresh.every(available)) {
      rollout = undefined;
      rolloutCompletedAt = now;
    }
  };

  for (let i = 1; i <= steps; i++) {
    const t = i * dt;

    // 1. Events, controller, container lifecycle.
    while (eventIdx < events.length && events[eventIdx].atSeconds <= t) {
      const e = events[eventIdx++];
      if (e.kind === 'drain') {
        // Evict the first `count` live pods (one node's worth, chosen deterministically).
        const victims = pods.filter((p) => p.live).slice(0, e.count);
        for (const p of victims) terminate(p, t);
        if (e.replaceAfterSeconds !== undefined) for (let k = 0; k < victims.length; k++) replacements.push(t + e.replaceAfterSeconds);
      } else {
        rollout = e;
        rolloutCompletedAt = null;
        revision++;
        nextControllerAt = t;
      }
    }
    for (let k = replacements.length - 1; k >= 0; k--) {
      if (replacements[k] <= t) {
        newPod(revision, t);
        replacements.splice(k, 1);
      }
    }
    if (rollout && t >= nextControllerAt) {
      deploymentController(t);
      nextControllerAt = t + CONTROLLER_INTERVAL_SECONDS;
    }

    // 2. Proxy view and container lifecycle.
    let proxyReady = 0;
    let kubeletReady = 0;
    let live = 0;
    for (const p of pods) {
      if (p.phase === 'gone') continue;
      while (p.proxyQueue.length > 0 && p.proxyQueue[0].at <= t) p.proxyReady = p.proxyQueue.shift()!.ready;
      if (p.phase === 'backoff' && t >= p.phaseEndsAt) {
        p.phase = 'starting';
        p.containerStartedAt = t;
        p.phaseEndsAt = t + s.pods.startSeconds;
      }
      if (p.phase === 'starting' && t >= p.phaseEndsAt) p.phase = 'running';
      if (p.phase === 'terminating' && !p.proxyReady && p.proxyQueue.length === 0) p.phase = 'gone';
      if (p.proxyReady) proxyReady++;
      if (p.ready) kubeletReady++;
      if (p.live) live++;
    }

    // 3. Traffic.
    const offered = loadAt(s, t);
    const arriving = offered * dt;
    requests += arriving;
    sOffered += arriving;
    const perPod = proxyReady > 0 ? offered / proxyReady : 0;
    if (proxyReady === 0) {
      errors.noEndpoint += arriving; // UH: no healthy upstream
      sErrors += arriving;
    }
    for (const p of pods) {
      if (!p.serving) continue;
      p.rps = p.proxyReady ? perPod : 0;
      // Queue: seconds of work at full capacity; grows when u > 1, drains otherwise.
      p.backlog += (p.rps / capRps - 1) * dt;
      if (p.backlog < 0) p.backlog = 0;
      else if (p.backlog > tmax) {
        // Requests that would wait past the proxy's timeout: UT.
        const late = (p.backlog - tmax) * capRps;
        errors.timeout += late;
        sErrors += late;
        p.backlog = tmax;
      }
    }
    if (proxyReady > 0) {
      for (const p of pods) {
        if (p.proxyReady && !p.serving) {
          // The proxy still routes to a container that is not there: UF.
          const lost = perPod * dt;
          errors.refused += lost;
          sErrors += lost;
        }
      }
    }

    // 4. Probes (only running containers are probed).
    for (const p of pods) {
      if (p.phase !== 'running') continue;
      // Results of probes that completed by now.
      if (p.pendingReadiness && p.pendingReadiness.at <= t) {
        const ok = p.pendingReadiness.ok;
        p.pendingReadiness = null;
        if (!ok) {
          probeFailures++;
          sProbeFailures++;
        }
        // kubelet: a result flips the status only after `threshold` identical results in a row.
        p.readyRun = p.readyLastOk === ok ? p.readyRun + 1 : 1;
        p.readyLastOk = ok;
        if (ok && !p.ready && p.readyRun >= rd.successThreshold) setReady(p, true, t);
        if (!ok && p.ready && p.readyRun >= rd.failureThreshold) {
          p.departures++;
          setReady(p, false, t);
        }
      }
      if (lv && p.pendingLiveness && p.pendingLiveness.at <= t) {
        const ok = p.pendingLiveness.ok;
        p.pendingLiveness = null;
        if (ok) p.livenessFails = 0;
        else {
          probeFailures++;
          sProbeFailures++;
          if (++p.livenessFails >= lv.failureThreshold) {
            kill(p, t);
            continue;
          }
        }
      }
      // Probes due now. The kubelet probes sequentially: a tick that finds the
      // previous probe still running is skipped.
      if (t >= p.nextReadinessAt) {
        p.nextReadinessAt += rd.periodSeconds * Math.max(1, Math.ceil((t - p.nextReadinessAt) / rd.periodSeconds + 1e-9));
        if (!p.pendingReadiness) p.pendingReadiness = probe(rd, handlerLatency(s, p.rps, p.backlog), readyDep, p.rng, t);
      }
      if (lv && t >= p.nextLivenessAt) {
        p.nextLivenessAt += lv.periodSeconds * Math.max(1, Math.ceil((t - p.nextLivenessAt) / lv.periodSeconds + 1e-9));
        const local = lv.handler === 'tcp' ? 0 : handlerLatency(s, p.rps, p.backlog);
        if (!p.pendingLiveness) p.pendingLiveness = probe(lv, local, liveDep, p.rng, t);
      }
    }

    // Bookkeeping on the proxy's view (what users experience).
    if (proxyReady < minReady) {
      minReady = proxyReady;
      minReadyAt = t;
    }
    if (proxyReady < s.floor) belowFloor += dt;
    notReadyArea += Math.max(0, live - proxyReady) * dt;
    if (!collapsed && proxyReady === 0 && s.replicas > 0) {
      collapsed = true;
      collapses++;
      if (firstCollapseAt < 0) firstCollapseAt = t;
    } else if (collapsed && proxyReady >= Math.max(1, s.floor)) {
      collapsed = false;
      recoveries++;
    }

    if (i % samplesEvery === 0 || i === steps) {
      series.t.push(round(t, 3));
      series.readyEndpoints.push(proxyReady);
      series.readyPods.push(kubeletReady);
      series.loadPerReady.push(proxyReady > 0 ? round(perPod, 2) : null);
      series.offeredRps.push(round(offered, 2));
      series.probeFailures.push(sProbeFailures);
      series.errorRatio.push(sOffered > 0 ? round(sErrors / sOffered, 6) : 0);
      sOffered = 0;
      sErrors = 0;
      sProbeFailures = 0;
    }
  }

  errors.total = errors.noEndpoint + errors.refused + errors.timeout + errors.reset;
  let departures = 0;
  let maxDeparturesPerPod = 0;
  for (const p of pods) {
    departures += p.departures;
    maxDeparturesPerPod = Math.max(maxDeparturesPerPod, p.departures);
  }
  const summary: SimSummary = {
    name: s.name,
    seed: s.seed,
    replicas: s.replicas,
    durationSeconds: s.durationSeconds,
    stepSeconds: dt,
    floor: s.floor,
    errorBudget: s.errorBudget,
    capacityRpsPerReplica: round(capRps, 2),
    minReady,
    minReadyAtSeconds: round(minReadyAt, 3),
    readyAtEnd: series.readyEndpoints[series.readyEndpoints.length - 1] ?? s.replicas,
    timeBelowFloorSeconds: round(belowFloor, 3),
    collapses,
    recoveries,
    meanNotReady: round(notReadyArea / s.durationSeconds, 4),
    departures,
    maxDeparturesPerPod,
    restarts,
    rolloutCompletedAtSeconds: rolloutCompletedAt === null ? null : round(rolloutCompletedAt, 3),
    probeFailures,
    requests: Math.round(requests),
    errors: {
      total: Math.round(errors.total),
      noEndpoint: Math.round(errors.noEndpoint),
      refused: Math.round(errors.refused),
      timeout: Math.round(errors.timeout),
      reset: Math.round(errors.reset),
    },
    errorRatio: requests > 0 ? round(errors.total / requests, 6) : 0,
    verdict: 'stable',
    explanation: '',
  };
  const [verdict, explanation] = judge(summary, firstCollapseAt, collapsed);
  summary.verdict = verdict;
  summary.explanation = explanation;
  return { summary, series };
}

/** Start a probe now: it fails if the handler (plus a dependency draw) takes longer than the timeout. */
function probe(
  settings: ProbeSettings,
  localLatency: number,
  dep: { mu: number; sigma: number } | undefined,
  rng: () => number,
  now: number,
): PendingProbe {
  const latency = localLatency + (dep ? drawLognormal(rng, dep.mu, dep.sigma) : 0);
  const ok = latency <= settings.timeoutSeconds;
  // The kubelet knows the result when the handler answers, or at the timeout.
  return { at: now + (ok ? latency : settings.timeoutSeconds), ok };
}

// ---------------------------------------------------------------------------
// Verdict
// ---------------------------------------------------------------------------

function judge(m: SimSummary, firstCollapseAt: number, endsCollapsed: boolean): [Verdict, string] {
  const pct = (x: number): string => `${(100 * x).toFixed(x < 0.01 ? 2 : 1)} %`;
  if (m.collapses >= 2) {
    return [
      'oscillating',
      `ready endpoints fell to 0 at ${fmtS(firstCollapseAt)} and the fleet came back and collapsed again ${m.collapses - 1} time(s) (saw-tooth); errors ${pct(m.errorRatio)}`,
    ];
  }
  if (m.collapses === 1) {
    return [
      'cascade',
      `ready endpoints fell to 0 at ${fmtS(firstCollapseAt)}: each departure raised the survivors' load past the probe deadline` +
        (endsCollapsed ? ' and the fleet did not recover' : ', then it recovered') +
        `; errors ${pct(m.errorRatio)}`,
    ];
  }
  if (m.maxDeparturesPerPod >= 2) {
    return [
      'flapping',
      `pods left and rejoined ${m.departures} times without a collapse (${m.meanNotReady.toFixed(2)} of ${m.replicas} out on average); errors ${pct(m.errorRatio)}`,
    ];
  }
  const reasons: string[] = [];
  if (m.timeBelowFloorSeconds > 0) reasons.push(`ready endpoints were below the floor of ${m.floor} for ${fmtS(m.timeBelowFloorSeconds)} (min ${m.minReady})`);
  if (m.errorRatio > m.errorBudget) reasons.push(`errors ${pct(m.errorRatio)} exceed the budget`);
  if (m.departures > 0 && reasons.length === 0) reasons.push(`${m.departures} pod(s) left service once and came back`);
  if (reasons.length > 0) return ['degraded', reasons.join('; ')];
  return ['stable', `ready endpoints never fell below the floor of ${m.floor} (min ${m.minReady}); errors ${pct(m.errorRatio)}`];
}

function fmtS(s: number): string {
  return s >= 120 ? `${(s / 60).toFixed(1)} min` : `${Math.round(s * 10) / 10} s`;
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
