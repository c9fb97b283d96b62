import { builtinProblems } from '../../src/schemas/builtin';
import { KubernetesVersion } from '../../src/decisions/kubernetes-version';

/**
 * The API server's built-in rules (src/schemas/builtin.ts) on single objects: each refusal with a
 * near miss the API server accepts, so a rule can be neither missing nor over-strict.
 */
type J = Record<string, unknown>;
const V28 = KubernetesVersion.V1_28;
const V33 = KubernetesVersion.V1_33;

function deployment(container: J = {}, pod: J = {}): J {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop' },
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'app', image: 'ghcr.io/acme/web:1.0.0', ...container }], ...pod },
      },
    },
  };
}

const problems = (o: J, v = V28) => builtinProblems(o, v);
const at = (o: J, v = V28) => problems(o, v).map((p) => p.path);

describe('env: names and keys (apimachinery hasChDirPrefix) and downward-API paths', () => {
  const env = (...e: J[]) => deployment({ env: e });
  test.each(['.', '..', '..x'])('env name %s is refused at 1.28 (IsEnvVarName)', (name) => {
    expect(at(env({ name, value: 'x' }))).toEqual(['/spec/template/spec/containers/0/env/0/name']);
  });
  test('near misses: "a.", ".a", "a..b" at 1.28; "." at 1.33 (IsRelaxedEnvVarName has no chdir rule)', () => {
    expect(problems(env({ name: 'a.', value: 'x' }, { name: '.a', value: 'x' }, { name: 'a..b', value: 'x' }))).toEqual(
      [],
    );
    expect(problems(env({ name: '.', value: 'x' }), V33)).toEqual([]);
  });
  test.each(['..', '.', '..data'])('configMapKeyRef and secretKeyRef key %s is refused (IsConfigMapKey)', (key) => {
    const o = env(
      { name: 'A', valueFrom: { configMapKeyRef: { name: 'cm', key } } },
      { name: 'B', valueFrom: { secretKeyRef: { name: 's', key } } },
    );
    expect(at(o)).toEqual([
      '/spec/template/spec/containers/0/env/0/valueFrom/configMapKeyRef/key',
      '/spec/template/spec/containers/0/env/1/valueFrom/secretKeyRef/key',
    ]);
    expect(at(o, V33)).toHaveLength(2);
  });
  test('near miss: key "a..b" and ".hidden"', () => {
    expect(
      problems(
        env(
          { name: 'A', valueFrom: { configMapKeyRef: { name: 'cm', key: 'a..b' } } },
          { name: 'B', valueFrom: { secretKeyRef: { name: 's', key: '.hidden' } } },
        ),
      ),
    ).toEqual([]);
  });
  test.each([
    'spec.foo',
    'metadata.labels',
    'metadata.annotations',
    "spec.nodeName['x']",
    "metadata.labels['bad key']",
    'status.phase',
  ])('fieldRef %s is refused', (fieldPath) => {
    expect(at(env({ name: 'A', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath } } }))).toEqual([
      '/spec/template/spec/containers/0/env/0/valueFrom/fieldRef/fieldPath',
    ]);
  });
  test('near misses: the supported paths and subscripts', () => {
    const ok = [
      'metadata.name',
      'metadata.namespace',
      'metadata.uid',
      'spec.nodeName',
      'spec.serviceAccountName',
      'status.hostIP',
      'status.podIP',
      'status.podIPs',
      "metadata.labels['team']",
      "metadata.annotations['Acme.com/Owner']",
    ];
    expect(
      problems(env(...ok.map((fieldPath, i) => ({ name: `A${i}`, valueFrom: { fieldRef: { fieldPath } } })))),
    ).toEqual([]);
  });
  test('status.hostIPs: refused at 1.28 (PodHostIPs alpha), accepted at 1.33', () => {
    const o = env({ name: 'A', valueFrom: { fieldRef: { fieldPath: 'status.hostIPs' } } });
    expect(at(o)).toHaveLength(1);
    expect(problems(o, V33)).toEqual([]);
  });
  test('envFrom prefix: "." refused at 1.28, "APP_" accepted', () => {
    expect(at(deployment({ envFrom: [{ prefix: '.', configMapRef: { name: 'cm' } }] }))).toEqual([
      '/spec/template/spec/containers/0/envFrom/0/prefix',
    ]);
    expect(problems(deployment({ envFrom: [{ prefix: 'APP_', configMapRef: { name: 'cm' } }] }))).toEqual([]);
  });
});

