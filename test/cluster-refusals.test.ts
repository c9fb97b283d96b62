import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, App, Chart, JsonPatch, Lazy } from 'cdk8s';
import { ClusterPrerequisites, pluginConfigProblems } from '../src/constructs/cluster-prerequisites';
import { acceptPatch } from '../src/invariants/decided-values';
import { HttpService, HttpServiceProps } from '../src/constructs/http-service';
import { ServiceNamespace } from '../src/constructs/service-namespace';
import { CanaryStep, Delivery } from '../src/decisions/canary';
import { EnvValue } from '../src/decisions/containers';
import { checkoutApiProps } from '../src/example';
import { imageReferenceProblem } from '../src/schemas/builtin';
import { synthesize } from '../src/synth/synth';

/**
 * Issue 22's catalogue: inputs and escape-hatch patches that synth used to accept although the
 * API server, the kubelet or a controller refuses the result. Each is refused now, before
 * anything is written, with a message naming the object and field (or the input).
 */
let root: string;
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-refusals-'));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function synth(props: Partial<HttpServiceProps> = {}, patch?: (svc: HttpService, app: App) => void): void {
  const out = path.join(root, 'dist');
  synthesize(
    (outdir) => {
      const app = new App({ outdir });
      const svc = new HttpService(new Chart(app, 'checkout-api', { namespace: 'checkout' }), 'checkout-api', {
        ...checkoutApiProps(),
        ...props,
      });
      patch?.(svc, app);
      return app;
    },
    { outdir: out, progress: () => undefined },
  );
}

function refused(run: () => void, message: RegExp): void {
  expect(run).toThrow(message);
  expect(fs.existsSync(path.join(root, 'dist'))).toBe(false);
}

const pod = (p: string) => `/spec/template/spec/${p}`;

describe("route path prefixes the HTTPRoute CRD's CEL rules refuse", () => {
  test.each(['/api//v1', '/api/..', '/a#b', '/a%2Fb', '/bücher', '/a/./b'])('%s', (prefix) => {
    refused(
      () => synth({ route: { hostnames: ['checkout.example.com'], pathPrefix: prefix } }),
      /route\.pathPrefix|CRD validation rule|does not match the pattern/,
    );
  });
  test('a valid prefix passes', () => {
    synth({ route: { hostnames: ['checkout.example.com'], pathPrefix: '/api/v1' } });
  });
});

describe('image references the kubelet refuses (InvalidImageName)', () => {
  test.each([
    ['upper-case repository', 'ghcr.io/Acme/checkout-api:1.4.2'],
    ['short digest', 'ghcr.io/acme/checkout-api@sha256:abc123'],
    ['two tags', 'ghcr.io/acme/checkout-api:1.4.2:1.4.3'],
    ['zero-width space', 'ghcr.io/acme/checkout\u200b-api:1.4.2'],
  ])('%s', (_, image) => {
    expect(imageReferenceProblem(image)).toBeDefined();
    refused(() => synth({ image }), /image/);
  });
  test.each([
    'ghcr.io/acme/checkout-api:1.4.2',
    'localhost:5000/a/b:1',
    `nginx@sha256:${'a'.repeat(64)}`,
    'registry.example.com:443/x_y/z__w:v1.2-rc.1',
  ])('accepted: %s', (image) => {
    expect(imageReferenceProblem(image)).toBeUndefined();
  });
});

