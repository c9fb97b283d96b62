import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Chart, Testing } from 'cdk8s';
import { RollwiseApp } from '../../src/synth/rollwise-app';
import * as YAML from 'yaml';
import { ArgoCdApplication } from '../../src/constructs/argo-cd-application';
import { HttpService } from '../../src/constructs/http-service';
import { ServiceNamespace } from '../../src/constructs/service-namespace';
import { Delivery } from '../../src/decisions/canary';
import { KubernetesVersion } from '../../src/decisions/kubernetes-version';
import { NamespacePolicy, objectsThePodNeeds } from '../../src/decisions/namespaces';
import { Migration } from '../../src/decisions/migrations';
import { EnvFrom, EnvValue, Volume } from '../../src/decisions/containers';
import { formatInputError, RollwiseInputError } from '../../src/errors';
import { Platform } from '../../src/decisions/platform';
import { checkoutApiProps, examplePlatform } from '../../src/example';
import { Environment } from '../../src/environments';
import { SchemaValidator } from '../../src/schemas/validator';
import { warningsOf } from '../../src/synth/output';
import { main } from '../../src/cli/main';
import { Manifest, workload } from '../support/manifests';

/** One namespace everywhere (issue 24): the objects, the plugin config, the analysis, the alerts and the Application. */
const settings = examplePlatform().argoCd!;

