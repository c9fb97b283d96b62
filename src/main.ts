import { App, Chart, Duration } from 'cdk8s';
import { HttpService } from './constructs/http-service';
import { synthesize } from './synth/synth';

/** The example service: checkout-api, as described in the field notes. */
export function buildApp(outdir?: string): App {
  const app = new App({ outdir });
  const chart = new Chart(app, 'checkout-api', { namespace: 'checkout' });
  new HttpService(chart, 'checkout-api', {
    image: 'ghcr.io/acme/checkout-api:1.4.2',
    port: 8080,
    replicas: 12,
    health: { readinessPath: '/healthz', readinessP99UnderLoad: Duration.millis(250) },
    resources: { cpu: '250m', memory: '512Mi' },
    capacity: { peakRequestsPerSecond: 3700, saturationRequestsPerSecondPerReplica: 450 },
  });
  return app;
}

// `cdk8s synth` runs this file with CDK8S_OUTDIR set; `rollwise synth` imports buildApp instead.
if (require.main === module) {
  synthesize(buildApp, { outdir: process.env.CDK8S_OUTDIR ?? 'dist' });
}
