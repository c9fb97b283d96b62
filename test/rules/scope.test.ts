/*
 * Cross-object rules look at the objects deployed with the one they check (src/rules/scope.ts):
 * the same namespace (its own, or its kustomization's or Argo CD Application's default) and the same
 * application (a kustomization, an Argo CD Application, a part-of label, else the folder).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as YAML from 'yaml';
import { Finding, layoutScan, runLint } from '../../src/rules';
import { Obj } from './helpers';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function repo(files: Record<string, string | object[]>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-scope-'));
  dirs.push(dir);
  fs.mkdirSync(path.join(dir, '.git'));
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(
      path.join(dir, rel),
      typeof content === 'string' ? content : content.map((o) => YAML.stringify(o)).join('---\n'),
    );
  }
  return dir;
}

function lint(dir: string): Finding[] {
  let out = '';
  runLint({
    paths: [dir],
    format: 'json',
    failOn: 'none',
    kustomize: false,
    write: (s) => {
      out += s;
    },
  });
  return (JSON.parse(out) as { findings: Finding[] }).findings.filter((f) => f.status === 'open');
}

const rel = (dir: string, f: Finding): string => path.relative(dir, f.file);

/** A canary Rollout named `name` whose pods carry app: <app>, with its stable and canary Services (no namespace). */
function rolloutOf(name: string, app: string, namespace?: string): Obj {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec: {
      replicas: 2,
      progressDeadlineAbort: true,
      selector: { matchLabels: { app } },
      template: {
        metadata: { labels: { app } },
        spec: {
          containers: [
            {
              name: 'app',
              image: `ghcr.io/acme/${app}:1.0`,
              readinessProbe: { httpGet: { path: '/healthz', port: 8080 } },
            },
          ],
        },
      },
      strategy: {
        canary: { canaryService: `${name}-canary`, stableService: name, steps: [{ setWeight: 20 }, { pause: {} }] },
      },
    },
  };
}
const serviceOf = (name: string, app: string, namespace?: string): Obj => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, ...(namespace ? { namespace } : {}) },
  spec: { selector: { app }, ports: [{ port: 80, targetPort: 8080 }] },
});
const pdbOf = (name: string, app: string): Obj => ({
  apiVersion: 'policy/v1',
  kind: 'PodDisruptionBudget',
  metadata: { name },
  spec: { maxUnavailable: 1, selector: { matchLabels: { app } } },
});

