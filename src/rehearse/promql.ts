/**
 * An in-process evaluator for the PromQL that analysis queries use, so synth can rehearse without a
 * Prometheus binary. It follows the Prometheus 2.42 engine (promql/engine.go, promql/functions.go):
 * - an instant selector takes each series' latest sample in the 5 m lookback (t - 5m, t];
 * - a range selector `[r]` takes the samples in [t - r, t] (closed at both ends before 3.0);
 * - rate/increase/delta extrapolate as extrapolatedRate does (at least two samples, counter resets
 *   added back, extrapolation to the window edges only within 1.1 x the average sample spacing,
 *   and never below a counter's zero point);
 * - aggregations, `vector()`, `scalar()`, one-to-one vector matching with on/ignoring, `bool`,
 *   `and`/`or`/`unless`, and the *_over_time, changes and resets functions.
 * A differential test (test/rehearse/promql-differential.test.ts) checks it equals the real engine
 * on every query of the rehearsal data. Anything outside this subset throws PromqlUnsupported.
 */
import type { QueryAnswer } from './loop';
import type { Series } from './world';

export class PromqlUnsupported extends Error {}

type Labels = Record<string, string>;
interface Sample {
  labels: Labels;
  v: number;
}
type Val =
  | { k: 'vector'; s: Sample[] }
  | { k: 'scalar'; v: number }
  | { k: 'matrix'; s: Array<{ labels: Labels; pts: Array<[number, number]> }> };

type Matcher = { name: string; op: '=' | '!=' | '=~' | '!~'; value: string };
/** A parsed query (parsePromql). */
export type PromqlNode = Node;
type Node =
  | { k: 'num'; v: number }
  | { k: 'sel'; name?: string; matchers: Matcher[]; range?: number; offset: number }
  | { k: 'call'; fn: string; args: Node[] }
  | { k: 'agg'; op: string; by?: string[]; without?: string[]; arg: Node; param?: Node }
  | { k: 'neg'; of: Node }
  | { k: 'bin'; op: string; l: Node; r: Node; bool: boolean; on?: string[]; ignoring?: string[] };

const LOOKBACK = 300;
const AGGS = new Set(['sum', 'min', 'max', 'avg', 'count', 'group']);
const PREC: Record<string, number> = {
  or: 1,
  and: 2,
  unless: 2,
  '==': 3,
  '!=': 3,
  '<': 3,
  '>': 3,
  '<=': 3,
  '>=': 3,
  '+': 4,
  '-': 4,
  '*': 5,
  '/': 5,
  '%': 5,
  '^': 6,
};
const TOKEN =
  /\s*(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?:ms|s|m|h|d|w|y)(?:\d+(?:ms|s|m|h|d|w|y))*|\d*\.?\d+(?:[eE][+-]?\d+)?|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|==|!=|=~|!~|<=|>=|[A-Za-z_:][A-Za-z0-9_:]*|[(){}[\],=<>+\-*/%^])/y;

function duration(s: string): number {
  let total = 0;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w|y)/g;
  const unit: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86400, w: 604800, y: 31536000 };
  for (let m = re.exec(s); m; m = re.exec(s)) total += Number(m[1]) * unit[m[2]];
  return total;
}

function unquote(t: string): string {
  return t.slice(1, -1).replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c));
}

