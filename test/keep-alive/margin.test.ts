import * as fc from 'fast-check';
import {
  connectTimeoutFor,
  idleTimeoutFor,
  MIN_APP_KEEPALIVE_SECONDS,
  MIN_MARGIN_SECONDS,
} from '../../src/decisions/keep-alive';

describe('the margin rule (property)', () => {
  test("for every keep-alive >= the minimum: idle < keep-alive by at least the margin, whole seconds; connect is Envoy's 10 s default whatever the idle timeout", () => {
    fc.assert(
      fc.property(fc.integer({ min: MIN_APP_KEEPALIVE_SECONDS * 1000, max: 86_400_000 }), (ms) => {
        const ka = ms / 1000;
        const idle = idleTimeoutFor(ka);
        expect(idle).toBeDefined();
        expect(Number.isInteger(idle)).toBe(true);
        expect(idle!).toBeGreaterThanOrEqual(1);
        expect(idle!).toBeLessThan(ka);
        expect(ka - idle!).toBeGreaterThanOrEqual(MIN_MARGIN_SECONDS - 1e-9);
        expect(ka - idle!).toBeGreaterThanOrEqual(0.4 * ka - 1e-9);
        const connect = connectTimeoutFor(idle);
        expect(connect).toBe(10);
      }),
      { numRuns: 2000 },
    );
  });

  test('below the minimum no idle timeout fits', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: MIN_APP_KEEPALIVE_SECONDS * 1000 - 1 }), (ms) => {
        expect(idleTimeoutFor(ms / 1000)).toBeUndefined();
      }),
    );
  });

  test('monotone: a longer keep-alive never gives a shorter idle timeout', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2000, max: 3_600_000 }), fc.integer({ min: 0, max: 3_600_000 }), (a, delta) => {
        expect(idleTimeoutFor((a + delta) / 1000)!).toBeGreaterThanOrEqual(idleTimeoutFor(a / 1000)!);
      }),
    );
  });
});
