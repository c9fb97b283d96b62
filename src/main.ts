import { App } from 'cdk8s';
import { Platform } from './decisions/platform';
import { addEstate, Environment, Sizing } from './environments';
import { checkoutApiProps } from './example';
import { synthesize } from './synth/synth';

/**
 * The example estate's environments. dev runs 2 replicas per service without the production
 * capacity figures; prod runs the services as described. Platform settings per environment
 * (gateway, Prometheus address, Argo CD) go into each `new Platform({...})`.
 */
export function exampleEnvironments(): Environment[] {
  return [
    new Environment({
      name: 'dev',
      destination: { server: 'https://kubernetes.default.svc', namespace: 'checkout-dev' },
      platform: new Platform({}),
      sizing: Sizing.fixed(2),
    }),
    new Environment({
      name: 'prod',
      destination: { server: 'https://kubernetes.default.svc', namespace: 'checkout' },
      platform: new Platform({}),
      sizing: Sizing.asGiven(),
    }),
  ];
}

/**
 * The example app: checkout-api (src/example.ts) in every example environment, written to
 * `<outdir>/<env>/checkout-api.k8s.yaml`.
 */
export function buildApp(outdir?: string): App {
  const app = new App({ outdir });
  addEstate(app, {
    environments: exampleEnvironments(),
    services: { 'checkout-api': checkoutApiProps() },
    // Per service and environment (e.g. its Argo CD Application, issue 3): add a `perService`
    // callback here; it gets { environment, name, chart, service, namespace }.
  });
  return app;
}

// `cdk8s synth` runs this file with CDK8S_OUTDIR set; `rollwise synth` imports buildApp instead.
if (require.main === module) {
  synthesize(buildApp, { outdir: process.env.CDK8S_OUTDIR ?? 'dist' });
}
