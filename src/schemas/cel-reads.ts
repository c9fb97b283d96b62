import { escapeProperty } from './cel';

/**
 * What of `self` a CEL rule can read, so that a validation pass memoizes its result by that part
 * only (structural.ts: a rule's result is kept by its value's key, and a service's values hold its
 * names, so a key of the whole value made every service evaluate every rule again; measured at
 * 1,000 services, docs/performance.md, seventh round).
 *
 * The rule's parsed expression (@bufbuild/cel's `parse`, the cel.expr AST) is walked once:
 * - a chain of field selections from `self` (`self.a.b`) used as a value reads that value whole;
 * - `has(self.a.b)` (a select marked testOnly) reads only whether `b` is present in `self.a`;
 * - a comprehension (all, exists, exists_one, map, filter) over such a chain reads the chain's
 *   list and, of each element, what its body reads of the iteration variable;
 * - anything else that holds `self` or a variable bound to a part of it (the bare identifier, an
 *   index, a function's argument or receiver) reads that part whole.
 * A comprehension over anything but a chain that mentions `self`, or with two iteration variables,
 * makes the rule read `self` whole. So two values with the same projection (`project`) give the
 * rule the same input wherever it can look: the same fields present, the same values where a
 * value is read, the same list lengths. CEL has no reflection over the fields a rule does not
 * name. test/schemas/cel-reads.test.ts evaluates every rule of the pinned CRDs on generated values
 * and on their projections and compares the results.
 */
export interface Reads {
  /** The whole value is read. */
  whole: boolean;
  /** Fields read, by their name in CEL (escaped, cel.ts escapeProperty). */
  readonly fields: Map<string, Reads>;
  /** What is read of each element, when the value is a comprehension's range. */
  each?: Reads;
}

const reads = (): Reads => ({ whole: false, fields: new Map() });

/** A field that is only tested by has(): nothing of its value is read, only whether it is there. */
const presenceOnly = (r: Reads): boolean => !r.whole && !r.each && r.fields.size === 0;

/** What is read of `name` in `base` (recorded on first use). */
function field(base: Reads, name: string): Reads {
  let f = base.fields.get(name);
  if (!f) base.fields.set(name, (f = reads()));
  return f;
}

/** The cel.expr.Expr shapes the walk looks at (the rest is walked generically). */
interface Expr {
  readonly exprKind: { readonly case?: string; readonly value?: unknown };
}
interface Select {
  readonly operand?: Expr;
  readonly field: string;
  readonly testOnly: boolean;
}
interface Comprehension {
  readonly iterVar: string;
  readonly iterVar2?: string;
  readonly iterRange?: Expr;
  readonly accuVar: string;
  readonly accuInit?: Expr;
  readonly loopCondition?: Expr;
  readonly loopStep?: Expr;
  readonly result?: Expr;
}

class ReadsWhole extends Error {}

/** What `expr` (a parsed rule) reads of `self`: all of it when there is no expression. */
export function readsOf(expr: Expr | undefined): Reads {
  const root = reads();
  try {
    if (!expr) throw new ReadsWhole();
    walk(expr, new Map([['self', root]]));
  } catch (e) {
    if (!(e instanceof ReadsWhole)) throw e;
    return { whole: true, fields: new Map() };
  }
  return root;
}

/** The part of the bound data `e` is, when it is a chain of field selections from a bound variable. */
function chain(e: Expr, env: ReadonlyMap<string, Reads>): Reads | undefined {
  const k = e.exprKind;
  if (k.case === 'identExpr') return env.get((k.value as { name: string }).name);
  if (k.case !== 'selectExpr') return undefined;
  const s = k.value as Select;
  if (s.testOnly || !s.operand) return undefined;
  const base = chain(s.operand, env);
  return base && field(base, s.field);
}

