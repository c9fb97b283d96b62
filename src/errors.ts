/**
 * The one error rollwise throws for bad input. Its message always names the input, the value,
 * why the value is unsafe or invalid, and how to fix it, so a failed synth explains itself.
 */
export class RollwiseInputError extends Error {
  public readonly input: string;
  public readonly value: string;
  public readonly why: string;
  public readonly fix: string;
  /** The service the error is about, once an HttpService has added it (see inService). */
  public service?: string;
  /** The construct path of that service. */
  public path?: string;

  constructor(input: string, value: unknown, why: string, fix: string) {
    // JSON.stringify prints NaN and Infinity as null, and undefined as nothing: name them.
    // an empty string would print as nothing after "=": name it
    const shown =
      value === ''
        ? '"" (empty)'
        : typeof value === 'string'
          ? value
          : typeof value === 'number' && !Number.isFinite(value)
            ? String(value)
            : typeof value === 'bigint'
              ? `${String(value)}n`
              : value === undefined
                ? 'undefined'
                : (JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${String(v)}n` : v)) ??
                  String(value));
    super(`${input} = ${shown}: ${why} Fix: ${fix}`);
    this.name = 'RollwiseInputError';
    this.input = input;
    this.value = shown;
    this.why = why;
    this.fix = fix;
  }
}

/**
 * The same error, saying which service (and construct path) it is about: with many services in
 * an app, "replicas = 11" alone does not say where. Other errors pass through unchanged.
 */
export function inService(error: unknown, service: string, path: string): unknown {
  if (!(error instanceof RollwiseInputError) || error.service !== undefined) return error;
  const e = new RollwiseInputError(error.input, error.value, error.why, error.fix);
  e.service = service;
  e.path = path;
  e.message = `service ${service} (${path}): ${error.message}`;
  return e;
}

/**
 * How the CLI and a RollwiseApp run as a program print an input error: no stack trace, the four parts on their own
 * lines.
 */
export function formatInputError(e: RollwiseInputError): string {
  return (
    `rollwise: invalid input${e.service ? ` in service ${e.service} (${e.path})` : ''}\n  ${e.input} ` +
    `= ${e.value}\n  why: ${e.why}\n  fix: ${e.fix}\n`
  );
}

/** A RollwiseInputError, also one thrown by another copy of the rollwise package. */
export function isInputError(e: unknown): e is RollwiseInputError {
  if (e instanceof RollwiseInputError) return true;
  const x = e as Partial<RollwiseInputError> | null;
  return (
    typeof x === 'object' &&
    x !== null &&
    x.name === 'RollwiseInputError' &&
    typeof x.input === 'string' &&
    typeof x.why === 'string' &&
    typeof x.fix === 'string'
  );
}
