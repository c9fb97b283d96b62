import { Chart, JsonPatch, Testing } from 'cdk8s';
import { HttpService } from '../../src/constructs/http-service';
import { checkoutApiProps } from '../../src/example';

/** A service with one escape-hatch patch on its stable Service. */
function synthWithServicePatch(patch: JsonPatch): unknown[] {
  const app = Testing.app();
  const chart = new Chart(app, 'test', { namespace: 'checkout' });
  const svc = new HttpService(chart, 'checkout-api', checkoutApiProps());
  svc.service.addJsonPatch(patch);
  return Testing.synth(chart);
}

describe('patched objects are checked against the real schema of their kind', () => {
  test('a patch that gives a field the wrong type fails synth, naming the object and the path', () => {
    // No invariant reads spec.type; the Kubernetes schema says it is a string. (An object field would
    // not do: cdk8s-plus's converter rewrites a string there into {} before anything sees it.)
    expect(() => synthWithServicePatch(JsonPatch.replace('/spec/type', 5))).toThrow(
      /Service\/checkout\/checkout-api \/spec\/type: must be of type string, not integer 5 \(schema\): the cluster would refuse this object/,
    );
  });

  test('a patch that keeps the object valid passes', () => {
    const objs = synthWithServicePatch(JsonPatch.add('/spec/sessionAffinity', 'ClientIP')) as {
      kind: string;
      spec?: { sessionAffinity?: string };
    }[];
    expect(objs.find((o) => o.kind === 'Service' && o.spec?.sessionAffinity)?.spec?.sessionAffinity).toBe('ClientIP');
  });
});
