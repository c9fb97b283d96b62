import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Chart, JsonPatch } from 'cdk8s';
import { ArgoCdApplication, globRegExp } from '../src/constructs/argo-cd-application';
import { normalizeClusterUrl } from '../src/invariants/conflicts';
import { HttpService } from '../src/constructs/http-service';
import { Platform } from '../src/decisions/platform';
import { checkoutApiProps, examplePlatform } from '../src/example';
import { acceptPatch } from '../src/invariants/decided-values';
import { buildApp } from '../src/main';
import { synthesize } from '../src/synth/synth';

/** The example app with a change to its prod Application (or to the app), synthesized for real. */
function synthWith(change: (app: ReturnType<typeof buildApp>, prod: ArgoCdApplication) => void, root: string): void {
  synthesize(
    (outdir) => {
      const app = buildApp(outdir);
      const prod = app.node
        .findAll()
        .find((c): c is ArgoCdApplication => c instanceof ArgoCdApplication && c.node.id === 'checkout-api-prod')!;
      change(app, prod);
      return app;
    },
    { outdir: path.join(root, 'dist'), progress: () => undefined },
  );
}

describe('the Argo CD Application is checked like the rest', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-argocd-'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));
  const patched = (p: JsonPatch) => (_: unknown, prod: ArgoCdApplication) => prod.application.addJsonPatch(p);

  test('unpatched, it synthesizes', () => {
    synthWith(() => undefined, root);
    expect(fs.existsSync(path.join(root, 'dist', 'argocd', 'prod', 'checkout-api.k8s.yaml'))).toBe(true);
  });
  test.each([
    [
      'ignoreDifferences removed',
      JsonPatch.remove('/spec/ignoreDifferences'),
      /INV01-decided-values-unpatched Application\/checkout-api-prod \(.*\) spec\.ignoreDifferences: a patch changed/,
    ],
    [
      'RespectIgnoreDifferences added',
      JsonPatch.add('/spec/syncPolicy/syncOptions/-', 'RespectIgnoreDifferences=true'),
      /spec\.syncPolicy\.syncOptions: a patch changed[\s\S]*RespectIgnoreDifferences=true: Argo CD would apply the whole live array/,
    ],
    [
      'selfHeal false',
      JsonPatch.replace('/spec/syncPolicy/automated/selfHeal', false),
      /spec\.syncPolicy\.automated\.selfHeal: a patch changed .* from true to false; rollwise decided spec\.syncPolicy\.automated with a reason.*The reason it would keep claiming: "Git is the only way in/,
    ],
    [
      'include "*"',
      JsonPatch.replace('/spec/source/directory/include', '*'),
      /spec\.source\.directory\.include: a patch changed/,
    ],
  ])('%s: refused', (_, p, message) => {
    expect(() => synthWith(patched(p), root)).toThrow(message);
    expect(fs.existsSync(path.join(root, 'dist'))).toBe(false);
  });
  test('an include that matches no written file (decided so, not patched): refused', () => {
    expect(() =>
      synthesize(
        (outdir) => {
          const app = buildApp(outdir);
          const prod = app.node
            .findAll()
            .find((c): c is ArgoCdApplication => c instanceof ArgoCdApplication && c.node.id === 'checkout-api-prod')!;
          const chart = prod.node.scope as never;
          new ArgoCdApplication(chart, 'checkout-api-typo', {
            service: app.node
              .findAll()
              .find((c) => c.node.id === 'checkout-api' && c.node.path.startsWith('prod'))! as never,
            settings: { repoURL: 'https://github.com/acme/deploy.git', path: 'dist/prod' },
            include: 'checkout-apl.k8s.yaml',
          });
          return app;
        },
        { outdir: path.join(root, 'dist'), progress: () => undefined },
      ),
    ).toThrow(/"checkout-apl\.k8s\.yaml" does not match the service's own file prod\/checkout-api\.k8s\.yaml/);
  });
  test('two Applications with one name in one Argo CD namespace: refused', () => {
    expect(() =>
      synthWith(
        (_, prod) => prod.application.addJsonPatch(JsonPatch.replace('/metadata/name', 'checkout-api-dev')),
        root,
      ),
    ).toThrow(/Application argocd\/checkout-api-dev: written by both/);
  });
});

