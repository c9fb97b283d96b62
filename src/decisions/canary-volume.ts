import { Duration } from 'cdk8s';
import { RollwiseInputError } from '../errors';
import {
  failureLimitFor,
  GATE_COUNT,
  INTERVAL_SECONDS,
  minimumSample,
  RATE_WINDOW_SECONDS,
  sustainedAbortSeconds,
} from './analysis';
import { CanaryStep } from './canary';

/** Measurement windows the plan may choose, shortest first: longer ones detect a bad canary later. */
export const VOLUME_WINDOWS_SECONDS = [RATE_WINDOW_SECONDS, 300, 600] as const;
/** First weights the plan may choose for the default steps, smallest first: higher ones expose more users. */
export const FIRST_WEIGHTS = [5, 10, 25] as const;
/**
 * The canary must see this multiple of the minimum sample at the usual release traffic, so a quieter release still
 * passes.
 */
export const VOLUME_MARGIN = 1.5;

export interface VolumePlanInputs {
  /** The platform's canary error-ratio threshold. */
  readonly maxErrorRatio: number;
  /** capacity.peakRequestsPerSecond, when given. */
  readonly peakRps?: number;
  /** capacity.releaseRequestsPerSecond, when given. */
  readonly releaseRps?: number;
  /** Delivery.canary({ steps }), when given. */
  readonly steps?: CanaryStep[];
  /** Delivery.canary({ manualPromotion }): a human promotes; its `because`. */
  readonly manualPromotion?: string;
}

export interface VolumePlan {
  /** Window of the error ratios and the request volume, and the background run's initialDelay. */
  readonly windowSeconds: number;
  /** Minimum canary requests per window. */
  readonly minRequests: number;
  readonly firstWeightPercent: number;
  /** The steps to render: the user's, or the default ones with the chosen weight and pause. */
  readonly steps: CanaryStep[];
  /** Whether the templates carry the request-volume metric (not with manual promotion). */
  readonly volumeMetric: boolean;
  /** Why: the traffic, the arithmetic and the choices, for the volume metric's and the steps' reasons. */
  readonly reason: string;
}

const minutes = (s: number) => (s % 60 === 0 ? `${s / 60} min` : `${s} s`);
const fmt = (n: number) =>
  Number.isInteger(n)
    ? n.toLocaleString('en-US')
    : n < 10
      ? String(Number(n.toPrecision(2)))
      : n.toLocaleString('en-US', { maximumFractionDigits: 1 });

/**
 * How long the first weight must hold for a canary that fails every measurement to be aborted at it:
 * its abort (the first measurement after one window, failureLimit more a minute apart) plus one interval to spare.
 */
export function holdForAbort(windowSeconds: number): number {
  return sustainedAbortSeconds(windowSeconds) + INTERVAL_SECONDS;
}

/**
 * The default steps for a first weight and pause: first weight, its pause, 25 % for 10 min (unless the first is 25 %),
 * the gate.
 */
export function plannedSteps(
  firstWeight: number,
  firstPauseSeconds: number,
  windowSeconds: number,
  manual: boolean,
): CanaryStep[] {
  const hold = manual ? CanaryStep.pauseUntilPromoted() : CanaryStep.pause(Duration.seconds(firstPauseSeconds));
  const second =
    firstWeight < 25
      ? [CanaryStep.setWeight(25), CanaryStep.pause(Duration.seconds(Math.max(600, windowSeconds)))]
      : [];
  return [CanaryStep.setWeight(firstWeight), hold, ...second, CanaryStep.analysisGate()];
}

/**
 * The volume gate derived from the traffic: chooses the measurement window and, for the default
 * steps, the first weight and its pause, so that the canary collects the minimum sample for its
 * error ratio within the first step, at the traffic a release usually sees. Throws with the
 * arithmetic and the choices when no choice can.
 */
