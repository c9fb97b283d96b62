import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Chart, Duration, Testing } from 'cdk8s';
import { ArgoCdApplication } from '../src/constructs/argo-cd-application';
import { HttpService, HttpServiceProps } from '../src/constructs/http-service';
import { CanaryStep, Delivery } from '../src/decisions/canary';
import { EnvFrom, Volume } from '../src/decisions/containers';
import { AppServer } from '../src/decisions/keep-alive';
import { Platform } from '../src/decisions/platform';
import { checkoutApiProps, examplePlatform } from '../src/example';
import { RollwiseInputError } from '../src/errors';
import { SynthLayout } from '../src/synth/layout';
import { RollwiseApp } from '../src/synth/rollwise-app';

/** Inputs that used to crash with a TypeError or a BigInt serialization error: each is an input error now. */
function build(props: Partial<HttpServiceProps>): unknown {
  try {
    const chart = new Chart(Testing.app(), 'c', { namespace: 'checkout' });
    new HttpService(chart, 'checkout-api', { ...checkoutApiProps(), ...props });
    return Testing.synth(chart);
  } catch (e) {
    return e;
  }
}

const cases: [string, () => unknown, RegExp][] = [
  ['null env', () => build({ container: { env: null as never } }), /container\.env/],
  ['a null env value', () => build({ container: { env: { A: null as never } } }), /container\.env\.A/],
  [
    'a null toleration',
    () => build({ pod: { serviceAccount: { name: 'checkout-api' }, tolerations: [null as never] } }),
    /pod\.tolerations\[0\]/,
  ],
  [
    'CanaryStep.fromJson(null)',
    () => {
      try {
        return CanaryStep.fromJson(null as never);
      } catch (e) {
        return e;
      }
    },
    /CanaryStep\.fromJson\(step\) = null/,
  ],
  // refused by the service that uses the delivery, so the error names it (issue 24)
  [
    'plain-object steps',
    () => build({ delivery: Delivery.canary({ steps: [{ setWeight: 5 } as never] }) }),
    /^service checkout-api \(c\/checkout-api\): delivery\.steps\[0\] = \{"setWeight":5\}: must be made by a CanaryStep factory/,
  ],
  ['a BigInt replica count', () => build({ replicas: 3n as never }), /replicas = 3n/],
  ['a BigInt port', () => build({ port: 8080n as never }), /port = 8080n/],
  ['NaN replicas', () => build({ replicas: NaN }), /replicas = NaN/],
  [
    'a string automountServiceAccountToken-like boolean prop',
    () => build({ passiveHealthCheck: 'yes' as never }),
    /passiveHealthCheck/,
  ],
];

test.each(cases)('%s', (_, run, message) => {
  const e = run();
  expect(e).toBeInstanceOf(RollwiseInputError);
  expect((e as Error).message).toMatch(message);
});

/** The README's rolling-update example (web-front): no rehearsal, so a synth takes well under a second. */
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

let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-crash-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

/** Builds a RollwiseApp (props as a JavaScript caller may pass them), lets `build` add to it, synthesizes; returns the error. */
function synthApp(build: (app: RollwiseApp) => void, appProps: unknown = {}): unknown {
  try {
    const app = new RollwiseApp({
      outdir: path.join(root, 'dist'),
      onWarning: () => undefined,
      ...(appProps as object),
    });
    build(app);
    app.synthesize();
    return undefined;
  } catch (e) {
    return e;
  }
}

type Writable<T> = { -readonly [K in keyof T]: T[K] };
const web = (app: RollwiseApp, change: (p: Writable<HttpServiceProps>) => unknown = () => undefined): HttpService => {
  const p = webFront();
  change(p);
  return new HttpService(new Chart(app, 'c', { namespace: 'shop' }), 'web-front', p);
};

