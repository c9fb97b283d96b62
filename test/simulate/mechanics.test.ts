import { capacityRps, handlerLatency, loadAt, mulberry32, simulate } from '../../src/simulate';
import { scenario } from './helpers';

describe('model mechanics', () => {
  test('mulberry32 is deterministic and roughly uniform', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const xs = Array.from({ length: 10000 }, () => a());
    expect(xs.slice(0, 5)).toEqual(Array.from({ length: 5 }, () => b()));
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(mean).toBeGreaterThan(0.49);
    expect(mean).toBeLessThan(0.51);
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
  });

  test('CPU model: 20 ms idle, over a second at the quota with a limit, throttling only with a limit', () => {
    const limited = scenario({ capacity: { cpu: { requestCores: 1, limitCores: 1, cpuSecondsPerRequest: 0.0025 } } });
    const unlimited = scenario({
      capacity: { cpu: { requestCores: 1, limitCores: null, burstCores: 1, cpuSecondsPerRequest: 0.0025 } },
    });
    expect(capacityRps(limited)).toBe(400);
    expect(handlerLatency(limited, 0, 0)).toBeCloseTo(0.02, 10);
    expect(handlerLatency(unlimited, 200, 0)).toBeCloseTo(0.04, 10); // 20 ms / (1 - 0.5)
    expect(handlerLatency(limited, 200, 0)).toBeCloseTo(0.09, 10); // + half a CFS period
    expect(handlerLatency(limited, 399, 0)).toBeGreaterThan(1); // field notes: "over a second on a pod at its quota"
    expect(handlerLatency(limited, 400, 3)).toBeCloseTo(2 + 0.1 + 3, 10); // capped PS term + period + queue
  });

  test('points model interpolates, extrapolates the last segment, adds the queue', () => {
    const s = scenario({
      capacity: {
        points: [
          { rps: 0, p99Seconds: 0.02 },
          { rps: 200, p99Seconds: 0.1 },
          { rps: 300, p99Seconds: 0.5 },
        ],
      },
    });
    expect(capacityRps(s)).toBe(300);
    expect(handlerLatency(s, 100, 0)).toBeCloseTo(0.06, 10);
    expect(handlerLatency(s, 250, 0)).toBeCloseTo(0.3, 10);
    expect(handlerLatency(s, 350, 1)).toBeCloseTo(0.7 + 1, 10);
  });

  test('load shapes', () => {
    const steps = scenario({
      load: {
        steps: [
          { atSeconds: 0, rps: 100 },
          { atSeconds: 60, rps: 300 },
        ],
      },
    });
    expect(loadAt(steps, 59.9)).toBe(100);
    expect(loadAt(steps, 60)).toBe(300);
    const daily = scenario({ load: { daily: { troughRps: 100, peakRps: 900, peakAtSeconds: 3600 } } });
    expect(loadAt(daily, 3600)).toBeCloseTo(900, 8);
    expect(loadAt(daily, 3600 + 43200)).toBeCloseTo(100, 8);
    expect(loadAt(daily, 3600 + 21600)).toBeCloseTo(500, 8);
  });

  test('the proxy acts on readiness changes propagationSeconds late', () => {
    const s = scenario({
      replicas: 6,
      load: { constantRps: 0 },
      proxy: { propagationSeconds: 3 },
      events: [{ drain: { atSeconds: 10, count: 2 } }],
    });
    const r = simulate(s).series;
    const at = (t: number): number => r.t.indexOf(t);
    expect(r.readyPods[at(11)]).toBe(4); // kubelet / EndpointSlice: gone at once
    expect(r.readyEndpoints[at(11)]).toBe(6); // proxy: still routing
    expect(r.readyEndpoints[at(12)]).toBe(6);
    expect(r.readyEndpoints[at(13)]).toBe(4);
  });

  test('no ready endpoint: every request fails with UH', () => {
    const m = simulate(
      scenario({
        replicas: 3,
        durationSeconds: 100,
        load: { constantRps: 100 },
        events: [{ drain: { atSeconds: 20, count: 3 } }],
      }),
    ).summary;
    expect(m.minReady).toBe(0);
    // From 22 s (20 s + 2 s propagation) to 100 s at 100 req/s, give or take one 100 ms step.
    expect(Math.abs(m.errors.noEndpoint - 7800)).toBeLessThanOrEqual(10);
    expect(m.errors.total).toBe(m.errors.noEndpoint);
    expect(m.errorRatio).toBeCloseTo(0.78, 2);
    expect(m.verdict).toBe('cascade');
  });

  test('a saturated pod queues and requests time out (UT) past the proxy timeout', () => {
    // 2 pods x 400 req/s capacity, 1000 req/s offered: 200 req/s too many once the 5 s queue is full.
    const m = simulate(
      scenario({
        replicas: 2,
        durationSeconds: 60,
        readiness: { periodSeconds: 10, timeoutSeconds: 30, failureThreshold: 3, successThreshold: 1 },
        capacity: { cpu: { requestCores: 1, burstCores: 1, cpuSecondsPerRequest: 0.0025 } },
        load: { constantRps: 1000 },
        proxy: { requestTimeoutSeconds: 5 },
      }),
    ).summary;
    expect(m.departures).toBe(0);
    // Queue fills after 5 s / 0.25 s/s = 20 s, then 2 x 100 req/s time out for 40 s.
    expect(m.errors.timeout).toBeGreaterThan(7900);
    expect(m.errors.timeout).toBeLessThan(8100);
  });

  test('liveness kills follow CrashLoopBackOff: 10 s doubling, capped at 5 min', () => {
    // A liveness handler that always times out (dependency p50 5 s > timeout 1 s):
    // kill, back-off 10 s, start 5 s, fail within ~1.5 s, kill, back-off 20 s, ...
    // Kill times ~1.5, 18, 44.5, 91, 177.5, 344, 650.5, 957 s (the 8th only if capped at 300 s).
    const make = (durationSeconds: number) =>
      scenario({
        replicas: 1,
        durationSeconds,
        load: { constantRps: 0 },
        liveness: {
          periodSeconds: 1,
          timeoutSeconds: 1,
          failureThreshold: 1,
          dependency: { p50Seconds: 5, p99Seconds: 6 },
        },
      });
    expect(simulate(make(600)).summary.restarts).toBe(6);
    expect(simulate(make(1000)).summary.restarts).toBe(8);
  });

  test('a killed container the proxy still routes to refuses requests (UF) until the proxy catches up', () => {
    // One pod, liveness period 100 s: the first probe (random phase) and the one 100 s later kill it.
    const m = simulate(
      scenario({
        replicas: 1,
        durationSeconds: 200,
        load: { constantRps: 100 },
        liveness: {
          periodSeconds: 100,
          timeoutSeconds: 1,
          failureThreshold: 1,
          dependency: { p50Seconds: 5, p99Seconds: 6 },
        },
      }),
    ).summary;
    expect(m.restarts).toBe(2);
    // Each kill: all 100 req/s for the 2 s propagation delay, give or take a step.
    expect(Math.abs(m.errors.refused - 400)).toBeLessThanOrEqual(20);
    expect(m.errors.noEndpoint).toBeGreaterThan(0); // then nothing is ready until the restart passes readiness
  });

  test('a rolling update (maxSurge 1, maxUnavailable 0) never drops below the fleet and completes', () => {
    const s = scenario({
      replicas: 5,
      durationSeconds: 200,
      load: { constantRps: 500 },
      events: [{ rollout: { atSeconds: 10, maxSurge: 1, maxUnavailable: 0 } }],
    });
    const r = simulate(s);
    expect(r.summary.minReady).toBe(5);
    expect(r.series.readyEndpoints[r.series.readyEndpoints.length - 1]).toBe(5);
    expect(r.summary.verdict).toBe('stable');
    // Five one-at-a-time replacements, each: start 5 s + first readiness probe (period 5 s) + controller 1 s.
    expect(r.summary.rolloutCompletedAtSeconds).not.toBeNull();
    expect(r.summary.rolloutCompletedAtSeconds!).toBeGreaterThan(10 + 5 * 5);
    expect(r.summary.rolloutCompletedAtSeconds!).toBeLessThan(10 + 5 * 12);
  });

  test('maxUnavailable 2 lets the rollout go faster and dip to 3 ready', () => {
    const r = simulate(
      scenario({
        replicas: 5,
        durationSeconds: 200,
        load: { constantRps: 500 },
        events: [{ rollout: { atSeconds: 10, maxSurge: 0, maxUnavailable: 2 } }],
      }),
    );
    expect(r.summary.minReady).toBe(3);
    expect(r.summary.floor).toBe(3);
    expect(r.summary.rolloutCompletedAtSeconds!).toBeLessThan(10 + 3 * 12);
  });
});
