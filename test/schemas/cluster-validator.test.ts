import * as fs from 'fs';
import * as path from 'path';
import * as fc from 'fast-check';
import * as YAML from 'yaml';
import { compileRule, escapeProperty } from '../../src/schemas/cel';
import { jsonSizeBound } from '../../src/schemas/builtin';
import { ClusterValidator, findSchemaDir } from '../../src/schemas/cluster-validator';
import { KubernetesVersion } from '../../src/decisions/kubernetes-version';
import { SchemaValidator } from '../../src/schemas/validator';
import { SchemaCompiler, Pass, SchemaProblem, pointerKey } from '../../src/schemas/structural';
import { leafPaths } from '../support/manifests';

const dir = findSchemaDir()!;
type J = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- JSON edited by the cases
const example = YAML.parseAllDocuments(
  fs.readFileSync(path.join(__dirname, '..', '..', 'dist', 'prod', 'checkout-api.k8s.yaml'), 'utf8'),
  { version: '1.1' },
)
  .map((d) => d.toJS() as J)
  .filter(Boolean);

/** Every x-kubernetes-validations rule of the pinned CRDs. */
function crdRules(): { file: string; rule: string }[] {
  const out: { file: string; rule: string }[] = [];
  const walk = (n: unknown, file: string): void => {
    if (Array.isArray(n)) n.forEach((x) => walk(x, file));
    else if (n && typeof n === 'object') {
      for (const r of ((n as J)['x-kubernetes-validations'] ?? []) as { rule: string }[])
        out.push({ file, rule: r.rule });
      for (const v of Object.values(n)) walk(v, file);
    }
  };
  for (const f of fs.readdirSync(path.join(dir, 'crds')))
    walk(YAML.parse(fs.readFileSync(path.join(dir, 'crds', f), 'utf8')), f);
  return out;
}

describe("CEL: the pinned CRDs' rules", () => {
  const rules = crdRules();
  test('every rule compiles in the environment (standard CEL + the strings extension Kubernetes adds)', () => {
    expect(rules.length).toBeGreaterThan(100);
    const failed = rules.filter((r) => {
      try {
        compileRule(r.rule, undefined);
        return false;
      } catch {
        return true;
      }
    });
    expect(failed).toEqual([]);
  });
  test('the functions they call are all implemented', () => {
    const called = new Set(
      rules.flatMap((r) => [...r.rule.matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*\(/g)].map((m) => m[1])),
    );
    expect([...called].sort()).toEqual([
      'all',
      'contains',
      'duration',
      'endsWith',
      'exists',
      'exists_one',
      'filter',
      'has',
      'matches',
      'size',
      'split',
      'startsWith',
      'upperAscii',
    ]);
    expect(compileRule('self.split("/")[0].upperAscii() == "A"', undefined).evaluate('a/b')).toBe(true);
    expect(compileRule("duration(self) > duration('0s')", undefined).evaluate('1s')).toBe(true);
  });
  test('transition rules (oldSelf) are marked and not run on create', () => {
    expect(compileRule('self == oldSelf', undefined).transition).toBe(true);
    const node = new SchemaCompiler({}, true).compile({
      type: 'string',
      'x-kubernetes-validations': [{ rule: 'self == oldSelf' }],
    });
    const out: SchemaProblem[] = [];
    node.check('x', out, new Pass());
    expect(out).toEqual([]);
  });
  test('property names are escaped as the API server does', () => {
    expect(escapeProperty('namespace')).toBe('__namespace__');
    expect(escapeProperty('x-y')).toBe('x__dash__y');
    expect(escapeProperty('a.b/c')).toBe('a__dot__b__slash__c');
    expect(escapeProperty('a__b')).toBe('a__underscores__b');
    expect(escapeProperty('1a')).toBeUndefined();
    // the second call of each name is answered from the memo by name: the same results
    const names = [
      ['namespace', '__namespace__'],
      ['x-y', 'x__dash__y'],
      ['1a', undefined],
      ['a b', undefined],
      ['ok_1', 'ok_1'],
    ] as const;
    for (const [name, want] of names) {
      expect(escapeProperty(name)).toBe(want);
      expect(escapeProperty(name)).toBe(want);
    }
    // a key of a JSON-pointer path: ~ and / escaped, any other key as it is
    expect(['a/b', 'a~b', '~/', 'plain', ''].map(pointerKey)).toEqual(['a~1b', 'a~0b', '~0~1', 'plain', '']);
    const node = new SchemaCompiler({}, true).compile({
      type: 'object',
      properties: { namespace: { type: 'string' } },
      'x-kubernetes-validations': [{ rule: "self.__namespace__ != 'kube-system'" }],
    });
    const out: SchemaProblem[] = [];
    node.check({ namespace: 'kube-system' }, out, new Pass());
    expect(out.map((p) => p.source)).toEqual(['cel']);
  });
  test('structural defaulting runs before the rules, and never changes the object', () => {
    const schema = {
      type: 'object',
      properties: { type: { type: 'string', default: 'PathPrefix' }, value: { type: 'string' } },
      'x-kubernetes-validations': [
        { rule: "self.type == 'PathPrefix' ? self.value.startsWith('/') : true", message: 'must start with /' },
      ],
    };
    const node = new SchemaCompiler({}, true).compile(schema);
    const obj = { value: 'api' };
    const out: SchemaProblem[] = [];
    node.check(obj, out, new Pass());
    expect(out.map((p) => p.message)).toEqual([
      "must start with / (CEL rule: self.type == 'PathPrefix' ? self.value.startsWith('/') : true)",
    ]);
    expect(obj).toEqual({ value: 'api' });
  });
  test('integers are CEL ints, int-or-string either', () => {
    const node = new SchemaCompiler({}, true).compile({
      type: 'object',
      properties: { n: { type: 'integer' }, p: { 'x-kubernetes-int-or-string': true } },
      'x-kubernetes-validations': [{ rule: 'self.n + 1 == 3 && (type(self.p) == int || type(self.p) == string)' }],
    });
    for (const p of [5, '25%']) {
      const out: SchemaProblem[] = [];
      node.check({ n: 2, p }, out, new Pass());
      expect(out).toEqual([]);
    }
  });
  test('the HTTPRoute path rules refuse what the Gateway API refuses', () => {
    const v = ClusterValidator.for(dir, KubernetesVersion.V1_28);
    const route = example.find((o) => o.kind === 'HTTPRoute')!;
    for (const bad of ['/a//b', '/a/../b', '/a#b', '/a%2fb', '/ü']) {
      const r = structuredClone(route);
      r.spec.rules[0].matches = [{ path: { type: 'PathPrefix', value: bad } }];
      expect(v.check(r).filter((p) => p.source === 'cel' || p.source === 'schema').length).toBeGreaterThan(0);
    }
  });
});