export function parsePromql(src: string): Node {
  const toks: string[] = [];
  let pos = 0;
  while (pos < src.length) {
    if (/^\s*$/.test(src.slice(pos))) break;
    TOKEN.lastIndex = pos;
    const m = TOKEN.exec(src);
    if (!m) throw new PromqlUnsupported(`cannot read ${src.slice(pos, pos + 20)}`);
    toks.push(m[1]);
    pos = TOKEN.lastIndex;
  }
  let i = 0;
  const peek = (o = 0) => toks[i + o];
  const take = (want?: string) => {
    const t = toks[i++];
    if (want !== undefined && t !== want) throw new PromqlUnsupported(`expected ${want}, got ${t ?? 'end'} in ${src}`);
    return t;
  };
  const labelList = (): string[] => {
    take('(');
    const out: string[] = [];
    while (peek() !== ')') {
      out.push(take());
      if (peek() === ',') take(',');
    }
    take(')');
    return out;
  };
  const selector = (name?: string): Node => {
    const matchers: Matcher[] = [];
    if (peek() === '{') {
      take('{');
      while (peek() !== '}') {
        const ln = take();
        const op = take() as Matcher['op'];
        if (!['=', '!=', '=~', '!~'].includes(op)) throw new PromqlUnsupported(`matcher ${op}`);
        matchers.push({ name: ln, op, value: unquote(take()) });
        if (peek() === ',') take(',');
      }
      take('}');
    }
    let range: number | undefined;
    if (peek() === '[') {
      take('[');
      range = duration(take());
      if (peek() === ':') throw new PromqlUnsupported('subqueries');
      take(']');
    }
    let offset = 0;
    if (peek() === 'offset') {
      take();
      offset = duration(take());
    }
    return { k: 'sel', name, matchers, range, offset };
  };
  const primary = (): Node => {
    const t = take();
    if (t === undefined) throw new PromqlUnsupported(`unexpected end of ${src}`);
    if (t === '(') {
      const e = expr(0);
      take(')');
      return e;
    }
    if (t === '-') return { k: 'neg', of: primary() };
    if (t === '+') return primary();
    if (/^\d|^\./.test(t)) return { k: 'num', v: Number(t) };
    if (t === '{') {
      i--;
      return selector();
    }
    if (AGGS.has(t)) {
      let by: string[] | undefined;
      let without: string[] | undefined;
      if (peek() === 'by') {
        take();
        by = labelList();
      } else if (peek() === 'without') {
        take();
        without = labelList();
      }
      take('(');
      const arg = expr(0);
      take(')');
      if (peek() === 'by') {
        take();
        by = labelList();
      } else if (peek() === 'without') {
        take();
        without = labelList();
      }
      return { k: 'agg', op: t, by, without, arg };
    }
    if (peek() === '(') {
      take('(');
      const args: Node[] = [];
      while (peek() !== ')') {
        args.push(expr(0));
        if (peek() === ',') take(',');
        else break;
      }
      take(')');
      return { k: 'call', fn: t, args };
    }
    if (/^[A-Za-z_:]/.test(t)) return selector(t);
    throw new PromqlUnsupported(`unexpected ${t} in ${src}`);
  };
  const expr = (min: number): Node => {
    let l = primary();
    for (;;) {
      const op = peek();
      const p = op === undefined ? undefined : PREC[op];
      if (p === undefined || p < min) break;
      take();
      let bool = false;
      let on: string[] | undefined;
      let ignoring: string[] | undefined;
      if (peek() === 'bool') {
        take();
        bool = true;
      }
      if (peek() === 'on') {
        take();
        on = labelList();
      } else if (peek() === 'ignoring') {
        take();
        ignoring = labelList();
      }
      if (peek() === 'group_left' || peek() === 'group_right') throw new PromqlUnsupported('group_left / group_right');
      const r = expr(op === '^' ? p : p + 1);
      l = { k: 'bin', op, l, r, bool, on, ignoring };
    }
    return l;
  };
  const n = expr(0);
  if (i !== toks.length) throw new PromqlUnsupported(`unexpected ${toks[i]} in ${src}`);
  return n;
}

const REGEX = new Map<string, RegExp>();
const BY_NAME = new WeakMap<Series[], Map<string, Series[]>>();
function named(series: Series[], name: string | undefined): Series[] {
  if (name === undefined) return series;
  let idx = BY_NAME.get(series);
  if (!idx) {
    idx = new Map();
    for (const s of series) {
      const list = idx.get(s.name);
      if (list) list.push(s);
      else idx.set(s.name, [s]);
    }
    BY_NAME.set(series, idx);
  }
  return idx.get(name) ?? [];
}

/**
 * The series a selector picks (by name and matchers), per series set and parsed selector: the
 * analysis loop asks the same few queries of one world at every measurement. A matcher whose
 * regex does not compile throws each time (nothing is kept).
 */
const SELECTED = new WeakMap<Series[], Map<Node, Series[]>>();
function selected(series: Series[], n: Extract<Node, { k: 'sel' }>): Series[] {
  let bySel = SELECTED.get(series);
  if (!bySel) SELECTED.set(series, (bySel = new Map<Node, Series[]>()));
  let picked = bySel.get(n);
  if (!picked) {
    picked = named(series, n.name).filter((s) => matches(s.labels, s.name, n.matchers, n.name));
    bySel.set(n, picked);
  }
  return picked;
}

