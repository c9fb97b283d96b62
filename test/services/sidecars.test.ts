import { Chart, Duration, Testing } from 'cdk8s';
import { HttpService, HttpServiceProps } from '../../src/constructs/http-service';
import { SidecarProps } from '../../src/decisions/containers';
import { KubernetesVersion } from '../../src/decisions/kubernetes-version';
import { warningsOf } from '../../src/synth/output';
import { SchemaValidator } from '../../src/schemas/validator';
import { lintObjects } from '../../src/rules/synth-check';
import { threeServices, threeServicesPlatform } from '../fixtures/apps/three-services';
import { Manifest, workload } from '../support/manifests';

/**
 * Sidecars checked like the app (issue 24): the three-service app's Cloud SQL Auth Proxy, whose
 * /readiness dialled every instance up to v2.11.0 and no longer does from v2.11.1
 * (GoogleCloudPlatform/cloud-sql-proxy #2207), and whose health server listens on localhost:9090
 * unless told otherwise (cmd/root.go v2.14.1).
 */
const V1_33 = KubernetesVersion.V1_33;

function ordersApi(version: KubernetesVersion | undefined, sidecar: Partial<SidecarProps> = {}): { objs: Manifest[]; warnings: readonly string[] } {
  const props = threeServices(threeServicesPlatform(version))['orders-api'];
  const proxy = { ...props.sidecars![0], ...sidecar } as SidecarProps;
  const app = Testing.app();
  const chart = new Chart(app, 'orders-api', { namespace: 'shop' });
  new HttpService(chart, 'orders-api', { ...props, sidecars: [proxy] } as HttpServiceProps);
  return { objs: Testing.synth(chart) as Manifest[], warnings: warningsOf(app) };
}

const proxyOf = (objs: Manifest[], native: boolean) => {
  const pod = workload(objs).spec.template.spec;
  return (native ? pod.initContainers : pod.containers).find((c: { name: string }) => c.name === 'cloud-sql-proxy');
};
const port = (n: number) => ({ name: 'sql-health', port: n, readinessPath: '/readiness' });