describe('two applications in one scan', () => {
  test('same-named Services in different folders and namespaces: each Rollout is checked against its own', () => {
    const dir = repo({
      // shop: namespace from its kustomization; billing: no namespace at all (left to kubectl -n).
      'apps/shop/kustomization.yaml': 'namespace: shop\nresources:\n- rollout.yaml\n- services.yaml\n',
      'apps/shop/rollout.yaml': [rolloutOf('web', 'shop-web'), pdbOf('web', 'shop-web')],
      'apps/shop/services.yaml': [serviceOf('web', 'shop-web'), serviceOf('web-canary', 'shop-web')],
      'apps/billing/rollout.yaml': [rolloutOf('web', 'billing-web'), pdbOf('web', 'billing-web')],
      'apps/billing/services.yaml': [serviceOf('web', 'billing-web'), serviceOf('web-canary', 'billing-web')],
    });
    const f = lint(dir);
    // Before scoping, each Rollout met the other application's Service web (selector app: <other>):
    // RW731 "selects a label the pod template does not carry".
    expect(f.filter((x) => x.ruleId.startsWith('RW7'))).toEqual([]);
    expect(f.map((x) => `${rel(dir, x)} ${x.ruleId.split('-')[0]} ${x.severity}`).sort()).toEqual([
      'apps/billing/rollout.yaml RW304 info',
      'apps/shop/rollout.yaml RW304 info',
    ]);
  });

  test('several candidates in scope, or none, is info that says so; never a pick and never an error', () => {
    const dir = repo({
      // Two definitions of Service web in one folder (variants of a sample), the Rollout in a third file.
      'apps/variants/rollout.yaml': [rolloutOf('web', 'web'), pdbOf('web', 'web')],
      'apps/variants/service-a.yaml': [serviceOf('web', 'web'), serviceOf('web-canary', 'web')],
      'apps/variants/service-b.yaml': [serviceOf('web', 'other')],
      // A Rollout whose Services exist only in another application's folder.
      'apps/orphan/rollout.yaml': [rolloutOf('api', 'api'), pdbOf('api', 'api')],
      'apps/elsewhere/services.yaml': [serviceOf('api', 'not-the-orphan'), serviceOf('api-canary', 'not-the-orphan')],
    });
    const f = lint(dir).filter((x) => x.ruleId.startsWith('RW7'));
    expect(f.map((x) => `${rel(dir, x)} ${x.ruleId.split('-')[0]} ${x.severity} ${x.path}`)).toEqual([
      'apps/orphan/rollout.yaml RW730 info spec.strategy.canary.canaryService',
      'apps/orphan/rollout.yaml RW730 info spec.strategy.canary.stableService',
      'apps/variants/rollout.yaml RW730 info spec.strategy.canary.stableService',
    ]);
    expect(f[2].message).toMatch(
      /^2 objects named Service\/web are deployed with this Rollout \(Service\/web \(.*service-a.yaml\), Service\/web \(.*service-b.yaml\)\): not checked/,
    );
    expect(f[1].message).toMatch(
      /Info, not an error: no Service named api is deployed with this Rollout in the linted manifests \(same namespace and application\), and it may be created elsewhere .*Service\/api \(.*apps\/elsewhere\/services.yaml\) is in another application's folder or namespace and was not used/,
    );
  });

  test("an HPA of another application does not set a workload's replicas; a PDB of another application is not counted and is named at info", () => {
    const deployment = (name: string, app: string, replicas?: number): Obj => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name },
      spec: {
        ...(replicas !== undefined ? { replicas } : {}),
        strategy: { rollingUpdate: { maxUnavailable: 0 } },
        selector: { matchLabels: { app } },
        template: {
          metadata: { labels: { app } },
          spec: { containers: [{ name: 'app', image: `ghcr.io/acme/${app}:1.0`, ports: [{ containerPort: 8080 }] }] },
        },
      },
    });
    const hpa = {
      apiVersion: 'autoscaling/v2',
      kind: 'HorizontalPodAutoscaler',
      metadata: { name: 'api' },
      spec: {
        scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'api' },
        minReplicas: 3,
        maxReplicas: 10,
      },
    };
    const dir = repo({
      'team-a/api.yaml': [deployment('api', 'api', 1)],
      'team-b/api.yaml': [deployment('api', 'api'), hpa],
      'team-c/web.yaml': [deployment('web', 'web', 3)],
      'team-d/web.yaml': [deployment('web2', 'web', 2), pdbOf('web', 'web')],
    });
    const f = lint(dir).filter((x) => x.ruleId.startsWith('RW601'));
    expect(f.map((x) => `${rel(dir, x)} ${x.severity} ${x.object}`)).toEqual([
      'team-b/api.yaml warning Deployment/api',
      'team-c/web.yaml info Deployment/web',
    ]);
    expect(f[0].message).toContain('3-10 replicas (HorizontalPodAutoscaler/api minReplicas 3, maxReplicas 10)');
    expect(f[1].message).toMatch(
      /3 replicas; no PodDisruptionBudget deployed with it .* but PodDisruptionBudget\/web \(.*team-d\/web.yaml\) in another application's folder does: not counted/,
    );
  });

  test('objects without a namespace in one folder share a scope; part-of labels that differ separate them', () => {
    const labelled = (o: Obj, partOf: string): Obj => ({
      ...o,
      metadata: { ...o.metadata, labels: { 'app.kubernetes.io/part-of': partOf } },
    });
    const dir = repo({
      'all-in-one.yaml': [
        labelled(rolloutOf('web', 'shop-web'), 'shop'),
        labelled(pdbOf('web', 'shop-web'), 'shop'),
        labelled(serviceOf('web', 'other-web'), 'other'),
        labelled(serviceOf('web-canary', 'other-web'), 'other'),
        labelled(serviceOf('web', 'shop-web'), 'shop'),
        labelled(serviceOf('web-canary', 'shop-web'), 'shop'),
      ],
    });
    expect(lint(dir).filter((x) => x.ruleId.startsWith('RW7'))).toEqual([]);
  });

  test("the namespace default of an Argo CD Application's destination, and where it came from", () => {
    const dir = repo({
      'argocd/shop.yaml': [
        {
          apiVersion: 'argoproj.io/v1alpha1',
          kind: 'Application',
          metadata: { name: 'shop', namespace: 'argocd' },
          spec: {
            source: { repoURL: 'https://example.com/repo.git', path: 'apps/shop' },
            destination: { server: 'https://kubernetes.default.svc', namespace: 'shop' },
          },
        },
      ],
      'apps/shop/web.yaml': [serviceOf('web', 'web')],
      'apps/billing/web.yaml': [serviceOf('web', 'web')],
    });
    const inputs = ['argocd/shop.yaml', 'apps/shop/web.yaml', 'apps/billing/web.yaml'].map((f) => ({
      file: path.join(dir, f),
      text: fs.readFileSync(path.join(dir, f), 'utf8'),
    }));
    const layout = layoutScan(inputs, { kustomize: null, repoRoot: dir });
    const scope = (file: string) => layout.scopes.get(layout.objects.find((o) => o.file.endsWith(file))!)!;
    expect(scope('apps/shop/web.yaml')).toMatchObject({
      namespace: 'shop',
      namespaceFrom: 'spec.destination.namespace shop of Application/argocd/shop',
      builds: ['a:shop'],
    });
    expect(scope('apps/billing/web.yaml').namespace).toBeUndefined();
  });
});
