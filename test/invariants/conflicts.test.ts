import { ApiObject, App, Chart, Testing } from 'cdk8s';
import { HttpService } from '../../src/constructs/http-service';
import { ServiceNamespace } from '../../src/constructs/service-namespace';
import { declareCluster } from '../../src/invariants/conflicts';
import { checkoutApiProps } from '../../src/example';
import { synthesize } from '../../src/synth/synth';
import { declareOutputPath } from '../../src/synth/layout';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

function synthAll(app: App): string {
  try {
    for (const c of app.charts) Testing.synth(c);
  } catch (e) {
    return (e as Error).message;
  }
  return '';
}

test('two services with the same hostname and path on one Gateway: an error naming both', () => {
  const app = Testing.app();
  new HttpService(new Chart(app, 'a', { namespace: 'checkout' }), 'checkout-api', checkoutApiProps());
  new HttpService(new Chart(app, 'b', { namespace: 'payments' }), 'payments-api', checkoutApiProps());
  expect(synthAll(app)).toMatch(
    /\[a\/checkout-api, b\/payments-api\] hostname checkout.example.com path PathPrefix \/ on Gateway envoy-gateway-system\/public \(.*\): claimed by both a\/checkout-api and b\/payments-api\. Fix: give each service its own hostname/,
  );
});

test('the same name in one namespace in two charts: an error naming both services', () => {
  const app = Testing.app();
  new HttpService(new Chart(app, 'one', { namespace: 'checkout' }), 'checkout-api', checkoutApiProps());
  new HttpService(new Chart(app, 'two', { namespace: 'checkout' }), 'checkout-api', {
    ...checkoutApiProps(),
    route: { hostnames: ['other.example.com'] },
  });
  expect(synthAll(app)).toMatch(
    /\[one\/checkout-api, two\/checkout-api\] Rollout checkout\/checkout-api on .*: claimed by both one\/checkout-api and two\/checkout-api\. Fix: give the services different names or namespaces/,
  );
});

test('distinct hostnames, or the same name in other namespaces, synthesize', () => {
  const app = Testing.app();
  new HttpService(new Chart(app, 'one', { namespace: 'checkout' }), 'checkout-api', checkoutApiProps());
  new HttpService(new Chart(app, 'two', { namespace: 'checkout-dev' }), 'checkout-api', {
    ...checkoutApiProps(),
    route: { hostnames: ['checkout.dev.example.com'] },
  });
  expect(synthAll(app)).toBe('');
});

test('two services writing one output file: an error naming both charts', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-conflict-'));
  try {
    expect(() =>
      synthesize(
        (outdir) => {
          const app = new App({ outdir });
          const a = new Chart(app, 'a', { namespace: 'checkout' });
          const b = new Chart(app, 'b', { namespace: 'payments' });
          new HttpService(a, 'checkout-api', checkoutApiProps());
          new HttpService(b, 'payments-api', { ...checkoutApiProps(), route: { hostnames: ['payments.example.com'] } });
          declareOutputPath(a, 'prod/services.k8s.yaml');
          declareOutputPath(b, 'prod/services.k8s.yaml');
          return app;
        },
        { outdir: path.join(root, 'dist'), progress: () => undefined },
      ),
    ).toThrow(/two outputs write prod\/services.k8s.yaml: chart a and chart b/);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

describe('one object written twice in one synth output (issue 22 b)', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-dup-'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));
  const run = (build: (app: App) => void) =>
    synthesize(
      (outdir) => {
        const app = new App({ outdir });
        build(app);
        return app;
      },
      { outdir: path.join(root, 'dist'), progress: () => undefined },
    );
  test("a Service added by hand with the service's own name and namespace is refused", () => {
    expect(() =>
      run((app) => {
        const svc = new HttpService(new Chart(app, 'c', { namespace: 'checkout' }), 'checkout-api', checkoutApiProps());
        new ApiObject(Chart.of(svc), 'dup', {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 'checkout-api' },
          spec: { ports: [{ port: 80 }], selector: { x: 'y' } },
        });
      }),
    ).toThrow(/Service checkout\/checkout-api on .*: written twice in one synth output \(chart c and chart c\)/);
  });
  test('two ServiceNamespaces for one namespace in one platform app are refused', () => {
    expect(() =>
      run((app) => {
        new ServiceNamespace(new Chart(app, 'a'), 'ns', { name: 'shop' });
        new ServiceNamespace(new Chart(app, 'b'), 'ns', { name: 'shop' });
      }),
    ).toThrow(/Namespace shop on .*: written twice in one synth output \(chart a and chart b\)/);
  });
  test('near misses: the same name in another namespace, another kind, or another cluster pass', () => {
    run((app) => {
      const svc = new HttpService(new Chart(app, 'c', { namespace: 'checkout' }), 'checkout-api', checkoutApiProps());
      new ApiObject(Chart.of(svc), 'cm', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'checkout-api' },
        data: { a: 'b' },
      });
      new ApiObject(new Chart(app, 'other', { namespace: 'other' }), 'svc', {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'checkout-api' },
        spec: { ports: [{ port: 80 }], selector: { x: 'y' } },
      });
      const east = new Chart(app, 'east');
      declareCluster(east, 'https://east.example.com');
      new ServiceNamespace(east, 'ns', { name: 'shop' });
      const west = new Chart(app, 'west');
      declareCluster(west, 'https://west.example.com');
      new ServiceNamespace(west, 'ns', { name: 'shop' });
    });
  });
});
