import { Duration } from 'cdk8s';
import { HttpServiceProps } from '../../src/constructs/http-service';
import { Platform, PlatformProps } from '../../src/decisions/platform';
import { reasonProblem } from '../../src/decisions/reason';
import { examplePlatform, checkoutApiProps } from '../../src/example';
import { RollwiseInputError } from '../../src/errors';
import { lintText } from '../../src/rules/run-lint';
import { synthService } from '../support/manifests';

/**
 * Inputs typed at the boundary (issue 13): overrides and platform settings are checked like props,
 * NaN and Infinity are named as such, every error names its input. Each case also kills a source
 * mutation that survived before (names up to 253, a route with no hostnames, no hostname syntax
 * check, whitespace in probe paths; the lint alias limit is below).
 */
interface Case {
  readonly title: string;
  readonly props?: Partial<HttpServiceProps>;
  readonly id?: string;
  readonly platform?: PlatformProps;
  readonly input: string;
  readonly value: string;
  readonly why: RegExp;
}

const p = examplePlatform();
const route = (hostnames: string[]) => ({ route: { hostnames } });
const reason = 'measured in the load test of 2026-11-03';
const cases: Case[] = [
  {
    title: 'failure threshold 2.5',
    props: { overrides: { readinessFailureThreshold: { value: 2.5, because: reason } } },
    input: 'overrides.readinessFailureThreshold',
    value: '2.5',
    why: /must be a whole number from 1 to 30/,
  },
  {
    title: 'failure threshold 0',
    props: { overrides: { readinessFailureThreshold: { value: 0, because: reason } } },
    input: 'overrides.readinessFailureThreshold',
    value: '0',
    why: /from 1 to 30/,
  },
  {
    title: 'failure threshold NaN',
    props: { overrides: { readinessFailureThreshold: { value: NaN, because: reason } } },
    input: 'overrides.readinessFailureThreshold',
    value: 'NaN',
    why: /is NaN \(not a number\)/,
  },
  {
    title: 'failure threshold -3',
    props: { overrides: { readinessFailureThreshold: { value: -3, because: reason } } },
    input: 'overrides.readinessFailureThreshold',
    value: '-3',
    why: /from 1 to 30/,
  },
  {
    title: 'success threshold Infinity',
    props: { overrides: { readinessSuccessThreshold: { value: Infinity, because: reason } } },
    input: 'overrides.readinessSuccessThreshold',
    value: 'Infinity',
    why: /is Infinity/,
  },
  {
    title: 'minReadySeconds 45.5 s',
    props: { overrides: { minReadySeconds: { value: Duration.millis(45500), because: reason } } },
    input: 'overrides.minReadySeconds',
    value: '45.5 s',
    why: /whole number of seconds/,
  },
  {
    title: 'retries 1.5',
    props: { overrides: { retryOnReset: { value: 1.5, because: reason } } },
    input: 'overrides.retryOnReset',
    value: '1.5',
    why: /from 1 to 3/,
  },
  {
    title: 'idle timeout 2.5 ms',
    props: { overrides: { proxyIdleTimeout: { value: Duration.millis(2.5), because: reason } } },
    input: 'overrides.proxyIdleTimeout',
    value: '2.5 ms',
    why: /whole number of milliseconds/,
  },
  {
    title: 'a platform propagation of 1.5 s',
    platform: { ...platformProps(), endpointPropagation: { value: Duration.millis(1500), because: reason } },
    input: 'platform.endpointPropagation',
    value: '1.5 s',
    why: /whole number of seconds/,
  },
  {
    title: 'empty gateway name',
    platform: { ...platformProps(), gateway: { name: '', namespace: 'envoy-gateway-system' } },
    input: 'platform.gateway.name',
    value: '"" (empty)',
    why: /DNS subdomain/,
  },
  {
    title: 'gateway namespace with capitals',
    platform: { ...platformProps(), gateway: { name: 'public', namespace: 'Envoy' } },
    input: 'platform.gateway.namespace',
    value: 'Envoy',
    why: /DNS label/,
  },
  {
    title: 'a platform label key with a space',
    platform: { ...platformProps(), labels: { 'cost centre': 'x' } },
    input: 'platform.labels key',
    value: 'cost centre',
    why: /label key/,
  },
  {
    title: 'a platform label value of 64 characters',
    platform: { ...platformProps(), labels: { team: 'a'.repeat(64) } },
    input: 'platform.labels.team',
    value: 'a'.repeat(64),
    why: /at most 63/,
  },
  {
    title: 'a 300-character hostname',
    props: route([`${'a'.repeat(60)}.`.repeat(4) + 'b'.repeat(55) + '.com']),
    input: 'route.hostnames[0]',
    value: `${'a'.repeat(60)}.`.repeat(4) + 'b'.repeat(55) + '.com',
    why: /at most 253 characters/,
  },
  {
    title: 'a hostname label of 64 characters',
    props: route([`${'a'.repeat(64)}.example.com`]),
    input: 'route.hostnames[0]',
    value: `${'a'.repeat(64)}.example.com`,
    why: /at most 63 characters each/,
  },
  {
    title: 'hostname syntax: capitals',
    props: route(['Checkout.Example.com']),
    input: 'route.hostnames[0]',
    value: 'Checkout.Example.com',
    why: /is not a DNS hostname/,
  },
  {
    title: 'hostname syntax: a URL',
    props: route(['https://checkout.example.com']),
    input: 'route.hostnames[0]',
    value: 'https://checkout.example.com',
    why: /is not a DNS hostname/,
  },
  {
    title: 'a route with no hostnames',
    props: route([]),
    input: 'route',
    value: '{"hostnames":[]}',
    why: /capture every host on the shared Gateway/,
  },
  {
    title: '17 hostnames',
    props: route([...Array(17).keys()].map((i) => `h${i}.example.com`)),
    input: 'route.hostnames',
    value: '17 hostnames',
    why: /at most 16/,
  },
  {
    title: 'a name of 64 characters',
    id: `a${'b'.repeat(63)}`,
    input: 'name',
    value: `a${'b'.repeat(63)}`,
    why: /1-63 lower-case/,
  },
  {
    title: 'a name of 253 characters',
    id: `a${'b'.repeat(252)}`,
    input: 'name',
    value: `a${'b'.repeat(252)}`,
    why: /1-63 lower-case/,
  },
  {
    title: 'whitespace inside a probe path',
    props: { health: { readinessPath: '/health z' } },
    input: 'health.readinessPath',
    value: '/health z',
    why: /no whitespace/,
  },
  {
    title: 'trailing whitespace in a liveness path',
    props: { health: { readinessPath: '/healthz', livenessPath: '/livez\t' } },
    input: 'health.livenessPath',
    value: '/livez\t',
    why: /no whitespace/,
  },
  // port 80 is accepted since issue 24 (the pod lowers net.ipv4.ip_unprivileged_port_start): test/services/papercuts.test.ts
  { title: 'port 0', props: { port: 0 }, input: 'port', value: '0', why: /whole number from 1 to 65535/ },
  { title: 'port NaN', props: { port: NaN }, input: 'port', value: 'NaN', why: /is NaN/ },
  {
    title: 'a missing appServer (JavaScript caller)',
    props: { appServer: undefined as never },
    input: 'appServer',
    value: 'missing',
    why: /is required/,
  },
  {
    title: 'override reason TODO',
    props: { overrides: { cpuLimit: { value: '1', because: 'TODO: fill in later' } } },
    input: 'overrides.cpuLimit',
    value: '1',
    why: /placeholder \("TODO"\)/,
  },
  {
    title: 'override reason of repeated characters',
    props: { overrides: { cpuLimit: { value: '1', because: 'xxxxxxxxxx' } } },
    input: 'overrides.cpuLimit',
    value: '1',
    why: /placeholder/,
  },
  {
    title: 'a placeholder reason for the keep-alive race',
    props: {
      overrides: {
        proxyIdleTimeout: { value: Duration.seconds(10), because: reason },
        acceptKeepAliveRace: { value: true, because: 'lorem ipsum dolor sit amet' },
      },
    },
    input: 'overrides.acceptKeepAliveRace',
    value: 'race accepted',
    why: /placeholder \("lorem"\)/,
  },
];

