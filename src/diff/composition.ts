import { ANNOTATIONS } from '../justify/annotations';
import { arr, int, probeTiming, rec, str, WORKLOAD_KINDS } from '../rules/k8s';
import { LintObject } from '../rules/source';

/**
 * The composition-level figures of one set of objects (one service's file), by a readable label.
 * Each figure combines values that only mean something together (docs/diff.md): a reviewer sees
 * that the readiness leave window went from 30 s to 20 s, not that a threshold moved from 3 to 2.
 */
export function compositionFigures(objects: readonly LintObject[]): Map<string, string> {
  const out = new Map<string, string>();
  const keepAlive = keepAliveOf(objects);
  for (const o of objects) {
    if ((WORKLOAD_KINDS as readonly string[]).includes(o.kind)) workloadFigures(o, out);
    else if (o.kind === 'PodDisruptionBudget') pdbFigures(o, objects, out);
    else if (o.kind === 'AnalysisTemplate' || o.kind === 'ClusterAnalysisTemplate') analysisFigures(o, out);
    else if (o.kind === 'BackendTrafficPolicy') proxyFigures(o, keepAlive, out);
    else if (o.kind === 'PrometheusRule') alertFigures(o, out);
  }
  return out;
}

const seconds = (n: number) => `${n} s`;

function workloadFigures(o: LintObject, out: Map<string, string>): void {
  const spec = rec(o.obj.spec) ?? {};
  const pod = rec(rec(spec.template)?.spec) ?? {};
  const p99 = str(rec(rec(o.obj.metadata)?.annotations)?.[ANNOTATIONS.readinessP99Seconds]);
  for (const c of arr(pod.containers).map(rec)) {
    if (!c) continue;
    const at = `${o.kind}/${o.name} container ${str(c.name) ?? '?'}`;
    const readiness = rec(c.readinessProbe);
    if (readiness) {
      const t = probeTiming(readiness);
      out.set(
        `readiness leave window (${at})`,
        `${t.failureThreshold} x ${t.periodSeconds} s = ${seconds(t.failureThreshold * t.periodSeconds)}`,
      );
      out.set(
        `readiness return window (${at})`,
        `${t.successThreshold} x ${t.periodSeconds} s = ${seconds(t.successThreshold * t.periodSeconds)}`,
      );
      out.set(
        `readiness timeout vs declared p99 (${at})`,
        p99 === undefined
          ? `${seconds(t.timeoutSeconds)} (no p99 ` + 'declared)'
          : `${seconds(t.timeoutSeconds)} vs p99 ${p99} s`,
      );
    }
    const liveness = rec(c.livenessProbe);
    if (liveness) {
      const t = probeTiming(liveness);
      out.set(
        `liveness failure window (${at})`,
        `${t.failureThreshold} x ${t.periodSeconds} s = ${seconds(t.failureThreshold * t.periodSeconds)}`,
      );
    }
    const cpuLimit =
      str(rec(rec(c.resources)?.limits)?.cpu) ??
      (typeof rec(rec(c.resources)?.limits)?.cpu === 'number' ? String(rec(rec(c.resources)?.limits)?.cpu) : undefined);
    out.set(`CPU limit (${at})`, cpuLimit ?? 'none');
  }
  const strategy = rec(rec(spec.strategy)?.canary) ?? rec(rec(spec.strategy)?.rollingUpdate) ?? {};
  const replicas = int(spec.replicas);
  out.set(
    `rollout (${o.kind}/${o.name})`,
    [
      `replicas ${replicas ?? 'from an autoscaler'}`,
      `maxUnavailable ${String(strategy.maxUnavailable ?? 'default')}`,
      `maxSurge ${String(strategy.maxSurge ?? 'default')}`,
      `minReadySeconds ${int(spec.minReadySeconds) ?? 0}`,
      `progressDeadlineSeconds ${int(spec.progressDeadlineSeconds) ?? 600}`,
    ].join(', '),
  );
  const canary = rec(rec(spec.strategy)?.canary);
  if (canary && arr(canary.steps).length > 0)
    out.set(`canary steps (${o.kind}/${o.name})`, describeSteps(arr(canary.steps)));
}