/** A series' labels with __name__, made once per series (never mutated: every change copies). */
const WITH_NAME = new WeakMap<Series, Labels>();
function withName(s: Series): Labels {
  let l = WITH_NAME.get(s);
  if (!l) WITH_NAME.set(s, (l = { __name__: s.name, ...s.labels }));
  return l;
}

/** Whether a samples array is in time order (checked once per array and length). */
const ORDERED = new WeakMap<Array<[number, number]>, number>();
function inTimeOrder(xs: Array<[number, number]>): boolean {
  const known = ORDERED.get(xs);
  if (known !== undefined) return known === xs.length;
  let ok = true;
  for (let i = 1; i < xs.length && ok; i++) ok = xs[i - 1][0] <= xs[i][0];
  ORDERED.set(xs, ok ? xs.length : -1);
  return ok;
}

/** The number of samples with a timestamp <= t (samples in time order). */
function countAtOrBefore(xs: Array<[number, number]>, t: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid][0] <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The samples with from <= timestamp <= to, in their order (the range selector's window, closed at both ends). */
function samplesIn(xs: Array<[number, number]>, from: number, to: number): Array<[number, number]> {
  if (!inTimeOrder(xs)) return xs.filter(([ts]) => ts >= from && ts <= to);
  let lo = 0;
  let hi = countAtOrBefore(xs, to);
  const end = hi;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (xs[mid][0] < from) lo = mid + 1;
    else hi = mid;
  }
  return xs.slice(lo, end);
}

/** The last sample (in the array's order) with a timestamp <= t, if it is after t - 5m; undefined otherwise. */
function lastAtOrBefore(xs: Array<[number, number]>, t: number): [number, number] | undefined {
  if (!inTimeOrder(xs)) {
    let last: [number, number] | undefined;
    for (const p of xs) if (p[0] > t - LOOKBACK && p[0] <= t) last = p;
    return last;
  }
  const i = countAtOrBefore(xs, t);
  return i > 0 ? xs[i - 1] : undefined;
}

function matches(labels: Labels, name: string, ms: Matcher[], selName?: string): boolean {
  if (selName !== undefined && name !== selName) return false;
  for (const m of ms) {
    const v = m.name === '__name__' ? name : (labels[m.name] ?? '');
    if (m.op === '=' && v !== m.value) return false;
    if (m.op === '!=' && v === m.value) return false;
    if (m.op === '=~' || m.op === '!~') {
      let re = REGEX.get(m.value);
      if (!re) {
        re = new RegExp(`^(?:${m.value})$`);
        REGEX.set(m.value, re);
      }
      const ok = re.test(v);
      if (ok !== (m.op === '=~')) return false;
    }
  }
  return true;
}

/**
 * An `on(...)` list as sig reads it: without __name__, each label once, sorted (the order Object.keys(l).sort() gives
 * the same keys).
 */
const ON_KEYS = new WeakMap<string[], string[]>();
const hasOwn = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);

/**
 * The matching signature of a sample's labels: its labels (those of `on`, or all but `ignoring`) without __name__,
 * sorted, as JSON.
 */
const sig = (l: Labels, on?: string[], ignoring?: string[]): string => {
  if (on) {
    let keys = ON_KEYS.get(on);
    if (!keys) ON_KEYS.set(on, (keys = [...new Set(on)].filter((k) => k !== '__name__').sort()));
    const pairs: string[][] = [];
    for (const k of keys) if (hasOwn(l, k)) pairs.push([k, l[k]]);
    return JSON.stringify(pairs);
  }
  const keys = Object.keys(l)
    .filter((k) => k !== '__name__' && !(ignoring ?? []).includes(k))
    .sort();
  return JSON.stringify(keys.map((k) => [k, l[k]]));
};
const dropName = (l: Labels): Labels => {
  const { __name__: _n, ...rest } = l;
  return rest;
};