describe('pod template metadata, annotations, env size', () => {
  test('an invalid label key on the pod template', () => {
    refused(
      () => synth({ pod: { serviceAccount: { name: 'checkout-api' }, labels: { 'bad key!': 'x' } } }),
      /bad key!/,
    );
  });
  test('an invalid annotation key on the pod template (by patch)', () => {
    refused(
      () =>
        synth({}, (svc) =>
          svc.workload.addJsonPatch(JsonPatch.add('/spec/template/metadata/annotations', { 'a/b/c': 'x' })),
        ),
      /annotation key "a\/b\/c"/,
    );
  });
  test('annotations over the 256 KiB total', () => {
    refused(
      () =>
        synth({}, (svc) =>
          svc.workload.addJsonPatch(JsonPatch.add('/metadata/annotations/acme.com~1big', 'x'.repeat(300 * 1024))),
        ),
      /256 KiB/,
    );
  });
  test('a 2 MiB env value makes the object larger than etcd stores', () => {
    refused(
      () =>
        synth({ container: { runAs: { user: 10001 }, env: { BIG: EnvValue.fromValue('x'.repeat(2 * 1024 * 1024)) } } }),
      /1\.5 MiB|larger|bytes/,
    );
  });
});

describe('placement and mounts', () => {
  const tolerations = (t: unknown) =>
    ({ pod: { serviceAccount: { name: 'checkout-api' }, tolerations: [t] } }) as unknown as Partial<HttpServiceProps>;
  test('a toleration with a bad key', () => {
    refused(() => synth(tolerations({ key: 'bad key', operator: 'Exists' })), /tolerations|bad key/);
  });
  test('tolerationSeconds without NoExecute', () => {
    refused(
      () => synth(tolerations({ key: 'dedicated', operator: 'Exists', effect: 'NoSchedule', tolerationSeconds: 30 })),
      /NoExecute/,
    );
  });
  test('affinity operator Equals', () => {
    const affinity = {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'Equals', values: ['a'] }] }],
        },
      },
    };
    refused(
      () =>
        synth({ pod: { serviceAccount: { name: 'checkout-api' }, affinity } } as unknown as Partial<HttpServiceProps>),
      /Equals/,
    );
  });
  test('a duplicate mount path (by patch) and a mount on /', () => {
    const mount = (p: string) => (svc: HttpService) =>
      svc.workload.addJsonPatch(JsonPatch.add(`${pod('containers/0/volumeMounts')}/-`, { name: 'tmp', mountPath: p }));
    refused(() => synth({}, mount('/tmp')), /mounted twice|mountPath/);
    refused(() => synth({}, mount('/')), /root file system/);
  });
});

describe('values of the wrong kind', () => {
  test('setWeight(5.5)', () => {
    refused(
      () =>
        synth({
          delivery: Delivery.canary({ steps: [CanaryStep.setWeight(5.5), CanaryStep.pause(undefined as never)] }),
        }),
      /delivery\.steps\[0\] CanaryStep\.setWeight\(percent\) = 5\.5/,
    );
    refused(
      () =>
        synth({
          delivery: Delivery.canary({ steps: [CanaryStep.setWeight(5), CanaryStep.pause(undefined as never)] }),
        }),
      /delivery\.steps\[1\] steps\.pause = null: must be a Duration/,
    );
  });
  test('a string automountServiceAccountToken (by patch)', () => {
    refused(
      () =>
        synth({}, (svc) => svc.workload.addJsonPatch(JsonPatch.replace(pod('automountServiceAccountToken'), 'false'))),
      /automountServiceAccountToken/,
    );
  });
  test('a typo in a props group from JavaScript: did you mean', () => {
    const health = { readinesPath: '/healthz' } as unknown as HttpServiceProps['health'];
    refused(() => synth({ health }), /health\.readinesPath.*did you mean health\.readinessPath/);
  });
  test('a top-level typo', () => {
    refused(() => synth({ replica: 3 } as unknown as Partial<HttpServiceProps>), /replica = 3.*did you mean replicas/);
  });
  test('null, BigInt and plain objects where a factory belongs', () => {
    refused(() => synth({ health: null as unknown as HttpServiceProps['health'] }), /health = null/);
    refused(() => synth({ resources: 5n as unknown as HttpServiceProps['resources'] }), /resources = 5n/);
    refused(() => synth({ delivery: { kind: 'canary' } as unknown as Delivery }), /delivery = a plain object.*factory/);
    refused(() => synth({ sidecars: 'proxy' as unknown as HttpServiceProps['sidecars'] }), /sidecars = proxy.*list/);
  });
});

