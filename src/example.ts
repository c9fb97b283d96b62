import { Duration } from 'cdk8s';
import { HttpServiceProps } from './constructs/http-service';
import { EnvValue } from './decisions/containers';
import { AppServer } from './decisions/keep-alive';
import { Platform } from './decisions/platform';

/**
 * The platform settings of the example organisation (one Gateway, one Prometheus, one deploy repo),
 * for the output folder `dist/<env>` of an environment, or `dist` without one.
 */
export function examplePlatform(env?: string, server?: string): Platform {
  const path = env ? `dist/${env}` : 'dist';
  return new Platform({
    gateway: { name: 'public', namespace: 'envoy-gateway-system' },
    prometheusAddress: 'http://prometheus-operated.monitoring.svc:9090',
    argoCd: { repoURL: 'https://github.com/acme/deploy.git', path, server },
    runbookBaseUrl: `https://github.com/acme/deploy/blob/main/${path}`,
    prometheusRuleLabels: { release: 'kube-prometheus-stack' },
  });
}

/** checkout-api, the example service of docs/mechanisms.md, as a team would describe it. */
export function checkoutApiProps(): HttpServiceProps {
  return {
    image: 'ghcr.io/acme/checkout-api:1.4.2',
    port: 8080,
    replicas: 12,
    health: { readinessPath: '/healthz', readinessP99UnderLoad: Duration.millis(250) },
    resources: { cpu: '250m', memory: '512Mi' },
    appServer: AppServer.uvicorn(),
    container: {
      env: {
        DATABASE_URL: EnvValue.fromSecret('checkout-db', 'url'),
        LOG_LEVEL: EnvValue.fromValue('info'),
        POD_NAME: EnvValue.fromField('metadata.name'),
      },
      // The image's USER is "app" (a name), which runAsNonRoot cannot verify: give its uid.
      runAs: { user: 10001 },
    },
    pod: { serviceAccount: { name: 'checkout-api' } },
    capacity: { peakRequestsPerSecond: 3700, saturationRequestsPerSecondPerReplica: 450 },
    route: { hostnames: ['checkout.example.com'] },
    platform: examplePlatform(),
  };
}
