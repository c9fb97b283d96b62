import * as fs from 'fs';
import * as path from 'path';
import * as fc from 'fast-check';
import * as YAML from 'yaml';
import { parse } from '@bufbuild/cel';
import { compileRule, escapeProperty } from '../../src/schemas/cel';
import { project, readsOf, Reads } from '../../src/schemas/cel-reads';
import { ClusterValidator, findSchemaDir } from '../../src/schemas/cluster-validator';
import { Pass, SchemaCompiler, SchemaProblem } from '../../src/schemas/structural';
import { KubernetesVersion } from '../../src/decisions/kubernetes-version';
import { buildEstate } from '../../bench/synth';
import { planApp } from '../../src/synth/render';
import { leafPaths } from '../support/manifests';

/*
 * A validation pass keys a rule's result by what the rule can read of the value (cel-reads.ts). The
 * key is sound when the rule gives the same result on the value and on its projection: checked
 * here for every x-kubernetes-validations rule of the pinned CRDs, on values generated from the
 * rule's own field names and constants (so that its fields are there, absent, null, of another
 * type, lists, nested), converted as structural.ts toCel converts a value without a schema.
 */

const dir = findSchemaDir()!;

function crdRules(): string[] {
  const out = new Set<string>();
  const walk = (n: unknown): void => {
    if (Array.isArray(n)) n.forEach(walk);
    else if (n && typeof n === 'object') {
      for (const r of ((n as Record<string, unknown>)['x-kubernetes-validations'] ?? []) as { rule: string }[])
        out.add(r.rule);
      Object.values(n).forEach(walk);
    }
  };
  for (const f of fs.readdirSync(path.join(dir, 'crds')))
    walk(YAML.parse(fs.readFileSync(path.join(dir, 'crds', f), 'utf8')));
  return [...out].filter((r) => !/\boldSelf\b/.test(r));
}

/** As structural.ts plainToCel, with property names escaped (a schema property's name as CEL sees it). */
function toCel(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(toCel);
  if (v && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const name = escapeProperty(k);
      if (name !== undefined && x !== undefined) o[name] = toCel(x);
    }
    return o;
  }
  return v;
}

/** Values shaped by the rule: its identifiers as keys, its string and number constants as values. */
function valuesFor(rule: string): fc.Arbitrary<unknown> {
  const names = [...new Set([...rule.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)].map((m) => m[0]))].filter(
    (n) => !['self', 'has', 'size', 'true', 'false', 'null', 'in', 'all', 'exists', 'exists_one'].includes(n),
  );
  const strings = [...new Set([...rule.matchAll(/'([^']*)'|"([^"]*)"/g)].map((m) => m[1] ?? m[2]))];
  const numbers = [...new Set([...rule.matchAll(/\b\d+\b/g)].map((m) => Number(m[0])))];
  const key = fc.constantFrom(...names, 'name', 'other');
  const scalar = fc.oneof(
    fc.constantFrom(...strings, '', 'x', 'Service'),
    fc.constantFrom(...numbers, 0, 1, 2, 65536),
    fc.boolean(),
    fc.constant(null),
  );
  const { value } = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      scalar,
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(key, tie('value'), { maxKeys: 5 }),
    ),
  }));
  return fc.dictionary(key, value, { maxKeys: 6 });
}

const rules = crdRules();

test('the pinned CRDs hold rules that read part of self, and some that read it whole', () => {
  const reads = rules.map((r) => readsOf(parse(r).expr!));
  expect(rules.length).toBeGreaterThan(100);
  expect(reads.filter((r) => !r.whole).length).toBeGreaterThan(50);
  expect(reads.filter((r) => r.whole).length).toBeGreaterThan(2);
});

test('every rule gives the same result on a value and on what it reads of it', () => {
  const differ: string[] = [];
  for (const rule of rules) {
    const c = compileRule(rule, undefined);
    fc.assert(
      fc.property(valuesFor(rule), (v) => {
        const full = c.evaluate(toCel(v));
        const part = c.evaluate(toCel(project(v, c.reads)));
        if (full !== part) differ.push(`${rule}\n  on ${JSON.stringify(v)}: ${String(full)} vs ${String(part)}`);
      }),
      { numRuns: 150, seed: 25 },
    );
  }
  expect(differ.slice(0, 5)).toEqual([]);
});

test('near miss: a projection that keeps only whether each field is there changes results (the check sees it)', () => {
  // each field read, but none of its value: whether it is there only
  const presenceOnly = (r: Reads): Reads => ({
    whole: false,
    fields: new Map([...r.fields].map(([k]) => [k, { whole: false, fields: new Map() }])),
  });
  let differ = 0;
  for (const rule of rules) {
    const c = compileRule(rule, undefined);
    if (c.reads.whole) continue;
    fc.assert(
      fc.property(valuesFor(rule), (v) => {
        if (c.evaluate(toCel(v)) !== c.evaluate(toCel(project(v, presenceOnly(c.reads))))) differ++;
      }),
      { numRuns: 20, seed: 25 },
    );
  }
  expect(differ).toBeGreaterThan(20);
});

