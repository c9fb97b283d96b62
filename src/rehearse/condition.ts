/**
 * successCondition / failureCondition as Argo Rollouts evaluates them (utils/evaluate/evaluate.go
 * v1.9.1): an expr-language expression over `result`, which the Prometheus provider sets to the
 * slice of sample values of a vector (empty when there is no series) or to the float of a scalar
 * (metricproviders/prometheus/prometheus.go processResponse). The functions the evaluator offers
 * are result, asInt, asFloat, isNaN, isInf, isNil, default (plus expr's len, all, any, none).
 *
 * This covers the expressions analysis conditions use: literals, `result`, indexing, calls,
 * `!`/`not`, `&&`/`and`, `||`/`or`, comparisons, arithmetic and `{# ...}` predicates. Anything else
 * is a ConditionSyntaxError, which the rehearsal reports as unusable input.
 */

export class ConditionSyntaxError extends Error {}
/** A runtime error: the measurement is an Error (e.g. `result[0]` on an empty result). */
export class ConditionRuntimeError extends Error {}

export type Result = number | number[];
type Value = number | boolean | string | number[] | Value[] | null | Closure;
interface Closure { readonly closure: Node }

type Node =
  | { k: 'num'; v: number }
  | { k: 'str'; v: string }
  | { k: 'bool'; v: boolean }
  | { k: 'nil' }
  | { k: 'id'; name: string }
  | { k: 'hash' }
  | { k: 'index'; of: Node; at: Node }
  | { k: 'call'; fn: string; args: Node[] }
  | { k: 'not'; of: Node }
  | { k: 'neg'; of: Node }
  | { k: 'bin'; op: string; l: Node; r: Node }
  | { k: 'closure'; body: Node };

