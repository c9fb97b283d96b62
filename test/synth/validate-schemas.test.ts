import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, App, Chart } from 'cdk8s';
import { buildApp } from '../../src/main';
import { HttpService } from '../../src/constructs/http-service';
import { KubernetesVersion } from '../../src/decisions/kubernetes-version';
import { Platform, ShutdownDelay } from '../../src/decisions/platform';
import { checkoutApiProps, examplePlatform } from '../../src/example';
import { synthesize } from '../../src/synth/synth';

/** --validate-schemas validates the written files at the app's Kubernetes version, not always 1.28. */
test('a 1.33 platform: the preStop sleep action and native sidecars pass --validate-schemas', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-validate-'));
  try {
    const p = examplePlatform();
    const platform = new Platform({
      gateway: p.gateway,
      prometheusAddress: p.prometheusAddress,
      runbookBaseUrl: p.runbookBaseUrl,
      kubernetesVersion: KubernetesVersion.V1_33,
      shutdownDelay: ShutdownDelay.sleepAction(),
    });
    const out = path.join(root, 'dist');
    const r = synthesize(
      (outdir) => {
        const app = new App({ outdir });
        new HttpService(new Chart(app, 'checkout-api', { namespace: 'checkout' }), 'checkout-api', {
          ...checkoutApiProps(),
          platform,
          sidecars: [{ name: 'proxy', image: 'ghcr.io/acme/proxy:1.0.0', resources: { cpu: '100m', memory: '64Mi' } }],
        });
        return app;
      },
      { outdir: out, validateSchemas: true, progress: () => undefined },
    );
    const text = fs.readFileSync(path.join(out, 'checkout-api.k8s.yaml'), 'utf8');
    expect(text).toContain('sleep:');
    expect(text).toContain('restartPolicy: Always');
    expect(r.files).toContain('checkout-api.k8s.yaml');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}, 60_000);

/**
 * Issue 24: the Backstage catalog file is no Kubernetes object (Argo CD never applies it, and
 * Backstage validates it), so --validate-schemas leaves it out; the example estate with its
 * CatalogInfo passes, and a manifest the API server would refuse still fails.
 */
test('the example estate with its CatalogInfo passes --validate-schemas; the catalog file is written, not validated as a Kubernetes object', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-validate-catalog-'));
  try {
    const out = path.join(root, 'dist');
    const r = synthesize((outdir) => buildApp(outdir), {
      outdir: out,
      validateSchemas: true,
      progress: () => undefined,
    });
    expect(r.files).toContain('prod/checkout-api.catalog-info.yaml');
    expect(fs.readFileSync(path.join(out, 'prod', 'checkout-api.catalog-info.yaml'), 'utf8')).toMatch(
      /apiVersion: backstage\.io\/v1alpha1\nkind: Component/,
    );
    // the manifests beside it are still validated: a kind without a schema fails
    expect(() =>
      synthesize(
        (outdir) => {
          const app = buildApp(outdir);
          new ApiObject(new Chart(app, 'extra', { namespace: 'checkout' }), 'x', {
            apiVersion: 'backstage.io/v1alpha1',
            kind: 'Component',
            metadata: { name: 'x' },
          });
          return app;
        },
        { outdir: path.join(root, 'other'), validateSchemas: true, progress: () => undefined },
      ),
    ).toThrow(/extra\.k8s\.yaml: Component\/x no schema for backstage\.io\/v1alpha1 Component/);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}, 120_000);
