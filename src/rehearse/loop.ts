/**
 * Argo Rollouts' analysis loop (analysis/analysis.go v1.9.1), replayed over a world:
 * - a metric's first measurement comes initialDelay after the run started, the next ones
 *   `interval` after the previous one finished, or DefaultErrorRetryInterval (10 s) after an
 *   Error (generateMetricTasks); it stops at `count` (EffectiveCount: 1 without interval);
 * - a metric is Failed when failed > failureLimit, Inconclusive when inconclusive >
 *   inconclusiveLimit, Error when consecutiveErrors > consecutiveErrorLimit
 *   (assessMetricFailureInconclusiveOrError); errors never count as failures;
 * - once one metric is Failed, Error or Inconclusive the run is terminating
 *   (utils/analysis/helpers.go IsTerminating) and ends as the worst phase (Failed > Error >
 *   Inconclusive > Successful, analysisStatusOrder); a Failed or Error run aborts the rollout, an
 *   Inconclusive one pauses it (PauseReasonInconclusiveAnalysis);
 * - the background run measures until full promotion, when it is terminated (Successful unless a
 *   metric already ended it); an inline gate blocks its step until every metric reached its count.
 *
 * The loop is a generator: it yields each query with its evaluation time and receives the answer,
 * so the same loop runs on the real Prometheus (async) and on the in-process evaluator (sync).
 */
import { assessResult, type Phase, type Result } from './condition';
import type { MetricSpec, RunSpec } from './manifest';
import type { World } from './world';

/** analysis/analysis.go v1.9.1: DefaultErrorRetryInterval = 10 * time.Second. */
export const ERROR_RETRY_SECONDS = 10;

export interface QueryRequest {
  readonly query: string;
  /** Seconds since the rollout started. */
  readonly t: number;
}

export type QueryAnswer =
  { readonly ok: true; readonly result: Result } | { readonly ok: false; readonly error: string };

export interface Measurement {
  readonly run: string;
  readonly metric: string;
  readonly t: number;
  readonly phase: Phase;
  /** As the provider records it: `[v1,v2]` for a vector, the number for a scalar. */
  readonly value?: string;
  readonly message?: string;
}

export type Outcome = 'promoted' | 'aborted' | 'paused' | 'running';

export interface Verdict {
  readonly outcome: Outcome;
  /** When the rollout was promoted, aborted or paused (seconds since it started). */
  readonly t: number;
  /** The step's weight when it stopped (the last setWeight reached or being reached). */
  readonly weight: number;
  /** The run and metric that stopped it, with the upstream message. */
  readonly run?: string;
  readonly metric?: string;
  readonly metricPhase?: Phase;
  readonly reason: string;
  readonly measurements: Measurement[];
}

interface MetricState {
  readonly spec: MetricSpec;
  count: number;
  failed: number;
  inconclusive: number;
  consecutiveError: number;
  consecutiveSuccess: number;
  last?: { t: number; phase: Phase };
  phase?: Phase;
  message?: string;
}

interface RunState {
  readonly label: string;
  readonly kind: RunSpec['kind'];
  readonly start: number;
  readonly end: number;
  readonly metrics: MetricState[];
  done: boolean;
}

function nextAt(run: RunState, m: MetricState): number {
  if (m.phase) return Infinity;
  const count = m.spec.count;
  if (!m.last) return run.start + m.spec.initialDelaySeconds;
  if (count !== undefined && m.count >= count) return Infinity;
  const interval = m.last.phase === 'Error' ? ERROR_RETRY_SECONDS : (m.spec.intervalSeconds ?? ERROR_RETRY_SECONDS);
  return m.last.t + interval;
}

