import { disruptionBudget, replicasNeededAtPeak } from '../../src/decisions/disruption';
import { resources } from '../../src/decisions/resources';
import { rolloutStrategy } from '../../src/decisions/rollout';
import { readinessTiming } from '../../src/decisions/probes';

describe('disruption budget', () => {
  const capacity = { peakRps: 3700, saturationRpsPerReplica: 450 };

  test('checkout-api: 11 must stay up at peak, so 1 may be disrupted, and the reason shows the arithmetic', () => {
    expect(replicasNeededAtPeak(capacity, 0.8)).toBe(11);
    const d = disruptionBudget({ replicas: 12, capacity, ceiling: 0.8 });
    expect(d.value).toBe(1);
    expect(d.reason).toContain(
      'Peak 3,700 req/s / (saturation 450 req/s x ceiling 80 % = 360 req/s per replica) = 10.3',
    );
    expect(d.reason).toContain('12 - 11 = 1');
  });

  test('more replicas allow a larger budget', () => {
    expect(disruptionBudget({ replicas: 16, capacity, ceiling: 0.8 }).value).toBe(5);
  });

  test('no headroom at peak fails and says how many replicas are needed', () => {
    expect(() => disruptionBudget({ replicas: 11, capacity, ceiling: 0.8 })).toThrow(
      /replicas = 11: the fleet has no headroom at peak.*scale out first: set replicas to at least 12/,
    );
  });

  test('without capacity figures the budget is 1 and the reason says why', () => {
    const d = disruptionBudget({ replicas: 4, ceiling: 0.8 });
    expect(d.value).toBe(1);
    expect(d.reason).toMatch(/No capacity figures given/);
  });
});

describe('resources', () => {
  test('no CPU limit, memory limit equals request', () => {
    const r = resources('250m', '512Mi');
    expect(r.cpuLimit.value).toBeUndefined();
    expect(r.cpuLimit.reason).toMatch(/CFS quota/);
    expect(r.memoryLimit.value).toBe('512Mi');
  });
  test('a CPU limit only as an override with a reason', () => {
    expect(() => resources('250m', '512Mi', { value: '500m', because: '' })).toThrow(
      /overrides.cpuLimit = 500m: an override must carry its reason/,
    );
    const r = resources('250m', '512Mi', { value: '500m', because: 'shared node pool billed by limit' });
    expect(r.cpuLimit.value).toBe('500m');
    expect(r.cpuLimit.reason).toContain('shared node pool billed by limit');
  });
});

describe('rollout strategy', () => {
  test('maxUnavailable 0, surge 25 %, minReadySeconds 30, progress deadline 600', () => {
    const r = rolloutStrategy(readinessTiming({ periodSeconds: 10 }), 60);
    expect(r.maxUnavailable.value).toBe(0);
    expect(r.maxSurge.value).toBe('25%');
    expect(r.minReadySeconds.value).toBe(30);
    expect(r.progressDeadlineSeconds.value).toBe(600);
  });
  test('a long start-up budget stretches the progress deadline instead of failing healthy rollouts', () => {
    const r = rolloutStrategy(readinessTiming({ periodSeconds: 10 }), 600);
    expect(r.progressDeadlineSeconds.value).toBe(2 * (600 + 30 + 30));
    expect(r.progressDeadlineSeconds.reason).toContain(
      'start-up budget 600 s + return window 30 s + minReadySeconds 30 s = 660 s',
    );
  });
  test('minReadySeconds shorter than the leave window is refused', () => {
    expect(() =>
      rolloutStrategy(readinessTiming({ periodSeconds: 10 }), 60, {
        minReadySeconds: { value: 10, because: 'faster deploys please' },
      }),
    ).toThrow(/overrides.minReadySeconds = 10 s: is shorter than the readiness leave window \(30 s\)/);
  });
});
