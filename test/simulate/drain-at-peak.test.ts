import { drainAtPeakScenario, handlerLatency, simulateDrainAtPeak } from '../../src/simulate';

const rollwiseProbe = { periodSeconds: 10, timeoutSeconds: 3, failureThreshold: 3, successThreshold: 3 };

describe('simulateDrainAtPeak', () => {
  test('a budgeted drain at peak that the fleet absorbs: the sentence the PDB reason cites', () => {
    const r = simulateDrainAtPeak({
      replicas: 12,
      drain: 1,
      peakRps: 3700,
      saturationRpsPerReplica: 500,
      readiness: rollwiseProbe,
    });
    expect(r).toEqual({
      minReady: 11,
      readyAtEnd: 11,
      verdict: 'stable',
      sentence: 'a drain of 1 pod at 3,700 req/s keeps 11/11 remaining pods ready (simulated 10 min, seed 1)',
    });
  });

  test('the throttled-drain incident (docs/mechanisms.md#readiness-control-loop) shape fails: throttled, timeout 1 s, failureThreshold 2, a quarter drained', () => {
    const r = simulateDrainAtPeak({
      replicas: 10,
      drain: 2,
      peakRps: 3400,
      saturationRpsPerReplica: 400,
      readiness: { periodSeconds: 10, timeoutSeconds: 1, failureThreshold: 2, successThreshold: 1 },
      cpuLimitRatio: 1,
    });
    expect(r.minReady).toBe(0);
    expect(['oscillating', 'cascade']).toContain(r.verdict);
    expect(r.sentence).toMatch(
      /^a drain of 2 pods at 3,400 req\/s drops to 0\/8 remaining pods ready \((oscillating|cascade)\) \(simulated 10 min, seed 1\)$/,
    );
  });

  test('healthP99Seconds calibrates the handler: the measured p99 is what the model reproduces at peak', () => {
    const opts = {
      replicas: 12,
      drain: 1,
      peakRps: 3700,
      saturationRpsPerReplica: 500,
      readiness: { ...rollwiseProbe, timeoutSeconds: 1 },
      healthP99Seconds: 0.3,
    };
    const s = drainAtPeakScenario(opts);
    expect(handlerLatency(s, 3700 / 12, 0)).toBeCloseTo(0.3, 10);
    expect(simulateDrainAtPeak(opts).verdict).toBe('stable');
    // A p99 of 0.9 s at peak: after the drain (u 0.62 -> 0.67) it passes the 1 s timeout.
    const tight = simulateDrainAtPeak({ ...opts, healthP99Seconds: 0.9 });
    expect(tight.verdict).not.toBe('stable');
    expect(tight.minReady).toBeLessThan(11);
  });

  test('a CPU limit adds the throttling wait; never better than no limit', () => {
    const base = {
      replicas: 10,
      drain: 2,
      peakRps: 3000,
      saturationRpsPerReplica: 400,
      readiness: { periodSeconds: 10, timeoutSeconds: 1, failureThreshold: 1, successThreshold: 1 },
    };
    const s = drainAtPeakScenario({ ...base, cpuLimitRatio: 1 });
    const u = s.replicas && 3000 / 8 / 400;
    expect(handlerLatency(s, 3000 / 8, 0) - handlerLatency(drainAtPeakScenario(base), 3000 / 8, 0)).toBeCloseTo(
      0.1 * u,
      10,
    );
    expect(simulateDrainAtPeak(base).minReady).toBeGreaterThanOrEqual(
      simulateDrainAtPeak({ ...base, cpuLimitRatio: 1 }).minReady,
    );
  });

  test('is fast enough to run on every synth (12 replicas, 10 simulated minutes, well under 100 ms)', () => {
    const opts = { replicas: 12, drain: 1, peakRps: 3700, saturationRpsPerReplica: 500, readiness: rollwiseProbe };
    simulateDrainAtPeak(opts); // warm up the JIT
    const times: number[] = [];
    for (let i = 0; i < 5; i++) {
      const t0 = process.hrtime.bigint();
      simulateDrainAtPeak(opts);
      times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    times.sort((a, b) => a - b);
    expect(times[2]).toBeLessThan(50);
  });

  test('rejects impossible inputs', () => {
    expect(() =>
      simulateDrainAtPeak({ replicas: 3, drain: 3, peakRps: 1, saturationRpsPerReplica: 1, readiness: rollwiseProbe }),
    ).toThrow(/drain = 3: must be a whole number in \[0, replicas\)/);
    expect(() =>
      simulateDrainAtPeak({ replicas: 3, drain: 1, peakRps: 1, saturationRpsPerReplica: 0, readiness: rollwiseProbe }),
    ).toThrow(/saturationRpsPerReplica/);
    expect(() =>
      simulateDrainAtPeak({
        replicas: 3,
        drain: 1,
        peakRps: 1,
        saturationRpsPerReplica: 1,
        readiness: { ...rollwiseProbe, timeoutSeconds: 0 },
      }),
    ).toThrow(/readiness.timeoutSeconds = 0/);
  });
});
