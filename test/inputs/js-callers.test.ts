import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Chart, Duration, JsonPatch, Testing } from 'cdk8s';
import { ArgoCdApplication } from '../../src/constructs/argo-cd-application';
import { HttpService, HttpServiceProps } from '../../src/constructs/http-service';
import { CanaryStep, Delivery } from '../../src/decisions/canary';
import { EnvValue, Volume } from '../../src/decisions/containers';
import { AppServer } from '../../src/decisions/keep-alive';
import { KubernetesVersion } from '../../src/decisions/kubernetes-version';
import { Platform } from '../../src/decisions/platform';
import { examplePlatform } from '../../src/example';
import { RollwiseInputError } from '../../src/errors';
import { RollwiseApp } from '../../src/synth/rollwise-app';

/**
 * Issue 22, adversarial catalogue (d!): inputs a JavaScript caller gets wrong that were silently
 * accepted, ignored or coerced. Each is refused now, naming the input as written, with "did you
 * mean" for a key that is a typo; and one valid input (a* over-strict) that was refused.
 */
function webFront(): HttpServiceProps {
  return {
    image: 'ghcr.io/acme/web-front:5.1.0',
    port: 3000,
    replicas: 3,
    health: { readinessPath: '/ready', readinessP99UnderLoad: Duration.millis(20) },
    resources: { cpu: '250m', memory: '256Mi' },
    appServer: AppServer.nodeHttp(),
    container: { runAs: { user: 1000 } },
    delivery: Delivery.rollingUpdate(),
    platform: examplePlatform(),
  };
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };
function web(change: (p: Writable<HttpServiceProps>) => void = () => undefined, app: App = Testing.app()): HttpService {
  const p = webFront();
  change(p);
  return new HttpService(new Chart(app, 'c', { namespace: 'shop' }), 'web-front', p);
}

function error(run: () => unknown): RollwiseInputError {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(RollwiseInputError);
    expect((e as Error).message).toContain('Fix: ');
    return e as RollwiseInputError;
  }
  throw new Error('expected a RollwiseInputError, but it was accepted');
}

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-js-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));
const newApp = (props: object = {}) =>
  new RollwiseApp({ outdir: path.join(root, 'dist'), onWarning: () => undefined, ...props });

describe('unknown keys in factory options are refused with "did you mean", like the service props', () => {
  test.each([
    [
      'AppServer.uvicorn({ keepalive })',
      () => AppServer.uvicorn({ keepalive: Duration.seconds(10) } as never),
      'appServer.keepalive',
      /did you mean appServer\.keepAlive\?/,
    ],
    [
      'AppServer.goNetHttp({ idletimeout })',
      () => AppServer.goNetHttp({ idletimeout: Duration.seconds(10) } as never),
      'appServer.goNetHttp.idletimeout',
      /did you mean appServer\.goNetHttp\.idleTimeout\?/,
    ],
    [
      'Delivery.canary({ step })',
      () =>
        web((p) => {
          p.delivery = Delivery.canary({ step: [] } as never);
        }),
      'delivery.step',
      /did you mean delivery\.steps\?/,
    ],
    [
      'Delivery.canary({ manualPromotion: { reason } })',
      () =>
        web((p) => {
          p.delivery = Delivery.canary({ manualPromotion: { reason: 'about 2 req/s at release time' } } as never);
        }),
      'delivery.manualPromotion.reason',
      /Known: because/,
    ],
    [
      'new Platform({ gatway })',
      () => new Platform({ gatway: { name: 'public', namespace: 'gw' } } as never),
      'platform.gatway',
      /did you mean platform\.gateway\?/,
    ],
    [
      'new Platform({ argoCd: { repoUrl } })',
      () => new Platform({ argoCd: { repoUrl: 'https://github.com/acme/deploy.git', path: 'dist' } } as never),
      'platform.argoCd.repoUrl',
      /did you mean platform\.argoCd\.repoURL\?/,
    ],
    [
      'RollwiseApp({ comment })',
      () => newApp({ comment: false }),
      'RollwiseApp.comment',
      /did you mean RollwiseApp\.comments\?/,
    ],
    [
      'a toleration typo (operater)',
      () =>
        web((p) => {
          p.pod = { tolerations: [{ key: 'k', operater: 'Exists' } as never] };
        }),
      'pod.tolerations[0].operater',
      /did you mean pod\.tolerations\[0\]\.operator\?/,
    ],
    [
      'a mount typo (readonly)',
      () =>
        web((p) => {
          p.pod = { volumes: [Volume.emptyDir('cfg')] };
          p.container = { mounts: [{ volume: 'cfg', path: '/etc/cfg', readonly: true } as never] };
        }),
      'container.mounts[0].readonly',
      /did you mean container\.mounts\[0\]\.readOnly\?/,
    ],
    [
      'a service account typo (mounttoken)',
      () =>
        web((p) => {
          p.pod = {
            serviceAccount: { name: 'web', mounttoken: { value: true, because: 'reads its ConfigMap' } } as never,
          };
        }),
      'pod.serviceAccount.mounttoken',
      /did you mean pod\.serviceAccount\.mountToken\?/,
    ],
  ])('%s', (_, run, input, message) => {
    const e = error(run);
    expect(e.input).toBe(input);
    expect(e.message).toMatch(message);
  });

  test('Delivery.rollingUpdate({ steps }) takes no options and says where steps belong', () => {
    const e = error(() => (Delivery.rollingUpdate as (o: unknown) => Delivery)({ steps: [CanaryStep.setWeight(10)] }));
    expect(e.input).toBe('Delivery.rollingUpdate({ steps })');
    expect(e.why).toMatch(/takes no options.*options of Delivery\.canary\(\)/);
    expect((Delivery.rollingUpdate as (o: unknown) => Delivery)({}).kind).toBe('rollingUpdate');
  });
});

