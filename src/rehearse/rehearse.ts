/**
 * A rehearsal: every release of the catalogue through a rollout's whole canary, each measurement
 * answered by an evaluator (the real Prometheus for `rollwise rehearse`, the in-process one at
 * synth), and each outcome judged against the release's expectation.
 */
import { runLoop, runLoopSync, type QueryAnswer, type QueryRequest, type Verdict } from './loop';
import type { RolloutModel } from './manifest';
import { PrometheusHarness, toOpenMetrics, freePort, type PrometheusBinaries } from './prometheus';
import { evaluateInstant } from './promql';
import { RELEASES, type Release } from './releases';
import { buildWorld, type World, type WorldOptions } from './world';

export interface ReleaseResult {
  readonly release: Release;
  readonly world: World;
  readonly verdict: Verdict;
  /** Did the release behave as its expectation says? */
  readonly met: boolean;
  /** One sentence: "promoted after 27 min", "aborted at 5 % after 4 min: ...". */
  readonly sentence: string;
}

export interface Rehearsal {
  readonly rollout: RolloutModel;
  readonly results: ReleaseResult[];
  readonly ok: boolean;
}

export interface RehearseOptions extends WorldOptions {
  /** Release ids to replay (default: the whole catalogue). */
  readonly releases?: readonly string[];
  readonly binaries?: PrometheusBinaries;
}

/** The first setWeight above 0. */
export function firstWeight(model: RolloutModel): number {
  for (const s of model.steps) if (s.kind === 'setWeight' && s.weight > 0) return s.weight;
  return 100;
}

const minutes = (s: number) => (s < 120 ? `${Math.round(s)} s` : `${Math.round(s / 60)} min`);

function lastValue(v: Verdict): string | undefined {
  const m = [...v.measurements].reverse().find((x) => x.metric === v.metric);
  return m?.value;
}

/** The rehearsal's sentence for one verdict. */
export function sentence(v: Verdict, manualPromotions = 0): string {
  if (v.outcome === 'promoted')
    return (
      'promoted ' +
      `after ${minutes(v.t)}${
        manualPromotions > 0 ? ` (${manualPromotions} pause(s) without duration promoted by a ` + 'human)' : ''
      }`
    );
  const value = lastValue(v);
  const shown = value === '[]' ? ' (last result [] : no series)' : value !== undefined ? ` (last result ${value})` : '';
  const why = v.metric ? `${v.reason}${shown}` : v.reason;
  if (v.outcome === 'aborted')
    return `aborted at ${v.weight} % ` + `after ${minutes(v.t)}: ${v.metricPhase === 'Error' ? 'Error, ' : ''}${why}`;
  if (v.outcome === 'paused')
    return `paused at ${v.weight} % ` + `after ${minutes(v.t)}: ${v.metric ? 'Inconclusive, ' : ''}${why}`;
  return why;
}

/**
 * Does a human decide at the first weight (a pause without duration right after it)? Then that
 * person, not the analysis, is the first weight's gate (e.g. a low-traffic service promoted by hand
 * with a reason), and a bad release must be stopped before full promotion rather than at 5 %.
 */
export function humanAtFirstWeight(model: RolloutModel): boolean {
  const i = model.steps.findIndex((s) => s.kind === 'setWeight' && s.weight > 0);
  for (let k = i + 1; k >= 1 && k < model.steps.length; k++) {
    const s = model.steps[k];
    if (s.kind === 'setWeight') return false;
    if (s.kind === 'pause' && s.seconds === null) return true;
  }
  return false;
}

export function meets(model: RolloutModel, release: Release, v: Verdict): boolean {
  const first = firstWeight(model);
  switch (release.expect) {
    case 'promoted':
      return v.outcome === 'promoted';
    case 'aborted':
      return v.outcome === 'aborted';
    case 'aborted-at-first-weight':
      return v.outcome === 'aborted' && (v.weight === first || humanAtFirstWeight(model));
    case 'paused-at-first-weight':
      return v.outcome === 'paused' && v.weight === first;
    case 'not-promoted':
      return v.outcome === 'aborted' || v.outcome === 'paused';
    case 'not-aborted':
      return v.outcome === 'promoted' || v.outcome === 'paused';
  }
}

function pick(opts: RehearseOptions): Release[] {
  if (!opts.releases || opts.releases.length === 0) return [...RELEASES];
  return opts.releases.map((id) => {
    const r = RELEASES.find((x) => x.id === id);
    if (!r) throw new Error(`unknown release ${id}: choose from ${RELEASES.map((x) => x.id).join(', ')}`);
    return r;
  });
}

function judge(model: RolloutModel, release: Release, world: World, verdict: Verdict): ReleaseResult {
  return {
    release,
    world,
    verdict,
    met: meets(model, release, verdict),
    sentence: sentence(verdict, world.manualPromotions),
  };
}

/** Hours between two releases' series in the shared TSDB: far beyond the 5 m lookback and any window. */
export const SLOT_SECONDS = 8 * 3600;

/** Rehearse on the real Prometheus engine: one backfilled server for every rollout and release. */
export async function rehearseOnPrometheus(models: RolloutModel[], opts: RehearseOptions = {}): Promise<Rehearsal[]> {
  const releases = pick(opts);
  const plans = models.map((model) =>
    releases.map((release) => ({ model, release, world: buildWorld(model, release, opts) })),
  );
  const flat = plans.flat();
  const harness = new PrometheusHarness(opts.binaries);
  await harness.start(toOpenMetrics(flat.map((p, k) => ({ offsetSeconds: k * SLOT_SECONDS, series: p.world.series }))));
  try {
    const closedPort = await freePort();
    const out: Rehearsal[] = [];
    let k = 0;
    for (const group of plans) {
      const results: ReleaseResult[] = [];
      for (const p of group) {
        const offset = k++ * SLOT_SECONDS;
        const ask = (q: QueryRequest): Promise<QueryAnswer> =>
          harness.query(q.query, offset + q.t, p.release.prometheusUnreachable ? closedPort : undefined);
        const verdict = await runLoop(p.world, p.model, ask);
        results.push(judge(p.model, p.release, p.world, verdict));
      }
      out.push({ rollout: group[0].model, results, ok: results.every((r) => r.met) });
    }
    return out;
  } finally {
    await harness.stop();
  }
}

/** Rehearse with the in-process PromQL evaluator (synth: no Prometheus binary needed). */
export function rehearseInProcess(model: RolloutModel, opts: RehearseOptions = {}): Rehearsal {
  const results = pick(opts).map((release) => {
    const world = buildWorld(model, release, opts);
    const verdict = runLoopSync(world, model, (q) =>
      release.prometheusUnreachable
        ? { ok: false, error: 'connection refused' }
        : evaluateInstant(q.query, world.series, q.t),
    );
    return judge(model, release, world, verdict);
  });
  return { rollout: model, results, ok: results.every((r) => r.met) };
}
