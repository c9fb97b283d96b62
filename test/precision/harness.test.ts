/*
 * The precision harness (bench/precision.ts): pinned repositories cloned from a local mirror, linted,
 * and a blind judging packet that shows the finding, the object and the rule's rationale, never the
 * repository or the file; verdicts scored per rule.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as YAML from 'yaml';
import {
  cloneSource,
  fetchSet,
  findingObject,
  lintCheckout,
  lintSet,
  pickRelated,
  readRepoList,
  RepoList,
  sample,
  score,
  seeded,
  valueAt,
} from '../../bench/precision';
import { Finding } from '../../src/rules/types';
import { LintObject } from '../../src/rules/source';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});
const tmp = (p: string): string => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), p));
  dirs.push(d);
  return d;
};

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  }).trim();

/** A bare mirror at <mirror>/acme+shop/repo (the layout `fetch` leaves), with one commit of manifests. */
function mirrorWithRepo(): { mirror: string; commit: string } {
  const mirror = tmp('rw-mirror-');
  const work = tmp('rw-work-');
  git(work, 'init', '-q');
  const labels = { app: 'web' };
  fs.mkdirSync(path.join(work, 'deploy'));
  fs.writeFileSync(
    path.join(work, 'deploy', 'web.yaml'),
    [
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web' },
        spec: {
          replicas: 1,
          strategy: { rollingUpdate: { maxUnavailable: 1 } },
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: { containers: [{ name: 'web', image: 'ghcr.io/acme/web:1.0', ports: [{ containerPort: 8080 }] }] },
          },
        },
      },
      // The port name the API server refuses (not a DNS label): the harness samples what `rollwise lint`
      // reports, the cluster-validation stage included.
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'web' },
        spec: { selector: labels, ports: [{ name: 'HTTP', port: 80, targetPort: 8080 }] },
      },
    ]
      .map((o) => YAML.stringify(o))
      .join('---\n'),
  );
  // Listed as a resource by a kustomization that changes nothing: applied as written, so the
  // cluster stage's refusal is an error (cluster-rules.ts).
  fs.writeFileSync(path.join(work, 'deploy', 'kustomization.yaml'), 'resources:\n- web.yaml\n');
  git(work, 'add', '.');
  git(work, 'commit', '-q', '-m', 'manifests');
  const commit = git(work, 'rev-parse', 'HEAD');
  fs.mkdirSync(path.join(mirror, 'acme+shop'));
  git(mirror, 'clone', '-q', '--bare', work, path.join('acme+shop', 'repo'));
  return { mirror, commit };
}

