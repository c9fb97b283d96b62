import { measurementPhase } from '../../checks/analysis-condition';
import { arr, int, rec, scaleIntOrPercent, str } from '../../rules/k8s';
import { timing } from './containers';
import { appContainer, ofKind, podSpecOf, short, v, workloadOf } from './preamble';
import { Invariant, Violation } from './types';

/**
 * The progressive-delivery invariants: analysis guarded and able to fail (INV10), wired into the Rollout
 * (INV11), the Rollout's safety settings (INV15).
 * Split from src/invariants/invariants.ts (issue 26), which keeps the list and its order.
 */

export const INV10: Invariant = {
  id: 'INV10-analysis-guarded-and-can-fail',
  title: 'Every analysis metric is Inconclusive on no data and on NaN, and every template has a metric that can fail',
  why:
    'A condition that passes on an empty result or NaN promotes a release nobody measured; a template that ' +
    'cannot fail never aborts (docs/mechanisms.md#canary-analysis).',
  overridable: false,
  check(set) {
    const out: Violation[] = [];
    for (const t of ofKind(set, 'AnalysisTemplate')) {
      const metrics = arr(rec(t.spec)?.metrics);
      if (metrics.length === 0) out.push(v(set, t, 'spec.metrics', 'the template has no metrics'));
      let canFail = false;
      metrics.forEach((m, i) => {
        const mr = rec(m) ?? {};
        const s = str(mr.successCondition);
        const f = str(mr.failureCondition);
        const phases = conditionPhases(s, f);
        for (const [label, phase] of [
          ['no data ([])', phases.empty],
          ['NaN', phases.nan],
        ] as const) {
          if (phase === 'Successful' || phase === 'Failed')
            out.push(
              v(
                set,
                t,
                `spec.metrics[${i}].successCondition`,
                `metric ${short(mr.name)} is ${phase} on ${label}, not Inconclusive`,
              ),
            );
        }
        if (phases.canFail) canFail = true;
        if (!rec(mr.provider))
          out.push(v(set, t, `spec.metrics[${i}].provider`, `metric ${short(mr.name)} has no provider`));
      });
      if (metrics.length > 0 && !canFail)
        out.push(
          v(
            set,
            t,
            'spec.metrics',
            'no metric can fail for any measured value, so the analysis never aborts a release',
          ),
        );
    }
    return out;
  },
};

export const INV11: Invariant = {
  id: 'INV11-rollout-analysis-wired',
  title:
    'A canary Rollout runs its background analysis and an analysis gate step, uses traffic routing and has a ' +
    'stable and a canary Service',
  why:
    'Without the analysis a canary is promoted by the clock alone; without traffic routing the weights are ' +
    'replica ratios the analysis does not measure (docs/mechanisms.md#canary-analysis).',
  overridable: false,
  check(set) {
    const out: Violation[] = [];
    for (const r of ofKind(set, 'Rollout')) {
      const canary = rec(rec(rec(r.spec)?.strategy)?.canary);
      if (!canary) {
        out.push(v(set, r, 'spec.strategy.canary', 'the Rollout has no canary strategy'));
        continue;
      }
      if (arr(rec(canary.analysis)?.templates).length === 0)
        out.push(v(set, r, 'spec.strategy.canary.analysis', 'no background analysis runs during the canary'));
      if (!arr(canary.steps).some((s) => rec(s)?.analysis !== undefined))
        out.push(
          v(set, r, 'spec.strategy.canary.steps', 'no analysis gate step: the canary is promoted by the clock alone'),
        );
      if (!rec(canary.trafficRouting))
        out.push(v(set, r, 'spec.strategy.canary.trafficRouting', 'no traffic routing: weights are replica ratios'));
      if (!str(canary.stableService) || !str(canary.canaryService))
        out.push(v(set, r, 'spec.strategy.canary.stableService', 'the stable or canary Service is not named'));
    }
    return out;
  },
};

export const INV15: Invariant = {
  id: 'INV15-rollout-safety',
  title:
    'Rollouts remove no old pod before its replacement is available (maxUnavailable 0), wait minReadySeconds ' +
    '>= the readiness leave window, and have a progress deadline above it',
  why:
    'With maxUnavailable above 0 or a short minReadySeconds a rollout completes while new pods flap ' +
    '(docs/mechanisms.md#rollout-complete).',
  overridable: false,
  check(set) {
    const w = workloadOf(set);
    if (!w) return [];
    const out: Violation[] = [];
    const spec = rec(w.spec) ?? {};
    const strategy = rec(spec.strategy) ?? {};
    const [base, block] =
      w.kind === 'Rollout'
        ? ['spec.strategy.canary', rec(strategy.canary)]
        : ['spec.strategy.rollingUpdate', rec(strategy.rollingUpdate)];
    if (w.kind === 'Deployment' && strategy.type !== undefined && strategy.type !== 'RollingUpdate') {
      out.push(v(set, w, 'spec.strategy.type', `strategy ${short(strategy.type)} takes every pod down at once`));
    }
    const replicas = int(spec.replicas) ?? 2;
    const mu = block?.maxUnavailable;
    if (mu === undefined || scaleIntOrPercent(mu, replicas, false) !== 0)
      out.push(v(set, w, `${base}.maxUnavailable`, `maxUnavailable ${short(mu)} is not 0 (absent means 25 %)`));
    const pod = podSpecOf(w);
    const ready = pod && rec(appContainer(pod).c?.readinessProbe);
    const leave = ready ? timing(ready).failure * timing(ready).period : 30;
    const mrs = int(spec.minReadySeconds) ?? 0;
    if (mrs < leave)
      out.push(
        v(
          set,
          w,
          'spec.minReadySeconds',
          `minReadySeconds ${short(spec.minReadySeconds)} is below the readiness leave window ${leave} s`,
        ),
      );
    const pds = int(spec.progressDeadlineSeconds) ?? 600;
    if (pds <= mrs)
      out.push(
        v(set, w, 'spec.progressDeadlineSeconds', `progressDeadlineSeconds ${pds} is not above minReadySeconds ${mrs}`),
      );
    return out;
  },
};

/** Measured values an analysis metric is tried against to see whether it can fail at all. */
const PROBE_RESULTS = [0, 0.001, 0.01, 0.02, 0.1, 0.5, 1, 10, 1000, 1e6, 1e9];

/**
 * A condition pair's phases on no data, NaN, and whether any probe value fails it. Every service's
 * templates carry the same few conditions, so results are memoised (parsing them is most of the
 * cost: about 2 ms per service unmemoised, measured); the memo is cleared past 1,000 pairs.
 */
const phaseMemo = new Map<string, { empty: string; nan: string; canFail: boolean }>();
function conditionPhases(
  success: string | undefined,
  failure: string | undefined,
): { empty: string; nan: string; canFail: boolean } {
  const key = `${success ?? '\u0000'}\u0001${failure ?? '\u0000'}`;
  let r = phaseMemo.get(key);
  if (!r) {
    if (phaseMemo.size >= 1000) phaseMemo.clear();
    r = {
      empty: measurementPhase([], success, failure),
      nan: measurementPhase([NaN], success, failure),
      canFail: PROBE_RESULTS.some((x) => measurementPhase([x], success, failure) === 'Failed'),
    };
    phaseMemo.set(key, r);
  }
  return r;
}
