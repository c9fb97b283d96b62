/**
 * The analysis loop against Argo Rollouts' semantics (analysis/analysis.go, utils/evaluate,
 * utils/analysis/helpers.go at v1.9.1), with scripted answers instead of Prometheus.
 */
import {
  assessResult,
  evalCondition,
  runLoopSync,
  type RehearsalMetric as MetricSpec,
  type QueryAnswer,
  type RunSpec,
  type World,
} from '../../src/rehearse';
import { RELEASES } from '../../src/rehearse/releases';

const metric = (over: Partial<MetricSpec> = {}): MetricSpec => ({
  name: 'm',
  query: 'q',
  successCondition: 'len(result) > 0 && !isNaN(result[0]) && result[0] < 0.01',
  failureCondition: 'len(result) > 0 && !isNaN(result[0]) && result[0] >= 0.01',
  initialDelaySeconds: 120,
  intervalSeconds: 60,
  failureLimit: 1,
  inconclusiveLimit: 1,
  consecutiveErrorLimit: 2,
  dryRun: false,
  ...over,
});

function world(over: Partial<World> = {}): World {
  const n = 3600;
  return {
    release: RELEASES[0],
    rps: 100,
    durationSeconds: n,
    scrapeSeconds: 30,
    weight: new Array<number>(n + 1).fill(5),
    canaryPods: [],
    canaryReady: [],
    canaryAvailable: [],
    stepIndex: new Array<number>(n + 1).fill(1),
    series: [],
    events: [],
    backgroundStart: 100,
    gates: [],
    manualPromotions: 0,
    ...over,
  };
}
const steps = [{ kind: 'setWeight', weight: 5 }, { kind: 'pause' }];
const bg = (...metrics: MetricSpec[]): RunSpec => ({ kind: 'background', templates: ['t'], metrics });
const ok = (v: number): QueryAnswer => ({ ok: true, result: [v] });

describe('measurement timing', () => {
  test('first at initialDelay after the run starts, then one per interval', () => {
    const v = runLoopSync(world({ promotedAt: 400 }), { steps, background: bg(metric()) }, () => ok(0));
    expect(v.outcome).toBe('promoted');
    expect(v.measurements.map((m) => m.t)).toEqual([220, 280, 340]);
  });

  test('an Error is retried after 10 s; consecutiveErrorLimit 2 ends the run on the third error', () => {
    const v = runLoopSync(world(), { steps, background: bg(metric()) }, () => ({
      ok: false,
      error: 'connection refused',
    }));
    expect(v.measurements.map((m) => m.t)).toEqual([220, 230, 240]);
    expect(v).toMatchObject({ outcome: 'aborted', metricPhase: 'Error', t: 240 });
    expect(v.reason).toContain('consecutiveErrors (3) > consecutiveErrorLimit (2)');
  });

  test('the default consecutiveErrorLimit 4 ends it on the fifth, 40 s after the first', () => {
    const v = runLoopSync(world(), { steps, background: bg(metric({ consecutiveErrorLimit: 4 })) }, () => ({
      ok: false,
      error: 'x',
    }));
    expect(v.measurements.length).toBe(5);
    expect(v.t - v.measurements[0].t).toBe(40);
  });

  test('errors never count as failures: error, success, error, success... runs on until promotion', () => {
    let i = 0;
    const v = runLoopSync(world({ promotedAt: 1000 }), { steps, background: bg(metric()) }, () =>
      i++ % 2 === 0 ? { ok: false, error: 'x' } : ok(0),
    );
    expect(v.outcome).toBe('promoted');
    expect(v.measurements.filter((m) => m.phase === 'Error').length).toBeGreaterThan(5);
  });
});

