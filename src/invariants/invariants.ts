import { measurementPhase } from '../checks/analysis-condition';
import { reasonProblem } from '../decisions/reason';
import { ANNOTATIONS, valueAtPath } from '../justify/annotations';
import { parseReasonLines } from '../justify/reasons';
import {
  arr,
  cpuCores,
  int,
  Json,
  probeHandler,
  rec,
  scaleIntOrPercent,
  selectorMatches,
  stableJson,
  str,
} from '../rules/k8s';

/**
 * The safety invariants: ONE list of what every service rollwise emits must satisfy, checked on
 * the final objects (after every escape-hatch patch, Lazy value and L1 conversion) at synth. A
 * broken invariant fails synth; an `overridable` one is accepted only where the object's
 * `rollwise.dev/overrides` annotation carries a real reason for the path (an override prop, or
 * `HttpService.acceptPatch`). The property test (test/invariants/) asserts this same list.
 */
export interface Invariant {
  /** Stable id, e.g. `INV04-readiness-probe`. */
  readonly id: string;
  /** What must hold. */
  readonly title: string;
  /** Why it matters, citing the mechanism. */
  readonly why: string;
  /** Whether an override with a reason may accept a violation at its path. */
  readonly overridable: boolean;
  check(set: ServiceObjects): Violation[];
}

/** One broken invariant on one field of one object. */
export interface Violation {
  /** `Kind/name`. */
  readonly object: string;
  /** The field path, as in reasons and lint findings (`spec.template.spec.containers[0].image`). */
  readonly path: string;
  readonly message: string;
  /** True when no override may accept this violation even in an overridable invariant. */
  readonly hard?: boolean;
}

/** The final objects of one service, plus what the construct decided (for values no object holds). */
export interface ServiceObjects {
  readonly objects: readonly Json[];
  /**
   * The same objects rendered without the escape-hatch patches, by object index, when known: a
   * decided value (one with a reason) that a patch changed is then caught even when no other
   * invariant covers it, so a reason never describes a value that is not there.
   */
  readonly unpatched?: readonly (Json | undefined)[];
  /** The endpoint propagation the shutdown delay must outlast, in seconds. */
  readonly endpointPropagationSeconds?: number;
  /** Whether the application delays its own shutdown (ShutdownDelay.inApplication(): no preStop). */
  readonly shutdownInApplication?: boolean;
  /** The workload the per-workload invariants read (checkInvariants sets each in turn). @default the first */
  readonly workload?: Json;
}

/** A broken invariant as synth reports it. */
export interface InvariantFailure extends Violation {
  readonly invariant: Invariant;
}

/** Kinds with a pod template and a replica count: every one under a service is checked. */
const WORKLOADS = ['Rollout', 'Deployment', 'StatefulSet', 'ReplicaSet', 'DaemonSet'];
/**
 * Kinds whose pods serve (a bare Pod under a service is selected like the workload's): probes and the shutdown delay
 * apply.
 */
const SERVING = [...WORKLOADS, 'Pod'];
/**
 * Every kind that runs pods: a Pod, Job or CronJob added under a service is held to the pod-level
 * invariants (pinned image, resources, the restricted profile rollwise enforces on the namespace,
 * no token) like the service's own workload, whatever its containers are named.
 */
const POD_KINDS = [...SERVING, 'Job', 'CronJob'];
/**
 * The volume types the restricted profile allows (pod-security-admission policy/check_restrictedVolumes.go
 * restrictedVolumes_1_0).
 */
const RESTRICTED_VOLUME_TYPES = [
  'configMap',
  'csi',
  'downwardAPI',
  'emptyDir',
  'ephemeral',
  'persistentVolumeClaim',
  'projected',
  'secret',
];

function ref(o: Json): string {
  return `${str(o.kind) ?? '?'}/${str(rec(o.metadata)?.name) ?? '?'}`;
}

function ofKind(set: ServiceObjects, ...kinds: string[]): Json[] {
  return set.objects.filter((o) => kinds.includes(str(o.kind) ?? ''));
}