function platformProps(): PlatformProps {
  return {
    gateway: p.gateway,
    prometheusAddress: p.prometheusAddress,
    runbookBaseUrl: p.runbookBaseUrl,
    prometheusRuleLabels: p.prometheusRuleLabels,
  };
}

describe('typed inputs', () => {
  test.each(cases.map((c) => [c.title, c] as const))('%s', (_t, c) => {
    let error: unknown;
    try {
      if (c.platform) new Platform(c.platform);
      else synthService({ ...checkoutApiProps(), ...c.props }, c.id ?? 'checkout-api');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RollwiseInputError);
    const e = error as RollwiseInputError;
    expect([e.input, e.value]).toEqual([c.input, c.value]);
    expect(e.why).toMatch(c.why);
    expect(e.message).not.toContain('= null');
  });

  test('in-range values still synthesize (whole seconds, 253-character hostnames, labels)', () => {
    const host = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
    expect(host).toHaveLength(253);
    const objs = synthService({
      ...checkoutApiProps(),
      ...route([host, '*.example.com']),
      platform: new Platform({
        ...platformProps(),
        labels: { 'acme.com/team': 'pay_ments.v1' },
        endpointPropagation: { value: Duration.seconds(15), because: reason },
      }),
      overrides: { minReadySeconds: { value: Duration.seconds(45), because: reason } },
    });
    expect(objs.find((o) => o.kind === 'HTTPRoute')!.spec.hostnames).toEqual([host, '*.example.com']);
    expect(objs.find((o) => o.kind === 'Rollout')!.spec.template.spec.terminationGracePeriodSeconds).toBe(35);
  });
});

