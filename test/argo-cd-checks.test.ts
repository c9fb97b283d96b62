import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { JsonPatch } from 'cdk8s';
import { ArgoCdApplication, globRegExp } from '../src/constructs/argo-cd-application';
import { normalizeClusterUrl } from '../src/invariants/conflicts';
import { buildApp } from '../src/main';
import { synthesize } from '../src/synth/synth';

/** The example app with a change to its prod Application (or to the app), synthesized for real. */
function synthWith(change: (app: ReturnType<typeof buildApp>, prod: ArgoCdApplication) => void, root: string): void {
  synthesize((outdir) => {
    const app = buildApp(outdir);
    const prod = app.node.findAll().find((c): c is ArgoCdApplication => c instanceof ArgoCdApplication && c.node.id === 'checkout-api-prod')!;
    change(app, prod);
    return app;
  }, { outdir: path.join(root, 'dist'), progress: () => undefined });
}

describe('the Argo CD Application is checked like the rest', () => {
  let root: string;
  beforeEach(() => { root = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-argocd-')); });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));
  const patched = (p: JsonPatch) => (_: unknown, prod: ArgoCdApplication) => prod.application.addJsonPatch(p);

  test('unpatched, it synthesizes', () => {
    synthWith(() => undefined, root);
    expect(fs.existsSync(path.join(root, 'dist', 'argocd', 'prod', 'checkout-api.k8s.yaml'))).toBe(true);
  });
  test.each([
    ['ignoreDifferences removed', JsonPatch.remove('/spec/ignoreDifferences'), /INV01-decided-values-unpatched Application\/checkout-api-prod \(.*\) spec\.ignoreDifferences: a patch changed/],
    ['RespectIgnoreDifferences added', JsonPatch.add('/spec/syncPolicy/syncOptions/-', 'RespectIgnoreDifferences=true'), /spec\.syncPolicy\.syncOptions: a patch changed[\s\S]*RespectIgnoreDifferences=true: Argo CD would apply the whole live array/],
    ['selfHeal false', JsonPatch.replace('/spec/syncPolicy/automated/selfHeal', false), /spec\.syncPolicy\.automated\.selfHeal: a patch changed .* from true to false; rollwise decided spec\.syncPolicy\.automated with a reason.*The reason it would keep claiming: "Git is the only way in/],
    ['include "*"', JsonPatch.replace('/spec/source/directory/include', '*'), /spec\.source\.directory\.include: a patch changed/],
  ])('%s: refused', (_, p, message) => {
    expect(() => synthWith(patched(p), root)).toThrow(message);
    expect(fs.existsSync(path.join(root, 'dist'))).toBe(false);
  });
  test('an include that matches no written file (decided so, not patched): refused', () => {
    expect(() => synthesize((outdir) => {
      const app = buildApp(outdir);
      const prod = app.node.findAll().find((c): c is ArgoCdApplication => c instanceof ArgoCdApplication && c.node.id === 'checkout-api-prod')!;
      const chart = prod.node.scope as never;
      new ArgoCdApplication(chart, 'checkout-api-typo', { service: app.node.findAll().find((c) => c.node.id === 'checkout-api' && c.node.path.startsWith('prod'))! as never, settings: { repoURL: 'https://github.com/acme/deploy.git', path: 'dist/prod' }, include: 'checkout-apl.k8s.yaml' });
      return app;
    }, { outdir: path.join(root, 'dist'), progress: () => undefined })).toThrow(/"checkout-apl\.k8s\.yaml" does not match the service's own file prod\/checkout-api\.k8s\.yaml/);
  });
  test('two Applications with one name in one Argo CD namespace: refused', () => {
    expect(() => synthWith((_, prod) => prod.application.addJsonPatch(JsonPatch.replace('/metadata/name', 'checkout-api-dev')), root)).toThrow(/Application argocd\/checkout-api-dev: written by both/);
  });
});

describe('helpers', () => {
  test('globRegExp', () => {
    expect(globRegExp('checkout-api.k8s.yaml').test('checkout-api.k8s.yaml')).toBe(true);
    expect(globRegExp('checkout-api.k8s.yaml').test('checkout-apixk8s.yaml')).toBe(false);
    expect(globRegExp('*.k8s.yaml').test('a.k8s.yaml')).toBe(true);
    expect(globRegExp('{a,b}.yaml').test('b.yaml')).toBe(true);
    expect(globRegExp('[ab].yaml').test('c.yaml')).toBe(false);
  });
  test('cluster URLs are compared in one spelling', () => {
    expect(normalizeClusterUrl('HTTPS://Kubernetes.Default.SVC:443/')).toBe('https://kubernetes.default.svc');
    expect(normalizeClusterUrl('https://10.0.0.1:6443')).toBe('https://10.0.0.1:6443');
  });
});