describe('the precision harness', () => {
  test('the repository list has a tuning set and three held-out sets pinned to commits, no repository in two sets', () => {
    const list = readRepoList();
    expect(list.tuning.length).toBeGreaterThanOrEqual(10);
    const set = (name: string) => list[name] as { repo: string; commit: string }[];
    for (const name of [
      'tuning',
      'heldOutFirst',
      'heldOut',
      'heldOutThird',
      'heldOutFourth',
      'heldOutFifth',
      'heldOutSixth',
      'heldOutSeventh',
      'heldOutEighth',
      'heldOutNinth',
      'heldOutTenth',
      'heldOutEleventh',
    ]) {
      expect(set(name).length).toBeGreaterThanOrEqual(10);
      for (const r of set(name)) expect(r.commit).toMatch(/^[0-9a-f]{40}$/);
    }
    // no repository is in two sets: a held-out figure is only held out if nothing of it was tuned on
    const all = [
      'tuning',
      'heldOutFirst',
      'heldOut',
      'heldOutThird',
      'heldOutFourth',
      'heldOutFifth',
      'heldOutSixth',
      'heldOutSeventh',
      'heldOutEighth',
      'heldOutNinth',
      'heldOutTenth',
      'heldOutEleventh',
    ].flatMap((name) => set(name).map((r) => r.repo));
    expect(new Set(all).size).toBe(all.length);
  });

  test('clones from ROLLWISE_CORPUS_MIRROR at the pinned commit, lints, and writes a blind packet and its key; scores verdicts per rule', () => {
    const { mirror, commit } = mirrorWithRepo();
    expect(cloneSource('acme/shop', mirror)).toBe(path.join(mirror, 'acme+shop', 'repo'));
    expect(() => cloneSource('acme/none', mirror)).toThrow(/has no mirror of acme\/none/);
    expect(cloneSource('acme/shop', undefined)).toBe('https://github.com/acme/shop.git');
    const list: RepoList = { tuning: [], heldOut: [{ repo: 'acme/shop', commit, paths: ['deploy'] }] };
    const base = tmp('rw-precision-');
    const prev = process.env.ROLLWISE_CORPUS_MIRROR;
    process.env.ROLLWISE_CORPUS_MIRROR = mirror;
    try {
      fetchSet('heldOut', list, () => undefined, base);
    } finally {
      if (prev === undefined) delete process.env.ROLLWISE_CORPUS_MIRROR;
      else process.env.ROLLWISE_CORPUS_MIRROR = prev;
    }
    expect(git(path.join(base, 'heldOut', 'acme+shop'), 'rev-parse', 'HEAD')).toBe(commit);
    const out = tmp('rw-run-');
    const summary = lintSet('heldOut', out, { sample: 10, errors: 10, seed: 1, list, base });
    expect(summary).toContain('| acme/shop |');
    const packet = fs.readFileSync(path.join(out, 'packet.md'), 'utf8');
    expect(packet).toContain('RW305-single-replica-rolling-update-unavailable, severity **error**');
    expect(packet).toContain('Upstream: kubernetes/kubernetes pkg/controller/deployment/rolling.go');
    expect(packet).toContain('kind: Deployment');
    expect(packet).toContain('RW803-api-server-validation, severity **error**');
    expect(packet).toContain('Upstream: kubernetes pkg/apis/core/validation/validation.go');
    // Blind: no repository, no file name, no rule code.
    expect(packet).not.toMatch(/acme\/shop|acme\+shop|web\.yaml|function |=>/);
    const key = fs
      .readFileSync(path.join(out, 'key.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { id: string; repo: string; file: string; ruleId: string });
    expect(key.every((k) => k.repo === 'acme/shop' && k.file === 'deploy/web.yaml')).toBe(true);
    const verdicts = path.join(out, 'verdicts.jsonl');
    fs.writeFileSync(
      verdicts,
      key.map((k, i) => JSON.stringify({ id: k.id, verdict: i === 0 ? 'wrong' : 'real', reason: 'test' })).join('\n'),
    );
    const table = score(out, verdicts);
    expect(table).toMatch(
      new RegExp(`all findings \\(uniform sample\\): ${key.length} judged: ${key.length - 1} real`),
    );
    expect(table).toContain(`| ${key[0].ruleId} |`);
    fs.writeFileSync(verdicts, JSON.stringify({ id: key[0].id, verdict: 'maybe' }));
    expect(() => score(out, verdicts)).toThrow(/verdict "maybe" is not real, noise or wrong/);
  });

  test('the sample is random but drawn again with the same seed', () => {
    const items = Array.from({ length: 50 }, (_, i) => i);
    expect(sample(items, 10, seeded(21))).toEqual(sample(items, 10, seeded(21)));
    expect(sample(items, 10, seeded(21))).not.toEqual(sample(items, 10, seeded(22)));
    expect(new Set(sample(items, 50, seeded(3))).size).toBe(50);
  });
});

describe('the object a packet shows', () => {
  // cloudnative-pg: config/default and config/olm-default render config/webhook/manifests.yaml; only
  // the OLM render's patch adds clientConfig.service.containerPort (held-out set 5).
  const webhook = (service: Record<string, unknown>): LintObject => ({
    obj: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'cnpg-mutating-webhook-configuration' },
      webhooks: [{ name: 'mcluster.cnpg.io', clientConfig: { service } }],
    },
    kind: 'MutatingWebhookConfiguration',
    apiVersion: 'admissionregistration.k8s.io/v1',
    name: 'cnpg-mutating-webhook-configuration',
    ref: 'MutatingWebhookConfiguration/cnpg-mutating-webhook-configuration',
    file: 'config/webhook/manifests.yaml',
    line: () => 10,
  });
  const plain = webhook({ name: 'cnpg-webhook-service', namespace: 'cnpg-system' });
  const olm = webhook({ containerPort: 9443, name: 'cnpg-webhook-service', namespace: 'cnpg-system' });
  const finding = (p: string): Finding =>
    ({ file: 'config/webhook/manifests.yaml', object: olm.ref, path: p }) as Finding;

  test("is the rendered copy that has the finding's field, else the first", () => {
    expect(findingObject(finding('webhooks[0].clientConfig.service.containerPort'), [plain, olm])).toBe(olm);
    expect(findingObject(finding('webhooks[0].clientConfig.service.name'), [plain, olm])).toBe(plain);
    expect(findingObject(finding(''), [plain, olm])).toBe(plain);
  });

  test('reads field paths with indexes and quoted keys', () => {
    const obj = { metadata: { annotations: { 'service.beta.kubernetes.io/x': 'y' } }, a: [{ b: 1 }] };
    expect(valueAt(obj, 'metadata.annotations["service.beta.kubernetes.io/x"]')).toBe('y');
    expect(valueAt(obj, 'a[0].b')).toBe(1);
    expect(valueAt(obj, 'a[1].b')).toBeUndefined();
    expect(valueAt(obj, 'metadata.labels.app')).toBeUndefined();
  });
});

