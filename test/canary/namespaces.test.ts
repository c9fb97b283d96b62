import { App, Chart, Testing } from 'cdk8s';
import * as YAML from 'yaml';
import { ArgoCdApplication } from '../../src/constructs/argo-cd-application';
import { HttpService } from '../../src/constructs/http-service';
import { ServiceNamespace } from '../../src/constructs/service-namespace';
import { Delivery } from '../../src/decisions/canary';
import { KubernetesVersion } from '../../src/decisions/kubernetes-version';
import { NamespacePolicy } from '../../src/decisions/namespaces';
import { Platform } from '../../src/decisions/platform';
import { checkoutApiProps, examplePlatform } from '../../src/example';
import { Environment } from '../../src/environments';
import { SchemaValidator } from '../../src/schemas/validator';
import { warningsOf } from '../../src/synth/output';
import { main } from '../../src/cli/main';
import { Manifest, workload } from '../support/manifests';

/** One namespace everywhere (issue 24): the objects, the plugin config, the analysis, the alerts and the Application. */
const settings = examplePlatform().argoCd!;

function deploy(opts: { chartNamespace?: string; destinationNamespace?: string; namespacePolicy?: NamespacePolicy } = {}): { svc: Manifest[]; app: Manifest } {
  const app = Testing.app();
  const chart = new Chart(app, 'orders-api', opts.chartNamespace ? { namespace: opts.chartNamespace } : {});
  const service = new HttpService(chart, 'orders-api', checkoutApiProps());
  const apps = new Chart(app, 'apps');
  new ArgoCdApplication(apps, 'orders-api-prod', { service, settings, destinationNamespace: opts.destinationNamespace, namespacePolicy: opts.namespacePolicy });
  return { svc: Testing.synth(chart) as Manifest[], app: (Testing.synth(apps) as Manifest[])[0] };
}

