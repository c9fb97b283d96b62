import { drainAtPeakScenario, DrainAtPeakOptions } from '../simulate/drain-at-peak';
import { isBadVerdict, simulate, SimSummary } from '../simulate/model';
import { allowedDisruptions, pdbsFor } from './disruption-rules';
import { factDefinition } from './facts';
import {
  ContainerRef,
  containers,
  cpuCores,
  inProcessHandler,
  Json,
  probeTiming,
  ProbeTiming,
  rec,
  replicaCount,
  ReplicaCount,
  secs,
} from './k8s';
import { RuleContext, RuleDefinition } from './rule';
import { LintObject } from './source';
import { FindingValue } from './types';

/**
 * Under a CFS limit a 20 ms handler "takes over a second on a pod at its quota"
 * (docs/mechanisms.md#cpu-limits-and-cfs-throttling), so
 * a readiness deadline of 1 s (the Kubernetes default; timeoutSeconds is whole seconds) is passed by
 * throttling alone. From 2 s up the deadline is not decided by the limit alone.
 */
const THROTTLED_DEADLINE_SECONDS = 1;

/**
 * "Few tolerated misses": fewer consecutive failures than the Kubernetes default of 3 (reference:
 * "Kubernetes probe and rollout defaults"), so one or two slow probes in a row take a pod out.
 */
const FEW_MISSES = 2;

/** Without a PDB a drain is not bounded; rollwise simulates the Deployment default maxUnavailable, 25 %. */
const UNBOUNDED_DRAIN_SHARE = 0.25;

/** Why a container's readiness measures load, in the words of the message; undefined when it does not. */
export interface LoadSensitivity {
  /** "CPU limit 500m over request 250m" / "timeout 1 s at or under the declared p99 1.2 s". */
  readonly text: string;
  readonly cpuLimit?: string;
  /** limits.cpu / requests.cpu (the request defaults to the limit). */
  readonly cpuLimitRatio?: number;
  readonly p99?: number;
}

/**
 * Whether the readiness probe of a container slows down with the pod's load: an in-process handler
 * (httpGet, grpc, exec) under a CPU limit (docs/mechanisms.md#cpu-limits-and-cfs-throttling, #fixes-and-verification),
 * or a deadline at or under the
 * handler's declared p99 under load (docs/mechanisms.md#readiness-calls-a-dependency). A tcpSocket probe under a limit
 * is not: the
 * kernel completes the connect without running the application.
 */
export function loadSensitivity(
  o: LintObject,
  ref: ContainerRef,
  probe: Json,
  ctx: RuleContext,
): LoadSensitivity | undefined {
  const t = probeTiming(probe);
  const p99f = ctx.facts.number(o, 'readinessP99Seconds');
  const p99 = p99f.ok && typeof p99f.value === 'number' ? p99f.value : undefined;
  const resources = rec(ref.c.resources);
  const limit = rec(resources?.limits)?.cpu;
  const handler = inProcessHandler(probe);
  if (limit !== undefined && handler) {
    const request = rec(resources?.requests)?.cpu;
    const l = cpuCores(limit);
    const r = request === undefined ? l : cpuCores(request);
    const ratio = l !== undefined && r !== undefined && r > 0 ? Number((l / r).toFixed(2)) : undefined;
    const reqText = request === undefined ? 'no request (it defaults to the limit)' : `request ${String(request)}`;
    return {
      text: `CPU limit ${String(limit)} over ${reqText} (${handler} probe shares the throttled quota)`,
      cpuLimit: String(limit),
      cpuLimitRatio: ratio,
      p99,
    };
  }
  if (p99 !== undefined && t.timeoutSeconds <= p99) {
    return {
      text: `readiness timeout ${secs(t.timeoutSeconds)} at or under the declared p99 under load ${secs(p99)}`,
      p99,
    };
  }
  return undefined;
}

interface Composition {
  readonly ref: ContainerRef;
  readonly t: ProbeTiming;
  readonly load?: LoadSensitivity;
  readonly replicas: ReplicaCount;
  /** The parts present, in words, for the message. */
  readonly parts: string[];
  /** Every part of the outage shape is there (decided without the simulator). */
  readonly complete: boolean;
}

