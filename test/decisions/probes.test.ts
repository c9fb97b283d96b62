import { livenessTiming, readinessTiming, startupTiming } from '../../src/decisions/probes';

describe('readiness timing', () => {
  test('timeout is 2x p99 rounded up, with a 3 s floor, and the reason names the numbers', () => {
    const r = readinessTiming({ periodSeconds: 10, p99Seconds: 0.25 });
    expect(r.timeoutSeconds.value).toBe(3);
    expect(r.timeoutSeconds.reason).toContain('250 ms');
    expect(r.timeoutSeconds.reason).toContain('3 s floor');
    const slow = readinessTiming({ periodSeconds: 10, p99Seconds: 1.5 });
    expect(slow.timeoutSeconds.value).toBe(3);
    const slower = readinessTiming({ periodSeconds: 10, p99Seconds: 2.2 });
    expect(slower.timeoutSeconds.value).toBe(5); // 4.4 -> 5
    expect(slower.timeoutSeconds.reason).toMatch(/2\.2 s\) = 4\.4 s, rounded up to 5 s/);
  });

  test('without a measured p99 the reason says so', () => {
    const r = readinessTiming({ periodSeconds: 10 });
    expect(r.timeoutSeconds.value).toBe(3);
    expect(r.timeoutSeconds.reason).toMatch(/p99 under peak load was NOT given/);
    expect(r.timeoutSeconds.inputs.p99).toBe('not measured');
  });

  test('a p99 that does not fit below the period fails: the handler is not cheap and local', () => {
    expect(() => readinessTiming({ periodSeconds: 10, p99Seconds: 4.6 })).toThrow(
      /health.readinessP99UnderLoad = 4.6 s: .*would not fit below the 10 s probe period.*not cheap and local/,
    );
  });

  test('failureThreshold 3, success equal: return window equals leave window, both stated in seconds', () => {
    const r = readinessTiming({ periodSeconds: 10, p99Seconds: 0.25 });
    expect(r.failureThreshold.value).toBe(3);
    expect(r.successThreshold.value).toBe(3);
    expect(r.successThreshold.reason).toContain('Return window 3 x 10 s = 30 s');
    expect(r.successThreshold.reason).toContain('leave window 3 x 10 s = 30 s');
  });

  test('returning faster than leaving is refused even with a reason', () => {
    expect(() =>
      readinessTiming({
        periodSeconds: 10,
        overrides: { successThreshold: { value: 1, because: 'we want pods back quickly' } },
      }),
    ).toThrow(/return \(1 x 10 s = 10 s\) faster than it leaves \(3 x 10 s = 30 s\)/);
  });

  test('an overridden timeout below the p99 without a reason fails naming both numbers', () => {
    expect(() =>
      readinessTiming({ periodSeconds: 10, p99Seconds: 1.5, overrides: { timeoutSeconds: { value: 1, because: '' } } }),
    ).toThrow(/overrides.readinessTimeout = 1 s: an override must carry its reason.*1\.5 s/);
  });

  test('an overridden timeout with a reason replaces the computed reason', () => {
    const r = readinessTiming({
      periodSeconds: 10,
      p99Seconds: 0.25,
      overrides: { timeoutSeconds: { value: 4, because: 'cold JIT after deploys adds a second' } },
    });
    expect(r.timeoutSeconds.value).toBe(4);
    expect(r.timeoutSeconds.overridden).toBe(true);
    expect(r.timeoutSeconds.reason).toBe('Overridden: cold JIT after deploys adds a second (rollwise computed 3 s.)');
  });
});

describe('liveness timing', () => {
  test('strictly more lenient than readiness on every axis, process-only', () => {
    const r = readinessTiming({ periodSeconds: 10, p99Seconds: 0.25 });
    const l = livenessTiming(r, undefined, '/healthz');
    expect(l.check.value).toEqual({ kind: 'tcp' });
    expect(l.periodSeconds.value).toBeGreaterThan(r.periodSeconds.value);
    expect(l.timeoutSeconds.value).toBeGreaterThan(r.timeoutSeconds.value);
    expect(l.timeoutSeconds.value).toBeLessThan(l.periodSeconds.value);
    expect(l.failureThreshold.value * l.periodSeconds.value).toBeGreaterThanOrEqual(
      2 * r.failureThreshold.value * r.periodSeconds.value,
    );
    expect(l.failureThreshold.reason).toContain('120 s, 4x the readiness leave window (30 s)');
  });

  test('liveness on the readiness path is refused', () => {
    const r = readinessTiming({ periodSeconds: 10 });
    expect(() => livenessTiming(r, '/healthz', '/healthz')).toThrow(
      /health.livenessPath = \/healthz: liveness on the readiness path turns load into restarts/,
    );
  });
});

describe('startup timing', () => {
  test('sized from the budget', () => {
    const r = readinessTiming({ periodSeconds: 10 });
    const s = startupTiming(90, r);
    expect(s.failureThreshold.value).toBe(18);
    expect(s.failureThreshold.reason).toContain('90 s / 5 s period = 18 attempts');
    expect(s.timeoutSeconds.value).toBeLessThan(s.periodSeconds.value);
  });
});