describe('the three-service app with the Cloud SQL Auth Proxy sidecar', () => {
  test('on /readiness with a proxy that dials the database there (2.11.0): refused, and the fix names /liveness and /startup', () => {
    expect(() => ordersApi(V1_33, { image: 'gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.11.0' }))
      .toThrow(/sidecars\[0\]\.port\.readinessPath = \/readiness: the proxy 2\.11\.0's \/readiness dials every registered Cloud SQL instance .*empties the Service.*Fix: use readinessPath: "\/liveness".*startupProbe already waits on \/startup/);
    // on 1.28 too, where the sidecar is an ordinary container whose readiness counts for the pod's
    expect(() => ordersApi(undefined, { image: 'gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.8.0' })).toThrow(/2\.8\.0's \/readiness dials every registered Cloud SQL instance/);
  });

  test('pinned by digest: rollwise cannot tell the version, so /readiness is refused until declared', () => {
    const image = 'gcr.io/cloud-sql-connectors/cloud-sql-proxy@sha256:' + 'a'.repeat(64);
    expect(() => ordersApi(V1_33, { image })).toThrow(/names no version.*cannot tell.*pin a version tag.*readinessCallsDependency: \{ value: false/);
    const { objs } = ordersApi(V1_33, { image, port: { ...port(9801), readinessCallsDependency: { value: false, because: 'the digest is the 2.14.1 image, mirrored to our registry' } } });
    expect(workload(objs).metadata.annotations?.['rollwise.dev/reasons']).toContain('Overridden: the digest is the 2.14.1 image');
  });

  test('on /readiness of 2.14.1 (no dialling since 2.11.1): accepted, and the reason says why', () => {
    const { objs } = ordersApi(V1_33);
    const reasons = workload(objs).metadata.annotations?.['rollwise.dev/reasons'] ?? '';
    expect(reasons).toMatch(/spec\.template\.spec\.initContainers\[0\]\.readinessProbe\.httpGet: Cloud SQL Auth Proxy: the proxy 2\.14\.1 answers \/readiness from its own state .*since v2\.11\.1/);
  });

  test('on /liveness: accepted; the native sidecar has a startupProbe on /startup sized from the start-up budget, so the app starts after it', () => {
    const { objs } = ordersApi(V1_33, { port: { name: 'sql-health', port: 9801, readinessPath: '/liveness' }, startupBudget: Duration.seconds(45) });
    const proxy = proxyOf(objs, true);
    expect(proxy.restartPolicy).toBe('Always');
    expect(proxy.readinessProbe.httpGet).toEqual({ path: '/liveness', port: 'sql-health' });
    expect(proxy.startupProbe).toEqual({ httpGet: { path: '/startup', port: 'sql-health' }, periodSeconds: 5, timeoutSeconds: 3, failureThreshold: 9 });
    const reasons = workload(objs).metadata.annotations?.['rollwise.dev/reasons'] ?? '';
    expect(reasons).toMatch(/initContainers\[0\]\.startupProbe\.failureThreshold: Start-up budget 45 s \(sidecars\[0\]\.startupBudget\) \/ 5 s period = 9 attempts: the app starts only once the sidecar has started/);
    expect(reasons).toMatch(/initContainers\[0\]\.startupProbe\.httpGet: The Cloud SQL Auth Proxy's \/startup answers 200 once its listeners are up/);
    // the progress deadline counts the sidecar's start before the app's
    expect(reasons).toMatch(/spec\.progressDeadlineSeconds: .*native sidecars' start-up 45 s \+ start-up budget 60 s/);
    const validator = SchemaValidator.load(undefined, V1_33);
    for (const o of objs) expect({ o: `${o.kind}/${o.metadata.name}`, errors: validator.validate(o) }).toEqual({ o: `${o.kind}/${o.metadata.name}`, errors: [] });
    expect(lintObjects(objs).map((f) => `${f.ruleId} ${f.path}`)).toEqual([]);
  });

  test('on Kubernetes 1.28 it is an ordinary container: no startupProbe (it would not order start-up), and the warning says the app may start first', () => {
    const { objs, warnings } = ordersApi(undefined, { port: { name: 'sql-health', port: 9801, readinessPath: '/liveness' } });
    expect(proxyOf(objs, false).startupProbe).toBeUndefined();
    expect(warnings.join('\n')).toMatch(/it may start after the app \(which must retry its first connections\).*--max-sigterm-delay/);
  });

  test('health flags checked against the proxy: no --http-address (localhost by default), no --health-check, another --http-port', () => {
    const args = (...a: string[]) => ({ args: [...a, 'acme-prod:europe-west1:orders'] });
    expect(() => ordersApi(V1_33, args('--port=5432', '--health-check', '--http-port=9801'))).toThrow(/health server listens on --http-address, "localhost" by default .*kubelet probes the pod's IP.*Fix: add "--http-address=0\.0\.0\.0"/);
    expect(() => ordersApi(V1_33, args('--port=5432', '--http-address=0.0.0.0', '--http-port=9801'))).toThrow(/only with --health-check.*Fix: add "--health-check"/);
    expect(() => ordersApi(V1_33, args('--health-check', '--http-address', '0.0.0.0'))).toThrow(/listens on --http-port 9090 \(its default.*declares 9801.*Fix: add "--http-port=9801"/);
    expect(() => ordersApi(V1_33, { port: { name: 'sql-health', port: 9801, readinessPath: '/healthz' } })).toThrow(/answers only \/startup, \/liveness, \/readiness; any other path is a 404/);
  });
});

describe('a sidecar rollwise does not recognise', () => {
  const agent = (p: SidecarProps['port']) => ({ name: 'agent', image: 'ghcr.io/acme/agent:1.0.0', resources: { cpu: '50m', memory: '64Mi' }, port: p });
  const build = (p: SidecarProps['port'], version = V1_33) => ordersApi(version, agent(p) as Partial<SidecarProps>);

  test('a readiness path declared to call a dependency needs a reason, and is then emitted with it', () => {
    expect(() => build({ name: 'agent', port: 9900, readinessPath: '/ready', readinessCallsDependency: { value: true, because: '' } })).toThrow(/sidecars\[0\]\.port\.readinessCallsDependency = true: an override must carry its reason/);
    const { objs } = build({ name: 'agent', port: 9900, readinessPath: '/ready', readinessCallsDependency: { value: true, because: 'the agent must reach the license server before it serves' } });
    expect(workload(objs).metadata.annotations?.['rollwise.dev/overrides']).toMatch(/readinessProbe\.httpGet: Overridden: the agent must reach the license server.* asks a dependency, accepted with that reason: when it is slow, every pod leaves the Service at once/);
  });

  test('its startupProbe is a TCP connect unless a start-up path is given', () => {
    const proxy = (objs: Manifest[]) => workload(objs).spec.template.spec.initContainers[0];
    expect(proxy(build({ name: 'agent', port: 9900 }).objs).startupProbe.tcpSocket).toEqual({ port: 'agent' });
    expect(proxy(build({ name: 'agent', port: 9900, startupPath: '/started' }).objs).startupProbe.httpGet).toEqual({ path: '/started', port: 'agent' });
  });
});

describe('an init container that looks like a migration', () => {
  test('warns, naming the reason and the alternative (migrations)', () => {
    const ledger = threeServices(threeServicesPlatform())['ledger'];
    const app = Testing.app();
    const migrate = { name: 'migrate', image: 'gcr.io/acme/ledger-distroless:0.9.4', command: ['/ledger', 'migrate'], resources: { cpu: '200m', memory: '256Mi' } };
    new HttpService(new Chart(app, 'ledger', { namespace: 'shop' }), 'ledger', { ...ledger, migrations: undefined, initContainers: [migrate] });
    expect(warningsOf(app).join('\n')).toMatch(/initContainers\[0\] \(migrate\) looks like a schema migration \("migrate" in its name, command or args\): as an init container it runs in every pod, also in the canary's first pods.*migrations: Migration\.job/);
  });

  test('a config render does not', () => {
    const ledger = threeServices(threeServicesPlatform())['ledger'];
    const app = Testing.app();
    new HttpService(new Chart(app, 'ledger', { namespace: 'shop' }), 'ledger', { ...ledger, migrations: undefined, initContainers: [{ name: 'render-config', image: 'ghcr.io/acme/confd:0.16.0', args: ['-onetime'], resources: { cpu: '10m', memory: '32Mi' } }] });
    expect(warningsOf(app).join('\n')).not.toMatch(/looks like a schema migration/);
  });
});