describe('affinity: terms, matchFields, weights (core ValidateNodeSelector and friends)', () => {
  const aff = (affinity: J) => deployment({}, { affinity });
  const req = (terms: unknown[]) =>
    aff({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } });
  test('an empty nodeSelectorTerms is refused', () => {
    expect(at(req([]))).toEqual([
      '/spec/template/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms',
    ]);
  });
  test('matchFields on another key than metadata.name, or with two values', () => {
    expect(at(req([{ matchFields: [{ key: 'spec.nodeName', operator: 'In', values: ['n1'] }] }]))).toEqual([
      '/spec/template/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/matchFields/0/key',
    ]);
    expect(at(req([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1', 'n2'] }] }]))).toHaveLength(
      1,
    );
    expect(at(req([{ matchFields: [{ key: 'metadata.name', operator: 'Exists' }] }]))).toHaveLength(1);
  });
  test('near miss: one term with matchFields metadata.name In [node-1]', () => {
    expect(problems(req([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-1'] }] }]))).toEqual(
      [],
    );
  });
  test.each([0, 101, -1])('weight %s is refused (node and pod affinity)', (weight) => {
    const node = aff({
      nodeAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight, preference: { matchExpressions: [{ key: 'k', operator: 'Exists' }] } },
        ],
      },
    });
    const podAff = aff({
      podAntiAffinity: {
        preferredDuringSchedulingIgnoredDuringExecution: [
          {
            weight,
            podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { a: 'b' } } },
          },
        ],
      },
    });
    expect(at(node)).toEqual([
      '/spec/template/spec/affinity/nodeAffinity/preferredDuringSchedulingIgnoredDuringExecution/0/weight',
    ]);
    expect(at(podAff)).toEqual([
      '/spec/template/spec/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/0/weight',
    ]);
  });
  test.each([1, 100])('near miss: weight %s', (weight) => {
    expect(
      problems(
        aff({
          podAffinity: {
            preferredDuringSchedulingIgnoredDuringExecution: [
              {
                weight,
                podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { a: 'b' } } },
              },
            ],
          },
        }),
      ),
    ).toEqual([]);
  });
});

describe('probes and resources (core validateLivenessProbe, validateStartupProbe, validateResourceRequirements)', () => {
  const probe = { httpGet: { path: '/healthz', port: 8080 } };
  test.each(['livenessProbe', 'startupProbe'])(
    '%s successThreshold 3 is refused, 1 passes; readiness 3 passes',
    (p) => {
      expect(at(deployment({ [p]: { ...probe, successThreshold: 3 } }))).toEqual([
        `/spec/template/spec/containers/0/${p}/successThreshold`,
      ]);
      expect(
        problems(
          deployment({
            [p]: { ...probe, successThreshold: 1 },
            readinessProbe: { ...probe, successThreshold: 3, failureThreshold: 3 },
          }),
        ),
      ).toEqual([]);
    },
  );
  test('a native sidecar (restartable init container) is held to the same rule', () => {
    const o = deployment(
      {},
      {
        initContainers: [
          {
            name: 'proxy',
            image: 'envoyproxy/envoy:v1.30.1',
            restartPolicy: 'Always',
            livenessProbe: { ...probe, successThreshold: 2 },
          },
        ],
      },
    );
    expect(at(o)).toEqual(['/spec/template/spec/initContainers/0/livenessProbe/successThreshold']);
  });
  test('a request above its limit is refused (cpu 250m > 100m, memory 1Gi > 512Mi)', () => {
    expect(
      at(
        deployment({
          resources: { requests: { cpu: '250m', memory: '1Gi' }, limits: { cpu: '100m', memory: '512Mi' } },
        }),
      ),
    ).toEqual([
      '/spec/template/spec/containers/0/resources/requests/cpu',
      '/spec/template/spec/containers/0/resources/requests/memory',
    ]);
  });
  test('near misses: request equal to the limit in another spelling, no limit at all', () => {
    expect(
      problems(
        deployment({
          resources: { requests: { cpu: '0.25', memory: '512Mi' }, limits: { cpu: '250m', memory: '536870912' } },
        }),
      ),
    ).toEqual([]);
    expect(problems(deployment({ resources: { requests: { cpu: 2, memory: '1G' } } }))).toEqual([]);
  });
  test('hugepages and extended resources: the request must equal a limit that is set', () => {
    expect(
      at(
        deployment({
          resources: { requests: { memory: '1Gi', 'hugepages-2Mi': '100Mi' }, limits: { 'hugepages-2Mi': '200Mi' } },
        }),
      ),
    ).toEqual(['/spec/template/spec/containers/0/resources/requests/hugepages-2Mi']);
    expect(at(deployment({ resources: { requests: { cpu: '1', 'nvidia.com/gpu': 1 } } }))).toEqual([
      '/spec/template/spec/containers/0/resources/limits',
    ]);
    expect(
      problems(
        deployment({ resources: { requests: { cpu: '1', 'nvidia.com/gpu': 1 }, limits: { 'nvidia.com/gpu': '1' } } }),
      ),
    ).toEqual([]);
  });
});

