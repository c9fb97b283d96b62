import { ApiObject, App, Chart, Duration, JsonPatch, Testing } from 'cdk8s';
import { HttpService } from '../../src/constructs/http-service';
import { Delivery } from '../../src/decisions/canary';
import { EnvFrom, EnvValue, Volume } from '../../src/decisions/containers';
import { AppServer } from '../../src/decisions/keep-alive';
import { KubernetesVersion } from '../../src/decisions/kubernetes-version';
import { Platform, ShutdownDelay } from '../../src/decisions/platform';
import { checkoutApiProps, examplePlatform } from '../../src/example';
import { RollwiseInputError } from '../../src/errors';
import { lintObjects } from '../../src/rules/synth-check';
import { find, Manifest, synthService, workload } from '../support/manifests';

const sidecar = { name: 'proxy', image: 'ghcr.io/acme/proxy:1.0.0', resources: { cpu: '100m', memory: '64Mi' } };
const podOf = (objs: Manifest[]) => workload(objs).spec.template.spec;
const reasonsOf = (objs: Manifest[]) => workload(objs).metadata.annotations?.['rollwise.dev/reasons'] ?? '';
const v133 = () =>
  new Platform({
    gateway: { name: 'public', namespace: 'envoy-gateway-system' },
    prometheusAddress: 'http://prometheus-operated.monitoring.svc:9090',
    kubernetesVersion: KubernetesVersion.V1_33,
  });

