import { Manifest } from '../support/manifests';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, App, Chart } from 'cdk8s';
import { Delivery } from '../../src/decisions/canary';
import { Platform } from '../../src/decisions/platform';
import { addEstate, Environment, Sizing } from '../../src/environments';
import { checkoutApiProps } from '../../src/example';
import { buildApp } from '../../src/main';
import { listFiles } from '../../src/synth/diff';
import { declareOutputPath, SynthLayout } from '../../src/synth/layout';
import { addOutputFile } from '../../src/synth/output';
import { renderApp } from '../../src/synth/render';
import { synthesize, writeApp } from '../../src/synth/synth';
import * as YAML from 'yaml';
import { HttpServiceProps } from '../../src/constructs/http-service';
import { EnvValue } from '../../src/decisions/containers';
import { KubernetesVersion } from '../../src/decisions/kubernetes-version';
import { RollwiseInputError } from '../../src/errors';
import { threeServices, threeServicesPlatform } from '../fixtures/apps/three-services';

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-env-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const docs = (file: string) => YAML.parseAllDocuments(fs.readFileSync(file, 'utf8')).map((d) => d.toJS() as Manifest);

test('the example app: checkout-api in dev and prod, one folder per environment', () => {
  const out = path.join(root, 'dist');
  const calls: string[] = [];
  const r = synthesize(buildApp, { outdir: out, progress: (done, total) => calls.push(`${done}/${total}`) });
  expect(calls).toEqual(['1/4', '2/4', '3/4', '4/4']);
  expect(r.files).toEqual([
    'argocd/dev/checkout-api.k8s.yaml',
    'argocd/prod/checkout-api.k8s.yaml',
    'dev/checkout-api.k8s.yaml',
    'dev/checkout-api.runbook.md',
    'prod/checkout-api.catalog-info.yaml',
    'prod/checkout-api.k8s.yaml',
    'prod/checkout-api.runbook.md',
  ]);
  const dev = docs(path.join(out, 'dev/checkout-api.k8s.yaml'));
  const prod = docs(path.join(out, 'prod/checkout-api.k8s.yaml'));
  expect(dev.map((d) => d.kind)).toEqual([
    'Rollout',
    'Service',
    'HTTPRoute',
    'AnalysisTemplate',
    'AnalysisTemplate',
    'Service',
    'PodDisruptionBudget',
    'BackendTrafficPolicy',
    'PrometheusRule',
  ]);
  expect(new Set(dev.map((d) => d.metadata.namespace))).toEqual(new Set(['checkout-dev']));
  expect(new Set(prod.map((d) => d.metadata.namespace))).toEqual(new Set(['checkout']));
  expect(dev[0].spec.replicas).toBe(2);
  expect(prod[0].spec.replicas).toBe(12);
  expect(dev[2].spec.hostnames).toEqual(['checkout.dev.example.com']);
  // one Application per service and environment, pointing at that environment's folder
  const apps = ['dev', 'prod'].map((e) => docs(path.join(out, `argocd/${e}/checkout-api.k8s.yaml`))[0]);
  expect(apps.map((a) => [a.metadata.name, a.spec.source.path, a.spec.destination.namespace])).toEqual([
    ['checkout-api-dev', 'dist/dev', 'checkout-dev'],
    ['checkout-api-prod', 'dist/prod', 'checkout'],
  ]);
  // dev declares its own traffic (40 req/s, the service's saturation kept): its budget and its canary's
  // volume gate are sized from that; prod's from the production load
  expect(dev[6].spec.maxUnavailable).toBe(1);
  expect(fs.readFileSync(path.join(out, 'dev/checkout-api.k8s.yaml'), 'utf8')).toContain(
    '# Peak 40 req/s / (saturation 450 req/s x ceiling 80 % = 360 req/s per replica)',
  );
  expect(dev[0].spec.strategy.canary.steps[0]).toEqual({ setWeight: 10 });
  expect(fs.readFileSync(path.join(out, 'prod/checkout-api.k8s.yaml'), 'utf8')).toContain(
    '# Peak 3,700 req/s / (saturation 450 req/s x ceiling 80 % = 360 req/s per replica) = 10.3, so 11',
  );
});

test('the environment layout only moves files: same bytes as the flat (App.synth) names', () => {
  // without runbooks: the flat layout (App.synth()'s names) has one folder, where two runbooks would clash
  const build = () => {
    const app = new App();
    const platform = new Platform({
      gateway: { name: 'public', namespace: 'gw' },
      prometheusAddress: 'http://prometheus:9090',
    });
    // one cluster per environment: the same names and hostname in one cluster would conflict
    const envs = ['dev', 'prod'].map(
      (name) =>
        new Environment({
          name,
          destination: { server: `https://${name}.example.com:6443`, namespace: 'checkout' },
          platform,
        }),
    );
    addEstate(app, { environments: envs, services: { 'checkout-api': checkoutApiProps() } });
    return app;
  };
  writeApp(build(), path.join(root, 'env'));
  writeApp(build(), path.join(root, 'flat'), { layout: SynthLayout.flat() });
  expect(listFiles(path.join(root, 'flat'))).toEqual(['dev-checkout-api.k8s.yaml', 'prod-checkout-api.k8s.yaml']);
  for (const env of ['dev', 'prod']) {
    expect(fs.readFileSync(path.join(root, 'env', env, 'checkout-api.k8s.yaml'), 'utf8')).toBe(
      fs.readFileSync(path.join(root, 'flat', `${env}-checkout-api.k8s.yaml`), 'utf8'),
    );
  }
});