const TOKEN = /\s*(\d+\.\d*(?:[eE][+-]?\d+)?|\d*\.\d+(?:[eE][+-]?\d+)?|\d+(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|&&|\|\||==|!=|<=|>=|[A-Za-z_][A-Za-z0-9_]*|[()[\]{},!<>+\-*/%#])/y;

function tokenize(src: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
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

const PREC: Record<string, number> = { '||': 1, or: 1, '&&': 2, and: 2, '==': 3, '!=': 3, '<': 4, '<=': 4, '>': 4, '>=': 4, '+': 5, '-': 5, '*': 6, '/': 6, '%': 6 };

export function parseCondition(src: string): Node {
  const toks = tokenize(src);
  let i = 0;
  const peek = () => toks[i];
  const take = (want?: string) => {
    const t = toks[i++];
    if (want !== undefined && t !== want) throw new ConditionSyntaxError(`expected ${want}, got ${t ?? 'end'} in ${src}`);
    return t;
  };
  const primary = (): Node => {
    const t = take();
    if (t === undefined) throw new ConditionSyntaxError(`unexpected end of ${src}`);
    let n: Node;
    if (/^[\d.]/.test(t)) n = { k: 'num', v: Number(t) };
    else if (t[0] === '"' || t[0] === "'") n = { k: 'str', v: t.slice(1, -1) };
    else if (t === '(') {
      n = expr(0);
      take(')');
    } else if (t === '!' || t === 'not') n = { k: 'not', of: unary() };
    else if (t === '-') n = { k: 'neg', of: unary() };
    else if (t === '{') {
      n = { k: 'closure', body: expr(0) };
      take('}');
    } else if (t === '#') n = { k: 'hash' };
    else if (t === 'true' || t === 'false') n = { k: 'bool', v: t === 'true' };
    else if (t === 'nil') n = { k: 'nil' };
    else if (/^[A-Za-z_]/.test(t)) {
      if (peek() === '(') {
        take('(');
        const args: Node[] = [];
        while (peek() !== ')') {
          args.push(expr(0));
          if (peek() === ',') take(',');
          else break;
        }
        take(')');
        n = { k: 'call', fn: t, args };
      } else n = { k: 'id', name: t };
    } else throw new ConditionSyntaxError(`unexpected ${t} in ${src}`);
    while (peek() === '[') {
      take('[');
      const at = expr(0);
      take(']');
      n = { k: 'index', of: n, at };
    }
    return n;
  };
  const unary = (): Node => primary();
  const expr = (min: number): Node => {
    let l = unary();
    for (;;) {
      const op = peek();
      const p = op === undefined ? undefined : PREC[op];
      if (p === undefined || p < min) break;
      take();
      const r = expr(p + 1);
      l = { k: 'bin', op, l, r };
    }
    return l;
  };
  const n = expr(0);
  if (i !== toks.length) throw new ConditionSyntaxError(`unexpected ${toks[i]} in ${src}`);
  return n;
}

function num(v: Value, what: string): number {
  if (typeof v !== 'number') throw new ConditionRuntimeError(`${what}: expected a number, got ${JSON.stringify(v)}`);
  return v;
}

function evalNode(n: Node, env: { result: Value; hash?: Value }): Value {
  switch (n.k) {
    case 'num': return n.v;
    case 'str': return n.v;
    case 'bool': return n.v;
    case 'nil': return null;
    case 'hash': return env.hash ?? null;
    case 'closure': return { closure: n.body };
    case 'id':
      if (n.name === 'result') return env.result;
      throw new ConditionRuntimeError(`unknown name ${n.name}`);
    case 'index': {
      const of = evalNode(n.of, env);
      const at = num(evalNode(n.at, env), 'index');
      if (!Array.isArray(of)) throw new ConditionRuntimeError(`cannot index ${typeof of}`);
      const idx = at < 0 ? of.length + at : at;
      // expr on a Go slice: reflect's "slice index out of range" (reference: AnalysisTemplate).
      if (idx < 0 || idx >= of.length) throw new ConditionRuntimeError('reflect: slice index out of range');
      return of[idx];
    }
    case 'not': {
      const v = evalNode(n.of, env);
      if (typeof v !== 'boolean') throw new ConditionRuntimeError(`invalid operation: ! ${typeof v}`);
      return !v;
    }
    case 'neg': return -num(evalNode(n.of, env), 'negation');
    case 'call': return call(n.fn, n.args, env);
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
      if (n.op === '==') return l === r;
      if (n.op === '!=') return l !== r;
      const a = num(l, n.op);
      const b = num(r, n.op);
      switch (n.op) {
        case '<': return a < b;
        case '<=': return a <= b;
        case '>': return a > b;
        case '>=': return a >= b;
        case '+': return a + b;
        case '-': return a - b;
        case '*': return a * b;
        case '/': return a / b;
        case '%': return a % b;
      }
      throw new ConditionSyntaxError(`operator ${n.op}`);
    }
  }
}

function call(fn: string, args: Node[], env: { result: Value; hash?: Value }): Value {
  const vals = () => args.map((a) => evalNode(a, env));
  switch (fn) {
    case 'len': {
      const [v] = vals();
      if (Array.isArray(v) || typeof v === 'string') return v.length;
      throw new ConditionRuntimeError(`invalid argument for len (type ${typeof v})`);
    }
    case 'isNaN': return Number.isNaN(num(vals()[0], 'isNaN'));
    case 'isInf': {
      const v = num(vals()[0], 'isInf');
      return v === Infinity || v === -Infinity;
    }
    case 'isNil': return env.result === null || env.result === undefined;
    case 'default': {
      const [v, d] = vals();
      return v === null || v === undefined ? d : v;
    }
    case 'asInt': return Math.trunc(num(vals()[0], 'asInt'));
    case 'asFloat': return num(vals()[0], 'asFloat');
    case 'all':
    case 'any':
    case 'none': {
      const arr = evalNode(args[0], env);
      const pred = evalNode(args[1], env);
      if (!Array.isArray(arr) || pred === null || typeof pred !== 'object' || !('closure' in pred)) {
        throw new ConditionRuntimeError(`${fn} needs an array and a predicate`);
      }
      const test = (x: Value) => {
        const v = evalNode(pred.closure, { result: env.result, hash: x });
        if (typeof v !== 'boolean') throw new ConditionRuntimeError(`${fn} predicate is not boolean`);
        return v;
      };
      const items = arr as Value[];
      if (fn === 'all') return items.every(test);
      if (fn === 'any') return items.some(test);
      return !items.some(test);
    }
  }
  throw new ConditionSyntaxError(`unknown function ${fn}`);
}

/** Evaluate one condition; a non-boolean outcome is an error, as in EvalCondition. */
export function evalCondition(condition: string, result: Result): boolean {
  const v = evalNode(parseCondition(condition), { result });
  if (typeof v !== 'boolean') throw new ConditionRuntimeError(`expected bool, but got ${typeof v}`);
  return v;
}

export type Phase = 'Successful' | 'Failed' | 'Inconclusive' | 'Error';

/** EvaluateResult (utils/evaluate/evaluate.go v1.9.1): both, one or neither condition. */
export function assessResult(result: Result, success?: string, failure?: string): { phase: Phase; message?: string } {
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
