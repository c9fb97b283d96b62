import { Duration } from 'cdk8s';
import { RollwiseInputError } from '../errors';
import { decided, Decision } from './decision';
import { checkInteger, formatGoDuration } from './inputs';
import { checkKeys, keysOf } from './props-keys';
import { MIN_REASON_LENGTH, reasonProblem } from './reason';
import { RolloutDecisions } from './rollout';

const CANARY_OPTION_KEYS = keysOf<CanaryOptions>()({ steps: true, manualPromotion: true });
const MANUAL_PROMOTION_KEYS = keysOf<NonNullable<CanaryOptions['manualPromotion']>>()({ because: true });

/** A canary step as the Rollout spec holds it (exactly one key). */
export type StepJson = Record<string, unknown>;

/**
 * One step of a canary. Use the static factories; `fromJson` accepts a raw step (e.g. copied from an
 * existing Rollout) and is checked like the controller would, at synth time.
 */
export class CanaryStep {
  /**
   * Send `percent` % of the route's traffic to the canary (0-100). A value outside is refused by
   * the HttpService that uses the step, so the error names the service and its construct path.
   */
  public static setWeight(percent: number): CanaryStep {
    // The controller refuses a weight outside 0..maxTrafficWeight (100 unless set; rollwise's
    // Rollouts never set it), and setWeight is an int32 (argo-rollouts v1.9.1 pkg/apis/rollouts/validation, as
    // src/checks/controller/validation.ts setWeightRange).
    const problem = deferred(() =>
      checkInteger(
        'CanaryStep.setWeight(percent)',
        percent,
        0,
        100,
        "it is the percentage of the route's traffic sent to the canary, a whole number the Argo Rollouts controller " +
          "accepts from 0 to 100 (rollwise's Rollouts keep the default maximum of 100).",
        'use a whole percentage from 0 to 100, e.g. CanaryStep.setWeight(25).',
      ),
    );
    return new CanaryStep({ setWeight: percent }, `send ${percent} % of traffic to the canary`, problem);
  }
  /**
   * Hold the current weight for `duration` while the background analysis watches (refused, like setWeight, by the
   * service).
   */
  public static pause(duration: Duration): CanaryStep {
    let json: StepJson = { pause: {} };
    const problem = deferred(() => {
      json = { pause: { duration: goDuration(duration) } };
    });
    return new CanaryStep(json, problem ? 'hold (invalid duration)' : `hold for ${duration.toHumanString()}`, problem);
  }
  /** Wait for a human (`kubectl argo rollouts promote`). */
  public static pauseUntilPromoted(): CanaryStep {
    return new CanaryStep({ pause: {} }, 'wait for a human to promote');
  }
  /** The inline analysis gate: the step blocks until the service's gate analysis succeeds. */
  public static analysisGate(): CanaryStep {
    return new CanaryStep({ analysis: 'gate' }, 'block until the gate analysis passes');
  }
  /** A raw step; validated at synth time like the controller validates it. */
  public static fromJson(step: StepJson): CanaryStep {
    if (step === null || typeof step !== 'object' || Array.isArray(step)) {
      throw new RollwiseInputError(
        'CanaryStep.fromJson(step)',
        step ?? null,
        'must be one step object as in a Rollout (e.g. { setWeight: 10 } or { pause: { duration: "5m" } }).',
        'pass one step object, or use CanaryStep.setWeight / pause / analysisGate.',
      );
    }
    refuseNonJson('CanaryStep.fromJson(step)', step, 0);
    return new CanaryStep(step, `raw step ${JSON.stringify(step)}`);
  }
  private constructor(
    public readonly json: StepJson,
    public readonly description: string,
    /** Why the step is invalid, thrown by the HttpService that uses it (which names itself). */
    public readonly problem?: RollwiseInputError,
  ) {}
}

/** The input error `check` throws, kept for the HttpService to throw with its name; undefined when it passes. */
function deferred(check: () => unknown): RollwiseInputError | undefined {
  try {
    check();
    return undefined;
  } catch (e) {
    if (e instanceof RollwiseInputError) return e;
    throw e;
  }
}

