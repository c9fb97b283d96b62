import { Duration } from 'cdk8s';
import * as fc from 'fast-check';
import { replicasNeededAtPeak } from '../src/decisions/disruption';
import { Delivery } from '../src/decisions/canary';
import { appServerPresets } from '../src/decisions/keep-alive';
import { examplePlatform } from '../src/example';
import { EnvValue, Volume } from '../src/decisions/containers';
import { KubernetesVersion } from '../src/decisions/kubernetes-version';
import { Platform } from '../src/decisions/platform';
import { HttpServiceProps } from '../src/constructs/http-service';
import { SchemaValidator } from '../src/schemas/validator';
import { RollwiseInputError } from '../src/errors';
import { find, workload, synthService } from './support/manifests';

const validators = new Map(KubernetesVersion.supported().map((v) => [v, SchemaValidator.load(undefined, v)]));
const platforms = new Map(
  KubernetesVersion.supported().map((v) => [v, new Platform({ ...examplePlatformProps(), kubernetesVersion: v })]),
);

/** The example platform's settings, for a platform on another Kubernetes version. */
function examplePlatformProps() {
  const p = examplePlatform();
  return {
    gateway: p.gateway,
    prometheusAddress: p.prometheusAddress,
    runbookBaseUrl: p.runbookBaseUrl,
    prometheusRuleLabels: p.prometheusRuleLabels,
  };
}

const envName = fc.stringMatching(/^[A-Z][A-Z0-9_]{0,15}$/);
// A Secret key: IsConfigMapKey's pattern, and not ".", ".." or "..x" (hasChDirPrefix).
const envValue = fc.oneof(
  fc.string({ maxLength: 20 }).map((v) => EnvValue.fromValue(v)),
  fc
    .record({
      s: fc.stringMatching(/^[a-z][a-z0-9-]{0,10}[a-z0-9]$/),
      k: fc.stringMatching(/^[a-zA-Z0-9._-]{1,12}$/).filter((k) => k !== '.' && !k.startsWith('..')),
    })
    .map(({ s, k }) => EnvValue.fromSecret(s, k)),
  fc
    .constantFrom('metadata.name', 'status.podIP')
    .map((f) => EnvValue.fromField(f as 'metadata.name' | 'status.podIP')),
);

/** Valid inputs: every field within its documented range; capacity only where the fleet has headroom. */
const validProps: fc.Arbitrary<HttpServiceProps> = fc
  .record({
    replicas: fc.integer({ min: 2, max: 300 }),
    port: fc.integer({ min: 1024, max: 65535 }),
    p99Ms: fc.option(fc.integer({ min: 1, max: 4400 }), { nil: undefined }),
    startupS: fc.option(fc.integer({ min: 15, max: 3600 }), { nil: undefined }), // the floor: 3 startup attempts of 5 s (decisions/probes.ts MIN_STARTUP_BUDGET_SECONDS)
    cpuMillis: fc.integer({ min: 1, max: 16000 }),
    memoryMi: fc.integer({ min: 16, max: 65536 }),
    livenessPath: fc.option(fc.constantFrom('/livez', '/ping'), { nil: undefined }),
    capacity: fc.option(
      fc.record({ saturation: fc.integer({ min: 1, max: 5000 }), load: fc.double({ min: 0.01, max: 1, noNaN: true }) }),
      { nil: undefined },
    ),
    cpuLimitFactor: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
    canary: fc.boolean(),
    routeWithoutCanary: fc.boolean(),
    version: fc.constantFrom(...KubernetesVersion.supported()),
    env: fc.option(fc.dictionary(envName, envValue, { maxKeys: 4 }), { nil: undefined }),
    user: fc.option(fc.integer({ min: 1, max: 2147483647 }), { nil: undefined }),
    serviceAccount: fc.option(fc.constantFrom('svc', 'svc-identity'), { nil: undefined }),
    secretFiles: fc.boolean(),
    metricsPort: fc.boolean(),
    sidecar: fc.option(
      fc.record({
        cpuMillis: fc.integer({ min: 1, max: 2000 }),
        memoryMi: fc.integer({ min: 16, max: 1024 }),
        serves: fc.boolean(),
      }),
      { nil: undefined },
    ),
    init: fc.boolean(),
    server: fc.constantFrom(...appServerPresets().filter((p) => p.factory !== 'goNetHttp')),
  })
  .map((g) => {
    // peak load scaled so that at least one replica can be disrupted at the 80 % ceiling
    const maxPeak = (g.replicas - 1) * 0.8 * (g.capacity?.saturation ?? 1);
    return {
      image: 'ghcr.io/acme/svc:1.0.0',
      port: g.port,
      replicas: g.replicas,
      health: {
        readinessPath: '/ready',
        livenessPath: g.livenessPath,
        readinessP99UnderLoad: g.p99Ms === undefined ? undefined : Duration.millis(g.p99Ms),
        startupBudget: g.startupS === undefined ? undefined : Duration.seconds(g.startupS),
      },
      resources: { cpu: `${g.cpuMillis}m`, memory: `${g.memoryMi}Mi` },
      capacity: g.capacity && {
        peakRequestsPerSecond: Math.max(0.01, g.capacity.load * maxPeak),
        saturationRequestsPerSecondPerReplica: g.capacity.saturation,
      },
      appServer: g.server.server,
      delivery: g.canary ? Delivery.canary() : Delivery.rollingUpdate(),
      route: g.canary || g.routeWithoutCanary ? { hostnames: ['svc.example.com'] } : undefined,
      platform: platforms.get(g.version) as Platform,
      container: {
        env: g.env,
        runAs: g.user === undefined ? undefined : { user: g.user },
        mounts: g.secretFiles ? [{ volume: 'config', path: '/etc/svc' }] : undefined,
        // distinct from the main port and the sidecar's
        ports: g.metricsPort ? [{ name: 'metrics', port: g.port === 9090 ? 9091 : 9090 }] : undefined,
      },
      pod: {
        serviceAccount: g.serviceAccount === undefined ? undefined : { name: g.serviceAccount },
        volumes: g.secretFiles ? [Volume.fromSecret('config', 'svc-config')] : undefined,
      },
      sidecars: g.sidecar && [
        {
          name: 'agent',
          image: 'ghcr.io/acme/agent:3.1.0',
          resources: { cpu: `${g.sidecar.cpuMillis}m`, memory: `${g.sidecar.memoryMi}Mi` },
          port: g.sidecar.serves ? { name: 'agent', port: g.port === 9801 ? 9802 : 9801 } : undefined,
        },
      ],
      initContainers: g.init
        ? [
            {
              name: 'migrate',
              image: 'ghcr.io/acme/svc:1.0.0',
              command: ['/svc', 'migrate'],
              resources: { cpu: '100m', memory: '64Mi' },
            },
          ]
        : undefined,
      overrides:
        g.cpuLimitFactor === undefined
          ? undefined
          : {
              cpuLimit: {
                value: `${g.cpuMillis * g.cpuLimitFactor}m`,
                because: 'batch-priced node pool (property test)',
              },
            },
    };
  });

