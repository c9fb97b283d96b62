import { Duration } from 'cdk8s';
import { RollwiseInputError } from '../errors';
import { MIN_REASON_LENGTH, reasonProblem } from './reason';

/** A value an input fact or an arithmetic step depends on, as shown in reasons and `explain`. */
export type Fact = string | number | boolean;

/**
 * A decided value with its justification: the value, a sentence a reviewer understands (naming
 * the inputs and the arithmetic), and the inputs used. Every safety-relevant value rollwise emits
 * is one of these.
 */
export interface Decision<T> {
  readonly value: T;
  readonly reason: string;
  readonly inputs: Readonly<Record<string, Fact>>;
  /** True when the value came from an override; `reason` is then the override's `because`. */
  readonly overridden: boolean;
}

/**
 * Replaces a decided value. The `because` text is required: it replaces the computed reason in the
 * output, so whoever reads the manifest learns why this service differs from the golden path.
 */
export interface Override<T> {
  readonly value: T;
  /** Why this value is right for this service (at least a few words). */
  readonly because: string;
}

/** A computed decision (not overridden). */
export function decided<T>(value: T, reason: string, inputs: Record<string, Fact> = {}): Decision<T> {
  return { value, reason, inputs, overridden: false };
}

/**
 * Applies an override to a computed decision. An override without a real `because` is refused,
 * and the error names the computed value and its reason so the user sees what they are replacing,
 * plus what is unsafe about the new value when `hazard` can tell.
 */
export function withOverride<T>(
  input: string,
  computed: Decision<T>,
  override: Override<T> | undefined,
  show: (v: T) => string = String,
  hazard?: (v: T) => string | undefined,
): Decision<T> {
  if (override === undefined) return computed;
  checkOverrideShape(input, override);
  const because = typeof override.because === 'string' ? override.because.trim() : '';
  const problem = reasonProblem(override.because);
  if (problem !== undefined) {
    const risk = hazard?.(override.value);
    throw new RollwiseInputError(
      input,
      show(override.value),
      `an override must carry its reason (\`because\`, at least ${MIN_REASON_LENGTH} characters, no placeholder) ` +
        `and ${problem}.${risk ? ` ${risk}` : ''} rollwise computed ${show(computed.value)}: ${computed.reason}`,
      `add because: '<why ${show(override.value)} is right for this service>' to ${input}, or remove the override to ` +
        `keep ${show(computed.value)}.`,
    );
  }
  return {
    value: override.value,
    reason: `Overridden: ${because} (rollwise computed ${show(computed.value)}.)`,
    inputs: { ...computed.inputs, computed: show(computed.value) },
    overridden: true,
  };
}

/**
 * An override is `{ value, because }`; a bare value (`cpuLimit: '1'`) is refused by name, so the
 * error shows what was given rather than its missing `value` ("undefined").
 */
export function checkOverrideShape(input: string, override: unknown): void {
  if (
    override !== undefined &&
    (typeof override !== 'object' || override === null || Array.isArray(override) || !('value' in override))
  ) {
    // a bare Duration is shown as the factory call that makes it, not as its private fields
    const duration =
      override instanceof Duration ? `Duration.seconds(${override.toSeconds({ integral: false })})` : undefined;
    const shown =
      duration ?? (typeof override === 'string' ? `'${override}'` : (JSON.stringify(override) ?? String(override)));
    throw new RollwiseInputError(
      input,
      duration ?? override ?? null,
      'an override is an object { value, because }: the value replaces the decided one, and the because says, in the ' +
        'output, why it is right for this service.',
      `write ${input}: { value: ${shown}, because: '<why this value is right for this service>' }.`,
    );
  }
}
