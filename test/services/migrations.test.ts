import { Chart, Testing } from 'cdk8s';
import { HttpService, HttpServiceProps } from '../../src/constructs/http-service';
import { KubernetesVersion } from '../../src/decisions/kubernetes-version';
import { Migration } from '../../src/decisions/migrations';
import { threeServices, threeServicesPlatform } from '../fixtures/apps/three-services';
import { Manifest } from '../support/manifests';

/** orders-api (a database proxy sidecar) with its migration, on the given Kubernetes version. */
function orders(version: KubernetesVersion | undefined, migrations: Migration): Manifest[] {
  const props = threeServices(threeServicesPlatform(version))['orders-api'];
  const app = Testing.app();
  const chart = new Chart(app, 'orders-api', { namespace: 'shop' });
  new HttpService(chart, 'orders-api', { ...props, migrations } as HttpServiceProps);
  return Testing.synth(chart) as Manifest[];
}
const migrate = ['python', 'manage.py', 'migrate', '--noinput'];

describe('a migration Job of an app with sidecars (issue 24 review)', () => {
  test('on 1.28 (no native sidecars) it is refused: the Job cannot run the proxy the migration connects through; the fix names V1_33 and withSidecars: false', () => {
    expect(() => orders(undefined, Migration.job({ command: migrate }))).toThrow(
      /migrations\.withSidecars = unset: the app has sidecars, and on Kubernetes 1\.28 .*cannot connect, fails its PreSync hook and stops every sync.*Fix: target Kubernetes 1\.33 .*KubernetesVersion\.V1_33.*withSidecars: false/,
    );
  });

  test('declared not to need them (withSidecars: false): the Job runs alone, and the reason says it was declared', () => {
    const job = orders(undefined, Migration.job({ command: migrate, withSidecars: false })).find(
      (o) => o.kind === 'Job',
    ) as Manifest;
    expect(job.spec.template.spec.initContainers).toBeUndefined();
    expect(job.spec.template.spec.containers.map((c: { name: string }) => c.name)).toEqual(['migrate']);
    expect(job.metadata.annotations?.['rollwise.dev/reasons']).toContain('input (migrations.withSidecars: false)');
  });

  test('on 1.33 the proxy runs beside the migration as a native sidecar', () => {
    const job = orders(KubernetesVersion.V1_33, Migration.job({ command: migrate })).find(
      (o) => o.kind === 'Job',
    ) as Manifest;
    expect(
      job.spec.template.spec.initContainers.map(
        (c: { name: string; restartPolicy: string }) => `${c.name} ${c.restartPolicy}`,
      ),
    ).toEqual(['cloud-sql-proxy Always']);
  });

  test('issue 24: in the Job the proxy keeps its startupProbe (it gates the migration) and no readinessProbe (Ready gates nothing in a Job), as the reason says', () => {
    const objs = orders(KubernetesVersion.V1_33, Migration.job({ command: migrate }));
    const job = objs.find((o) => o.kind === 'Job') as Manifest;
    const [proxy] = job.spec.template.spec.initContainers;
    expect(proxy.readinessProbe).toBeUndefined();
    expect(proxy.startupProbe).toMatchObject({ httpGet: { path: '/startup', port: 'sql-health' } });
    const reasons = job.metadata.annotations?.['rollwise.dev/reasons'] ?? '';
    expect(reasons).toMatch(
      /spec\.template\.spec\.initContainers\[0\]\.startupProbe: In the migration Job the sidecar keeps its startupProbe and no readinessProbe: the kubelet starts the migration only after the startupProbe has passed .*kubelet computeInitContainerActions, Kubernetes 1\.33.*no Service or PodDisruptionBudget selects the migration's pod/,
    );
    expect(reasons).not.toMatch(/initContainers\[0\]\.readinessProbe/);
    // the app's pods keep the sidecar's readiness: a pod is Ready only when every serving container is
    const rollout = objs.find((o) => o.kind === 'Rollout') as Manifest;
    expect(rollout.spec.template.spec.initContainers[0].readinessProbe).toMatchObject({
      httpGet: { path: '/readiness', port: 'sql-health' },
    });
  });

  test("issue 24: the migration container's no-CPU-limit reason fits a Job (no probes; the deadline bounds it), not the app's probe handler", () => {
    const job = orders(KubernetesVersion.V1_33, Migration.job({ command: migrate })).find(
      (o) => o.kind === 'Job',
    ) as Manifest;
    expect(job.spec.template.spec.containers[0].resources.limits).toEqual({ memory: '512Mi' });
    const line =
      (job.metadata.annotations?.['rollwise.dev/reasons'] ?? '')
        .split('\n')
        .find((l: string) => l.startsWith('spec.template.spec.containers[0].resources.limits:')) ?? '';
    expect(line).toMatch(
      /No CPU limit on the migration, like the app: the Job has no probes.*stretching a migration that holds table locks.*activeDeadlineSeconds.*The app's CPU request \(500m\) still reserves CPU/,
    );
    expect(line).not.toMatch(/probe handler/);
    // an app CPU limit kept by override applies to the migration too, with the override's reason
    const props = threeServices(threeServicesPlatform(KubernetesVersion.V1_33))['orders-api'];
    const app = Testing.app();
    const chart = new Chart(app, 'orders-api', { namespace: 'shop' });
    new HttpService(chart, 'orders-api', {
      ...props,
      overrides: { cpuLimit: { value: '1', because: 'the node pool is shared with batch jobs (capacity review)' } },
      migrations: Migration.job({ command: migrate }),
    } as HttpServiceProps);
    const limited = (Testing.synth(chart) as Manifest[]).find((o) => o.kind === 'Job') as Manifest;
    expect(limited.spec.template.spec.containers[0].resources.limits).toEqual({ cpu: '1', memory: '512Mi' });
  });
});

describe('migrations.retries', () => {
  test('a bare number is named as given, and the fix shows the { value, because } shape', () => {
    expect(() => orders(KubernetesVersion.V1_33, Migration.job({ command: migrate, retries: 5 as never }))).toThrow(
      /migrations\.retries = 5: an override is an object \{ value, because \}.*Fix: write migrations\.retries: \{ value: 5, because: '<why this value is right for this service>' \}/,
    );
  });

  test('out of range: the value, the range and the shape', () => {
    expect(() =>
      orders(
        KubernetesVersion.V1_33,
        Migration.job({
          command: migrate,
          retries: { value: 9, because: 'the migration is idempotent and the database flaps' },
        }),
      ),
    ).toThrow(
      /migrations\.retries = 9: must be a whole number from 0 to 6: it is the Job's backoffLimit.*Fix: write migrations\.retries: \{ value: 1, because: '<why this migration may run again>' \} with a whole number from 0 to 6/,
    );
  });

  test('with its reason: the backoffLimit and the reason', () => {
    const job = orders(
      KubernetesVersion.V1_33,
      Migration.job({
        command: migrate,
        retries: { value: 2, because: 'the migration is idempotent and the database flaps' },
      }),
    ).find((o) => o.kind === 'Job') as Manifest;
    expect(job.spec.backoffLimit).toBe(2);
    expect(job.metadata.annotations?.['rollwise.dev/reasons']).toContain(
      'Overridden: the migration is idempotent and the database flaps',
    );
  });
});