/** extrapolatedRate (promql/functions.go, Prometheus 2.42). */
function extrapolatedRate(
  pts: Array<[number, number]>,
  t: number,
  range: number,
  offset: number,
  isCounter: boolean,
  isRate: boolean,
): number | undefined {
  if (pts.length < 2) return undefined;
  const rangeStart = t - range - offset;
  const rangeEnd = t - offset;
  let result = pts[pts.length - 1][1] - pts[0][1];
  if (isCounter) {
    let last = 0;
    for (const [, v] of pts) {
      if (v < last) result += last;
      last = v;
    }
  }
  let durationToStart = pts[0][0] - rangeStart;
  const durationToEnd = rangeEnd - pts[pts.length - 1][0];
  const sampled = pts[pts.length - 1][0] - pts[0][0];
  const avg = sampled / (pts.length - 1);
  if (isCounter && result > 0 && pts[0][1] >= 0) {
    const toZero = sampled * (pts[0][1] / result);
    if (toZero < durationToStart) durationToStart = toZero;
  }
  const threshold = avg * 1.1;
  let interval = sampled;
  interval += durationToStart < threshold ? durationToStart : avg / 2;
  interval += durationToEnd < threshold ? durationToEnd : avg / 2;
  result = result * (interval / sampled);
  if (isRate) result = result / range;
  return result;
}

function evalNode(n: Node, series: Series[], t: number): Val {
  switch (n.k) {
    case 'num':
      return { k: 'scalar', v: n.v };
    case 'neg': {
      const v = evalNode(n.of, series, t);
      if (v.k === 'scalar') return { k: 'scalar', v: -v.v };
      if (v.k === 'vector') return { k: 'vector', s: v.s.map((x) => ({ labels: dropName(x.labels), v: -x.v })) };
      throw new PromqlUnsupported('negated range');
    }
    case 'sel': {
      const at = t - n.offset;
      const picked = selected(series, n);
      if (n.range !== undefined) {
        const from = at - n.range;
        const out: Array<{ labels: Labels; pts: Array<[number, number]> }> = [];
        for (const s of picked) {
          const pts = samplesIn(s.samples, from, at);
          if (pts.length > 0) out.push({ labels: withName(s), pts });
        }
        return { k: 'matrix', s: out };
      }
      const out: Sample[] = [];
      for (const s of picked) {
        const last = lastAtOrBefore(s.samples, at);
        if (last && last[0] > at - LOOKBACK) out.push({ labels: withName(s), v: last[1] });
      }
      return { k: 'vector', s: out };
    }
    case 'call':
      return call(n, series, t);
    case 'agg': {
      const v = evalNode(n.arg, series, t);
      if (v.k !== 'vector') throw new PromqlUnsupported(`${n.op} over a ${v.k}`);
      const groups = new Map<string, { labels: Labels; vals: number[] }>();
      for (const x of v.s) {
        const l = dropName(x.labels);
        const keep: Labels = {};
        for (const k of Object.keys(l))
          if (n.by ? n.by.includes(k) : n.without ? !n.without.includes(k) : false) keep[k] = l[k];
        const key = sig(keep);
        const g = groups.get(key) ?? { labels: keep, vals: [] };
        g.vals.push(x.v);
        groups.set(key, g);
      }
      const out: Sample[] = [];
      for (const g of groups.values()) {
        let r: number;
        switch (n.op) {
          case 'sum':
            r = g.vals.reduce((a, b) => a + b, 0);
            break;
          case 'min':
            r = g.vals.reduce((a, b) => (Number.isNaN(a) || b < a ? b : a));
            break;
          case 'max':
            r = g.vals.reduce((a, b) => (Number.isNaN(a) || b > a ? b : a));
            break;
          case 'avg':
            r = g.vals.reduce((a, b) => a + b, 0) / g.vals.length;
            break;
          case 'count':
            r = g.vals.length;
            break;
          default:
            r = 1;
        }
        out.push({ labels: g.labels, v: r });
      }
      return { k: 'vector', s: out };
    }
    case 'bin':
      return binary(n, evalNode(n.l, series, t), evalNode(n.r, series, t));
  }
}

