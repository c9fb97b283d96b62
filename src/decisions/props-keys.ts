import { Duration } from 'cdk8s';
import { RollwiseInputError } from '../errors';

/**
 * The known keys of each props group, one declaration per group. `keysOf<T>()({...})` accepts
 * exactly the keys of T (a key missing or extra is a compile error), so a prop added to an
 * interface is one line here, and a JavaScript caller's typo (`readinesPath`) is refused with
 * "did you mean" instead of silently ignored (TypeScript's excess-property check only catches
 * literals, and JavaScript has none).
 */
export function keysOf<T>() {
  return <K extends { readonly [P in keyof T]-?: true }>(
    k: K & { readonly [P in Exclude<keyof K, keyof T>]: never },
  ): readonly string[] => Object.keys(k);
}

/** Edit distance, for "did you mean". */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++)
      d[i][j] = Math.min(
        d[i - 1][j] + 1,
        d[i][j - 1] + 1,
        d[i - 1][j - 1] + (a[i - 1].toLowerCase() === b[j - 1].toLowerCase() ? 0 : 1),
      );
  }
  return d[a.length][b.length];
}

/** The known key closest to `key`, when it is close enough to be a typo. */
export function didYouMean(key: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const dd = distance(key, k);
    if (dd < bestD) [best, bestD] = [k, dd];
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(best.length / 3)) ? best : undefined;
}

/**
 * Refuses a props group that is not a plain object (null, a number, an array) and any key it
 * does not know, naming the group as the user wrote it (`health.readinesPath`).
 * Returns the value for chaining.
 */
export function checkKeys<T>(input: string, value: T, known: readonly string[], owner?: string): T {
  if (value === undefined) return value;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new RollwiseInputError(
      input,
      value === null
        ? null
        : Array.isArray(value)
          ? 'a list'
          : typeof value === 'bigint'
            ? `${String(value)}n (a BigInt)`
            : typeof value === 'function'
              ? 'a function'
              : value,
      `must be an object with the keys ${known.join(', ')}.`,
      `pass ${owner ?? input} as an object, e.g. { ${known[0]}: ... }, or leave it out.`,
    );
  }
  for (const k of Object.keys(value as object)) {
    if (known.includes(k)) continue;
    const guess = didYouMean(k, known);
    const at = (key: string) => (input === '' ? key : `${input}.${key}`);
    throw new RollwiseInputError(
      at(k),
      describeValue((value as Record<string, unknown>)[k]),
      `is not a setting of ${owner ?? (input === '' ? 'HttpService' : input)} (it would be silently ` +
        `ignored)${guess ? `; did you mean ${at(guess)}?` : ''} Known: ${known.join(', ')}.`,
      guess ? `rename it to ${guess}.` : `remove it, or use one of ${known.join(', ')}.`,
    );
  }
  return value;
}

function describeValue(v: unknown): unknown {
  if (typeof v === 'bigint') return `${String(v)}n (a BigInt)`;
  if (v instanceof Duration) return `Duration.seconds(${v.toSeconds({ integral: false })})`;
  if (typeof v === 'function') return 'a function';
  return v ?? null;
}