/**
 * Throws the delivery's own error, or the first invalid step's, named by its place in
 * `delivery.steps` (the caller, an HttpService, adds the service and its construct path).
 */
export function checkDelivery(delivery: Delivery): void {
  if (delivery.problem) throw delivery.problem;
  (delivery.steps ?? []).forEach((s, i) => {
    const p = s.problem;
    if (p) throw new RollwiseInputError(`delivery.steps[${i}] ${p.input}`, p.value, p.why, p.fix);
  });
}

/**
 * A raw step must be JSON as the Rollout holds it: a BigInt (`10n`) cannot be written as JSON, and
 * a function, a symbol or undefined would be dropped from the manifest without a word.
 */
function refuseNonJson(at: string, v: unknown, depth: number): void {
  if (depth > 16 || v === null || typeof v !== 'object') return;
  for (const [k, x] of Object.entries(v)) {
    const p = Array.isArray(v) ? `${at}[${k}]` : `${at}.${k}`;
    if (typeof x === 'bigint')
      throw new RollwiseInputError(
        p,
        x,
        'is a BigInt, which JSON (and so the Rollout) cannot hold.',
        `use a plain number: ${Number(x)}.`,
      );
    if (typeof x === 'function' || typeof x === 'symbol' || x === undefined) {
      throw new RollwiseInputError(
        p,
        typeof x === 'function' ? 'a function' : String(x),
        'is not a JSON value, so it would be left out of the Rollout without a word.',
        'give the value as the Rollout holds it (a number, a string, an object or a list), or remove the key.',
      );
    }
    refuseNonJson(p, x, depth + 1);
  }
}

/** A pause as Argo Rollouts reads it ("10m", "1m30s"); it must be a positive whole number of seconds. */
export function goDuration(d: Duration): string {
  if (!(d instanceof Duration))
    throw new RollwiseInputError(
      'steps.pause',
      d ?? null,
      'must be a Duration.',
      'use CanaryStep.pause(Duration.minutes(5)), or CanaryStep.pauseUntilPromoted() to wait for a human.',
    );
  const s = d.toSeconds({ integral: false });
  if (!Number.isInteger(s) || s <= 0)
    throw new RollwiseInputError(
      'steps.pause',
      d.toHumanString(),
      'a pause must be a positive whole number of seconds.',
      'use Duration.seconds(n) or Duration.minutes(n).',
    );
  return formatGoDuration(s);
}

/**
 * The default canary: 5 % for 10 min, 25 % for 10 min, the inline gate, then full promotion
 * (docs/mechanisms.md#canary-analysis).
 */
export function defaultCanarySteps(): CanaryStep[] {
  return [
    CanaryStep.setWeight(5),
    CanaryStep.pause(Duration.minutes(10)),
    CanaryStep.setWeight(25),
    CanaryStep.pause(Duration.minutes(10)),
    CanaryStep.analysisGate(),
  ];
}

export interface CanaryStrategyDecisions {
  readonly steps: Decision<StepJson[]>;
  readonly maxSurge: Decision<string>;
  readonly maxUnavailable: Decision<number>;
  readonly progressDeadlineAbort: Decision<boolean>;
  readonly scaleDownDelaySeconds: Decision<number>;
  readonly abortScaleDownDelaySeconds: Decision<number>;
  readonly dynamicStableScale: Decision<boolean>;
  readonly rollbackWindow: Decision<number>;
  /** Index of the first step at which the background analysis starts. */
  readonly backgroundStartingStep: Decision<number>;
}

/**
 * The canary strategy's values. The steps are rendered with the names of the gate template;
 * `userSteps` replaces the default steps (validated when the Rollout is checked).
 */
