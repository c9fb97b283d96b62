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
 * no data (docs/analysis/datadog.md: "empty query results yielding a nil value").
 */

/** A condition value: a number (NaN included), a boolean, an array of numbers, or nil. */
type V = number | boolean | number[] | null;

type N =
  | { t: 'lit'; v: V } | { t: 'result' }
  | { t: 'index'; of: N; i: N } | { t: 'call'; fn: string; args: N[] }
  | { t: 'not'; of: N } | { t: 'neg'; of: N } | { t: 'bin'; op: string; l: N; r: N };

const TOKEN = /\s*(\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|&&|\|\||<=|>=|==|!=|[<>!()[\],+\-*/]|[A-Za-z_][A-Za-z0-9_]*)/y;
const FUNCTIONS = new Set(['len', 'isNaN', 'isInf', 'isNil', 'default', 'asFloat', 'asInt']);

class Unsupported extends Error {}
class EvalError extends Error {}

function tokens(src: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < src.length) {
    const start = TOKEN.lastIndex;
    const m = TOKEN.exec(src);
    if (!m) {
      if (/^\s*$/.test(src.slice(start))) break;
      throw new Unsupported(src.slice(start));
    }
    out.push(m[1]);
  }
  return out;
}

/** Parses the subset of expr that analysis conditions use; throws Unsupported for anything else. */
function parse(src: string): N {
  const toks = tokens(src);
  let p = 0;
  const peek = (): string | undefined => toks[p];
  const eat = (t?: string): string => {
    const tok = toks[p++];
    if (tok === undefined || (t !== undefined && tok !== t)) throw new Unsupported(tok ?? 'end');
    return tok;
  };
  const isOr = (t?: string): boolean => t === '||' || t === 'or';
  const isAnd = (t?: string): boolean => t === '&&' || t === 'and';
  const or = (): N => { let l = and(); while (isOr(peek())) { eat(); l = { t: 'bin', op: '||', l, r: and() }; } return l; };
  const and = (): N => { let l = cmp(); while (isAnd(peek())) { eat(); l = { t: 'bin', op: '&&', l, r: cmp() }; } return l; };
  const cmp = (): N => {
    const l = sum();
    const op = peek();
    if (op !== undefined && ['<', '<=', '>', '>=', '==', '!='].includes(op)) { eat(); return { t: 'bin', op, l, r: sum() }; }
    return l;
  };
  const sum = (): N => { let l = prod(); while (peek() === '+' || peek() === '-') { const op = eat(); l = { t: 'bin', op, l, r: prod() }; } return l; };
  const prod = (): N => { let l = unary(); while (peek() === '*' || peek() === '/') { const op = eat(); l = { t: 'bin', op, l, r: unary() }; } return l; };
  const unary = (): N => {
    if (peek() === '!' || peek() === 'not') { eat(); return { t: 'not', of: unary() }; }
    if (peek() === '-') { eat(); return { t: 'neg', of: unary() }; }
    return postfix();
  };
  const postfix = (): N => {
    let node = primary();
    while (peek() === '[') { eat(); const i = or(); eat(']'); node = { t: 'index', of: node, i }; }
    return node;
  };
  const primary = (): N => {
    const tok = eat();
    if (/^\d/.test(tok)) return { t: 'lit', v: Number(tok) };
    if (tok === 'true' || tok === 'false') return { t: 'lit', v: tok === 'true' };
    if (tok === 'nil') return { t: 'lit', v: null };
    if (tok === 'result') return { t: 'result' };
    if (tok === '(') { const n = or(); eat(')'); return n; }
    if (FUNCTIONS.has(tok)) {
      eat('(');
      const args: N[] = [];
      if (peek() !== ')') { args.push(or()); while (peek() === ',') { eat(); args.push(or()); } }
      eat(')');
      return { t: 'call', fn: tok, args };
    }
    throw new Unsupported(tok);
  };
  const n = or();
  if (p < toks.length) throw new Unsupported(toks[p]);
  return n;
}

function num(v: V): number {
  if (typeof v !== 'number') throw new EvalError('not a number');
  return v;
}

function bool(v: V): boolean {
  if (typeof v !== 'boolean') throw new EvalError('not a boolean');
  return v;
}