function call(n: Extract<Node, { k: 'call' }>, series: Series[], t: number): Val {
  const arg = (i: number) => evalNode(n.args[i], series, t);
  const overTime = (f: (pts: Array<[number, number]>) => number | undefined): Val => {
    const m = arg(0);
    if (m.k !== 'matrix') throw new PromqlUnsupported(`${n.fn} needs a range`);
    const out: Sample[] = [];
    for (const s of m.s) {
      const r = f(s.pts);
      if (r !== undefined) out.push({ labels: dropName(s.labels), v: r });
    }
    return { k: 'vector', s: out };
  };
  const sel = n.args[0];
  const rng = sel && sel.k === 'sel' ? { range: sel.range ?? 0, offset: sel.offset } : { range: 0, offset: 0 };
  switch (n.fn) {
    case 'rate':
      return overTime((p) => extrapolatedRate(p, t, rng.range, rng.offset, true, true));
    case 'increase':
      return overTime((p) => extrapolatedRate(p, t, rng.range, rng.offset, true, false));
    case 'delta':
      return overTime((p) => extrapolatedRate(p, t, rng.range, rng.offset, false, false));
    case 'max_over_time':
      return overTime((p) => p.reduce((a, [, v]) => (Number.isNaN(a) || v > a ? v : a), p[0][1]));
    case 'min_over_time':
      return overTime((p) => p.reduce((a, [, v]) => (Number.isNaN(a) || v < a ? v : a), p[0][1]));
    case 'sum_over_time':
      return overTime((p) => p.reduce((a, [, v]) => a + v, 0));
    case 'avg_over_time':
      return overTime((p) => p.reduce((a, [, v]) => a + v, 0) / p.length);
    case 'count_over_time':
      return overTime((p) => p.length);
    case 'last_over_time':
      return overTime((p) => p[p.length - 1][1]);
    case 'changes':
      return overTime((p) =>
        p
          .slice(1)
          .reduce((a, [, v], i) => a + (v !== p[i][1] && !(Number.isNaN(v) && Number.isNaN(p[i][1])) ? 1 : 0), 0),
      );
    case 'resets':
      return overTime((p) => p.slice(1).reduce((a, [, v], i) => a + (v < p[i][1] ? 1 : 0), 0));
    case 'vector': {
      const s = arg(0);
      if (s.k !== 'scalar') throw new PromqlUnsupported('vector() of a non-scalar');
      return { k: 'vector', s: [{ labels: {}, v: s.v }] };
    }
    case 'scalar': {
      const v = arg(0);
      if (v.k !== 'vector') throw new PromqlUnsupported('scalar() of a non-vector');
      return { k: 'scalar', v: v.s.length === 1 ? v.s[0].v : NaN };
    }
    case 'clamp_min':
    case 'clamp_max': {
      const v = arg(0);
      const b = arg(1);
      if (v.k !== 'vector' || b.k !== 'scalar') throw new PromqlUnsupported(`${n.fn} arguments`);
      return {
        k: 'vector',
        s: v.s.map((x) => ({
          labels: dropName(x.labels),
          v: n.fn === 'clamp_min' ? Math.max(x.v, b.v) : Math.min(x.v, b.v),
        })),
      };
    }
    case 'abs': {
      const v = arg(0);
      if (v.k !== 'vector') throw new PromqlUnsupported('abs arguments');
      return { k: 'vector', s: v.s.map((x) => ({ labels: dropName(x.labels), v: Math.abs(x.v) })) };
    }
    case 'absent': {
      const v = arg(0);
      if (v.k !== 'vector') throw new PromqlUnsupported('absent arguments');
      if (v.s.length > 0) return { k: 'vector', s: [] };
      const labels: Labels = {};
      if (sel && sel.k === 'sel') for (const m of sel.matchers) if (m.op === '=') labels[m.name] = m.value;
      return { k: 'vector', s: [{ labels, v: 1 }] };
    }
  }
  throw new PromqlUnsupported(`function ${n.fn}`);
}

function arith(op: string, a: number, b: number): number {
  switch (op) {
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
    case '^':
      return a ** b;
  }
  throw new PromqlUnsupported(op);
}
function compare(op: string, a: number, b: number): boolean {
  switch (op) {
    case '==':
      return a === b;
    case '!=':
      return a !== b;
    case '<':
      return a < b;
    case '>':
      return a > b;
    case '<=':
      return a <= b;
    case '>=':
      return a >= b;
  }
  throw new PromqlUnsupported(op);
}
const isCmp = (op: string) => ['==', '!=', '<', '>', '<=', '>='].includes(op);

