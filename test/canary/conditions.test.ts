import { measurementPhase } from '../../src/checks/analysis-condition';
import { analysisMetrics, metricLimits } from '../../src/decisions/analysis';

const metrics = analysisMetrics({
  namespace: 'checkout',
  name: 'checkout-api',
  prometheusAddress: 'http://p:9090',
  maxErrorRatio: 0.01,
  firstWeightPercent: 5,
});
const byName = Object.fromEntries(metrics.map((m) => [m.name, m]));

describe('analysis conditions, evaluated like the controller', () => {
  test.each([
    ['no data', [], 'Inconclusive'],
    ['NaN (no traffic: 0/0)', [NaN], 'Inconclusive'],
    ['healthy 0.1 %', [0.001], 'Successful'],
    ['bad 2 %', [0.02], 'Failed'],
    ['exactly at the threshold', [0.01], 'Failed'],
  ])('error ratio: %s -> %s', (_t, result, phase) => {
    for (const name of ['canary-error-ratio', 'route-error-ratio']) {
      const m = byName[name];
      expect(measurementPhase(result as number[], m.successCondition, m.failureCondition)).toBe(phase);
    }
  });

  test('the unguarded design-card condition errors on no data and fails on NaN (why rollwise guards it)', () => {
    expect(measurementPhase([], 'result[0] < 0.01')).toBe('Error');
    expect(measurementPhase([NaN], 'result[0] < 0.01')).toBe('Failed');
    expect(measurementPhase([0.001], 'result[0] < 0.01')).toBe('Successful');
  });

  test('request volume: too little traffic is inconclusive, never a pass or a failure', () => {
    const m = byName['canary-request-volume'];
    expect(measurementPhase([], m.successCondition, m.failureCondition)).toBe('Inconclusive');
    expect(measurementPhase([120], m.successCondition, m.failureCondition)).toBe('Inconclusive');
    expect(measurementPhase([22000], m.successCondition, m.failureCondition)).toBe('Successful');
  });

  test('canary readiness: any departure from Ready fails at once (failureLimit 0), none succeeds, no series is inconclusive', () => {
    const m = byName['canary-readiness-departures'];
    expect(measurementPhase([0], m.successCondition, m.failureCondition)).toBe('Successful');
    expect(measurementPhase([1], m.successCondition, m.failureCondition)).toBe('Failed');
    expect(measurementPhase([], m.successCondition, m.failureCondition)).toBe('Inconclusive');
    expect(m.failureLimit?.value).toBe(0);
  });

  test("the limits' reasons state the controller's strict comparisons and the 10 s error retry", () => {
    const l = metricLimits();
    expect(l.failureLimit.value).toBe(3);
    expect(l.failureLimit.reason).toMatch(
      /ceil\(\(2m \+ 1 min\) \/ 1m\) = 3 consecutive measurements, so failureLimit 3: the run fails when failed measurements > 3 .*aborted at its 4th failed measurement, 5 min after the run starts/,
    );
    // longer windows: a blip touches more measurements, and the limit follows
    expect(metricLimits(300).failureLimit.value).toBe(6);
    expect(metricLimits(600).failureLimit.value).toBe(11);
    expect(l.consecutiveErrorLimit.reason).toMatch(
      /> 2, i.e. on the third consecutive query error.*retried after 10 s/,
    );
  });

  test('the dilution arithmetic is in the reason', () => {
    expect(byName['canary-error-ratio'].reason).toContain('0.05 x canary errors + 0.95 x stable errors');
    expect(byName['canary-error-ratio'].reason).toContain('fails 20 % of its requests');
  });
});