describe('escape hatches: one render, every workload, toJson overrides', () => {
  test('a Lazy value that changes after the first render is checked as written', () => {
    let calls = 0;
    // the first render (if any) sees 2, every later one 1: what is written is what is checked
    refused(
      () =>
        synth({}, (svc) =>
          svc.workload.addJsonPatch(
            JsonPatch.replace('/spec/replicas', Lazy.any({ produce: () => (++calls > 1 ? 1 : 2) })),
          ),
        ),
      /replicas/,
    );
  });
  test('a second synth() after a patch is checked again', () => {
    const out = path.join(root, 'dist');
    const app = new App({ outdir: out });
    const svc = new HttpService(
      new Chart(app, 'checkout-api', { namespace: 'checkout' }),
      'checkout-api',
      checkoutApiProps(),
    );
    synthesize(() => app, { outdir: out, progress: () => undefined });
    svc.workload.addJsonPatch(JsonPatch.replace('/spec/replicas', 1));
    expect(() => synthesize(() => app, { outdir: out, progress: () => undefined })).toThrow(/INV03-replicas/);
  });
  test('a second workload under a service is checked', () => {
    refused(
      () =>
        synth(
          {},
          (svc) =>
            new ApiObject(svc, 'extra', {
              apiVersion: 'apps/v1',
              kind: 'Deployment',
              metadata: { name: 'extra', namespace: 'checkout' },
              spec: {
                replicas: 1,
                selector: { matchLabels: { app: 'extra' } },
                template: {
                  metadata: { labels: { app: 'extra' } },
                  spec: { containers: [{ name: 'app', image: 'nginx:latest' }] },
                },
              },
            }),
        ),
      /Deployment\/extra/,
    );
  });
  test('a chart whose toJson() rewrites the objects is checked on what it returns', () => {
    class Sneaky extends Chart {
      public override toJson(): unknown[] {
        return super.toJson().map((o) => {
          const x = o as { kind: string; spec: { replicas?: number } };
          return x.kind === 'Rollout' ? { ...x, spec: { ...x.spec, replicas: 1 } } : x;
        });
      }
    }
    const out = path.join(root, 'dist');
    expect(() =>
      synthesize(
        (outdir) => {
          const app = new App({ outdir });
          new HttpService(
            new Sneaky(app, 'checkout-api', { namespace: 'checkout' }),
            'checkout-api',
            checkoutApiProps(),
          );
          return app;
        },
        { outdir: out, progress: () => undefined },
      ),
    ).toThrow(/INV03-replicas/);
    expect(fs.existsSync(out)).toBe(false);
  });
});

