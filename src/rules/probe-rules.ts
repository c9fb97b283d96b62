import { loadSensitivity } from './composition-rules';
import { arr, ContainerRef, containers, cpuCores, inProcessHandler, Json, podLabels, podSpec, probeHandler, probeTiming, PROBED_KINDS, rec, replicaCount, secs, serviceSelects } from './k8s';
import { requireFact, RuleContext, RuleDefinition } from './rule';
import { LintObject } from './source';

const W = PROBED_KINDS;

/**
 * RW201 does not report a limit of at least a core that is more than twice the request: the quota
 * binds only under sustained use far above the request (tuned on the tuning set, docs/lint-precision.md:
 * such limits were judged noise, as warnings and as info).
 */
const GENEROUS_LIMIT_CORES = 1;
/** RW107 from a liveness initialDelaySeconds of a minute: the start is known to be slow. */
const SLOW_START_SECONDS = 60;
const GENEROUS_LIMIT_RATIO = 2;

/** Containers of the object with a probe of that kind. */
function withProbe(containersOf: ContainerRef[], probe: 'readinessProbe' | 'livenessProbe' | 'startupProbe'): { ref: ContainerRef; p: Json }[] {
  return containersOf.flatMap((ref) => {
    const p = rec(ref.c[probe]);
    return p ? [{ ref, p }] : [];
  });
}

/** The Services deployed with the object (scope.ts) that route to its pods. */
function routingServices(o: LintObject, ctx: RuleContext): string[] {
  const labels = podLabels(o);
  return [...new Set(ctx.index.scopes.inScope(o, 'Service').filter((svc) => serviceSelects(svc.obj, labels)).map((x) => x.ref))];
}

/** Containers with both probes, their timings, and whether liveness is a copy of readiness (RW105, RW106). */
function livenessReadinessPairs(o: LintObject) {
  return containers(o).flatMap((ref) => {
    const r = rec(ref.c.readinessProbe);
    const l = rec(ref.c.livenessProbe);
    if (!r || !l) return [];
    const rt = probeTiming(r);
    const lt = probeTiming(l);
    const identical = probeHandler(r) === probeHandler(l) && rt.timeoutSeconds === lt.timeoutSeconds && rt.periodSeconds === lt.periodSeconds && rt.failureThreshold === lt.failureThreshold;
    return [{ ref, l, rt, lt, identical }];
  });
}

