import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Chart, Duration, Testing } from 'cdk8s';
import { main } from '../../src/cli/main';
import { HttpService, HttpServiceProps } from '../../src/constructs/http-service';
import { CanaryStep, Delivery } from '../../src/decisions/canary';
import { EnvValue } from '../../src/decisions/containers';
import { formatInputError, RollwiseInputError } from '../../src/errors';
import { diffOutputs } from '../../src/diff/compare';
import { formatDiffMarkdown, formatDiffText } from '../../src/diff/format';
import { resolveSide } from '../../src/diff/sources';
import { addEstate } from '../../src/environments';
import { checkoutApiProps } from '../../src/example';
import { exampleEnvironments } from '../../src/main';
import { lintObjects } from '../../src/rules/synth-check';
import { SchemaValidator } from '../../src/schemas/validator';
import { synthesize } from '../../src/synth/synth';
import { ROOT } from '../support/compile';
import { Manifest, workload } from '../support/manifests';
import { threeServices, threeServicesPlatform } from '../fixtures/apps/three-services';
import { KubernetesVersion } from '../../src/decisions/kubernetes-version';
import { RollwiseApp } from '../../src/synth/rollwise-app';

/** The papercuts of issue 24, each as a new user met it. */
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
function build(props: Partial<HttpServiceProps>): Manifest[] {
  const app = Testing.app();
  const chart = new Chart(app, 'c', { namespace: 'checkout' });
  new HttpService(chart, 'checkout-api', { ...checkoutApiProps(), ...props });
  return Testing.synth(chart) as Manifest[];
}