describe('Argo CD settings and the written Application as Argo CD and the API server read them (issue 22 b)', () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-argocd-'));
  });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));
  const argoCd = (extra: Record<string, unknown>) => ({
    repoURL: 'https://github.com/acme/deploy.git',
    path: 'dist',
    ...extra,
  });
  test.each([
    ['path', '../../etc', /platform\.argoCd\.path.*app path outside root/],
    ['path', '/dist', /platform\.argoCd\.path.*app path is absolute/],
    ['path', undefined, /platform\.argoCd\.path = unset: is required/],
    ['project', 'My Project', /platform\.argoCd\.project.*no AppProject can have this name/],
    ['server', 'not a url', /platform\.argoCd\.server.*absolute https URL/],
  ])('Platform argoCd.%s = %j is refused', (key, value, message) => {
    expect(() => new Platform({ argoCd: argoCd({ [key]: value }) as never })).toThrow(message);
  });
  test('near misses: dist/prod, ./dist, a dotted project name, a registered cluster URL', () => {
    expect(
      () =>
        new Platform({
          argoCd: argoCd({ path: 'dist/prod', project: 'shop.team-a', server: 'https://10.0.0.1:6443' }),
        }),
    ).not.toThrow();
    expect(() => new Platform({ argoCd: argoCd({ path: './dist/../dist' }) })).not.toThrow();
  });
  test('ArgoCdApplication checks settings given to it directly', () => {
    const app = new App({ outdir: path.join(root, 'dist') });
    const svc = new HttpService(new Chart(app, 'c', { namespace: 'checkout' }), 'checkout-api', checkoutApiProps());
    expect(
      () =>
        new ArgoCdApplication(new Chart(app, 'argo'), 'checkout-api-app', {
          service: svc,
          settings: argoCd({ path: '../x' }) as never,
        }),
    ).toThrow(/settings\.path = \.\.\/x: leaves the repository/);
  });
  const patched = (p: JsonPatch, accept?: string) => (_: unknown, prod: ArgoCdApplication) => {
    prod.application.addJsonPatch(p);
    if (accept) acceptPatch(prod.application, accept, 'reviewed with the platform team in OPS-1234, see the runbook');
  };
  test('source.path patched to /etc: refused as Argo CD refuses it', () => {
    expect(() => synthWith(patched(JsonPatch.replace('/spec/source/path', '/etc')), root)).toThrow(
      /spec\.source\.path: "\/etc" is absolute/,
    );
  });
  test('destination namespace patched to elsewhere: refused on what is written', () => {
    expect(() => synthWith(patched(JsonPatch.replace('/spec/destination/namespace', 'elsewhere')), root)).toThrow(
      /spec\.destination\.namespace: "elsewhere" is not the service's namespace checkout/,
    );
  });
  test('an enforce label "bogus", even accepted, is refused: the API server refuses the namespace', () => {
    const labelPath = 'spec.syncPolicy.managedNamespaceMetadata.labels["pod-security.kubernetes.io/enforce"]';
    expect(() =>
      synthWith(
        patched(
          JsonPatch.replace(
            '/spec/syncPolicy/managedNamespaceMetadata/labels/pod-security.kubernetes.io~1enforce',
            'bogus',
          ),
          labelPath,
        ),
        root,
      ),
    ).toThrow(/"bogus" is not a Pod Security level/);
  });
  test('near miss: an accepted enforce "baseline" is written', () => {
    const labelPath = 'spec.syncPolicy.managedNamespaceMetadata.labels["pod-security.kubernetes.io/enforce"]';
    synthWith(
      patched(
        JsonPatch.replace(
          '/spec/syncPolicy/managedNamespaceMetadata/labels/pod-security.kubernetes.io~1enforce',
          'baseline',
        ),
        labelPath,
      ),
      root,
    );
  });
  test('two Applications into one namespace: their labels are compared as written (an accepted patch included)', () => {
    const out = path.join(root, 'dist');
    expect(() =>
      synthesize(
        (outdir) => {
          const app = new App({ outdir });
          const platform = examplePlatform('prod', 'https://kubernetes.default.svc');
          const a = new HttpService(new Chart(app, 'a', { namespace: 'shop' }), 'checkout-api', {
            ...checkoutApiProps(),
            platform,
          });
          const b = new HttpService(new Chart(app, 'b', { namespace: 'shop' }), 'payments-api', {
            ...checkoutApiProps(),
            platform,
            route: { hostnames: ['payments.example.com'] },
          });
          const argo = new Chart(app, 'argo');
          new ArgoCdApplication(argo, 'checkout-api-prod', { service: a, settings: platform.argoCd! });
          const pb = new ArgoCdApplication(argo, 'payments-api-prod', { service: b, settings: platform.argoCd! });
          pb.application.addJsonPatch(
            JsonPatch.replace(
              '/spec/syncPolicy/managedNamespaceMetadata/labels/pod-security.kubernetes.io~1enforce',
              'baseline',
            ),
          );
          acceptPatch(
            pb.application,
            'spec.syncPolicy.managedNamespaceMetadata.labels["pod-security.kubernetes.io/enforce"]',
            'payments runs a legacy agent that needs baseline, OPS-1234',
          );
          return app;
        },
        { outdir: out, progress: () => undefined },
      ),
    ).toThrow(
      /Namespace shop on cluster .*keep different labels on it .*pod-security\.kubernetes\.io\/enforce: restricted vs baseline/,
    );
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