describe('issue 22 (b): env references and affinity the API server refuses, named as the input', () => {
  const withEnv = (env: Record<string, EnvValue>) => ({ container: { runAs: { user: 10001 }, env } });
  test('env var name "." (IsEnvVarName: hasChDirPrefix)', () => {
    refused(() => synth(withEnv({ '.': EnvValue.fromValue('x') })), /container\.env.*must not be "\."/);
  });
  test('a ConfigMap key ".." (IsConfigMapKey)', () => {
    refused(
      () => synth(withEnv({ FOO: EnvValue.fromConfigMap('cm', '..') })),
      /container\.env\.FOO = \.\.: is not a ConfigMap key.*IsConfigMapKey/,
    );
  });
  test.each(['spec.foo', 'metadata.labels'])('a downward-API field %s', (field) => {
    refused(
      () => synth(withEnv({ FOO: EnvValue.fromField(field as never) })),
      /container\.env.*downward-API field path/,
    );
  });
  const affinity = (a: unknown) =>
    ({ pod: { serviceAccount: { name: 'checkout-api' }, affinity: a } }) as unknown as Partial<HttpServiceProps>;
  test('an empty nodeSelectorTerms, a matchFields key, weights 0 and 101', () => {
    refused(
      () =>
        synth(
          affinity({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [] } } }),
        ),
      /pod\.affinity.*at least one node selector term/,
    );
    refused(
      () =>
        synth(
          affinity({
            nodeAffinity: {
              requiredDuringSchedulingIgnoredDuringExecution: {
                nodeSelectorTerms: [{ matchFields: [{ key: 'spec.nodeName', operator: 'In', values: ['n1'] }] }],
              },
            },
          }),
        ),
      /pod\.affinity.*metadata\.name/,
    );
    refused(
      () =>
        synth(
          affinity({
            nodeAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                { weight: 0, preference: { matchExpressions: [{ key: 'k', operator: 'Exists' }] } },
              ],
            },
          }),
        ),
      /pod\.affinity.*1-100/,
    );
    refused(
      () =>
        synth(
          affinity({
            podAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [
                {
                  weight: 101,
                  podAffinityTerm: {
                    topologyKey: 'kubernetes.io/hostname',
                    labelSelector: { matchLabels: { a: 'b' } },
                  },
                },
              ],
            },
          }),
        ),
      /pod\.affinity.*1-100/,
    );
  });
  test('near miss: a valid field reference and weight 100 pass', () => {
    synth({
      ...withEnv({ NODE: EnvValue.fromField('spec.nodeName') }),
      ...affinity({
        podAntiAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            {
              weight: 100,
              podAffinityTerm: {
                topologyKey: 'kubernetes.io/hostname',
                labelSelector: { matchLabels: { 'app.kubernetes.io/name': 'checkout-api' } },
              },
            },
          ],
        },
      }),
    });
  });
});

