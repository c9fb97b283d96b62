import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  parseCpuQuantity,
  parseScenario,
  readManifestSettings,
  ScenarioError,
  scenarioFromObject,
  DEFAULTS,
} from '../../src/simulate';
import { baseScenario } from './helpers';

/** The ScenarioError thrown for `obj`, or fail. */
function problemsOf(obj: unknown, opts = {}): ScenarioError {
  try {
    scenarioFromObject(obj, opts);
  } catch (e) {
    expect(e).toBeInstanceOf(ScenarioError);
    return e as ScenarioError;
  }
  throw new Error('expected a ScenarioError');
}

describe('scenario defaults', () => {
  test('a minimal scenario gets documented defaults', () => {
    const s = scenarioFromObject(baseScenario());
    expect(s.stepSeconds).toBe(0.1);
    expect(s.sampleSeconds).toBe(1);
    expect(s.proxy).toEqual({ propagationSeconds: 2, requestTimeoutSeconds: 15 });
    expect(s.pods.startSeconds).toBe(5);
    expect(s.capacity).toEqual({
      kind: 'cpu',
      requestCores: 1,
      burstCores: 2,
      cpuSecondsPerRequest: 0.0025,
      healthSeconds: 0.02,
    });
    expect(s.floor).toBe(6);
    expect(s.errorBudget).toBe(DEFAULTS.errorBudget);
  });

  test('floor defaults to replicas minus the largest planned disruption', () => {
    const s = scenarioFromObject(
      baseScenario({ replicas: 12, events: [{ drain: { atSeconds: 10, count: 3 } }, { rollout: { atSeconds: 100 } }] }),
    );
    expect(s.floor).toBe(9); // drain 3 > rollout maxUnavailable floor(25 % of 12) = 3
    const r = s.events.find((e) => e.kind === 'rollout');
    expect(r).toEqual({ kind: 'rollout', atSeconds: 100, maxSurge: 3, maxUnavailable: 3, minReadySeconds: 0 });
  });

  test('rollout percentages: surge rounds up, unavailable rounds down (Kubernetes)', () => {
    const s = scenarioFromObject(
      baseScenario({ replicas: 10, events: [{ rollout: { atSeconds: 1, maxSurge: '25%', maxUnavailable: '25%' } }] }),
    );
    expect(s.events[0]).toMatchObject({ maxSurge: 3, maxUnavailable: 2 });
  });
});

describe('invalid scenarios: field, value, why, fix', () => {
  test('a misspelt field is named with a suggestion', () => {
    const o = baseScenario();
    o.readines = o.readiness;
    const e = problemsOf(o);
    expect(e.message).toContain('readines = ');
    expect(e.message).toContain('unknown field');
    expect(e.message).toContain('did you mean "readiness"');
  });

  test('a probe timeout of 0 is rejected with the reason and the fix', () => {
    const e = problemsOf(
      baseScenario({ readiness: { periodSeconds: 10, timeoutSeconds: 0, failureThreshold: 1, successThreshold: 1 } }),
    );
    expect(e.problems).toHaveLength(1);
    expect(e.problems[0]).toMatchObject({ field: 'readiness.timeoutSeconds', value: 0 });
    expect(e.message).toMatch(
      /readiness\.timeoutSeconds = 0: must be at least 1 \(s\) \(Kubernetes rejects it\)\. Fix: set it to 1 or more/,
    );
  });

  test('fractional thresholds, liveness successThreshold != 1', () => {
    const e = problemsOf(
      baseScenario({
        readiness: { periodSeconds: 10, timeoutSeconds: 1, failureThreshold: 1.5, successThreshold: 1 },
        liveness: { periodSeconds: 10, timeoutSeconds: 1, failureThreshold: 3, successThreshold: 2 },
      }),
    );
    const fields = e.problems.map((p) => p.field);
    expect(fields).toEqual(['readiness.failureThreshold', 'liveness.successThreshold']);
    expect(e.message).toContain('must be 1 for a liveness probe');
  });

  test('capacity needs exactly one model', () => {
    const e = problemsOf(
      baseScenario({
        capacity: { cpu: { requestCores: 1, cpuSecondsPerRequest: 0.001 }, points: [{ rps: 1, p99Seconds: 0.1 }] },
      }),
    );
    expect(e.message).toContain('capacity = ["cpu","points"]: give exactly one of cpu or points');
  });

  test('missing load and missing cpu cost are reported together', () => {
    const o = baseScenario({ capacity: { cpu: { requestCores: 1 } } });
    delete o.load;
    const e = problemsOf(o);
    expect(e.problems.map((p) => p.field).sort()).toEqual(['capacity.cpu.cpuSecondsPerRequest', 'load']);
  });

  test('a limit below the request, a drain larger than the fleet, a p99 below the p50', () => {
    const e = problemsOf(
      baseScenario({
        replicas: 4,
        readiness: {
          periodSeconds: 10,
          timeoutSeconds: 1,
          failureThreshold: 1,
          successThreshold: 1,
          dependency: { p50Seconds: 0.5, p99Seconds: 0.2 },
        },
        capacity: { cpu: { requestCores: 1, limitCores: 0.5, cpuSecondsPerRequest: 0.001 } },
        events: [{ drain: { atSeconds: 10, count: 5 } }],
      }),
    );
    expect(e.problems.map((p) => p.field)).toEqual([
      'readiness.dependency.p99Seconds',
      'capacity.cpu.limitCores',
      'events[0].drain.count',
    ]);
    expect(e.message).toContain('events[0].drain.count = 5: is more than the fleet (4 replicas). Fix: drain at most 4');
  });

  test('unsorted capacity points and load steps', () => {
    const e = problemsOf(
      baseScenario({
        capacity: {
          points: [
            { rps: 300, p99Seconds: 0.3 },
            { rps: 100, p99Seconds: 0.1 },
          ],
        },
        load: { steps: [{ atSeconds: 5, rps: 100 }] },
      }),
    );
    expect(e.problems.map((p) => p.field)).toEqual(['capacity.points[1].rps', 'load.steps[0].atSeconds']);
  });

  test('maxSurge and maxUnavailable both 0', () => {
    const e = problemsOf(baseScenario({ events: [{ rollout: { atSeconds: 10, maxSurge: 0, maxUnavailable: 0 } }] }));
    expect(e.message).toContain('cannot both be 0');
  });

  test('a string where a number belongs', () => {
    const e = problemsOf(baseScenario({ durationSeconds: '10m' }));
    expect(e.message).toContain('durationSeconds = "10m": must be a number (s)');
  });

  test('invalid YAML and a non-mapping', () => {
    expect(() => parseScenario('replicas: [1,', { source: 'x.yaml' })).toThrow(
      /invalid scenario x.yaml:\n {2}- \(yaml\) = .*not valid YAML/,
    );
    expect(() => parseScenario('- 1\n- 2')).toThrow(/must be a YAML mapping/);
  });

  test('a missing manifest is named with the resolved path', () => {
    const e = problemsOf(baseScenario({ manifest: 'nope.yaml' }), { baseDir: '/tmp/nowhere' });
    expect(e.problems[0].field).toBe('manifest');
    expect(e.problems[0].why).toContain('/tmp/nowhere/nope.yaml');
    expect(e.problems[0].why).toContain('ENOENT');
  });
});