describe('container inputs render', () => {
  test('command, args, env (value, Secret, ConfigMap, downward API) and envFrom', () => {
    const c = podOf(
      synthService({
        container: {
          command: ['gunicorn'],
          args: ['app:app'],
          env: {
            A: EnvValue.fromValue('1'),
            B: EnvValue.fromSecret('s', 'k', { optional: true }),
            C: EnvValue.fromConfigMap('cm', 'k'),
            D: EnvValue.fromField('status.podIP'),
          },
          envFrom: [EnvFrom.secret('all-secrets'), EnvFrom.configMap('all-config', 'CFG_')],
        },
      }),
    ).containers[0];
    expect(c.command).toEqual(['gunicorn']);
    expect(c.args).toEqual(['app:app']);
    expect(c.env).toEqual([
      { name: 'A', value: '1' },
      { name: 'B', valueFrom: { secretKeyRef: { name: 's', key: 'k', optional: true } } },
      { name: 'C', valueFrom: { configMapKeyRef: { name: 'cm', key: 'k' } } },
      { name: 'D', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
    ]);
    expect(c.envFrom).toEqual([
      { secretRef: { name: 'all-secrets' } },
      { prefix: 'CFG_', configMapRef: { name: 'all-config' } },
    ]);
  });

  test('the numeric user: derived 65532 with its reason, or the input', () => {
    const derived = synthService({ container: {} });
    expect(podOf(derived).securityContext).toMatchObject({ runAsUser: 65532, runAsGroup: 65532 });
    expect(reasonsOf(derived)).toMatch(/runAsUser: Not given \(container.runAs\), so 65532.*non-numeric user/);
    const given = synthService({ container: { runAs: { user: 1000, group: 2000 } } });
    expect(podOf(given).securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, runAsGroup: 2000 });
  });

  test('files from Secrets and ConfigMaps, emptyDir and PVC volumes', () => {
    const objs = synthService({
      pod: { volumes: [Volume.emptyDir('scratch')] },
      container: { mounts: [{ volume: 'scratch', path: '/scratch' }] },
    });
    expect(podOf(objs).volumes[1]).toEqual({ name: 'scratch', emptyDir: { sizeLimit: '64Mi' } });
    expect(reasonsOf(objs)).toContain('volumes[1].emptyDir.sizeLimit: Capped at 64Mi (the Volume.emptyDir default');
    const pod = podOf(
      synthService({
        pod: {
          volumes: [
            Volume.fromSecret('tls', 'checkout-tls'),
            Volume.fromConfigMap('conf', 'checkout-conf'),
            Volume.emptyDir('cache', { sizeLimit: '256Mi' }),
            Volume.fromPersistentVolumeClaim('data', 'checkout-data'),
          ],
        },
        container: {
          mounts: [
            { volume: 'tls', path: '/etc/tls' },
            { volume: 'conf', path: '/etc/conf' },
            { volume: 'cache', path: '/var/cache/app' },
            { volume: 'data', path: '/data', readOnly: true },
          ],
        },
      }),
    );
    expect(pod.volumes.slice(1)).toEqual([
      { name: 'tls', secret: { secretName: 'checkout-tls' } },
      { name: 'conf', configMap: { name: 'checkout-conf' } },
      { name: 'cache', emptyDir: { sizeLimit: '256Mi' } },
      { name: 'data', persistentVolumeClaim: { claimName: 'checkout-data' } },
    ]);
    expect(pod.containers[0].volumeMounts.slice(1)).toEqual([
      { name: 'tls', mountPath: '/etc/tls', readOnly: true },
      { name: 'conf', mountPath: '/etc/conf', readOnly: true },
      { name: 'cache', mountPath: '/var/cache/app' },
      { name: 'data', mountPath: '/data', readOnly: true },
    ]);
  });

  test('an extra named port is on the container, not on the Service', () => {
    const objs = synthService({ container: { ports: [{ name: 'metrics', port: 9090 }] } });
    expect(podOf(objs).containers[0].ports[1]).toEqual({ name: 'metrics', containerPort: 9090, protocol: 'TCP' });
    expect(find(objs, 'Service', 'checkout-api').spec.ports).toHaveLength(1);
  });

  test('per-service shutdown delay: httpGet for a distroless image, the reason says whose setting it is', () => {
    const objs = synthService({
      image: 'gcr.io/acme/checkout-distroless:1.4.2',
      container: { shutdownDelay: ShutdownDelay.httpGet('/drain') },
    });
    expect(podOf(objs).containers[0].lifecycle.preStop).toEqual({ httpGet: { path: '/drain', port: 'http' } });
    expect(reasonsOf(objs)).toContain('lifecycle.preStop: Endpoint removal takes up to 10 s');
  });

  test('Go net/http on the 1.28 default (an exec of sleep) with an image whose name does not say distroless: refused, naming the ways (issue 24 review)', () => {
    const go = {
      image: 'ghcr.io/acme/edge:3.1.0',
      appServer: AppServer.goNetHttp({ idleTimeout: Duration.seconds(90) }),
    };
    expect(() => synthService(go)).toThrow(
      /container\.shutdownDelay = unset, so ShutdownDelay\.execSleep\(\) \(platform default for Kubernetes 1\.28\): appServer is Go net\/http, whose binaries usually run on distroless or scratch images, which have no sleep binary.*FailedPreStopHook.*Fix: say how this image waits: container\.shutdownDelay: ShutdownDelay\.execSleep\(\) if the image has a sleep binary.*ShutdownDelay\.httpGet.*ShutdownDelay\.inApplication\(\).*KubernetesVersion\.V1_33/,
    );
    // declared by the service, or the kubelet's sleep action on 1.33: accepted
    expect(
      podOf(synthService({ ...go, container: { shutdownDelay: ShutdownDelay.execSleep() } })).containers[0].lifecycle
        .preStop,
    ).toEqual({ exec: { command: ['sleep', '10'] } });
    expect(
      podOf(synthService({ ...go, container: { shutdownDelay: ShutdownDelay.inApplication() } })).containers[0]
        .lifecycle,
    ).toBeUndefined();
    expect(podOf(synthService({ ...go, platform: v133() })).containers[0].lifecycle.preStop).toEqual({
      sleep: { seconds: 10 },
    });
    // a distroless-named image is refused with the same ways
    expect(() => synthService({ ...go, image: 'gcr.io/acme/edge-distroless:3.1.0' })).toThrow(
      /platform\.shutdownDelay = ShutdownDelay\.execSleep\(\) .*looks distroless.*Fix: set container\.shutdownDelay to ShutdownDelay\.httpGet.*KubernetesVersion\.V1_33/,
    );
  });

  test('Kubernetes 1.33: the platform default becomes the sleep action, and the reason names the version', () => {
    const objs = synthService({ platform: v133(), image: 'gcr.io/acme/checkout-distroless:1.4.2' });
    expect(podOf(objs).containers[0].lifecycle.preStop).toEqual({ sleep: { seconds: 10 } });
    expect(reasonsOf(objs)).toMatch(/preStop sleep action .*platform.kubernetesVersion is 1\.33/);
  });
});