export function canaryStrategy(
  rollout: RolloutDecisions,
  gateTemplate: string,
  userSteps?: CanaryStep[],
  planned?: { steps: CanaryStep[]; reason: string; manualPromotion?: string },
): CanaryStrategyDecisions {
  const chosen = userSteps ?? planned?.steps ?? defaultCanarySteps();
  const steps = chosen.map((s) =>
    s.json.analysis === 'gate'
      ? {
          analysis: {
            templates: [{ templateName: gateTemplate }],
            args: [{ name: 'canary-hash', valueFrom: { podTemplateHashValue: 'Latest' } }],
          },
        }
      : s.json,
  );
  const firstWeight = steps.findIndex((s) => typeof s.setWeight === 'number' && s.setWeight > 0);
  const described = chosen.map((s) => s.description).join(', ');
  const firstPct = typeof steps[firstWeight]?.setWeight === 'number' ? (steps[firstWeight].setWeight as number) : 5;
  const manual = planned?.manualPromotion ? ` Promoted by hand: ${planned.manualPromotion}.` : '';
  const volume = planned ? ` ${planned.reason}` : '';
  return {
    steps: userSteps
      ? decided(steps, `Steps given by the service: ${described}; then full promotion.${manual}${volume}`)
      : decided(
          steps,
          `${described}, then full promotion (docs/mechanisms.md#canary-analysis): a bad release costs ${firstPct} % ` +
            `of traffic for minutes, and the inline gate cannot be skipped before 100 %.${manual}${volume}`,
        ),
    maxSurge: decided(
      '25%',
      'Canary pods are added a quarter of the fleet at a time (the default), without doubling the footprint.',
    ),
    maxUnavailable: rollout.maxUnavailable,
    progressDeadlineAbort: decided(
      true,
      `A rollout that makes no progress for ${rollout.progressDeadlineSeconds.value} s is aborted (traffic back to ` +
        'stable), not just marked Degraded: the default false leaves a stuck canary taking its share of traffic ' +
        '(reference: Argo Rollouts).',
    ),
    scaleDownDelaySeconds: decided(
      30,
      'The old stable ReplicaSet stays up 30 s after promotion (the default with traffic routing), so proxies still ' +
        'holding its endpoints drain before the pods go.',
    ),
    abortScaleDownDelaySeconds: decided(
      30,
      'After an abort the canary pods go after 30 s (the default): long enough for the proxies to stop routing to ' +
        'them; 0 would keep a bad canary running forever.',
    ),
    dynamicStableScale: decided(
      false,
      'The stable ReplicaSet stays at 100 % during the canary, so an abort shifts traffic back instantly with no ' +
        'pods to start (true would scale stable down as the canary grows).',
    ),
    rollbackWindow: decided(
      3,
      'Rolling back to one of the last 3 revisions skips the canary steps: a `git revert` to a version that just ran ' +
        'in production is not made to crawl through 5 % and 25 % again (docs/mechanisms.md#gitops-rollback).',
    ),
    backgroundStartingStep: decided(
      Math.max(0, firstWeight + 1),
      `The background analysis starts right after the first traffic shift (step ${firstWeight + 1}), so a bad ` +
        'release is aborted at its first weight, not at the gate.',
    ),
  };
}

