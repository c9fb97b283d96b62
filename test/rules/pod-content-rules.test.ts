import { lintText } from '../../src/rules';

/**
 * The checks issue 24 added at synth, in `rollwise lint` on hand-written manifests (review of issue
 * 24): a migration in the pods (RW306) and the Cloud SQL Auth Proxy sidecar (RW111-RW113), with the
 * detection code synth uses (src/checks/).
 */
const deployment = (podSpec: string) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: orders
spec:
  replicas: 1
  selector:
    matchLabels: { app: orders }
  template:
    metadata:
      labels: { app: orders }
    spec:
${podSpec.replace(/^/gm, '      ')}
`;
const findings = (text: string) =>
  lintText(text, 'orders.yaml').findings.map((f) => `${f.severity} ${f.ruleId.split('-')[0]} ${f.path}: ${f.message}`);

describe('RW306: a schema migration in the pods', () => {
  test('an init container named migrate, an app that migrates in its shell command, a native sidecar named migrate', () => {
    const init = findings(
      deployment(
        'initContainers:\n  - name: migrate\n    image: ghcr.io/acme/orders:1.0.0\n    command: ["/orders", "migrate"]\ncontainers:\n  - name: orders\n    image: ghcr.io/acme/orders:1.0.0\n',
      ),
    );
    expect(init).toEqual([
      expect.stringMatching(
        /^warning RW306 spec\.template\.spec\.initContainers\[0\]: container "migrate", an init container, looks like a schema migration \("\/orders migrate" \(a migrate subcommand\) in its command\): it runs in every pod of Deployment orders/,
      ),
    ]);
    const app = findings(
      deployment(
        'containers:\n  - name: orders\n    image: ghcr.io/acme/orders:1.0.0\n    command: ["sh", "-c", "python manage.py migrate --noinput && exec gunicorn orders.wsgi"]\n',
      ),
    );
    expect(app).toEqual([
      expect.stringMatching(
        /^warning RW306 spec\.template\.spec\.containers\[0\]: container "orders", the main container, looks like a schema migration \("python manage\.py migrate --noinput" \(Django's migrate\)/,
      ),
    ]);
    expect(
      findings(
        deployment(
          'initContainers:\n  - name: migrate\n    image: ghcr.io/acme/orders:1.0.0\n    restartPolicy: Always\ncontainers:\n  - name: orders\n    image: ghcr.io/acme/orders:1.0.0\n',
        ),
      ),
    ).toEqual([expect.stringMatching(/RW306 .*a native sidecar/)]);
  });

  test('a Job that migrates (the right place), a config render and a read-only check: nothing', () => {
    expect(
      findings(
        'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: orders-migrate\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n        - name: migrate\n          image: ghcr.io/acme/orders:1.0.0\n          command: ["python", "manage.py", "migrate"]\n',
      ),
    ).toEqual([]);
    expect(
      findings(
        deployment(
          'initContainers:\n  - name: render-config\n    image: ghcr.io/acme/confd:0.16.0\n    args: ["-onetime"]\n  - name: schema-check\n    image: ghcr.io/acme/orders:1.0.0\n    command: ["python", "manage.py", "migrate", "--check"]\ncontainers:\n  - name: orders\n    image: ghcr.io/acme/orders:1.0.0\n',
        ),
      ),
    ).toEqual([]);
  });
});

describe('RW306: a container that waits for the migration Job (held-out set 7)', () => {
  /** quarkusio/quarkus-super-heroes rest-fights/deploy/k8s/native-minikube.yml (and *-all-downstream.yml). */
  const waitFor = (name: string, image: string, spec: string) =>
    deployment(`initContainers:
  - name: ${name}
    image: ${image}
${spec.replace(/^/gm, '    ')}
containers:
  - name: orders
    image: ghcr.io/acme/orders:1.0.0
`);

  test('groundnuty/k8s-wait-for waiting for the liquibase Job: the name mentions liquibase, nothing runs it here', () => {
    const quarkus = waitFor(
      'wait-for-liquibase-mongodb',
      'groundnuty/k8s-wait-for:no-root-v1.7',
      'args:\n  - job\n  - rest-fights-liquibase-mongodb-init',
    );
    expect(findings(quarkus)).toEqual([]);
    // the same wait from another registry, with wait_for.sh named, or for a pod by label
    expect(
      findings(
        waitFor(
          'migrate-wait',
          'ghcr.io/groundnuty/k8s-wait-for:v2.0',
          'command: ["wait_for.sh", "job-we", "orders-migrate"]',
        ),
      ),
    ).toEqual([]);
    expect(
      findings(
        waitFor('migrations', 'groundnuty/k8s-wait-for@sha256:0c3b', 'args: ["pod", "-lapp=orders-migrations"]'),
      ),
    ).toEqual([]);
  });

  test('near misses: the name on another image, the wait image without a wait, and a migration command in it still fire', () => {
    // the migration's own image under that name: it runs the migration in every pod
    expect(
      findings(waitFor('wait-for-liquibase-mongodb', 'quay.io/quarkus/rest-fights:java25', 'args: ["job", "x"]')),
    ).toEqual([expect.stringMatching(/^warning RW306 .*"liquibase" in its name/)]);
    // k8s-wait-for with no wait_for.sh mode (an unknown resource type): not shown to wait
    expect(findings(waitFor('liquibase', 'groundnuty/k8s-wait-for:v2.0', 'args: ["deployment", "orders"]'))).toEqual([
      expect.stringMatching(/^warning RW306 .*"liquibase" in its name/),
    ]);
    // the image name alone does not hide a migration command run in it
    expect(
      findings(
        waitFor(
          'schema',
          'groundnuty/k8s-wait-for:v2.0',
          'command: ["sh", "-c", "wait_for.sh job db && liquibase update"]',
        ),
      ),
    ).toEqual([expect.stringMatching(/^warning RW306 .*Liquibase's update/)]);
  });
});

describe('RW111-RW113: the Cloud SQL Auth Proxy sidecar', () => {
  const proxy = (image: string, args: string[], probe = '/readiness', command?: string[]) =>
    deployment(`containers:
  - name: orders
    image: ghcr.io/acme/orders:1.0.0
  - name: cloud-sql-proxy
    image: ${image}${command ? `\n    command: ${JSON.stringify(command)}` : ''}
    args: ${JSON.stringify(args)}
    ports: [{ name: sql-health, containerPort: 9801 }]
    readinessProbe:
      httpGet: { path: ${probe}, port: sql-health }
