/**
 * The one evaluator of Argo Rollouts analysis conditions in rollwise: the canary checks
 * (measurementPhase), the no-data lint rules RW402/RW403 (src/rules/no-data.ts) and `rollwise
 * rehearse` (src/rehearse/condition.ts) all use it.
 *
 * successCondition / failureCondition as Argo Rollouts evaluates them (utils/evaluate/evaluate.go
 * v1.9.1): an expr-language expression over `result`, which the Prometheus provider sets to the
 * slice of sample values of a vector (empty, not nil, when there is no series) or to the float of a
 * scalar (metricproviders/prometheus/prometheus.go processResponse); providers such as Datadog give
 * nil for no data (docs/analysis/datadog.md). The functions the evaluator offers are result, asInt,
 * asFloat, isNaN, isInf, isNil, default (plus expr's len, all, any, none). The expr version is
 * github.com/antonmedv/expr v1.15.5 (argo-rollouts v1.9.1 go.mod).
 *
 * This covers the expressions analysis conditions use: literals, `result`, indexing, calls,
 * `!`/`not`, `&&`/`and`, `||`/`or`, comparisons, arithmetic and `{# ...}` predicates, with expr's
 * precedences (parser/operator/operator.go v1.15.5). Anything else is a ConditionSyntaxError.
 */

/** Syntax this evaluator does not model (or that expr's compiler rejects). */
export class ConditionSyntaxError extends Error {}
/** A runtime error: the measurement is an Error (e.g. `result[0]` on an empty result). */
export class ConditionRuntimeError extends Error {}

/** What a provider hands the conditions: a number (NaN included), an array of numbers, a boolean, or nil. */
export type ConditionResult = number | boolean | number[] | null;
type Value = number | boolean | string | number[] | Value[] | null;

/** A parsed condition. */
export type ConditionNode =
  | { k: 'num'; v: number }
  | { k: 'str'; v: string }
  | { k: 'bool'; v: boolean }
  | { k: 'nil' }
  | { k: 'id'; name: string }
  | { k: 'hash' }
  | { k: 'index'; of: ConditionNode; at: ConditionNode }
  | { k: 'call'; fn: string; args: ConditionNode[] }
  | { k: 'pred'; fn: 'all' | 'any' | 'none'; of: ConditionNode; test: ConditionNode }
  | { k: 'not'; of: ConditionNode }
  | { k: 'neg'; of: ConditionNode }
  | { k: 'bin'; op: string; l: ConditionNode; r: ConditionNode };
type Node = ConditionNode;

