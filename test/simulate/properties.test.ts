import fc from 'fast-check';
import { isBadVerdict, simulate, VERDICT_RANK, type SimResult } from '../../src/simulate';
import { scenario } from './helpers';

/**
 * Fleets that exercise the loop: CPU model with or without a limit, load from
 * idle to past saturation, drains of up to half the fleet, short runs so a
 * property test stays fast (4 min simulated, 100 ms steps).
 */
const fleet = fc.record({
  replicas: fc.integer({ min: 2, max: 12 }),
  rps: fc.integer({ min: 0, max: 5000 }),
  cpuMs: fc.constantFrom(1, 2, 2.5, 4),
  requestCores: fc.constantFrom(0.5, 1),
  limitCores: fc.constantFrom(1, 1.5, 2),
  hasLimit: fc.boolean(),
  periodSeconds: fc.integer({ min: 1, max: 10 }),
  timeoutSeconds: fc.integer({ min: 1, max: 3 }),
  failureThreshold: fc.integer({ min: 1, max: 3 }),
  successThreshold: fc.integer({ min: 1, max: 3 }),
  healthSeconds: fc.constantFrom(0.005, 0.02, 0.1),
  drainFraction: fc.constantFrom(0, 0.25, 0.5),
  liveness: fc.boolean(),
  seed: fc.integer({ min: 0, max: 1000 }),
});
type Fleet = typeof fleet extends fc.Arbitrary<infer T> ? T : never;

function run(f: Fleet, over: Partial<Fleet> = {}): SimResult {
  const g = { ...f, ...over };
  const drain = Math.floor(g.drainFraction * f.replicas); // same drain for both sides of a comparison
  return simulate(
    scenario({
      seed: g.seed,
      durationSeconds: 240,
      replicas: g.replicas,
      readiness: {
        periodSeconds: g.periodSeconds,
        timeoutSeconds: g.timeoutSeconds,
        failureThreshold: g.failureThreshold,
        successThreshold: g.successThreshold,
      },
      liveness: g.liveness ? { periodSeconds: 10, timeoutSeconds: 1, failureThreshold: 3 } : undefined,
      capacity: {
        cpu: {
          requestCores: g.requestCores,
          limitCores: g.hasLimit ? g.limitCores : null,
          cpuSecondsPerRequest: g.cpuMs / 1000,
          healthSeconds: g.healthSeconds,
        },
      },
      load: { constantRps: g.rps },
      events: drain > 0 ? [{ drain: { atSeconds: 30, count: drain } }] : [],
    }),
  );
}

/**
 * "Not worse": never turns an acceptable fleet (stable, degraded) into a
 * failing one, never stable -> degraded, and, while the base is acceptable,
 * never fewer ready endpoints at worst nor a higher error ratio.
 * Between two failing fleets (both overloaded: one flaps, the other happens to
 * touch zero within the run) the details depend on where the probe phases
 * fall, so the comparison stops at "both fail".
 */
function severity(r: SimResult): number {
  return isBadVerdict(r.summary.verdict) ? 2 : VERDICT_RANK[r.summary.verdict];
}

function notWorse(better: SimResult, base: SimResult): void {
  expect(severity(better)).toBeLessThanOrEqual(severity(base));
  if (severity(base) < 2) {
    expect(better.summary.minReady).toBeGreaterThanOrEqual(base.summary.minReady);
    expect(better.summary.errorRatio).toBeLessThanOrEqual(base.summary.errorRatio + 1e-9);
  }
}

const RUNS = Number(process.env.SIM_PROPERTY_RUNS ?? 60);

describe('simulator properties', () => {
  test('with zero load nothing ever leaves (no probe failure, departure or restart)', () => {
    fc.assert(
      fc.property(fleet, (f) => {
        const r = run(f, { rps: 0 }).summary;
        expect(r.probeFailures).toBe(0);
        expect(r.departures).toBe(0);
        expect(r.restarts).toBe(0);
        expect(r.requests).toBe(0);
        // Only the drained pods are missing.
        expect(r.minReady).toBe(f.replicas - Math.floor(f.drainFraction * f.replicas));
        expect(r.verdict).toBe('stable');
      }),
      { numRuns: RUNS },
    );
  });

  test('more replicas is never worse', () => {
    fc.assert(
      fc.property(fleet, (f) => {
        const base = run(f);
        const more = run(f, { replicas: f.replicas + 1 });
        notWorse(more, base);
      }),
      { numRuns: RUNS },
    );
  });

  test('removing a CPU limit is never worse', () => {
    fc.assert(
      fc.property(fleet, (f) => {
        const limited = run(f, { hasLimit: true });
        const unlimited = run(f, { hasLimit: false });
        notWorse(unlimited, limited);
      }),
      { numRuns: RUNS },
    );
  });

  test('same seed, same result (the whole series, not just the summary)', () => {
    fc.assert(
      fc.property(fleet, (f) => {
        expect(run(f)).toEqual(run(f));
      }),
      { numRuns: 15 },
    );
  });

  test('different seeds move the probe phases (the seed is actually used)', () => {
    const s = scenario({
      readiness: {
        periodSeconds: 10,
        timeoutSeconds: 1,
        failureThreshold: 1,
        successThreshold: 1,
        dependency: { p50Seconds: 0.8, p99Seconds: 1.5 },
      },
    });
    const a = simulate({ ...s, seed: 1 }).series.readyEndpoints;
    const b = simulate({ ...s, seed: 2 }).series.readyEndpoints;
    expect(a).not.toEqual(b);
  });
});
