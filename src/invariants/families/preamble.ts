import { arr, int, Json, rec, str } from '../../rules/k8s';
import { Invariant, ServiceObjects, Violation } from './types';

/**
 * What the invariants share: the workload and pod kinds, finding a service's workload, its pod spec and
 * containers, and the violation constructor.
 * Split from src/invariants/invariants.ts (issue 26), which keeps the list and its order.
 */

/** Kinds with a pod template and a replica count: every one under a service is checked. */
const WORKLOADS = ['Rollout', 'Deployment', 'StatefulSet', 'ReplicaSet', 'DaemonSet'];
/**
 * Kinds whose pods serve (a bare Pod under a service is selected like the workload's): probes and the shutdown delay
 * apply.
 */
export const SERVING = [...WORKLOADS, 'Pod'];
/**
 * Every kind that runs pods: a Pod, Job or CronJob added under a service is held to the pod-level
 * invariants (pinned image, resources, the restricted profile rollwise enforces on the namespace,
 * no token) like the service's own workload, whatever its containers are named.
 */
export const POD_KINDS = [...SERVING, 'Job', 'CronJob'];
export function ref(o: Json): string {
  return `${str(o.kind) ?? '?'}/${str(rec(o.metadata)?.name) ?? '?'}`;
}

export function ofKind(set: ServiceObjects, ...kinds: string[]): Json[] {
  return set.objects.filter((o) => kinds.includes(str(o.kind) ?? ''));
}

/** The workload an invariant reads (the view's, else the first), when it is one of `kinds`. */
export function workloadOf(set: ServiceObjects, kinds: readonly string[] = WORKLOADS): Json | undefined {
  const w = set.workload ?? ofKind(set, ...WORKLOADS)[0] ?? ofKind(set, ...POD_KINDS)[0];
  return w && kinds.includes(str(w.kind) ?? '') ? w : undefined;
}

/**
 * Where a kind keeps its pod spec: `spec` (Pod), `spec.jobTemplate.spec.template.spec` (CronJob), else
 * `spec.template.spec`.
 */
function podPath(w: Json): string {
  return w.kind === 'Pod'
    ? 'spec'
    : w.kind === 'CronJob'
      ? 'spec.jobTemplate.spec.template.spec'
      : 'spec.template.spec';
}

export function podSpecOf(w: Json): Json | undefined {
  if (w.kind === 'Pod') return rec(w.spec);
  if (w.kind === 'CronJob') return rec(rec(rec(rec(rec(w.spec)?.jobTemplate)?.spec)?.template)?.spec);
  return rec(rec(rec(w.spec)?.template)?.spec);
}

export function podLabelsOf(w: Json): Record<string, string> {
  return (rec(rec(rec(rec(w.spec)?.template)?.metadata)?.labels) ?? {}) as Record<string, string>;
}

/** What a pod invariant reads: the workload, its pod spec, the spec's path, the app container and its path. */
interface PodOf {
  readonly w: Json;
  readonly pod: Json;
  /** Where the workload keeps its pod spec (podPath). */
  readonly base: string;
  readonly app: { c: Json | undefined; path: string };
}

/**
 * The check of an invariant on the pod of the service's workload when it is one of `kinds`; no
 * violation when there is no such workload or it has no pod spec. The preamble the pod invariants
 * share, in one place.
 */
export function onPod(
  kinds: readonly string[],
  check: (set: ServiceObjects, p: PodOf) => Violation[],
): Invariant['check'] {
  return (set) => {
    const w = workloadOf(set, kinds);
    const pod = w && podSpecOf(w);
    if (!w || !pod) return [];
    const base = podPath(w);
    return check(set, { w, pod, base, app: appContainer(pod, base) });
  };
}

/** The app container: the one named "app" (pod-template.ts), else the first. */
export function appContainer(pod: Json, base = 'spec.template.spec'): { c: Json | undefined; path: string } {
  const cs = arr(pod.containers);
  const i = Math.max(
    0,
    cs.findIndex((c) => rec(c)?.name === 'app'),
  );
  return { c: rec(cs[i]), path: `${base}.containers[${i}]` };
}

export function allContainers(pod: Json, base = 'spec.template.spec'): { c: Json; path: string }[] {
  const out: { c: Json; path: string }[] = [];
  for (const key of ['initContainers', 'containers']) {
    arr(pod[key]).forEach((c, i) => {
      const r = rec(c);
      if (r) out.push({ c: r, path: `${base}.${key}[${i}]` });
    });
  }
  return out;
}

export function v(_set: ServiceObjects, o: Json, path: string, message: string): Violation {
  return { object: ref(o), path, message };
}

export function num(x: unknown, dflt: number): number {
  if (x === undefined) return dflt;
  const n = int(x);
  return n === undefined ? NaN : n;
}

export function short(x: unknown): string {
  if (x === undefined) return 'absent';
  const s = typeof x === 'number' && !Number.isFinite(x) ? String(x) : JSON.stringify(x);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}
