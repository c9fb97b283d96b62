/**
 * The Prometheus harness leaves nothing behind: its directory and server go on stop and when the
 * backfill or the start fails; a query the server rejects is an Error measurement, as with the
 * provider.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  DEFAULT_BINARIES,
  PrometheusHarness,
  PrometheusUnavailable,
  resultFromApi,
  toOpenMetrics,
} from '../../src/rehearse';

const privateTmp = fs.mkdtempSync(path.join(os.tmpdir(), 'harness-test-'));
afterAll(() => fs.rmSync(privateTmp, { recursive: true, force: true }));
const harness = () => new PrometheusHarness(DEFAULT_BINARIES, privateTmp);
const leftovers = () => fs.readdirSync(privateTmp).filter((f) => f.startsWith('rollwise-rehearse-'));

test('a backfill that promtool rejects fails the start and removes the directory', async () => {
  await expect(harness().start('not openmetrics\n')).rejects.toThrow(/promtool backfill failed/);
  expect(leftovers()).toEqual([]);
});

test('missing binaries are named', async () => {
  await expect(
    new PrometheusHarness({ promtool: '/nonexistent/promtool', prometheus: '/nonexistent/prometheus' }).start(
      '# EOF\n',
    ),
  ).rejects.toBeInstanceOf(PrometheusUnavailable);
});

test('answers instant queries at the given time; a bad query is an error; stop removes everything', async () => {
  const h = harness();
  await h.start(
    toOpenMetrics([
      {
        offsetSeconds: 0,
        series: [
          {
            name: 'up',
            labels: { job: 'x' },
            samples: [
              [0, 1],
              [30, 1],
              [60, 0],
            ],
          },
        ],
      },
    ]),
  );
  try {
    expect(await h.query('up', 45)).toEqual({ ok: true, result: [1] });
    expect(await h.query('up', 60)).toEqual({ ok: true, result: [0] });
    // Beyond the 5 m lookback the series is gone: an empty result, not 0.
    expect(await h.query('up', 60 + 301)).toEqual({ ok: true, result: [] });
    expect(await h.query('scalar(up)', 45)).toEqual({ ok: true, result: 1 });
    const bad = await h.query('sum(', 45);
    expect(bad.ok).toBe(false);
    expect(leftovers()).toHaveLength(1);
  } finally {
    await h.stop();
  }
  expect(leftovers()).toEqual([]);
}, 60000);

test('the API answer becomes result as the provider makes it', () => {
  expect(
    resultFromApi({
      status: 'success',
      data: { resultType: 'vector', result: [{ value: [0, 'NaN'] }, { value: [0, '+Inf'] }] },
    }),
  ).toEqual({ ok: true, result: [NaN, Infinity] });
  expect(resultFromApi({ status: 'success', data: { resultType: 'string', result: [0, 'x'] } })).toEqual({
    ok: false,
    error: 'Prometheus metric type not supported',
  });
  expect(resultFromApi({ status: 'error', error: 'parse error' })).toEqual({ ok: false, error: 'parse error' });
});
