import { App } from 'cdk8s';
import * as YAML from 'yaml';
import {
  componentEntityV1alpha1Validator,
  DefaultNamespaceEntityPolicy,
  Entity,
  EntityPolicies,
  FieldFormatEntityPolicy,
  NoForeignRootFieldsEntityPolicy,
  SchemaValidEntityPolicy,
} from '@backstage/catalog-model';
import { ArgoCdApplication } from '../../src/constructs/argo-cd-application';
import { CatalogInfo } from '../../src/constructs/catalog-info';
import { addEstate, DeployedService } from '../../src/environments';
import { checkoutApiProps } from '../../src/example';
import { exampleEnvironments } from '../../src/main';
import { outputFileEntriesOf } from '../../src/synth/output';

/**
 * catalog-info.yaml for Backstage (issue 24), checked by the validators Backstage's catalog runs:
 * the entity policies of its processing (@backstage/catalog-model EntityPolicies: default
 * namespace, no foreign root fields, field formats, the envelope schema) and the Component kind's schema.
 */
const policy = EntityPolicies.allOf([
  new DefaultNamespaceEntityPolicy(),
  new NoForeignRootFieldsEntityPolicy(),
  new FieldFormatEntityPolicy(),
  new SchemaValidEntityPolicy(),
]);
async function valid(entity: unknown): Promise<boolean> {
  const e = await policy.enforce(entity as Entity);
  return componentEntityV1alpha1Validator.check(e as Entity);
}

function estate(catalog: (d: DeployedService, apps: ArgoCdApplication[]) => void): App {
  const app = new App({ outdir: '/tmp/rollwise-catalog-unused' });
  const apps: ArgoCdApplication[] = [];
  addEstate(app, {
    environments: exampleEnvironments(),
    services: { 'checkout-api': checkoutApiProps() },
    perService: (d) => {
      const chart = d.environment.addChart(app, `${d.name}-application`, {
        outputPath: `argocd/${d.environment.name}/${d.name}.k8s.yaml`,
      });
      apps.push(
        new ArgoCdApplication(chart, `${d.name}-${d.environment.name}`, {
          service: d.service,
          settings: d.environment.platform.argoCd!,
        }),
      );
      catalog(d, apps);
    },
  });
  return app;
}

test("one entity per service beside its prod manifest: owner, runbook and Argo CD links, the plugins' annotations; Backstage's validators accept it", async () => {
  let info: CatalogInfo | undefined;
  const app = estate((d, apps) => {
    if (d.environment.name === 'prod')
      info = new CatalogInfo(d.chart, 'catalog', {
        service: d.service,
        owner: 'team-checkout',
        system: 'shop',
        applications: apps,
        argoCdUrl: 'https://argocd.example.com/',
      });
  });
  const file = outputFileEntriesOf(app).find((f) => f.relPath === 'checkout-api.catalog-info.yaml')!;
  expect(file).toBeDefined();
  const entity = YAML.parse(file.content);
  expect(entity).toEqual(info!.entity);
  expect(entity).toEqual({
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'Component',
    metadata: {
      name: 'checkout-api',
      annotations: {
        'backstage.io/kubernetes-label-selector': 'app.kubernetes.io/name=checkout-api',
        'backstage.io/kubernetes-namespace': 'checkout',
        'argocd/app-selector': 'rollwise.dev/service=checkout-api',
      },
      links: [
        {
          url: 'https://github.com/acme/deploy/blob/main/dist/prod/checkout-api.runbook.md',
          title: 'Runbook (checkout)',
          icon: 'docs',
        },
        {
          url: 'https://argocd.example.com/applications/argocd/checkout-api-dev',
          title: 'Argo CD: checkout-api-dev',
          icon: 'dashboard',
        },
        {
          url: 'https://argocd.example.com/applications/argocd/checkout-api-prod',
          title: 'Argo CD: checkout-api-prod',
          icon: 'dashboard',
        },
      ],
    },
    spec: { type: 'service', lifecycle: 'production', owner: 'team-checkout', system: 'shop' },
  });
  expect(await valid(entity)).toBe(true);
  // the selector finds every Application of the service, in each environment
  const labels = app.node
    .findAll()
    .filter((c): c is ArgoCdApplication => c instanceof ArgoCdApplication)
    .map(
      (a) =>
        (a.application.toJson() as { metadata: { labels: Record<string, string> } }).metadata.labels[
          'rollwise.dev/service'
        ],
    );
  expect(labels).toEqual(['checkout-api', 'checkout-api']);
});

test('one Application: argocd/app-name; the validators themselves refuse what Backstage would', async () => {
  let info: CatalogInfo | undefined;
  estate((d, apps) => {
    if (d.environment.name === 'dev')
      info = new CatalogInfo(d.chart, 'catalog', {
        service: d.service,
        owner: 'group:default/team-checkout',
        applications: [apps[0]],
      });
  });
  expect(info!.entity).toMatchObject({ metadata: { annotations: { 'argocd/app-name': 'checkout-api-dev' } } });
  expect(await valid(info!.entity)).toBe(true);
  // the validator is not a rubber stamp
  await expect(valid({ ...info!.entity, spec: { type: 'service', owner: 'x' } })).rejects.toThrow(/lifecycle/);
  await expect(valid({ ...info!.entity, metadata: { name: 'checkout api' } })).rejects.toThrow(/name/);
});

test('an owner that is no entity reference is refused, naming it', () => {
  expect(() =>
    estate((d) => {
      new CatalogInfo(d.chart, 'catalog', { service: d.service, owner: 'Team Checkout' });
    }),
  ).toThrow(/catalog\.owner = Team Checkout: is not a Backstage entity reference/);
});

test("issue 24: in the Applications' chart (whose folder is applied to the cluster) it is refused, naming the chart and the perService chart to use", () => {
  const app = new App({ outdir: '/tmp/rollwise-catalog-unused' });
  addEstate(app, {
    environments: exampleEnvironments(),
    services: { 'checkout-api': checkoutApiProps() },
    perService: (d) => {
      const chart = d.environment.addChart(app, `${d.name}-application`, {
        outputPath: `argocd/${d.environment.name}/${d.name}.k8s.yaml`,
      });
      const application = new ArgoCdApplication(chart, `${d.name}-${d.environment.name}`, {
        service: d.service,
        settings: d.environment.platform.argoCd!,
      });
      if (d.environment.name === 'prod')
        new CatalogInfo(chart, 'catalog', { service: d.service, owner: 'team-checkout', applications: [application] });
    },
  });
  expect(() => app.synth()).toThrow(
    /CatalogInfo checkout-api: it is in chart prod-checkout-api-application, which holds the Argo CD Application\(s\) prod-checkout-api-application\/checkout-api-prod, so checkout-api\.catalog-info\.yaml would be written beside them and applied with them as a Kubernetes object.*Fix: create it in the service's own chart, the `chart` addEstate's perService receives/,
  );
  // in the service's chart (the example's) it synthesizes
  expect(() =>
    estate((d, apps) => {
      if (d.environment.name === 'prod')
        new CatalogInfo(d.chart, 'catalog', { service: d.service, owner: 'team-checkout', applications: apps });
    }).synth(),
  ).not.toThrow();
});
