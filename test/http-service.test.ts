import * as fs from 'fs';
import * as path from 'path';
import { Duration } from 'cdk8s';
import { SchemaValidator } from '../src/schemas/validator';
import { explainedAt, explainManifest } from '../src/justify/explain';
import { AppServer } from '../src/decisions/keep-alive';
import { find, workload, parseYamlDocs, synthService } from './support/manifests';

const validator = SchemaValidator.load();

describe('HttpService (checkout-api example)', () => {
  const objs = synthService();
  const dep = workload(objs);
  const container = dep.spec.template.spec.containers[0];

  test('every emitted object validates against the Kubernetes 1.28 schema', () => {
    expect(objs.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
      'AnalysisTemplate/checkout-api-canary-background',
      'AnalysisTemplate/checkout-api-canary-gate',
      'BackendTrafficPolicy/checkout-api',
      'HTTPRoute/checkout-api',
      'PodDisruptionBudget/checkout-api',
      'PrometheusRule/checkout-api',
      'Rollout/checkout-api',
      'Service/checkout-api',
      'Service/checkout-api-canary',
    ]);
    for (const o of objs) expect({ kind: o.kind, errors: validator.validate(o) }).toEqual({ kind: o.kind, errors: [] });
  });

  test('safe probes, no CPU limit, maxUnavailable 0, minReadySeconds 30', () => {
    expect(container.readinessProbe).toMatchObject({
      timeoutSeconds: 3,
      failureThreshold: 3,
      successThreshold: 3,
      periodSeconds: 10,
      httpGet: { path: '/healthz', port: 'http' },
    });
    expect(container.livenessProbe.tcpSocket).toEqual({ port: 'http' });
    expect(container.resources.limits).toEqual({ memory: '512Mi' });
    expect(container.resources.requests).toEqual({ cpu: '250m', memory: '512Mi' });
    expect(dep.spec.minReadySeconds).toBe(30);
    expect(dep.spec.strategy.canary.maxUnavailable).toBe(0);
    expect(dep.spec.progressDeadlineSeconds).toBe(600);
    expect(find(objs, 'PodDisruptionBudget').spec.maxUnavailable).toBe(1);
  });

  test('restricted security context, no token, spread, shutdown delay', () => {
    const pod = dep.spec.template.spec;
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.serviceAccountName).toBe('checkout-api');
    expect(container.env).toEqual([
      { name: 'DATABASE_URL', valueFrom: { secretKeyRef: { name: 'checkout-db', key: 'url' } } },
      { name: 'LOG_LEVEL', value: 'info' },
      { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
    ]);
    expect(pod.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 10001,
      runAsGroup: 10001,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(pod.topologySpreadConstraints.map((t: { topologyKey: string }) => t.topologyKey)).toEqual([
      'kubernetes.io/hostname',
      'topology.kubernetes.io/zone',
    ]);
    expect(container.lifecycle.preStop.exec.command).toEqual(['sleep', '10']);
    expect(pod.terminationGracePeriodSeconds).toBe(30);
  });

  test('every decided value has a reason in the annotation, readable by explain', () => {
    const text = fs.readFileSync(path.join(__dirname, '..', 'dist', 'prod', 'checkout-api.k8s.yaml'), 'utf8');
    const items = explainManifest(text);
    const byPath = new Map(items.map((i) => [`${i.object} ${i.path}`, i]));
    const timeout = byPath.get('Rollout/checkout-api spec.template.spec.containers[0].readinessProbe.timeoutSeconds');
    expect(timeout?.value).toBe(3);
    expect(byPath.get('PodDisruptionBudget/checkout-api spec.maxUnavailable')?.reason).toContain('3,700 req/s');
    // every reason sits beside a value, except the one that explains why retry is deliberately absent
    expect(items.filter((i) => i.value === undefined).map((i) => `${i.object} ${i.path}`)).toEqual([
      'BackendTrafficPolicy/checkout-api spec.retry',
    ]);
    expect(items.length).toBeGreaterThanOrEqual(30);
  });

  test('the committed dist/ carries the reasons as YAML comments beside the values', () => {
    const text = fs.readFileSync(path.join(__dirname, '..', 'dist', 'prod', 'checkout-api.k8s.yaml'), 'utf8');
    expect(text).toMatch(/# .*Leave window 3 x 10 s = 30 s[\s\S]*?failureThreshold: 3/);
    expect(text).toMatch(/# Return window 3 x 10 s = 30 s[^\n]*\n(\s+#[^\n]*\n)*\s+successThreshold: 3/);
    expect(text).toMatch(
      /# No CPU limit[^\n]*\n(\s+#[^\n]*\n)*\s+limits:\n\s+#[^\n]*\n(\s+#[^\n]*\n)*\s+memory: 512Mi/,
    );
    expect(text).toMatch(/# Peak 3,700 req\/s[^\n]*\n(\s+#[^\n]*\n)*\s+maxUnavailable: 1/);
    // the commented output parses to the same objects as the uncommented synth
    expect(parseYamlDocs(text).map((o) => o.kind)).toEqual([
      'Rollout',
      'Service',
      'HTTPRoute',
      'AnalysisTemplate',
      'AnalysisTemplate',
      'Service',
      'PodDisruptionBudget',
      'BackendTrafficPolicy',
      'PrometheusRule',
    ]);
  });

  test('without a measured p99 the output says so', () => {
    const d = workload(synthService({ health: { readinessPath: '/healthz' } }));
    expect(d.metadata.annotations?.['rollwise.dev/reasons']).toContain('p99 under peak load was NOT given');
    expect(d.metadata.annotations?.['rollwise.dev/readiness-p99-seconds']).toBeUndefined();
  });

  test('an override carries its reason into the annotations', () => {
    const d = workload(
      synthService({ overrides: { cpuLimit: { value: '1', because: 'billing is per limit on this cluster' } } }),
    );
    expect(d.spec.template.spec.containers[0].resources.limits.cpu).toBe('1');
    expect(d.metadata.annotations?.['rollwise.dev/overrides']).toContain(
      'spec.template.spec.containers[0].resources.limits.cpu: Overridden: billing is per limit on this cluster',
    );
  });

  test('Done-when: readiness timeout 1 s for a 1.5 s p99 without a reason fails naming both numbers', () => {
    expect(() =>
      synthService({
        health: { readinessPath: '/healthz', readinessP99UnderLoad: Duration.millis(1500) },
        overrides: { readinessTimeout: { value: Duration.seconds(1), because: '' } },
      }),
    ).toThrow(/overrides.readinessTimeout = 1 s: .*1\.5 s/);
  });
});

describe("the route on the platform's Gateway (issue 24: listeners admit only their own namespace by default)", () => {
  test("the parentRefs reason says the listener must admit the service's namespace, with the Gateway API default and the fix", () => {
    const route = find(synthService(), 'HTTPRoute');
    expect(route.spec.parentRefs).toEqual([
      { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: 'public', namespace: 'envoy-gateway-system' },
    ]);
    const why = explainedAt(explainManifest(JSON.stringify(route)), 'spec.parentRefs')
      .map((a) => a.reason)
      .join('\n');
    expect(why).toMatch(
      /Its listener must admit routes from namespace checkout: allowedRoutes\.namespaces\.from defaults to Same, the Gateway's own namespace \(gateway-api v1\.6\.1\).*NotAllowedByListeners.*docs\/cluster\.md/,
    );
  });

  test('docs/cluster.md names the listener prerequisite with an example that admits the service namespaces', () => {
    const doc = fs.readFileSync(path.join(__dirname, '..', 'docs', 'cluster.md'), 'utf8');
    expect(doc).toMatch(/## The Gateway's listeners must admit the services' routes/);
    expect(doc).toMatch(/allowedRoutes:\n\s+kinds: \[\{ kind: HTTPRoute \}\]\n\s+namespaces:\n\s+from: Selector/);
  });
});

describe('HttpService keep-alive policy (issue 4 done-when)', () => {
  test('the committed example has connectionIdleTimeout 3s on its HTTPRoute, both values explained', () => {
    const text = fs.readFileSync(path.join(__dirname, '..', 'dist', 'prod', 'checkout-api.k8s.yaml'), 'utf8');
    const btp = parseYamlDocs(text).find((o) => o.kind === 'BackendTrafficPolicy');
    expect(btp?.spec.targetRefs).toEqual([
      { group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'checkout-api' },
    ]);
    expect(btp?.spec.timeout.http.connectionIdleTimeout).toBe('3s');
    expect(text).toMatch(
      /# uvicorn closes idle connections after 5 s[^\n]*the proxy closes at\n\s+# 3 s, so it always closes first/,
    );
  });

  test('switching the example to gunicorn gthread (2 s keep-alive) gives an idle timeout under 2 s', () => {
    const btp = find(synthService({ appServer: AppServer.gunicornGthread() }), 'BackendTrafficPolicy');
    expect(btp.spec.timeout.http.connectionIdleTimeout).toBe('1s');
  });

  test('a 1 h proxy idle timeout for a uvicorn app fails naming 1 h, 5 s and UC', () => {
    expect(() =>
      synthService({
        overrides: { proxyIdleTimeout: { value: Duration.hours(1), because: 'match the Envoy default everywhere' } },
      }),
    ).toThrow(/1 h[\s\S]*5 s[\s\S]*UC/);
  });
});