test('addEstate: services in name order per environment, the per-service hook once each, extra files in the environment folder', () => {
  const app = new App({ outdir: root });
  const calls: string[] = [];
  const routing = { gateway: { name: 'public', namespace: 'gw' }, prometheusAddress: 'http://prometheus:9090' };
  const envs = [
    new Environment({
      name: 'staging',
      destination: { server: 'https://staging.example.com:6443', namespace: 'shop' },
      platform: new Platform(routing),
      sizing: Sizing.fixed(3, { peakRequestsPerSecond: 300 }),
      adjust: (p, svc) => ({ ...p, image: `${p.image}-${svc}-rc` }),
    }),
    new Environment({
      name: 'prod',
      destination: { server: 'https://kubernetes.default.svc', namespace: 'shop' },
      platform: new Platform({ ...routing, labels: { env: 'prod' } }),
    }),
  ];
  const deployed = addEstate(app, {
    environments: envs,
    services: {
      payments: {
        ...checkoutApiProps(),
        capacity: undefined,
        delivery: Delivery.rollingUpdate(),
        replicas: 4,
        route: { hostnames: ['payments.example.com'] },
      },
      'checkout-api': checkoutApiProps(),
    },
    perService: (d) => {
      calls.push(
        `${d.environment.name}/${d.name} ${d.chart.node.id} ${d.namespace} ${d.environment.destination.server}`,
      );
      addOutputFile(d.service, `${d.name}.runbook.md`, `# ${d.name} in ${d.environment.name}\n`);
    },
  });
  expect(calls).toEqual([
    'staging/checkout-api staging-checkout-api shop https://staging.example.com:6443',
    'staging/payments staging-payments shop https://staging.example.com:6443',
    'prod/checkout-api prod-checkout-api shop https://kubernetes.default.svc',
    'prod/payments prod-payments shop https://kubernetes.default.svc',
  ]);
  expect(deployed.map((d) => d.service.decisions.replicas)).toEqual([3, 3, 12, 4]);
  expect(deployed[2].service.platform.labels).toEqual({ env: 'prod' });
  expect(deployed.map((d) => d.service.decisions.image)).toEqual([
    'ghcr.io/acme/checkout-api:1.4.2-checkout-api-rc',
    'ghcr.io/acme/checkout-api:1.4.2-payments-rc',
    'ghcr.io/acme/checkout-api:1.4.2',
    'ghcr.io/acme/checkout-api:1.4.2',
  ]);
  const files = [...renderApp(app)];
  expect(files.map((f) => f.path)).toEqual([
    'staging/checkout-api.k8s.yaml',
    'staging/payments.k8s.yaml',
    'prod/checkout-api.k8s.yaml',
    'prod/payments.k8s.yaml',
    'staging/checkout-api.runbook.md',
    'staging/payments.runbook.md',
    'prod/checkout-api.runbook.md',
    'prod/payments.runbook.md',
  ]);
  expect(files.find((f) => f.path === 'prod/payments.runbook.md')?.content).toBe('# payments in prod\n');
});

