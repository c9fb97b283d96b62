/**
 * The fleet model: the readiness control loop of docs/mechanisms.md#readiness-control-loop.
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
 * 20 ms handler takes over a second at the quota (docs/mechanisms.md#readiness-control-loop).
 *
 * The latency is treated as the health path's p99 under that load: every probe
 * sees it (pessimistic by design: docs/mechanisms.md#readiness-calls-a-dependency says compare timeouts
 * with the p99 under load). Randomness enters through the probe phase of each
 * pod and the dependency draws, both from per-pod seeded PRNG streams, so the
 * same seed gives the same run, and pod i sees the same random numbers
 * whatever the fleet size (which keeps "more replicas is never worse" a fair
 * comparison).
 */
import type { LivenessSettings, ProbeSettings, Scenario, SimEvent } from './scenario-types';
import { drawLognormal, lognormalFromP50P99, mulberry32, streamSeed } from './random';
import { Pod, type PendingProbe } from './pod';
import { capacityRps, handlerLatency, loadAt } from './latency';
import { estimateWork, WORK_FIX } from './work-estimate';
import { judge } from './verdict';
import type { SimResult, SimSeries, SimSummary } from './results';

// The parts of the model, one file each (kept exported from here as before).
export { mulberry32, lognormalFromP50P99 } from './random';
export { VERDICT_RANK, isBadVerdict, type Verdict, type SimSeries, type SimSummary, type SimResult } from './results';
export { loadAt, capacityRps, handlerLatency } from './latency';
export { MAX_WORK_POD_STEPS, MAX_SAMPLES, estimateWork, type WorkEstimate } from './work-estimate';

// ---------------------------------------------------------------------------
// Constants (each traced to Kubernetes or the kernel)
// ---------------------------------------------------------------------------

/** CrashLoopBackOff: 10 s doubling, capped at 5 min (Kubernetes pod lifecycle docs). */
const BACKOFF_INITIAL_SECONDS = 10;
const BACKOFF_MAX_SECONDS = 300;
/** The kubelet resets the back-off once a container has run 10 min without a problem. */
const BACKOFF_RESET_SECONDS = 600;
/** The Deployment controller reacts to pod status within about a second. */
const CONTROLLER_INTERVAL_SECONDS = 1;

// ---------------------------------------------------------------------------
// The simulation
// ---------------------------------------------------------------------------

/**
 * Run a scenario. Deterministic: the same scenario (including its seed) gives
 * the same result, series included.
 */
export function simulate(s: Scenario): SimResult {
  const w = estimateWork(s);
  if (w.problem) throw new Error(`rollwise simulate: ${w.problem} Fix: ${WORK_FIX}`);
  return new Simulation(s).run();
}

type RolloutEvent = Extract<SimEvent, { kind: 'rollout' }>;

/**
 * One run. The per-step phases are separate small methods (rather than one
 * long loop body) so that V8 optimises each quickly: simulateDrainAtPeak runs
 * once per synth, in a cold process.
 */
class Simulation {
  private readonly dt: number;
  private readonly capRps: number;
  private readonly rd: Scenario['readiness'];
  private readonly lv: LivenessSettings | undefined;
  private readonly readyDep: { mu: number; sigma: number } | undefined;
  private readonly liveDep: { mu: number; sigma: number } | undefined;
  private readonly pods: Pod[] = [];
  private nextPodId = 0;

  // Events and the rolling update.
  private eventIdx = 0;
  private readonly replacements: number[] = []; // times at which a replacement pod is created
  private rollout: RolloutEvent | undefined;
  private revision = 0;
  private nextControllerAt = 0;
  private rolloutCompletedAt: number | null = null;

  // Per-step view, recomputed each step.
  private proxyReady = 0;
  private kubeletReady = 0;
  private live = 0;

  // Totals.
  private requests = 0;
  private readonly errors = { total: 0, noEndpoint: 0, refused: 0, timeout: 0, reset: 0 };
  private probeFailures = 0;
  private restarts = 0;
  private minReady: number;
  private minReadyAt = 0;
  private belowFloor = 0;
  private notReadyArea = 0;
  private collapses = 0;
  private recoveries = 0;
  private collapsed = false;
  private firstCollapseAt = -1;

  // Current sample.
  private readonly series: SimSeries = {
    t: [],
    readyEndpoints: [],
    readyPods: [],
    loadPerReady: [],
    offeredRps: [],
    probeFailures: [],
    errorRatio: [],
  };
  private sOffered = 0;
  private sErrors = 0;
  private sProbeFailures = 0;

