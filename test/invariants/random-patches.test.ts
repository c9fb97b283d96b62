import { ApiObject, Chart, JsonPatch, Testing } from 'cdk8s';
import * as fc from 'fast-check';
import { HttpService } from '../../src/constructs/http-service';
import { Delivery } from '../../src/decisions/canary';
import { checkoutApiProps } from '../../src/example';
import { checkInvariants } from '../../src/invariants/invariants';
import { Json } from '../../src/rules/k8s';
import { SchemaValidator } from '../../src/schemas/validator';

/** Every JSON pointer in a value (objects and arrays, leaves included). */
function pointers(x: unknown, base = ''): string[] {
  const out: string[] = [];
  if (Array.isArray(x)) x.forEach((v, i) => out.push(`${base}/${i}`, ...pointers(v, `${base}/${i}`)));
  else if (typeof x === 'object' && x !== null) {
    for (const [k, v] of Object.entries(x)) {
      const p = `${base}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      out.push(p, ...pointers(v, p));
    }
  }
  return out;
}

const values = fc.oneof(
  fc.constantFrom(
    0,
    1,
    -1,
    2,
    100,
    '',
    '0',
    '100%',
    '1',
    'true',
    'false',
    true,
    false,
    null,
    [],
    {},
    'ghcr.io/acme/x:latest',
    'result[0] < 1',
    '*',
    ['ALL'],
    ['NET_RAW'],
  ),
  fc.integer({ min: -5, max: 1000 }),
  fc.string({ maxLength: 8 }),
);

const patchArb = fc.record({
  object: fc.nat(),
  pointer: fc.nat(),
  op: fc.constantFrom('remove', 'replace', 'add', 'add-child'),
  value: values,
  key: fc.constantFrom(
    'privileged',
    'hostNetwork',
    'cpu',
    'runAsUser',
    'extra',
    'hostPath',
    'automountServiceAccountToken',
  ),
  canary: fc.boolean(),
});

describe('random JSON patches on the emitted objects: refused, or every invariant still holds', () => {
  test('property', () => {
    let refused = 0;
    let accepted = 0;
    const validator = SchemaValidator.load();
    fc.assert(
      fc.property(patchArb, (g) => {
        const app = Testing.app();
        const chart = new Chart(app, 'test', { namespace: 'checkout' });
        const svc = new HttpService(chart, 'checkout-api', {
          ...checkoutApiProps(),
          ...(g.canary ? {} : { delivery: Delivery.rollingUpdate(), route: undefined }),
        });
        const objs = svc.node.findAll().filter((c): c is ApiObject => c instanceof ApiObject);
        const target = objs[g.object % objs.length];
        const ptrs = pointers(target.toJson());
        const ptr = ptrs[g.pointer % ptrs.length];
        const patch =
          g.op === 'remove'
            ? JsonPatch.remove(ptr)
            : g.op === 'replace'
              ? JsonPatch.replace(ptr, g.value)
              : g.op === 'add'
                ? JsonPatch.add(ptr, g.value)
                : JsonPatch.add(`${ptr}/${g.key}`, g.value);
        target.addJsonPatch(patch);
        let out: Json[];
        try {
          out = Testing.synth(chart) as Json[];
        } catch (e) {
          refused++;
          // a refusal is a message about the input, never an internal crash
          expect((e as Error).message).not.toMatch(/Cannot read propert|is not a function|Maximum call stack/);
          return;
        }
        accepted++;
        const broken = checkInvariants({
          objects: out,
          endpointPropagationSeconds: svc.platform.endpointPropagationSeconds.value,
        });
        expect(broken.map((b) => `${b.invariant.id} ${b.object} ${b.path}: ${b.message}`)).toEqual([]);
        // and every emitted object, the patched one included, is valid for its kind's real schema
        expect(out.flatMap((o) => validator.validate(o).map((e) => `${String(o.kind)} ${e}`))).toEqual([]);
      }),
      { numRuns: 200, seed: 13 },
    );
    // the generator reaches both outcomes (harmless patches like a changed label are accepted)
    expect(refused).toBeGreaterThan(0);
    expect(accepted).toBeGreaterThan(0);
  });
});