function binary(n: Extract<Node, { k: 'bin' }>, l: Val, r: Val): Val {
  const { op } = n;
  if (op === 'and' || op === 'or' || op === 'unless') {
    if (l.k !== 'vector' || r.k !== 'vector') throw new PromqlUnsupported(`${op} needs vectors`);
    const rs = new Set(r.s.map((x) => sig(x.labels, n.on, n.ignoring)));
    if (op === 'and') return { k: 'vector', s: l.s.filter((x) => rs.has(sig(x.labels, n.on, n.ignoring))) };
    if (op === 'unless') return { k: 'vector', s: l.s.filter((x) => !rs.has(sig(x.labels, n.on, n.ignoring))) };
    const ls = new Set(l.s.map((x) => sig(x.labels, n.on, n.ignoring)));
    return { k: 'vector', s: [...l.s, ...r.s.filter((x) => !ls.has(sig(x.labels, n.on, n.ignoring)))] };
  }
  const apply = (a: number, b: number): number | undefined => {
    if (!isCmp(op)) return arith(op, a, b);
    const ok = compare(op, a, b);
    if (n.bool) return ok ? 1 : 0;
    return ok ? a : undefined;
  };
  if (l.k === 'scalar' && r.k === 'scalar') {
    if (isCmp(op) && !n.bool) throw new PromqlUnsupported('comparisons between scalars must use bool');
    return { k: 'scalar', v: apply(l.v, r.v) as number };
  }
  if (l.k === 'vector' && r.k === 'scalar') {
    const out: Sample[] = [];
    for (const x of l.s) {
      const v = apply(x.v, r.v);
      if (v !== undefined)
        out.push({ labels: isCmp(op) && !n.bool ? x.labels : dropName(x.labels), v: isCmp(op) && !n.bool ? x.v : v });
    }
    return { k: 'vector', s: out };
  }
  if (l.k === 'scalar' && r.k === 'vector') {
    const out: Sample[] = [];
    for (const x of r.s) {
      const v = apply(l.v, x.v);
      if (v !== undefined)
        out.push({ labels: isCmp(op) && !n.bool ? x.labels : dropName(x.labels), v: isCmp(op) && !n.bool ? x.v : v });
    }
    return { k: 'vector', s: out };
  }
  if (l.k === 'vector' && r.k === 'vector') {
    const right = new Map<string, Sample>();
    for (const x of r.s) {
      const key = sig(x.labels, n.on, n.ignoring);
      if (right.has(key)) throw new PromqlUnsupported('many-to-many matching');
      right.set(key, x);
    }
    const out: Sample[] = [];
    for (const x of l.s) {
      const m = right.get(sig(x.labels, n.on, n.ignoring));
      if (!m) continue;
      const v = apply(x.v, m.v);
      if (v === undefined) continue;
      let labels = dropName(x.labels);
      if (n.on) {
        labels = {};
        for (const k of n.on) if (x.labels[k] !== undefined) labels[k] = x.labels[k];
      } else if (n.ignoring) for (const k of n.ignoring) delete labels[k];
      out.push({ labels: isCmp(op) && !n.bool ? x.labels : labels, v });
    }
    return { k: 'vector', s: out };
  }
  throw new PromqlUnsupported(`${op} on a range vector`);
}

/**
 * Parsed queries by their text (a parse is pure; bounded; a query that does not parse throws again). Do not change the
 * nodes.
 */
const PARSED = new Map<string, Node>();
export function parsed(query: string): Node {
  let n = PARSED.get(query);
  if (!n) {
    n = parsePromql(query);
    if (PARSED.size >= 1000) PARSED.clear();
    PARSED.set(query, n);
  }
  return n;
}

/** Evaluate an instant query at `t` (seconds, the series' own clock), as the provider's `result`. */
export function evaluateInstant(query: string, series: Series[], t: number): QueryAnswer {
  let v: Val;
  try {
    v = evalNode(parsed(query), series, t);
  } catch (e) {
    if (e instanceof PromqlUnsupported) throw e;
    return { ok: false, error: (e as Error).message };
  }
  if (v.k === 'scalar') return { ok: true, result: v.v };
  if (v.k === 'vector') return { ok: true, result: v.s.map((x) => x.v) };
  return { ok: true, result: v.s.flatMap((x) => x.pts.map((p) => p[1])) };
}

/** Does the evaluator read this query? (parse only) */
export function supportsQuery(query: string): boolean {
  try {
    parsePromql(query);
    return true;
  } catch {
    return false;
  }
}
