/**
 * What an analysis metric does when nothing happened: the query side (a PromQL default that turns
 * an empty result into a number) and the condition side (a condition that passes on an empty, nil
 * or NaN result). Used by RW402 and RW403.
 *
 * Condition semantics follow Argo Rollouts v1.9.1 utils/evaluate/evaluate.go: `default(x, d)` and
 * `isNil(x)` ignore their first argument and look at the whole result (`default` returns d when the
 * result is nil, else the result itself); `isNaN` is math.IsNaN; the phase is decided as in
 * EvaluateResult (only successCondition: not success = Failed; only failureCondition: not failure =
 * Successful; both false = Inconclusive; an evaluation error = Error). The Prometheus provider
 * (metricproviders/prometheus/prometheus.go processResponse) gives a vector as a []float64, so an
 * empty vector is an empty, non-nil array and 0/0 is [NaN]; providers such as Datadog give nil for
 * no data (docs/analysis/datadog.md: "empty query results yielding a nil value"). The evaluator
 * is the one in src/checks/analysis-condition.ts.
 */

import {
  assessResult,
  ConditionSyntaxError,
  parseCondition,
  type ConditionNode,
  type ConditionResult,
} from '../checks/analysis-condition';

/** A condition value: a number (NaN included), a boolean, an array of numbers, or nil. */
type V = ConditionResult;

export type Phase = 'Successful' | 'Failed' | 'Inconclusive' | 'Error';

/** The measurement phase for a result, or undefined when a condition uses syntax not modelled here. */
export function phaseOf(result: V, successCondition?: string, failureCondition?: string): Phase | undefined {
  let s: ConditionNode | undefined;
  let f: ConditionNode | undefined;
  try {
    s = successCondition ? parseCondition(successCondition) : undefined;
    f = failureCondition ? parseCondition(failureCondition) : undefined;
  } catch {
    return undefined;
  }
  try {
    return assessResult(result, s, f).phase;
  } catch (e) {
    if (e instanceof ConditionSyntaxError) return undefined;
    throw e;
  }
}

/**
 * The "nothing happened" results a provider hands the conditions, by provider, from the providers'
 * source at Argo Rollouts v1.9.1; providers not listed here are not modelled (an empty list: no
 * finding rather than a guess at their shape).
 * - prometheus: a vector is a []float64, empty when no series matches, [NaN] for 0/0
 *   (metricproviders/prometheus/prometheus.go processResponse).
 * - datadog: a float64, or a nil *float64 when the series or its points are empty (v1) or the
 *   first column's first value is null (v2) (metricproviders/datadog/datadog.go parseResponseV1,
 *   parseResponseV2). JSON carries no NaN.
 * CloudWatch, New Relic, Wavefront and web results are objects or arbitrary JSON (see
 * analysis-rules.ts); their no-data cases are checked there by shape, not evaluated here.
 */
export function noDataResults(provider: string): { result: V; what: string }[] {
  if (provider === 'prometheus')
    return [
      { result: [], what: 'an empty result (no series yet)' },
      { result: [Number.NaN], what: 'NaN (0/0: no requests in the window)' },
    ];
  if (provider === 'datadog') return [{ result: null, what: 'no value (nil: Datadog returned no points)' }];
  return [];
}

/**
 * Answers by provider and conditions: a pure function of them, asked for every metric of every
 * AnalysisTemplate (synth lints each service's, and an estate repeats the same conditions).
 * Bounded.
 */
const NO_DATA_MEMO = new Map<string, string | undefined>();

/** A condition pair that passes on a no-data result: the first such result, or undefined. */
export function passesOnNoData(
  provider: string,
  successCondition?: string,
  failureCondition?: string,
): string | undefined {
  if (!successCondition && !failureCondition) return undefined;
  const key = JSON.stringify([provider, successCondition ?? null, failureCondition ?? null]);
  if (NO_DATA_MEMO.has(key)) return NO_DATA_MEMO.get(key);
  let found: string | undefined;
  for (const { result, what } of noDataResults(provider)) {
    if (phaseOf(result, successCondition, failureCondition) === 'Successful') {
      found = what;
      break;
    }
  }
  if (NO_DATA_MEMO.size >= 1000) NO_DATA_MEMO.clear();
  NO_DATA_MEMO.set(key, found);
  return found;
}

