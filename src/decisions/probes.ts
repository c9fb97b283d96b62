import { RollwiseInputError } from '../errors';
import { decided, Decision, Override, withOverride } from './decision';
import { showSeconds } from './inputs';

/**
 * The readiness probe's timing. Leave window = failureThreshold x period; return window = successThreshold x period.
 */
export interface ReadinessTiming {
  readonly periodSeconds: Decision<number>;
  readonly timeoutSeconds: Decision<number>;
  readonly failureThreshold: Decision<number>;
  readonly successThreshold: Decision<number>;
}

export interface ReadinessInputs {
  readonly periodSeconds: number;
  /** The health path's measured p99 latency under peak load, in seconds; undefined when not measured. */
  readonly p99Seconds?: number;
  /**
   * Where the p99 came from, for the reason ("typed in as ...", or a measurement's provenance).
   * @default none: the reason states the figure only
   */
  readonly p99Source?: string;
  readonly overrides?: {
    readonly timeoutSeconds?: Override<number>;
    readonly failureThreshold?: Override<number>;
    readonly successThreshold?: Override<number>;
  };
}

/**
 * The floor for readiness timeouts: one GC pause or scheduling hiccup must not be a miss (the Kubernetes default of 1 s
 * is).
 */
export const READINESS_TIMEOUT_FLOOR_SECONDS = 3;
/** Timeout = this x the measured p99 under load: the p99 is exceeded by 1 % of probes by definition. */
export const P99_MULTIPLIER = 2;
/** The platform's default readiness period (the Kubernetes default). */
export const DEFAULT_READINESS_PERIOD_SECONDS = 10;
/**
 * Tolerate two bad windows; a third consecutive miss means the pod really cannot serve
 * (docs/mechanisms.md#readiness-calls-a-dependency, #leave-slowly-return-slower).
 */
export const READINESS_FAILURE_THRESHOLD = 3;