describe('kinds: Service type, ConfigMap, Secret, apps selectors, CronJob schedule, Namespace Pod Security labels', () => {
  test('Service type Bogus is refused; the four types pass', () => {
    const svc = (type: string) => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web' },
      spec: { type, ports: [{ port: 80 }] },
    });
    expect(at(svc('Bogus'))).toEqual(['/spec/type']);
    for (const t of ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName']) expect(problems(svc(t))).toEqual([]);
  });
  const cm = (extra: J) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config' }, ...extra });
  test('ConfigMap keys: "bad key" and ".." refused, "app.yaml" and "a_b-c" pass', () => {
    expect(at(cm({ data: { 'bad key': 'x', '..': 'y', 'app.yaml': 'x: 1', 'a_b-c': 'z' } }))).toEqual([
      '/data/bad key',
      '/data/..',
    ]);
  });
  test('ConfigMap over 1 MiB is refused; exactly 1 MiB passes (binaryData counted decoded)', () => {
    expect(at(cm({ data: { big: 'x'.repeat(1100 * 1024) } }))).toEqual(['/']);
    expect(problems(cm({ data: { big: 'x'.repeat(1024 * 1024 - 3) }, binaryData: { b: 'AAAA' } }))).toEqual([]);
    expect(at(cm({ data: { a: 'x' }, binaryData: { a: 'AAAA', c: 'not base64!' } }))).toEqual([
      '/data/a',
      '/binaryData/c',
    ]);
  });
  const secret = (extra: J) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'web-secret' },
    type: 'Opaque',
    ...extra,
  });
  test('Secret data that is not base64 is refused; base64 (with or without line breaks) and stringData pass', () => {
    expect(at(secret({ data: { token: 'not base64!!' } }))).toEqual(['/data/token']);
    expect(at(secret({ data: { token: 'YWJj' + '=' } }))).toEqual(['/data/token']);
    expect(
      problems(secret({ data: { token: 'YWJjZA==', cert: 'YWJj\nZGVm' }, stringData: { plain: 'not base64!!' } })),
    ).toEqual([]);
    expect(at(secret({ stringData: { 'bad key': 'x' } }))).toEqual(['/stringData/bad key']);
  });
  const dep = (selector: unknown, labels: J | undefined, podExtra: J = {}) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'other' },
    spec: {
      replicas: 2,
      selector,
      template: {
        metadata: labels ? { labels } : {},
        spec: { containers: [{ name: 'c', image: 'nginx:1.25.3' }], ...podExtra },
      },
    },
  });
  test('a Deployment whose selector does not select its template is refused', () => {
    expect(at(dep({ matchLabels: { a: 'b' } }, { a: 'c' }))).toEqual(['/spec/template/metadata/labels']);
    expect(at(dep({ matchExpressions: [{ key: 'tier', operator: 'In', values: ['web'] }] }, { tier: 'db' }))).toEqual([
      '/spec/template/metadata/labels',
    ]);
    expect(at(dep({}, { a: 'b' }))).toEqual(['/spec/selector']);
    expect(at(dep({ matchLabels: { a: 'b' } }, { a: 'b' }, { restartPolicy: 'Never' }))).toEqual([
      '/spec/template/spec/restartPolicy',
    ]);
  });
  test('near miss: a selector that selects a superset of labels, with expressions', () => {
    expect(
      problems(
        dep(
          {
            matchLabels: { a: 'b' },
            matchExpressions: [
              { key: 'tier', operator: 'NotIn', values: ['db'] },
              { key: 'x', operator: 'DoesNotExist' },
            ],
          },
          { a: 'b', tier: 'web', extra: '1' },
        ),
      ),
    ).toEqual([]);
  });
  const cron = (schedule: string) => ({
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: { name: 'nightly' },
    spec: {
      schedule,
      jobTemplate: {
        spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1.36' }] } } },
      },
    },
  });
  test.each([
    'every night',
    '61 * * * *',
    '* * * *',
    '0 0 0 * *',
    '0 0 * 13 *',
    '0 0 * * 7',
    '*/0 * * * *',
    '5-1 * * * *',
    'CRON_TZ=UTC 0 3 * * *',
    '@fortnightly',
    '@every soon',
    '1,2,x * * * *',
  ])('CronJob schedule %j is refused', (s) => {
    expect(at(cron(s))).toEqual(['/spec/schedule']);
  });
  test.each([
    '* * * * *',
    '0 3 * * *',
    '*/15 9-17 * * mon-fri',
    '0 0 1 jan,jul ?',
    '30 2 * * SUN',
    '5/10 * * * *',
    '@daily',
    '@every 1h30m',
    '0 0 31 2 *',
  ])('near miss: CronJob schedule %j passes', (s) => {
    expect(problems(cron(s))).toEqual([]);
  });
  const ns = (labels: J) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop', labels } });
  test('Namespace Pod Security labels: a bogus level or version is refused', () => {
    expect(
      at(ns({ 'pod-security.kubernetes.io/enforce': 'bogus', 'pod-security.kubernetes.io/warn-version': '1.28' })),
    ).toEqual([
      '/metadata/labels/pod-security.kubernetes.io/enforce',
      '/metadata/labels/pod-security.kubernetes.io/warn-version',
    ]);
  });
  test('near miss: the three levels, latest and v1.33', () => {
    expect(
      problems(
        ns({
          'pod-security.kubernetes.io/enforce': 'restricted',
          'pod-security.kubernetes.io/enforce-version': 'v1.33',
          'pod-security.kubernetes.io/audit': 'baseline',
          'pod-security.kubernetes.io/warn': 'privileged',
          'pod-security.kubernetes.io/warn-version': 'latest',
        }),
      ),
    ).toEqual([]);
  });
});
