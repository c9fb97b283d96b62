import { Chart, Duration, Testing } from 'cdk8s';
import { HttpService, HttpServiceProps } from '../../src/constructs/http-service';
import { EnvValue, SidecarProps } from '../../src/decisions/containers';
import { KubernetesVersion } from '../../src/decisions/kubernetes-version';
import { Platform } from '../../src/decisions/platform';
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

function ordersApi(
  version: KubernetesVersion | undefined,
  sidecar: Partial<SidecarProps> = {},
): { objs: Manifest[]; warnings: readonly string[] } {
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
    expect(() => ordersApi(V1_33, { image: 'gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.11.0' })).toThrow(
      /sidecars\[0\]\.port\.readinessPath = \/readiness: the proxy 2\.11\.0's \/readiness dials every registered Cloud SQL instance .*empties the Service.*Fix: use readinessPath: "\/liveness".*startupProbe already waits on \/startup/,
    );
    // on 1.28 too, where the sidecar is an ordinary container whose readiness counts for the pod's
    expect(() => ordersApi(undefined, { image: 'gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.8.0' })).toThrow(
      /2\.8\.0's \/readiness dials every registered Cloud SQL instance/,
    );
  });

  test('pinned by digest: rollwise cannot tell the version, so /readiness is refused until declared', () => {
    const image = 'gcr.io/cloud-sql-connectors/cloud-sql-proxy@sha256:' + 'a'.repeat(64);
    expect(() => ordersApi(V1_33, { image })).toThrow(
      /names no version.*cannot tell.*pin a version tag.*readinessCallsDependency: \{ value: false/,
    );
    const { objs } = ordersApi(V1_33, {
      image,
      port: {
        ...port(9801),
        readinessCallsDependency: { value: false, because: 'the digest is the 2.14.1 image, mirrored to our registry' },
      },
    });
    expect(workload(objs).metadata.annotations?.['rollwise.dev/reasons']).toContain(
      'Overridden: the digest is the 2.14.1 image',
    );
  });

  test('on /readiness of 2.14.1 (no dialling since 2.11.1): accepted, and the reason says why', () => {
    const { objs } = ordersApi(V1_33);
    const reasons = workload(objs).metadata.annotations?.['rollwise.dev/reasons'] ?? '';
    expect(reasons).toMatch(
      /spec\.template\.spec\.initContainers\[0\]\.readinessProbe\.httpGet: Cloud SQL Auth Proxy: the proxy 2\.14\.1 answers \/readiness from its own state .*since v2\.11\.1/,
    );
  });

  test('on /liveness: accepted; the native sidecar has a startupProbe on /startup sized from the start-up budget, so the app starts after it', () => {
    const { objs } = ordersApi(V1_33, {
      port: { name: 'sql-health', port: 9801, readinessPath: '/liveness' },
      startupBudget: Duration.seconds(45),
    });
    const proxy = proxyOf(objs, true);
    expect(proxy.restartPolicy).toBe('Always');
    expect(proxy.readinessProbe.httpGet).toEqual({ path: '/liveness', port: 'sql-health' });
    expect(proxy.startupProbe).toEqual({
      httpGet: { path: '/startup', port: 'sql-health' },
      periodSeconds: 5,
      timeoutSeconds: 3,
      failureThreshold: 9,
    });
    const reasons = workload(objs).metadata.annotations?.['rollwise.dev/reasons'] ?? '';
    expect(reasons).toMatch(
      /initContainers\[0\]\.startupProbe\.failureThreshold: Start-up budget 45 s \(sidecars\[0\]\.startupBudget\) \/ 5 s period = 9 attempts: the app starts only once the sidecar has started/,
    );
    expect(reasons).toMatch(
      /initContainers\[0\]\.startupProbe\.httpGet: The Cloud SQL Auth Proxy's \/startup answers 200 once its listeners are up/,
    );
    // the progress deadline counts the sidecar's start before the app's
    expect(reasons).toMatch(/spec\.progressDeadlineSeconds: .*native sidecars' start-up 45 s \+ start-up budget 60 s/);
    const validator = SchemaValidator.load(undefined, V1_33);
    for (const o of objs)
      expect({ o: `${o.kind}/${o.metadata.name}`, errors: validator.validate(o) }).toEqual({
        o: `${o.kind}/${o.metadata.name}`,
        errors: [],
      });
    expect(lintObjects(objs).map((f) => `${f.ruleId} ${f.path}`)).toEqual([]);
  });

  test('a start-up budget below 3 attempts of 5 s (Duration.seconds(1) gave failureThreshold 1) is refused with the reason; 15 s tolerates the first miss and one more', () => {
    const liveness = { port: { name: 'sql-health', port: 9801, readinessPath: '/liveness' } };
    expect(() => ordersApi(V1_33, { ...liveness, startupBudget: Duration.seconds(1) })).toThrow(
      /sidecars\[0\]\.startupBudget = 1 s: must be between 15 s and 3600 s: .*its first attempt runs the moment the container starts, before anything listens; below 15 s it gets fewer than 3 attempts \(1 s gives failureThreshold 1\).*Fix: .*at least 15 s/,
    );
    expect(
      proxyOf(ordersApi(V1_33, { ...liveness, startupBudget: Duration.seconds(15) }).objs, true).startupProbe,
    ).toMatchObject({ periodSeconds: 5, failureThreshold: 3 });
    // the app's own budget and the platform's default, which sidecars inherit, have the same floor
    const props = threeServices(threeServicesPlatform(V1_33))['orders-api'];
    expect(
      () =>
        new HttpService(new Chart(Testing.app(), 'x', { namespace: 'shop' }), 'orders-api', {
          ...props,
          health: { ...props.health, startupBudget: Duration.seconds(5) },
        }),
    ).toThrow(/health\.startupBudget = 5 s: must be between 15 s/);
    expect(
      () =>
        new Platform({
          startupBudget: { value: Duration.seconds(10), because: 'our services start in two seconds flat' },
        }),
    ).toThrow(/platform\.startupBudget = 10 s: must be between 15 s/);
  });

  test('on Kubernetes 1.28 it is an ordinary container: no startupProbe (it would not order start-up), and the warning says the app may start first', () => {
    const { objs, warnings } = ordersApi(undefined, {
      port: { name: 'sql-health', port: 9801, readinessPath: '/liveness' },
    });
    expect(proxyOf(objs, false).startupProbe).toBeUndefined();
    expect(warnings.join('\n')).toMatch(
      /it may start after the app \(which must retry its first connections\).*--max-sigterm-delay/,
    );
  });

  test('health flags checked against the proxy: no --http-address (localhost by default), no --health-check, another --http-port', () => {
    const args = (...a: string[]) => ({ args: [...a, 'acme-prod:europe-west1:orders'] });
    expect(() => ordersApi(V1_33, args('--port=5432', '--health-check', '--http-port=9801'))).toThrow(
      /health server listens on --http-address "localhost" \(its default, cloud-sql-proxy v2\.14\.1 cmd\/root\.go\).*kubelet probes the pod's IP.*Fix: add "--http-address=0\.0\.0\.0"/,
    );
    expect(() => ordersApi(V1_33, args('--port=5432', '--http-address=0.0.0.0', '--http-port=9801'))).toThrow(
      /only with --health-check.*Fix: add "--health-check"/,
    );
    expect(() => ordersApi(V1_33, args('--health-check', '--http-address', '0.0.0.0'))).toThrow(
      /listens on --http-port 9090 \(its default.*probes ask port 9801.*Fix: add "--http-port=9801"/,
    );
    expect(() => ordersApi(V1_33, { port: { name: 'sql-health', port: 9801, readinessPath: '/healthz' } })).toThrow(
      /answers only \/startup, \/liveness, \/readiness; any other path is a 404/,
    );
  });
});

/**
 * The Cloud SQL Auth Proxy v1 (gcr.io/cloudsql-docker/gce-proxy), as in upstream's own
 * examples/k8s-health-check/proxy_with_http_health_check.yaml (v1.38.3): Go flags in command (the
 * image has no ENTRYPOINT), -use_http_health_check, -health_check_port (default 8090). Its
 * /readiness dials every instance in every v1 release (cmd/cloud_sql_proxy/internal/healthcheck/
 * healthcheck.go isReady -> DialContext, v1.38.3); /liveness dials nothing (isLive).
 */
describe('the Cloud SQL Auth Proxy v1 (gce-proxy) as a sidecar', () => {
  const v1 = (
    image: string,
    readinessPath: string,
    flags = ['-use_http_health_check', '-health_check_port=8090'],
  ): Partial<SidecarProps> => ({
    image,
    command: ['/cloud_sql_proxy', ...flags, '-instances=acme-prod:europe-west1:orders=tcp:5432'],
    args: undefined,
    port: { name: 'sql-health', port: 8090, readinessPath },
  });

  test("on /readiness (which dials every instance in v1): refused, and the fix names v1's /liveness and v2 2.11.1", () => {
    expect(() => ordersApi(V1_33, v1('gcr.io/cloudsql-docker/gce-proxy:1.37.0', '/readiness'))).toThrow(
      /sidecars\[0\]\.port\.readinessPath = \/readiness: the v1 proxy \(gcr\.io\/cloudsql-docker\/gce-proxy:1\.37\.0\)'s \/readiness dials every Cloud SQL instance.*Fix: use readinessPath: "\/liveness" \(Cloud SQL Auth Proxy v1: the v1 proxy dials nothing there.*startupProbe already waits on \/startup; or move to v2 \(gcr\.io\/cloud-sql-connectors\/cloud-sql-proxy\) 2\.11\.1 or later/,
    );
    // pinned by digest, a regional mirror, on 1.28 (an ordinary container): still v1, still refused
    expect(() =>
      ordersApi(V1_33, v1(`eu.gcr.io/cloudsql-docker/gce-proxy@sha256:${'b'.repeat(64)}`, '/readiness')),
    ).toThrow(/the v1 proxy .*'s \/readiness dials every Cloud SQL instance/);
    expect(() => ordersApi(undefined, v1('gcr.io/cloudsql-docker/gce-proxy:1.33.2-alpine', '/readiness'))).toThrow(
      /the v1 proxy .*'s \/readiness dials every Cloud SQL instance/,
    );
  });

  test('near miss: on /liveness, accepted, with a startupProbe on /startup and no v2 flag check (its Go flags read as v1 reads them)', () => {
    const { objs, warnings } = ordersApi(V1_33, v1('gcr.io/cloudsql-docker/gce-proxy:1.37.0', '/liveness'));
    const proxy = proxyOf(objs, true);
    expect(proxy.readinessProbe.httpGet).toEqual({ path: '/liveness', port: 'sql-health' });
    expect(proxy.startupProbe.httpGet).toEqual({ path: '/startup', port: 'sql-health' });
    expect(warnings.join('\n')).not.toMatch(/Cloud SQL Auth Proxy/);
    expect(workload(objs).metadata.annotations?.['rollwise.dev/reasons']).toMatch(
      /startupProbe\.httpGet: The Cloud SQL Auth Proxy v1's \/startup answers 200 once it has logged "Ready for new connections"/,
    );
    expect(lintObjects(objs).map((f) => `${f.ruleId} ${f.path}`)).toEqual([]);
  });

  test('v1 health flags: no -use_http_health_check, another port than the probed one, a version before the health server (1.25.0)', () => {
    expect(() => ordersApi(V1_33, v1('gcr.io/cloudsql-docker/gce-proxy:1.37.0', '/liveness', []))).toThrow(
      /sidecars\[0\]\.command = .*only with -use_http_health_check .*here it is not given/,
    );
    expect(() =>
      ordersApi(V1_33, v1('gcr.io/cloudsql-docker/gce-proxy:1.37.0', '/liveness', ['--use_http_health_check=false'])),
    ).toThrow(/here it is off \("--use_http_health_check=false"\)/);
    expect(
      ordersApi(
        V1_33,
        v1('gcr.io/cloudsql-docker/gce-proxy:1.37.0', '/liveness', ['-use_http_health_check']),
      ).warnings.join('\n'),
    ).not.toMatch(/Cloud SQL/); // 8090, the default
    expect(() =>
      ordersApi(
        V1_33,
        v1('gcr.io/cloudsql-docker/gce-proxy:1.37.0', '/liveness', [
          '-use_http_health_check',
          '-health_check_port',
          '9801',
        ]),
      ),
    ).toThrow(/listens on port 9801 \("-health_check_port 9801"\), but the probes ask port 8090/);
    expect(() => ordersApi(V1_33, v1('gcr.io/cloudsql-docker/gce-proxy:1.24.0', '/liveness'))).toThrow(
      /sidecars\[0\]\.image = .*health server only from v1\.25\.0/,
    );
  });
});

describe("the proxy's configuration, read as the proxy reads it (command, args, env; cobra/pflag and viper, cloud-sql-proxy v2.14.1 cmd/root.go)", () => {
  const health = ['--health-check', '--http-address=0.0.0.0', '--http-port=9801'];
  const instance = 'acme-prod:europe-west1:orders';

  test('flags in command (the entrypoint replaced) are read: accepted', () => {
    const { objs, warnings } = ordersApi(V1_33, {
      command: ['/cloud-sql-proxy', '--port=5432', ...health],
      args: [instance],
    });
    expect(proxyOf(objs, true).command).toEqual(['/cloud-sql-proxy', '--port=5432', ...health]);
    expect(warnings.join('\n')).not.toMatch(/Cloud SQL Auth Proxy/);
    // and a missing one is named in command, where the flags are
    expect(() =>
      ordersApi(V1_33, { command: ['/cloud-sql-proxy', '--health-check', '--http-port=9801'], args: [instance] }),
    ).toThrow(/sidecars\[0\]\.args = .*--http-address "localhost" \(its default/);
    expect(() =>
      ordersApi(V1_33, {
        command: ['/cloud-sql-proxy', '--health-check', '--http-address=127.0.0.1', '--http-port=9801'],
        args: [instance],
      }),
    ).toThrow(/sidecars\[0\]\.command = .*--http-address "127\.0\.0\.1" \(the flag "--http-address=127\.0\.0\.1"\)/);
  });

  test('configuration through CSQL_PROXY_* environment variables (CSQL_PROXY_ + the flag upper-cased, "-" as "_") is read: accepted', () => {
    const env = {
      CSQL_PROXY_HEALTH_CHECK: EnvValue.fromValue('true'),
      CSQL_PROXY_HTTP_ADDRESS: EnvValue.fromValue('0.0.0.0'),
      CSQL_PROXY_HTTP_PORT: EnvValue.fromValue('9801'),
    };
    const { objs } = ordersApi(V1_33, { args: ['--port=5432', instance], env });
    expect(proxyOf(objs, true).env.map((e: { name: string }) => e.name)).toEqual(Object.keys(env));
    // flags win over the environment
    expect(() => ordersApi(V1_33, { args: ['--port=5432', '--http-port=9090', instance], env })).toThrow(
      /--http-port 9090 \(the flag "--http-port=9090"\)/,
    );
    // a value ParseBool refuses is dropped without a word, leaving the health check off
    expect(() =>
      ordersApi(V1_33, {
        args: ['--port=5432', instance],
        env: { ...env, CSQL_PROXY_HEALTH_CHECK: EnvValue.fromValue('yes') },
      }),
    ).toThrow(
      /sidecars\[0\]\.env\.CSQL_PROXY_HEALTH_CHECK = "yes": .*CSQL_PROXY_HEALTH_CHECK="yes", which is no bool .*dropped without a word/,
    );
    // the wrong spelling is not read at all
    expect(() =>
      ordersApi(V1_33, {
        args: ['--port=5432', instance],
        env: {
          ...env,
          CSQL_PROXY_HEALTHCHECK: EnvValue.fromValue('true'),
          CSQL_PROXY_HEALTH_CHECK: EnvValue.fromValue(''),
        },
      }),
    ).toThrow(/only with --health-check/);
  });

  test('a value from a Secret or a config file cannot be read: a warning, not a refusal', () => {
    const { warnings } = ordersApi(V1_33, {
      args: ['--port=5432', '--health-check', '--http-port=9801', instance],
      env: { CSQL_PROXY_HTTP_ADDRESS: EnvValue.fromSecret('proxy', 'address') },
    });
    expect(warnings.join('\n')).toMatch(
      /sidecars\[0\]\.env\.CSQL_PROXY_HTTP_ADDRESS \(Cloud SQL Auth Proxy\): --http-address comes from CSQL_PROXY_HTTP_ADDRESS, set from a Secret.*cannot be checked/,
    );
    const file = ordersApi(V1_33, { args: ['--config-file=/etc/proxy/config.toml', '--health-check', instance] });
    expect(file.warnings.join('\n')).toMatch(
      /--http-address comes from not on the command line or in the environment, and the config file \/etc\/proxy\/config\.toml may set it/,
    );
  });

  test('--health-check=false is the health check off; --health-check false leaves "false" an instance name (pflag bool)', () => {
    expect(() =>
      ordersApi(V1_33, {
        args: ['--port=5432', '--health-check=false', '--http-address=0.0.0.0', '--http-port=9801', instance],
      }),
    ).toThrow(/only with --health-check .*here it is off \(the flag "--health-check=false"\)/);
    const { objs } = ordersApi(V1_33, {
      args: ['--port=5432', '--health-check', '--http-address', '0.0.0.0', '--http-port', '9801', instance],
    });
    expect(proxyOf(objs, true).args).toContain('--http-port');
    expect(() => ordersApi(V1_33, { args: ['--port=5432', ...health, '--http-port'] })).toThrow(
      /--http-port: the flag needs a value and none follows, so the proxy exits at start/,
    );
  });

  test("--address=0.0.0.0 puts the database listener on the pod's IP: a warning that says the cluster can reach it", () => {
    const { warnings } = ordersApi(V1_33, { args: ['--address=0.0.0.0', '--port=5432', ...health, instance] });
    expect(warnings.join('\n')).toMatch(
      /sidecars\[0\]\.args \(Cloud SQL Auth Proxy\): --address is "0\.0\.0\.0".*every pod in the cluster can connect to the database through it.*unless a NetworkPolicy.*Fix: remove --address/,
    );
    expect(
      ordersApi(V1_33, { args: ['--port=5432', ...health, `${instance}?address=0.0.0.0&port=5432`] }).warnings.join(
        '\n',
      ),
    ).toMatch(/instance acme-prod:europe-west1:orders has \?address=0\.0\.0\.0/);
    expect(
      ordersApi(V1_33, { args: ['-a', '127.0.0.1', '--port=5432', ...health, instance] }).warnings.join('\n'),
    ).not.toMatch(/--address/);
  });
});

describe('a sidecar rollwise does not recognise', () => {
  const agent = (p: SidecarProps['port']) => ({
    name: 'agent',
    image: 'ghcr.io/acme/agent:1.0.0',
    resources: { cpu: '50m', memory: '64Mi' },
    port: p,
  });
  const build = (p: SidecarProps['port'], version = V1_33) => ordersApi(version, agent(p) as Partial<SidecarProps>);

  test('a readiness path declared to call a dependency needs a reason, and is then emitted with it', () => {
    expect(() =>
      build({
        name: 'agent',
        port: 9900,
        readinessPath: '/ready',
        readinessCallsDependency: { value: true, because: '' },
      }),
    ).toThrow(/sidecars\[0\]\.port\.readinessCallsDependency = true: an override must carry its reason/);
    const { objs } = build({
      name: 'agent',
      port: 9900,
      readinessPath: '/ready',
      readinessCallsDependency: { value: true, because: 'the agent must reach the license server before it serves' },
    });
    expect(workload(objs).metadata.annotations?.['rollwise.dev/overrides']).toMatch(
      /readinessProbe\.httpGet: Overridden: the agent must reach the license server.* asks a dependency, accepted with that reason: when it is slow, every pod leaves the Service at once/,
    );
  });

  test('its startupProbe is a TCP connect unless a start-up path is given', () => {
    const proxy = (objs: Manifest[]) => workload(objs).spec.template.spec.initContainers[0];
    expect(proxy(build({ name: 'agent', port: 9900 }).objs).startupProbe.tcpSocket).toEqual({ port: 'agent' });
    expect(proxy(build({ name: 'agent', port: 9900, startupPath: '/started' }).objs).startupProbe.httpGet).toEqual({
      path: '/started',
      port: 'agent',
    });
  });
});

describe('an init container that looks like a migration', () => {
  test('warns, naming the reason and the alternative (migrations)', () => {
    const ledger = threeServices(threeServicesPlatform())['ledger'];
    const app = Testing.app();
    const migrate = {
      name: 'migrate',
      image: 'gcr.io/acme/ledger-distroless:0.9.4',
      command: ['/ledger', 'migrate'],
      resources: { cpu: '200m', memory: '256Mi' },
    };
    new HttpService(new Chart(app, 'ledger', { namespace: 'shop' }), 'ledger', {
      ...ledger,
      migrations: undefined,
      initContainers: [migrate],
    });
    expect(warningsOf(app).join('\n')).toMatch(
      /initContainers\[0\] \(migrate\) looks like a schema migration \("\/ledger migrate" \(a migrate subcommand\) in its command\): as an init container it runs in every pod, also in the canary's first pods.*migrations: Migration\.job/,
    );
  });

  const ordersWarnings = (change: (p: HttpServiceProps) => HttpServiceProps) => {
    const app = Testing.app();
    const props = threeServices(threeServicesPlatform(V1_33))['orders-api'];
    new HttpService(
      new Chart(app, 'orders-api', { namespace: 'shop' }),
      'orders-api',
      change({ ...props, migrations: undefined }),
    );
    return warningsOf(app).join('\n');
  };
  const res = { cpu: '50m', memory: '64Mi' };

  test('the app\'s own command (sh -c "python manage.py migrate --noinput && exec gunicorn ..."): warned, it runs in every pod', () => {
    expect(
      ordersWarnings((p) => ({
        ...p,
        container: {
          ...p.container,
          command: ['sh', '-c'],
          args: ['python manage.py migrate --noinput && exec gunicorn --bind 0.0.0.0:8000 orders.wsgi:application'],
        },
      })),
    ).toMatch(
      /container \(the app\) looks like it runs a schema migration \("python manage\.py migrate --noinput" \(Django's migrate\) in its shell script \(args\)\): in the app container's command it runs in every pod, also in the canary's first pods.*Migration\.job/,
    );
  });

  test('an init container named schema running flask db upgrade, and a sidecar named migrate: warned', () => {
    expect(
      ordersWarnings((p) => ({
        ...p,
        initContainers: [
          {
            name: 'schema',
            image: 'ghcr.io/acme/orders-api:2.3.0',
            command: ['flask', 'db', 'upgrade'],
            resources: res,
          },
        ],
      })),
    ).toMatch(
      /initContainers\[0\] \(schema\) looks like a schema migration \("flask db upgrade" \(Flask-Migrate's db upgrade\) in its command\)/,
    );
    expect(
      ordersWarnings((p) => ({
        ...p,
        sidecars: [
          ...p.sidecars!,
          { name: 'migrate', image: 'ghcr.io/acme/orders-api:2.3.0', command: ['/bin/worker'], resources: res },
        ],
      })),
    ).toMatch(
      /sidecars\[1\] \(migrate\) looks like a schema migration \("migrate" in its name \(migrate\)\): as a sidecar it runs in every pod/,
    );
  });

  test("the app's ordinary command and a read-only check (manage.py migrate --check): no warning", () => {
    expect(ordersWarnings((p) => p)).not.toMatch(/schema migration/);
    expect(
      ordersWarnings((p) => ({
        ...p,
        initContainers: [
          {
            name: 'check',
            image: 'ghcr.io/acme/orders-api:2.3.0',
            command: ['python', 'manage.py', 'migrate', '--check'],
            resources: res,
          },
        ],
      })),
    ).not.toMatch(/schema migration/);
  });

  test('an init container (warm-cache) gets its own CPU reasons: no probe, no serving at peak; near miss: the app container keeps its own', () => {
    const app = Testing.app();
    const props = threeServices(threeServicesPlatform(V1_33))['orders-api'];
    new HttpService(new Chart(app, 'orders-api', { namespace: 'shop' }), 'orders-api', {
      ...props,
      migrations: undefined,
      initContainers: [
        { name: 'warm-cache', image: 'ghcr.io/acme/orders-api:2.3.0', command: ['/bin/warm-cache'], resources: res },
      ],
    });
    const reasons =
      workload(Testing.synth(app.charts[0]) as Manifest[]).metadata.annotations?.['rollwise.dev/reasons'] ?? '';
    const line = (p: string) => reasons.split('\n').find((l) => l.startsWith(`${p}: `)) ?? '';
    const init = 'spec.template.spec.initContainers[1]'; // after the native sidecar, the proxy
    expect(line(`${init}.resources.limits`)).toMatch(
      /No CPU limit: .*so this init container, which must finish before the app starts, would take longer, and every pod's start with it/,
    );
    expect(line(`${init}.resources.requests.cpu`)).toMatch(
      /The CPU this init container needs while it runs \(input\), before the app starts: the scheduler reserves 50m/,
    );
    expect(line(`${init}.resources.limits`)).not.toMatch(/probe|at peak/);
    expect(line(`${init}.resources.requests.cpu`)).not.toMatch(/at peak/);
    const main = 'spec.template.spec.containers[0]';
    expect(line(`${main}.resources.limits`)).toMatch(
      /the probe handler \(which shares the quota\) answers in seconds exactly at peak/,
    );
    expect(line(`${main}.resources.requests.cpu`)).toMatch(/Measured CPU need at peak \(input\)/);
  });

  test('a config render does not', () => {
    const ledger = threeServices(threeServicesPlatform())['ledger'];
    const app = Testing.app();
    new HttpService(new Chart(app, 'ledger', { namespace: 'shop' }), 'ledger', {
      ...ledger,
      migrations: undefined,
      initContainers: [
        {
          name: 'render-config',
          image: 'ghcr.io/acme/confd:0.16.0',
          args: ['-onetime'],
          resources: { cpu: '10m', memory: '32Mi' },
        },
      ],
    });
    expect(warningsOf(app).join('\n')).not.toMatch(/looks like a schema migration/);
  });
});
