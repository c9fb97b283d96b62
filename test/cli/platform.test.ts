import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as YAML from 'yaml';
import { main } from '../../src/cli/main';
import { SchemaValidator } from '../../src/schemas/validator';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(
    ['node', 'rollwise', ...args],
    (t) => {
      out += t;
    },
    (t) => {
      err += t;
    },
  );
  return { code, out, err };
}

type Obj = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [k: string]: unknown;
};

describe('rollwise platform', () => {
  let objects: Obj[];
  let text: string;
  beforeAll(async () => {
    const r = await cli(['platform', '--monitor-label', 'release=kube-prometheus-stack']);
    expect(r.code).toBe(0);
    text = r.out;
    objects = YAML.parseAllDocuments(text).map((d) => d.toJS() as Obj);
  });

  test('emits the plugin registration and RBAC and the two PodMonitors, each schema-valid', () => {
    expect(objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`)).toEqual([
      'ConfigMap/argo-rollouts/argo-rollouts-config',
      'ClusterRole//argo-rollouts-gateway-api-plugin',
      'ClusterRoleBinding//argo-rollouts-gateway-api-plugin',
      'PodMonitor/envoy-gateway-system/envoy-proxies',
      'PodMonitor/argo-rollouts/argo-rollouts-controller',
    ]);
    const validator = SchemaValidator.load();
    for (const o of objects)
      expect([`${o.kind}/${o.metadata.name}`, validator.validate(o)]).toEqual([`${o.kind}/${o.metadata.name}`, []]);
  });

  test('the values the cluster components need, with their reasons', () => {
    const [config, role, binding, envoy, rollouts] = objects as unknown as [
      Obj & { data: { trafficRouterPlugins: string } },
      Obj & { rules: { resources: string[]; verbs: string[] }[] },
      Obj & { subjects: unknown[] },
      Obj & {
        spec: {
          selector: { matchLabels: Record<string, string> };
          podMetricsEndpoints: { port: string; path: string }[];
        };
      },
      Obj & { spec: { podMetricsEndpoints: { port: string; path: string }[] } },
    ];
    expect(YAML.parse(config.data.trafficRouterPlugins)).toEqual([
      {
        name: 'argoproj-labs/gatewayAPI',
        location:
          'https://github.com/argoproj-labs/rollouts-plugin-trafficrouter-gatewayapi/releases/download/v0.15.0/gatewayapi-plugin-linux-amd64',
      },
    ]);
    expect(role.rules).toEqual([
      { apiGroups: [''], resources: ['services'], verbs: ['get'] },
      {
        apiGroups: ['gateway.networking.k8s.io'],
        resources: ['httproutes'],
        verbs: ['get', 'list', 'update', 'patch'],
      },
    ]);
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'argo-rollouts', namespace: 'argo-rollouts' }]);
    expect(envoy.spec.selector.matchLabels).toEqual({
      'app.kubernetes.io/name': 'envoy',
      'app.kubernetes.io/component': 'proxy',
      'app.kubernetes.io/managed-by': 'envoy-gateway',
    });
    expect(envoy.spec.podMetricsEndpoints).toEqual([{ port: 'metrics', path: '/stats/prometheus' }]);
    // the controller's own namespace label (the Rollout's) must survive the scrape: honorLabels
    expect(rollouts.spec.podMetricsEndpoints).toEqual([{ port: 'metrics', path: '/metrics', honorLabels: true }]);
    expect(envoy.metadata.labels?.release).toBe('kube-prometheus-stack');
    for (const o of [config, role, envoy, rollouts])
      expect(o.metadata.annotations?.['rollwise.dev/reasons']).toBeTruthy();
    expect(text).toMatch(/# .*restart the controller.*\n/);
  });

  test('--arch arm64 picks that binary; a bad arch or label is refused, naming it', async () => {
    expect((await cli(['platform', '--arch', 'arm64'])).out).toContain('gatewayapi-plugin-linux-arm64');
    const bad = await cli(['platform', '--arch', 'x86']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('--arch = x86');
    const label = await cli(['platform', '--monitor-label', 'release']);
    expect(label.code).toBe(2);
    expect(label.err).toContain('--monitor-label = release');
  });

  test('--plugin-sha256 pins the download (argo-rollouts v1.9.1 PluginItem.Sha256); without it the reason says what is trusted and synth warns', async () => {
    const sha = 'ab'.repeat(32);
    const pinned = await cli([
      'platform',
      '--plugin-sha256',
      sha.toUpperCase(),
      '--monitor-label',
      'release=kube-prometheus-stack',
    ]);
    expect(pinned.code).toBe(0);
    expect(pinned.err).toBe('');
    const config = YAML.parseAllDocuments(pinned.out).map(
      (d) => d.toJS() as Obj & { data?: { trafficRouterPlugins: string } },
    )[0];
    expect(YAML.parse(config.data!.trafficRouterPlugins)[0].sha256).toBe(sha);
    expect(config.metadata.annotations?.['rollwise.dev/reasons']).toContain('Pinned by sha256 (input, pluginSha256)');
    const unpinned = objects[0];
    expect(unpinned.metadata.annotations?.['rollwise.dev/reasons']).toMatch(
      /Not pinned by checksum .*what is trusted is GitHub's TLS and the plugin project's release assets/,
    );
    const bad = await cli(['platform', '--plugin-sha256', 'abc']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('pluginSha256 = abc');
  });

  test("without --monitor-label: a warning that kube-prometheus-stack's default podMonitorSelector (release: <Helm release>) ignores the PodMonitors; near miss: with one, none", async () => {
    const bare = await cli(['platform', '--plugin-sha256', 'ab'.repeat(32)]);
    expect(bare.code).toBe(0);
    expect(bare.err).toMatch(
      /podMonitorLabels is not set \(rollwise platform --monitor-label\).*release: <its Helm release name> \(podMonitorSelectorNilUsesHelmValues: true by default, kube-prometheus-stack 88\.0\.0\).*every canary analysis is Inconclusive and every release pauses.*--monitor-label release=kube-prometheus-stack/,
    );
    const labelled = await cli(['platform', '--plugin-sha256', 'ab'.repeat(32), '--monitor-label', 'prometheus=main']);
    expect(labelled.err).toBe('');
  });

  test("--namespace without --kubernetes-version: enforce-version v1.28, and the reason and a warning say it is the flag's default; near miss: --kubernetes-version 1.33 names the input, no warning", async () => {
    const flags = [
      '--plugin-sha256',
      'ab'.repeat(32),
      '--monitor-label',
      'release=kube-prometheus-stack',
      '--namespace',
      'shop',
    ];
    const ns = (out: string) =>
      YAML.parseAllDocuments(out)
        .map((d) => d.toJS() as Obj)
        .find((o) => o.kind === 'Namespace')!;
    const bare = await cli(['platform', ...flags]);
    expect(bare.code).toBe(0);
    expect(ns(bare.out).metadata.labels?.['pod-security.kubernetes.io/enforce-version']).toBe('v1.28');
    expect(ns(bare.out).metadata.annotations?.['rollwise.dev/reasons']).toMatch(
      /enforce-version v1\.28, the default of --kubernetes-version, which was not given: pass your cluster's version, e.g\. --kubernetes-version 1\.33/,
    );
    expect(bare.err).toMatch(
      /^warning: --kubernetes-version not given: the namespaces enforce Pod Security as Kubernetes 1\.28 defines it/m,
    );
    const given = await cli(['platform', ...flags, '--kubernetes-version', '1.33']);
    expect(ns(given.out).metadata.labels?.['pod-security.kubernetes.io/enforce-version']).toBe('v1.33');
    expect(ns(given.out).metadata.annotations?.['rollwise.dev/reasons']).toMatch(
      /enforce-version v1\.33, input \(--kubernetes-version 1\.33\)/,
    );
    expect(given.err).toBe('');
    // no namespace printed: nothing to warn about
    expect((await cli(['platform', ...flags.slice(0, 4)])).err).toBe('');
  });

  test('--out writes the file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-platform-'));
    try {
      const file = path.join(dir, 'platform.yaml');
      expect((await cli(['platform', '--out', file])).code).toBe(0);
      expect(fs.readFileSync(file, 'utf8')).toContain('kind: PodMonitor');
      expect(fs.readdirSync(dir)).toEqual(['platform.yaml']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
