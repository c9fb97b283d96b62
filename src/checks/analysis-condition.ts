/**
 * Evaluates Argo Rollouts analysis conditions the way the controller does, for the subset of the
 * expr language rollwise writes and checks: `result`, `result[i]`, numbers, `true`/`false`,
 * `len()`, `isNaN()`, `isInf()`, `!`, `&&`, `||` (short-circuit), comparisons and parentheses.
 * Indexing past the end raises an error, as in the controller ("reflect: slice index out of range").
 */

type Value = number | boolean | number[];
type Node =
  | { t: 'num'; v: number } | { t: 'bool'; v: boolean } | { t: 'result' }
  | { t: 'index'; of: Node; i: number } | { t: 'call'; fn: string; arg: Node }
  | { t: 'not'; of: Node } | { t: 'bin'; op: string; l: Node; r: Node };

const TOKEN = /\s*(\d+(?:\.\d+)?(?:e-?\d+)?|&&|\|\||<=|>=|==|!=|[<>!()[\]]|[A-Za-z_][A-Za-z0-9_]*)/y;

function tokenize(src: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < src.length) {
    const start = TOKEN.lastIndex;
    const m = TOKEN.exec(src);
    if (!m) {
      if (/^\s*$/.test(src.slice(start))) break;
      throw new Error(`unsupported syntax at "${src.slice(start)}"`);
    }
    out.push(m[1]);
  }
  return out;
}

export function parseCondition(src: string): Node {
  const toks = tokenize(src);
  let p = 0;
  const peek = () => toks[p];
  const eat = (t?: string) => {
    const tok = toks[p++];
    if (t !== undefined && tok !== t) throw new Error(`expected "${t}" but found "${tok ?? 'end'}" in "${src}"`);
    return tok;
  };
  const or = (): Node => { let l = and(); while (peek() === '||') { eat(); l = { t: 'bin', op: '||', l, r: and() }; } return l; };
  const and = (): Node => { let l = unary(); while (peek() === '&&') { eat(); l = { t: 'bin', op: '&&', l, r: unary() }; } return l; };
  const unary = (): Node => (peek() === '!' ? (eat(), { t: 'not', of: unary() }) : cmp());
  const cmp = (): Node => {
    const l = primary();
    if (['<', '<=', '>', '>=', '==', '!='].includes(peek())) { const op = eat(); return { t: 'bin', op, l, r: primary() }; }
    return l;
  };
  const primary = (): Node => {
    const tok = eat();
    if (tok === undefined) throw new Error(`unexpected end of "${src}"`);
    let node: Node;
    if (/^\d/.test(tok)) node = { t: 'num', v: Number(tok) };
    else if (tok === 'true' || tok === 'false') node = { t: 'bool', v: tok === 'true' };
    else if (tok === 'result') node = { t: 'result' };
    else if (tok === '(') { node = or(); eat(')'); }
    else if (['len', 'isNaN', 'isInf'].includes(tok)) { eat('('); node = { t: 'call', fn: tok, arg: or() }; eat(')'); }
    else throw new Error(`unsupported token "${tok}" in "${src}"`);
    while (peek() === '[') { eat(); const i = Number(eat()); eat(']'); node = { t: 'index', of: node, i }; }
    return node;
  };
  const node = or();
  if (p < toks.length) throw new Error(`unexpected "${toks[p]}" in "${src}"`);
  return node;
}

function evalNode(n: Node, result: number[]): Value {
  switch (n.t) {
    case 'num': case 'bool': return n.v;
    case 'result': return result;
    case 'index': {
      const arr = evalNode(n.of, result);
      if (!Array.isArray(arr)) throw new Error('index of a non-array');
      if (n.i >= arr.length) throw new Error('reflect: slice index out of range');
      return arr[n.i];
    }
    case 'call': {
      const v = evalNode(n.arg, result);
      if (n.fn === 'len') { if (!Array.isArray(v)) throw new Error('len of a non-array'); return v.length; }
      if (typeof v !== 'number') throw new Error(`${n.fn} of a non-number`);
      return n.fn === 'isNaN' ? Number.isNaN(v) : !Number.isFinite(v) && !Number.isNaN(v);
    }
    case 'not': return !truthy(evalNode(n.of, result));
    case 'bin': {
      if (n.op === '&&') return truthy(evalNode(n.l, result)) && truthy(evalNode(n.r, result));
      if (n.op === '||') return truthy(evalNode(n.l, result)) || truthy(evalNode(n.r, result));
      const l = evalNode(n.l, result);
      const r = evalNode(n.r, result);
      if (typeof l !== 'number' || typeof r !== 'number') {
        if (n.op === '==') return l === r;
        if (n.op === '!=') return l !== r;
        throw new Error(`comparison of non-numbers with ${n.op}`);
      }
      switch (n.op) {
        case '<': return l < r;
        case '<=': return l <= r;
        case '>': return l > r;
        case '>=': return l >= r;
        case '==': return l === r;
        default: return l !== r;
      }
    }
  }
}

function truthy(v: Value): boolean {
  if (typeof v !== 'boolean') throw new Error('condition operand is not a boolean');
  return v;
}

export type MeasurementPhase = 'Successful' | 'Failed' | 'Inconclusive' | 'Error';

/** The phase of one measurement, with the controller's rules for which conditions are set. */
export function measurementPhase(result: number[], successCondition?: string, failureCondition?: string): MeasurementPhase {
  let success = false;
  let failure = false;
  try {
    if (successCondition) success = truthy(evalNode(parseCondition(successCondition), result));
    if (failureCondition) failure = truthy(evalNode(parseCondition(failureCondition), result));
  } catch {
    return 'Error';
  }
  if (!successCondition && !failureCondition) return 'Successful';
  if (successCondition && !failureCondition) failure = !success;
  if (!successCondition && failureCondition) success = !failure;
  if (failure) return 'Failed';
  if (!success) return 'Inconclusive';
  return 'Successful';
}