describe('the schema stage agrees with ajv (an independent validator) on mutated objects', () => {
  const ajv = SchemaValidator.load(dir, KubernetesVersion.V1_28);
  const v = ClusterValidator.for(dir, KubernetesVersion.V1_28);
  test('property', () => {
    fc.assert(
      fc.property(
        fc.nat(),
        fc.nat(),
        fc.constantFrom('string', 'number', 'bool', 'object', 'list', 'delete', 'unknown'),
        (oi, li, what) => {
          const o = structuredClone(example[oi % example.length]);
          const ls = leafPaths(o).filter((p) => !['metadata', 'apiVersion', 'kind'].includes(String(p[0])));
          if (ls.length === 0) return;
          const p = ls[li % ls.length];
          let parent: J = o;
          for (const k of p.slice(0, -1)) parent = parent[k];
          const last = p[p.length - 1];
          if (what === 'delete') {
            if (Array.isArray(parent)) parent.splice(Number(last), 1);
            else delete parent[last];
          } else if (what === 'unknown') parent[`${String(last)}Typo`] = 1;
          else parent[last] = { string: 'x', number: 1.5, bool: true, object: { a: 1 }, list: [1] }[what];
          const mine = v.check(o).filter((x) => x.source === 'schema').length > 0;
          const theirs = ajv.validate(o).length > 0;
          // CRDs carry CEL rules ajv does not run; both see types, required fields, enums, patterns, unknown fields
          expect(mine).toBe(theirs);
        },
      ),
      { numRuns: 300, seed: 22 },
    );
  });
});

test('jsonSizeBound is an upper bound of the JSON length (the commas between empty containers counted: [{},[]] is 7)', () => {
  expect(jsonSizeBound([{}, []], Infinity)).toBeGreaterThanOrEqual(7);
  expect(jsonSizeBound([[], [], [[]]], Infinity)).toBeGreaterThanOrEqual(JSON.stringify([[], [], [[]]]).length);
  fc.assert(
    fc.property(fc.jsonValue(), (x) => {
      expect(jsonSizeBound(x, Infinity)).toBeGreaterThanOrEqual(JSON.stringify(x)?.length ?? 0);
    }),
    { numRuns: 300 },
  );
});

describe('what is written is what is checked (issue 22 b)', () => {
  const v = ClusterValidator.for(dir, KubernetesVersion.V1_28);
  test('a key holding undefined is written as null, so an unknown one is an unknown field', () => {
    const dep = structuredClone(example.find((o) => o.kind === 'Rollout')!);
    dep.spec.foo = undefined;
    expect(v.check(dep).map((p) => `${p.path}: ${p.message}`)).toEqual([
      '/spec/foo: is not a field of this kind (unknown field; the API server drops or refuses it)',
    ]);
  });
  test('near miss: undefined on a known optional field is null, which the API server reads as absent', () => {
    const dep = structuredClone(example.find((o) => o.kind === 'Rollout')!);
    dep.spec.revisionHistoryLimit = undefined;
    expect(v.check(dep)).toEqual([]);
  });
  test('an empty kind or apiVersion is no kind', () => {
    expect(v.check({ apiVersion: 'v1', kind: '', metadata: { name: 'x' } }).map((p) => p.message)).toEqual([
      'has no apiVersion and kind',
    ]);
    expect(v.check({ apiVersion: '', kind: 'ConfigMap', metadata: { name: 'x' } }).map((p) => p.message)).toEqual([
      'has no apiVersion and kind',
    ]);
  });
});