/** "5 % -> pause 10m -> 25 % -> pause 10m -> analysis -> 100 %". */
export function describeSteps(steps: unknown[]): string {
  const parts = steps.map((s) => {
    const step = rec(s) ?? {};
    if (step.setWeight !== undefined) return `${String(step.setWeight)} %`;
    if (step.pause !== undefined) {
      const d = rec(step.pause)?.duration;
      return d === undefined ? 'pause until promoted' : `pause ${String(d)}`;
    }
    if (step.analysis !== undefined)
      return `analysis ${arr(rec(step.analysis)?.templates)
        .map((t) => str(rec(t)?.templateName) ?? str(rec(t)?.clusterScope) ?? '?')
        .join('+')}`;
    return Object.keys(step)[0] ?? '?';
  });
  return [...parts, '100 %'].join(' -> ');
}

function pdbFigures(o: LintObject, objects: readonly LintObject[], out: Map<string, string>): void {
  const spec = rec(o.obj.spec) ?? {};
  const budget =
    spec.maxUnavailable !== undefined
      ? `maxUnavailable ${String(spec.maxUnavailable)}`
      : spec.minAvailable !== undefined
        ? `minAvailable ${String(spec.minAvailable)}`
        : 'no budget';
  const workload = objects.find((w) => (WORKLOAD_KINDS as readonly string[]).includes(w.kind) && w.name === o.name);
  const replicas = workload ? int(rec(workload.obj.spec)?.replicas) : undefined;
  out.set(
    `disruption budget (${o.kind}/${o.name})`,
    replicas === undefined ? budget : `${budget} of ${replicas} replicas`,
  );
}

function analysisFigures(o: LintObject, out: Map<string, string>): void {
  for (const m of arr(rec(o.obj.spec)?.metrics).map(rec)) {
    if (!m) continue;
    const limits = ['failureLimit', 'inconclusiveLimit', 'consecutiveErrorLimit', 'count', 'interval']
      .filter((k) => m[k] !== undefined)
      .map((k) => `${k} ${String(m[k])}`);
    out.set(
      `analysis ${str(m.name) ?? '?'} (${o.kind}/${o.name})`,
      [
        `success: ${String(m.successCondition ?? '-')}`,
        `failure: ${String(m.failureCondition ?? '-')}`,
        ...limits,
      ].join('; '),
    );
  }
}

function keepAliveOf(objects: readonly LintObject[]): string | undefined {
  for (const o of objects) {
    const v = str(rec(rec(o.obj.metadata)?.annotations)?.[ANNOTATIONS.appKeepAliveSeconds]);
    if (v !== undefined) return v;
  }
  return undefined;
}

function proxyFigures(o: LintObject, keepAlive: string | undefined, out: Map<string, string>): void {
  const idle = str(rec(rec(rec(o.obj.spec)?.timeout)?.http)?.connectionIdleTimeout) ?? 'absent (Envoy 1 h)';
  const app =
    keepAlive === undefined
      ? 'keep-alive not declared'
      : keepAlive === 'none' || keepAlive === 'unlimited'
        ? `keep-alive ${keepAlive}`
        : `keep-alive ${keepAlive} s`;
  out.set(`proxy idle timeout vs app keep-alive (${o.kind}/${o.name})`, `${idle} vs ${app}`);
}

function alertFigures(o: LintObject, out: Map<string, string>): void {
  for (const g of arr(rec(o.obj.spec)?.groups).map(rec)) {
    for (const r of arr(g?.rules).map(rec)) {
      const alert = str(r?.alert);
      if (!r || !alert) continue;
      const expr = String(r.expr ?? '');
      // The ready-endpoints floor is written as "desired * floor / replicas" (src/decisions/alerts.ts).
      const floor = /\*\s*(\d+)\s*\/\s*(\d+)/.exec(expr);
      const threshold = /\)\s*(>=|>|<=|<|==)\s*([0-9.]+)\)?\s*(and|$)/.exec(expr);
      const what = floor
        ? `floor ${floor[1]}/${floor[2]} of desired`
        : threshold
          ? `${threshold[1]} ${threshold[2]}`
          : 'expression';
      out.set(
        `alert ${alert} (${o.kind}/${o.name})`,
        `${what}, for ${String(r.for ?? '0s')}, ${String(rec(r.labels)?.severity ?? 'no severity')}`,
      );
    }
  }
}