export function readinessTiming(inp: ReadinessInputs): ReadinessTiming {
  const period = inp.periodSeconds;
  const o = inp.overrides ?? {};
  const periodD = decided(
    period,
    `Probe every ${period} s (platform setting); the leave and return windows below are multiples of it.`,
    { periodSeconds: period },
  );

  let timeout: Decision<number>;
  if (inp.p99Seconds === undefined) {
    timeout = decided(
      READINESS_TIMEOUT_FLOOR_SECONDS,
      `The health path's p99 under peak load was NOT given, so the ${READINESS_TIMEOUT_FLOOR_SECONDS} s floor is ` +
        `used unmeasured (Kubernetes' 1 s default is missed by one GC pause); measure the p99 at peak and pass ` +
        'health.readinessP99UnderLoad so the timeout is at least 2x it ' +
        `(docs/mechanisms.md#readiness-calls-a-dependency, #fixes-and-verification). Below the ${period} s period.`,
      { periodSeconds: period, p99: 'not measured' },
    );
  } else {
    const p99 = inp.p99Seconds;
    const twice = Math.ceil(P99_MULTIPLIER * p99 - 1e-9);
    const value = Math.max(READINESS_TIMEOUT_FLOOR_SECONDS, twice);
    if (value >= period && value < DEFAULT_READINESS_PERIOD_SECONDS) {
      // The timeout would fit below the default period: the culprit is the shortened period, not the handler.
      throw new RollwiseInputError(
        'platform.readinessPeriod',
        `${period} s`,
        `the readiness timeout 2 x the health path's p99 (${showSeconds(p99)}) = ${value} s does not fit below ` +
          `a ${period} s probe period, so probes would overlap; the handler itself is fine (it fits below ` +
          `the ${DEFAULT_READINESS_PERIOD_SECONDS} s default).`,
        `use a period above ${value} s (the default ${DEFAULT_READINESS_PERIOD_SECONDS} s), or leave ` +
          'platform.readinessPeriod unset.',
      );
    }
    if (value >= period) {
      throw new RollwiseInputError(
        'health.readinessP99UnderLoad',
        showSeconds(p99),
        `a readiness timeout of 2 x ${showSeconds(p99)} = ${showSeconds(P99_MULTIPLIER * p99)} (rounded up: ${twice} ` +
          `s) would not fit below the ${period} s probe period, so the readiness handler is not cheap and local: a ` +
          'handler that slow measures load or a dependency, and removes capacity exactly when it is short ' +
          '(docs/mechanisms.md#readiness-control-loop, #readiness-calls-a-dependency).',
        'make the readiness handler a local memory read (listeners up, config loaded, at most a dependency status ' +
          'cached in the background), then measure its p99 under peak load again.',
      );
    }
    timeout = decided(
      value,
      `2 x the health path's p99 under peak load (${showSeconds(p99)}${inp.p99Source ? `, ${inp.p99Source}` : ''}) ` +
        `= ${showSeconds(P99_MULTIPLIER * p99)}, rounded up to ${twice} ` +
        `s${value > twice ? `, raised to the ${READINESS_TIMEOUT_FLOOR_SECONDS} s floor` : ''}: a probe times out ` +
        'only when the handler is far slower than its measured tail, never at the p99 itself ' +
        `(docs/mechanisms.md#readiness-calls-a-dependency). ${value} s < the ${period} s period.`,
      { p99Seconds: p99, periodSeconds: period, floorSeconds: READINESS_TIMEOUT_FLOOR_SECONDS },
    );
  }
  const p99Text = inp.p99Seconds === undefined ? '' : showSeconds(inp.p99Seconds);
  timeout = withOverride(
    'overrides.readinessTimeout',
    timeout,
    o.timeoutSeconds,
    (v) => `${v} s`,
    (v) =>
      inp.p99Seconds !== undefined && v <= inp.p99Seconds
        ? `A ${v} s timeout is below the health path's p99 under load (${p99Text}): more than 1 % of ` +
          'probes would fail at random and pods would leave in waves (docs/mechanisms.md#readiness-calls-a-dependency).'
        : undefined,
  );
  if (timeout.overridden) checkOverriddenTimeout(timeout.value, period, inp.p99Seconds);

  const leaveSeconds = READINESS_FAILURE_THRESHOLD * period;
  const failure = withOverride(
    'overrides.readinessFailureThreshold',
    decided(
      READINESS_FAILURE_THRESHOLD,
      `Leave window ${READINESS_FAILURE_THRESHOLD} x ${period} s = ${leaveSeconds} s: one slow ` +
        'window cannot remove a pod, three consecutive misses can (failureThreshold 1 is what turns one slow window ' +
        'into an outage; docs/mechanisms.md#readiness-calls-a-dependency, #leave-slowly-return-slower).',
      { periodSeconds: period },
    ),
    o.failureThreshold,
  );
  const successComputed = decided(
    failure.value,
    `Return window ${failure.value} x ${period} s = ${failure.value * period} s, equal to the leave ` +
      `window ${failure.value} x ${period} s = ${failure.value * period} s: a removed pod proves itself for as long ` +
      'as it took to leave, so a fleet that emptied cannot re-enter all at once, cold, within one period and ' +
      'collapse again (the saw-tooth of docs/mechanisms.md#saw-tooth, #leave-slowly-return-slower).',
    { failureThreshold: failure.value, periodSeconds: period },
  );
  const success = withOverride('overrides.readinessSuccessThreshold', successComputed, o.successThreshold);
  if (success.value * period < failure.value * period) {
    throw new RollwiseInputError(
      'overrides.readinessSuccessThreshold',
      success.value,
      `readiness would return (${success.value} x ${period} s = ${success.value * period} s) faster than it leaves ` +
        `(${failure.value} x ${period} s = ${failure.value * period} s): once every pod is out, the whole fleet ` +
        're-enters within one period at full load and collapses again (docs/mechanisms.md#readiness-control-loop).',
      `use a successThreshold of at least ${failure.value}.`,
    );
  }
  return { periodSeconds: periodD, timeoutSeconds: timeout, failureThreshold: failure, successThreshold: success };
}

