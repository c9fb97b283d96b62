import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Chart } from 'cdk8s';
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
    const platform = new Platform({ gateway: p.gateway, prometheusAddress: p.prometheusAddress, runbookBaseUrl: p.runbookBaseUrl, kubernetesVersion: KubernetesVersion.V1_33, shutdownDelay: ShutdownDelay.sleepAction() });
    const out = path.join(root, 'dist');
    const r = synthesize((outdir) => {
      const app = new App({ outdir });
      new HttpService(new Chart(app, 'checkout-api', { namespace: 'checkout' }), 'checkout-api', {
        ...checkoutApiProps(), platform,
        sidecars: [{ name: 'proxy', image: 'ghcr.io/acme/proxy:1.0.0', resources: { cpu: '100m', memory: '64Mi' } }],
      });
      return app;
    }, { outdir: out, validateSchemas: true, progress: () => undefined });
    const text = fs.readFileSync(path.join(out, 'checkout-api.k8s.yaml'), 'utf8');
    expect(text).toContain('sleep:');
    expect(text).toContain('restartPolicy: Always');
    expect(r.files).toContain('checkout-api.k8s.yaml');
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}, 60_000);