describe('the related objects a packet shows', () => {
  // eficode-academy/kubernetes-katas: configmap-secrets/done and deployments-ingress/done each hold a
  // Deployment/backend and a Service/backend; the first pair is labelled app: backend, the second
  // run: backend. Held-out set 9 showed the first folder's Service for the second folder's finding.
  const deployment = (key: string): object => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'backend', labels: { [key]: 'backend' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { [key]: 'backend' } },
      template: {
        metadata: { labels: { [key]: 'backend' } },
        spec: {
          containers: [{ name: 'quotes-flask-backend', image: 'ghcr.io/eficode-academy/quotes-flask-backend:release' }],
        },
      },
    },
  });
  const service = (key: string): object => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'backend', labels: { [key]: 'backend' } },
    spec: {
      selector: { [key]: 'backend' },
      ports: [{ port: 5000, protocol: 'TCP', targetPort: 5000 }],
      type: 'ClusterIP',
    },
  });
  const katas = (ingressServiceKey: string): string => {
    const dir = tmp('rw-katas-');
    const files: Record<string, object> = {
      'configmap-secrets/done/backend-deployment.yaml': deployment('app'),
      'configmap-secrets/done/backend-svc.yaml': service('app'),
      'deployments-ingress/done/backend-deployment.yaml': deployment('run'),
      'deployments-ingress/done/backend-svc.yaml': service(ingressServiceKey),
    };
    for (const [rel, o] of Object.entries(files)) {
      fs.mkdirSync(path.join(dir, path.dirname(rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), YAML.stringify(o));
    }
    return dir;
  };
  const rw110 = (dir: string) =>
    lintCheckout(dir, { repo: 'eficode-academy/kubernetes-katas', commit: '0'.repeat(40) }, { kustomize: false })
      .findings.filter((f) => f.finding.ruleId.startsWith('RW110'))
      .map((f) => ({
        file: f.finding.file,
        related: f.related.map((r) => [r.ref, (YAML.parse(r.yaml) as { spec: { selector: unknown } }).spec.selector]),
      }));

  test("each finding shows the Service of its own folder that selects the workload's pods", () => {
    expect(rw110(katas('run'))).toEqual([
      { file: 'configmap-secrets/done/backend-deployment.yaml', related: [['Service/backend', { app: 'backend' }]] },
      { file: 'deployments-ingress/done/backend-deployment.yaml', related: [['Service/backend', { run: 'backend' }]] },
    ]);
  });

  test("near miss: a folder whose Service selects labels the pods lack has no RW110; the other folder's still fires", () => {
    expect(rw110(katas('app'))).toEqual([
      { file: 'configmap-secrets/done/backend-deployment.yaml', related: [['Service/backend', { app: 'backend' }]] },
    ]);
  });

  test('without a selecting Service, the same file, then the nearest folder, then the first', () => {
    const obj = (file: string, kind = 'ConfigMap'): LintObject => ({
      obj: { apiVersion: 'v1', kind, metadata: { name: 'x' } },
      kind,
      apiVersion: 'v1',
      name: 'x',
      ref: `${kind}/x`,
      file,
      line: () => 1,
    });
    const f = { file: 'a/b/c/web.yaml' } as Finding;
    const far = obj('z/x.yaml');
    const near = obj('a/b/x.yaml');
    const same = obj('a/b/c/web.yaml');
    expect(pickRelated(f, [far, near, same], undefined)).toBe(same);
    expect(pickRelated(f, [far, near], undefined)).toBe(near);
    expect(pickRelated(f, [far, obj('y/x.yaml')], undefined)).toBe(far);
    expect(pickRelated(f, [], undefined)).toBeUndefined();
  });
});
