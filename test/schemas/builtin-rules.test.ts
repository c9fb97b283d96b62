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
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'shop' },
    spec: {
      replicas: 2, selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'app', image: 'ghcr.io/acme/web:1.0.0', ...container }], ...pod } },
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
    expect(problems(env({ name: 'a.', value: 'x' }, { name: '.a', value: 'x' }, { name: 'a..b', value: 'x' }))).toEqual([]);
    expect(problems(env({ name: '.', value: 'x' }), V33)).toEqual([]);
  });
  test.each(['..', '.', '..data'])('configMapKeyRef and secretKeyRef key %s is refused (IsConfigMapKey)', (key) => {
    const o = env({ name: 'A', valueFrom: { configMapKeyRef: { name: 'cm', key } } }, { name: 'B', valueFrom: { secretKeyRef: { name: 's', key } } });
    expect(at(o)).toEqual(['/spec/template/spec/containers/0/env/0/valueFrom/configMapKeyRef/key', '/spec/template/spec/containers/0/env/1/valueFrom/secretKeyRef/key']);
    expect(at(o, V33)).toHaveLength(2);
  });
  test('near miss: key "a..b" and ".hidden"', () => {
    expect(problems(env({ name: 'A', valueFrom: { configMapKeyRef: { name: 'cm', key: 'a..b' } } }, { name: 'B', valueFrom: { secretKeyRef: { name: 's', key: '.hidden' } } }))).toEqual([]);
  });
  test.each(['spec.foo', 'metadata.labels', 'metadata.annotations', "spec.nodeName['x']", "metadata.labels['bad key']", 'status.phase'])('fieldRef %s is refused', (fieldPath) => {
    expect(at(env({ name: 'A', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath } } }))).toEqual(['/spec/template/spec/containers/0/env/0/valueFrom/fieldRef/fieldPath']);
  });
  test('near misses: the supported paths and subscripts', () => {
    const ok = ['metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName', 'status.hostIP', 'status.podIP', 'status.podIPs', "metadata.labels['team']", "metadata.annotations['Acme.com/Owner']"];
    expect(problems(env(...ok.map((fieldPath, i) => ({ name: `A${i}`, valueFrom: { fieldRef: { fieldPath } } }))))).toEqual([]);
  });
  test('status.hostIPs: refused at 1.28 (PodHostIPs alpha), accepted at 1.33', () => {
    const o = env({ name: 'A', valueFrom: { fieldRef: { fieldPath: 'status.hostIPs' } } });
    expect(at(o)).toHaveLength(1);
    expect(problems(o, V33)).toEqual([]);
  });
  test('envFrom prefix: "." refused at 1.28, "APP_" accepted', () => {
    expect(at(deployment({ envFrom: [{ prefix: '.', configMapRef: { name: 'cm' } }] }))).toEqual(['/spec/template/spec/containers/0/envFrom/0/prefix']);
    expect(problems(deployment({ envFrom: [{ prefix: 'APP_', configMapRef: { name: 'cm' } }] }))).toEqual([]);
  });
});

describe('affinity: terms, matchFields, weights (core ValidateNodeSelector and friends)', () => {
  const aff = (affinity: J) => deployment({}, { affinity });
  const req = (terms: unknown[]) => aff({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } });
  test('an empty nodeSelectorTerms is refused', () => {
    expect(at(req([]))).toEqual(['/spec/template/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms']);
  });
  test('matchFields on another key than metadata.name, or with two values', () => {
    expect(at(req([{ matchFields: [{ key: 'spec.nodeName', operator: 'In', values: ['n1'] }] }]))).toEqual(['/spec/template/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/0/matchFields/0/key']);
    expect(at(req([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1', 'n2'] }] }]))).toHaveLength(1);
    expect(at(req([{ matchFields: [{ key: 'metadata.name', operator: 'Exists' }] }]))).toHaveLength(1);
  });
  test('near miss: one term with matchFields metadata.name In [node-1]', () => {
    expect(problems(req([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['node-1'] }] }]))).toEqual([]);
  });
  test.each([0, 101, -1])('weight %s is refused (node and pod affinity)', (weight) => {
    const node = aff({ nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight, preference: { matchExpressions: [{ key: 'k', operator: 'Exists' }] } }] } });
    const podAff = aff({ podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { a: 'b' } } } }] } });
    expect(at(node)).toEqual(['/spec/template/spec/affinity/nodeAffinity/preferredDuringSchedulingIgnoredDuringExecution/0/weight']);
    expect(at(podAff)).toEqual(['/spec/template/spec/affinity/podAntiAffinity/preferredDuringSchedulingIgnoredDuringExecution/0/weight']);
  });
  test.each([1, 100])('near miss: weight %s', (weight) => {
    expect(problems(aff({ podAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { a: 'b' } } } }] } }))).toEqual([]);
  });
});