function composition(
  o: LintObject,
  ref: ContainerRef,
  probe: Json,
  replicas: ReplicaCount,
  ctx: RuleContext,
): Composition {
  const t = probeTiming(probe);
  const load = loadSensitivity(o, ref, probe, ctx);
  const short = load?.cpuLimit !== undefined ? t.timeoutSeconds <= THROTTLED_DEADLINE_SECONDS : load !== undefined;
  const few = t.failureThreshold <= FEW_MISSES;
  const back = t.successThreshold * t.periodSeconds;
  const leave = t.failureThreshold * t.periodSeconds;
  const fast = back < leave;
  const fleet = replicas.min >= 2;
  const d = (x: unknown): string => (x === undefined ? ' (default)' : '');
  const parts = [
    load ? load.text : 'no CPU limit on the probed container and no declared p99 at or over the timeout',
    `readiness timeout ${secs(t.timeoutSeconds)}${d(probe.timeoutSeconds)}`,
    `period ${secs(t.periodSeconds)}${d(probe.periodSeconds)}, ` +
      `failureThreshold ${t.failureThreshold}${d(probe.failureThreshold)}, ` +
      `successThreshold ${t.successThreshold}${d(probe.successThreshold)} (leaves after ${leave} s, returns ` +
      `after ${back} s)`,
    `${replicas.min}${replicas.max > replicas.min ? `-${replicas.max}` : ''} replicas (${replicas.source})`,
  ];
  return { ref, t, load, replicas, parts, complete: load !== undefined && short && few && fast && fleet };
}

/** The drain the simulator runs: what the PDBs allow at once, or 25 % without a PDB. */
function drainSize(o: LintObject, replicas: number, ctx: RuleContext): { drain: number; why: string } {
  const allowed = pdbsFor(o, ctx).flatMap((p) => {
    const a = allowedDisruptions(p, replicas);
    return a ? [{ n: a.allowed, why: `${p.ref} ${a.shown}` }] : [];
  });
  if (allowed.length > 0) {
    const least = allowed.reduce((a, b) => (b.n < a.n ? b : a));
    return { drain: Math.min(least.n, replicas - 1), why: least.why };
  }
  return {
    drain: Math.min(replicas - 1, Math.max(1, Math.ceil(replicas * UNBOUNDED_DRAIN_SHARE))),
    why: `no PodDisruptionBudget: a drain of ${UNBOUNDED_DRAIN_SHARE * 100} %`,
  };
}

interface SimVerdict {
  readonly bad: boolean;
  readonly text: string;
  readonly values: Record<string, FindingValue>;
}

interface SimRun {
  readonly summary: SimSummary;
  readonly drainAtSeconds: number;
  readonly seed: number;
}

/**
 * The simulation is deterministic (fixed seed), so one result serves every workload with the same
 * inputs: a repository of services cut from one template runs it once, not once per workload.
 */
const SIM_CACHE = new Map<string, SimRun | undefined>();
const SIM_CACHE_MAX = 1000;

function cachedSimulation(opts: DrainAtPeakOptions): SimRun | undefined {
  const key = JSON.stringify(opts);
  if (SIM_CACHE.has(key)) return SIM_CACHE.get(key);
  let run: SimRun | undefined;
  try {
    const scenario = drainAtPeakScenario(opts);
    run = {
      summary: simulate(scenario).summary,
      drainAtSeconds: scenario.events[0]?.atSeconds ?? 0,
      seed: scenario.seed,
    };
  } catch {
    run = undefined; // values the simulator cannot model (e.g. a zero threshold): the plain rules report those
  }
  if (SIM_CACHE.size >= SIM_CACHE_MAX) SIM_CACHE.delete(SIM_CACHE.keys().next().value!);
  SIM_CACHE.set(key, run);
  return run;
}

/** Runs the drain at peak (src/simulate) with the workload's own probes, limit and replicas. */
function simulateDrain(
  o: LintObject,
  c: Composition,
  peak: number,
  sat: number,
  ctx: RuleContext,
): SimVerdict | undefined {
  const n = c.replicas.min;
  const { drain, why } = drainSize(o, n, ctx);
  const { periodSeconds, timeoutSeconds, failureThreshold, successThreshold } = c.t;
  const run = cachedSimulation({
    replicas: n,
    drain,
    peakRps: peak,
    saturationRpsPerReplica: sat,
    readiness: { periodSeconds, timeoutSeconds, failureThreshold, successThreshold },
    ...(c.load?.cpuLimitRatio !== undefined ? { cpuLimitRatio: c.load.cpuLimitRatio } : {}),
    ...(c.load?.p99 !== undefined ? { healthP99Seconds: c.load.p99 } : {}),
  });
  if (!run) return undefined;
  const { summary, seed } = run;
  const rps = Math.round(peak).toLocaleString('en-US');
  const remaining = n - drain;
  const after = Math.max(0, Math.round(summary.minReadyAtSeconds - run.drainAtSeconds));
  const how = `${summary.verdict}; ${summary.durationSeconds / 60} min simulated, seed ${seed}`;
  const bad = isBadVerdict(summary.verdict);
  const text =
    bad || summary.minReady < remaining
      ? `simulated: a drain of ${drain} of ${n} (${why}) at ${rps} req/s: ready endpoints reach ${summary.minReady} ` +
        `after ${after} s (${how})`
      : `simulated: a drain of ${drain} of ${n} (${why}) at ${rps} req/s keeps ${remaining}/${remaining} remaining ` +
        `pods ready (${how})`;
  return {
    bad,
    text,
    values: { simulatedDrain: drain, simulatedMinReady: summary.minReady, simulatedVerdict: summary.verdict },
  };
}