/** assessMetricStatus for one metric after a measurement (analysis/analysis.go v1.9.1). */
function assessMetric(m: MetricState): void {
  const s = m.spec;
  if (s.failureLimit >= 0 && m.failed > s.failureLimit) {
    m.phase = 'Failed';
    m.message = `failed (${m.failed}) > failureLimit (${s.failureLimit})`;
  }
  if (m.inconclusive > s.inconclusiveLimit) {
    m.phase = 'Inconclusive';
    m.message = `inconclusive (${m.inconclusive}) > inconclusiveLimit (${s.inconclusiveLimit})`;
  }
  if (m.consecutiveError > s.consecutiveErrorLimit) {
    m.phase = 'Error';
    m.message = `consecutiveErrors (${m.consecutiveError}) > consecutiveErrorLimit (${s.consecutiveErrorLimit})`;
  }
  if (m.phase) return;
  const csl = s.consecutiveSuccessLimit ?? 0;
  if (csl > 0 && m.consecutiveSuccess >= csl) {
    m.phase = 'Successful';
    return;
  }
  if (s.count !== undefined && m.count >= s.count) {
    // Count reached without the consecutive-success target: Inconclusive when a failureLimit also
    // applies, Failed otherwise; plain Successful without a consecutiveSuccessLimit.
    if (csl > 0) {
      m.phase = s.failureLimit >= 0 ? 'Inconclusive' : 'Failed';
      m.message = `consecutiveSuccessLimit (${csl}) not reached`;
    } else m.phase = 'Successful';
  }
}

const ORDER: Phase[] = ['Successful', 'Inconclusive', 'Error', 'Failed'];

function formatValue(r: Result): string {
  const f = (v: number) =>
    Number.isNaN(v) ? 'NaN' : v === Infinity ? '+Inf' : v === -Infinity ? '-Inf' : String(Number(v.toPrecision(6)));
  return Array.isArray(r) ? `[${r.map(f).join(',')}]` : f(r);
}

/** The weight a rollout is "at" in step terms: the last setWeight at or before the step index. */
export function stepWeight(
  world: World,
  model: { steps: ReadonlyArray<{ kind: string; weight?: number }> },
  t: number,
): number {
  const i = world.stepIndex[Math.max(0, Math.min(Math.floor(t), world.stepIndex.length - 1))];
  for (let k = Math.min(i, model.steps.length - 1); k >= 0; k--) {
    const s = model.steps[k];
    if (s.kind === 'setWeight' && s.weight !== undefined) return s.weight;
  }
  return i >= model.steps.length ? 100 : 0;
}

