import { App, Chart } from 'cdk8s';
import { HttpService } from './constructs/http-service';
import { checkoutApiProps } from './example';
import { synthesize } from './synth/synth';

/** The example app: checkout-api (src/example.ts). */
export function buildApp(outdir?: string): App {
  const app = new App({ outdir });
  const chart = new Chart(app, 'checkout-api', { namespace: 'checkout' });
  new HttpService(chart, 'checkout-api', checkoutApiProps());
  return app;
}

// `cdk8s synth` runs this file with CDK8S_OUTDIR set; `rollwise synth` imports buildApp instead.
if (require.main === module) {
  synthesize(buildApp, { outdir: process.env.CDK8S_OUTDIR ?? 'dist' });
}