export const PROBE_RULES: readonly RuleDefinition[] = [
  {
    id: 'RW101-readiness-timeout-below-p99',
    severity: 'warning',
    title: "Readiness timeoutSeconds is not above the health path's declared p99 under load",
    kinds: W,
    mechanism: 'A probe whose deadline is at or below the handler\'s p99 fails on the slow tail at random, and each miss moves the pod\'s traffic onto the survivors, whose latency then rises too: the feedback loop that empties a Service.',
    fieldNotes: 'docs/mechanisms.md#readiness-control-loop, #readiness-calls-a-dependency',
    fix: 'Measure the health path\'s p99 under peak load and set readinessProbe.timeoutSeconds well above it (rollwise uses 2 x p99, at least 3 s), or make the handler cheaper.',
    facts: ['readinessP99Seconds'],
    check(o, ctx) {
      const first = withProbe(containers(o), 'readinessProbe')[0];
      if (!first) return;
      const p99 = requireFact(ctx, o, 'readinessP99Seconds', ctx.facts.number(o, 'readinessP99Seconds'));
      if (!p99) return;
      const v = p99.value as number;
      const t = probeTiming(first.p).timeoutSeconds;
      if (t <= v) {
        ctx.report(o, `${first.ref.path}.readinessProbe.timeoutSeconds`,
          `container "${first.ref.name}": readiness timeoutSeconds ${t}${first.p.timeoutSeconds === undefined ? ' (default)' : ''} is not above the health path's p99 under load ${secs(v)} (${p99.source}): at least one probe in a hundred times out by design.`,
          { timeoutSeconds: t, readinessP99Seconds: v });
      }
    },
  },
  {
    id: 'RW102-readiness-failure-threshold-one',
    severity: 'warning',
    title: 'Readiness failureThreshold is 1',
    kinds: W,
    mechanism: 'With failureThreshold 1 a single slow probe removes the pod from the Service for a whole period; under load, slow probes are common, so pods leave and return in waves and the survivors take their traffic. Alone it is a warning: with a probe that measures load and a fleet that carries it, RW109 reports the composition as an error.',
    fieldNotes: 'docs/mechanisms.md#readiness-calls-a-dependency, #leave-slowly-return-slower',
    fix: 'Set readinessProbe.failureThreshold to 3 or more, so one bad window cannot remove a pod.',
    facts: [],
    check(o, ctx) {
      for (const { ref, p } of withProbe(containers(o), 'readinessProbe')) {
        const t = probeTiming(p);
        if (t.failureThreshold <= 1) {
          ctx.report(o, `${ref.path}.readinessProbe.failureThreshold`,
            `container "${ref.name}": readiness failureThreshold ${t.failureThreshold}: one missed probe (timeout ${secs(t.timeoutSeconds)}) removes the pod for at least ${secs(t.periodSeconds)}.`,
            { failureThreshold: t.failureThreshold, periodSeconds: t.periodSeconds, timeoutSeconds: t.timeoutSeconds });
        }
      }
    },
  },
  {
    id: 'RW103-readiness-returns-faster-than-leaves',
    severity: 'warning',
    title: 'Readiness that measures load returns (successThreshold x period) faster than it leaves (failureThreshold x period)',
    kinds: W,
    mechanism: 'When every pod has left, traffic is zero and every probe passes: the whole fleet re-enters within the short return window, cold and at full load, and collapses again (a saw-tooth, not a decay). Only a probe that measures load (a deadline at or under the declared p99, or a CPU limit on an in-process handler) empties the fleet, so the asymmetry alone, as in the Kubernetes defaults (1 and 3), is not reported; under a CPU limit RW201 reports it with the limit.',
    fieldNotes: 'docs/mechanisms.md#readiness-control-loop, #leave-slowly-return-slower',
    fix: 'Set readinessProbe.successThreshold at least equal to failureThreshold (e.g. 3 and 3), so a removed pod proves itself as long as it took to leave.',
    facts: [],
    check(o, ctx) {
      for (const { ref, p } of withProbe(containers(o), 'readinessProbe')) {
        const t = probeTiming(p);
        const back = t.successThreshold * t.periodSeconds;
        const leave = t.failureThreshold * t.periodSeconds;
        if (back >= leave) continue;
        const load = loadSensitivity(o, ref, p, ctx);
        // A CPU limit under an in-process probe is RW201's finding, which names the fast return
        // too: reporting it twice per container was a fifth of all output on public repositories.
        if (load && load.cpuLimit === undefined) {
          ctx.report(o, `${ref.path}.readinessProbe.successThreshold`,
            `container "${ref.name}": readiness returns after ${t.successThreshold}${p.successThreshold === undefined ? ' (default)' : ''} x ${t.periodSeconds} s = ${back} s but leaves after ${t.failureThreshold}${p.failureThreshold === undefined ? ' (default)' : ''} x ${t.periodSeconds} s = ${leave} s, and it measures load: ${load.text}.`,
            { successThreshold: t.successThreshold, failureThreshold: t.failureThreshold, periodSeconds: t.periodSeconds, returnWindowSeconds: back, leaveWindowSeconds: leave });
        }
      }
    },
  },
  {
    id: 'RW104-readiness-timeout-not-below-period',
    severity: 'info',
    title: 'Readiness timeoutSeconds is above periodSeconds',
    kinds: W,
    mechanism: 'A probe that may wait longer than its period runs back to back under load (the kubelet starts the next one when the slow one ends): the leave window is failureThreshold x timeout, not failureThreshold x period, and the probe adds a permanent request to a pod that is already slow. Information: it slows detection and adds load, it does not cause the outage by itself; a timeout equal to the period is not reported.',
    fieldNotes: 'docs/mechanisms.md#readiness-control-loop, #readiness-calls-a-dependency',
    fix: 'Keep readinessProbe.timeoutSeconds below periodSeconds (e.g. timeout 3 s, period 10 s).',
    facts: [],
    check(o, ctx) {
      for (const { ref, p } of withProbe(containers(o), 'readinessProbe')) {
        const t = probeTiming(p);
        if (t.timeoutSeconds > t.periodSeconds) {
          ctx.report(o, `${ref.path}.readinessProbe.timeoutSeconds`,
            `container "${ref.name}": readiness timeoutSeconds ${t.timeoutSeconds} is above periodSeconds ${t.periodSeconds}: under load the probes run back to back, and a failing pod leaves after up to ${t.failureThreshold} x ${t.timeoutSeconds} s = ${t.failureThreshold * t.timeoutSeconds} s, not ${t.failureThreshold * t.periodSeconds} s.`,
            { timeoutSeconds: t.timeoutSeconds, periodSeconds: t.periodSeconds });
        }
      }
    },
  },
  {
    id: 'RW105-liveness-identical-to-readiness',
    severity: 'warning',
    title: 'An HTTP, gRPC or exec liveness probe is identical to the readiness probe',
    kinds: W,
    mechanism: 'A liveness copy of readiness restarts exactly the pods that are merely loaded: each restart lands on a cold cache, survivors carry more load and fail in turn (falling dominoes, CrashLoopBackOff). Identical tcpSocket probes are not reported: a TCP connect does not run application code, so it does not fail on a loaded pod. Neither are a DaemonSet\'s pods, or exec probes, that no Service deployed with them routes to: no survivors take over their traffic, and an exec check of local state (a node agent\'s host check) is meant to restart the container when it fails (judged noise on public repositories, docs/lint-precision.md).',
    fieldNotes: 'docs/mechanisms.md#liveness-vs-readiness',
    fix: 'Give liveness a process-only check (a TCP connect or a handler that touches no dependency) and make it far more lenient than readiness (longer timeout, more failures).',
    facts: [],
    check(o, ctx) {
      let served: boolean | undefined;
      for (const { ref, l, lt, identical } of livenessReadinessPairs(o)) {
        if (identical && inProcessHandler(l)) {
          if (o.kind === 'DaemonSet' || inProcessHandler(l) === 'exec') {
            served ??= routingServices(o, ctx).length > 0;
            if (!served) continue;
          }
          ctx.report(o, `${ref.path}.livenessProbe`,
            `container "${ref.name}": livenessProbe equals readinessProbe (${probeHandler(l)}, timeout ${lt.timeoutSeconds} s, period ${lt.periodSeconds} s, failureThreshold ${lt.failureThreshold}).`,
            { handler: probeHandler(l), timeoutSeconds: lt.timeoutSeconds, periodSeconds: lt.periodSeconds, failureThreshold: lt.failureThreshold });
        }
      }
    },
  },
  {
    id: 'RW106-liveness-stricter-than-readiness',
    severity: 'warning',
    title: 'An in-process liveness probe gives up before readiness does (a shorter timeout, or a shorter failure window in seconds)',
    kinds: W,
    mechanism: 'If an HTTP, gRPC or exec liveness gives up before readiness, a pod slow under load is restarted instead of only taken out of the Service: restarts pile up exactly at peak. Compared in time, as the kubelet counts them: a probe gives up after failureThreshold consecutive failures, one per periodSeconds (a probe that times out ends at timeoutSeconds, so a period shorter than the timeout stretches to it), so the windows are failureThreshold x max(periodSeconds, timeoutSeconds); a lower failureThreshold with a longer period is not stricter (4 x 30 s outlasts 20 x 5 s). A shorter liveness timeout is: a response between the two timeouts fails liveness only. Equal windows (the Kubernetes defaults on both probes) are not reported: on a separate liveness endpoint that is common and rarely the cause. A tcpSocket liveness does not run application code and is not checked.',
    fieldNotes: 'docs/mechanisms.md#liveness-vs-readiness',
    fix: 'Make liveness more lenient than readiness on every axis: timeoutSeconds >= readiness, failureThreshold >= readiness, and failureThreshold x periodSeconds well above the readiness leave window.',
    facts: [],
    check(o, ctx) {
      for (const { ref, l, rt, lt, identical } of livenessReadinessPairs(o)) {
        if (identical) continue; // RW105
        // A tcpSocket liveness (the fix RW105 recommends) is completed by the kernel, not the
        // application: it does not slow down with load, so it cannot restart a merely loaded pod.
        if (!inProcessHandler(l)) continue;
        // In seconds, not in counts: the kubelet's prober worker probes once per period and a
        // probe ends at its timeout at the latest, so failureThreshold failures in a row take
        // failureThreshold x max(period, timeout) (kubernetes pkg/kubelet/prober/worker.go run/doProbe,
        // read in the code index's copy).
        const axes: string[] = [];
        const lw = lt.failureThreshold * Math.max(lt.periodSeconds, lt.timeoutSeconds);
        const rw = rt.failureThreshold * Math.max(rt.periodSeconds, rt.timeoutSeconds);
        if (lt.timeoutSeconds < rt.timeoutSeconds) axes.push(`timeoutSeconds ${lt.timeoutSeconds} < readiness ${rt.timeoutSeconds} (a response between them fails liveness only)`);
        if (lw < rw) axes.push(`it gives up after ${lt.failureThreshold} x ${Math.max(lt.periodSeconds, lt.timeoutSeconds)} s = ${lw} s, before readiness leaves after ${rt.failureThreshold} x ${Math.max(rt.periodSeconds, rt.timeoutSeconds)} s = ${rw} s`);
        if (axes.length > 0) {
          ctx.report(o, `${ref.path}.livenessProbe`, `container "${ref.name}": liveness is stricter than readiness: ${axes.join('; ')}.`,
            { livenessTimeoutSeconds: lt.timeoutSeconds, readinessTimeoutSeconds: rt.timeoutSeconds, livenessFailureThreshold: lt.failureThreshold, readinessFailureThreshold: rt.failureThreshold, livenessWindowSeconds: lw, readinessWindowSeconds: rw });
        }
      }
    },
  },
  {
    id: 'RW107-liveness-initial-delay-without-startup-probe',
    severity: 'info',
    title: 'Liveness initialDelaySeconds of a minute or more and no startupProbe',
    kinds: W,
    mechanism: 'initialDelaySeconds is a fixed guess at start-up time: a start slower than the guess is killed and restarted in a loop (slower still under load), a faster one waits for nothing; a startupProbe adapts to the actual start. Information, and only from a minute up: a delay that long says the start is slow and varies, where the guess bites; shorter delays were judged noise on the tuning set (docs/lint-precision.md).',
    fieldNotes: 'docs/mechanisms.md#liveness-vs-readiness',
    fix: 'Add a startupProbe (failureThreshold x periodSeconds = the start-up budget) and remove livenessProbe.initialDelaySeconds.',
    facts: [],
    check(o, ctx) {
      for (const ref of containers(o)) {
        const l = rec(ref.c.livenessProbe);
        if (!l || ref.c.startupProbe !== undefined) continue;
        const d = probeTiming(l).initialDelaySeconds;
        if (d >= SLOW_START_SECONDS) {
          ctx.report(o, `${ref.path}.livenessProbe.initialDelaySeconds`, `container "${ref.name}": liveness initialDelaySeconds ${d} and no startupProbe.`, { initialDelaySeconds: d });
        }
      }
    },
  },
  {
    id: 'RW108-readiness-calls-dependency',
    severity: 'error',
    title: 'The readiness handler is declared to call a dependency',
    kinds: W,
    mechanism: 'A readiness handler that calls a downstream fails on every replica at the moment the dependency is slow, turning a partial slowdown into a total outage while the probes keep hammering the dependency.',
    fieldNotes: 'docs/mechanisms.md#readiness-calls-a-dependency',
    fix: 'Make readiness report local state only (listeners up, config loaded, warm-up done), with at most a dependency status cached in the background; answer requests that need the failing dependency with a fast 503.',
    facts: ['readinessCallsDependency'],
    upstream: 'A failed readiness probe makes the container not Ready (kubernetes/kubernetes pkg/kubelet/prober/prober_manager.go UpdatePodStatus, commit 0181833d), and the EndpointSlice controller marks a not-Ready pod\'s endpoint not ready, so the Service stops routing to it (kubernetes/endpointslice v0.32.4 utils.go podToEndpoint: ready = serving && !terminating). A handler that calls the dependency fails on every replica at once when the dependency is slow: the Service has no ready endpoint.',
    check(o, ctx) {
      const first = withProbe(containers(o), 'readinessProbe')[0];
      if (!first) return;
      const calls = requireFact(ctx, o, 'readinessCallsDependency', ctx.facts.bool(o, 'readinessCallsDependency'));
      if (calls?.value) {
        ctx.report(o, `${first.ref.path}.readinessProbe`, `container "${first.ref.name}": the readiness handler ${probeHandler(first.p)} calls a dependency (${calls.source}).`, { readinessCallsDependency: true });
      }
    },
  },
  {
    id: 'RW201-cpu-limit-with-http-probes',
    severity: 'warning',
    title: 'CPU limit on a container with HTTP, gRPC or exec probes',
    kinds: W,
    mechanism: "The probe handler shares the container's CFS quota: at the limit the kernel deschedules the process for the rest of each 100 ms period, so a 20 ms health check takes seconds exactly at peak and the probe measures load. A limit of a core or more, over twice the request, is not reported: it binds only far above the pod's request. A warning where the throttled probe is a readiness probe on pods a Service deployed with them routes to (the probe then takes the pod out of the Service at peak); info otherwise (only liveness or startup probes, or no Service routing to the pods: a node agent, a worker, a sidecar's own probe), where the harm is a restart, not an emptied Service (judged noise as warnings on public repositories, docs/lint-precision.md).",
    fieldNotes: 'docs/mechanisms.md#readiness-control-loop, #fixes-and-verification',
    fix: 'Remove resources.limits.cpu (keep the request: the pod stays Burstable), or raise it far above peak use. kube-score: --ignore-container-cpu-limit; Polaris: cpuLimitsMissing: ignore; Checkov: skip CKV_K8S_11.',
    facts: [],
    check(o, ctx) {
      for (const ref of containers(o)) {
        const limit = rec(rec(ref.c.resources)?.limits)?.cpu;
        if (limit === undefined) continue;
        const probes = (['readinessProbe', 'livenessProbe', 'startupProbe'] as const).flatMap((k) => {
          const h = inProcessHandler(rec(ref.c[k]));
          return h ? [`${k} (${h})`] : [];
        });
        if (probes.length === 0) continue;
        const request = rec(rec(ref.c.resources)?.requests)?.cpu;
        const l = cpuCores(limit);
        const r = request === undefined ? l : cpuCores(request);
        const ratio = l !== undefined && r !== undefined && r > 0 ? Number((l / r).toFixed(2)) : undefined;
        const reqText = request === undefined ? 'no request (it defaults to the limit)' : `request ${String(request)}`;
        // The fast return RW103 would report for this container (it leaves the CPU-limit case here).
        const rp = rec(ref.c.readinessProbe);
        const rt = rp && inProcessHandler(rp) ? probeTiming(rp) : undefined;
        const fast = rt && rt.successThreshold * rt.periodSeconds < rt.failureThreshold * rt.periodSeconds
          ? `; readiness returns after ${rt.successThreshold * rt.periodSeconds} s but leaves after ${rt.failureThreshold * rt.periodSeconds} s, so a fleet the throttling emptied re-enters at once` : '';
        // A limit of a core or more with room above the request throttles only under sustained use
        // far above what the pod asked for: not reported.
        if (l !== undefined && l >= GENEROUS_LIMIT_CORES && ratio !== undefined && ratio > GENEROUS_LIMIT_RATIO) continue;
        // The outage is the Service losing its endpoints: a throttled readiness probe on pods a
        // Service routes to. Anything else (a restart by liveness, pods nothing routes to) is info.
        const gates = inProcessHandler(rec(ref.c.readinessProbe)) !== undefined && routingServices(o, ctx).length > 0;
        ctx.report(o, `${ref.path}.resources.limits.cpu`,
          `container "${ref.name}": CPU limit ${String(limit)} with ${reqText}${ratio !== undefined ? `, limit/request ratio ${ratio}` : ''}, and ${probes.join(', ')} that ${probes.length === 1 ? 'shares' : 'share'} the throttled quota${fast}.`,
          { cpuLimit: String(limit), cpuRequest: request === undefined ? 'none' : String(request), ...(ratio !== undefined ? { limitRequestRatio: ratio } : {}), httpProbes: probes.join(',') }, gates ? undefined : 'info');
      }
    },
  },
  {
    id: 'RW110-no-readiness-probe-with-rolling-update',
    severity: 'warning',
    title: 'A workload that a Service routes to rolls its pods without any readiness probe',
    kinds: ['Deployment', 'StatefulSet', 'Rollout'],
    mechanism: 'Without a readiness probe the kubelet reports a container Ready as soon as it has started, before the application listens; the rolling update counts the new pod available, removes an old one, and the Service sends requests to a process that refuses them: errors on every rollout, the longer the start the more. DaemonSets are not checked: their pods are node agents replaced one node at a time (an exporter behind a Service was judged noise on the tuning set). Neither is a StatefulSet of one replica: its update deletes the pod before it creates the new one, so the gap is there with or without a probe.',
    fieldNotes: 'docs/mechanisms.md#rollout-complete, #readiness-control-loop',
    fix: 'Add a readinessProbe on the serving container (an httpGet on a local health path, or a tcpSocket on its port), so a new pod takes traffic only once it answers.',
    facts: [],
    check(o, ctx) {
      const spec = rec(o.obj.spec) ?? {};
      if (!podSpec(o)) return;
      const strategy = rec(spec.strategy);
      const update = rec(spec.updateStrategy);
      if (o.kind === 'Deployment' && strategy?.type === 'Recreate') return;
      if (o.kind === 'StatefulSet' && update?.type === 'OnDelete') return;
      // A StatefulSet replaces a pod by deleting it first (no surge): with one replica the update
      // has no pod to serve whether or not the new one is probed, so a probe would not avoid the gap
      // (kubernetes pkg/controller/statefulset/stateful_set_control.go updateStatefulSet: "Pod of
      // StatefulSet is terminating for update", DeleteStatefulPod, and the next sync creates it at
      // the update revision; read in the code index's copies; judged noise on public repositories,
      // docs/lint-precision.md).
      if (o.kind === 'StatefulSet' && (replicaCount(o, ctx.index)?.max ?? 2) <= 1) return;
      const regular = arr(podSpec(o)!.containers).map(rec).filter((c): c is Json => c !== undefined);
      if (regular.length === 0 || regular.some((c) => c.readinessProbe !== undefined)) return;
      if (containers(o).some((r) => r.c.readinessProbe !== undefined)) return; // a native sidecar's probe gates readiness too
      const labels = podLabels(o);
      const services = [...new Set(ctx.index.scopes.inScope(o, 'Service').filter((svc) => serviceSelects(svc.obj, labels)).map((x) => x.ref))];
      if (services.length === 0) return; // no traffic reaches it that a rollout could break
      const shown = services.length > 3 ? `${services.slice(0, 3).join(', ')} and ${services.length - 3} more` : services.join(', ');
      ctx.report(o, 'spec.template.spec.containers',
        `no container has a readinessProbe, and ${shown} ${services.length === 1 ? 'routes' : 'route'} to these pods: each new pod counts Ready when its containers start (kubelet: no readiness probe, always ready), so a rolling update sends it requests before the application listens.`,
        { containers: regular.length, services: services.join(',') });
    },
  },
];