/** Issue 22, adversarial catalogue (c): each of these crashed with a TypeError or RangeError. */
const jsCallers: [string, () => unknown, RegExp][] = [
  [
    'container.envFrom not a list',
    () =>
      synthApp((a) =>
        web(a, (p) => {
          p.container = { envFrom: EnvFrom.configMap('cm') as never };
        }),
      ),
    /container\.envFrom = an EnvFrom \(not a list\): must be a list/,
  ],
  [
    'container.command an object',
    () =>
      synthApp((a) =>
        web(a, (p) => {
          p.container = { command: { 0: 'node' } as never };
        }),
      ),
    /container\.command = \{"0":"node"\}: must be a list of strings/,
  ],
  [
    'container.ports an object',
    () =>
      synthApp((a) =>
        web(a, (p) => {
          p.container = { ports: { name: 'metrics', port: 9090 } as never };
        }),
      ),
    /container\.ports = .*\(an object, not a list\)/,
  ],
  [
    'pod.volumes not a list',
    () =>
      synthApp((a) =>
        web(a, (p) => {
          p.pod = { volumes: Volume.emptyDir('a') as never };
        }),
      ),
    /pod\.volumes = a Volume \(not a list\)/,
  ],
  [
    'pod.imagePullSecrets a string',
    () =>
      synthApp((a) =>
        web(a, (p) => {
          p.pod = { imagePullSecrets: 'regcred' as never };
        }),
      ),
    /pod\.imagePullSecrets = regcred: must be a list of Secret names/,
  ],
  [
    'CanaryStep.fromJson with a BigInt',
    () => {
      try {
        return CanaryStep.fromJson({ setWeight: 10n });
      } catch (e) {
        return e;
      }
    },
    /CanaryStep\.fromJson\(step\)\.setWeight = 10n: is a BigInt/,
  ],
  [
    'a platform override given as a bare Duration',
    () => {
      try {
        return new Platform({ readinessPeriod: Duration.seconds(5) as never });
      } catch (e) {
        return e;
      }
    },
    /platform\.readinessPeriod = Duration\.seconds\(5\): an override is an object \{ value, because \}/,
  ],
  [
    'a platform override value that is not a Duration',
    () => {
      try {
        return new Platform({ readinessPeriod: { value: 5, because: 'probing faster on this cluster' } as never });
      } catch (e) {
        return e;
      }
    },
    /platform\.readinessPeriod\.value = 5: must be a Duration/,
  ],
  [
    'new Platform(null)',
    () => {
      try {
        return new Platform(null as never);
      } catch (e) {
        return e;
      }
    },
    /^platform = null: must be an object with the keys/,
  ],
  [
    'HttpService props undefined',
    () => synthApp((a) => new HttpService(new Chart(a, 'c', { namespace: 'shop' }), 'web', undefined as never)),
    /props = undefined: is the third argument of new HttpService\(scope, 'web', props\)/,
  ],
  [
    'HttpService props null',
    () => synthApp((a) => new HttpService(new Chart(a, 'c', { namespace: 'shop' }), 'web', null as never)),
    /props = null: is the third argument/,
  ],
  [
    'HttpService props a list',
    () => synthApp((a) => new HttpService(new Chart(a, 'c', { namespace: 'shop' }), 'web', [] as never)),
    /props = a list: is the third argument/,
  ],
  [
    'ArgoCdApplication settings null',
    () =>
      synthApp((a) => {
        const s = web(a);
        new ArgoCdApplication(new Chart(a, 'argo'), 'web-app', { service: s, settings: null as never });
      }),
    /^settings = null: must be an object/,
  ],
  [
    'RollwiseApp layout a plain object',
    () => synthApp(() => undefined, { layout: {} }),
    /RollwiseApp\.layout = \{\}: must be made by a SynthLayout factory/,
  ],
  [
    'SynthLayout.custom returning a number',
    () => synthApp((a) => web(a), { layout: SynthLayout.custom(() => 42 as never) }),
    /layout = 42: gave the file of chart c as a number, not a file path/,
  ],
  [
    'RollwiseApp resolvers [{}]',
    () => synthApp(() => undefined, { resolvers: [{}] }),
    /RollwiseApp\.resolvers\[0\] = \{\}: is not a resolver/,
  ],
  [
    'an ApiObject whose toJson() returns null',
    () =>
      synthApp((a) => {
        const s = web(a);
        s.podDisruptionBudget.toJson = () => null;
      }),
    /c\/web-front\/pdb\.toJson\(\) = null: returned null instead of the object's manifest/,
  ],
];

test.each(jsCallers)('%s', (_, run, message) => {
  const e = run();
  expect(e).toBeInstanceOf(RollwiseInputError);
  expect((e as Error).message).toMatch(message);
  expect((e as Error).message).toContain('Fix: ');
});

test("a peak far below one replica's saturation keeps one pod up (it crashed the drain simulation with a budget of every replica)", () => {
  const app = Testing.app();
  const s = new HttpService(new Chart(app, 'c', { namespace: 'shop' }), 'web-front', {
    ...webFront(),
    capacity: { peakRequestsPerSecond: 1e-9, saturationRequestsPerSecondPerReplica: 100 },
  });
  expect(s.decisions.pdbMaxUnavailable.value).toBe(2);
  expect(s.decisions.pdbMaxUnavailable.reason).toContain(
    '1 replicas must stay up (at least one: traffic needs a pod to serve it)',
  );
});