const TOKEN =
  /\s*(\d+\.\d*(?:[eE][+-]?\d+)?|\d*\.\d+(?:[eE][+-]?\d+)?|\d+(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|&&|\|\||==|!=|<=|>=|[A-Za-z_][A-Za-z0-9_]*|[()[\]{},!<>+\-*/%#])/y;

function tokenize(src: string): string[] {
  const out: string[] = [];
  let pos = 0;
  while (pos < src.length) {
    if (/^\s*$/.test(src.slice(pos))) break;
    TOKEN.lastIndex = pos;
    const m = TOKEN.exec(src);
    if (!m) throw new ConditionSyntaxError(`unexpected character at ${pos}: ${src.slice(pos, pos + 10)}`);
    out.push(m[1]);
    pos = TOKEN.lastIndex;
  }
  return out;
}

/** Binary operators and their precedence, as in expr (parser/operator/operator.go v1.15.5); all left-associative. */
const BINARY = new Map<string, number>([
  ['||', 10],
  ['or', 10],
  ['&&', 15],
  ['and', 15],
  ['==', 20],
  ['!=', 20],
  ['<', 20],
  ['<=', 20],
  ['>', 20],
  ['>=', 20],
  ['+', 30],
  ['-', 30],
  ['*', 60],
  ['/', 60],
  ['%', 60],
]);
/** Unary operators: the operand is parsed at this precedence (parser.go parsePrimary v1.15.5). */
const UNARY = new Map<string, number>([
  ['!', 50],
  ['not', 50],
  ['-', 90],
]);
const PREDICATES = new Set(['all', 'any', 'none']);

export function parseCondition(src: string): ConditionNode {
  const toks = tokenize(src);
  let i = 0;
  /** Inside a predicate's closure, where `#` is the element (expr: "cannot use pointer accessor outside closure"). */
  let depth = 0;
  const peek = () => toks[i];
  const take = (want?: string) => {
    const t = toks[i++];
    if (want !== undefined && t !== want)
      throw new ConditionSyntaxError(`expected ${want}, got ${t ?? 'end'} in ${src}`);
    return t;
  };
  const closure = (): Node => {
    // A predicate's closure: `{# < 1}`, or without braces (parser.go parseClosure v1.15.5).
    const braced = peek() === '{';
    if (braced) take('{');
    depth++;
    const n = expr(0);
    depth--;
    if (braced) take('}');
    return n;
  };
  const primary = (): Node => {
    const t = take();
    if (t === undefined) throw new ConditionSyntaxError(`unexpected end of ${src}`);
    const unary = UNARY.get(t);
    if (unary !== undefined) return postfix(t === '-' ? { k: 'neg', of: expr(unary) } : { k: 'not', of: expr(unary) });
    let n: Node;
    if (/^[\d.]/.test(t)) n = { k: 'num', v: Number(t) };
    else if (t[0] === '"' || t[0] === "'") n = { k: 'str', v: t.slice(1, -1) };
    else if (t === '(') {
      n = expr(0);
      take(')');
    } else if (t === '#') {
      if (depth === 0) throw new ConditionSyntaxError(`# outside a predicate in ${src}`);
      n = { k: 'hash' };
    } else if (t === 'true' || t === 'false') n = { k: 'bool', v: t === 'true' };
    else if (t === 'nil') n = { k: 'nil' };
    else if (/^[A-Za-z_]/.test(t) && !BINARY.has(t)) {
      if (peek() !== '(') n = { k: 'id', name: t };
      else if (PREDICATES.has(t)) {
        take('(');
        const of = expr(0);
        take(',');
        const test = closure();
        take(')');
        n = { k: 'pred', fn: t as 'all' | 'any' | 'none', of, test };
      } else {
        take('(');
        const args: Node[] = [];
        while (peek() !== ')') {
          args.push(expr(0));
          if (peek() === ',') take(',');
          else break;
        }
        take(')');
        n = { k: 'call', fn: t, args };
      }
    } else throw new ConditionSyntaxError(`unexpected ${t} in ${src}`);
    return postfix(n);
  };
  const postfix = (node: Node): Node => {
    let n = node;
    while (peek() === '[') {
      take('[');
      const at = expr(0);
      take(']');
      n = { k: 'index', of: n, at };
    }
    return n;
  };
  const expr = (min: number): Node => {
    let l = primary();
    for (;;) {
      const op = peek();
      const p = op === undefined ? undefined : BINARY.get(op);
      if (p === undefined || p < min) break;
      take();
      l = { k: 'bin', op, l, r: expr(p + 1) };
    }
    return l;
  };
  const n = expr(0);
  if (i !== toks.length) throw new ConditionSyntaxError(`unexpected ${toks[i]} in ${src}`);
  return n;
}

function num(v: Value | undefined, what: string): number {
  if (typeof v !== 'number') throw new ConditionRuntimeError(`${what}: expected a number, got ${JSON.stringify(v)}`);
  return v;
}

/** expr's == (vm/runtime Equal v1.15.5): numbers by value, nil equals nil, anything else reflect.DeepEqual. */
function equal(a: Value, b: Value): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, j) => equal(x, b[j]));
  return a === b;
}

interface Env {
  readonly result: ConditionResult;
  readonly hash?: Value;
}

function evalNode(n: Node, env: Env): Value {
  switch (n.k) {
    case 'num':
      return n.v;
    case 'str':
      return n.v;
    case 'bool':
      return n.v;
    case 'nil':
      return null;
    case 'hash':
      return env.hash ?? null;
    case 'id':
      if (n.name === 'result') return env.result;
      throw new ConditionRuntimeError(`unknown name ${n.name}`);
    case 'index': {
      const of = evalNode(n.of, env);
      const at = num(evalNode(n.at, env), 'index');
      if (!Array.isArray(of)) throw new ConditionRuntimeError(`cannot index ${of === null ? 'nil' : typeof of}`);
      // expr's checker: "array elements can only be selected using an integer" (checker/checker.go v1.15.5).
      if (!Number.isInteger(at))
        throw new ConditionRuntimeError(`array elements can only be selected using an integer (got ${at})`);
      // vm/runtime Fetch v1.15.5: a negative index counts from the end; past the end, reflect panics.
      const idx = at < 0 ? of.length + at : at;
      if (idx < 0 || idx >= of.length) throw new ConditionRuntimeError('reflect: slice index out of range');
      return of[idx];
    }
    case 'not': {
      const v = evalNode(n.of, env);
      if (typeof v !== 'boolean') throw new ConditionRuntimeError(`invalid operation: ! ${typeof v}`);
      return !v;
    }
    case 'neg':
      return -num(evalNode(n.of, env), 'negation');
    case 'call':
      return call(n.fn, n.args, env);
    case 'pred': {
      // all/any/none loop over the array (compiler/compiler.go v1.15.5): all() of nothing is true.
      const arr = evalNode(n.of, env);
      if (!Array.isArray(arr)) throw new ConditionRuntimeError(`${n.fn} needs an array`);
      const test = (x: Value) => {
        const v = evalNode(n.test, { result: env.result, hash: x });
        if (typeof v !== 'boolean') throw new ConditionRuntimeError(`${n.fn} predicate is not boolean`);
        return v;
      };
      const items: Value[] = arr;
      if (n.fn === 'all') return items.every(test);
      if (n.fn === 'any') return items.some(test);
      return !items.some(test);
    }
    case 'bin': {
      if (n.op === '&&' || n.op === 'and' || n.op === '||' || n.op === 'or') {
        const l = evalNode(n.l, env);
        if (typeof l !== 'boolean') throw new ConditionRuntimeError(`invalid operation: ${n.op} on ${typeof l}`);
        const and = n.op === '&&' || n.op === 'and';
        if (and && !l) return false;
        if (!and && l) return true;
        const r = evalNode(n.r, env);
        if (typeof r !== 'boolean') throw new ConditionRuntimeError(`invalid operation: ${n.op} on ${typeof r}`);
        return r;
      }
      const l = evalNode(n.l, env);
      const r = evalNode(n.r, env);
      if (n.op === '==') return equal(l, r);
      if (n.op === '!=') return !equal(l, r);
      const a = num(l, n.op);
      const b = num(r, n.op);
      switch (n.op) {
        case '<':
          return a < b;
        case '<=':
          return a <= b;
        case '>':
          return a > b;
        case '>=':
          return a >= b;
        case '+':
          return a + b;
        case '-':
          return a - b;
        case '*':
          return a * b;
        case '/':
          return a / b;
        case '%':
          return a % b;
      }
      throw new ConditionSyntaxError(`operator ${n.op}`);
    }
  }
}