describe('pod inputs render', () => {
  test('service account without its token, the reason saying why; a token only by override', () => {
    const objs = synthService({ pod: { serviceAccount: { name: 'checkout-api' } } });
    expect(podOf(objs)).toMatchObject({ serviceAccountName: 'checkout-api', automountServiceAccountToken: false });
    expect(reasonsOf(objs)).toMatch(
      /automountServiceAccountToken: No service-account token mounted.*ServiceAccount checkout-api/,
    );
    const withToken = synthService({
      pod: {
        serviceAccount: {
          name: 'checkout-api',
          mountToken: { value: true, because: 'reads ConfigMaps through the API for feature flags' },
        },
      },
    });
    expect(podOf(withToken).automountServiceAccountToken).toBe(true);
    expect(workload(withToken).metadata.annotations?.['rollwise.dev/overrides']).toContain(
      'automountServiceAccountToken: Overridden: reads ConfigMaps',
    );
  });

  test('pull secrets, placement, priority, pod and workload metadata', () => {
    const objs = synthService({
      pod: {
        imagePullSecrets: ['ghcr-pull'],
        nodeSelector: { pool: 'web' },
        tolerations: [{ key: 'pool', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: 'arch', operator: 'In', values: ['arm64'] }] }],
            },
          },
        },
        priorityClassName: 'high',
        labels: { tier: 'api' },
        annotations: { 'acme.com/owner': 'checkout' },
      },
      metadata: { labels: { 'acme.com/system': 'checkout' }, annotations: { 'acme.com/oncall': 'payments' } },
    });
    const w = workload(objs);
    const pod = w.spec.template;
    expect(pod.spec).toMatchObject({
      imagePullSecrets: [{ name: 'ghcr-pull' }],
      nodeSelector: { pool: 'web' },
      priorityClassName: 'high',
    });
    expect(pod.spec.tolerations).toEqual([{ key: 'pool', operator: 'Equal', value: 'web', effect: 'NoSchedule' }]);
    expect(
      pod.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]
        .matchExpressions[0].values,
    ).toEqual(['arm64']);
    expect(pod.metadata.labels).toMatchObject({ tier: 'api', 'app.kubernetes.io/name': 'checkout-api' });
    expect(pod.metadata.annotations).toEqual({ 'acme.com/owner': 'checkout' });
    expect(w.metadata.labels).toMatchObject({
      'acme.com/system': 'checkout',
      'app.kubernetes.io/name': 'checkout-api',
    });
    expect(w.metadata.annotations?.['acme.com/oncall']).toBe('payments');
    // the selectors are untouched by the extra labels
    expect(find(objs, 'Service', 'checkout-api').spec.selector).toEqual({ 'app.kubernetes.io/name': 'checkout-api' });
  });
});