function checkOverriddenTimeout(value: number, period: number, p99?: number): void {
  if (!Number.isInteger(value) || value < 1) {
    throw new RollwiseInputError(
      'overrides.readinessTimeout',
      `${value} s`,
      'Kubernetes probe timeouts are whole seconds, at least 1.',
      'give a whole number of seconds.',
    );
  }
  if (value >= period) {
    throw new RollwiseInputError(
      'overrides.readinessTimeout',
      `${value} s`,
      `a timeout not below the ${period} s period lets probes overlap: a slow handler is probed again before it ` +
        'answered.',
      `use a timeout below ${period} s and make the handler cheap and local.`,
    );
  }
  if (p99 !== undefined && value <= p99) {
    throw new RollwiseInputError(
      'overrides.readinessTimeout',
      `${value} s`,
      `the timeout is not above the health path's p99 under load (${showSeconds(p99)}), so at least 1 % of probes ` +
        'fail at random and pods leave in waves (docs/mechanisms.md#readiness-calls-a-dependency).',
      `use at least ${Math.max(READINESS_TIMEOUT_FLOOR_SECONDS, Math.ceil(2 * p99))} s (2 x p99, rounded up), or ` +
        'lower the p99.',
    );
  }
}

/** The probe a pod's liveness and start-up checks use: a process-only check, never the readiness handler. */
export type ProcessCheck = { readonly kind: 'http'; readonly path: string } | { readonly kind: 'tcp' };

export interface LivenessTiming {
  readonly check: Decision<ProcessCheck>;
  readonly periodSeconds: Decision<number>;
  readonly timeoutSeconds: Decision<number>;
  readonly failureThreshold: Decision<number>;
}

/**
 * Liveness is strictly more lenient than readiness on every axis: period 2x, timeout 2x, and a
 * failure window 4x readiness's leave window; it checks the process only (docs/mechanisms.md#liveness-vs-readiness).
 */
export function livenessTiming(
  readiness: ReadinessTiming,
  livenessPath: string | undefined,
  readinessPath: string,
): LivenessTiming {
  const rp = readiness.periodSeconds.value;
  const rt = readiness.timeoutSeconds.value;
  const leave = readiness.failureThreshold.value * rp;
  if (livenessPath !== undefined && livenessPath === readinessPath) {
    throw new RollwiseInputError(
      'health.livenessPath',
      livenessPath,
      'liveness on the readiness path turns load into restarts: every restart lands on a cold cache, piles into ' +
        'CrashLoopBackOff and leaves the survivors more load (falling dominoes, ' +
        'docs/mechanisms.md#liveness-vs-readiness).',
      'give liveness a process-only handler (e.g. "/livez" that only proves the event loop answers), or omit ' +
        'livenessPath to get a TCP check of the port.',
    );
  }
  const check = decided<ProcessCheck>(
    livenessPath ? { kind: 'http', path: livenessPath } : { kind: 'tcp' },
    livenessPath
      ? `Process-only handler ${livenessPath}, separate from readiness ${readinessPath}: liveness asks only "is this ` +
          'process wedged?"; load is never the answer (docs/mechanisms.md#liveness-vs-readiness).'
      : 'No liveness path given, so a TCP connect to the port: it proves the process accepts connections and never ' +
          'measures load or dependencies (docs/mechanisms.md#liveness-vs-readiness).',
    { readinessPath, livenessPath: livenessPath ?? 'tcp' },
  );
  const period = 2 * rp;
  const failure = Math.ceil((4 * leave) / period);
  return {
    check,
    periodSeconds: decided(
      period,
      `2 x the readiness period (${rp} s): liveness is never probed more eagerly than readiness.`,
      { readinessPeriodSeconds: rp },
    ),
    timeoutSeconds: decided(
      2 * rt,
      `2 x the readiness timeout (${rt} s) = ${2 * rt} s, below the ${period} s liveness period: a slow answer under ` +
        `load is readiness's business, not a reason to restart.`,
      { readinessTimeoutSeconds: rt },
    ),
    failureThreshold: decided(
      failure,
      `Failure window ${failure} x ${period} s = ${failure * period} s, 4x the readiness leave window (${leave} s): ` +
        'a loaded pod leaves the Service long before anything could restart it; only a process wedged ' +
        `for ${failure * period} s is killed (docs/mechanisms.md#liveness-vs-readiness).`,
      { readinessLeaveWindowSeconds: leave, periodSeconds: period },
    ),
  };
}

