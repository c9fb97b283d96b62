import { ArgoCdApplication } from './constructs/argo-cd-application';
import { CatalogInfo } from './constructs/catalog-info';
import { addEstate, Environment, Sizing } from './environments';
import { checkoutApiProps, examplePlatform } from './example';
import { RollwiseApp } from './synth/rollwise-app';

/**
 * The example estate's environments. dev runs 2 replicas per service at its own traffic (its
 * canary's volume gate is sized from it, docs/mechanisms.md#quiet-environments), on its own hostname;
 * prod runs the services as described.
 */
export function exampleEnvironments(): Environment[] {
  const server = 'https://kubernetes.default.svc';
  return [
    new Environment({
      name: 'dev',
      destination: { server, namespace: 'checkout-dev' },
      platform: examplePlatform('dev', server),
      // dev's own traffic (the integration tests and the team, measured at 40 req/s): without it a
      // canary is refused at synth, because the default gate would pause every dev release.
      sizing: Sizing.fixed(2, { peakRequestsPerSecond: 40 }),
      adjust: (props) => ({
        ...props,
        route: props.route && {
          ...props.route,
          hostnames: props.route.hostnames.map((h) => h.replace(/^([^.]+)\./, '$1.dev.')),
        },
      }),
    }),
    new Environment({
      name: 'prod',
      destination: { server, namespace: 'checkout' },
      platform: examplePlatform('prod', server),
      sizing: Sizing.asGiven(),
    }),
  ];
}

/**
 * The example app: checkout-api (src/example.ts) in every example environment, written to
 * `<outdir>/<env>/checkout-api.k8s.yaml`, and one Argo CD Application per service and environment
 * in `<outdir>/argocd/<env>/`, outside the folder it points at so it never applies itself, and the
 * service's Backstage entity beside its prod manifest (`<outdir>/prod/checkout-api.catalog-info.yaml`).
 */
export function buildApp(outdir?: string): RollwiseApp {
  const app = new RollwiseApp({ outdir });
  addEstate(app, {
    environments: exampleEnvironments(),
    services: { 'checkout-api': checkoutApiProps() },
    perService: ({ environment, name, service, chart: serviceChart }) => {
      const settings = environment.platform.argoCd;
      if (!settings) return;
      const chart = environment.addChart(app, `${name}-application`, {
        outputPath: `argocd/${environment.name}/${name}.k8s.yaml`,
      });
      const application = new ArgoCdApplication(chart, `${name}-${environment.name}`, { service, settings });
      // Backstage's catalog entity, beside the prod manifest (not in argocd/, which Argo CD applies)
      if (environment.name === 'prod')
        new CatalogInfo(serviceChart, 'catalog', {
          service,
          owner: 'team-checkout',
          system: 'shop',
          applications: [application],
        });
    },
  });
  return app;
}

// `cdk8s synth` runs this file with CDK8S_OUTDIR set (RollwiseApp.synth() writes it atomically,
// with reasons, runbooks and warnings); `rollwise synth` imports buildApp instead. Same files.
if (require.main === module) {
  buildApp().synth();
}