describe('values of the wrong type are refused, not coerced', () => {
  test.each([
    [
      'RollwiseApp({ yamlOutputType: "bogus" })',
      () => newApp({ yamlOutputType: 'bogus' }),
      'RollwiseApp.yamlOutputType',
      /is not a YamlOutputType/,
    ],
    [
      'RollwiseApp({ comments: "yes" })',
      () => newApp({ comments: 'yes' }),
      'RollwiseApp.comments',
      /must be true or false/,
    ],
    [
      'RollwiseApp({ onWarning: "stderr" })',
      () => newApp({ onWarning: 'stderr' }),
      'RollwiseApp.onWarning',
      /must be a function/,
    ],
    [
      'health.readinessCallsDependency: "yes" (was read as false)',
      () =>
        web((p) => {
          p.health = { ...p.health, readinessCallsDependency: 'yes' as never };
        }),
      'health.readinessCallsDependency',
      /must be true or false/,
    ],
    [
      'mounts[].readOnly: "yes" (was read as true)',
      () =>
        web((p) => {
          p.pod = { volumes: [Volume.emptyDir('cfg')] };
          p.container = { mounts: [{ volume: 'cfg', path: '/etc/cfg', readOnly: 'yes' as never }] };
        }),
      'container.mounts[0].readOnly',
      /must be true or false/,
    ],
    [
      'EnvValue.fromValue(undefined) (the name alone was written)',
      () =>
        web((p) => {
          p.container = { env: { FOO: EnvValue.fromValue(undefined as never) } };
        }),
      'container.env.FOO',
      /gives the variable no value/,
    ],
    [
      'overrides.acceptNoHeadroom: { value: "yes" }',
      () =>
        web((p) => {
          p.overrides = {
            acceptNoHeadroom: { value: 'yes' as never, because: 'scaling out next sprint, ticket OPS-12' },
          };
        }),
      'overrides.acceptNoHeadroom',
      /must be true or false/,
    ],
  ])('%s', (_, run, input, message) => {
    const e = error(run);
    expect(e.input).toBe(input);
    expect(e.why).toMatch(message);
  });
});

test('manual promotion is held to the one reason rule (runs of one letter, placeholders), like overrides', () => {
  // Delivery's problems are refused by the service that uses it (naming the service)
  expect(Delivery.canary({ manualPromotion: { because: 'xxxxxxxxxxxxxxx' } }).problem?.why).toMatch(
    /repeats "x"|placeholder/,
  );
  expect(Delivery.canary({ manualPromotion: { because: 'TODO: explain later' } }).problem?.why).toMatch(/placeholder/);
  expect(
    error(() =>
      web((p) => {
        p.delivery = Delivery.canary({ manualPromotion: { because: 'TODO: explain later' } });
      }),
    ).why,
  ).toMatch(/placeholder/);
  expect(
    Delivery.canary({ manualPromotion: { because: 'about 2 req/s at release time: too few requests for a 1 % ratio' } })
      .manualPromotion,
  ).toContain('2 req/s');
});

