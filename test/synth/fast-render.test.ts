import * as os from 'os';
import * as path from 'path';
import { ApiObject, App, Chart, IResolver, JsonPatch, Lazy, ResolutionContext } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import * as fc from 'fast-check';
import { isDeepStrictEqual } from 'util';
import { buildEstate, Estate } from '../../bench/synth';
import { fastToJson, withFastToJson } from '../../src/synth/fast-render';
import { FIXTURES } from './fixtures';

/** cdk8s' own ApiObject.prototype.toJson (fast-render.ts replaces it only inside withFastToJson). */
const original = ApiObject.prototype.toJson;

/** The same value, with the same keys in the same order at every level (and undefined kept apart from absent). */
function sameJson(a: unknown, b: unknown): boolean {
  if (!isDeepStrictEqual(a, b)) return false;
  if (a && typeof a === 'object') {
    if (Array.isArray(a)) return (a as unknown[]).every((x, i) => sameJson(x, (b as unknown[])[i]));
    const ka = Object.keys(a);
    const kb = Object.keys(b as object);
    if (ka.join('\u0000') !== kb.join('\u0000')) return false;
    return ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
  }
  return true;
}

/** Each object rendered by cdk8s and by withFastToJson (its class's own toJson, e.g. KubeService's): result or error. */
function both(o: ApiObject): { slow: unknown; fast: unknown } {
  const run = (f: () => unknown) => {
    try {
      return { ok: f() };
    } catch (e) {
      return { error: String(e) };
    }
  };
  const slow = run(() => o.toJson());
  const fast = run(() => withFastToJson(() => o.toJson()));
  return { slow, fast };
}

function objectsOf(app: App): ApiObject[] {
  return app.node.findAll().filter((c): c is ApiObject => c instanceof ApiObject);
}

describe('fast render (src/synth/fast-render.ts): the same objects as cdk8s toJson()', () => {
  test.each<Estate>(['capacity', 'no-capacity', 'distinct'])('the bench estate (%s), 40 services', (estate) => {
    const app = buildEstate(40, path.join(os.tmpdir(), 'rollwise-fast-render'), estate);
    const objects = objectsOf(app);
    expect(objects.length).toBe(360);
    for (const o of objects) {
      const { slow, fast } = both(o);
      expect(sameJson(fast, slow)).toBe(true);
      expect(fast).toHaveProperty('ok');
    }
    expect(ApiObject.prototype.toJson).toBe(original);
  });

  test.each(Object.keys(FIXTURES))('the synth fixtures: %s', (name) => {
    const app = FIXTURES[name](path.join(os.tmpdir(), 'rollwise-fast-render'));
    for (const o of objectsOf(app)) {
      const { slow, fast } = both(o);
      expect(sameJson(fast, slow)).toBe(true);
    }
  });

  test('cdk8s-plus objects (Lazy-heavy L2 constructs)', () => {
    const app = new App();
    const chart = new Chart(app, 'c', { namespace: 'n', labels: { team: 't' } });
    const d = new kplus.Deployment(chart, 'web', {
      replicas: 2,
      containers: [{ image: 'nginx:1.27', portNumber: 8080, envVariables: { A: kplus.EnvValue.fromValue('1') } }],
    });
    d.exposeViaService({ ports: [{ port: 80, targetPort: 8080 }] });
    new kplus.ConfigMap(chart, 'cm', { data: { k: 'v' } });
    const objects = objectsOf(app);
    expect(objects.length).toBeGreaterThanOrEqual(3);
    for (const o of objects) {
      const { slow, fast } = both(o);
      expect(sameJson(fast, slow)).toBe(true);
      expect(fast).toHaveProperty('ok');
    }
  });

  test('an app with its own resolver: cdk8s toJson runs (the resolver is honoured)', () => {
    class Upper implements IResolver {
      public resolve(c: ResolutionContext): void {
        if (typeof c.value === 'string' && c.value.startsWith('up:')) c.replaceValue(c.value.slice(3).toUpperCase());
      }
    }
    const app = new App({ resolvers: [new Upper()] });
    const o = new ApiObject(new Chart(app, 'c'), 'o', { apiVersion: 'v1', kind: 'ConfigMap', data: { a: 'up:x' } });
    expect(fastToJson(o)).toEqual(o.toJson());
    expect((fastToJson(o) as { data: { a: string } }).data.a).toBe('X');
  });

  test('a patch that cannot be applied fails with the same message', () => {
    const app = new App();
    const o = new ApiObject(new Chart(app, 'c'), 'o', { apiVersion: 'v1', kind: 'ConfigMap', data: { a: '1' } });
    o.addJsonPatch(JsonPatch.replace('/spec/missing/x', 1));
    const { slow, fast } = both(o);
    expect(slow).toHaveProperty('error');
    expect(fast).toEqual(slow);
  });

  test('generated values: Lazy, tokens, number/string unions, arrays, null, undefined, patches', () => {
    class Union {
      constructor(public readonly value: unknown) {}
    }
    class Token {
      constructor(private readonly v: unknown) {}
      public resolve(): unknown {
        return this.v;
      }
    }
    class Opaque {
      public readonly x = 1;
    }
    const leaf = fc.oneof(
      fc.string(),
      fc.integer(),
      fc.double({ noNaN: true }),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
      fc.constantFrom('', '0', 'yes', '~'),
    );
    const { value } = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        leaf,
        fc.array(tie('value'), { maxLength: 4 }),
        fc.dictionary(fc.constantFrom('a', 'b', 'value', 'resolve', 'z', 'constructor', '0'), tie('value'), {
          maxKeys: 4,
        }),
        tie('value').map((v) => Lazy.any({ produce: () => v })),
        tie('value').map((v) => new Token(v)),
        fc.oneof(fc.integer(), fc.string(), fc.boolean()).map((v) => new Union(v)),
        fc.constant(new Opaque()),
      ),
    }));
    const patch = fc.oneof(
      fc
        .record({ path: fc.constantFrom('/data/a', '/spec', '/metadata/labels/x', '/zz'), v: leaf })
        .map((p) => JsonPatch.add(p.path, p.v)),
      fc.constantFrom('/data', '/spec/a', '/metadata/name').map((p) => JsonPatch.remove(p)),
    );
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom('data', 'spec', 'status', 'extra'), value, { maxKeys: 4 }),
        fc.dictionary(fc.constantFrom('a', 'app', 'x'), fc.string(), { maxKeys: 3 }),
        fc.array(patch, { maxLength: 3 }),
        (props, labels, patches) => {
          const app = new App();
          const o = new ApiObject(new Chart(app, 'c', { namespace: 'n' }), 'o', {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: { labels, annotations: { n: 'v' } },
            ...props,
          } as never);
          o.addJsonPatch(...patches);
          const { slow, fast } = both(o);
          return sameJson(fast, slow);
        },
      ),
      { numRuns: 1500 },
    );
    expect(ApiObject.prototype.toJson).toBe(original);
  });
});