/** Every namespace a manifest names: metadata, the plugin config, PromQL label matchers, Envoy cluster names. */
function namespacesNamed(objs: Manifest[]): Set<string> {
  const out = new Set<string>();
  const text = JSON.stringify(objs);
  for (const m of text.matchAll(/namespace=\\"([a-z0-9-]+)\\"/g)) out.add(m[1]);
  for (const m of text.matchAll(/httproute\/([a-z0-9-]+)\//g)) out.add(m[1]);
  const visit = (v: unknown, key?: string) => {
    if (key === 'namespace' && typeof v === 'string') out.add(v);
    if (Array.isArray(v)) v.forEach((x) => visit(x));
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) visit(x, k);
  };
  visit(objs.map((o) => ({ ...o, spec: { ...o.spec, parentRefs: undefined } })));
  return out;
}

describe('a chart without a namespace, deployed by an Argo CD Application to shop', () => {
  test('is refused at the service, before the plugin config and the analysis could look in "default"', () => {
    expect(() => deploy({ destinationNamespace: 'shop' })).toThrow(/namespace = unset: .*traffic-router plugin config names the HTTPRoute's namespace.*would look in "default".*Fix: give the chart a namespace/);
  });

  test('with the chart in shop, every object, the plugin config, the analysis, the alerts and the Application say shop', () => {
    const { svc, app } = deploy({ chartNamespace: 'shop' });
    const gatewayNamespace = 'envoy-gateway-system';
    expect([...namespacesNamed(svc)].filter((n) => n !== gatewayNamespace)).toEqual(['shop']);
    expect(workload(svc).spec.strategy.canary.trafficRouting.plugins['argoproj-labs/gatewayAPI']).toEqual({ httpRoute: 'orders-api', namespace: 'shop' });
    expect(app.spec.destination.namespace).toBe('shop');
  });

  test('a destination namespace other than the service\'s is refused, naming both', () => {
    expect(() => deploy({ chartNamespace: 'shop', destinationNamespace: 'payments' })).toThrow(/destinationNamespace = payments: the service's objects name namespace shop.*Fix: remove destinationNamespace, or give the service's chart the namespace payments/);
  });
});

describe('how the namespace comes to exist', () => {
  const validator = SchemaValidator.load();

  test('by default Argo CD creates it before the PreSync hooks, with the Pod Security labels, schema-valid', () => {
    const { app } = deploy({ chartNamespace: 'shop' });
    expect(validator.validate(app)).toEqual([]);
    expect(app.spec.syncPolicy.syncOptions).toEqual(['ApplyOutOfSyncOnly=true', 'CreateNamespace=true']);
    expect(app.spec.syncPolicy.managedNamespaceMetadata).toEqual({ labels: {
      'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'v1.28',
      'pod-security.kubernetes.io/warn': 'restricted', 'pod-security.kubernetes.io/warn-version': 'latest',
      'pod-security.kubernetes.io/audit': 'restricted', 'pod-security.kubernetes.io/audit-version': 'latest',
    } });
    const reasons = app.metadata.annotations?.['rollwise.dev/reasons'] ?? '';
    expect(reasons).toMatch(/spec\.syncPolicy\.syncOptions: CreateNamespace=true: Argo CD creates shop when it is missing, in the PreSync phase before any hook/);
    expect(reasons).toMatch(/spec\.syncPolicy\.managedNamespaceMetadata\.labels: Pod Security admission enforces "restricted"/);
  });

  test('NamespacePolicy.existing(): no CreateNamespace, no namespace metadata', () => {
    const { app } = deploy({ chartNamespace: 'shop', namespacePolicy: NamespacePolicy.existing() });
    expect(app.spec.syncPolicy.syncOptions).toEqual(['ApplyOutOfSyncOnly=true']);
    expect(app.spec.syncPolicy.managedNamespaceMetadata).toBeUndefined();
    expect(app.metadata.annotations?.['rollwise.dev/reasons']).toMatch(/Namespace shop exists and is managed elsewhere \(NamespacePolicy\.existing\(\)\)/);
  });

  test('a level and labels of the platform\'s own; a wrong level or a Pod Security label among them is refused', () => {
    const { app } = deploy({ chartNamespace: 'shop', namespacePolicy: NamespacePolicy.createdByArgoCd({ podSecurity: 'baseline', labels: { team: 'shop' } }) });
    expect(app.spec.syncPolicy.managedNamespaceMetadata.labels).toMatchObject({ team: 'shop', 'pod-security.kubernetes.io/enforce': 'baseline' });
    expect(() => deploy({ chartNamespace: 'shop', namespacePolicy: NamespacePolicy.createdByArgoCd({ podSecurity: 'strict' as never }) })).toThrow(/namespacePolicy\.podSecurity = strict: is not a Pod Security Standards level/);
    expect(() => deploy({ chartNamespace: 'shop', namespacePolicy: NamespacePolicy.createdByArgoCd({ labels: { 'pod-security.kubernetes.io/enforce': 'privileged' } }) })).toThrow(/rollwise sets the Pod Security labels from podSecurity/);
  });

  test('a Namespace object (rollwise platform --namespace, ServiceNamespace) has the same labels and is never pruned or deleted by Argo CD', async () => {
    const app = Testing.app();
    const chart = new Chart(app, 'ns');
    new ServiceNamespace(chart, 'shop', { name: 'shop', kubernetesVersion: KubernetesVersion.V1_33 });
    const [ns] = Testing.synth(chart) as Manifest[];
    expect(SchemaValidator.load(undefined, KubernetesVersion.V1_33).validate(ns)).toEqual([]);
    expect(ns.metadata.labels).toMatchObject({ 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'v1.33' });
    expect(ns.metadata.annotations?.['argocd.argoproj.io/sync-options']).toBe('Prune=false,Delete=false');
    let out = '';
    let err = '';
    const code = await main(['node', 'rollwise', 'platform', '--namespace', 'shop', '--namespace', 'shop-dev'], (t) => { out += t; }, (t) => { err += t; });
    expect(code).toBe(0);
    const docs = YAML.parseAllDocuments(out).map((d) => d.toJS() as Manifest).filter((o) => o.kind === 'Namespace');
    expect(docs.map((d) => `${d.metadata.name} ${d.metadata.labels?.['pod-security.kubernetes.io/enforce']}`)).toEqual(['shop restricted', 'shop-dev restricted']);
    expect(err).toMatch(/warning: .*downloaded by the Argo Rollouts controller at every start without a checksum/);
  });
});

describe('two services in one namespace (Argo CD keeps each Application\'s labels on it at every sync)', () => {
  /** Two services in shop, each with its Application and namespace policy; the synth error, or ''. */
  const twoServices = (web: NamespacePolicy | undefined, orders: NamespacePolicy | undefined, webNamespace = 'shop'): string => {
    const app = Testing.app();
    const deployed = (name: string, ns: string, host: string, policy: NamespacePolicy | undefined) => {
      const chart = new Chart(app, name, { namespace: ns });
      const service = new HttpService(chart, name, { ...checkoutApiProps(), route: { hostnames: [host] } });
      new ArgoCdApplication(new Chart(app, `${name}-apps`), `${name}-prod`, { service, settings, namespacePolicy: policy });
    };
    deployed('web-front', webNamespace, 'www.example.com', web);
    deployed('orders-api', 'shop', 'orders.example.com', orders);
    try {
      for (const c of app.charts) Testing.synth(c);
    } catch (e) {
      return (e as Error).message;
    }
    return '';
  };

  test('different NamespacePolicy labels (baseline and a team label vs the default restricted): an error naming both services', () => {
    const error = twoServices(NamespacePolicy.createdByArgoCd({ podSecurity: 'baseline', labels: { team: 'web' } }), undefined);
    expect(error).toMatch(/Namespace shop on cluster https:\/\/kubernetes\.default\.svc: services web-front\/web-front \(Application web-front-apps\/web-front-prod\) and orders-api\/orders-api \(Application orders-api-apps\/orders-api-prod\) keep different labels on it/);
    expect(error).toMatch(/pod-security\.kubernetes\.io\/enforce: baseline vs restricted.*team: web vs \(absent\)/);
    expect(error).toMatch(/the Pod Security level flips with every sync.*Fix: give every service in the namespace one NamespacePolicy/);
  });

  test('the same policy, policies in different namespaces, or NamespacePolicy.existing() beside one that keeps labels: no conflict', () => {
    const same = () => NamespacePolicy.createdByArgoCd({ podSecurity: 'baseline', labels: { team: 'shop' } });
    expect(twoServices(same(), same())).toBe('');
    expect(twoServices(NamespacePolicy.createdByArgoCd({ podSecurity: 'baseline' }), undefined, 'web')).toBe('');
    expect(twoServices(NamespacePolicy.existing(), undefined)).toBe('');
  });

  test('the reason carries Argo CD\'s caveat on adopting a namespace whose labels were applied client-side', () => {
    const { app } = deploy({ chartNamespace: 'shop' });
    expect(app.metadata.annotations?.['rollwise.dev/reasons']).toMatch(/labels applied client-side \(kubectl apply without --server-side\) must first be upgraded to server-side apply, or Argo CD may remove its existing labels \(argo-cd v3\.5\.1 docs\/user-guide\/sync-options\.md "Namespace Metadata"\)/);
  });
});

describe('the Application applies the service\'s own file', () => {
  test('include is derived from the service\'s chart: its declared path in an environment, else the name cdk8s gives the chart', () => {
    const app = new App({ outdir: '/tmp/rollwise-unused' });
    const env = new Environment({ name: 'prod', destination: { server: 'https://kubernetes.default.svc', namespace: 'shop' }, platform: examplePlatform('prod') });
    const deployed = env.addService(app, 'orders-api', checkoutApiProps());
    const apps = env.addChart(app, 'apps', { outputPath: 'argocd/prod/apps.k8s.yaml' });
    const a = new ArgoCdApplication(apps, 'orders-api-prod', { service: deployed.service, settings: env.platform.argoCd! });
    expect(a.application.toJson().spec.source.directory.include).toBe('orders-api.k8s.yaml');
    const flat = Testing.app();
    const service = new HttpService(new Chart(flat, 'checkout', { namespace: 'checkout' }), 'checkout-api', checkoutApiProps());
    const b = new ArgoCdApplication(new Chart(flat, 'apps'), 'checkout-api', { service, settings });
    expect(b.application.toJson().spec.source.directory.include).toBe('checkout.k8s.yaml');
  });
});

describe('a PrometheusRule nobody selects', () => {
  test('without prometheusRuleLabels synth warns, naming kube-prometheus-stack\'s default selector; with them it does not', () => {
    const run = (labels?: Record<string, string>) => {
      const app = Testing.app();
      const platform = new Platform({ gateway: { name: 'public', namespace: 'envoy-gateway-system' }, prometheusAddress: 'http://prometheus-operated.monitoring.svc:9090', runbookBaseUrl: 'https://github.com/acme/deploy/blob/main/dist', prometheusRuleLabels: labels });
      new HttpService(new Chart(app, 'c', { namespace: 'shop' }), 'web', { ...checkoutApiProps(), platform, delivery: Delivery.rollingUpdate(), route: undefined });
      return warningsOf(app).join('\n');
    };
    expect(run()).toMatch(/platform\.prometheusRuleLabels is not set.*kube-prometheus-stack's Prometheus selects rules by the label release: <its Helm release name> \(ruleSelectorNilUsesHelmValues: true by default/);
    expect(run({ release: 'kube-prometheus-stack' })).not.toMatch(/prometheusRuleLabels/);
  });
});