describe('issue 22 (b): patched and hand-added objects are checked as the API server checks them', () => {
  const app0 = '/spec/template/spec/containers/0';
  test('a liveness successThreshold of 3 (by patch)', () => {
    refused(
      () => synth({}, (svc) => svc.workload.addJsonPatch(JsonPatch.add(`${app0}/livenessProbe/successThreshold`, 3))),
      /livenessProbe\/successThreshold: 3 must be 1/,
    );
  });
  test("an accepted CPU limit below the request still fails the API server's request <= limit", () => {
    refused(
      () =>
        synth({}, (svc) => {
          svc.workload.addJsonPatch(JsonPatch.add(`${app0}/resources/limits/cpu`, '100m'));
          svc.acceptPatch(
            svc.workload,
            'spec.template.spec.containers[0].resources.limits.cpu',
            'the checkout API shares nodes with a batch tier, capped in OPS-1234',
          );
        }),
      /requests\/cpu: the request "250m" must be less than or equal to the cpu limit "100m"/,
    );
  });
  test('near miss: an accepted CPU limit at the request passes', () => {
    synth({}, (svc) => {
      svc.workload.addJsonPatch(JsonPatch.add(`${app0}/resources/limits/cpu`, '250m'));
      svc.acceptPatch(
        svc.workload,
        'spec.template.spec.containers[0].resources.limits.cpu',
        'the checkout API shares nodes with a batch tier, capped in OPS-1234',
      );
    });
  });
  test('a Service type Bogus (by patch)', () => {
    refused(
      () => synth({}, (svc) => svc.service.addJsonPatch(JsonPatch.add('/spec/type', 'Bogus'))),
      /\/spec\/type: "Bogus" is not supported/,
    );
  });
  const extra = (props: Record<string, unknown>) => (svc: HttpService) =>
    new ApiObject(Chart.of(svc), 'extra', props as never);
  test.each([
    [
      'a ConfigMap key "bad key"',
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config' }, data: { 'bad key': 'x' } },
      /ConfigMap\/checkout\/web-config \/data\/bad key/,
    ],
    [
      'a ConfigMap over 1 MiB',
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big' }, data: { big: 'x'.repeat(1100 * 1024) } },
      /more than the 1 MiB/,
    ],
    [
      'a Secret whose data is not base64',
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'web-secret' }, data: { token: 'not base64!!' } },
      /is not base64/,
    ],
    [
      'a Deployment whose selector does not select its template',
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'other' },
        spec: {
          replicas: 2,
          selector: { matchLabels: { a: 'b' } },
          template: { metadata: { labels: { a: 'c' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25.3' }] } },
        },
      },
      /does not match template/,
    ],
    [
      'a CronJob schedule "every night"',
      {
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        metadata: { name: 'nightly' },
        spec: {
          schedule: 'every night',
          jobTemplate: {
            spec: {
              template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1.36' }] } },
            },
          },
        },
      },
      /\/spec\/schedule: "every night" is not a cron schedule/,
    ],
  ])('%s, added by hand to the chart', (_, props, message) => {
    refused(() => synth({}, extra(props)), message);
  });
  test('near miss: a valid ConfigMap, Secret and CronJob added by hand pass', () => {
    synth({}, (svc) => {
      new ApiObject(Chart.of(svc), 'cm', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'web-config' },
        data: { 'app.yaml': 'x: 1' },
      });
      new ApiObject(Chart.of(svc), 'sec', {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'web-secret' },
        data: { token: 'YWJj' },
      });
      new ApiObject(Chart.of(svc), 'cj', {
        apiVersion: 'batch/v1',
        kind: 'CronJob',
        metadata: { name: 'nightly' },
        spec: {
          schedule: '0 3 * * *',
          jobTemplate: {
            spec: {
              template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox:1.36' }] } },
            },
          },
        },
      });
    });
  });
  function platformSynth(build: (app: App) => void): void {
    synthesize(
      (outdir) => {
        const app = new App({ outdir });
        build(app);
        return app;
      },
      { outdir: path.join(root, 'dist'), progress: () => undefined },
    );
  }
  test('the plugin ConfigMap with a key "bad key" (by patch)', () => {
    refused(
      () =>
        platformSynth((app) =>
          new ClusterPrerequisites(new Chart(app, 'pre'), 'pre', {
            pluginSha256: 'a'.repeat(64),
          }).pluginConfig.addJsonPatch(JsonPatch.add('/data/bad key', 'x')),
        ),
      /\/data\/bad key/,
    );
  });
  test('a ServiceNamespace whose Pod Security level is patched to "bogus"', () => {
    refused(
      () =>
        platformSynth((app) =>
          new ServiceNamespace(new Chart(app, 'ns'), 'ns', { name: 'shop' }).namespace.addJsonPatch(
            JsonPatch.replace('/metadata/labels/pod-security.kubernetes.io~1enforce', 'bogus'),
          ),
        ),
      /"bogus" is not a Pod Security level/,
    );
  });
});

describe('issue 22 (b): a patch value that is not JSON, an object without a kind', () => {
  test('JsonPatch.add("/spec/foo", () => 1) is written as foo: null, an unknown field', () => {
    refused(
      () => synth({}, (svc) => svc.workload.addJsonPatch(JsonPatch.add('/spec/foo', () => 1))),
      /\/spec\/foo: is not a field of this kind/,
    );
  });
  test('an ApiObject with kind ""', () => {
    refused(
      () =>
        synth(
          {},
          (svc) => new ApiObject(Chart.of(svc), 'nokind', { apiVersion: 'v1', kind: '', metadata: { name: 'x' } }),
        ),
      /has no apiVersion and kind/,
    );
  });
});

