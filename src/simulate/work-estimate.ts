/** What a scenario costs to simulate, from its numbers alone, and the bounds a run must stay within. */
import type { Scenario } from './scenario-types';

/**
 * The bound on a run's work, in pod-steps: each step visits every pod object (live, terminating or
 * replaced), and each event scans them once more. Measured here (Node 20, 2 shared cores): 33-58 ns
 * per pod-step (1,000 replicas x 600 s: 199 ms; 100 x 6,000 s: 202 ms), so 5 x 10^8 pod-steps is
 * about 17-30 s of CPU. A 7-day run of 1,000 replicas at 100 ms steps (6 x 10^9) is refused.
 */
export const MAX_WORK_POD_STEPS = 5e8;
/** The bound on samples per series (memory: 8 series of 8 bytes each, about 64 MB at the bound). */
export const MAX_SAMPLES = 1_000_000;

export const WORK_FIX =
  'raise stepSeconds (up to 1 s) or sampleSeconds, shorten durationSeconds, or simulate fewer ' +
  'replicas (the readiness loop of 100 pods behaves as that of 1,000 at the same load per pod).';

export interface WorkEstimate {
  readonly steps: number;
  /** The most pod objects the run holds: replicas, drained pods that are replaced, rollouts' new pods. */
  readonly pods: number;
  readonly podSteps: number;
  readonly samples: number;
  /** Why the run is refused, with the numbers; undefined when within the bounds. */
  readonly problem?: string;
}

/** How much a scenario costs, from its numbers alone (replicas x steps, events, samples). */
export function estimateWork(
  s: Pick<Scenario, 'durationSeconds' | 'stepSeconds' | 'sampleSeconds' | 'replicas' | 'events'>,
): WorkEstimate {
  const steps = Math.round(s.durationSeconds / s.stepSeconds);
  let pods = s.replicas;
  for (const e of s.events)
    pods += e.kind === 'drain' ? (e.replaceAfterSeconds !== undefined ? e.count : 0) : s.replicas + e.maxSurge;
  const podSteps = steps * pods + s.events.length * pods;
  const samples = Math.ceil(steps / Math.max(1, Math.round(s.sampleSeconds / s.stepSeconds)));
  const n = (x: number) => x.toLocaleString('en-US', { maximumFractionDigits: 2 });
  let problem: string | undefined;
  if (!(podSteps <= MAX_WORK_POD_STEPS)) {
    problem =
      `the run is ${n(steps)} steps (durationSeconds ${s.durationSeconds} / stepSeconds ${s.stepSeconds}) x ` +
      `up to ${n(pods)} pods (${s.replicas} replicas and the pods ${s.events.length} events add) + events ` +
      `= ${n(podSteps)} pod-steps, above the bound of ${n(MAX_WORK_POD_STEPS)} (about 17-30 s of CPU).`;
  } else if (!(samples <= MAX_SAMPLES)) {
    problem =
      `the run keeps ${n(samples)} samples per series (durationSeconds ${s.durationSeconds} / ` +
      `sampleSeconds ${s.sampleSeconds}), above the bound of ${n(MAX_SAMPLES)}.`;
  }
  return { steps, pods, podSteps, samples, problem };
}