describe('explain <file> <field path>', () => {
  const file = path.join(ROOT, 'dist', 'prod', 'checkout-api.k8s.yaml');

  test('answers for one value, by its trailing path', async () => {
    const r = await cli(['explain', file, 'readinessProbe.timeoutSeconds']);
    expect(r.code).toBe(0);
    expect(r.out.split('\n').filter((l) => !l.startsWith('    '))).toEqual([
      'Rollout/checkout-api spec.template.spec.containers[0].readinessProbe.timeoutSeconds [container app (containers[0])] = 3',
      '',
    ]);
    expect(r.out).toMatch(/2 x the health path's p99 under peak load/);
  });

  test('a full path and a block (every field under it) work too; a path nothing has is an error naming close ones', async () => {
    expect((await cli(['explain', file, 'spec.minReadySeconds'])).out).toMatch(
      /^Rollout\/checkout-api spec\.minReadySeconds = 30\n/,
    );
    const block = await cli(['explain', file, 'containers[0].livenessProbe']);
    expect(
      block.out
        .split('\n')
        .filter((l) => /^\S/.test(l))
        .map((l) => l.split(' ')[1]),
    ).toEqual(
      expect.arrayContaining([
        'spec.template.spec.containers[0].livenessProbe.periodSeconds',
        'spec.template.spec.containers[0].livenessProbe.failureThreshold',
      ]),
    );
    const none = await cli(['explain', file, 'readinessProbe.timeoutSecond']);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(
      /explain field path = readinessProbe\.timeoutSecond\n {2}why: no decided value in .* is at this path or ends with it\.\n {2}fix: use one of the paths explain prints, e\.g\. .*readinessProbe\.timeoutSeconds/,
    );
  });
});

describe('explain of a leaf whose reason sits on its parent (issue 24 review)', () => {
  test("initContainers[0].readinessProbe.timeoutSeconds answers with the sidecar probe's reason, saying whose it is", async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-explain-leaf-'));
    try {
      const props = threeServices(threeServicesPlatform(KubernetesVersion.V1_33))['orders-api'];
      const file = path.join(tmp, 'orders-api.k8s.yaml');
      const app = new RollwiseApp({ outdir: tmp });
      new HttpService(new Chart(app, 'orders-api', { namespace: 'shop' }), 'orders-api', props);
      app.synthesize({ onWarning: () => undefined });
      const r = await cli(['explain', file, 'initContainers[0].readinessProbe.timeoutSeconds']);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      expect(r.out).toMatch(
        /^Rollout\/orders-api spec\.template\.spec\.initContainers\[0\]\.readinessProbe\.timeoutSeconds \[container cloud-sql-proxy \(initContainers\[0\]\)\] = 3 {2}\(no reason of its own: the reason of spec\.template\.spec\.initContainers\[0\]\.readinessProbe, which holds it\)\n {4}The sidecar serves on port sql-health \(9801\), so it is probed with the app's readiness timing/,
      );
      // a leaf that exists nowhere is still an error
      expect((await cli(['explain', file, 'initContainers[0].readinessProbe.nope'])).code).toBe(2);
      // issue 24: the short path answers for every container it matches, the app's directly and the
      // sidecar's through its probe's reason, each saying which container it is
      const short = await cli(['explain', file, 'readinessProbe.timeoutSeconds']);
      expect(short.out.split('\n').filter((l) => /^\S/.test(l))).toEqual([
        'Rollout/orders-api spec.template.spec.containers[0].readinessProbe.timeoutSeconds [container app (containers[0])] = 3',
        'Rollout/orders-api spec.template.spec.initContainers[0].readinessProbe.timeoutSeconds [container cloud-sql-proxy (initContainers[0])] = 3  (no reason of its own: the reason of spec.template.spec.initContainers[0].readinessProbe, which holds it)',
      ]); // the migration Job's sidecar has no readinessProbe (test/services/migrations.test.ts)
      // and in every object: the sidecar's start-up gate in the Rollout and in the migration Job
      const startup = await cli(['explain', file, 'startupProbe.periodSeconds']);
      expect(
        startup.out
          .split('\n')
          .filter((l) => /^\S/.test(l))
          .map((l) => l.replace(/ = .*/, '')),
      ).toEqual(
        expect.arrayContaining([
          'Rollout/orders-api spec.template.spec.initContainers[0].startupProbe.periodSeconds [container cloud-sql-proxy (initContainers[0])]',
          'Job/orders-api-migrate spec.template.spec.initContainers[0].startupProbe.periodSeconds [container cloud-sql-proxy (initContainers[0])]',
        ]),
      );
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});

describe('inputs given the wrong way are named as given', () => {
  test('a CPU limit override as a bare string says so and shows the right shape (not "undefined")', () => {
    expect(() => build({ overrides: { cpuLimit: '1' as never } })).toThrow(
      /overrides\.cpuLimit = 1: an override is an object \{ value, because \}.*Fix: write overrides\.cpuLimit: \{ value: '1', because: '<why this value is right for this service>' \}/,
    );
  });

  test('cpu: 0.5 (a number) is refused as a number, with the string to write, not as an invalid "0.5"', () => {
    expect(() => build({ resources: { cpu: 0.5 as never, memory: '512Mi' } })).toThrow(
      /resources\.cpu = 0\.5: is the number 0\.5, and CPU quantities are strings here.*Fix: write it as a string: "500m" \(or "0\.5"\)/,
    );
    expect(() => build({ resources: { cpu: '250m', memory: 512 as never } })).toThrow(
      /resources\.memory = 512: is the number 512.*"512Mi"/,
    );
  });

  test('setWeight(150) is refused by the service that uses it, naming the service, its path and the step, without pointing at a maxTrafficWeight rollwise has no input for', () => {
    const steps = (w: number) =>
      Delivery.canary({
        steps: [
          CanaryStep.setWeight(5),
          CanaryStep.pause(Duration.minutes(10)),
          CanaryStep.setWeight(w),
          CanaryStep.analysisGate(),
        ],
      });
    expect(() => build({ delivery: steps(150) })).toThrow(
      /^service checkout-api \(c\/checkout-api\): delivery\.steps\[2\] CanaryStep\.setWeight\(percent\) = 150: .*from 0 to 100/,
    );
    let error: unknown;
    try {
      build({ delivery: steps(150) });
    } catch (e) {
      error = e;
    }
    const message = formatInputError(error as RollwiseInputError);
    expect(message).toMatch(
      /^rollwise: invalid input in service checkout-api \(c\/checkout-api\)\n {2}delivery\.steps\[2\] CanaryStep\.setWeight\(percent\) = 150\n/,
    );
    expect(message).not.toContain('maxTrafficWeight');
    expect(() => build({ delivery: steps(12.5) })).toThrow(/must be a whole number from 0 to 100/);
    // the fix names the same range as the why (0 is valid: the controller accepts 0..100)
    expect(message).toMatch(/fix: use a whole percentage from 0 to 100, e\.g\. CanaryStep\.setWeight\(25\)/);
    expect(() => CanaryStep.setWeight(0)).not.toThrow();
    expect(() =>
      build({
        delivery: Delivery.canary({
          steps: [CanaryStep.setWeight(25), CanaryStep.pause(Duration.minutes(10)), CanaryStep.analysisGate()],
        }),
      }),
    ).not.toThrow();
  });

  test('a first weight with enough traffic but too short a hold is told to hold longer, not to lower the weight', () => {
    // 25 % of 3,700 req/s gives the sample in one 2 min window; the gate alone holds 5 min, less than
    // the 6 min a sustained failure takes to abort there (docs/mechanisms.md#one-burst-and-the-limits).
    expect(() =>
      build({ delivery: Delivery.canary({ steps: [CanaryStep.setWeight(25), CanaryStep.analysisGate()] }) }),
    ).toThrow(
      /the hold \(5 min\) is shorter than the shortest window's abort.*Fix: 25 % already gives the sample over 2 min; hold it .*6 min\), e\.g\. CanaryStep\.setWeight\(25\), CanaryStep\.pause\(Duration\.minutes\(6\)\)/,
    );
  });
});

describe('values named as given (issue 24 review)', () => {
  test('a rolling-update service without a namespace says unset, as the canary does, and as helpfully', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'c');
    let rolling = '';
    try {
      new HttpService(chart, 'checkout-api', { ...checkoutApiProps(), delivery: Delivery.rollingUpdate() });
    } catch (e) {
      rolling = (e as Error).message;
    }
    expect(rolling).toMatch(
      /namespace = unset: neither the props nor the chart give one, and the alerts need it at synth.*would never fire\. Fix: give the chart a namespace \(new Chart\(app, id, \{ namespace: "shop" \}\)\) or set namespace; Environment\.addChart uses the environment's destination namespace\./,
    );
    expect(() => new HttpService(new Chart(Testing.app(), 'c'), 'checkout-api', checkoutApiProps())).toThrow(
      /namespace = unset: neither the props nor the chart give one.*Fix: give the chart a namespace \(new Chart\(app, id, \{ namespace: "shop" \}\)\)/,
    );
  });

  test('an empty Secret key is named as empty, not printed as nothing', () => {
    expect(() => build({ container: { env: { PASSWORD: EnvValue.fromSecret('orders-db', '') } } })).toThrow(
      /container\.env\.PASSWORD = "" \(empty\): is not a Secret key/,
    );
  });
});

describe('a server on port 80', () => {
  test('is accepted: the pod lowers net.ipv4.ip_unprivileged_port_start to 80 (a safe sysctl), stays non-root, schema-valid and lint clean', () => {
    const objs = build({ port: 80 });
    const pod = workload(objs).spec.template.spec;
    expect(pod.securityContext.sysctls).toEqual([{ name: 'net.ipv4.ip_unprivileged_port_start', value: '80' }]);
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(pod.containers[0].securityContext.capabilities).toEqual({ drop: ['ALL'] });
    expect(workload(objs).metadata.annotations?.['rollwise.dev/reasons']).toMatch(
      /securityContext\.sysctls\[0\]\.value: A container listens on port 80, below 1024/,
    );
    const validator = SchemaValidator.load();
    for (const o of objs) expect([o.kind, validator.validate(o)]).toEqual([o.kind, []]);
    expect(lintObjects(objs).map((f) => f.ruleId)).toEqual([]);
  });

  test('a port at 1024 or above needs no sysctl', () => {
    expect(workload(build({ port: 8080 })).spec.template.spec.securityContext.sysctls).toBeUndefined();
  });
});

describe('rollwise diff when a CPU limit is added', () => {
  test('the memory limit is not shown as removed: the limits block shows the one leaf that changed', () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-papercut-diff-'));
    try {
      const synth = (name: string, p: HttpServiceProps) => {
        const outdir = path.join(tmp, name);
        synthesize(
          (dir) => {
            const app = new App({ outdir: dir });
            addEstate(app, { environments: exampleEnvironments(), services: { 'checkout-api': p } });
            return app;
          },
          { outdir },
        );
        return resolveSide(outdir, 'dist', tmp);
      };
      const before = synth('a', checkoutApiProps());
      const after = synth('b', {
        ...checkoutApiProps(),
        overrides: { cpuLimit: { value: '1', because: 'this cluster bills by limit; throttling measured at 0.3 %' } },
      });
      const report = diffOutputs(before, after);
      const md = formatDiffMarkdown(report, []);
      const limitsRow = md.split('\n').find((l) => l.includes('`spec.template.spec.containers[0].resources.limits`'))!;
      expect(limitsRow).toContain('`cpu: (absent) -> 1`');
      expect(limitsRow).not.toMatch(/→ `\(absent\)`/);
      expect(formatDiffText(report)).toMatch(
        /resources\.limits: no longer decided \(was \{"memory":"512Mi"\}, now \{"cpu":"1","memory":"512Mi"\}\)/,
      );
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