describe('every valid input yields safe, schema-valid output', () => {
  test('property', () => {
    let synthesized = 0;
    let refusedBySimulation = 0;
    fc.assert(
      fc.property(validProps, (props) => {
        let objs;
        try {
          objs = synthService(props, 'svc');
        } catch (e) {
          // The only refusals allowed for in-range inputs: the simulated drain at peak does not hold
          // (e.g. a p99 near the timeout with survivors near saturation), a canary whose traffic is too
          // low for the volume gate at any weight and window rollwise would choose, or a canary that
          // declares no traffic at all. Each must say so and how to fix it.
          expect(e).toBeInstanceOf(RollwiseInputError);
          // Input errors from HttpService name their service (issue 12): "service svc (test/svc): <input> = ...".
          const message = (e as RollwiseInputError).message.replace(/^service svc \(test\/svc\): /, '');
          if (message.startsWith('capacity = missing')) {
            // a canary without traffic figures: its volume gate cannot be sized (docs/mechanisms.md#quiet-environments)
            expect(props.delivery?.kind).toBe('canary');
            expect(props.capacity).toBeUndefined();
            expect(message).toMatch(/Fix: declare the traffic .*manualPromotion.*Delivery\.rollingUpdate\(\)/);
          } else if (message.startsWith('capacity.')) {
            expect(props.delivery?.kind).toBe('canary');
            expect(message).toMatch(
              /^capacity\.peakRequestsPerSecond = [\d.]+: the canary cannot collect the sample its error ratio needs .* = [\d,.]+ .*below [\d,]+\..*Fix: .*manualPromotion/,
            );
          } else {
            expect(message).toMatch(
              /^replicas = \d+: the fleet simulator says even a one-pod drain at peak does not hold: .*Fix: scale out first/,
            );
          }
          refusedBySimulation++;
          return;
        }
        synthesized++;
        const version = (props.platform as Platform).kubernetesVersion;
        for (const o of objs) expect(validators.get(version)?.validate(o)).toEqual([]);
        const dep = workload(objs);
        const pod = dep.spec.template.spec;
        const c = pod.containers[0];
        // a numeric, non-root user always (runAsNonRoot alone is refused for images with a named or root USER)
        expect(pod.securityContext.runAsNonRoot).toBe(true);
        expect(pod.securityContext.runAsUser).toBe(props.container?.runAs?.user ?? 65532);
        expect(pod.automountServiceAccountToken).toBe(false);
        expect(pod.serviceAccountName).toBe(props.pod?.serviceAccount?.name);
        expect((c.env ?? []).map((e: { name: string }) => e.name)).toEqual(Object.keys(props.container?.env ?? {}));
        // every extra container is checked like the app: no CPU limit, memory limit = request, restricted context
        const extra = [...pod.containers.slice(1), ...(pod.initContainers ?? [])];
        expect(extra.length).toBe((props.sidecars?.length ?? 0) + (props.initContainers?.length ?? 0));
        for (const x of extra) {
          expect(x.resources.limits.cpu).toBeUndefined();
          expect(x.resources.limits.memory).toBe(x.resources.requests.memory);
          expect(x.securityContext).toEqual(c.securityContext);
        }
        const sidecar =
          pod.initContainers?.find((x: { name: string }) => x.name === 'agent') ??
          pod.containers.find((x: { name: string }) => x.name === 'agent');
        if (props.sidecars) {
          expect(sidecar.restartPolicy).toBe(version.nativeSidecars ? 'Always' : undefined);
          expect(sidecar.readinessProbe !== undefined).toBe(props.sidecars[0].port !== undefined);
        }
        // the route, its policy and the route's alerts exist together or not at all
        const hasRoute = props.route !== undefined;
        expect(objs.some((o) => o.kind === 'HTTPRoute')).toBe(hasRoute);
        expect(objs.some((o) => o.kind === 'BackendTrafficPolicy')).toBe(hasRoute);
        expect(JSON.stringify(find(objs, 'PrometheusRule').spec).includes('envoy_cluster')).toBe(hasRoute);
        if (version.sleepAction) expect(c.lifecycle.preStop).toEqual({ sleep: { seconds: 10 } });
        const r = c.readinessProbe;
        const l = c.livenessProbe;
        // readiness returns no faster than it leaves; timeout below period
        expect(r.successThreshold * r.periodSeconds).toBeGreaterThanOrEqual(r.failureThreshold * r.periodSeconds);
        expect(r.timeoutSeconds).toBeLessThan(r.periodSeconds);
        expect(r.timeoutSeconds).toBeGreaterThanOrEqual(3);
        if (props.health.readinessP99UnderLoad)
          expect(r.timeoutSeconds).toBeGreaterThanOrEqual(
            (2 * props.health.readinessP99UnderLoad.toMilliseconds()) / 1000,
          );
        // liveness more lenient on every axis, and never a copy of readiness
        expect(l.periodSeconds).toBeGreaterThan(r.periodSeconds);
        expect(l.timeoutSeconds).toBeGreaterThanOrEqual(r.timeoutSeconds);
        expect(l.failureThreshold * l.periodSeconds).toBeGreaterThanOrEqual(2 * r.failureThreshold * r.periodSeconds);
        expect(l.httpGet?.path).not.toBe(r.httpGet.path);
        // no CPU limit unless overridden with a reason
        if (props.overrides?.cpuLimit) {
          expect(c.resources.limits.cpu).toBe(props.overrides.cpuLimit.value);
          expect(dep.metadata.annotations?.['rollwise.dev/overrides']).toContain('resources.limits.cpu');
        } else {
          expect(c.resources.limits.cpu).toBeUndefined();
        }
        expect(
          dep.kind === 'Rollout'
            ? dep.spec.strategy.canary.maxUnavailable
            : dep.spec.strategy.rollingUpdate.maxUnavailable,
        ).toBe(0);
        expect(dep.spec.minReadySeconds).toBeGreaterThanOrEqual(r.failureThreshold * r.periodSeconds);
        // the proxy always closes idle upstream connections before the app does
        if (hasRoute) {
          const btp = find(objs, 'BackendTrafficPolicy');
          const idle = btp.spec.timeout.http?.connectionIdleTimeout as string | undefined;
          const ka = props.appServer.keepAliveSeconds;
          if (idle !== undefined && ka !== undefined) expect(parseGoSeconds(idle)).toBeLessThan(ka);
          // Envoy's default connect timeout: the idle timer no longer cuts a connect (envoy#42753, fixed in Envoy 1.38.0)
          expect(parseGoSeconds(btp.spec.timeout.tcp.connectTimeout)).toBe(10);
          expect(btp.spec.targetRefs).toEqual([{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'svc' }]);
        }
        // the PDB keeps the survivors below the ceiling at peak
        const pdb = find(objs, 'PodDisruptionBudget').spec.maxUnavailable as number;
        expect(pdb).toBeGreaterThanOrEqual(1);
        if (props.capacity) {
          const cap = {
            peakRps: props.capacity.peakRequestsPerSecond,
            saturationRpsPerReplica: props.capacity.saturationRequestsPerSecondPerReplica,
          };
          expect(props.replicas - pdb).toBeGreaterThanOrEqual(replicasNeededAtPeak(cap, 0.8));
        }
      }),
      { numRuns: 150 },
    );
    expect(synthesized).toBeGreaterThan(refusedBySimulation * 3);
  });
});

/** "3s", "1m18s", "1h" -> seconds. */
function parseGoSeconds(d: string): number {
  if (!/^(\d+[hms])+$/.test(d)) throw new Error(`unexpected duration ${d}`);
  let total = 0;
  for (const m of d.matchAll(/(\d+)([hms])/g))
    total += Number(m[1]) * { s: 1, m: 60, h: 3600 }[m[2] as 's' | 'm' | 'h'];
  return total;
}
