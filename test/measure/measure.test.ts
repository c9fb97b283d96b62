import { measureService } from '../../src/measure/measure';
import { PrometheusClient } from '../../src/measure/prometheus';
import { ServiceQueries } from '../../src/measure/queries';
import { TestPrometheus } from './prometheus-server';
import { WEEK_END } from './recorded-week';
import { recordedPrometheus } from './setup';

jest.setTimeout(180_000);

let server: TestPrometheus | undefined;
let client: PrometheusClient;

beforeAll(async () => {
  ({ server, client } = await recordedPrometheus());
});
afterAll(async () => { await server?.stop(); });

describe('rollwise measure on a recorded week with a lunchtime peak', () => {
  test('finds Tuesday 12:00-13:00 UTC and reports the peak\'s p99, not the week\'s', async () => {
    const m = await measureService({ client, target: { name: 'checkout-api', namespace: 'healthy' }, end: WEEK_END, now: () => Date.UTC(2026, 10, 29, 1) });
    expect(m.peak.start).toBe('2026-11-24T12:00:00.000Z');
    expect(m.peak.end).toBe('2026-11-24T13:00:00.000Z');
    // increase() over the hour's samples, extrapolated to its edges: within 2 % of the 3,700 req/s offered.
    expect(Math.abs(m.peak.requestsPerSecond - 3700)).toBeLessThan(75);
    expect(m.peak.pods).toBe(4);
    // 5 % of the peak's probes take 250-500 ms: the p99 is in that bucket.
    expect(m.readiness.p99.value).toBe(0.5);
    expect(m.readiness.p99.bucketLowerSeconds).toBe(0.25);
    expect(m.readiness.p99.interpolatedSeconds).toBeGreaterThan(0.25);
    // The same query over the whole week lands in a bucket below 100 ms: the quiet hours dilute it.
    const q = new ServiceQueries({ name: 'checkout-api', namespace: 'healthy' });
    const week = (await client.instant(q.probeQuantile(0.99, '7d'), WEEK_END))[0].samples[0].v;
    expect(week).toBeLessThan(0.1);
    expect(m.readiness.failedAtPeak.value).toBe(0);
    expect(Math.abs(m.traffic.perReadyReplicaAtPeak.value! - 3700 / 4)).toBeLessThan(20);
    expect(m.cpu.secondsPerRequestAtPeak.value).toBeGreaterThan(0.0002);
    expect(m.cpu.throttledRatioAtPeak.value).toBeNull();
    expect(m.cpu.throttledRatioAtPeak.note).toMatch(/no CPU limit/);
    // Thursday's listener-stop experiment took one pod of four out for a few minutes.
    expect(m.endpoints.lowestReadyRatio.value).toBe(0.75);
    expect(m.endpoints.lowestReadyRatio.note).toBe('lowest at 2026-11-26 10:01 UTC (sampled every minute)');
    expect(m.proxy.remoteResetsWithActiveRequest.value).toBe(0);
    expect(m.proxy.idleTimeouts.value).toBeGreaterThan(0);
    expect(m.capacity.points.length).toBeGreaterThan(2);
    expect(m.capacity.saturation.sentence).toMatch(/knee/);
    expect(m.measuredAt).toBe('2026-11-29T01:00:00.000Z');
  });

  test('counts readiness failures at the peak, including the "failed" series created at the first failure', async () => {
    const m = await measureService({ client, target: { name: 'checkout-api', namespace: 'incident' }, end: WEEK_END });
    // Two pods, 3 failed probes a minute, 12 minutes.
    expect(m.readiness.failedAtPeak.value).toBe(72);
    expect(m.cpu.throttledRatioAtPeak.value).toBeCloseTo(0.4, 1);
    expect(m.endpoints.lowestReadyRatio.value).toBe(0.5);
    expect(m.proxy.remoteResetsWithActiveRequest.value).toBe(3);
  });
});
