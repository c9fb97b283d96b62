import { arr, containers, int, probeTiming, rec, replicasOf, scaleIntOrPercent, str } from './k8s';
import { RuleDefinition } from './rule';
import { LintObject } from './source';

/** The effective maxUnavailable of a workload's update, or undefined when it does not roll pods. */
function maxUnavailable(o: LintObject): { value: number; shown: string; path: string } | undefined {
  const spec = rec(o.obj.spec) ?? {};
  const replicas = replicasOf(o) ?? 1;
  switch (o.kind) {
    case 'Deployment': {
      const strategy = rec(spec.strategy);
      if (strategy?.type === 'Recreate') return undefined;
      const raw = rec(strategy?.rollingUpdate)?.maxUnavailable ?? '25%';
      const v = scaleIntOrPercent(raw, replicas, false);
      return v === undefined ? undefined : { value: v, shown: `${String(raw)}${v !== raw ? ` of ${replicas} = ${v}` : ''}`, path: 'spec.strategy.rollingUpdate.maxUnavailable' };
    }
    case 'Rollout': {
      const canary = rec(rec(spec.strategy)?.canary);
      if (!canary) return undefined;
      const raw = canary.maxUnavailable ?? '25%';
      const v = scaleIntOrPercent(raw, replicas, false);
      return v === undefined ? undefined : { value: v, shown: `${String(raw)}${v !== raw ? ` of ${replicas} = ${v}` : ''}`, path: 'spec.strategy.canary.maxUnavailable' };
    }
    case 'StatefulSet':
    case 'DaemonSet': {
      const us = rec(spec.updateStrategy);
      if (us?.type === 'OnDelete') return undefined;
      const raw = rec(us?.rollingUpdate)?.maxUnavailable ?? 1;
      // DaemonSet percentages round up (node count unknown here: any positive percentage is >= 1 node).
      const v = typeof raw === 'string' && raw.endsWith('%') ? (parseFloat(raw) > 0 ? 1 : 0) : int(raw);
      return v === undefined ? undefined : { value: v, shown: String(raw), path: 'spec.updateStrategy.rollingUpdate.maxUnavailable' };
    }
    default:
      return undefined;
  }
}

function hasAnalysis(canary: Record<string, unknown>): boolean {
  if (arr(rec(canary.analysis)?.templates).length > 0) return true;
  return arr(canary.steps).some((s) => {
    const step = rec(s);
    return arr(rec(step?.analysis)?.templates).length > 0 || arr(rec(step?.experiment)?.analyses).length > 0;
  });
}

export const ROLLOUT_RULES: readonly RuleDefinition[] = [
  {
    id: 'RW301-min-ready-below-leave-window',
    severity: 'warning',
    title: 'minReadySeconds shorter than the readiness leave window while maxUnavailable > 0',
    kinds: ['Deployment', 'StatefulSet', 'DaemonSet', 'Rollout'],
    mechanism: 'A pod counts as available after minReadySeconds Ready (default 0); shorter than the time readiness needs to notice a failure (failureThreshold x period), a flapping pod is counted and, with maxUnavailable > 0, the rollout "completes" while pods flap.',
    fieldNotes: 'docs/mechanisms.md#rollout-complete',
    fix: 'Set spec.minReadySeconds to at least failureThreshold x periodSeconds of the readiness probe (e.g. 30), and/or maxUnavailable 0 so a pod that never becomes available stalls the rollout.',
    facts: [],
    check(o, ctx) {
      const withReadiness = containers(o).map((ref) => rec(ref.c.readinessProbe)).filter((p): p is Record<string, unknown> => p !== undefined);
      if (withReadiness.length === 0) return;
      const leave = Math.max(...withReadiness.map((p) => { const t = probeTiming(p); return t.failureThreshold * t.periodSeconds; }));
      const mu = maxUnavailable(o);
      if (!mu || mu.value <= 0) return;
      const minReady = int(rec(o.obj.spec)?.minReadySeconds) ?? 0;
      if (minReady < leave) {
        ctx.report(o, 'spec.minReadySeconds',
          `minReadySeconds ${minReady}${rec(o.obj.spec)?.minReadySeconds === undefined ? ' (default)' : ''} < readiness leave window ${leave} s while maxUnavailable is ${mu.shown}.`,
          { minReadySeconds: minReady, leaveWindowSeconds: leave, maxUnavailable: mu.value });
      }
    },
  },
  {
    id: 'RW302-rollout-without-progress-deadline-abort',
    severity: 'warning',
    title: 'Argo Rollout without progressDeadlineAbort: true',
    kinds: ['Rollout'],
    mechanism: 'By default a Rollout that misses its progress deadline is only marked Degraded and the stuck canary keeps its traffic share; with progressDeadlineAbort it aborts and traffic returns to stable.',
    fieldNotes: 'docs/mechanisms.md#rollout-complete, #canary-analysis',
    fix: 'Set spec.progressDeadlineAbort: true (and a progressDeadlineSeconds above minReadySeconds).',
    facts: [],
    check(o, ctx) {
      const v = rec(o.obj.spec)?.progressDeadlineAbort;
      if (v !== true) ctx.report(o, 'spec.progressDeadlineAbort', `progressDeadlineAbort is ${v === undefined ? 'absent (default false)' : String(v)}.`, { progressDeadlineAbort: v === undefined ? 'absent' : String(v) });
    },
  },
  {
    id: 'RW303-canary-without-analysis',
    severity: 'error',
    title: 'Canary shifts traffic without any analysis',
    kinds: ['Rollout'],
    mechanism: 'Without an analysis (background or step) nothing measures user-facing errors: a bad release is promoted on schedule, and "rollout complete" only means pods were Ready.',
    fieldNotes: 'docs/mechanisms.md#rollout-complete, #canary-analysis',
    fix: 'Add spec.strategy.canary.analysis (background, startingStep at the first setWeight) and an analysis step before full promotion, with an AnalysisTemplate measuring the 5xx ratio (guarded against empty and NaN results).',
    facts: [],
    check(o, ctx) {
      const canary = rec(rec(rec(o.obj.spec)?.strategy)?.canary);
      if (!canary || hasAnalysis(canary)) return;
      const weights = arr(canary.steps).map((s) => int(rec(s)?.setWeight)).filter((w): w is number => w !== undefined);
      const routed = rec(canary.trafficRouting) !== undefined;
      ctx.report(o, 'spec.strategy.canary',
        `canary ${weights.length ? `steps setWeight ${weights.join(' -> ')} -> 100` : 'with no steps promotes straight to 100'}${routed ? ' (traffic routing)' : ''} and no analysis (canary.analysis and analysis steps absent).`,
        { setWeights: weights.join(','), trafficRouting: routed, canaryService: str(canary.canaryService) ?? 'none' });
    },
  },
];
