/**
 * The example service rehearsed on the real Prometheus engine (/usr/bin/promtool and
 * /usr/bin/prometheus, installed by .ci/run): today's output promotes a healthy release and stops
 * the bad ones at 5 %; the output of the previous version (test/rehearse/fixtures, the templates
 * whose error ratios had no sample for a healthy canary and whose readiness metric counted pods
 * still starting) pauses at 5 % and aborts at 25 %.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { main } from '../../src/cli/main';
import { readRollouts, rehearseOnPrometheus, type Rehearsal, type ReleaseResult } from '../../src/rehearse';

const ROOT = path.join(__dirname, '..', '..');
const CURRENT = path.join(ROOT, 'dist', 'prod', 'checkout-api.k8s.yaml');
const PREVIOUS = path.join(__dirname, 'fixtures', 'checkout-api.v0.1.0.k8s.yaml');
const read = (f: string) => ({ file: f, text: fs.readFileSync(f, 'utf8') });

let current: Rehearsal;
let previous: Rehearsal;
const byId = (r: Rehearsal, id: string): ReleaseResult => {
  const x = r.results.find((y) => y.release.id === id);
  if (!x) throw new Error(`no release ${id}`);
  return x;
};

beforeAll(async () => {
  // One server for both outputs: every release has its own time slot in the backfilled TSDB.
  [current, previous] = await rehearseOnPrometheus([
    ...readRollouts([read(CURRENT)]),
    ...readRollouts([read(PREVIOUS)]),
  ]);
}, 120000);

describe('the example service (dist/prod/checkout-api.k8s.yaml)', () => {
  test('healthy promotes', () => {
    const r = byId(current, 'healthy');
    expect(r.verdict.outcome).toBe('promoted');
    expect(r.sentence).toMatch(/^promoted after \d+ min$/);
    // It really went through the background analysis and the gate: measurements at every step.
    expect(r.verdict.measurements.filter((m) => m.run === 'background').length).toBeGreaterThan(20 * 4);
    expect(r.verdict.measurements.filter((m) => m.run.startsWith('gate')).length).toBe(5 * 4);
    expect(r.verdict.measurements.every((m) => m.phase === 'Successful')).toBe(true);
    // The canary cluster had no 5xx series at all: the ratio came out 0 from a defaulted numerator.
    expect(r.world.series.some((s) => s.labels.envoy_response_code_class === '5')).toBe(false);
    expect(
      r.verdict.measurements.filter((m) => m.metric === 'canary-error-ratio').every((m) => m.value === '[0]'),
    ).toBe(true);
  });

  test('10 % canary errors abort at 5 % on the canary error ratio', () => {
    const r = byId(current, 'canary-5xx-10');
    expect(r.verdict.outcome).toBe('aborted');
    expect(r.verdict.weight).toBe(5);
    expect(r.verdict.metric).toBe('canary-error-ratio');
    expect(r.sentence).toMatch(
      /^aborted at 5 % after \d+ min: canary-error-ratio failed \(failed 4 of 4; failed \(4\) > failureLimit \(3\)\)/,
    );
    // initialDelay 2m then one a minute: the fourth failed measurement ends it, 3 min after the first
    // (a 1-minute blip can fail at most 3: docs/mechanisms.md#one-burst-and-the-limits).
    const failed = r.verdict.measurements.filter((m) => m.metric === 'canary-error-ratio');
    expect(failed.map((m) => m.phase)).toEqual(['Failed', 'Failed', 'Failed', 'Failed']);
    expect(failed[0].t - (r.world.backgroundStart ?? 0)).toBe(120);
    expect(failed[3].t - failed[0].t).toBe(180);
  });

  test('a flapping canary aborts at 5 % on readiness departures', () => {
    const r = byId(current, 'canary-flaps');
    expect(r.verdict.outcome).toBe('aborted');
    expect(r.verdict.weight).toBe(5);
    expect(r.verdict.metric).toMatch(/readiness|ready/);
  });

  test('no traffic pauses at 5 % (Inconclusive), never promotes or aborts', () => {
    const r = byId(current, 'no-traffic');
    expect(r.verdict.outcome).toBe('paused');
    expect(r.verdict.weight).toBe(5);
    expect(r.sentence).toMatch(/^paused at 5 % after \d+ min: Inconclusive, /);
  });

  test('every release of the catalogue behaves as expected', () => {
    expect(current.results.filter((r) => !r.met).map((r) => `${r.release.id}: ${r.sentence}`)).toEqual([]);
    for (const id of ['canary-5xx-2', 'canary-5xx-100'])
      expect(byId(current, id).verdict).toMatchObject({ outcome: 'aborted', weight: 5 });
    expect(byId(current, 'prometheus-unreachable').verdict).toMatchObject({ outcome: 'aborted', metricPhase: 'Error' });
    expect(byId(current, 'prometheus-unreachable').sentence).toMatch(
      /consecutiveErrors \(3\) > consecutiveErrorLimit \(2\).*ECONNREFUSED/,
    );
  });
});

describe("the previous version's output (fixture)", () => {
  test('a healthy release pauses at 5 %: the error ratios have no sample without a 5xx series', () => {
    const r = byId(previous, 'healthy');
    expect(r.verdict).toMatchObject({ outcome: 'paused', weight: 5, metricPhase: 'Inconclusive' });
    expect(r.sentence).toContain('(last result [] : no series)');
    expect(r.met).toBe(false);
  });

  test('a release with some 5xx (so the series exists) aborts at 25 %: new pods counted as not Ready', () => {
    const r = byId(previous, 'canary-5xx-0.5');
    expect(r.verdict).toMatchObject({
      outcome: 'aborted',
      weight: 25,
      metric: 'canary-not-ready-pods',
      metricPhase: 'Failed',
    });
    // The failures come right after the 1 -> 3 canary pods scale-up, while the two new pods start.
    const scaleUp = r.world.events.find((e) => e.text === 'canary scaled to 3 pod(s)');
    const fails = r.verdict.measurements.filter((m) => m.metric === 'canary-not-ready-pods' && m.phase === 'Failed');
    expect(scaleUp).toBeDefined();
    expect(fails.length).toBe(2);
    expect(fails[0].t).toBeGreaterThan(scaleUp?.t ?? Infinity);
    expect(fails[1].t - (scaleUp?.t ?? 0)).toBeLessThanOrEqual(180);
  });
});

describe('rollwise rehearse (CLI)', () => {
  const run = async (...args: string[]) => {
    let out = '';
    let err = '';
    const code = await main(
      ['node', 'rollwise', 'rehearse', ...args],
      (t) => (out += t),
      (t) => (err += t),
    );
    return { code, out, err };
  };

  test("exit 0 on today's output, with the timeline; 1 on the previous version's", async () => {
    const now = await run(CURRENT, '--release', 'healthy', '--release', 'canary-5xx-10');
    expect(now.code).toBe(0);
    expect(now.out).toContain('checkout/checkout-api: 2 of 2 releases behaved as expected');
    expect(now.out).toMatch(/ok {3}healthy +promoted after/);
    expect(now.out).toMatch(/route weight +\|_?▁+/);
    const before = await run(PREVIOUS, '--release', 'healthy');
    expect(before.code).toBe(1);
    expect(before.out).toMatch(/FAIL healthy +paused at 5 %/);
    expect(before.out).toContain('expected promoted');
  }, 60000);

  test('--json and --svg', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-cli-'));
    try {
      const svg = path.join(tmp, 't.svg');
      const r = await run(CURRENT, '--release', 'no-traffic', '--json', '--svg', svg);
      expect(r.code).toBe(0);
      const js = JSON.parse(r.out) as Array<{
        releases: Array<{ id: string; outcome: string; atWeight: number; measurements: unknown[] }>;
      }>;
      expect(js[0].releases[0]).toMatchObject({ id: 'no-traffic', outcome: 'paused', atWeight: 5 });
      expect(js[0].releases[0].measurements.length).toBeGreaterThan(0);
      expect(fs.readFileSync(svg, 'utf8')).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"[\s\S]*no-traffic/);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }, 60000);

  test('exit 2 for unusable input, naming it', async () => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rehearse-bad-'));
    try {
      const noRollout = path.join(tmp, 'svc.yaml');
      fs.writeFileSync(noRollout, 'apiVersion: v1\nkind: Service\nmetadata: {name: x}\n');
      const a = await run(noRollout);
      expect(a.code).toBe(2);
      expect(a.err).toContain('holds no argoproj.io Rollout with a canary strategy');
      const text = fs.readFileSync(CURRENT, 'utf8').replace(/prometheus:\n(\s+)address:/, 'web:\n$1url:');
      const otherProvider = path.join(tmp, 'web.yaml');
      fs.writeFileSync(otherProvider, text);
      const b = await run(otherProvider);
      expect(b.code).toBe(2);
      expect(b.err).toMatch(/spec\.metrics\[0\]\.provider = web: is not the Prometheus provider/);
      expect((await run(path.join(tmp, 'missing.yaml'))).code).toBe(2);
      expect((await run(CURRENT, '--release', 'nope')).code).toBe(2);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  });
});
