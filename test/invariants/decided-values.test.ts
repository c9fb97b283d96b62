import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Chart, JsonPatch } from 'cdk8s';
import { ArgoCdApplication } from '../../src/constructs/argo-cd-application';
import { ClusterPrerequisites } from '../../src/constructs/cluster-prerequisites';
import { ServiceNamespace } from '../../src/constructs/service-namespace';
import { acceptPatch } from '../../src/invariants/decided-values';
import { buildApp } from '../../src/main';
import { synthesize } from '../../src/synth/synth';

/**
 * INV01 on every object of the app (issue 22 item 9): a decided value an escape-hatch patch changed
 * is refused unless accepted with acceptPatch(object, path, because), also on the objects rollwise
 * decides outside a service: the Argo CD Application, a ServiceNamespace, the plugin ConfigMap.
 */
let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-decided-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));
const out = () => path.join(root, 'dist');
const because = 'the shop namespace also runs the legacy batch importer, reviewed in OPS-1234';
const ENFORCE = '/metadata/labels/pod-security.kubernetes.io~1enforce';

function run(build: (app: App) => void): void {
  synthesize(
    (outdir) => {
      const app = new App({ outdir });
      build(app);
      return app;
    },
    { outdir: out(), progress: () => undefined },
  );
}

function example(change: (prod: ArgoCdApplication) => void): void {
  synthesize(
    (outdir) => {
      const app = buildApp(outdir);
      change(
        app.node
          .findAll()
          .find((c): c is ArgoCdApplication => c instanceof ArgoCdApplication && c.node.id === 'checkout-api-prod')!,
      );
      return app;
    },
    { outdir: out(), progress: () => undefined },
  );
}

describe("the Argo CD Application's namespace labels", () => {
  const patch = JsonPatch.replace(
    '/spec/syncPolicy/managedNamespaceMetadata/labels/pod-security.kubernetes.io~1enforce',
    'privileged',
  );
  const labelPath = 'spec.syncPolicy.managedNamespaceMetadata.labels["pod-security.kubernetes.io/enforce"]';
  test('patched to privileged: refused at the path, quoting the reason that would lie', () => {
    expect(() => example((prod) => prod.application.addJsonPatch(patch))).toThrow(
      /INV01-decided-values-unpatched Application\/checkout-api-prod \(.*\) spec\.syncPolicy\.managedNamespaceMetadata\.labels\["pod-security\.kubernetes\.io\/enforce"\]: a patch changed .* from "restricted" to "privileged".*enforces \\?"restricted/,
    );
    expect(fs.existsSync(out())).toBe(false);
  });
  test('accepted with a reason: written, and the reasons annotation says the reason given', () => {
    example((prod) => {
      prod.application.addJsonPatch(patch);
      acceptPatch(prod.application, labelPath, because);
    });
    const yaml = fs.readFileSync(path.join(out(), 'argocd', 'prod', 'checkout-api.k8s.yaml'), 'utf8');
    expect(yaml).toContain('pod-security.kubernetes.io/enforce: privileged');
    expect(yaml).toContain(`${labelPath}: Patched: ${because}`);
  });
  test('a placeholder reason is refused', () => {
    expect(() => example((prod) => acceptPatch(prod.application, labelPath, 'TODO'))).toThrow(/acceptPatch/);
  });
});

describe('a ServiceNamespace and the plugin ConfigMap', () => {
  test('a ServiceNamespace patched to privileged is refused; accepted, it is written', () => {
    expect(() =>
      run((app) =>
        new ServiceNamespace(new Chart(app, 'ns'), 'ns', { name: 'shop' }).namespace.addJsonPatch(
          JsonPatch.replace(ENFORCE, 'privileged'),
        ),
      ),
    ).toThrow(
      /INV01-decided-values-unpatched Namespace\/shop .* metadata\.labels\["pod-security\.kubernetes\.io\/enforce"\]: a patch changed/,
    );
    run((app) => {
      const ns = new ServiceNamespace(new Chart(app, 'ns'), 'ns', { name: 'shop' });
      ns.namespace.addJsonPatch(JsonPatch.replace(ENFORCE, 'privileged'));
      acceptPatch(ns.namespace, 'metadata.labels["pod-security.kubernetes.io/enforce"]', because);
    });
  });
  test('near miss: a patch that adds an annotation rollwise did not decide passes', () => {
    run((app) =>
      new ServiceNamespace(new Chart(app, 'ns'), 'ns', { name: 'shop' }).namespace.addJsonPatch(
        JsonPatch.add('/metadata/annotations/acme.com~1owner', 'team-checkout'),
      ),
    );
  });
  test("the plugin ConfigMap's trafficRouterPlugins replaced by a patch is refused", () => {
    expect(() =>
      run((app) =>
        new ClusterPrerequisites(new Chart(app, 'pre'), 'pre', {
          pluginSha256: 'a'.repeat(64),
        }).pluginConfig.addJsonPatch(
          JsonPatch.replace(
            '/data/trafficRouterPlugins',
            '- name: "argoproj-labs/gatewayAPI"\n  location: "https://example.com/other"',
          ),
        ),
      ),
    ).toThrow(
      /INV01-decided-values-unpatched ConfigMap\/argo-rollouts-config .* data\.trafficRouterPlugins: a patch changed/,
    );
  });
});