describe('reasons: one rule for overrides, accepted patches and lint suppressions', () => {
  test.each([
    'TODO: fill in later',
    'FIXME later on',
    'xxxxxxxxxx',
    'aaaaaaaaaaaa',
    'lorem ipsum dolor',
    'tbd tbd tbd',
    'asdfghjkl;',
    'short',
    '',
    '          ',
  ])('%p is not a reason', (r) => {
    expect(reasonProblem(r)).toBeDefined();
  });
  test.each([
    'this cluster bills by limit; throttling measured at 0.3 %',
    'batch-priced node pool (property test)',
    'slow JIT warm-up measured at 40 s',
    'never lose a pod during drains',
  ])('%p is a reason', (r) => {
    expect(reasonProblem(r)).toBeUndefined();
  });

  test('a lint suppression with a placeholder reason is ignored and reported (RW901)', () => {
    const doc = (why: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  annotations:
    rollwise.dev/suppress: "RW201: ${why}"
spec:
  replicas: 3
  selector: { matchLabels: { app: api } }
  template:
    metadata: { labels: { app: api } }
    spec:
      containers:
        - name: app
          image: x:1
          resources: { limits: { cpu: "1" }, requests: { cpu: "1" } }
          readinessProbe: { httpGet: { path: /r, port: 8080 }, periodSeconds: 10, timeoutSeconds: 3, failureThreshold: 3, successThreshold: 3 }
`;
    const placeholder = lintText(doc('TODO: fill in later'), 'a.yaml').findings;
    expect(placeholder.find((f) => f.ruleId.startsWith('RW901'))?.message).toMatch(
      /suppresses RW201.* with no real reason \(.*placeholder/,
    );
    expect(placeholder.find((f) => f.ruleId.startsWith('RW201'))?.status).toBe('open');
    const real = lintText(doc('batch worker, probes are tcpSocket only'), 'a.yaml').findings;
    expect(real.find((f) => f.ruleId.startsWith('RW201'))?.status).toBe('suppressed');
  });
});

test('lint keeps its YAML alias limit: an alias bomb (10^5 nodes from 50 aliases) is a malformed document', () => {
  const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 0; i < 4; i++)
    lines.push(
      `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(10)
        .fill(`*${String.fromCharCode(97 + i)}`)
        .join(', ')}]`,
    );
  const text = `apiVersion: v1\nkind: ConfigMap\nmetadata: { name: bomb }\ndata:\n${lines.map((l) => `  ${l}`).join('\n')}\n`;
  const t0 = Date.now();
  const r = lintText(text, 'bomb.yaml');
  expect(Date.now() - t0).toBeLessThan(5000);
  expect(r.findings.map((f) => f.ruleId)).toContain('RW000-malformed-document');
  expect(r.findings.find((f) => f.ruleId === 'RW000-malformed-document')!.message).toMatch(/alias/i);
});
