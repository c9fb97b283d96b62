import { Duration } from 'cdk8s';
import * as fc from 'fast-check';
import { replicasNeededAtPeak } from '../src/decisions/disruption';
import { Delivery } from '../src/decisions/canary';
import { appServerPresets } from '../src/decisions/keep-alive';
import { examplePlatform } from '../src/example';
import { HttpServiceProps } from '../src/constructs/http-service';
import { SchemaValidator } from '../src/schemas/validator';
import { RollwiseInputError } from '../src/errors';
import { find, workload, synthService } from './support/manifests';

const validator = SchemaValidator.load();

/** Valid inputs: every field within its documented range; capacity only where the fleet has headroom. */
const validProps: fc.Arbitrary<HttpServiceProps> = fc.record({
  replicas: fc.integer({ min: 2, max: 300 }),
  port: fc.integer({ min: 1, max: 65535 }),
  p99Ms: fc.option(fc.integer({ min: 1, max: 4400 }), { nil: undefined }),
  startupS: fc.option(fc.integer({ min: 1, max: 3600 }), { nil: undefined }),
  cpuMillis: fc.integer({ min: 1, max: 16000 }),
  memoryMi: fc.integer({ min: 16, max: 65536 }),
  livenessPath: fc.option(fc.constantFrom('/livez', '/ping'), { nil: undefined }),
  capacity: fc.option(fc.record({ saturation: fc.integer({ min: 1, max: 5000 }), load: fc.double({ min: 0.01, max: 1, noNaN: true }) }), { nil: undefined }),
  cpuLimitFactor: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
  canary: fc.boolean(),
  server: fc.constantFrom(...appServerPresets().filter((p) => p.factory !== 'goNetHttp')),
}).map((g) => {
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
    capacity: g.capacity && { peakRequestsPerSecond: Math.max(0.01, g.capacity.load * maxPeak), saturationRequestsPerSecondPerReplica: g.capacity.saturation },
    appServer: g.server.server,
    delivery: g.canary ? Delivery.canary() : Delivery.rollingUpdate(),
    route: g.canary ? { hostnames: ['svc.example.com'] } : undefined,
    platform: examplePlatform(),
    overrides: g.cpuLimitFactor === undefined ? undefined : { cpuLimit: { value: `${g.cpuMillis * g.cpuLimitFactor}m`, because: 'batch-priced node pool (property test)' } },
  };
});

describe('every valid input yields safe, schema-valid output', () => {
  test('property', () => {
    let synthesized = 0;
    let refusedBySimulation = 0;
    fc.assert(fc.property(validProps, (props) => {
      let objs;
      try {
        objs = synthService(props, 'svc');
      } catch (e) {
        // The only refusals allowed for in-range inputs: the simulated drain at peak does not hold
        // (e.g. a p99 near the timeout with survivors near saturation), or a canary whose traffic is too
        // low for the volume gate at any weight and window rollwise would choose. Each must say so and how to fix it.
        expect(e).toBeInstanceOf(RollwiseInputError);
        const message = (e as RollwiseInputError).message;
        if (message.startsWith('capacity.')) {
          expect(props.delivery?.kind).toBe('canary');
          expect(message).toMatch(/^capacity\.peakRequestsPerSecond = [\d.]+: the canary cannot collect the sample its error ratio needs .* = [\d,.]+ .*below [\d,]+\..*Fix: .*manualPromotion/);
        } else {
          expect(message).toMatch(/^replicas = \d+: the fleet simulator says even a one-pod drain at peak does not hold: .*Fix: scale out first/);
        }
        refusedBySimulation++;
        return;
      }
      synthesized++;
      for (const o of objs) expect(validator.validate(o)).toEqual([]);
      const dep = workload(objs);
      const c = dep.spec.template.spec.containers[0];
      const r = c.readinessProbe;
      const l = c.livenessProbe;
      // readiness returns no faster than it leaves; timeout below period
      expect(r.successThreshold * r.periodSeconds).toBeGreaterThanOrEqual(r.failureThreshold * r.periodSeconds);
      expect(r.timeoutSeconds).toBeLessThan(r.periodSeconds);
      expect(r.timeoutSeconds).toBeGreaterThanOrEqual(3);
      if (props.health.readinessP99UnderLoad) expect(r.timeoutSeconds).toBeGreaterThanOrEqual(2 * props.health.readinessP99UnderLoad.toMilliseconds() / 1000);
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
      expect(dep.kind === 'Rollout' ? dep.spec.strategy.canary.maxUnavailable : dep.spec.strategy.rollingUpdate.maxUnavailable).toBe(0);
      expect(dep.spec.minReadySeconds).toBeGreaterThanOrEqual(r.failureThreshold * r.periodSeconds);
      // the proxy always closes idle upstream connections before the app does
      if (props.delivery?.kind === 'canary') {
        const btp = find(objs, 'BackendTrafficPolicy');
        const idle = btp.spec.timeout.http?.connectionIdleTimeout as string | undefined;
        const ka = props.appServer.keepAliveSeconds;
        if (idle !== undefined && ka !== undefined) expect(parseGoSeconds(idle)).toBeLessThan(ka);
        expect(parseGoSeconds(btp.spec.timeout.tcp.connectTimeout)).toBeLessThanOrEqual(idle === undefined ? 10 : parseGoSeconds(idle));
        expect(btp.spec.targetRefs).toEqual([{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name: 'svc' }]);
      }
      // the PDB keeps the survivors below the ceiling at peak
      const pdb = find(objs, 'PodDisruptionBudget').spec.maxUnavailable as number;
      expect(pdb).toBeGreaterThanOrEqual(1);
      if (props.capacity) {
        const cap = { peakRps: props.capacity.peakRequestsPerSecond, saturationRpsPerReplica: props.capacity.saturationRequestsPerSecondPerReplica };
        expect(props.replicas - pdb).toBeGreaterThanOrEqual(replicasNeededAtPeak(cap, 0.8));
      }
    }), { numRuns: 150 });
    expect(synthesized).toBeGreaterThan(refusedBySimulation * 3);
  });
});

/** "3s", "1m18s", "1h" -> seconds. */
function parseGoSeconds(d: string): number {
  if (!/^(\d+[hms])+$/.test(d)) throw new Error(`unexpected duration ${d}`);
  let total = 0;
  for (const m of d.matchAll(/(\d+)([hms])/g)) total += Number(m[1]) * { s: 1, m: 60, h: 3600 }[m[2] as 's' | 'm' | 'h'];
  return total;
}
