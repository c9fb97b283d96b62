import { cpuCores, int, Json, probeHandler, rec, str } from '../../rules/k8s';
import { allContainers, num, onPod, POD_KINDS, SERVING, short, v } from './preamble';
import { Invariant, Violation } from './types';

/**
 * The container invariants: a pinned image (INV02), probes (INV04, INV05), resources (INV06, INV07) and the
 * shutdown delay (INV14).
 * Split from src/invariants/invariants.ts (issue 26), which keeps the list and its order.
 */

/** Digest or a tag that is not `latest` (the last path segment carries the tag). */
export function pinned(image: string): boolean {
  if (/\s/.test(image) || image === '') return false;
  if (/@sha256:[0-9a-f]{64}$/.test(image)) return true;
  const last = image.split('/').pop() ?? '';
  const i = last.lastIndexOf(':');
  return i > 0 && i < last.length - 1 && last.slice(i + 1) !== 'latest';
}

export const INV02: Invariant = {
  id: 'INV02-image-pinned',
  title: 'Every container image is pinned by a tag (not latest) or a digest',
  why:
    'An unpinned image means the manifest in Git does not say which code runs; a restart can pull other code ' +
    'and `git revert` rolls nothing back (docs/mechanisms.md#gitops-rollback).',
  overridable: false,
  check: onPod(POD_KINDS, (set, { w, pod, base }) =>
    allContainers(pod, base)
      .filter(({ c }) => !pinned(str(c.image) ?? ''))
      .map(({ c, path }) =>
        v(set, w, `${path}.image`, `image ${short(c.image)} is not pinned by a version tag or a digest`),
      ),
  ),
};

export const INV04: Invariant = {
  id: 'INV04-readiness-probe',
  title:
    'The app container has a readiness probe with a handler, a timeout below its period, failureThreshold >= ' +
    '2 and a return window no shorter than the leave window',
  why:
    'Without readiness a pod takes traffic before it can serve; failureThreshold 1 removes pods on one slow ' +
    'probe and a return faster than the leave lets an emptied fleet re-enter cold and collapse again ' +
    '(docs/mechanisms.md#readiness-control-loop, #readiness-calls-a-dependency, #leave-slowly-return-slower).',
  overridable: true,
  check: onPod(SERVING, (set, { w, app: { c, path } }) => {
    const p = rec(c?.readinessProbe);
    const base = `${path}.readinessProbe`;
    if (!p) return [{ ...v(set, w, base, 'the app container has no readiness probe'), hard: true }];
    if (probeHandler(p) === 'none')
      return [
        { ...v(set, w, base, 'the readiness probe has no handler (httpGet, tcpSocket, exec or grpc)'), hard: true },
      ];
    const out: Violation[] = [];
    const t = timing(p);
    if (!(t.timeout < t.period))
      out.push({
        ...v(set, w, `${base}.timeoutSeconds`, `timeout ${t.timeout} s is not below the period ${t.period} s`),
        hard: true,
      });
    if (t.failure < 2)
      out.push(v(set, w, `${base}.failureThreshold`, `failureThreshold ${t.failure}: one slow probe removes the pod`));
    // As overrides.readinessSuccessThreshold (decisions/probes.ts): refused even with a reason.
    if (!(t.success >= t.failure))
      out.push({
        ...v(
          set,
          w,
          `${base}.successThreshold`,
          `successThreshold ${t.success} returns a pod after ${t.success * t.period} s, faster than it leaves ` +
            `(${t.failure * t.period} s)`,
        ),
        hard: true,
      });
    return out;
  }),
};

export const INV05: Invariant = {
  id: 'INV05-liveness-and-startup',
  title:
    'The app container has a liveness probe that is not the readiness check and fails later than readiness, ' +
    'and a startup probe',
  why:
    'Liveness on the readiness path, or with a shorter window, restarts loaded pods instead of removing them ' +
    'from the Service; without a startup probe a slow start counts against liveness ' +
    '(docs/mechanisms.md#liveness-vs-readiness).',
  overridable: false,
  check: onPod(SERVING, (set, { w, app: { c, path } }) => {
    const live = rec(c?.livenessProbe);
    const ready = rec(c?.readinessProbe);
    const out: Violation[] = [];
    if (!live || probeHandler(live) === 'none')
      out.push(v(set, w, `${path}.livenessProbe`, 'the app container has no liveness probe with a handler'));
    else if (ready) {
      if (probeHandler(live) === probeHandler(ready))
        out.push(
          v(set, w, `${path}.livenessProbe`, 'liveness checks exactly what readiness checks, so load restarts pods'),
        );
      const l = timing(live);
      const r = timing(ready);
      if (l.failure * l.period <= r.failure * r.period)
        out.push(
          v(
            set,
            w,
            `${path}.livenessProbe.failureThreshold`,
            `the liveness failure window ${l.failure * l.period} s is not longer than the readiness leave ` +
              `window ${r.failure * r.period} s`,
          ),
        );
    }
    const start = rec(c?.startupProbe);
    if (!start || probeHandler(start) === 'none')
      out.push(v(set, w, `${path}.startupProbe`, 'the app container has no startup probe with a handler'));
    return out;
  }),
};