describe('sidecars and init containers', () => {
  test('Kubernetes 1.28: a sidecar is an ordinary container, checked like the app, and the reason says what 1.28 means', () => {
    const objs = synthService({ sidecars: [{ ...sidecar, port: { name: 'proxy', port: 15000 } }] });
    const pod = podOf(objs);
    expect(pod.initContainers).toBeUndefined();
    const s = pod.containers[1];
    expect(s.resources).toEqual({ requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '64Mi' } });
    expect(s.securityContext).toEqual(pod.containers[0].securityContext);
    expect(s.readinessProbe).toEqual({
      tcpSocket: { port: 'proxy' },
      periodSeconds: 10,
      timeoutSeconds: 3,
      failureThreshold: 3,
      successThreshold: 3,
    });
    expect(s.lifecycle).toBeUndefined();
    expect(s.volumeMounts).toEqual([{ name: 'tmp', mountPath: '/tmp' }]);
    expect(reasonsOf(objs)).toMatch(
      /containers\[1\]\.name: Kubernetes 1\.28 .*native sidecars are alpha and off by default before 1\.29/,
    );
  });

  test('Kubernetes 1.33: a native sidecar (init container, restartPolicy Always) before the init containers', () => {
    const objs = synthService({
      platform: v133(),
      sidecars: [sidecar],
      initContainers: [{ ...sidecar, name: 'migrate', command: ['/migrate'] }],
    });
    const pod = podOf(objs);
    expect(pod.containers).toHaveLength(1);
    expect(
      pod.initContainers.map((c: { name: string; restartPolicy?: string }) => `${c.name}:${c.restartPolicy ?? '-'}`),
    ).toEqual(['proxy:Always', 'migrate:-']);
    expect(reasonsOf(objs)).toMatch(/initContainers\[0\]\.restartPolicy: Kubernetes 1\.33 .*native sidecars/);
  });

  test('Done-when: a sidecar CPU limit needs a reason; with one it renders and is listed as an override', () => {
    expect(() =>
      synthService({ sidecars: [{ ...sidecar, overrides: { cpuLimit: { value: '200m', because: '' } } }] }),
    ).toThrow(/sidecars\[0\]\.overrides\.cpuLimit = 200m: an override must carry its reason/);
    const objs = synthService({
      sidecars: [
        {
          ...sidecar,
          overrides: { cpuLimit: { value: '200m', because: 'the vendor supports the proxy only with a limit' } },
        },
      ],
    });
    expect(podOf(objs).containers[1].resources.limits.cpu).toBe('200m');
    expect(workload(objs).metadata.annotations?.['rollwise.dev/overrides']).toContain(
      'containers[1].resources.limits.cpu: Overridden: the vendor supports',
    );
  });

  test('a CPU limit patched into a serving sidecar fails synth, and the rules see ordinary and native sidecars', () => {
    for (const [platform, path] of [
      [examplePlatform(), '/spec/template/spec/containers/1'],
      [v133(), '/spec/template/spec/initContainers/0'],
    ] as const) {
      const app = Testing.app();
      const chart = new Chart(app, 'test', { namespace: 'checkout' });
      const svc = new HttpService(chart, 'checkout-api', {
        ...checkoutApiProps(),
        platform,
        sidecars: [{ ...sidecar, port: { name: 'proxy', port: 15000, readinessPath: '/ready' } }],
      });
      svc.workload.addJsonPatch(JsonPatch.add(`${path}/resources/limits/cpu`, '100m'));
      const field = `${path
        .slice(1)
        .replace(/\/(\d+)/g, '[$1]')
        .replace(/\//g, '.')}.resources.limits.cpu`;
      // Synth refuses the patch (issue 13's invariants); the lint rules alone find it too.
      expect(() => Testing.synth(chart)).toThrow(
        new RegExp(`INV06-no-cpu-limit Rollout/checkout-api ${field.replace(/[.[\]]/g, '\\$&')}`),
      );
      const objects = svc.node
        .findAll()
        .filter((c): c is ApiObject => c instanceof ApiObject)
        .map((o) => o.toJson());
      expect(lintObjects(objects).map((f) => `${f.ruleId} ${f.path}`)).toContain(
        `RW201-cpu-limit-with-http-probes ${field}`,
      );
    }
  });
});