describe('limits compare with ">"', () => {
  test('failureLimit 1: the first failure is tolerated, the second aborts', () => {
    const v = runLoopSync(world(), { steps, background: bg(metric()) }, () => ok(0.5));
    expect(v.measurements.map((m) => m.phase)).toEqual(['Failed', 'Failed']);
    expect(v).toMatchObject({ outcome: 'aborted', weight: 5, metric: 'm' });
    expect(v.reason).toContain('failed (2) > failureLimit (1)');
  });

  test('failureLimit 0 aborts on the first failure; inconclusiveLimit 1 pauses on the second no-data', () => {
    expect(
      runLoopSync(world(), { steps, background: bg(metric({ failureLimit: 0 })) }, () => ok(0.5)).measurements.length,
    ).toBe(1);
    const p = runLoopSync(world(), { steps, background: bg(metric()) }, () => ({ ok: true, result: [] }));
    expect(p).toMatchObject({ outcome: 'paused', metricPhase: 'Inconclusive' });
    expect(p.measurements.length).toBe(2);
  });

  test('when two metrics end in one reconcile the worst wins: Failed over Inconclusive', () => {
    const v = runLoopSync(
      world(),
      { steps, background: bg(metric({ name: 'nodata', query: 'a' }), metric({ name: 'bad', query: 'b' })) },
      (q) => (q.query === 'a' ? { ok: true, result: [] } : ok(1)),
    );
    expect(v).toMatchObject({ outcome: 'aborted', metric: 'bad', metricPhase: 'Failed' });
  });

  test('dryRun metrics never stop the run', () => {
    const v = runLoopSync(world({ promotedAt: 600 }), { steps, background: bg(metric({ dryRun: true })) }, () => ok(1));
    expect(v.outcome).toBe('promoted');
  });
});

describe('background run and gate', () => {
  test('the background run is terminated at full promotion; no measurement after it', () => {
    const v = runLoopSync(world({ promotedAt: 1500 }), { steps, background: bg(metric()) }, () => ok(0));
    expect(v.outcome).toBe('promoted');
    expect(Math.max(...v.measurements.map((m) => m.t))).toBeLessThan(1500);
  });

  test('an inline gate measures count times from its start and then stops; a failing gate aborts', () => {
    const gate: RunSpec = {
      kind: 'gate',
      templates: ['g'],
      metrics: [metric({ name: 'g', initialDelaySeconds: 0, count: 5 })],
    };
    const w = world({
      backgroundStart: undefined,
      gates: [{ stepIndex: 4, start: 1000, run: gate }],
      promotedAt: 2000,
    });
    const good = runLoopSync(w, { steps }, () => ok(0));
    expect(good.measurements.map((m) => m.t)).toEqual([1000, 1060, 1120, 1180, 1240]);
    const bad = runLoopSync(w, { steps }, () => ok(1));
    expect(bad).toMatchObject({ outcome: 'aborted', run: 'gate (step 4)', t: 1060 });
  });
});

describe('conditions (utils/evaluate/evaluate.go v1.9.1)', () => {
  test('result[0] on an empty result is an Error, guarded conditions make it Inconclusive', () => {
    expect(assessResult([], 'result[0] < 0.01')).toMatchObject({
      phase: 'Error',
      message: 'reflect: slice index out of range',
    });
    expect(assessResult([], 'len(result) > 0 && result[0] < 0.01', 'len(result) > 0 && result[0] >= 0.01').phase).toBe(
      'Inconclusive',
    );
  });

  test('NaN fails an unguarded success-only condition; only a failure condition makes the rest a success', () => {
    expect(assessResult([NaN], 'result[0] < 0.01').phase).toBe('Failed');
    expect(assessResult([NaN], undefined, 'result[0] >= 0.01').phase).toBe('Successful');
    expect(assessResult([NaN]).phase).toBe('Successful');
    expect(assessResult([0], 'len(result) > 0 && !isNaN(result[0]) && result[0] == 0', 'false').phase).toBe(
      'Successful',
    );
  });

  test('scalars, all/any predicates, precedence', () => {
    expect(evalCondition('result < 0.5', 0.2)).toBe(true);
    expect(evalCondition('all(result, {# < 1})', [0.1, 0.2])).toBe(true);
    expect(evalCondition('any(result, {# > 1})', [0.1, 2])).toBe(true);
    expect(evalCondition('1 + 2 * 3 == 7 && !false || false', [])).toBe(true);
    expect(evalCondition('isNaN(result[0]) or result[0] > 1', [NaN])).toBe(true);
  });
});
