import { Duration } from 'cdk8s';
import { HttpServiceProps } from '../src/constructs/http-service';
import { Platform } from '../src/decisions/platform';
import { checkoutApiProps } from '../src/example';
import { RollwiseInputError } from '../src/errors';
import { synthService } from './support/manifests';

/**
 * The bad-input catalogue: each case names the input and value the message must contain, a
 * fragment of why it is unsafe, and a fragment of the fix.
 */
interface Case {
  readonly title: string;
  readonly props?: Partial<HttpServiceProps>;
  readonly id?: string;
  readonly build?: () => unknown;
  readonly input: string;
  readonly value: string;
  readonly why: RegExp;
  readonly fix: RegExp;
}

const base = checkoutApiProps();
const cases: Case[] = [
  { title: 'zero replicas', props: { replicas: 0 }, input: 'replicas', value: '0', why: /cannot survive a node drain/, fix: /at least 2 replicas/ },
  { title: 'negative replicas', props: { replicas: -3 }, input: 'replicas', value: '-3', why: /whole number from 2/, fix: /at least 2 replicas/ },
  { title: 'fractional replicas', props: { replicas: 2.5 }, input: 'replicas', value: '2.5', why: /whole number/, fix: /replicas/ },
  { title: 'port 0', props: { port: 0 }, input: 'port', value: '0', why: /from 1 to 65535/, fix: /port your server binds to/ },
  { title: 'port above 65535', props: { port: 70000 }, input: 'port', value: '70000', why: /from 1 to 65535/, fix: /e\.g\. 8080/ },
  { title: 'malformed CPU', props: { resources: { cpu: '250mc', memory: '512Mi' } }, input: 'resources.cpu', value: '250mc', why: /not a positive Kubernetes CPU quantity/, fix: /"250m"/ },
  { title: 'zero CPU', props: { resources: { cpu: '0', memory: '512Mi' } }, input: 'resources.cpu', value: '0', why: /positive/, fix: /millicores/ },
  { title: 'malformed memory', props: { resources: { cpu: '250m', memory: '512MB' } }, input: 'resources.memory', value: '512MB', why: /not a Kubernetes memory quantity/, fix: /"512Mi"/ },
  { title: 'memory without unit', props: { resources: { cpu: '250m', memory: '512' } }, input: 'resources.memory', value: '512', why: /below 16Mi.*OOM-killed/, fix: /"512Mi"/ },
  { title: 'p99 too slow for a probe', props: { health: { readinessPath: '/healthz', readinessP99UnderLoad: Duration.seconds(6) } }, input: 'health.readinessP99UnderLoad', value: '6 s', why: /would not fit below the 10 s probe period/, fix: /local memory read/ },
  { title: 'readiness calls a dependency', props: { health: { readinessPath: '/healthz', readinessCallsDependency: true } }, input: 'health.readinessCallsDependency', value: 'true', why: /every replica fail at the same moment/, fix: /local state only/ },
  { title: 'override without a reason', props: { overrides: { cpuLimit: { value: '500m', because: '' } } }, input: 'overrides.cpuLimit', value: '500m', why: /must carry its reason/, fix: /add because:/ },
  { title: 'override with a placeholder reason', props: { overrides: { pdbMaxUnavailable: { value: 3, because: 'ok' } } }, input: 'overrides.pdbMaxUnavailable', value: '3 pod(s)', why: /"ok" is shorter than 10 characters/, fix: /add because:/ },
  { title: 'name that is not a DNS label', id: 'Checkout_API', input: 'name', value: 'Checkout_API', why: /must be a DNS label/, fix: /"checkout-api"/ },
  { title: 'name starting with a digit', id: '1checkout', input: 'name', value: '1checkout', why: /starting with a letter/, fix: /use a name like/ },
  { title: 'image without tag', props: { image: 'ghcr.io/acme/checkout-api' }, input: 'image', value: 'ghcr.io/acme/checkout-api', why: /no tag or uses "latest"/, fix: /pin a version tag/ },
  { title: 'image :latest', props: { image: 'ghcr.io/acme/checkout-api:latest' }, input: 'image', value: 'ghcr.io/acme/checkout-api:latest', why: /git revert/, fix: /checkout-api:1\.4\.2/ },
  { title: 'readiness path without slash', props: { health: { readinessPath: 'healthz' } }, input: 'health.readinessPath', value: 'healthz', why: /must start with "\/"/, fix: /"\/healthz"/ },
  { title: 'liveness on the readiness path', props: { health: { readinessPath: '/healthz', livenessPath: '/healthz' } }, input: 'health.livenessPath', value: '/healthz', why: /turns load into restarts/, fix: /process-only handler/ },
  { title: 'too few replicas for the peak', props: { replicas: 11 }, input: 'replicas', value: '11', why: /no headroom at peak/, fix: /scale out first: set replicas to at least 12/ },
  { title: 'negative peak', props: { capacity: { peakRequestsPerSecond: -1, saturationRequestsPerSecondPerReplica: 450 } }, input: 'capacity.peakRequestsPerSecond', value: '-1', why: /above 0/, fix: /measured peak/ },
  { title: 'timeout override below the p99', props: { health: { readinessPath: '/healthz', readinessP99UnderLoad: Duration.millis(1500) }, overrides: { readinessTimeout: { value: Duration.seconds(1), because: 'copied from the old chart values' } } }, input: 'overrides.readinessTimeout', value: '1 s', why: /not above the health path's p99 under load \(1\.5 s\)/, fix: /at least 3 s/ },
  { title: 'startup budget of zero', props: { health: { readinessPath: '/healthz', startupBudget: Duration.seconds(0) } }, input: 'health.startupBudget', value: '0 ms', why: /between 1 s and 3600 s/, fix: /longest start you observed/ },
  { title: 'CPU limit below the request', props: { overrides: { cpuLimit: { value: '100m', because: 'match the namespace LimitRange' } } }, input: 'overrides.cpuLimit', value: '100m', why: /below the CPU request 250m/, fix: /at least 250m/ },
  { title: 'PDB override that blocks drains', props: { overrides: { pdbMaxUnavailable: { value: 0, because: 'never lose a pod during drains' } } }, input: 'overrides.pdbMaxUnavailable', value: '0', why: /0 blocks every node drain forever/, fix: /use 1/ },
  { title: 'utilisation ceiling at saturation', build: () => new Platform({ peakUtilisationCeiling: { value: 1, because: 'we trust the load test fully' } }), input: 'platform.peakUtilisationCeiling', value: '1', why: /queueing delay is unbounded/, fix: /use 0\.8/ },
];

describe('bad-input catalogue', () => {
  test('has at least 15 cases', () => expect(cases.length).toBeGreaterThanOrEqual(15));

  test.each(cases.map((c) => [c.title, c] as const))('%s', (_title, c) => {
    let error: unknown;
    try {
      if (c.build) c.build();
      else synthService({ ...base, ...c.props }, c.id ?? 'checkout-api');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RollwiseInputError);
    const e = error as RollwiseInputError;
    expect(e.input).toBe(c.input);
    expect(e.value).toBe(c.value);
    expect(e.message).toContain(`${c.input} = ${c.value}`);
    expect(e.why).toMatch(c.why);
    expect(e.fix).toMatch(c.fix);
    expect(e.message).toContain('Fix: ');
  });
});
