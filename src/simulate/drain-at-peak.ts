/**
 * simulateDrainAtPeak: the check the golden path runs on every synth to back
 * its PodDisruptionBudget and replica floor with simulated evidence.
 *
 * Mapping from the golden path's inputs to the model (CPU model, normalised):
 * - one replica's CPU is 1 unit (requestCores = 1) and it serves
 *   `saturationRpsPerReplica` at that CPU, so cpuSecondsPerRequest = 1 / saturation;
 * - burstCores = 1: no idle node CPU above the request is assumed. A drain
 *   reschedules pods onto the remaining nodes, and a peak is when nodes are
 *   busiest, so evidence for a PDB must not count on spare CPU (pessimistic);
 * - cpuLimitRatio = limits.cpu / requests.cpu; when given, the pod has a CFS
 *   limit: capacity is min(ratio, 1) units and probes pay the CFS throttling
 *   wait (model.ts). Omit it for no limit (rollwise's default);
 * - healthP99Seconds = the health path's measured p99 at peak with all
 *   replicas ready; the idle handler latency is calibrated so the model's
 *   latency curve passes through it. Without it, 20 ms on an idle pod
 *   (docs/mechanisms.md#readiness-control-loop);
 * - constant load at peakRps for 10 min, the drain at 60 s (one minute of
 *   steady state first), evicted pods never replaced within the run (their
 *   replacements may be Pending: a drain often happens when nodes are short).
 */
import { simulate } from './model';
import { handlerLatency } from './latency';
import type { Verdict } from './results';
import { DEFAULTS } from './scenario-defaults';
import type { Scenario } from './scenario-types';

export interface DrainAtPeakOptions {
  replicas: number;
  drain: number;
  peakRps: number;
  saturationRpsPerReplica: number;
  readiness: { periodSeconds: number; timeoutSeconds: number; failureThreshold: number; successThreshold: number };
  healthP99Seconds?: number;
  cpuLimitRatio?: number;
  seed?: number;
}

export interface DrainAtPeakResult {
  minReady: number;
  readyAtEnd: number;
  verdict: string;
  sentence: string;
}

const DURATION_SECONDS = 600;
const DRAIN_AT_SECONDS = 60;

/** Build the scenario simulateDrainAtPeak runs (exported so it can be inspected or rendered). */
export function drainAtPeakScenario(opts: DrainAtPeakOptions): Scenario {
  const bad = (field: string, why: string): never => {
    throw new RangeError(
      `simulateDrainAtPeak: ${field} = ${JSON.stringify((opts as unknown as Record<string, unknown>)[field])}: ${why}`,
    );
  };
  if (!Number.isInteger(opts.replicas) || opts.replicas < 1) bad('replicas', 'must be a whole number >= 1');
  if (!Number.isInteger(opts.drain) || opts.drain < 0 || opts.drain >= opts.replicas)
    bad('drain', 'must be a whole number in [0, replicas)');
  if (!(opts.peakRps >= 0)) bad('peakRps', 'must be >= 0');
  if (!(opts.saturationRpsPerReplica > 0)) bad('saturationRpsPerReplica', 'must be > 0');
  if (opts.cpuLimitRatio !== undefined && !(opts.cpuLimitRatio > 0))
    bad('cpuLimitRatio', 'must be > 0 (limits.cpu / requests.cpu)');
  if (opts.healthP99Seconds !== undefined && !(opts.healthP99Seconds > 0)) bad('healthP99Seconds', 'must be > 0');
  const rd = opts.readiness;
  for (const k of ['periodSeconds', 'timeoutSeconds', 'failureThreshold', 'successThreshold'] as const) {
    if (!Number.isInteger(rd[k]) || rd[k] < 1)
      throw new RangeError(`simulateDrainAtPeak: readiness.${k} = ${rd[k]}: must be a whole number >= 1`);
  }

  const s: Scenario = {
    name: `drain ${opts.drain} of ${opts.replicas} at ${opts.peakRps} req/s`,
    seed: opts.seed ?? DEFAULTS.seed,
    durationSeconds: DURATION_SECONDS,
    stepSeconds: DEFAULTS.stepSeconds,
    sampleSeconds: DEFAULTS.sampleSeconds,
    replicas: opts.replicas,
    readiness: { ...rd },
    capacity: {
      kind: 'cpu',
      requestCores: 1,
      burstCores: 1,
      cpuSecondsPerRequest: 1 / opts.saturationRpsPerReplica,
      healthSeconds: DEFAULTS.healthSeconds,
    },
    load: { kind: 'constant', rps: opts.peakRps },
    proxy: { propagationSeconds: DEFAULTS.propagationSeconds, requestTimeoutSeconds: DEFAULTS.requestTimeoutSeconds },
    pods: { startSeconds: DEFAULTS.startSeconds },
    events: opts.drain > 0 ? [{ kind: 'drain', atSeconds: DRAIN_AT_SECONDS, count: opts.drain }] : [],
    floor: opts.replicas - opts.drain,
    errorBudget: DEFAULTS.errorBudget,
  };
  if (s.capacity.kind === 'cpu' && opts.cpuLimitRatio !== undefined) s.capacity.limitCores = opts.cpuLimitRatio;
  if (s.capacity.kind === 'cpu' && opts.healthP99Seconds !== undefined) {
    // Calibrate: latency(u0) = health / (1 - u0) + throttle(u0) = healthP99 at the pre-drain load u0.
    const perReplica = opts.peakRps / opts.replicas;
    const u0 = perReplica / opts.saturationRpsPerReplica;
    if (u0 < 0.99) {
      const withoutHealth = handlerLatency({ ...s, capacity: { ...s.capacity, healthSeconds: 0 } }, perReplica, 0);
      s.capacity.healthSeconds = Math.max(0.001, (opts.healthP99Seconds - withoutHealth) * (1 - u0));
    }
  }
  return s;
}

export function simulateDrainAtPeak(opts: DrainAtPeakOptions): DrainAtPeakResult {
  const s = drainAtPeakScenario(opts);
  const { summary } = simulate(s);
  const remaining = opts.replicas - opts.drain;
  const pods = (n: number): string => `${n} pod${n === 1 ? '' : 's'}`;
  const rps = Math.round(opts.peakRps)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const what =
    summary.minReady >= remaining
      ? `keeps ${remaining}/${remaining} remaining pods ready`
      : `drops to ${summary.minReady}/${remaining} remaining pods ready (${summary.verdict})`;
  return {
    minReady: summary.minReady,
    readyAtEnd: summary.readyAtEnd,
    verdict: summary.verdict as Verdict,
    sentence:
      `a drain of ${pods(opts.drain)} at ${rps} req/s ${what} (simulated ${DURATION_SECONDS / 60} min, ` +
      `seed ${s.seed})`,
  };
}