function call(fn: string, args: Node[], env: Env): Value {
  // Arguments are evaluated before the call, as Go does (so `isNil(result[0])` on [] is an error).
  const vals = () => args.map((a) => evalNode(a, env));
  switch (fn) {
    case 'len': {
      const [v] = vals();
      if (Array.isArray(v) || typeof v === 'string') return v.length;
      throw new ConditionRuntimeError(`invalid argument for len (type ${v === null ? 'nil' : typeof v})`);
    }
    case 'isNaN':
      return Number.isNaN(num(vals()[0], 'isNaN'));
    case 'isInf': {
      const v = num(vals()[0], 'isInf');
      return v === Infinity || v === -Infinity;
    }
    // isNilFunc and defaultFunc (evaluate.go v1.9.1) ignore their first argument and look at the
    // whole result: default(x, d) is d when the result is nil, else the result itself.
    case 'isNil': {
      vals();
      return env.result === null;
    }
    case 'default': {
      const [, d] = vals();
      return env.result === null ? (d ?? null) : env.result;
    }
    case 'asInt':
      return Math.trunc(num(vals()[0], 'asInt'));
    case 'asFloat':
      return num(vals()[0], 'asFloat');
  }
  throw new ConditionSyntaxError(`unknown function ${fn}`);
}

/** Evaluate one condition (a source or a parsed node); a non-boolean outcome is an error, as in EvalCondition. */
/**
 * Parsed conditions by their text: a rehearsal evaluates the same few conditions at every
 * measurement of every canary (synth: thousands of services), and a parse is pure. Bounded; a text
 * that does not parse is not kept (it throws again).
 */
const PARSED = new Map<string, ConditionNode>();

function parsedCondition(src: string): ConditionNode {
  let n = PARSED.get(src);
  if (!n) {
    n = parseCondition(src);
    if (PARSED.size >= 1000) PARSED.clear();
    PARSED.set(src, n);
  }
  return n;
}

export function evalCondition(condition: string | ConditionNode, result: ConditionResult): boolean {
  const v = evalNode(typeof condition === 'string' ? parsedCondition(condition) : condition, { result });
  if (typeof v !== 'boolean') throw new ConditionRuntimeError(`expected bool, but got ${typeof v}`);
  return v;
}

export type Phase = 'Successful' | 'Failed' | 'Inconclusive' | 'Error';
export type MeasurementPhase = Phase;

/**
 * EvaluateResult (utils/evaluate/evaluate.go v1.9.1): both, one or neither condition; only a
 * successCondition: not success = Failed; only a failureCondition: not failure = Successful; both
 * false = Inconclusive. A runtime error is an Error measurement with its message; a
 * ConditionSyntaxError is thrown (each caller decides what unmodelled syntax means to it).
 */
export function assessResult(
  result: ConditionResult,
  success?: string | ConditionNode,
  failure?: string | ConditionNode,
): { phase: Phase; message?: string } {
  try {
    const s = success ? evalCondition(success, result) : false;
    const f = failure ? evalCondition(failure, result) : false;
    if (!success && !failure) return { phase: 'Successful' };
    const failed = success && !failure ? !s : f;
    const succeeded = !success && failure ? !f : s;
    if (failed) return { phase: 'Failed' };
    if (!succeeded) return { phase: 'Inconclusive' };
    return { phase: 'Successful' };
  } catch (e) {
    if (e instanceof ConditionRuntimeError) return { phase: 'Error', message: e.message };
    throw e;
  }
}

/**
 * The phase of one measurement, with the controller's rules for which conditions are set; any error (also unmodelled
 * syntax) is an Error.
 */
export function measurementPhase(
  result: number[],
  successCondition?: string,
  failureCondition?: string,
): MeasurementPhase {
  try {
    return assessResult(result, successCondition, failureCondition).phase;
  } catch {
    return 'Error';
  }
}