  constructor(private readonly s: Scenario) {
    this.dt = s.stepSeconds;
    this.capRps = capacityRps(s);
    this.rd = s.readiness;
    this.lv = s.liveness;
    this.readyDep = s.readiness.dependency ? lognormalFromP50P99(s.readiness.dependency) : undefined;
    this.liveDep = s.liveness?.dependency ? lognormalFromP50P99(s.liveness.dependency) : undefined;
    this.minReady = s.replicas;
    // Steady state at t = 0: every replica up, ready, and routed to.
    for (let i = 0; i < s.replicas; i++) {
      const p = this.newPod(0, 0);
      p.phase = 'running';
      p.ready = true;
      p.proxyReady = true;
      p.readyLastOk = true;
      p.readyRun = s.readiness.successThreshold;
    }
  }

  run(): SimResult {
    const steps = Math.round(this.s.durationSeconds / this.dt);
    const samplesEvery = Math.max(1, Math.round(this.s.sampleSeconds / this.dt));
    for (let i = 1; i <= steps; i++) {
      const t = i * this.dt;
      this.fireEvents(t);
      this.updateViews(t);
      const offered = loadAt(this.s, t);
      this.traffic(offered);
      this.probes(t);
      this.account(t);
      if (i % samplesEvery === 0 || i === steps) this.sample(t, offered);
    }
    return this.result();
  }

  private newPod(revision: number, now: number): Pod {
    const id = this.nextPodId++;
    const p = new Pod(
      id,
      revision,
      mulberry32(streamSeed(this.s.seed, id)),
      this.rd.periodSeconds,
      this.lv?.periodSeconds ?? 1,
      now,
    );
    p.containerStartedAt = now;
    p.phaseEndsAt = now + this.s.pods.startSeconds;
    this.pods.push(p);
    return p;
  }

  /** Kubelet readiness change, seen by the proxy `propagationSeconds` later. */
  private setReady(p: Pod, ready: boolean, now: number): void {
    if (p.ready === ready) return;
    p.ready = ready;
    if (ready) p.readySince = now;
    p.proxyQueue.push({ at: now + this.s.proxy.propagationSeconds, ready });
  }

  /** Liveness kill: the container dies now; queued requests are reset (UC). */
  private kill(p: Pod, now: number): void {
    if (p.ready) p.departures++;
    this.setReady(p, false, now);
    this.fail('reset', p.backlog * this.capRps);
    p.backlog = 0;
    p.rps = 0;
    if (now - p.containerStartedAt >= BACKOFF_RESET_SECONDS) p.restarts = 0;
    p.restarts++;
    this.restarts++;
    p.phase = 'backoff';
    p.phaseEndsAt = now + Math.min(BACKOFF_MAX_SECONDS, BACKOFF_INITIAL_SECONDS * 2 ** (p.restarts - 1));
    p.pendingReadiness = null;
    p.pendingLiveness = null;
    p.readyRun = 0;
    p.readyLastOk = undefined;
    p.livenessFails = 0;
  }

  /** Eviction or scale-down: endpoint marked not ready, the pod serves until the proxy drops it. */
  private terminate(p: Pod, now: number): void {
    this.setReady(p, false, now);
    p.phase = 'terminating';
  }

  private fail(kind: 'noEndpoint' | 'refused' | 'timeout' | 'reset', requests: number): void {
    this.errors[kind] += requests;
    this.sErrors += requests;
  }

  /** 1. Events (drain, new ReplicaSet), replacement pods, the Deployment controller. */
  private fireEvents(t: number): void {
    const events = this.s.events;
    while (this.eventIdx < events.length && events[this.eventIdx].atSeconds <= t) {
      const e = events[this.eventIdx++];
      if (e.kind === 'drain') {
        // Evict the first `count` live pods (one node's worth, chosen deterministically).
        const victims = this.pods.filter((p) => p.live).slice(0, e.count);
        for (const p of victims) this.terminate(p, t);
        if (e.replaceAfterSeconds !== undefined)
          for (let k = 0; k < victims.length; k++) this.replacements.push(t + e.replaceAfterSeconds);
      } else {
        this.rollout = e;
        this.rolloutCompletedAt = null;
        this.revision++;
        this.nextControllerAt = t;
      }
    }
    for (let k = this.replacements.length - 1; k >= 0; k--) {
      if (this.replacements[k] <= t) {
        this.newPod(this.revision, t);
        this.replacements.splice(k, 1);
      }
    }
    if (this.rollout && t >= this.nextControllerAt) {
      this.deploymentController(this.rollout, t);
      this.nextControllerAt = t + CONTROLLER_INTERVAL_SECONDS;
    }
  }