/** Replay every analysis run of the world; yields queries, returns the rollout's verdict. */
export function* analysisLoop(
  world: World,
  model: { steps: ReadonlyArray<{ kind: string; weight?: number }>; background?: RunSpec },
): Generator<QueryRequest, Verdict, QueryAnswer> {
  const end = world.promotedAt ?? world.stuck?.t ?? world.durationSeconds;
  const mk = (spec: RunSpec, label: string, start: number, stop: number): RunState => ({
    label,
    kind: spec.kind,
    start,
    end: stop,
    done: false,
    metrics: spec.metrics.map((m) => ({
      spec: m,
      count: 0,
      failed: 0,
      inconclusive: 0,
      consecutiveError: 0,
      consecutiveSuccess: 0,
    })),
  });
  const runs: RunState[] = [];
  if (model.background && world.backgroundStart !== undefined)
    runs.push(mk(model.background, 'background', world.backgroundStart, end));
  for (const g of world.gates) runs.push(mk(g.run, `gate (step ${g.stepIndex})`, g.start, end));
  const measurements: Measurement[] = [];

  for (;;) {
    let t = Infinity;
    for (const r of runs) {
      if (r.done) continue;
      for (const m of r.metrics) t = Math.min(t, nextAt(r, m));
    }
    if (t === Infinity || t >= end) break;
    for (const r of runs) {
      if (r.done || r.start > t) continue;
      const due = r.metrics.filter((m) => nextAt(r, m) === t);
      if (due.length === 0) continue;
      for (const m of due) {
        const answer: QueryAnswer = yield { query: m.spec.query, t };
        let phase: Phase;
        let message: string | undefined;
        let value: string | undefined;
        if (!answer.ok) {
          phase = 'Error';
          message = answer.error;
        } else {
          value = formatValue(answer.result);
          const a = assessResult(answer.result, m.spec.successCondition, m.spec.failureCondition);
          phase = a.phase;
          message = a.message;
        }
        measurements.push({ run: r.label, metric: m.spec.name, t, phase, value, message });
        m.last = { t, phase };
        if (phase === 'Error') {
          m.consecutiveError++;
          m.consecutiveSuccess = 0;
        } else {
          m.count++;
          m.consecutiveError = 0;
          if (phase === 'Successful') m.consecutiveSuccess++;
          else m.consecutiveSuccess = 0;
          if (phase === 'Failed') m.failed++;
          if (phase === 'Inconclusive') m.inconclusive++;
        }
        assessMetric(m);
      }
      // IsTerminating: one metric Failed, Error or Inconclusive ends the run as the worst phase.
      const live = r.metrics.filter((m) => !m.spec.dryRun);
      const stopping = live.filter((m) => m.phase && m.phase !== 'Successful');
      if (stopping.length > 0) {
        const worst = stopping.reduce((a, b) =>
          ORDER.indexOf(b.phase as Phase) > ORDER.indexOf(a.phase as Phase) ? b : a,
        );
        const phase = worst.phase as Phase;
        const outcome: Outcome = phase === 'Inconclusive' ? 'paused' : 'aborted';
        const of = worst.spec;
        const tally =
          phase === 'Failed'
            ? `failed ${worst.failed} of ${worst.count}`
            : phase === 'Inconclusive'
              ? `inconclusive ${worst.inconclusive} ` + `of ${worst.count}`
              : `${worst.consecutiveError} errors in a row`;
        const lastMsg = [...measurements].reverse().find((x) => x.metric === of.name && x.message)?.message;
        return {
          outcome,
          t,
          weight: stepWeight(world, model, t),
          run: r.label,
          metric: of.name,
          metricPhase: phase,
          reason:
            `${of.name} ${phase === 'Error' ? 'errored' : phase.toLowerCase()} ` +
            `(${tally}; ${worst.message})${phase === 'Error' && lastMsg ? `: ${lastMsg}` : ''}`,
          measurements,
        };
      }
      if (r.kind === 'gate' && live.every((m) => m.phase === 'Successful')) r.done = true;
    }
  }
  if (world.promotedAt !== undefined) {
    return { outcome: 'promoted', t: world.promotedAt, weight: 100, reason: 'every analysis passed', measurements };
  }
  if (world.stuck) {
    return {
      outcome: world.stuck.outcome,
      t: world.stuck.t,
      weight: stepWeight(world, model, world.stuck.t),
      reason: world.stuck.why,
      measurements,
    };
  }
  return {
    outcome: 'running',
    t: world.durationSeconds,
    weight: stepWeight(world, model, world.durationSeconds),
    reason: `still running after ${Math.round(world.durationSeconds / 60)} min`,
    measurements,
  };
}

/** Drive the loop with a synchronous evaluator. */
export function runLoopSync(
  world: World,
  model: Parameters<typeof analysisLoop>[1],
  answer: (q: QueryRequest) => QueryAnswer,
): Verdict {
  const gen = analysisLoop(world, model);
  let step = gen.next(undefined as unknown as QueryAnswer);
  while (!step.done) step = gen.next(answer(step.value));
  return step.value;
}

/** Drive the loop with an asynchronous evaluator (the real Prometheus). */
export async function runLoop(
  world: World,
  model: Parameters<typeof analysisLoop>[1],
  answer: (q: QueryRequest) => Promise<QueryAnswer>,
): Promise<Verdict> {
  const gen = analysisLoop(world, model);
  let step = gen.next(undefined as unknown as QueryAnswer);
  while (!step.done) step = gen.next(await answer(step.value));
  return step.value;
}