test("what a rule reads: has() is presence, a comprehension reads each element's fields, anything else whole", () => {
  const reads = (rule: string) => readsOf(parse(rule).expr!);
  const r = reads("has(self.targetRef) ? self.targetRef.group == 'g' : self.targetRefs.all(ref, ref.kind == 'K')");
  const value = {
    targetRef: { group: 'g', kind: 'HTTPRoute', name: 'svc-0001' },
    targetRefs: [{ group: 'g', kind: 'K', name: 'svc-0001' }],
    other: 'x',
  };
  // the names, which differ between services, are not in what the rule reads
  expect(project(value, r)).toEqual({ targetRef: { group: 'g' }, targetRefs: [{ kind: 'K' }] });
  expect(project({ compression: [{ a: 1 }], x: 1 }, reads('!has(self.compression) || !has(self.compressor)'))).toEqual({
    compression: 1,
  });
  for (const whole of ['self.size() > 0', 'self[0].matches.size() < 8', 'size(self) == 1', 'self == self'])
    expect(reads(whole).whole).toBe(true);
  // a comprehension over something derived from self: its elements are read whole
  expect(reads("self.a.filter(x, x.b == 1).all(y, y.c == 'z')").whole).toBe(true);
  // a list where fields are read, or a scalar: kept whole
  expect(project({ a: [1, 2] }, reads('self.a.b == 1'))).toEqual({ a: [1, 2] });
});

test('one pass over many services, their values memoized by what each rule reads, finds what a fresh pass per object finds', () => {
  const v = ClusterValidator.for(dir, KubernetesVersion.V1_28);
  const objects: Record<string, unknown>[] = [];
  for (const file of planApp(buildEstate(30))) if ('objects' in file) objects.push(...(file.objects as never[]));
  const custom = objects.filter((o) => ['HTTPRoute', 'BackendTrafficPolicy', 'Rollout'].includes(String(o.kind)));
  expect(custom.length).toBe(90);
  // the same objects, each broken at one generated place (a value removed, nulled, changed or doubled)
  const broken = fc.sample(
    fc.tuple(fc.nat(), fc.nat(), fc.constantFrom('delete', 'null', 'other', 'twin')).map(([oi, li, what]) => {
      const o = structuredClone(custom[oi % custom.length]);
      const ls = leafPaths(o.spec, ['spec']);
      const p = ls[li % ls.length];
      let parent = o as Record<string | number, unknown>;
      for (const k of p.slice(0, -1)) parent = parent[k] as Record<string | number, unknown>;
      const last = p[p.length - 1];
      if (what === 'delete') {
        if (Array.isArray(parent)) parent.splice(Number(last), 1);
        else delete parent[last];
      } else if (what === 'null') parent[last] = null;
      else if (what === 'other') parent[last] = typeof parent[last] === 'string' ? 'other' : 'x';
      // an item twice (a second parentRef, backendRef, match) and targetRef beside targetRefs: shapes
      // the Gateway and Envoy Gateway CRDs' rules refuse
      else if (Array.isArray(parent)) parent.push(structuredClone(parent[last]));
      if (what === 'twin' && o.kind === 'BackendTrafficPolicy') {
        const spec = o.spec as Record<string, unknown>;
        spec.targetRef = (spec.targetRefs as unknown[])?.[0];
      }
      return o;
    }),
    { numRuns: 400, seed: 25 },
  );
  const shared = new Pass();
  const all = [...custom, ...broken];
  const seen = all.map((o) => v.check(o, shared));
  const fresh = all.map((o) => v.check(o, new Pass()));
  expect(seen).toEqual(fresh);
  // the broken objects are refused, by CEL rules too
  expect(seen.slice(custom.length).filter((p) => p.length > 0).length).toBeGreaterThan(100);
  expect(seen.flat().filter((p) => p.source === 'cel').length).toBeGreaterThan(10);
});

test('a memo key tells NaN and Infinity from null (JSON writes all three as null), so a shared pass keeps them apart', () => {
  // a YAML .nan is a number (lint reads it so); the rule sees a double, which is not equal to itself
  const node = new SchemaCompiler({}, true).compile({
    type: 'object',
    properties: { n: { type: 'number', nullable: true } },
    'x-kubernetes-validations': [{ rule: 'has(self.n) ? self.n == self.n : true', message: 'n is a number' }],
  });
  const shared = new Pass();
  const problems = (v: unknown) => {
    const out: SchemaProblem[] = [];
    node.check(v, out, shared);
    return out.map((p) => p.message);
  };
  expect(problems({ n: null })).toEqual([]);
  expect(problems({ n: Number.NaN })).toEqual(['n is a number (CEL rule: has(self.n) ? self.n == self.n : true)']);
  expect(problems({ n: null })).toEqual([]);
});
