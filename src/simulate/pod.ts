/** A pod as the fleet model sees it: the kubelet's view (phase, probes, Ready) and the proxy's. */

/**
 * starting: container not yet up (no probes, not ready);
 * running: container up, probed;
 * backoff: killed by liveness, waiting for the CrashLoopBackOff delay;
 * terminating: evicted or scaled down; still serves what the proxy sends
 *   until the proxy drops it (graceful shutdown), then gone.
 */
export type Phase = 'starting' | 'running' | 'backoff' | 'terminating' | 'gone';

export interface PendingProbe {
  at: number;
  ok: boolean;
}

export class Pod {
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
}