test('extra files of a flat app keep their paths; two charts writing the same extra file fail at synth', () => {
  const app = new App({ outdir: root });
  const a = new Chart(app, 'a');
  new ApiObject(a, 'cm', { apiVersion: 'v1', kind: 'ConfigMap' });
  addOutputFile(a, 'docs/a.md', 'A');
  expect(() => addOutputFile(a, 'docs/a.md', 'again')).toThrow('two constructs write the output file docs/a.md');
  expect([...renderApp(app)].map((f) => [f.path, f.content])).toEqual([
    ['a.k8s.yaml', 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a-cm-c8580764\n'],
    ['docs/a.md', 'A'],
  ]);
  addOutputFile(new Chart(app, 'b'), 'docs/a.md', 'B');
  expect(() => [...renderApp(app)]).toThrow('two outputs write docs/a.md: construct a and construct b');
});

test('bad environment input is refused naming the input', () => {
  expect(
    () => new Environment({ name: 'Prod', destination: { server: 'https://kubernetes.default.svc', namespace: 'x' } }),
  ).toThrow(/^environment.name = Prod: /);
  expect(
    () => new Environment({ name: 'prod', destination: { server: 'kubernetes.default.svc', namespace: 'x' } }),
  ).toThrow(/^environments.prod.destination.server = kubernetes.default.svc: Argo CD needs/);
  expect(
    () =>
      new Environment({ name: 'prod', destination: { server: 'https://kubernetes.default.svc', namespace: 'Shop_1' } }),
  ).toThrow(/^environments.prod.destination.namespace = Shop_1: /);
  const dev = new Environment({
    name: 'dev',
    destination: { server: 'https://kubernetes.default.svc', namespace: 'x' },
  });
  expect(() => addEstate(new App(), { environments: [dev, dev], services: {} })).toThrow(
    /^environments = dev: two environments with the same name/,
  );
  expect(() => declareOutputPath(new Chart(new App(), 'c'), '../outside.yaml')).toThrow(
    'output path of chart c "../outside.yaml" must be a relative file path inside the output folder',
  );
});

describe("one Cloud SQL instance in two environments (issue 24: dev's migration would run against prod's database)", () => {
  const server = 'https://kubernetes.default.svc';
  const platform = (env: string) =>
    new Platform({
      gateway: { name: 'public', namespace: 'envoy-gateway-system' },
      prometheusAddress: 'http://prometheus-operated.monitoring.svc:9090',
      runbookBaseUrl: `https://github.com/acme/deploy/blob/main/dist/${env}`,
      prometheusRuleLabels: { release: 'kube-prometheus-stack' },
      kubernetesVersion: KubernetesVersion.V1_33,
      argoCd: { repoURL: 'https://github.com/acme/deploy.git', path: `dist/${env}`, server },
    });
  /** orders-api (the proxy connects to acme-prod:europe-west1:orders, and a migration) in dev and prod; dev's adjust as given. */
  const estate = (
    devAdjust?: (p: HttpServiceProps) => HttpServiceProps,
    shared?: Record<string, string>,
    orders?: Partial<HttpServiceProps>,
  ) => {
    const app = new App({ outdir: path.join(root, 'out') });
    const props = { ...threeServices(threeServicesPlatform(KubernetesVersion.V1_33))['orders-api'], ...orders };
    return addEstate(app, {
      environments: [
        new Environment({
          name: 'dev',
          destination: { server, namespace: 'shop-dev' },
          platform: platform('dev'),
          sizing: Sizing.fixed(2, { peakRequestsPerSecond: 40 }),
          adjust: (p) => {
            const q = devAdjust ? devAdjust(p) : p;
            return { ...q, route: q.route && { ...q.route, hostnames: ['orders.dev.example.com'] } };
          },
        }),
        new Environment({ name: 'prod', destination: { server, namespace: 'shop' }, platform: platform('prod') }),
      ],
      services: { 'orders-api': props },
      sharedCloudSqlInstances: shared,
    });
  };

  test("without an adjust of its own, dev copies prod's instance: refused, naming the service, both environments, the instance, the migration and both fixes", () => {
    let error: unknown;
    try {
      estate();
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RollwiseInputError);
    expect((error as Error).message).toMatch(
      /^service orders-api \(prod-orders-api\/orders-api\): services\.orders-api\.sidecars\[0\] \(cloud-sql-proxy\) instance = acme-prod:europe-west1:orders: environments dev and prod both connect orders-api's Cloud SQL Auth Proxy to acme-prod:europe-west1:orders/,
    );
    expect((error as Error).message).toMatch(
      /Its migration Job, an Argo CD PreSync hook run at every sync of each environment, would change that one schema/,
    );
    expect((error as Error).message).toMatch(
      /Fix: give each environment its own instance in its adjust, e\.g\. in the dev Environment: adjust: .*a\.replace\(\/\^acme-prod:\/, '<its project>:'\).*sharedCloudSqlInstances: \{ 'acme-prod:europe-west1:orders': '<why>' \}/,
    );
  });

  test("dev's own instance (its adjust), or a declared shared instance, is accepted", () => {
    const own = estate((p) => ({
      ...p,
      sidecars: p.sidecars?.map((s) => ({ ...s, args: s.args?.map((a) => a.replace(/^acme-prod:/, 'acme-dev:')) })),
    }));
    expect(own.map((d) => `${d.environment.name} ${d.service.decisions.pod.sidecars[0].args?.slice(-1)[0]}`)).toEqual([
      'dev acme-dev:europe-west1:orders',
      'prod acme-prod:europe-west1:orders',
    ]);
    expect(() =>
      estate(undefined, {
        'acme-prod:europe-west1:orders': 'dev and prod use separate databases on one small instance',
      }),
    ).not.toThrow();
    expect(() => estate(undefined, { 'acme-prod:europe-west1:orders': 'ok' })).toThrow(
      /sharedCloudSqlInstances\["acme-prod:europe-west1:orders"\] = ok: an instance shared by environments must say why/,
    );
  });

  test('the instance given as CSQL_PROXY_INSTANCE_CONNECTION_NAME is read as the proxy reads it', () => {
    const base = threeServices(threeServicesPlatform(KubernetesVersion.V1_33))['orders-api'];
    const viaEnv = {
      sidecars: base.sidecars!.map((s) => ({
        ...s,
        args: s.args!.filter((a) => a.startsWith('--')),
        env: { CSQL_PROXY_INSTANCE_CONNECTION_NAME: EnvValue.fromValue('acme-prod:europe-west1:orders') },
      })),
    };
    expect(() => estate(undefined, undefined, viaEnv)).toThrow(
      /instance = acme-prod:europe-west1:orders: environments dev and prod/,
    );
  });
});
