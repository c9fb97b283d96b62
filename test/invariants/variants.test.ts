import { Chart, Testing } from 'cdk8s';
import { HttpService, HttpServiceProps } from '../../src/constructs/http-service';
import { Delivery } from '../../src/decisions/canary';
import { Platform, ShutdownDelay } from '../../src/decisions/platform';
import { checkoutApiProps, examplePlatform } from '../../src/example';
import { checkInvariants } from '../../src/invariants/invariants';
import { Json } from '../../src/rules/k8s';

const p = examplePlatform();
const platform = (shutdownDelay: ShutdownDelay) =>
  new Platform({
    gateway: p.gateway,
    prometheusAddress: p.prometheusAddress,
    runbookBaseUrl: p.runbookBaseUrl,
    shutdownDelay,
  });
const because = 'this cluster bills by limit; throttling measured at 0.3 %';

/** Every shape of the golden path synthesizes and satisfies every invariant, unpatched. */
const VARIANTS: Record<string, Partial<HttpServiceProps>> = {
  'canary (default)': {},
  'rolling update': { delivery: Delivery.rollingUpdate(), route: undefined },
  autoscaling: { autoscaling: { maxReplicas: 24, targetCpuUtilisationPercent: 70 } },
  'rolling update with autoscaling': {
    delivery: Delivery.rollingUpdate(),
    route: undefined,
    autoscaling: { maxReplicas: 24, targetCpuUtilisationPercent: 70 },
  },
  'shutdown delay in the application': { platform: platform(ShutdownDelay.inApplication()) },
  'shutdown delay by httpGet': { platform: platform(ShutdownDelay.httpGet('/drain')) },
  'shutdown delay by /bin/sleep': { platform: platform(ShutdownDelay.execSleep('/bin/sleep')) },
  'liveness path and passive health checks': {
    health: { readinessPath: '/healthz', livenessPath: '/livez' },
    passiveHealthCheck: true,
  },
  'a CPU limit overridden with a reason': { overrides: { cpuLimit: { value: '1', because } } },
  'wildcard hostname': { route: { hostnames: ['*.checkout.example.com'] } },
};

test.each(Object.keys(VARIANTS))('%s: synthesizes and holds every invariant', (name) => {
  const app = Testing.app();
  const svc = new HttpService(new Chart(app, 'test', { namespace: 'checkout' }), 'checkout-api', {
    ...checkoutApiProps(),
    ...VARIANTS[name],
  });
  const out = Testing.synth(svc.node.scope as Chart) as Json[];
  expect(
    checkInvariants({
      objects: out,
      endpointPropagationSeconds: svc.platform.endpointPropagationSeconds.value,
      shutdownInApplication: svc.decisions.shutdown.delay.kind === 'app',
    }).map((f) => `${f.invariant.id} ${f.path}`),
  ).toEqual([]);
});