function evaluate(n: N, result: V): V {
  switch (n.t) {
    case 'lit': return n.v;
    case 'result': return result;
    case 'index': {
      const of = evaluate(n.of, result);
      const i = num(evaluate(n.i, result));
      if (!Array.isArray(of) || i < 0 || i >= of.length) throw new EvalError('index out of range');
      return of[i];
    }
    case 'not': return !bool(evaluate(n.of, result));
    case 'neg': return -num(evaluate(n.of, result));
    case 'call': {
      // default() and isNil() ignore their first argument (it is still evaluated, as Go evaluates arguments).
      const args = n.fn === 'default' || n.fn === 'isNil' ? n.args.slice(1) : n.args;
      const vals = args.map((a) => evaluate(a, result));
      if (n.fn === 'default') return result === null ? (vals[0] ?? null) : result;
      if (n.fn === 'isNil') return result === null;
      const v = vals[0] ?? null;
      if (n.fn === 'len') { if (!Array.isArray(v)) throw new EvalError('len of a non-array'); return v.length; }
      if (n.fn === 'isNaN') return Number.isNaN(num(v));
      if (n.fn === 'isInf') return !Number.isFinite(num(v)) && !Number.isNaN(num(v));
      return n.fn === 'asInt' ? Math.trunc(num(v)) : num(v);
    }
    case 'bin': {
      if (n.op === '&&') return bool(evaluate(n.l, result)) && bool(evaluate(n.r, result));
      if (n.op === '||') return bool(evaluate(n.l, result)) || bool(evaluate(n.r, result));
      const l = evaluate(n.l, result);
      const r = evaluate(n.r, result);
      if (n.op === '==' || n.op === '!=') {
        const eq = Array.isArray(l) || Array.isArray(r) ? false : l === r;
        return n.op === '==' ? eq : !eq;
      }
      const a = num(l);
      const b = num(r);
      switch (n.op) {
        case '<': return a < b;
        case '<=': return a <= b;
        case '>': return a > b;
        case '>=': return a >= b;
        case '+': return a + b;
        case '-': return a - b;
        case '*': return a * b;
        default: return a / b;
      }
    }
  }
}

export type Phase = 'Successful' | 'Failed' | 'Inconclusive' | 'Error';

/** The measurement phase for a result, or undefined when a condition uses syntax not modelled here. */
export function phaseOf(result: V, successCondition?: string, failureCondition?: string): Phase | undefined {
  let s: N | undefined;
  let f: N | undefined;
  try {
    s = successCondition ? parse(successCondition) : undefined;
    f = failureCondition ? parse(failureCondition) : undefined;
  } catch {
    return undefined;
  }
  if (!s && !f) return 'Successful';
  let success = false;
  let failure = false;
  try {
    if (s) success = bool(evaluate(s, result));
    if (f) failure = bool(evaluate(f, result));
  } catch {
    return 'Error';
  }
  if (s && !f) failure = !success;
  if (!s && f) success = !failure;
  if (failure) return 'Failed';
  return success ? 'Successful' : 'Inconclusive';
}

/** The "nothing happened" results a provider can hand the conditions, with how to say them. */
export function noDataResults(provider: string): { result: V; what: string }[] {
  return provider === 'prometheus'
    ? [{ result: [], what: 'an empty result (no series yet)' }, { result: [Number.NaN], what: 'NaN (0/0: no requests in the window)' }]
    : [{ result: null, what: 'no value (nil)' }, { result: [], what: 'an empty result' }, { result: Number.NaN, what: 'NaN' }];
}

/** A condition pair that passes on a no-data result: the first such result, or undefined. */
export function passesOnNoData(provider: string, successCondition?: string, failureCondition?: string): string | undefined {
  if (!successCondition && !failureCondition) return undefined;
  for (const { result, what } of noDataResults(provider)) {
    if (phaseOf(result, successCondition, failureCondition) === 'Successful') return what;
  }
  return undefined;
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

const OR_VECTOR = /\bor\s+(?:on\s*\([^)]*\)\s*|ignoring\s*\([^)]*\)\s*)?vector\s*\(\s*(-?\d+(?:\.\d+)?(?:e-?\d+)?)\s*\)/gi;
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
      else if (q[i] === ')' && --depth === 0) { end = i; break; }
    }
    // A function's argument list (sum(...), rate(...)): the group is the call, which starts at the name.
    let head = start;
    while (head > 0 && /[A-Za-z_0-9]/.test(q[head - 1])) head--;
    const before = q.slice(0, head).replace(/\s*(?:by|without)\s*\([^)]*\)\s*$/i, '').trimEnd();
    const after = q.slice(end + 1).replace(/^\s*(?:by|without)\s*\([^)]*\)/i, '').trimStart();
    if (before.endsWith('/')) return 'denominator';
    if (after.startsWith('/')) return 'numerator';
  }
  return 'ratio';
}