describe('reading a synthesized manifest', () => {
  const deployment = `
apiVersion: v1
kind: Service
metadata: { name: web }
---
apiVersion: apps/v1
kind: Deployment
metadata: { name: web }
spec:
  replicas: 7
  template:
    spec:
      containers:
        - name: app
          resources: { requests: { cpu: 500m }, limits: { cpu: "1.5" } }
          readinessProbe: { httpGet: { path: /ready, port: 8080 }, timeoutSeconds: 2, successThreshold: 2 }
          livenessProbe: { tcpSocket: { port: 8080 }, periodSeconds: 20 }
        - name: sidecar
          resources: { limits: { cpu: 100m } }
`;
  test('first Deployment, first container, Kubernetes defaults for omitted probe fields', () => {
    expect(readManifestSettings(deployment)).toEqual({
      kind: 'Deployment',
      name: 'web',
      replicas: 7,
      readiness: { periodSeconds: 10, timeoutSeconds: 2, failureThreshold: 3, successThreshold: 2, handler: 'http' },
      liveness: { periodSeconds: 20, timeoutSeconds: 1, failureThreshold: 3, successThreshold: 1, handler: 'tcp' },
      cpuRequestCores: 0.5,
      cpuLimitCores: 1.5,
    });
  });

  test('scenario fields override the manifest; limitCores: null removes its limit', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sim-'));
    fs.writeFileSync(path.join(dir, 'm.yaml'), deployment);
    const s = parseScenario(
      `manifest: m.yaml\nreadiness: { failureThreshold: 4 }\ncapacity: { cpu: { cpuSecondsPerRequest: 0.002, limitCores: null } }\nload: { constantRps: 100 }\n`,
      { baseDir: dir },
    );
    expect(s.replicas).toBe(7);
    expect(s.readiness).toEqual({ periodSeconds: 10, timeoutSeconds: 2, failureThreshold: 4, successThreshold: 2 });
    expect(s.liveness).toEqual({
      periodSeconds: 20,
      timeoutSeconds: 1,
      failureThreshold: 3,
      successThreshold: 1,
      handler: 'tcp',
    });
    expect(s.capacity).toEqual({
      kind: 'cpu',
      requestCores: 0.5,
      burstCores: 1,
      cpuSecondsPerRequest: 0.002,
      healthSeconds: 0.02,
    });
  });

  test('a manifest without a workload, and a Rollout with workloadRef', () => {
    expect(() => readManifestSettings('apiVersion: v1\nkind: Service\nmetadata: {name: x}\n', 'svc.yaml')).toThrow(
      /no apps\/v1 Deployment or argoproj.io\/v1alpha1 Rollout/,
    );
    expect(() =>
      readManifestSettings(
        'apiVersion: argoproj.io/v1alpha1\nkind: Rollout\nmetadata: {name: r}\nspec: {workloadRef: {kind: Deployment, name: d}}\n',
      ),
    ).toThrow(/workloadRef/);
  });

  test('CPU quantities', () => {
    expect(parseCpuQuantity('250m')).toBe(0.25);
    expect(parseCpuQuantity('2')).toBe(2);
    expect(parseCpuQuantity(1.5)).toBe(1.5);
    expect(parseCpuQuantity('1Gi')).toBeUndefined();
  });
});