test('a container patched into the pod template fails synth, naming it and the fix', () => {
  const app = Testing.app();
  const chart = new Chart(app, 'test', { namespace: 'checkout' });
  const declared = new HttpService(new Chart(app, 'declared', { namespace: 'checkout' }), 'checkout-api', {
    ...checkoutApiProps(),
    sidecars: [sidecar],
    initContainers: [{ ...sidecar, name: 'migrate' }],
  });
  expect(declared.node.validate()).toEqual([]);
  const svc = new HttpService(chart, 'checkout-api', { ...checkoutApiProps(), sidecars: [sidecar] });
  svc.workload.addJsonPatch(
    JsonPatch.add('/spec/template/spec/containers/-', { name: 'log-shipper', image: 'fluent/fluent-bit:3.1.4' }),
  );
  expect(svc.node.validate().join('\n')).toMatch(
    /spec\.template\.spec\.containers\[2\]: container "log-shipper" was added by a patch.*Fix: declare it in sidecars/,
  );
});

describe('routes without a canary', () => {
  test('rolling update with a route: HTTPRoute (one backend), BackendTrafficPolicy, route alerts; no canary objects', () => {
    const objs = synthService({ delivery: Delivery.rollingUpdate() });
    expect(objs.map((o) => `${o.kind}/${o.metadata.name}`).sort()).toEqual([
      'BackendTrafficPolicy/checkout-api',
      'Deployment/checkout-api',
      'HTTPRoute/checkout-api',
      'PodDisruptionBudget/checkout-api',
      'PrometheusRule/checkout-api',
      'Service/checkout-api',
    ]);
    expect(find(objs, 'HTTPRoute').spec.rules[0].backendRefs).toEqual([
      { group: '', kind: 'Service', name: 'checkout-api', port: 80, weight: 100 },
    ]);
    expect(JSON.stringify(find(objs, 'PrometheusRule').spec)).toContain('Route5xxOverSlo');
  });

  test('rolling update without a route: no Envoy alerts and the runbook names no HTTPRoute', () => {
    const app = Testing.app();
    const chart = new Chart(app, 'test', { namespace: 'checkout' });
    const svc = new HttpService(chart, 'checkout-api', {
      ...checkoutApiProps(),
      delivery: Delivery.rollingUpdate(),
      route: undefined,
    });
    const rule = JSON.stringify((Testing.synth(chart) as Manifest[]).find((o) => o.kind === 'PrometheusRule')?.spec);
    expect(rule).not.toMatch(/envoy_|Route5xx/);
    expect(rule).toContain('ReadyEndpointsBelowFloor');
    expect(svc.alerts?.runbook).toContain('no HTTPRoute (so no gateway alerts)');
    expect(svc.alerts?.runbook).not.toMatch(/envoy_cluster|-canary/);
  });
});

describe('names and errors', () => {
  test('the longest name that fits: 56 characters with canary delivery, 63 without', () => {
    const name = (n: number) => `c${'x'.repeat(n - 1)}`;
    expect(() => synthService({}, name(56))).not.toThrow();
    expect(() => synthService({}, name(57))).toThrow(
      /name = cx+: is 57 characters, and rollwise derives the canary Service name "cx+-canary" \(64 characters\)/,
    );
    expect(() => synthService({ delivery: Delivery.rollingUpdate(), route: undefined }, name(63))).not.toThrow();
  });

  test('with several services, an error names its service and construct path', () => {
    const app = new App({ outdir: '/tmp/rollwise-unused' });
    new HttpService(new Chart(app, 'prod-orders', { namespace: 'shop' }), 'orders', {
      ...checkoutApiProps(),
      replicas: 12,
    });
    let error: unknown;
    try {
      new HttpService(new Chart(app, 'prod-payments', { namespace: 'shop' }), 'payments', {
        ...checkoutApiProps(),
        replicas: 1,
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RollwiseInputError);
    expect((error as RollwiseInputError).message).toMatch(
      /^service payments \(prod-payments\/payments\): replicas = 1: /,
    );
    expect((error as RollwiseInputError).input).toBe('replicas');
  });
});