/** Whether `e` names a bound variable anywhere. */
function mentions(e: unknown, env: ReadonlyMap<string, Reads>): boolean {
  if (Array.isArray(e)) return e.some((x) => mentions(x, env));
  if (!e || typeof e !== 'object') return false;
  const k = (e as Expr).exprKind;
  if (k?.case === 'identExpr' && env.has((k.value as { name: string }).name)) return true;
  return Object.values(e as object).some((x) => mentions(x, env));
}

function walk(e: Expr | undefined, env: ReadonlyMap<string, Reads>): void {
  if (!e) return;
  const k = e.exprKind;
  switch (k.case) {
    case 'identExpr': {
      const r = env.get((k.value as { name: string }).name);
      if (r) r.whole = true;
      return;
    }
    case 'selectExpr': {
      const s = k.value as Select;
      if (s.testOnly) {
        // has(x.f): whether f is present in x (the field recorded, nothing of its value)
        const base = s.operand && chain(s.operand, env);
        if (!base) return walk(s.operand, env);
        field(base, s.field);
        return;
      }
      const r = chain(e, env);
      if (r) r.whole = true;
      else walk(s.operand, env);
      return;
    }
    case 'comprehensionExpr': {
      const c = k.value as Comprehension;
      if (c.iterVar2) throw new ReadsWhole();
      const range = c.iterRange && chain(c.iterRange, env);
      if (!range) {
        if (mentions(c.iterRange, env)) throw new ReadsWhole();
        walk(c.iterRange, env);
      }
      const inner = new Map(env);
      inner.delete(c.accuVar);
      if (range) inner.set(c.iterVar, (range.each ??= reads()));
      else inner.delete(c.iterVar);
      walk(c.accuInit, env);
      walk(c.loopCondition, inner);
      walk(c.loopStep, inner);
      // the result sees the accumulator, not the iteration variable
      const after = new Map(env);
      after.delete(c.accuVar);
      walk(c.result, after);
      return;
    }
    default:
      // calls (target and args), lists, maps, messages, constants: every sub-expression, as a value
      for (const x of subExpressions(k.value)) walk(x, env);
  }
}

/** The expressions directly under a node of another kind (a call's target and args, list elements, map entries). */
function subExpressions(v: unknown): Expr[] {
  const out: Expr[] = [];
  const visit = (x: unknown): void => {
    if (Array.isArray(x)) x.forEach(visit);
    else if (x && typeof x === 'object') {
      if ('exprKind' in x) out.push(x as Expr);
      else for (const y of Object.values(x)) visit(y);
    }
  };
  visit(v);
  return out;
}

/**
 * A field read only by has(): its value does not matter, save null, which has() reads as absent
 * (@bufbuild/cel 0.6.1, dist/cjs/map.js: a map's `has(key)` is `this.get(key) != undefined`;
 * test/schemas/cel-reads.test.ts found it).
 */
const PRESENT = 1;

/**
 * The part of `v` that `r` reads, as plain JSON: a field CEL cannot see under the names read is
 * left out, a value read whole is kept whole, and where `v` is not shaped as the reads expect (a
 * list where fields are read, a map a comprehension ranges over, a scalar) it is kept whole too.
 */
export function project(v: unknown, r: Reads): unknown {
  if (r.whole || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    if (r.each && r.fields.size === 0) return (v as unknown[]).map((x) => (x === undefined ? x : project(x, r.each!)));
    return v;
  }
  if (r.each) return v;
  const o = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(o)) {
    const x = o[key];
    // CEL's value drops a key holding undefined (structural.ts toCel)
    if (x === undefined) continue;
    // The name under which CEL sees the key: escaped for a schema property, as it is in a map
    // (toCel); a key read under either name is kept.
    const escaped = escapeProperty(key);
    const a = r.fields.get(key);
    const b = escaped !== undefined && escaped !== key ? r.fields.get(escaped) : undefined;
    if (a && b) {
      out[key] = x; // read under both names: kept whole
      continue;
    }
    const f = a ?? b;
    if (!f) continue;
    out[key] = presenceOnly(f) ? (x === null ? null : PRESENT) : project(x, f);
  }
  return out;
}
