import { ApiObject, App, Chart, Lazy } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { AppServer } from '../../src/decisions/keep-alive';
import { Delivery } from '../../src/decisions/canary';
import { HttpService } from '../../src/constructs/http-service';
import { checkoutApiProps } from '../../src/example';

/** Apps of several shapes; each call builds a fresh tree (synthesis adds dependencies to it). */
export const FIXTURES: Record<string, (outdir: string) => App> = {
  'plain objects, several per chart': (outdir) => {
    const app = new App({ outdir });
    for (const name of ['alpha', 'beta', 'gamma']) {
      const chart = new Chart(app, name, { namespace: `ns-${name}`, labels: { team: name } });
      for (let i = 0; i < 3; i++) {
        new ApiObject(chart, `cm${i}`, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          data: { index: String(i), text: 'multi\nline\n# not a comment\n', empty: '' },
        });
      }
      new ApiObject(chart, 'svc', {
        apiVersion: 'v1',
        kind: 'Service',
        spec: { ports: [{ port: 80 }], selector: { app: name } },
      } as never);
    }
    return app;
  },
  'dependencies between charts (indexed file names)': (outdir) => {
    const app = new App({ outdir });
    const base = new Chart(app, 'base');
    new ApiObject(base, 'ns', { apiVersion: 'v1', kind: 'Namespace' });
    const crds = new Chart(app, 'crds');
    new ApiObject(crds, 'crd', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { kind: 'Widget', plural: 'widgets' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
      },
    } as never);
    const apps = new Chart(app, 'apps');
    new ApiObject(apps, 'a', { apiVersion: 'v1', kind: 'ConfigMap' });
    new ApiObject(apps, 'b', { apiVersion: 'v1', kind: 'ConfigMap' });
    apps.addDependency(crds);
    crds.addDependency(base);
    new Chart(app, 'empty');
    return app;
  },
  'dependencies between objects, across charts and nested charts': (outdir) => {
    const app = new App({ outdir });
    const one = new Chart(app, 'one');
    const z = new ApiObject(one, 'z', { apiVersion: 'v1', kind: 'ConfigMap' });
    const y = new ApiObject(one, 'y', { apiVersion: 'v1', kind: 'Secret' });
    const x = new ApiObject(one, 'x', { apiVersion: 'v1', kind: 'Service' });
    x.addDependency(y);
    y.addDependency(z);
    const two = new Chart(app, 'two');
    const group = new Construct(two, 'group');
    const w = new ApiObject(group, 'w', { apiVersion: 'v1', kind: 'ConfigMap' });
    new ApiObject(group, 'v', { apiVersion: 'v1', kind: 'ConfigMap' });
    w.addDependency(x); // crosses charts: two depends on one, all of group's objects on all of one's
    const inner = new Chart(two, 'inner');
    new ApiObject(inner, 'u', { apiVersion: 'v1', kind: 'ConfigMap' });
    return app;
  },
  'integer-like chart ids (plain-object key order)': (outdir) => {
    const app = new App({ outdir });
    for (const id of ['b', '10', 'a', '2', '007'])
      new ApiObject(new Chart(app, id), 'obj', { apiVersion: 'v1', kind: 'ConfigMap', data: { id } });
    return app;
  },
  'Lazy values': (outdir) => {
    const app = new App({ outdir });
    const chart = new Chart(app, 'lazy');
    let replicas = 1;
    new ApiObject(chart, 'deploy', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      spec: {
        replicas: Lazy.any({ produce: () => replicas }),
        selector: { matchLabels: { app: 'lazy' } },
        template: {
          metadata: { labels: { app: 'lazy', v: Lazy.any({ produce: () => `v${replicas}` }) } },
          spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
        },
      },
    } as never);
    replicas = 4;
    return app;
  },
  'cdk8s-plus constructs': (outdir) => {
    const app = new App({ outdir });
    const chart = new Chart(app, 'plus', { namespace: 'web' });
    const cm = new kplus.ConfigMap(chart, 'config', { data: { 'app.conf': 'port=8080\n' } });
    const d = new kplus.Deployment(chart, 'web', {
      replicas: 3,
      containers: [{ image: 'nginx:1.27', portNumber: 8080, securityContext: { ensureNonRoot: false } }],
    });
    d.addVolume(kplus.Volume.fromConfigMap(chart, 'vol', cm));
    d.exposeViaService({ ports: [{ port: 80, targetPort: 8080 }] });
    new kplus.ServiceAccount(chart, 'sa');
    return app;
  },
  'HttpService (with reasons)': (outdir) => {
    const app = new App({ outdir });
    new HttpService(new Chart(app, 'checkout-api', { namespace: 'checkout' }), 'checkout-api', checkoutApiProps());
    const other = new Chart(app, 'payments', { namespace: 'payments' });
    new HttpService(other, 'payments', {
      image: 'ghcr.io/acme/payments:2.0.0',
      port: 9000,
      replicas: 3,
      health: { readinessPath: '/ready' },
      resources: { cpu: '500m', memory: '1Gi' },
      appServer: AppServer.nodeHttp(),
      delivery: Delivery.rollingUpdate(),
    });
    return app;
  },
};