/** The workload an invariant reads (the view's, else the first), when it is one of `kinds`. */
function workloadOf(set: ServiceObjects, kinds: readonly string[] = WORKLOADS): Json | undefined {
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

function podSpecOf(w: Json): Json | undefined {
  if (w.kind === 'Pod') return rec(w.spec);
  if (w.kind === 'CronJob') return rec(rec(rec(rec(rec(w.spec)?.jobTemplate)?.spec)?.template)?.spec);
  return rec(rec(rec(w.spec)?.template)?.spec);
}

function podLabelsOf(w: Json): Record<string, string> {
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
function onPod(kinds: readonly string[], check: (set: ServiceObjects, p: PodOf) => Violation[]): Invariant['check'] {
  return (set) => {
    const w = workloadOf(set, kinds);
    const pod = w && podSpecOf(w);
    if (!w || !pod) return [];
    const base = podPath(w);
    return check(set, { w, pod, base, app: appContainer(pod, base) });
  };
}

/** The app container: the one named "app" (pod-template.ts), else the first. */
function appContainer(pod: Json, base = 'spec.template.spec'): { c: Json | undefined; path: string } {
  const cs = arr(pod.containers);
  const i = Math.max(
    0,
    cs.findIndex((c) => rec(c)?.name === 'app'),
  );
  return { c: rec(cs[i]), path: `${base}.containers[${i}]` };
}

function allContainers(pod: Json, base = 'spec.template.spec'): { c: Json; path: string }[] {
  const out: { c: Json; path: string }[] = [];
  for (const key of ['initContainers', 'containers']) {
    arr(pod[key]).forEach((c, i) => {
      const r = rec(c);
      if (r) out.push({ c: r, path: `${base}.${key}[${i}]` });
    });
  }
  return out;
}

/** Digest or a tag that is not `latest` (the last path segment carries the tag). */
function pinned(image: string): boolean {
  if (/\s/.test(image) || image === '') return false;
  if (/@sha256:[0-9a-f]{64}$/.test(image)) return true;
  const last = image.split('/').pop() ?? '';
  const i = last.lastIndexOf(':');
  return i > 0 && i < last.length - 1 && last.slice(i + 1) !== 'latest';
}

/**
 * Gateway API hostname (HTTPRoute spec.hostnames items): a DNS name, optionally with a leading "*." label, at most 253
 * characters.
 */
const HOSTNAME = /^(\*\.)?[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export function isGatewayHostname(h: unknown): boolean {
  return typeof h === 'string' && h.length <= 253 && HOSTNAME.test(h) && h.split('.').every((l) => l.length <= 63);
}

function v(_set: ServiceObjects, o: Json, path: string, message: string): Violation {
  return { object: ref(o), path, message };
}

/** The list. Order is the order of the report. */
export const INVARIANTS: readonly Invariant[] = [
  {
    id: 'INV01-decided-values-unpatched',
    title: 'A value rollwise decided (one with a reason) is not changed by a patch',
    why:
      'The reason in the comment, the rollwise.dev/reasons annotation and `rollwise explain` describes the ' +
      'decided value; a patched value would be explained by a reason that no longer holds ' +
      '(docs/mechanisms.md#readiness-control-loop).',
    overridable: true,
    check(set) {
      const out: Violation[] = [];
      set.objects.forEach((o, i) => {
        const before = set.unpatched?.[i];
        if (!before || before === o) return; // no patch on this object (final-objects.ts reuses the render)
        const reasons = rec(rec(before.metadata)?.annotations)?.[ANNOTATIONS.reasons];
        if (typeof reasons !== 'string') return;
        for (const path of Object.keys(parseReasonLines(reasons))) {
          let a: unknown;
          let b: unknown;
          try {
            a = valueAtPath(before, path);
            b = valueAtPath(o, path);
          } catch {
            continue;
          }
          for (const [leaf, x, y] of differences(a, b, path)) {
            out.push(
              v(
                set,
                o,
                leaf,
                `a patch changed ${leaf} from ${short(x)} to ${short(y)}; rollwise decided ${path} with a reason that ` +
                  'would then describe a value that is not there',
              ),
            );
          }
        }
      });
      return out;
    },
  },
  {
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
  },
  {
    id: 'INV03-replicas',
    title: 'The workload exists and runs at least 2 replicas (or an autoscaler with minReplicas >= 2 owns the count)',
    why:
      'One replica cannot survive a node drain or a rollout; its disruption budget either blocks drains forever ' +
      'or lets them take the service (docs/mechanisms.md#rollout-complete).',
    overridable: false,
    check(set) {
      const any = workloadOf(set, POD_KINDS);
      if (any?.kind === 'Pod')
        return [
          v(
            set,
            any,
            'kind',
            'a bare Pod under the service is one replica that no controller recreates: a node drain or an eviction takes ' +
              'it away for good',
          ),
        ];
      if (any?.kind === 'Job' || any?.kind === 'CronJob') return [];
      const w = workloadOf(set);
      if (!w) return [{ object: '(service)', path: 'kind', message: 'no Rollout or Deployment is emitted' }];
      const spec = rec(w.spec) ?? {};
      const hpa = ofKind(set, 'HorizontalPodAutoscaler')[0];
      const target = rec(rec(hpa?.spec)?.scaleTargetRef);
      // The HPA controller scales what scaleTargetRef names (kind and name, through the scale
      // subresource of apiVersion's group): any other target leaves this workload's count unowned.
      const aimed =
        hpa &&
        (target?.kind !== w.kind || target?.name !== rec(w.metadata)?.name || target?.apiVersion !== w.apiVersion)
          ? [
              v(
                set,
                hpa,
                'spec.scaleTargetRef',
                `scaleTargetRef ${short(target)} is not the service's ${String(w.kind)} ${short(rec(w.metadata)?.name)} ` +
                  `(${short(w.apiVersion)}): the autoscaler scales another object and this one keeps its own replicas`,
              ),
            ]
          : [];
      if (spec.replicas === undefined && hpa) {
        const min = int(rec(hpa.spec)?.minReplicas);
        return min !== undefined && Number.isInteger(min) && min >= 2
          ? aimed
          : [...aimed, v(set, hpa, 'spec.minReplicas', `minReplicas ${short(rec(hpa.spec)?.minReplicas)} is below 2`)];
      }
      if (aimed.length > 0) return aimed;
      const n = int(spec.replicas);
      return n !== undefined && Number.isInteger(n) && n >= 2
        ? []
        : [v(set, w, 'spec.replicas', `replicas ${short(spec.replicas)} is below 2 (absent means 1)`)];
    },
  },
  {
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
        out.push(
          v(set, w, `${base}.failureThreshold`, `failureThreshold ${t.failure}: one slow probe removes the pod`),
        );
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
  },
  {
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
  },
  {
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
  },
  {
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
  },
  {
    id: 'INV08-disruption-budget',
    title: 'A PodDisruptionBudget with a budget that selects the pods and lets at least one and not every pod go',
    why:
      'A PDB without a budget, or selecting no pod, protects nothing during node drains; one that allows no ' +
      'disruption blocks every drain (docs/mechanisms.md#rollout-complete).',
    overridable: false,
    check(set) {
      const w = workloadOf(set);
      if (!w) return [];
      const pdbs = ofKind(set, 'PodDisruptionBudget');
      if (pdbs.length === 0)
        return [{ object: ref(w), path: 'kind', message: 'no PodDisruptionBudget is emitted for the workload' }];
      const out: Violation[] = [];
      const replicas = int(rec(w.spec)?.replicas) ?? 2;
      for (const pdb of pdbs) {
        const spec = rec(pdb.spec) ?? {};
        if (!selectorMatches(spec.selector, podLabelsOf(w)))
          out.push(
            v(
              set,
              pdb,
              'spec.selector',
              `the selector ${short(spec.selector)} does not select the pods (labels ${short(podLabelsOf(w))})`,
            ),
          );
        if (spec.maxUnavailable === undefined && spec.minAvailable === undefined) {
          out.push(v(set, pdb, 'spec.maxUnavailable', 'the budget has neither maxUnavailable nor minAvailable'));
          continue;
        }
        const down =
          spec.maxUnavailable !== undefined
            ? scaleIntOrPercent(spec.maxUnavailable, replicas, true)
            : ((m) => (m === undefined ? undefined : replicas - m))(
                scaleIntOrPercent(spec.minAvailable, replicas, true),
              );
        const field = spec.maxUnavailable !== undefined ? 'spec.maxUnavailable' : 'spec.minAvailable';
        if (down === undefined)
          out.push(v(set, pdb, field, `${short(spec[field.split('.')[1]])} is not a count or a percentage`));
        else if (down < 1)
          out.push(v(set, pdb, field, `the budget lets no pod go (${down} of ${replicas}): every node drain blocks`));
        else if (down >= replicas)
          out.push(v(set, pdb, field, `the budget lets every pod go (${down} of ${replicas})`));
      }
      return out;
    },
  },
  {
    id: 'INV09-route-hostnames',
    title: 'Every HTTPRoute names its hostnames (valid DNS names) and a parent Gateway',
    why: "A route without hostnames captures every host on the shared Gateway, taking other teams' traffic.",
    overridable: false,
    check(set) {
      const out: Violation[] = [];
      for (const r of ofKind(set, 'HTTPRoute')) {
        const spec = rec(r.spec) ?? {};
        const hosts = arr(spec.hostnames);
        if (hosts.length === 0)
          out.push(v(set, r, 'spec.hostnames', 'the route has no hostnames, so it captures every host on the Gateway'));
        hosts.forEach((h, i) => {
          if (!isGatewayHostname(h))
            out.push(
              v(
                set,
                r,
                `spec.hostnames[${i}]`,
                `${short(h)} is not a DNS hostname (lower case, optionally "*." first, labels of at most 63 and at most ` +
                  '253 characters in all)',
              ),
            );
        });
        if (arr(spec.parentRefs).length === 0)
          out.push(v(set, r, 'spec.parentRefs', 'the route attaches to no Gateway'));
      }
      return out;
    },
  },
  {
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
  },
  {
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
  },
  {
    id: 'INV12-restricted-security',
    title:
      'The restricted Pod Security profile: non-root, RuntimeDefault seccomp, no privilege escalation, all ' +
      'capabilities dropped, no host namespaces, ports or paths',
    // The fields of the Pod Security Standards' "restricted" profile (kubernetes.io/docs/concepts/
    // security/pod-security-standards, plus "baseline" for host namespaces, ports and hostPath), as
    // the PodSecurity admission plugin checks them (pod-security-admission policy/check_*.go, read in
    // the stored kubernetes/kubernetes staging copy: check_runAsNonRoot, check_runAsUser,
    // check_allowPrivilegeEscalation, check_capabilities_restricted, check_seccompProfile_restricted,
    // check_restrictedVolumes, check_hostNamespaces, check_hostPorts, check_privileged). rollwise
    // enforces "restricted" on the namespace, so a pod of any kind that breaks one is refused there.
    why:
      'A privileged or root container, host namespaces or hostPath volumes turn one compromised HTTP handler into ' +
      'a compromised node (the restricted Pod Security profile).',
    overridable: false,
    check: onPod(POD_KINDS, (set, { w, pod, base }) => {
      const out: Violation[] = [];
      const psc = rec(pod.securityContext) ?? {};
      for (const k of ['hostNetwork', 'hostPID', 'hostIPC']) {
        if (pod[k] === true) out.push(v(set, w, `${base}.${k}`, `${k} is true`));
      }
      if (psc.runAsUser === 0)
        out.push(v(set, w, `${base}.securityContext.runAsUser`, 'the pod runs as root (runAsUser 0)'));
      arr(pod.volumes).forEach((vol, i) => {
        if (rec(vol)?.hostPath !== undefined)
          out.push(v(set, w, `${base}.volumes[${i}].hostPath`, "a hostPath volume mounts the node's filesystem"));
        else if (!Object.keys(rec(vol) ?? {}).some((k) => RESTRICTED_VOLUME_TYPES.includes(k)))
          out.push(
            v(
              set,
              w,
              `${base}.volumes[${i}]`,
              `volume ${short(rec(vol)?.name)} is not of a type the restricted profile allows ` +
                `(${RESTRICTED_VOLUME_TYPES.join(', ')})`,
            ),
          );
      });
      const podSeccomp = str(rec(psc.seccompProfile)?.type);
      for (const { c, path } of allContainers(pod, base)) {
        const sc = rec(c.securityContext) ?? {};
        const nonRoot = sc.runAsNonRoot ?? psc.runAsNonRoot;
        if (nonRoot !== true)
          out.push(
            v(
              set,
              w,
              `${path}.securityContext.runAsNonRoot`,
              `runAsNonRoot is ${short(nonRoot)} (pod and container), not true`,
            ),
          );
        if ((sc.runAsUser ?? psc.runAsUser) === 0)
          out.push(v(set, w, `${path}.securityContext.runAsUser`, 'the container runs as root (runAsUser 0)'));
        if (sc.privileged === true)
          out.push(v(set, w, `${path}.securityContext.privileged`, 'the container is privileged'));
        if (sc.allowPrivilegeEscalation !== false)
          out.push(
            v(
              set,
              w,
              `${path}.securityContext.allowPrivilegeEscalation`,
              `allowPrivilegeEscalation is ${short(sc.allowPrivilegeEscalation)}, not false`,
            ),
          );
        const caps = rec(sc.capabilities) ?? {};
        if (!arr(caps.drop).includes('ALL'))
          out.push(v(set, w, `${path}.securityContext.capabilities.drop`, 'capabilities.drop does not include ALL'));
        const added = arr(caps.add).filter((x) => x !== 'NET_BIND_SERVICE');
        if (added.length > 0)
          out.push(v(set, w, `${path}.securityContext.capabilities.add`, `adds capabilities ${short(added)}`));
        const seccomp = str(rec(sc.seccompProfile)?.type) ?? podSeccomp;
        if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost')
          out.push(
            v(
              set,
              w,
              `${path}.securityContext.seccompProfile`,
              `seccomp profile ${short(seccomp)} is not RuntimeDefault or Localhost`,
            ),
          );
        arr(c.ports).forEach((p, i) => {
          if (rec(p)?.hostPort !== undefined)
            out.push(v(set, w, `${path}.ports[${i}].hostPort`, "a hostPort binds the node's port"));
        });
      }
      return out;
    }),
  },
  {
    id: 'INV13-no-service-account-token',
    title: 'No service-account token is mounted unless overridden with a reason',
    why: 'An HTTP service that does not call the Kubernetes API must not carry credentials for it.',
    overridable: true,
    check: onPod(POD_KINDS, (set, { w, pod, base }) =>
      pod.automountServiceAccountToken === false
        ? []
        : [
            v(
              set,
              w,
              `${base}.automountServiceAccountToken`,
              `automountServiceAccountToken is ${short(pod.automountServiceAccountToken)} (absent means true)`,
            ),
          ],
    ),
  },
  {
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
  },
  {
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
          v(
            set,
            w,
            'spec.progressDeadlineSeconds',
            `progressDeadlineSeconds ${pds} is not above minReadySeconds ${mrs}`,
          ),
        );
      return out;
    },
  },
  {
    id: 'INV16-services-select-pods',
    title:
      "Every Service and the workload selector select the pod template's labels, and every Service targets a " +
      'container port',
    why:
      'A Service that selects nothing has no endpoints; the proxy answers 503 without any pod failing ' +
      '(docs/mechanisms.md#readiness-control-loop, #response-flags).',
    overridable: false,
    check(set) {
      const w = workloadOf(set);
      if (!w) return [];
      const labels = podLabelsOf(w);
      const out: Violation[] = [];
      if (!selectorMatches(rec(w.spec)?.selector, labels))
        out.push(v(set, w, 'spec.selector', 'the workload selector does not select its own pod template'));
      const pod = podSpecOf(w);
      const portNames = new Set(pod ? arr(appContainer(pod).c?.ports).map((p) => rec(p)?.name) : []);
      const portNumbers = new Set(pod ? arr(appContainer(pod).c?.ports).map((p) => rec(p)?.containerPort) : []);
      for (const s of ofKind(set, 'Service')) {
        const sel = rec(rec(s.spec)?.selector);
        if (!sel || Object.keys(sel).length === 0 || !Object.entries(sel).every(([k, val]) => labels[k] === val)) {
          out.push(
            v(set, s, 'spec.selector', `the selector ${short(sel)} does not select the pods (labels ${short(labels)})`),
          );
        }
        arr(rec(s.spec)?.ports).forEach((p, i) => {
          const target = rec(p)?.targetPort;
          if (!portNames.has(target) && !portNumbers.has(target))
            out.push(
              v(
                set,
                s,
                `spec.ports[${i}].targetPort`,
                `targetPort ${short(target)} is not a port of the app container`,
              ),
            );
        });
      }
      return out;
    },
  },
  {
    id: 'INV17-metadata-well-formed',
    title:
      'Every object has a DNS-subdomain name, and labels and annotations that are maps of strings with valid ' +
      'label syntax',
    why:
      'The API server rejects an object whose name, labels or annotations are malformed, at apply time, after the ' +
      'pipeline has passed; Argo CD then shows the whole application as failed to sync.',
    overridable: false,
    check(set) {
      const out: Violation[] = [];
      for (const o of set.objects) {
        const meta = rec(o.metadata);
        if (!meta) {
          out.push(v(set, o, 'metadata', 'the object has no metadata'));
          continue;
        }
        const name = meta.name;
        // Object names are DNS-1123 subdomains as apimachinery checks them (pkg/util/validation,
        // IsDNS1123Subdomain): at most 253 characters matching the label pattern separated by dots,
        // with no 63-character limit per label (that limit is IsDNS1123Label's, for namespaces).
        if (
          typeof name !== 'string' ||
          name.length === 0 ||
          name.length > 253 ||
          !name.split('.').every((l) => /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(l))
        ) {
          out.push(v(set, o, 'metadata.name', `name ${short(name)} is not a DNS subdomain`));
        }
        if (
          meta.namespace !== undefined &&
          (typeof meta.namespace !== 'string' ||
            !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(meta.namespace) ||
            meta.namespace.length > 63)
        ) {
          out.push(v(set, o, 'metadata.namespace', `namespace ${short(meta.namespace)} is not a DNS label`));
        }
        for (const key of ['labels', 'annotations'] as const) {
          const m = meta[key];
          if (m === undefined) continue;
          const r = rec(m);
          if (!r) {
            out.push(v(set, o, `metadata.${key}`, `${key} ${short(m)} is not a map`));
            continue;
          }
          for (const [k, val] of Object.entries(r)) {
            if (!labelKeyOk(k))
              out.push(
                v(
                  set,
                  o,
                  `metadata.${key}["${k}"]`,
                  `${short(k)} is not a valid ${key === 'labels' ? 'label' : 'annotation'} key`,
                ),
              );
            if (typeof val !== 'string')
              out.push(v(set, o, `metadata.${key}["${k}"]`, `the value ${short(val)} is not a string`));
            else if (
              key === 'labels' &&
              !(val.length <= 63 && (val === '' || /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(val)))
            ) {
              out.push(v(set, o, `metadata.labels["${k}"]`, `the value ${short(val)} is not a valid label value`));
            }
          }
        }
      }
      return out;
    },
  },
];

/**
 * Kubernetes qualified names (label and annotation keys): optional DNS-subdomain prefix and "/", then 1-63 name
 * characters.
 */
function labelKeyOk(k: string): boolean {
  const i = k.lastIndexOf('/');
  const prefix = i < 0 ? undefined : k.slice(0, i);
  const name = i < 0 ? k : k.slice(i + 1);
  const prefixOk =
    prefix === undefined ||
    (prefix.length > 0 &&
      prefix.length <= 253 &&
      prefix.split('.').every((l) => l.length <= 63 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(l)));
  return prefixOk && name.length > 0 && name.length <= 63 && /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(name);
}

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

/** The leaf paths where two JSON values differ (arrays of different length differ as a whole). */
function differences(a: unknown, b: unknown, path: string): [string, unknown, unknown][] {
  if (stableJson(a) === stableJson(b)) return [];
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length)
    return a.flatMap((x, i) => differences(x, b[i], `${path}[${i}]`));
  const ra = rec(a);
  const rb = rec(b);
  if (ra && rb) {
    const keys = [...new Set([...Object.keys(ra), ...Object.keys(rb)])].sort();
    return keys.flatMap((k) =>
      differences(ra[k], rb[k], /^[A-Za-z0-9_-]+$/.test(k) ? `${path}.${k}` : `${path}["${k}"]`),
    );
  }
  return [[path, a, b]];
}