describe('issue 22 (b): the plugin ConfigMap as the Argo Rollouts controller reads it at start', () => {
  const cm = (text: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', data: { trafficRouterPlugins: text } });
  test.each([
    [': : not yaml [', /is not YAML/],
    ['name: argoproj-labs/gatewayAPI', /is a map, not a list/],
    ['- name: gatewayAPI\n  location: https://example.com/p', /is not <namespace>\/<name>/],
    ['- name: argoproj-labs/gatewayAPI\n  location: ftp://example.com/p', /location/],
    ['- name: argoproj-labs/other\n  location: https://example.com/p', /no argoproj-labs\/gatewayAPI entry/],
    [
      '- name: argoproj-labs/gatewayAPI\n  location: https://example.com/p\n  args: --x',
      /args: is not a list of strings/,
    ],
  ])('%j is refused', (text, message) => {
    expect(pluginConfigProblems(cm(text)).join('\n')).toMatch(message);
  });
  test('near miss: the entry with a sha256, and a second plugin', () => {
    expect(
      pluginConfigProblems(
        cm(
          `- name: "argoproj-labs/gatewayAPI"\n  location: "https://github.com/x/y/releases/download/v0.15.0/p"\n  sha256: "${'a'.repeat(64)}"\n- name: argoproj-labs/sample.plugin_x\n  location: file://./p\n  args: [--debug]`,
        ),
      ),
    ).toEqual([]);
  });
  test('non-YAML written by an accepted patch is still refused at synth', () => {
    const out = path.join(root, 'dist');
    expect(() =>
      synthesize(
        (outdir) => {
          const app = new App({ outdir });
          const pre = new ClusterPrerequisites(new Chart(app, 'pre'), 'pre', { pluginSha256: 'a'.repeat(64) });
          pre.pluginConfig.addJsonPatch(JsonPatch.replace('/data/trafficRouterPlugins', ': : not yaml ['));
          acceptPatch(
            pre.pluginConfig,
            'data.trafficRouterPlugins',
            'we register the plugin from our own mirror, reviewed in OPS-1234',
          );
          return app;
        },
        { outdir: out, progress: () => undefined },
      ),
    ).toThrow(/data\.trafficRouterPlugins: is not YAML/);
    expect(fs.existsSync(out)).toBe(false);
  });
});

describe("issue 22 (b): references between a service's objects resolve in what is written", () => {
  test('a Rollout templateName patched to "nope": the controller would mark it InvalidSpec', () => {
    refused(
      () =>
        synth({}, (svc) =>
          svc.workload.addJsonPatch(
            JsonPatch.replace('/spec/strategy/canary/analysis/templates/0/templateName', 'nope'),
          ),
        ),
      /Rollout checkout\/checkout-api spec\.strategy\.canary\.analysis\.templates\[0\]\.templateName: .*"nope".*InvalidSpec/,
    );
  });
  test('the canary Service renamed by a patch: the Rollout and the HTTPRoute name a Service that is not written', () => {
    refused(
      () => synth({}, (svc) => svc.canary!.canaryService.addJsonPatch(JsonPatch.replace('/metadata/name', 'renamed'))),
      /HTTPRoute checkout\/checkout-api spec\.rules\[0\]\.backendRefs\[1\]: names Service checkout\/checkout-api-canary, which the service does not write/,
    );
  });
});

describe('issue 22 (b): every kind that runs pods under a service gets the checks of its workload', () => {
  const restricted = {
    runAsNonRoot: true,
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    seccompProfile: { type: 'RuntimeDefault' },
  };
  test('a bare Pod (container "app", pinned image) under the service: no probes, not restricted, one replica', () => {
    refused(
      () =>
        synth(
          {},
          (svc) =>
            new ApiObject(svc, 'pod', {
              apiVersion: 'v1',
              kind: 'Pod',
              metadata: { name: 'checkout-api-debug', labels: { 'app.kubernetes.io/name': 'checkout-api' } },
              spec: { containers: [{ name: 'app', image: 'ghcr.io/acme/checkout-api:1.4.2' }] },
            }),
        ),
      /INV03-replicas Pod\/checkout-api-debug kind: a bare Pod[\s\S]*INV04-readiness-probe Pod\/checkout-api-debug spec\.containers\[0\]\.readinessProbe[\s\S]*INV12-restricted-security Pod\/checkout-api-debug spec\.containers\[0\]\.securityContext\.runAsNonRoot/,
    );
  });
  test('a CronJob with busybox:latest in a container named "app" is not vouched for by its name', () => {
    refused(
      () =>
        synth(
          {},
          (svc) =>
            new ApiObject(svc, 'cj', {
              apiVersion: 'batch/v1',
              kind: 'CronJob',
              metadata: { name: 'checkout-api-cron' },
              spec: {
                schedule: '* * * * *',
                jobTemplate: {
                  spec: {
                    template: {
                      spec: { restartPolicy: 'Never', containers: [{ name: 'app', image: 'busybox:latest' }] },
                    },
                  },
                },
              },
            }),
        ),
      /INV02-image-pinned CronJob\/checkout-api-cron spec\.jobTemplate\.spec\.template\.spec\.containers\[0\]\.image: image "busybox:latest" is not pinned[\s\S]*INV12-restricted-security CronJob\/checkout-api-cron/,
    );
  });
  test('a container the service did not declare, in a CronJob under it, is named', () => {
    refused(
      () =>
        synth(
          {},
          (svc) =>
            new ApiObject(svc, 'cj', {
              apiVersion: 'batch/v1',
              kind: 'CronJob',
              metadata: { name: 'checkout-api-cron' },
              spec: {
                schedule: '0 3 * * *',
                jobTemplate: {
                  spec: {
                    template: {
                      spec: { restartPolicy: 'Never', containers: [{ name: 'cleanup', image: 'busybox:1.36' }] },
                    },
                  },
                },
              },
            }),
        ),
      /checkout-api-cron spec\.jobTemplate\.spec\.template\.spec\.containers\[0\]: container "cleanup" was added by a patch/,
    );
  });
  test('near miss: a restricted, pinned CronJob with requests and no token under the service passes', () => {
    synth(
      {},
      (svc) =>
        new ApiObject(svc, 'cj', {
          apiVersion: 'batch/v1',
          kind: 'CronJob',
          metadata: { name: 'checkout-api-cron' },
          spec: {
            schedule: '0 3 * * *',
            jobTemplate: {
              spec: {
                template: {
                  spec: {
                    restartPolicy: 'Never',
                    automountServiceAccountToken: false,
                    securityContext: {
                      runAsNonRoot: true,
                      runAsUser: 10001,
                      seccompProfile: { type: 'RuntimeDefault' },
                    },
                    volumes: [{ name: 'tmp', emptyDir: {} }],
                    containers: [
                      {
                        name: 'app',
                        image: 'ghcr.io/acme/checkout-api:1.4.2',
                        command: ['/app/cleanup'],
                        securityContext: restricted,
                        resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '128Mi' } },
                        volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
                      },
                    ],
                  },
                },
              },
            },
          },
        }),
    );
  });
});

describe("a patch the object's typed serializer would drop (adversarial catalogue: patch/pdb/both)", () => {
  test('a Service targetPort replaced by a plain number is refused, not silently written without it', () => {
    refused(
      () => synth({}, (svc) => svc.service.addJsonPatch(JsonPatch.replace('/spec/ports/0/targetPort', 8080))),
      /JsonPatch.replace\('\/spec\/ports\/0\/targetPort', 8080\) is not in what Service\/checkout-api writes \(the field is absent\).*KubeService/,
    );
  });
  test('a PDB minAvailable added as a plain number is refused', () => {
    refused(
      () => synth({}, (svc) => svc.podDisruptionBudget.addJsonPatch(JsonPatch.add('/spec/minAvailable', 1))),
      /JsonPatch.add\('\/spec\/minAvailable', 1\) is not in what PodDisruptionBudget\/checkout-api writes/,
    );
  });
  test('near miss: a typed field patched with its type is written, and passes', () => {
    expect(() =>
      synth({}, (svc) =>
        svc.podDisruptionBudget.addJsonPatch(JsonPatch.add('/spec/unhealthyPodEvictionPolicy', 'AlwaysAllow')),
      ),
    ).not.toThrow();
  });
});
