import { App, Chart } from 'cdk8s';
import { ArgoCdApplication } from './constructs/argo-cd-application';
import { HttpService } from './constructs/http-service';
import { checkoutApiProps } from './example';
import { synthesize } from './synth/synth';

/** The example app: checkout-api (src/example.ts) and its Argo CD Application. */
export function buildApp(outdir?: string): App {
  const app = new App({ outdir });
  const props = checkoutApiProps();
  const chart = new Chart(app, 'checkout-api', { namespace: 'checkout' });
  const service = new HttpService(chart, 'checkout-api', props);
  const settings = props.platform?.argoCd;
  if (settings) {
    const apps = new Chart(app, 'argocd-applications');
    new ArgoCdApplication(apps, 'checkout-api', { service, settings, include: 'checkout-api.k8s.yaml' });
  }
  return app;
}

// `cdk8s synth` runs this file with CDK8S_OUTDIR set; `rollwise synth` imports buildApp instead.
if (require.main === module) {
  synthesize(buildApp, { outdir: process.env.CDK8S_OUTDIR ?? 'dist' });
}