  /**
   * As the Deployment controller does (rolling.go): scale the new ReplicaSet up
   * within maxSurge, then scale the old one down by at most
   * allPods - (replicas - maxUnavailable) - unavailable new pods,
   * unavailable old pods first (removing them costs no availability).
   */
  private deploymentController(r: RolloutEvent, now: number): void {
    const live = this.pods.filter((p) => p.live);
    const fresh = live.filter((p) => p.revision === this.revision);
    const old = live.filter((p) => p.revision !== this.revision);
    const available = (p: Pod): boolean => p.ready && now - p.readySince >= r.minReadySeconds;
    const create = Math.max(0, Math.min(this.s.replicas + r.maxSurge - live.length, this.s.replicas - fresh.length));
    for (let k = 0; k < create; k++) fresh.push(this.newPod(this.revision, now));
    const allPods = live.length + create;
    let maxScaledDown = allPods - (this.s.replicas - r.maxUnavailable) - fresh.filter((p) => !available(p)).length;
    for (const p of [...old].sort((a, b) => Number(available(a)) - Number(available(b)))) {
      if (maxScaledDown <= 0) break;
      this.terminate(p, now);
      maxScaledDown--;
    }
    if (old.every((p) => !p.live) && fresh.length === this.s.replicas && fresh.every(available)) {
      this.rollout = undefined;
      this.rolloutCompletedAt = now;
    }
  }

  /** 2. The proxy applies readiness changes that are old enough; containers start, back-offs end. */
  private updateViews(t: number): void {
    let proxyReady = 0;
    let kubeletReady = 0;
    let live = 0;
    const pods = this.pods;
    for (let k = 0; k < pods.length; k++) {
      const p = pods[k];
      if (p.phase === 'gone') continue;
      while (p.proxyQueue.length > 0 && p.proxyQueue[0].at <= t) p.proxyReady = p.proxyQueue.shift()!.ready;
      if (p.phase === 'backoff' && t >= p.phaseEndsAt) {
        p.phase = 'starting';
        p.containerStartedAt = t;
        p.phaseEndsAt = t + this.s.pods.startSeconds;
      }
      if (p.phase === 'starting' && t >= p.phaseEndsAt) p.phase = 'running';
      if (p.phase === 'terminating' && !p.proxyReady && p.proxyQueue.length === 0) p.phase = 'gone';
      if (p.proxyReady) proxyReady++;
      if (p.ready) kubeletReady++;
      if (p.phase !== 'terminating') live++;
    }
    this.proxyReady = proxyReady;
    this.kubeletReady = kubeletReady;
    this.live = live;
  }

  /**
   * 3. Traffic: spread evenly over the endpoints the proxy believes ready.
   * None: UH. A routed-to container that is not there: UF. Each pod serves up
   * to its capacity; the rest queues; a request that would wait past the
   * proxy's timeout fails (UT).
   */
  private traffic(offered: number): void {
    const dt = this.dt;
    const arriving = offered * dt;
    this.requests += arriving;
    this.sOffered += arriving;
    if (this.proxyReady === 0) this.fail('noEndpoint', arriving);
    const perPod = this.proxyReady > 0 ? offered / this.proxyReady : 0;
    const capRps = this.capRps;
    const tmax = this.s.proxy.requestTimeoutSeconds;
    const pods = this.pods;
    for (let k = 0; k < pods.length; k++) {
      const p = pods[k];
      if (p.phase !== 'running' && p.phase !== 'terminating') {
        if (p.proxyReady) this.fail('refused', perPod * dt);
        continue;
      }
      p.rps = p.proxyReady ? perPod : 0;
      // Queue: seconds of work at full capacity; grows when u > 1, drains otherwise.
      p.backlog += (p.rps / capRps - 1) * dt;
      if (p.backlog < 0) p.backlog = 0;
      else if (p.backlog > tmax) {
        this.fail('timeout', (p.backlog - tmax) * capRps);
        p.backlog = tmax;
      }
    }
  }

  /** 4. Probes: apply results that completed, start the ones due now (running containers only). */
  private probes(t: number): void {
    const pods = this.pods;
    for (let k = 0; k < pods.length; k++) {
      const p = pods[k];
      if (p.phase !== 'running') continue;
      if (p.pendingReadiness && p.pendingReadiness.at <= t) this.readinessResult(p, t);
      if (this.lv && p.pendingLiveness && p.pendingLiveness.at <= t && this.livenessResult(p, this.lv, t)) continue;
      // The kubelet probes sequentially: a tick that finds the previous probe still running is skipped.
      if (t >= p.nextReadinessAt) {
        p.nextReadinessAt = nextTick(p.nextReadinessAt, this.rd.periodSeconds, t);
        if (!p.pendingReadiness)
          p.pendingReadiness = probe(this.rd, handlerLatency(this.s, p.rps, p.backlog), this.readyDep, p.rng, t);
      }
      if (this.lv && t >= p.nextLivenessAt) {
        p.nextLivenessAt = nextTick(p.nextLivenessAt, this.lv.periodSeconds, t);
        const local = this.lv.handler === 'tcp' ? 0 : handlerLatency(this.s, p.rps, p.backlog);
        if (!p.pendingLiveness) p.pendingLiveness = probe(this.lv, local, this.liveDep, p.rng, t);
      }
    }
  }

