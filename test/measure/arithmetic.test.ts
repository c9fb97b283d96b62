import { capacityPoints, quantileBucket, quantileShareWithFailures } from '../../src/measure/measure';
import { counterIncrease, promRange, showRange } from '../../src/measure/series';

describe('counters read from raw samples', () => {
  const start = 1000;
  test('a series born inside the window counts from 0 (increase() would report 0 for it)', () => {
    const r = counterIncrease(
      [
        {
          labels: {},
          samples: [
            { t: 1060, v: 1 },
            { t: 1120, v: 1 },
            { t: 1180, v: 3 },
          ],
        },
      ],
      start,
    );
    expect(r.total).toBe(3);
    expect(r.events).toEqual([
      { t: 1060, n: 1 },
      { t: 1180, n: 2 },
    ]);
  });
  test('a series older than the window counts from its last sample before it', () => {
    expect(
      counterIncrease(
        [
          {
            labels: {},
            samples: [
              { t: 940, v: 10 },
              { t: 1000, v: 12 },
              { t: 1060, v: 15 },
            ],
          },
        ],
        start,
      ).total,
    ).toBe(3);
  });
  test('a drop is a counter reset (a restarted container): the new value is the increase', () => {
    expect(
      counterIncrease(
        [
          {
            labels: {},
            samples: [
              { t: 1000, v: 50 },
              { t: 1060, v: 52 },
              { t: 1120, v: 4 },
            ],
          },
        ],
        start,
      ).total,
    ).toBe(6);
  });
  test('nothing happened: no series at all is 0, a flat series is 0', () => {
    expect(counterIncrease([], start)).toEqual({ total: 0, events: [] });
    expect(
      counterIncrease(
        [
          {
            labels: {},
            samples: [
              { t: 990, v: 7 },
              { t: 1050, v: 7 },
            ],
          },
        ],
        start,
      ).total,
    ).toBe(0);
  });
});

describe('the p99 of successful and failed probes together (the kubelet observes successes only)', () => {
  // 1,000 successful probes: 985 up to 100 ms, 10 more up to 250 ms, 5 more up to 500 ms
  const ok = [
    { le: 0.1, n: 985 },
    { le: 0.25, n: 995 },
    { le: 0.5, n: 1000 },
    { le: Infinity, n: 1000 },
  ];
  const p99 = (failed: number) => {
    const share = quantileShareWithFailures(0.99, 1000, failed);
    return share === undefined ? undefined : quantileBucket(ok, share);
  };
  test("no failures: the successes' own p99", () => {
    expect(p99(0)).toEqual({ lower: 0.1, upper: 0.25 });
  });
  test('each failure counted as slower than every success moves the p99 up: 6 of 1,006 failed puts it in the next bucket', () => {
    expect(p99(5)).toEqual({ lower: 0.1, upper: 0.25 });
    expect(p99(6)).toEqual({ lower: 0.25, upper: 0.5 });
  });
  test('more than 1 % failed: the p99 is a failure, which no bucket holds', () => {
    expect(p99(10)).toEqual({ lower: 0.25, upper: 0.5 });
    expect(p99(11)).toBeUndefined();
  });
});

describe('the bucket that holds a quantile', () => {
  const buckets = [
    { le: 0.1, n: 90 },
    { le: 0.25, n: 95 },
    { le: 0.5, n: 100 },
    { le: Infinity, n: 100 },
  ];
  test('p99 of 100 probes with 5 in (0.25, 0.5] lies in that bucket; p50 in the first', () => {
    expect(quantileBucket(buckets, 0.99)).toEqual({ lower: 0.25, upper: 0.5 });
    expect(quantileBucket(buckets, 0.5)).toEqual({ lower: 0, upper: 0.1 });
  });
  test('beyond the largest finite bucket the upper bound is infinite', () => {
    expect(
      quantileBucket(
        [
          { le: 10, n: 90 },
          { le: Infinity, n: 100 },
        ],
        0.99,
      ),
    ).toEqual({ lower: 10, upper: Infinity });
  });
});

describe('capacity points and the knee', () => {
  test('flat latency: no knee, saturation unknown, and the sentence says so', () => {
    const c = capacityPoints([
      { rps: 100, p99: 0.05 },
      { rps: 200, p99: 0.06 },
      { rps: 400, p99: 0.08 },
    ]);
    expect(c.saturation.estimateRps).toBeNull();
    expect(c.saturation.sentence).toMatch(/^no knee in the data: .* saturation is above that and unknown/);
    expect(c.points.map((p) => p.rps)).toEqual([100, 200, 400]);
  });
  test('a knee: saturation is the highest load below it', () => {
    const c = capacityPoints([
      { rps: 100, p99: 0.05 },
      { rps: 300, p99: 0.07 },
      { rps: 800, p99: 0.45 },
    ]);
    expect(c.saturation.estimateRps).toBe(300);
    expect(c.saturation.sentence).toMatch(
      /^a knee between 300 and 800 req\/s per replica: the p99 rises from 70 ms to 450 ms/,
    );
  });
  test('no hours: no points', () => {
    expect(capacityPoints([]).points).toEqual([]);
  });
});

test('time and range text', () => {
  expect(promRange(3600)).toBe('1h');
  expect(promRange(7 * 86400)).toBe('7d');
  expect(promRange(4200)).toBe('70m');
  expect(showRange(Date.UTC(2026, 10, 24, 12) / 1000, Date.UTC(2026, 10, 24, 13) / 1000)).toBe(
    '2026-11-24 12:00-13:00 UTC',
  );
});