export function planCanaryVolume(inp: VolumePlanInputs): VolumePlan {
  const thr = inp.maxErrorRatio;
  const minRequests = minimumSample(thr);
  const needed = Math.ceil(minRequests * VOLUME_MARGIN);
  const rps = inp.releaseRps ?? inp.peakRps;
  const source =
    inp.releaseRps !== undefined
      ? `capacity.releaseRequestsPerSecond ${fmt(inp.releaseRps)} req/s (the traffic a release usually sees)`
      : `capacity.peakRequestsPerSecond ${fmt(inp.peakRps ?? 0)} req/s (no release-time figure: the peak is assumed, ` +
        'so a release at a quieter hour can pause; give capacity.releaseRequestsPerSecond)';
  const rule =
    `The canary needs ${fmt(minRequests)} requests per window (10 / ${thr}) and rollwise ` +
    `wants ${VOLUME_MARGIN} x that, ${fmt(needed)}, at the usual release traffic, so that a quieter release still ` +
    'measures';
  const perWindow = (weight: number, w: number) => (rps ?? 0) * (weight / 100) * w;
  const show = (weight: number, w: number) =>
    `${weight} % x ${fmt(rps ?? 0)} req/s x ${w} s ` + `= ${fmt(Math.floor(perWindow(weight, w)))}`;

  if (inp.manualPromotion !== undefined) {
    const steps =
      inp.steps ?? plannedSteps(FIRST_WEIGHTS[0], 0, VOLUME_WINDOWS_SECONDS[VOLUME_WINDOWS_SECONDS.length - 1], true);
    const windowSeconds = VOLUME_WINDOWS_SECONDS[VOLUME_WINDOWS_SECONDS.length - 1];
    const first = firstWeightOf(steps) ?? FIRST_WEIGHTS[0];
    const where =
      rps === undefined
        ? ''
        : `, where the canary sees ${show(first, windowSeconds)} requests against the ${fmt(minRequests)} a ratio ` +
          'needs: one error can fail a measurement';
    return {
      windowSeconds,
      minRequests,
      firstWeightPercent: first,
      steps,
      volumeMetric: false,
      reason:
        `Manual promotion (${inp.manualPromotion.trim()}): a human promotes, so there is no request-volume ` +
        'metric (it would only pause the rollout again after each promotion) and the ratios use the longest ' +
        `window, ${minutes(windowSeconds)}${where}.`,
    };
  }

  if (rps === undefined) {
    const passRps = Math.ceil(minRequests / ((FIRST_WEIGHTS[0] / 100) * RATE_WINDOW_SECONDS));
    throw new RollwiseInputError(
      'capacity',
      'missing',
      `canary delivery promotes on a measured sample of canary traffic (${fmt(minRequests)} requests per window for ` +
        `a ${thr} ratio), and without capacity figures rollwise cannot size the gate from the traffic a release ` +
        `sees: the default gate (${FIRST_WEIGHTS[0]} % over ${minutes(RATE_WINDOW_SECONDS)}) needs ` +
        `about ${fmt(passRps)} req/s to pass at all, so a quieter service (a dev environment) would pause every ` +
        'release at its first weight for a person (docs/mechanisms.md#quiet-environments).',
      'declare the traffic (capacity: { peakRequestsPerSecond, saturationRequestsPerSecondPerReplica, ' +
        'releaseRequestsPerSecond }; for an environment with its own, smaller traffic: Sizing.fixed(replicas, { ' +
        'peakRequestsPerSecond })), so rollwise derives a gate that can pass; or promote by hand with a reason: ' +
        `Delivery.canary({ manualPromotion: { because: '...' } }); or deliver without a canary: ` +
        'Delivery.rollingUpdate().',
    );
  }

  if (inp.steps) {
    const first = firstStep(inp.steps);
    if (!first) {
      return {
        windowSeconds: RATE_WINDOW_SECONDS,
        minRequests,
        firstWeightPercent: FIRST_WEIGHTS[0],
        steps: inp.steps,
        volumeMetric: true,
        reason: 'The steps set no weight above 0, so the canary never takes traffic to measure.',
      };
    }
    if (first.holdSeconds === undefined) {
      return {
        windowSeconds: RATE_WINDOW_SECONDS,
        minRequests,
        firstWeightPercent: first.weight,
        steps: inp.steps,
        volumeMetric: true,
        reason:
          `The hold after the first weight (${first.weight} %) is not a duration rollwise can read, so the ` +
          `volume at ${minutes(RATE_WINDOW_SECONDS)} is not checked (the Rollout check reports the step).`,
      };
    }
    const hold = first.holdSeconds;
    const holdText = hold === Infinity ? 'manual pause' : minutes(hold);
    for (const w of VOLUME_WINDOWS_SECONDS) {
      if (perWindow(first.weight, w) >= needed && holdForAbort(w) <= hold) {
        return {
          windowSeconds: w,
          minRequests,
          firstWeightPercent: first.weight,
          steps: inp.steps,
          volumeMetric: true,
          reason:
            `${rule}: from ${source}, the given first weight gives ${show(first.weight, w)} requests ` +
            `per ${minutes(w)} ` +
            `window${w > RATE_WINDOW_SECONDS ? ` (shorter windows give fewer than ${fmt(needed)})` : ''}, and the ` +
            `hold (${holdText}) leaves room for the first full window and ${failureLimitFor(w) + 1} failed ` +
            `measurements after it (failureLimit ${failureLimitFor(w)}, ` +
            'docs/mechanisms.md#one-burst-and-the-limits), so a bad canary is aborted at that weight.',
        };
      }
    }
    const best = VOLUME_WINDOWS_SECONDS.filter((w) => holdForAbort(w) <= hold);
    const longest = best.length ? best[best.length - 1] : undefined;
    throw new RollwiseInputError(
      'delivery.steps',
      JSON.stringify(inp.steps.map((s) => s.json)),
      `at the first weight (${first.weight} %) the canary cannot collect the sample its error ratio needs within the ` +
        `step. ${rule}; ` +
        `from ${source}: ${
          longest !== undefined
            ? `${show(first.weight, longest)} in the longest window ` +
              `(${minutes(longest)}) whose abort fits the hold at that weight (${holdText}), below ${fmt(needed)}`
            : `the hold (${holdText}) is shorter than ` +
              `the shortest window's abort (the first measurement after the ${minutes(RATE_WINDOW_SECONDS)} ` +
              `window, ${failureLimitFor(RATE_WINDOW_SECONDS)} more a minute apart, and one to ` +
              `spare: ${minutes(holdForAbort(RATE_WINDOW_SECONDS))})`
        }. ` +
        `Every release would pause at ${first.weight} % for a human.`,
      fixForSteps(first.weight, rps, needed),
    );
  }

  const tried: string[] = [];
  for (const weight of FIRST_WEIGHTS) {
    for (const w of VOLUME_WINDOWS_SECONDS) {
      if (perWindow(weight, w) >= needed) {
        const pause = Math.max(600, holdForAbort(w));
        const chosen =
          weight === FIRST_WEIGHTS[0] && w === RATE_WINDOW_SECONDS
            ? 'the shortest window at the smallest first weight'
            : `the smallest first weight, then the shortest window, that reaches it (${tried.join('; ')} do not)`;
        return {
          windowSeconds: w,
          minRequests,
          firstWeightPercent: weight,
          steps: plannedSteps(weight, pause, w, false),
          volumeMetric: true,
          reason:
            `${rule}: from ${source}, ${show(weight, w)} requests per ${minutes(w)} window, ${chosen}. The ` +
            `first weight is held ${minutes(pause)} (at least 10 min, and long enough for a canary that fails every ` +
            `measurement to be aborted at ${weight} %: the first measurement after the ${minutes(w)} ` +
            `window, ${failureLimitFor(w)} more a minute apart until failed > failureLimit ${failureLimitFor(w)}, ` +
            'and one to spare; docs/mechanisms.md#one-burst-and-the-limits).',
        };
      }
      tried.push(`${show(weight, w)}`);
    }
  }
  const lastW = VOLUME_WINDOWS_SECONDS[VOLUME_WINDOWS_SECONDS.length - 1];
  const lastWeight = FIRST_WEIGHTS[FIRST_WEIGHTS.length - 1];
  const input = inp.releaseRps !== undefined ? 'capacity.releaseRequestsPerSecond' : 'capacity.peakRequestsPerSecond';
  const pctNeeded = Math.ceil((needed / (rps * lastW)) * 100);
  const holdMinutes = Math.ceil(holdForAbort(lastW) / 60);
  throw new RollwiseInputError(
    input,
    rps,
    `the canary cannot collect the sample its error ratio needs in any step rollwise would choose. ${rule}; ` +
      `from ${source} the most a default step gives is ${show(lastWeight, lastW)} (first weight up to ${lastWeight} ` +
      `%, window up to ${minutes(lastW)}: longer windows detect a bad canary later, higher weights expose more ` +
      `users), below ${fmt(needed)}. Every release would pause at its first weight for a human.`,
    'if releases happen at busier hours, give that traffic as ' +
      `capacity.releaseRequestsPerSecond; ${
        pctNeeded <= 50
          ? 'or choose a higher first weight and a longer hold ' +
            `yourself (Delivery.canary({ steps: [CanaryStep.setWeight(${pctNeeded}), ` +
            `CanaryStep.pause(Duration.minutes(${holdMinutes})), CanaryStep.analysisGate()] })); ` +
            'or promote by hand'
          : 'otherwise, ' +
            `as ${
              pctNeeded > 100
                ? 'even all of the traffic for 10 min would not be enough'
                : `it would take ${pctNeeded} % of the traffic for 10 min`
            }, ` +
            'promote by hand'
      } ` +
      `with a reason: Delivery.canary({ manualPromotion: { because: '...' } }).`,
  );
}

/**
 * The fix for user steps whose first weight cannot gate: where the weight already gives the sample in
 * some window, only the hold is short, so name the pause that window's abort needs; otherwise name the
 * weight that gives the sample over 10 min and its hold.
 */
function fixForSteps(weight: number, rps: number, needed: number): string {
  const enough = VOLUME_WINDOWS_SECONDS.find((w) => rps * (weight / 100) * w >= needed);
  const rest =
    'or use the default steps (rollwise chooses); or promote by hand with Delivery.canary({ ' +
    "manualPromotion: { because: '...' } }).";
  if (enough !== undefined) {
    const hold = Math.ceil(holdForAbort(enough) / 60);
    return (
      `${weight} % already gives the sample over ${minutes(enough)}; hold it long enough for a bad canary to be ` +
      `aborted there (the first measurement after the ${minutes(enough)} window, ` +
      `failureLimit ${failureLimitFor(enough)} more a minute apart, and one to spare: ${hold} min), e.g. ` +
      `CanaryStep.setWeight(${weight}), CanaryStep.pause(Duration.minutes(${hold})) before the next step; ${rest}`
    );
  }
  const longest = VOLUME_WINDOWS_SECONDS[VOLUME_WINDOWS_SECONDS.length - 1];
  const pct = Math.min(100, Math.ceil((needed / (rps * longest)) * 100));
  const hold = Math.ceil(holdForAbort(longest) / 60);
  return (
    `raise the first weight to ${pct} % (at ${fmt(rps)} req/s it gives the sample over ${minutes(longest)}) and ` +
    `hold it long enough for a bad canary to be aborted there (the first measurement after the ${minutes(longest)} ` +
    `window, failureLimit ${failureLimitFor(longest)} more a minute apart, and one to spare: ${hold} min), e.g. ` +
    `CanaryStep.setWeight(${pct}), CanaryStep.pause(Duration.minutes(${hold})); ${rest}`
  );
}

/**
 * The first weight above 0 and how long the steps after it hold it (Infinity for a manual pause; undefined when
 * unreadable).
 */
function firstStep(steps: CanaryStep[]): { weight: number; holdSeconds: number | undefined } | undefined {
  const i = steps.findIndex((s) => typeof s.json.setWeight === 'number' && (s.json.setWeight as number) > 0);
  if (i < 0) return undefined;
  let hold = 0;
  for (const s of steps.slice(i + 1)) {
    if (typeof s.json.setWeight === 'number') break;
    const h = holdOf(s);
    if (h === undefined) return { weight: steps[i].json.setWeight as number, holdSeconds: undefined };
    hold += h;
  }
  return { weight: steps[i].json.setWeight as number, holdSeconds: hold };
}

function firstWeightOf(steps: CanaryStep[]): number | undefined {
  return firstStep(steps)?.weight;
}

/** How long a step holds the weight: a pause's duration, a manual pause forever, the gate its count. */
function holdOf(s: CanaryStep): number | undefined {
  const j = s.json;
  if (j.analysis === 'gate' || (typeof j.analysis === 'object' && j.analysis !== null))
    return GATE_COUNT * INTERVAL_SECONDS;
  if (typeof j.pause === 'object' && j.pause !== null) {
    const d = (j.pause as { duration?: unknown }).duration;
    if (d === undefined) return Infinity;
    if (typeof d === 'number') return d;
    if (typeof d === 'string') {
      const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(d);
      if (m && d !== '') return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
      if (/^\d+$/.test(d)) return Number(d);
    }
    return undefined;
  }
  return 0;
}