  /** kubelet: a result flips the status only after `threshold` identical results in a row. */
  private readinessResult(p: Pod, t: number): void {
    const ok = p.pendingReadiness!.ok;
    p.pendingReadiness = null;
    if (!ok) {
      this.probeFailures++;
      this.sProbeFailures++;
    }
    p.readyRun = p.readyLastOk === ok ? p.readyRun + 1 : 1;
    p.readyLastOk = ok;
    if (ok && !p.ready && p.readyRun >= this.rd.successThreshold) this.setReady(p, true, t);
    if (!ok && p.ready && p.readyRun >= this.rd.failureThreshold) {
      p.departures++;
      this.setReady(p, false, t);
    }
  }

  /** Returns true when the container was killed. */
  private livenessResult(p: Pod, lv: LivenessSettings, t: number): boolean {
    const ok = p.pendingLiveness!.ok;
    p.pendingLiveness = null;
    if (ok) {
      p.livenessFails = 0;
      return false;
    }
    this.probeFailures++;
    this.sProbeFailures++;
    if (++p.livenessFails < lv.failureThreshold) return false;
    this.kill(p, t);
    return true;
  }

  /** Bookkeeping on the proxy's view (what users experience). */
  private account(t: number): void {
    const ready = this.proxyReady;
    if (ready < this.minReady) {
      this.minReady = ready;
      this.minReadyAt = t;
    }
    if (ready < this.s.floor) this.belowFloor += this.dt;
    this.notReadyArea += Math.max(0, this.live - ready) * this.dt;
    if (!this.collapsed && ready === 0) {
      this.collapsed = true;
      this.collapses++;
      if (this.firstCollapseAt < 0) this.firstCollapseAt = t;
    } else if (this.collapsed && ready >= Math.max(1, this.s.floor)) {
      this.collapsed = false;
      this.recoveries++;
    }
  }

  private sample(t: number, offered: number): void {
    const sr = this.series;
    sr.t.push(round(t, 3));
    sr.readyEndpoints.push(this.proxyReady);
    sr.readyPods.push(this.kubeletReady);
    sr.loadPerReady.push(this.proxyReady > 0 ? round(offered / this.proxyReady, 2) : null);
    sr.offeredRps.push(round(offered, 2));
    sr.probeFailures.push(this.sProbeFailures);
    sr.errorRatio.push(this.sOffered > 0 ? round(this.sErrors / this.sOffered, 6) : 0);
    this.sOffered = 0;
    this.sErrors = 0;
    this.sProbeFailures = 0;
  }

  private result(): SimResult {
    const s = this.s;
    const e = this.errors;
    e.total = e.noEndpoint + e.refused + e.timeout + e.reset;
    let departures = 0;
    let maxDeparturesPerPod = 0;
    for (const p of this.pods) {
      departures += p.departures;
      maxDeparturesPerPod = Math.max(maxDeparturesPerPod, p.departures);
    }
    const summary: SimSummary = {
      name: s.name,
      seed: s.seed,
      replicas: s.replicas,
      durationSeconds: s.durationSeconds,
      stepSeconds: this.dt,
      floor: s.floor,
      errorBudget: s.errorBudget,
      capacityRpsPerReplica: round(this.capRps, 2),
      minReady: this.minReady,
      minReadyAtSeconds: round(this.minReadyAt, 3),
      readyAtEnd: this.series.readyEndpoints[this.series.readyEndpoints.length - 1] ?? s.replicas,
      timeBelowFloorSeconds: round(this.belowFloor, 3),
      collapses: this.collapses,
      recoveries: this.recoveries,
      meanNotReady: round(this.notReadyArea / s.durationSeconds, 4),
      departures,
      maxDeparturesPerPod,
      restarts: this.restarts,
      rolloutCompletedAtSeconds: this.rolloutCompletedAt === null ? null : round(this.rolloutCompletedAt, 3),
      probeFailures: this.probeFailures,
      requests: Math.round(this.requests),
      errors: {
        total: Math.round(e.total),
        noEndpoint: Math.round(e.noEndpoint),
        refused: Math.round(e.refused),
        timeout: Math.round(e.timeout),
        reset: Math.round(e.reset),
      },
      errorRatio: this.requests > 0 ? round(e.total / this.requests, 6) : 0,
      verdict: 'stable',
      explanation: '',
    };
    [summary.verdict, summary.explanation] = judge(summary, this.firstCollapseAt, this.collapsed);
    return { summary, series: this.series };
  }
}

/** The next probe tick strictly after `t` on the grid `from + k * period` (ticks missed while busy are dropped). */
function nextTick(from: number, period: number, t: number): number {
  return from + period * Math.max(1, Math.ceil((t - from) / period + 1e-9));
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

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
