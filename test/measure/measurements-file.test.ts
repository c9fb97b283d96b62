import { Chart, Testing } from 'cdk8s';
import { HttpService } from '../../src/constructs/http-service';
import { checkoutApiProps } from '../../src/example';
import { Measurements, MEASUREMENTS_API_VERSION } from '../../src/measure/measurements';

/** A measurements document as `rollwise measure` writes it (shape of src/measure/measurements.ts). */
function doc(): Record<string, unknown> {
  const m = (value: number | null) => ({
    value,
    unit: 's',
    query: 'q',
    window: { start: '2026-11-24T12:00:00Z', end: '2026-11-24T13:00:00Z' },
    source: 'kubelet',
  });
  return {
    apiVersion: MEASUREMENTS_API_VERSION,
    kind: 'Measurements',
    service: { name: 'checkout-api', namespace: 'checkout', container: 'app', workload: 'rollout' },
    prometheus: 'http://127.0.0.1:9090',
    measuredAt: new Date().toISOString(),
    window: { start: '2026-11-17T00:00:00Z', end: '2026-11-24T00:00:00Z' },
    peak: { start: '2026-11-24T12:00:00Z', end: '2026-11-24T13:00:00Z', requestsPerSecond: 3000, pods: 12, query: 'q' },
    readiness: {
      p99: { ...m(0.25), interpolatedSeconds: 0.2, bucketLowerSeconds: 0.1 },
      p50: m(0.05),
      failedAtPeak: m(0),
    },
    traffic: {},
    cpu: {},
    endpoints: {},
    proxy: {},
    capacity: { points: [], saturation: { estimateRps: null, sentence: 'n/a' } },
  };
}

function withField(path: string, value: unknown): Record<string, unknown> {
  const d = doc();
  const keys = path.split('.');
  let o = d as Record<string, unknown>;
  for (const k of keys.slice(0, -1)) o = o[k] as Record<string, unknown>;
  if (value === undefined) delete o[keys[keys.length - 1]];
  else o[keys[keys.length - 1]] = value;
  return d;
}

describe('every field of a measurements file is checked, naming the file and the field', () => {
  test('the document as measure writes it is read', () => {
    expect(Measurements.fromJson(doc(), 'checkout-api.json').readinessP99Seconds).toBe(0.25);
  });
  test.each([
    ['service.namespace', undefined, /measurements checkout-api\.json service\.namespace = missing: must be a string/],
    [
      'readiness.p99.value',
      'fast',
      /measurements checkout-api\.json readiness\.p99\.value = fast: must be a finite number or null/,
    ],
    ['peak.requestsPerSecond', null, /peak\.requestsPerSecond = null: must be a number/],
    ['readiness.failedAtPeak', undefined, /readiness\.failedAtPeak = missing: must be an object/],
    ['capacity.points', {}, /capacity\.points = \{\}: must be an array/],
    ['measuredAt', 'yesterday', /measuredAt = yesterday: is not an ISO 8601 time/],
    // issue 22: a p99 measure never writes is named with its value, not "holds no readiness p99"
    [
      'readiness.p99.value',
      -1,
      /measurements checkout-api\.json readiness\.p99\.value = -1: is not a duration a probe can take/,
    ],
    ['readiness.p99.value', 0, /readiness\.p99\.value = 0: is not a duration/],
    // a time after now is a wrong clock or a hand edit; the file would never be called stale
    [
      'measuredAt',
      '2999-01-01T00:00:00Z',
      /measuredAt = 2999-01-01T00:00:00Z: is in the future .*up to 10 min of clock skew/,
    ],
  ])('%s = %p', (field, value, message) => {
    expect(() => Measurements.fromJson(withField(field, value), 'checkout-api.json')).toThrow(message);
  });
  test('a time a few minutes ahead (clock skew) is read, null p99 with a note still means not measured', () => {
    expect(() =>
      Measurements.fromJson(withField('measuredAt', new Date(Date.now() + 5 * 60_000).toISOString())),
    ).not.toThrow();
    expect(Measurements.fromJson(withField('readiness.p99.value', null)).readinessP99Seconds).toBeUndefined();
  });
  test('null and a list as the document', () => {
    expect(() => Measurements.fromJson(null)).toThrow(/is not a rollwise measurements file/);
    expect(() => Measurements.fromJson([])).toThrow(/is not a rollwise measurements file/);
  });
  test('a file measured in another namespace is refused for this service', () => {
    const m = Measurements.fromJson(withField('service.namespace', 'shop'), 'checkout-api.json');
    const props = { ...checkoutApiProps(), health: { readinessPath: '/healthz' }, measurements: m };
    expect(
      () => new HttpService(new Chart(Testing.app(), 'c', { namespace: 'checkout' }), 'checkout-api', props),
    ).toThrow(
      /measurements checkout-api\.json service\.namespace = shop: measures checkout-api in namespace shop, but this service is deployed to checkout/,
    );
  });
});