function deploy(
  opts: { chartNamespace?: string; destinationNamespace?: string; namespacePolicy?: NamespacePolicy } = {},
): { svc: Manifest[]; app: Manifest } {
  const app = Testing.app();
  const chart = new Chart(app, 'orders-api', opts.chartNamespace ? { namespace: opts.chartNamespace } : {});
  const service = new HttpService(chart, 'orders-api', checkoutApiProps());
  const apps = new Chart(app, 'apps');
  new ArgoCdApplication(apps, 'orders-api-prod', {
    service,
    settings,
    destinationNamespace: opts.destinationNamespace,
    namespacePolicy: opts.namespacePolicy,
  });
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

describe("the Application's directory.include reason (review of issue 24: it said the folder held the Applications, which are written to dist/argocd/<env>/)", () => {
  test('names the folder it deploys and what else is written there, not the Applications', () => {
    const { app } = deploy({ chartNamespace: 'shop' });
    const reasons = app.metadata.annotations?.['rollwise.dev/reasons'] ?? '';
    expect(reasons).toMatch(
      /spec\.source\.directory\.include: Only the service's own file \(orders-api\.k8s\.yaml, the file its chart is written to\): the folder dist is the whole environment's, where the other services' manifests and the Backstage catalog-info\.yaml files are written too, which must not be applied into shop\./,
    );
    expect(reasons).not.toMatch(/Applications themselves/);
    // near miss: the folder is the one the Application deploys, and it is not where the Applications are
    expect(settings.path).toBe('dist');
    expect(app.spec.source.directory).toEqual({ include: 'orders-api.k8s.yaml' });
  });
});

describe('a chart without a namespace, deployed by an Argo CD Application to shop', () => {
  test('is refused at the service, before the plugin config and the analysis could look in "default"', () => {
    expect(() => deploy({ destinationNamespace: 'shop' })).toThrow(
      /namespace = unset: .*traffic-router plugin config names the HTTPRoute's namespace.*would look in "default".*Fix: give the chart a namespace/,
    );
  });

  test('with the chart in shop, every object, the plugin config, the analysis, the alerts and the Application say shop', () => {
    const { svc, app } = deploy({ chartNamespace: 'shop' });
    const gatewayNamespace = 'envoy-gateway-system';
    expect([...namespacesNamed(svc)].filter((n) => n !== gatewayNamespace)).toEqual(['shop']);
    expect(workload(svc).spec.strategy.canary.trafficRouting.plugins['argoproj-labs/gatewayAPI']).toEqual({
      httpRoute: 'orders-api',
      namespace: 'shop',
    });
    expect(app.spec.destination.namespace).toBe('shop');
  });

  test("a destination namespace other than the service's is refused, naming both, the service and the Application's construct path", () => {
    expect(() => deploy({ chartNamespace: 'shop', destinationNamespace: 'payments' })).toThrow(
      /^service orders-api \(apps\/orders-api-prod\): destinationNamespace = payments: the service's objects name namespace shop.*Fix: remove destinationNamespace, or give the service's chart the namespace payments/,
    );
    let error: unknown;
    try {
      deploy({ chartNamespace: 'shop', destinationNamespace: 'payments' });
    } catch (e) {
      error = e;
    }
    expect(formatInputError(error as RollwiseInputError)).toMatch(
      /^rollwise: invalid input in service orders-api \(apps\/orders-api-prod\)\n {2}destinationNamespace = payments\n/,
    );
  });
});

describe('how the namespace comes to exist', () => {
  const validator = SchemaValidator.load();

  test('by default Argo CD creates it before the PreSync hooks, with the Pod Security labels, schema-valid', () => {
    const { app } = deploy({ chartNamespace: 'shop' });
    expect(validator.validate(app)).toEqual([]);
    expect(app.spec.syncPolicy.syncOptions).toEqual(['ApplyOutOfSyncOnly=true', 'CreateNamespace=true']);
    expect(app.spec.syncPolicy.managedNamespaceMetadata).toEqual({
      labels: {
        'pod-security.kubernetes.io/enforce': 'restricted',
        'pod-security.kubernetes.io/enforce-version': 'v1.28',
        'pod-security.kubernetes.io/warn': 'restricted',
        'pod-security.kubernetes.io/warn-version': 'latest',
        'pod-security.kubernetes.io/audit': 'restricted',
        'pod-security.kubernetes.io/audit-version': 'latest',
      },
    });
    const reasons = app.metadata.annotations?.['rollwise.dev/reasons'] ?? '';
    expect(reasons).toMatch(
      /spec\.syncPolicy\.syncOptions: CreateNamespace=true: Argo CD creates shop when it is missing, in the PreSync phase before any hook/,
    );
    expect(reasons).toMatch(
      /spec\.syncPolicy\.managedNamespaceMetadata\.labels: Pod Security admission enforces "restricted"/,
    );
  });

  test('NamespacePolicy.existing(): no CreateNamespace, no namespace metadata', () => {
    const { app } = deploy({ chartNamespace: 'shop', namespacePolicy: NamespacePolicy.existing() });
    expect(app.spec.syncPolicy.syncOptions).toEqual(['ApplyOutOfSyncOnly=true']);
    expect(app.spec.syncPolicy.managedNamespaceMetadata).toBeUndefined();
    expect(app.metadata.annotations?.['rollwise.dev/reasons']).toMatch(
      /Namespace shop exists and is managed elsewhere \(NamespacePolicy\.existing\(\)\)/,
    );
  });

  test("a level and labels of the platform's own; a wrong level or a Pod Security label among them is refused", () => {
    const { app } = deploy({
      chartNamespace: 'shop',
      namespacePolicy: NamespacePolicy.createdByArgoCd({ podSecurity: 'baseline', labels: { team: 'shop' } }),
    });
    expect(app.spec.syncPolicy.managedNamespaceMetadata.labels).toMatchObject({
      team: 'shop',
      'pod-security.kubernetes.io/enforce': 'baseline',
    });
    expect(() =>
      deploy({
        chartNamespace: 'shop',
        namespacePolicy: NamespacePolicy.createdByArgoCd({ podSecurity: 'strict' as never }),
      }),
    ).toThrow(/namespacePolicy\.podSecurity = strict: is not a Pod Security Standards level/);
    expect(() =>
      deploy({
        chartNamespace: 'shop',
        namespacePolicy: NamespacePolicy.createdByArgoCd({
          labels: { 'pod-security.kubernetes.io/enforce': 'privileged' },
        }),
      }),
    ).toThrow(/rollwise sets the Pod Security labels from podSecurity/);
  });

  test('a Namespace object (rollwise platform --namespace, ServiceNamespace) has the same labels and is never pruned or deleted by Argo CD', async () => {
    const app = Testing.app();
    const chart = new Chart(app, 'ns');
    new ServiceNamespace(chart, 'shop', { name: 'shop', kubernetesVersion: KubernetesVersion.V1_33 });
    const [ns] = Testing.synth(chart) as Manifest[];
    expect(SchemaValidator.load(undefined, KubernetesVersion.V1_33).validate(ns)).toEqual([]);
    expect(ns.metadata.labels).toMatchObject({
      'pod-security.kubernetes.io/enforce': 'restricted',
      'pod-security.kubernetes.io/enforce-version': 'v1.33',
    });
    expect(ns.metadata.annotations?.['argocd.argoproj.io/sync-options']).toBe('Prune=false,Delete=false');
    let out = '';
    let err = '';
    const code = await main(
      ['node', 'rollwise', 'platform', '--namespace', 'shop', '--namespace', 'shop-dev'],
      (t) => {
        out += t;
      },
      (t) => {
        err += t;
      },
    );
    expect(code).toBe(0);
    const docs = YAML.parseAllDocuments(out)
      .map((d) => d.toJS() as Manifest)
      .filter((o) => o.kind === 'Namespace');
    expect(docs.map((d) => `${d.metadata.name} ${d.metadata.labels?.['pod-security.kubernetes.io/enforce']}`)).toEqual([
      'shop restricted',
      'shop-dev restricted',
    ]);
    expect(err).toMatch(/warning: .*downloaded by the Argo Rollouts controller at every start without a checksum/);
  });
});

describe("two services in one namespace (Argo CD keeps each Application's labels on it at every sync)", () => {
  /** Two services in shop, each with its Application and namespace policy; the synth error, or ''. */
  const twoServices = (
    web: NamespacePolicy | undefined,
    orders: NamespacePolicy | undefined,
    webNamespace = 'shop',
    rollwiseApp = false,
  ): string => {
    const app = rollwiseApp
      ? new RollwiseApp({ outdir: fs.mkdtempSync(path.join(os.tmpdir(), 'rw-ns-')) })
      : Testing.app();
    const deployed = (name: string, ns: string, host: string, policy: NamespacePolicy | undefined) => {
      const chart = new Chart(app, name, { namespace: ns });
      const service = new HttpService(chart, name, { ...checkoutApiProps(), route: { hostnames: [host] } });
      new ArgoCdApplication(new Chart(app, `${name}-apps`), `${name}-prod`, {
        service,
        settings,
        namespacePolicy: policy,
      });
    };
    deployed('web-front', webNamespace, 'www.example.com', web);
    deployed('orders-api', 'shop', 'orders.example.com', orders);
    try {
      if (app instanceof RollwiseApp) app.synthesize({ onWarning: () => undefined });
      else for (const c of app.charts) Testing.synth(c);
    } catch (e) {
      return (e as Error).message;
    } finally {
      if (app instanceof RollwiseApp) fs.rmSync(app.outdir, { recursive: true, force: true });
    }
    return '';
  };

  test('different NamespacePolicy labels (baseline and a team label vs the default restricted): an error naming both services', () => {
    const error = twoServices(
      NamespacePolicy.createdByArgoCd({ podSecurity: 'baseline', labels: { team: 'web' } }),
      undefined,
    );
    // issue 24: it names the construct paths of both Applications; under a RollwiseApp (rollwise
    // synth, cdk8s synth of a RollwiseApp) the error starts with them, not with an empty "[]"
    expect(error).toMatch(
      /\[web-front-apps\/web-front-prod, orders-api-apps\/orders-api-prod\] Namespace shop on cluster/,
    );
    expect(
      twoServices(
        NamespacePolicy.createdByArgoCd({ podSecurity: 'baseline', labels: { team: 'web' } }),
        undefined,
        'shop',
        true,
      ),
    ).toMatch(
      /^Validation failed with the following errors:\n {2}\[web-front-apps\/web-front-prod, orders-api-apps\/orders-api-prod\] Namespace shop on cluster https:\/\/kubernetes\.default\.svc: services web-front\/web-front/,
    );
    expect(error).toMatch(
      /Namespace shop on cluster https:\/\/kubernetes\.default\.svc: services web-front\/web-front \(Application web-front-apps\/web-front-prod\) and orders-api\/orders-api \(Application orders-api-apps\/orders-api-prod\) keep different labels on it/,
    );
    expect(error).toMatch(/pod-security\.kubernetes\.io\/enforce: baseline vs restricted.*team: web vs \(absent\)/);
    expect(error).toMatch(
      /the Pod Security level flips with every sync.*Fix: give every service in the namespace one NamespacePolicy/,
    );
  });

  test('the same policy, policies in different namespaces, or NamespacePolicy.existing() beside one that keeps labels: no conflict', () => {
    const same = () => NamespacePolicy.createdByArgoCd({ podSecurity: 'baseline', labels: { team: 'shop' } });
    expect(twoServices(same(), same())).toBe('');
    expect(twoServices(NamespacePolicy.createdByArgoCd({ podSecurity: 'baseline' }), undefined, 'web')).toBe('');
    expect(twoServices(NamespacePolicy.existing(), undefined)).toBe('');
  });

  test("the reason carries Argo CD's caveat on adopting a namespace whose labels were applied client-side", () => {
    const { app } = deploy({ chartNamespace: 'shop' });
    expect(app.metadata.annotations?.['rollwise.dev/reasons']).toMatch(
      /labels applied client-side \(kubectl apply without --server-side\) must first be upgraded to server-side apply, or Argo CD may remove its existing labels \(argo-cd v3\.5\.1 docs\/user-guide\/sync-options\.md "Namespace Metadata"\)/,
    );
  });
});

describe("the Application applies the service's own file", () => {
  test("include is derived from the service's chart: its declared path in an environment, else the name cdk8s gives the chart", () => {
    const app = new App({ outdir: '/tmp/rollwise-unused' });
    const env = new Environment({
      name: 'prod',
      destination: { server: 'https://kubernetes.default.svc', namespace: 'shop' },
      platform: examplePlatform('prod'),
    });
    const deployed = env.addService(app, 'orders-api', checkoutApiProps());
    const apps = env.addChart(app, 'apps', { outputPath: 'argocd/prod/apps.k8s.yaml' });
    const a = new ArgoCdApplication(apps, 'orders-api-prod', {
      service: deployed.service,
      settings: env.platform.argoCd!,
    });
    expect(a.application.toJson().spec.source.directory.include).toBe('orders-api.k8s.yaml');
    const flat = Testing.app();
    const service = new HttpService(
      new Chart(flat, 'checkout', { namespace: 'checkout' }),
      'checkout-api',
      checkoutApiProps(),
    );
    const b = new ArgoCdApplication(new Chart(flat, 'apps'), 'checkout-api', { service, settings });
    expect(b.application.toJson().spec.source.directory.include).toBe('checkout.k8s.yaml');
  });
});

describe('a PrometheusRule nobody selects', () => {
  test("without prometheusRuleLabels synth warns, naming kube-prometheus-stack's default selector; with them it does not", () => {
    const run = (labels?: Record<string, string>) => {
      const app = Testing.app();
      const platform = new Platform({
        gateway: { name: 'public', namespace: 'envoy-gateway-system' },
        prometheusAddress: 'http://prometheus-operated.monitoring.svc:9090',
        runbookBaseUrl: 'https://github.com/acme/deploy/blob/main/dist',
        prometheusRuleLabels: labels,
      });
      new HttpService(new Chart(app, 'c', { namespace: 'shop' }), 'web', {
        ...checkoutApiProps(),
        platform,
        delivery: Delivery.rollingUpdate(),
        route: undefined,
      });
      return warningsOf(app).join('\n');
    };
    expect(run()).toMatch(
      /platform\.prometheusRuleLabels is not set.*kube-prometheus-stack's Prometheus selects rules by the label release: <its Helm release name> \(ruleSelectorNilUsesHelmValues: true by default/,
    );
    expect(run({ release: 'kube-prometheus-stack' })).not.toMatch(/prometheusRuleLabels/);
  });
});

describe('a first sync with a migration (issue 24: the PreSync hook runs before anything of the Application exists)', () => {
  /** orders-api with a migration and `pod`/`container` as given, deployed by an Application with `policy`; the Application, or the error. */
  const withMigration = (
    props: Partial<ReturnType<typeof checkoutApiProps>>,
    policy?: NamespacePolicy,
    platformNamespaces?: NamespacePolicy,
  ): Manifest | Error => {
    const app = Testing.app();
    const chart = new Chart(app, 'orders-api', { namespace: 'shop' });
    const base = checkoutApiProps();
    const service = new HttpService(chart, 'orders-api', {
      ...base,
      container: { runAs: { user: 10001 } },
      pod: undefined,
      ...props,
      migrations: Migration.job({ command: ['python', 'manage.py', 'migrate', '--noinput'] }),
    });
    const apps = new Chart(app, 'apps');
    try {
      new ArgoCdApplication(apps, 'orders-api-prod', {
        service,
        settings: { ...settings, namespaces: platformNamespaces },
        namespacePolicy: policy,
      });
    } catch (e) {
      return e as Error;
    }
    return (Testing.synth(apps) as Manifest[])[0];
  };

  test('the default CreateNamespace with a migration that needs a ServiceAccount and a Secret is refused, naming them, the phase order and the fix', () => {
    const error = withMigration({
      pod: { serviceAccount: { name: 'orders-api' } },
      container: { runAs: { user: 10001 }, env: { DATABASE_PASSWORD: EnvValue.fromSecret('orders-db', 'password') } },
    });
    expect(error).toBeInstanceOf(RollwiseInputError);
    const text = formatInputError(error as RollwiseInputError);
    expect(text).toMatch(
      /^rollwise: invalid input in service orders-api \(apps\/orders-api-prod\)\n {2}namespacePolicy \(default\) = NamespacePolicy\.createdByArgoCd\(\) \(CreateNamespace=true\)\n/,
    );
    expect(text).toMatch(
      /why: the migration Job orders-api-migrate is an Argo CD PreSync hook and needs ServiceAccount orders-api, Secret orders-db in namespace shop, which rollwise does not create/,
    );
    expect(text).toMatch(
      /objects without a hook annotation belong to the Sync phase, which comes after: argo-cd v3\.5\.1 gitops-engine\/pkg\/sync\/sync_phase\.go, sync_tasks\.go syncPhaseOrder/,
    );
    expect(text).toMatch(
      /the Job waits until its deadline \(600 s, its activeDeadlineSeconds\), fails, and the sync stops/,
    );
    expect(text).toMatch(
      /fix: create shop and ServiceAccount orders-api, Secret orders-db before the first sync, outside this Application, and say so: namespaces: NamespacePolicy\.existing\(\) in platform\.argoCd.*`rollwise platform --namespace shop`/,
    );
  });

  test("the platform's argoCd.namespaces is named as the input when it is the policy", () => {
    const error = withMigration(
      { pod: { serviceAccount: { name: 'orders-api' } } },
      undefined,
      NamespacePolicy.createdByArgoCd({ podSecurity: 'baseline' }),
    );
    expect((error as RollwiseInputError).input).toBe('argoCd.namespaces');
    expect((error as RollwiseInputError).why).toMatch(/needs ServiceAccount orders-api in namespace shop/);
  });

  test('NamespacePolicy.existing() (the platform creates the namespace and what the migration needs) is accepted', () => {
    const a = withMigration(
      { pod: { serviceAccount: { name: 'orders-api' } } },
      NamespacePolicy.existing(),
    ) as Manifest;
    expect(a.spec.syncPolicy.syncOptions).toEqual(['ApplyOutOfSyncOnly=true']);
  });

  test('a migration that needs nothing in the namespace (no account, literal env, optional references) keeps CreateNamespace, and the reason says when it is refused', () => {
    const a = withMigration({
      container: {
        runAs: { user: 10001 },
        env: { LOG_LEVEL: EnvValue.fromValue('info'), EXTRA: EnvValue.fromSecret('maybe', 'x', { optional: true }) },
      },
    }) as Manifest;
    expect(a.spec.syncPolicy.syncOptions).toEqual(['ApplyOutOfSyncOnly=true', 'CreateNamespace=true']);
    expect(a.metadata.annotations?.['rollwise.dev/reasons']).toMatch(
      /a migration whose PreSync hook needs a ServiceAccount, Secret or ConfigMap in it is refused with this policy/,
    );
  });

  test("without a migration the default stays (the workload's pods are retried by their controller once the objects exist; no hook blocks the sync)", () => {
    const { app } = deploy({ chartNamespace: 'shop' });
    expect(app.spec.syncPolicy.syncOptions).toEqual(['ApplyOutOfSyncOnly=true', 'CreateNamespace=true']);
  });

  test('objectsThePodNeeds reads the account, pull secrets, env, envFrom, volumes and projected sources, skipping optional ones', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'w', { namespace: 'shop' });
    const service = new HttpService(chart, 'web', {
      ...checkoutApiProps(),
      container: {
        runAs: { user: 1000 },
        env: {
          A: EnvValue.fromSecret('s-env', 'k'),
          B: EnvValue.fromConfigMap('c-env', 'k'),
          C: EnvValue.fromConfigMap('c-opt', 'k', { optional: true }),
        },
        envFrom: [EnvFrom.secret('s-from'), EnvFrom.configMap('c-from')],
        mounts: [
          { volume: 'certs', path: '/certs' },
          { volume: 'conf', path: '/conf' },
        ],
      },
      pod: {
        serviceAccount: { name: 'web' },
        imagePullSecrets: ['pull'],
        volumes: [Volume.fromSecret('certs', 's-vol'), Volume.fromConfigMap('conf', 'c-vol')],
      },
      migrations: Migration.job({ command: ['migrate'] }),
    });
    expect(objectsThePodNeeds(service.migration!.job.toJson().spec.template.spec)).toEqual([
      'ServiceAccount web',
      'Secret pull',
      'Secret s-env',
      'ConfigMap c-env',
      'Secret s-from',
      'ConfigMap c-from',
      'Secret s-vol',
      'ConfigMap c-vol',
    ]);
    expect(
      objectsThePodNeeds({
        volumes: [
          {
            name: 'p',
            projected: { sources: [{ secret: { name: 'ps' } }, { configMap: { name: 'pc', optional: true } }] },
          },
          { name: 'd', persistentVolumeClaim: { claimName: 'data' } },
        ],
      }),
    ).toEqual(['Secret ps', 'PersistentVolumeClaim data']);
  });
});