export interface StartupTiming {
  readonly periodSeconds: Decision<number>;
  readonly timeoutSeconds: Decision<number>;
  readonly failureThreshold: Decision<number>;
}

/** Probe every 5 s during start-up: a started pod is noticed within 5 s, and start-up checks are cheap. */
export const STARTUP_PERIOD_SECONDS = 5;

/**
 * The fewest attempts a startupProbe gets, so the smallest start-up budget is 3 x 5 s = 15 s. The
 * kubelet runs the first attempt as soon as the container runs (initialDelaySeconds 0: the prober
 * worker's doProbe skips only while the container has run less than the initial delay,
 * pkg/kubelet/prober/worker.go, read in the code index), before any process listens, so that one
 * fails; with failureThreshold 1 the kubelet restarts the container at that first failure and it
 * never starts (a sidecar proxy, which first fetches its certificates, included). Three attempts
 * tolerate the one at start and one more miss.
 */
export const MIN_STARTUP_ATTEMPTS = 3;
export const MIN_STARTUP_BUDGET_SECONDS = MIN_STARTUP_ATTEMPTS * STARTUP_PERIOD_SECONDS;
/** Why a start-up budget below the floor is refused (for the errors of every budget input). */
export const STARTUP_FLOOR_WHY =
  `the startupProbe runs every ${STARTUP_PERIOD_SECONDS} s with budget ` +
  `/ ${STARTUP_PERIOD_SECONDS} s attempts, and its first attempt runs the moment the container starts, before ` +
  `anything listens; below ${MIN_STARTUP_BUDGET_SECONDS} s it gets fewer than ${MIN_STARTUP_ATTEMPTS} attempts (1 s ` +
  'gives failureThreshold 1), so a process not up at the first attempt is restarted and may never start';

/**
 * The startup probe gives slow starts their budget, so liveness never counts them
 * (docs/mechanisms.md#liveness-vs-readiness).
 */
export function startupTiming(budgetSeconds: number, readiness: ReadinessTiming): StartupTiming {
  const p = STARTUP_PERIOD_SECONDS;
  const failure = Math.max(1, Math.ceil(budgetSeconds / p));
  const timeout = Math.min(readiness.timeoutSeconds.value, p - 1);
  return {
    periodSeconds: decided(
      p,
      `Every ${p} s while starting: a started pod is noticed within ${p} s; liveness and readiness wait until this ` +
        'probe has passed once.',
    ),
    timeoutSeconds: decided(
      timeout,
      `The readiness timeout (${readiness.timeoutSeconds.value} s), capped below the ${p} s start-up ` +
        `period: ${timeout} s.`,
      { readinessTimeoutSeconds: readiness.timeoutSeconds.value },
    ),
    failureThreshold: decided(
      failure,
      `Start-up budget ${showSeconds(budgetSeconds)} / ${p} s period = ${failure} attempts: a start slower than the ` +
        'budget is a failed start, one within it never counts against liveness (instead of initialDelaySeconds, ' +
        'docs/mechanisms.md#liveness-vs-readiness).',
      { startupBudgetSeconds: budgetSeconds, periodSeconds: p },
    ),
  };
}