/** A PromQL default that turns no data into a number, where it sits, and whether that is safe. */
export interface QueryDefault {
  /** The matched text, e.g. `or vector(0)`. */
  readonly match: string;
  /** Where the match starts in the query. */
  readonly index: number;
  /** The number no data becomes. */
  readonly value: string;
  /** `ratio` (around the whole expression), `denominator`, or `numerator` (safe: see below). */
  readonly position: 'ratio' | 'denominator' | 'numerator';
}

const OR_VECTOR =
  /\bor\s+(?:on\s*\([^)]*\)\s*|ignoring\s*\([^)]*\)\s*)?vector\s*\(\s*(-?\d+(?:\.\d+)?(?:e-?\d+)?)\s*\)/gi;
/** Datadog's default_zero() (docs.datadoghq.com, "Interpolation: default_zero") does the same for its queries. */
const DEFAULT_ZERO = /\bdefault_zero\s*\(/gi;

/**
 * Where each `or vector(n)` / `default_zero(` sits. A default inside the numerator of a ratio
 * (`(sum(rate(err[2m])) or on() vector(0)) / sum(rate(all[2m]))`) only says "no error series yet
 * means no errors" (Envoy creates response-code counters at first use); when requests are absent the
 * denominator is still empty and so is the ratio. Around the whole expression or in a denominator,
 * no data becomes a number: a silent pass (or fail).
 */
export function queryDefaults(query: string): QueryDefault[] {
  const out: QueryDefault[] = [];
  const add = (index: number, match: string, value: string): void => {
    out.push({ match, index, value, position: positionOf(query, index) });
  };
  for (const m of query.matchAll(OR_VECTOR)) add(m.index ?? 0, m[0], m[1]);
  for (const m of query.matchAll(DEFAULT_ZERO)) add(m.index ?? 0, m[0].replace(/\s*\($/, '()'), '0');
  return out;
}

/**
 * Whether the whole query ends in `or vector(n)` (`or on() vector(n)`) outside any parentheses: then
 * its result always holds a sample (PromQL's `or` keeps the right side's sample where the left side
 * has none), so it is never empty.
 */
export function endsInTopLevelDefault(query: string): boolean {
  return [...query.matchAll(OR_VECTOR)].some((m) => {
    const at = m.index ?? 0;
    let depth = 0;
    for (let i = 0; i < at; i++) depth += query[i] === '(' ? 1 : query[i] === ')' ? -1 : 0;
    return depth === 0 && query.slice(at + m[0].length).trim() === '';
  });
}

/** Walks out from the match through its enclosing parentheses to find what the group is divided by or into. */
function positionOf(q: string, at: number): QueryDefault['position'] {
  // Open parentheses enclosing `at`, innermost last.
  const open: number[] = [];
  for (let i = 0; i < at; i++) {
    if (q[i] === '(') open.push(i);
    else if (q[i] === ')') open.pop();
  }
  while (open.length > 0) {
    const start = open.pop()!;
    let depth = 0;
    let end = q.length;
    for (let i = start; i < q.length; i++) {
      if (q[i] === '(') depth++;
      else if (q[i] === ')' && --depth === 0) {
        end = i;
        break;
      }
    }
    // A function's argument list (sum(...), rate(...)): the group is the call, which starts at the name.
    let head = start;
    while (head > 0 && /[A-Za-z_0-9]/.test(q[head - 1])) head--;
    const before = q
      .slice(0, head)
      .replace(/\s*(?:by|without)\s*\([^)]*\)\s*$/i, '')
      .trimEnd();
    const after = q
      .slice(end + 1)
      .replace(/^\s*(?:by|without)\s*\([^)]*\)/i, '')
      .trimStart();
    if (before.endsWith('/')) return 'denominator';
    if (after.startsWith('/')) return 'numerator';
  }
  return 'ratio';
}