export const COMPOSITION_RULES: readonly RuleDefinition[] = [
  {
    id: 'RW109-readiness-cascade-composition',
    severity: 'error',
    title:
      'Load-sensitive readiness, few tolerated misses, a fast return and a fleet that carries the load: the ' +
      'readiness-cascade composition',
    kinds: ['Deployment', 'StatefulSet', 'Rollout', 'ReplicaSet'],
    mechanism:
      'Each part looks reasonable alone; together they are the outage: a probe that measures load (a ' +
      'throttled quota, or a deadline under the tail) fails on a busy pod, few misses take it out, its traffic moves ' +
      'to the survivors, who fail in turn, and the fast return brings the whole fleet back cold at full load to ' +
      'collapse again.',
    fieldNotes: 'docs/mechanisms.md#readiness-control-loop, #readiness-calls-a-dependency, #leave-slowly-return-slower',
    fix:
      'Break one link, best several: remove resources.limits.cpu (keep the request), raise ' +
      'readinessProbe.timeoutSeconds above the p99 under load (at least 3 s), set failureThreshold 3 or more and ' +
      'successThreshold equal to it; then declare peak-rps and saturation-rps-per-replica so the drain at peak is ' +
      'simulated.',
    facts: [],
    upstream:
      'The kubelet takes a container out of Ready after failureThreshold consecutive failed probes and back ' +
      'after successThreshold passes (kubernetes/kubernetes pkg/kubelet/prober/worker.go doProbe, commit 00421113; ' +
      "prober_manager.go UpdatePodStatus, commit 0181833d), and a not-Ready pod's endpoint stops receiving Service " +
      'traffic (kubernetes/endpointslice v0.32.4 utils.go podToEndpoint); a CPU limit is a CFS quota that ' +
      "deschedules the probed process once the period's quota is used (the Linux kernel's " +
      'Documentation/scheduler/sched-bwc.rst). With the capacity facts declared, the fleet simulator (src/simulate) ' +
      'runs the drain at peak and the verdict decides the severity.',
    check(o, ctx) {
      const replicas = replicaCount(o, ctx.index);
      if (!replicas) return;
      const peak = ctx.facts.number(o, 'peakRps');
      const sat = ctx.facts.number(o, 'saturationRpsPerReplica');
      const canSimulate = ctx.simulate && peak.ok && sat.ok && replicas.min >= 2;
      for (const ref of containers(o)) {
        const probe = rec(ref.c.readinessProbe);
        if (!probe) continue;
        const c = composition(o, ref, probe, replicas, ctx);
        const path = `${ref.path}.readinessProbe`;
        const base = {
          timeoutSeconds: c.t.timeoutSeconds,
          periodSeconds: c.t.periodSeconds,
          failureThreshold: c.t.failureThreshold,
          successThreshold: c.t.successThreshold,
          replicas: replicas.min,
          ...(c.load?.cpuLimit ? { cpuLimit: c.load.cpuLimit } : {}),
        };
        if (canSimulate) {
          const v = simulateDrain(o, c, peak.value as number, sat.value as number, ctx);
          if (v?.bad) {
            ctx.report(
              o,
              path,
              `container "${ref.name}": ${c.parts.join('; ')}. ${v.text}.`,
              { ...base, ...v.values },
              'error',
            );
          } else if (v && c.complete) {
            ctx.report(
              o,
              path,
              `container "${ref.name}": the readiness-cascade composition (${c.parts.join('; ')}), but at the ` +
                `declared capacity it holds: ${v.text}.`,
              { ...base, ...v.values },
              'warning',
            );
          }
          if (v) return;
        }
        if (!c.complete) continue;
        const missing = [
          peak.ok ? undefined : factDefinition('peakRps'),
          sat.ok ? undefined : factDefinition('saturationRpsPerReplica'),
        ].filter((f) => f !== undefined);
        const decide = !ctx.simulate
          ? 'the simulator is off (--no-simulate)'
          : `declaring ${missing
              .map((f) => `${f!.annotation} (${f!.option.replace('<name>', o.name)})`)
              .join(' and ')} ` + 'would let the simulated drain at peak decide it';
        ctx.report(
          o,
          path,
          `container "${ref.name}": ${c.parts.join('; ')}: the readiness-cascade composition; ${decide}.`,
          base,
        );
        return;
      }
    },
  },
];