test('a probe path with an invisible character (a zero-width space) is refused, naming the code point', () => {
  const e = error(() =>
    web((p) => {
      p.health = { ...p.health, readinessPath: '/he\u200balth' };
    }),
  );
  expect(e.input).toBe('health.readinessPath');
  expect(e.value).toBe('/he\\u200balth');
  expect(e.why).toMatch(/U\+200B, an invisible character: it is sent percent-encoded \(%E2%80%8B\)/);
  expect(e.fix).toContain('"/health"');
  // a visible non-ASCII path is the server's business
  expect(() =>
    web((p) => {
      p.health = { ...p.health, readinessPath: '/santé' };
    }),
  ).not.toThrow();
});

describe("environment variable names follow the platform's Kubernetes version", () => {
  const on = (version: KubernetesVersion, name: string) => () =>
    web((p) => {
      p.platform = new Platform({ kubernetesVersion: version });
      p.container = { ...p.container, env: { [name]: EnvValue.fromValue('x') } };
    });
  test('1.33 (RelaxedEnvironmentVariableValidation, on by default since 1.32) accepts any printable ASCII but "="', () => {
    const s = on(KubernetesVersion.V1_33, '1OK')() as HttpService;
    expect(s.decisions.pod.app.env.map((e) => e.name)).toEqual(['1OK']);
    expect(() => on(KubernetesVersion.V1_33, 'A B:c')()).not.toThrow();
    expect(error(on(KubernetesVersion.V1_33, 'A=B')).why).toMatch(
      /printable ASCII characters other than "=", on Kubernetes 1\.33/,
    );
    expect(error(on(KubernetesVersion.V1_33, 'CAFÉ')).input).toBe('container.env.CAFÉ');
  });
  test('1.28 keeps the strict rule and says where it relaxes', () => {
    expect(error(on(KubernetesVersion.V1_28, '1OK')).why).toMatch(
      /not starting with a digit, on Kubernetes 1\.28.*from 1\.32 any printable ASCII but "="/,
    );
  });
  test('the written objects are accepted by the cluster validation at 1.33', () => {
    const app = newApp();
    web((p) => {
      p.platform = new Platform({ kubernetesVersion: KubernetesVersion.V1_33 });
      p.container = { ...p.container, env: { '1OK': EnvValue.fromValue('x') } };
    }, app);
    expect(() => app.synthesize()).not.toThrow();
    expect(fs.readFileSync(path.join(root, 'dist', 'c.k8s.yaml'), 'utf8')).toContain('name: 1OK');
  });
});

describe('Argo CD Applications', () => {
  test('settings without a path (a JavaScript caller) are refused: the Application would have no source.path', () => {
    const app = Testing.app();
    const s = web(() => undefined, app);
    const e = error(
      () =>
        new ArgoCdApplication(new Chart(app, 'argo'), 'web-app', {
          service: s,
          settings: { repoURL: 'https://github.com/acme/deploy.git' } as never,
        }),
    );
    expect(e.input).toBe('settings.path');
    expect(e.why).toMatch(/source\.path/);
  });
  test('an Application in the chart of the service it applies is refused: it would apply itself', () => {
    const app = Testing.app();
    const s = web(() => undefined, app);
    const e = error(() => new ArgoCdApplication(Chart.of(s), 'web-app', { service: s, settings: s.platform.argoCd! }));
    expect(e.input).toBe('scope');
    expect(e.why).toMatch(/written into the service's own file, which it applies/);
    expect(e.fix).toMatch(/a chart of its own/);
    expect(
      () => new ArgoCdApplication(new Chart(app, 'argo'), 'web-app', { service: s, settings: s.platform.argoCd! }),
    ).not.toThrow();
  });
});

test('acceptPatch on a field no patch changed is refused at synth: there is nothing to accept', () => {
  const app = newApp();
  const s = web(() => undefined, app);
  s.acceptPatch(
    s.workload,
    'spec.template.spec.containers[0].resources.limits.cpu',
    'billing by limit on this cluster, throttling measured at 0.3 %',
  );
  expect(() => app.synthesize()).toThrow(
    /acceptPatch\(Deployment\/web-front, 'spec\.template\.spec\.containers\[0\]\.resources\.limits\.cpu'\): no escape-hatch patch changes this field \(it is absent with and without the patches\), so there is nothing to accept.*Fix: remove the acceptPatch call/,
  );
  // with the patch it accepts, the same call is fine
  const app2 = new RollwiseApp({ outdir: path.join(root, 'dist2'), onWarning: () => undefined });
  const s2 = web(() => undefined, app2);
  s2.workload.addJsonPatch(JsonPatch.add('/spec/template/spec/automountServiceAccountToken', true));
  s2.acceptPatch(
    s2.workload,
    'spec.template.spec.automountServiceAccountToken',
    'reads its own ConfigMap through the API (reviewed by platform)',
  );
  expect(() => app2.synthesize()).not.toThrow();
});