`);

  test('2.8.0 probing /readiness without --http-address: the unreachable health server and the dialling readiness, both errors', () => {
    expect(
      findings(
        proxy('gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.8.0', [
          '--health-check',
          '--http-port=9801',
          'acme:eu:orders',
        ]),
      ),
    ).toEqual([
      expect.stringMatching(
        /^error RW111 spec\.template\.spec\.containers\[1\]\.args: .*probed by its readinessProbe on port 9801: the proxy's health server listens on --http-address "localhost"/,
      ),
      expect.stringMatching(
        /^error RW112 spec\.template\.spec\.containers\[1\]\.readinessProbe\.httpGet\.path: .*2\.8\.0\) is Ready only while its \/readiness can dial every Cloud SQL instance/,
      ),
    ]);
  });

  test('--health-check=false, flags in command, a digest (info), --address=0.0.0.0 (warning)', () => {
    expect(
      findings(
        proxy('gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1', [
          '--health-check=false',
          '--http-address=0.0.0.0',
          '--http-port=9801',
          'a:b:c',
        ]),
      ),
    ).toEqual([expect.stringMatching(/^error RW111 .*here it is off \(the flag "--health-check=false"\)/)]);
    const inCommand = proxy('gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1', ['a:b:c'], '/readiness', [
      '/cloud-sql-proxy',
      '--health-check',
      '--http-address=0.0.0.0',
      '--http-port=9801',
    ]);
    expect(findings(inCommand)).toEqual([]);
    expect(
      findings(
        proxy(`gcr.io/cloud-sql-connectors/cloud-sql-proxy@sha256:${'a'.repeat(64)}`, [
          '--health-check',
          '--http-address=0.0.0.0',
          '--http-port=9801',
          'a:b:c',
        ]),
      ),
    ).toEqual([expect.stringMatching(/^info RW112 .*names no version/)]);
    expect(
      findings(
        proxy(
          'gcr.io/cloud-sql-connectors/cloud-sql-proxy:2.14.1',
          ['--address=0.0.0.0', '--health-check', '--http-address=0.0.0.0', '--http-port=9801', 'a:b:c'],
          '/liveness',
        ),
      ),
    ).toEqual([
      expect.stringMatching(
        /^warning RW113 spec\.template\.spec\.containers\[1\]\.args: .*--address is "0\.0\.0\.0".*every pod in the cluster can connect to the database/,
      ),
    ]);
  });

  // v1 (gce-proxy), shaped like upstream's examples/k8s-health-check/proxy_with_http_health_check.yaml
  // (v1.38.3): Go flags in command, /readiness dialling every instance (healthcheck.go isReady)
  const v1 = (image: string, probe: string, flags = ['-use_http_health_check', '-health_check_port=9801']) =>
    proxy(image, [], probe, ['/cloud_sql_proxy', ...flags, '-instances=acme:eu:orders=tcp:5432']);

  test('v1 (gcr.io/cloudsql-docker/gce-proxy) on /readiness: RW112, which names every v1 release; on /liveness nothing', () => {
    expect(findings(v1('gcr.io/cloudsql-docker/gce-proxy:1.33.2', '/readiness'))).toEqual([
      expect.stringMatching(
        /^error RW112 spec\.template\.spec\.containers\[1\]\.readinessProbe\.httpGet\.path: container "cloud-sql-proxy" \(gcr\.io\/cloudsql-docker\/gce-proxy:1\.33\.2\) is Ready only while its \/readiness can dial every Cloud SQL instance \(every v1 release\)/,
      ),
    ]);
    expect(findings(v1(`gcr.io/cloudsql-docker/gce-proxy@sha256:${'c'.repeat(64)}`, '/readiness'))).toEqual([
      expect.stringMatching(/^error RW112 .*every v1 release/),
    ]);
    expect(findings(v1('gcr.io/cloudsql-docker/gce-proxy:1.33.2', '/liveness'))).toEqual([]);
  });

  test('v1 health flags read as Go flags: -use_http_health_check missing, -health_check_port other than the probed port (RW111)', () => {
    expect(findings(v1('gcr.io/cloudsql-docker/gce-proxy:1.33.2', '/liveness', ['-health_check_port=9801']))).toEqual([
      expect.stringMatching(
        /^error RW111 spec\.template\.spec\.containers\[1\]\.command: container "cloud-sql-proxy" \(Cloud SQL Auth Proxy v1\), probed by its readinessProbe on port 9801: .*only with -use_http_health_check/,
      ),
    ]);
    expect(findings(v1('gcr.io/cloudsql-docker/gce-proxy:1.33.2', '/liveness', ['-use_http_health_check']))).toEqual([
      expect.stringMatching(/^error RW111 .*listens on port 8090 \(-health_check_port defaults to 8090/),
    ]);
  });
});