/** How new versions reach users. */
export class Delivery {
  /**
   * An Argo Rollout canary on the service's HTTPRoute with automatic analysis (the golden path).
   * @param options the steps (default: derived from the traffic) and manual promotion (default: the analysis promotes)
   */
  public static canary(options: CanaryOptions = {}): Delivery {
    let because: string | undefined;
    // refused by the HttpService that uses it, which names itself (checkDelivery)
    const problem = deferred(() => {
      checkKeys('delivery', options, CANARY_OPTION_KEYS, 'Delivery.canary(options)');
      if (options.manualPromotion !== undefined) {
        checkKeys('delivery.manualPromotion', options.manualPromotion, MANUAL_PROMOTION_KEYS);
        because = typeof options.manualPromotion?.because === 'string' ? options.manualPromotion.because.trim() : '';
        // the one reason rule of overrides, accepted patches and suppressions (reason.ts)
        const reasonIssue = reasonProblem(options.manualPromotion?.because);
        if (reasonIssue !== undefined) {
          throw new RollwiseInputError(
            'delivery.manualPromotion.because',
            because,
            'manual promotion takes the release decision away from the analysis, so it must say why (at ' +
              `least ${MIN_REASON_LENGTH} characters, no placeholder), e.g. that the service's traffic is too low ` +
              `for a measured sample; ${reasonIssue}.`,
            "give manualPromotion: { because: 'about 2 req/s at release time: too few requests for a 1 % ratio' }, " +
              'or leave it out to let the analysis promote.',
          );
        }
      }
      if (options.steps !== undefined) {
        if (!Array.isArray(options.steps))
          throw new RollwiseInputError(
            'delivery.steps',
            options.steps ?? null,
            'must be a list of CanaryStep.',
            'pass steps: [CanaryStep.setWeight(10), CanaryStep.pause(Duration.minutes(5)), CanaryStep.analysisGate()].',
          );
        options.steps.forEach((s, i) => {
          if (!(s instanceof CanaryStep)) {
            throw new RollwiseInputError(
              `delivery.steps[${i}]`,
              s === null ? null : typeof s === 'object' ? JSON.stringify(s) : s,
              'must be made by a CanaryStep factory; a plain object carries none of the checks the factories apply.',
              'use CanaryStep.setWeight(n), CanaryStep.pause(d), CanaryStep.analysisGate(), or ' +
                `CanaryStep.fromJson(${typeof s === 'object' && s !== null ? JSON.stringify(s) : '{ ... }'}) for a ` +
                'raw step.',
            );
          }
        });
      }
    });
    return new Delivery('canary', problem ? undefined : options.steps, because, problem);
  }
  /** A plain Deployment rolling update (no traffic split, no analysis): for services without a route. */
  public static rollingUpdate(...unexpected: never[]): Delivery {
    // a JavaScript caller's options (e.g. { steps }) would be ignored without a word
    if (
      unexpected.length > 0 &&
      !(
        unexpected.length === 1 &&
        (unexpected[0] === undefined ||
          (typeof unexpected[0] === 'object' && unexpected[0] !== null && Object.keys(unexpected[0]).length === 0))
      )
    ) {
      const given = unexpected[0] as unknown;
      const keys = typeof given === 'object' && given !== null ? Object.keys(given) : [];
      throw new RollwiseInputError(
        keys.length ? `Delivery.rollingUpdate({ ${keys.join(', ')} })` : 'Delivery.rollingUpdate(options)',
        keys.length ? keys.join(', ') : (given as string),
        'takes no options: a rolling update has no steps, no analysis and no manual promotion, ' +
          `so ${keys.length ? 'these' : 'it'} would be silently ` +
          `ignored.${
            keys.some((k) => (CANARY_OPTION_KEYS as readonly string[]).includes(k))
              ? ' They are options of Delivery.canary().'
              : ''
          }`,
        `use Delivery.rollingUpdate() for a plain rolling update, or Delivery.canary({ ${keys.join(', ') || 'steps'} ` +
          '}) for steps and analysis.',
      );
    }
    return new Delivery('rollingUpdate', undefined);
  }
  private constructor(
    public readonly kind: 'canary' | 'rollingUpdate',
    public readonly steps: CanaryStep[] | undefined,
    /** Why a human promotes instead of the analysis (Delivery.canary({ manualPromotion })). */
    public readonly manualPromotion?: string,
    /** Why the options are invalid, thrown by the HttpService that uses this delivery. */
    public readonly problem?: RollwiseInputError,
  ) {}
}

/** Options of Delivery.canary(). */
export interface CanaryOptions {
  /**
   * Replaces the default steps (5 % for 10 min, 25 % for 10 min, the gate; the first weight and its
   * pause are raised when the traffic is too low for the volume gate).
   * @default rollwise's steps, derived from the capacity figures
   */
  readonly steps?: CanaryStep[];
  /**
   * A human promotes after the first weight (`kubectl argo rollouts promote`) instead of the volume
   * gate: for services whose traffic is too low for a measured sample. The analysis still aborts a
   * canary that fails; there is no request-volume metric.
   * @default the analysis promotes
   */
  readonly manualPromotion?: { readonly because: string };
}
