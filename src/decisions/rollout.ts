import { decided, Decision, Override, withOverride } from './decision';
import { RollwiseInputError } from '../errors';
import { ReadinessTiming } from './probes';

export interface RolloutDecisions {
  readonly maxUnavailable: Decision<number>;
  readonly maxSurge: Decision<string>;
  readonly minReadySeconds: Decision<number>;
  readonly progressDeadlineSeconds: Decision<number>;
}

/**
 * Kubernetes' default deadline, which fails a stalled rollout instead of completing it
 * (docs/mechanisms.md#rollout-complete).
 */
export const PROGRESS_DEADLINE_FLOOR_SECONDS = 600;
/** The "a pod proves itself" minimum (docs/mechanisms.md#rollout-complete). */
export const MIN_READY_FLOOR_SECONDS = 30;

/**
 * @param sidecarStartupSeconds the start-up budgets of the native sidecars before the app (the
 * kubelet starts them one after the other, each after its startupProbe passed), 0 without
 */
export function rolloutStrategy(
  readiness: ReadinessTiming,
  startupBudgetSeconds: number,
  overrides: { minReadySeconds?: Override<number> } = {},
  sidecarStartupSeconds = 0,
): RolloutDecisions {
  const period = readiness.periodSeconds.value;
  const leave = readiness.failureThreshold.value * period;
  const ret = readiness.successThreshold.value * period;
  const minReady = withOverride(
    'overrides.minReadySeconds',
    decided(
      Math.max(MIN_READY_FLOOR_SECONDS, leave),
      `A new pod counts as available only after ${Math.max(MIN_READY_FLOOR_SECONDS, leave)} s Ready: ` +
        `max(${MIN_READY_FLOOR_SECONDS} s, the readiness leave window ${readiness.failureThreshold.value} x ${period} ` +
        `s = ${leave} s), so a pod that flaps is caught by readiness before the rollout counts it ` +
        '(docs/mechanisms.md#rollout-complete).',
      { readinessLeaveWindowSeconds: leave },
    ),
    overrides.minReadySeconds,
    (v) => `${v} s`,
  );
  if (minReady.overridden && minReady.value < leave) {
    throw new RollwiseInputError(
      'overrides.minReadySeconds',
      `${minReady.value} s`,
      `is shorter than the readiness leave window (${leave} s): a rollout could count a pod as available before ` +
        'readiness could notice it failing (docs/mechanisms.md#rollout-complete).',
      `use at least ${leave} s.`,
    );
  }
  // A pod needs: its sidecars' and its own start-up budget, then successThreshold passes, then minReadySeconds.
  const onePod = sidecarStartupSeconds + startupBudgetSeconds + ret + minReady.value;
  const sidecars = sidecarStartupSeconds > 0 ? `native sidecars' start-up ${sidecarStartupSeconds} s + ` : '';
  const deadline = Math.max(PROGRESS_DEADLINE_FLOOR_SECONDS, 2 * onePod);
  return {
    maxUnavailable: decided(
      0,
      'No old pod is removed before its replacement is available: with maxUnavailable 0 a single new pod that never ' +
        'becomes Ready stalls the rollout until the progress deadline fails it, instead of the rollout completing ' +
        'while pods flap (docs/mechanisms.md#rollout-complete).',
    ),
    maxSurge: decided(
      '25%',
      'Adds up to a quarter of the replicas at a time (the Kubernetes default): rollouts progress in waves without ' +
        "doubling the fleet's resource footprint; with maxUnavailable 0 surge is the only way forward.",
    ),
    minReadySeconds: minReady,
    progressDeadlineSeconds: decided(
      deadline,
      `max(${PROGRESS_DEADLINE_FLOOR_SECONDS} s, 2 x the time one pod needs to become available: ${sidecars}start-up ` +
        `budget ${startupBudgetSeconds} s + return window ${ret} s + minReadySeconds ${minReady.value} s = ${onePod} ` +
        's): a healthy slow start never trips it, a pod that never becomes Ready fails the rollout ' +
        `within ${deadline} s (docs/mechanisms.md#rollout-complete).`,
      {
        startupBudgetSeconds,
        readinessReturnWindowSeconds: ret,
        minReadySeconds: minReady.value,
        ...(sidecarStartupSeconds > 0 ? { sidecarStartupSeconds } : {}),
      },
    ),
  };
}