function timing(p: Json): { timeout: number; period: number; failure: number; success: number } {
  // Kubernetes probe defaults: timeout 1, period 10, failure 3, success 1 (rules/k8s.ts PROBE_DEFAULTS).
  return {
    timeout: num(p.timeoutSeconds, 1),
    period: num(p.periodSeconds, 10),
    failure: num(p.failureThreshold, 3),
    success: num(p.successThreshold, 1),
  };
}

function num(x: unknown, dflt: number): number {
  if (x === undefined) return dflt;
  const n = int(x);
  return n === undefined ? NaN : n;
}

function short(x: unknown): string {
  if (x === undefined) return 'absent';
  const s = typeof x === 'number' && !Number.isFinite(x) ? String(x) : JSON.stringify(x);
  return s.length > 80 ? `${s.slice(0, 77)}...` : s;
}

/**
 * Runs every invariant. A violation of an overridable invariant is dropped when the object's
 * `rollwise.dev/overrides` annotation has a line for the path (or a parent of it) whose reason
 * passes `reasonProblem`; every other violation is returned.
 */
export function checkInvariants(set: ServiceObjects): InvariantFailure[] {
  const accepted = acceptedBy(set.objects);
  const out: InvariantFailure[] = [];
  const seen = new Set<string>();
  // every workload in turn (a second one added under the service is checked like the first)
  const workloads = ofKind(set, ...POD_KINDS);
  for (const workload of workloads.length > 0 ? workloads : [undefined]) {
    const view = workload ? { ...set, workload } : set;
    for (const inv of INVARIANTS) {
      for (const x of inv.check(view)) {
        if (inv.overridable && !x.hard && accepted(x)) continue;
        const key = `${inv.id}\u0000${x.object}\u0000${x.path}\u0000${x.message}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ ...x, invariant: inv });
      }
    }
  }
  return out;
}

/**
 * Whether a violation's path (or a parent of it) is accepted with a real reason in its object's
 * `rollwise.dev/overrides`.
 */
function acceptedBy(objects: readonly Json[]): (x: Violation) => boolean {
  const overrides = new Map<string, [string, string][]>();
  for (const o of objects) {
    const a = rec(rec(o.metadata)?.annotations)?.[ANNOTATIONS.overrides];
    overrides.set(
      ref(o),
      typeof a === 'string'
        ? Object.entries(parseReasonLines(a)).filter(([, r]) => reasonProblem(r) === undefined)
        : [],
    );
  }
  return (x: Violation) =>
    (overrides.get(x.object) ?? []).some(
      ([p]) => x.path === p || x.path.startsWith(`${p}.`) || x.path.startsWith(`${p}[`),
    );
}

/**
 * INV01 alone, with the same acceptance, for objects outside a service (an Argo CD Application, a
 * ServiceNamespace, the cluster prerequisites): a decided value a patch changed is refused unless
 * accepted with a reason. Each object is compared with its own unpatched render (same index).
 */
export function checkDecidedValues(set: Pick<ServiceObjects, 'objects' | 'unpatched'>): InvariantFailure[] {
  const inv = INVARIANTS[0];
  const accepted = acceptedBy(set.objects);
  return inv
    .check(set)
    .filter((x) => x.hard === true || !accepted(x))
    .map((x) => ({ ...x, invariant: inv }));
}

/** One line per failure, as synth prints it: invariant, object, path, what, why and how to fix. */
export function formatInvariantFailure(f: InvariantFailure): string {
  const fix =
    f.invariant.overridable && !f.hard
      ? 'restore the value rollwise decided, or change it with the override prop, or accept the patched value with ' +
        `HttpService.acceptPatch(object, '${f.path}', '<why it is right for this service>')`
      : 'restore the value rollwise decided; no override can make this safe';
  return `${f.invariant.id} ${f.object} ${f.path}: ${f.message}. Why: ${f.invariant.why} Fix: ${fix}.`;
}