export const INV06: Invariant = {
  id: 'INV06-no-cpu-limit',
  title: 'No CPU limit unless overridden with a reason',
  why:
    'With limits.cpu the CFS quota deschedules the process each period once its slice is used, so the probe ' +
    'handler answers slowly exactly at peak and readiness measures load ' +
    '(docs/mechanisms.md#cpu-limits-and-cfs-throttling).',
  overridable: true,
  check: onPod(POD_KINDS, (set, { w, pod, base }) =>
    allContainers(pod, base)
      .filter(({ c }) => rec(rec(c.resources)?.limits)?.cpu !== undefined)
      .map(({ c, path }) =>
        v(set, w, `${path}.resources.limits.cpu`, `CPU limit ${short(rec(rec(c.resources)?.limits)?.cpu)} is set`),
      ),
  ),
};

export const INV07: Invariant = {
  id: 'INV07-memory-and-cpu-request',
  title: 'The app container requests CPU and memory and its memory limit equals the request',
  why:
    'Without requests the scheduler reserves nothing and the pod is first to be throttled and evicted; memory ' +
    'above the request is reclaimed by OOM kill.',
  overridable: false,
  check: onPod(POD_KINDS, (set, { w, app: { c, path } }) => {
    const res = rec(c?.resources);
    const req = rec(res?.requests);
    const lim = rec(res?.limits);
    const out: Violation[] = [];
    if (cpuCores(req?.cpu) === undefined)
      out.push(
        v(set, w, `${path}.resources.requests.cpu`, `CPU request ${short(req?.cpu)} is missing or not a quantity`),
      );
    if (req?.memory === undefined)
      out.push(v(set, w, `${path}.resources.requests.memory`, 'the memory request is missing'));
    else if (lim?.memory !== req.memory)
      out.push(
        v(
          set,
          w,
          `${path}.resources.limits.memory`,
          `memory limit ${short(lim?.memory)} is not the request ${short(req.memory)}`,
        ),
      );
    return out;
  }),
};

export const INV14: Invariant = {
  id: 'INV14-shutdown-delay',
  title: 'The pod keeps serving while endpoint removal propagates (a preStop delay) and its grace period outlasts it',
  why:
    'Proxies keep sending requests for the propagation time after a pod starts terminating; a pod that closes ' +
    'its listener at once answers them with connection errors (docs/mechanisms.md#readiness-control-loop, ' +
    '#response-flags).',
  overridable: false,
  check: onPod(SERVING, (set, { w, pod, base, app: { c, path } }) => {
    const out: Violation[] = [];
    const prop = set.endpointPropagationSeconds ?? 1;
    if (!set.shutdownInApplication && !rec(rec(c?.lifecycle)?.preStop))
      out.push(v(set, w, `${path}.lifecycle.preStop`, 'the app container has no preStop delay'));
    const grace = pod.terminationGracePeriodSeconds === undefined ? 30 : int(pod.terminationGracePeriodSeconds);
    if (grace === undefined || grace <= prop)
      out.push(
        v(
          set,
          w,
          `${base}.terminationGracePeriodSeconds`,
          `grace period ${short(pod.terminationGracePeriodSeconds)} s does not outlast the ${prop} s endpoint ` +
            'propagation',
        ),
      );
    return out;
  }),
};

export function timing(p: Json): { timeout: number; period: number; failure: number; success: number } {
  // Kubernetes probe defaults: timeout 1, period 10, failure 3, success 1 (rules/k8s.ts PROBE_DEFAULTS).
  return {
    timeout: num(p.timeoutSeconds, 1),
    period: num(p.periodSeconds, 10),
    failure: num(p.failureThreshold, 3),
    success: num(p.successThreshold, 1),
  };
}
