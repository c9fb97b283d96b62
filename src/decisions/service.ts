import { Duration } from 'cdk8s';
import { RollwiseInputError } from '../errors';
import { Override } from './decision';
import { Capacity, disruptionBudget } from './disruption';
import { checkCpu, checkDuration, checkInteger, checkName, checkPath, checkPort, checkPositive, seconds } from './inputs';
import { simulateDrainAtPeak } from '../simulate/drain-at-peak';
import { isBadVerdict, Verdict } from '../simulate/model';
import { Platform } from './platform';
import { shutdown, ShutdownDecisions } from './pod';
import { livenessTiming, LivenessTiming, readinessTiming, ReadinessTiming, startupTiming, StartupTiming } from './probes';
import { resources, ResourceDecisions } from './resources';
import { rolloutStrategy, RolloutDecisions } from './rollout';
import { decided, Decision } from './decision';

/** What the service's health endpoints are and how they behave under load. */
export interface HealthProps {
  /** Path of the readiness handler (local state only). */
  readonly readinessPath: string;
  /**
   * Path of a process-only liveness handler.
   * @default a TCP connect to the container port
   */
  readonly livenessPath?: string;
  /**
   * The readiness handler's measured p99 latency at peak load. Measure it under load, never idle.
   * @default not measured: the 3 s floor is used and the reason says so
   */
  readonly readinessP99UnderLoad?: Duration;
  /**
   * Longest time the container may take to start listening.
   * @default platform.startupBudget (60 s)
   */
  readonly startupBudget?: Duration;
  /**
   * Whether the readiness handler calls a dependency (database, another service). `true` is refused.
   * @default false
   */
  readonly readinessCallsDependency?: boolean;
}

/** Measured resource needs at peak. */
export interface ResourcesProps {
  /** CPU request, e.g. "250m". No CPU limit is set. */
  readonly cpu: string;
  /** Memory request and limit, e.g. "512Mi". */
  readonly memory: string;
}

/** Measured capacity figures. */
export interface CapacityProps {
  /** Peak requests per second for the whole service. */
  readonly peakRequestsPerSecond: number;
  /** Per-replica request rate at which the handler saturates (from a load test). */
  readonly saturationRequestsPerSecondPerReplica: number;
}

/** Replacements for decided values; each must carry its `because`. */
export interface HttpServiceOverrides {
  /** @default 2 x p99 under load, at least 3 s, below the period */
  readonly readinessTimeout?: Override<Duration>;
  /** @default 3 */
  readonly readinessFailureThreshold?: Override<number>;
  /** @default equal to the failure threshold */
  readonly readinessSuccessThreshold?: Override<number>;
  /** @default no CPU limit */
  readonly cpuLimit?: Override<string>;
  /** @default max(30 s, the readiness leave window) */
  readonly minReadySeconds?: Override<Duration>;
  /** @default from capacity figures, else 1 */
  readonly pdbMaxUnavailable?: Override<number>;
  /** @default the app's keep-alive minus max(1 s, 40 %), whole seconds (uvicorn 5 s -> 3 s) */
  readonly proxyIdleTimeout?: Override<Duration>;
  /** @default min(10 s, the proxy idle timeout) */
  readonly proxyConnectTimeout?: Override<Duration>;
  /** Accept a proxy idle timeout not below the app's keep-alive (503 UC now and then). @default refused */
  readonly acceptKeepAliveRace?: Override<boolean>;
  /** Retries on reset (1-3) for this route, with why it is safe. @default no retry */
  readonly retryOnReset?: Override<number>;
}

/** The inputs of a service, as the constructs take them. */
export interface ServiceInputs {
  readonly name: string;
  readonly image: string;
  readonly port: number;
  readonly replicas: number;
  readonly health: HealthProps;
  readonly resources: ResourcesProps;
  readonly capacity?: CapacityProps;
  readonly overrides?: HttpServiceOverrides;
}

/** Every decision for one service: the pure core that the constructs render. */
export interface ServiceDecisions {
  readonly name: string;
  readonly image: string;
  readonly port: number;
  readonly replicas: number;
  readonly readinessPath: string;
  readonly readinessP99Seconds?: number;
  readonly capacity?: Capacity;
  readonly readiness: ReadinessTiming;
  readonly liveness: LivenessTiming;
  readonly startup: StartupTiming;
  readonly resources: ResourceDecisions;
  readonly rollout: RolloutDecisions;
  readonly pdbMaxUnavailable: Decision<number>;
  readonly shutdown: ShutdownDecisions;
}

/** The largest fleet rollwise plans for; beyond it, shard the service. */
const MAX_REPLICAS = 1000;

export function decideService(inp: ServiceInputs, platform: Platform): ServiceDecisions {
  const name = checkName('name', inp.name);
  if (typeof inp.image !== 'string' || inp.image.trim() === '' || /\s/.test(inp.image)) {
    throw new RollwiseInputError('image', inp.image, 'an image reference must be a non-empty string without spaces; the kubelet could not pull anything else.', 'give the image as registry/repository:tag or @sha256 digest, e.g. "ghcr.io/acme/checkout-api:1.4.2".');
  }
  if (/:latest$/.test(inp.image) || !/[:@]/.test(inp.image.split('/').pop() ?? '')) {
    throw new RollwiseInputError('image', inp.image, 'has no tag or uses "latest": the manifest committed to Git would not say which code runs, a restart could pull different code, and a rollback by `git revert` would change nothing (docs/mechanisms.md#gitops-rollback).', 'pin a version tag or a digest, e.g. "' + inp.image.replace(/:latest$/, '') + ':1.4.2".');
  }
  const port = checkPort('port', inp.port);
  const replicas = checkInteger('replicas', inp.replicas, 2, MAX_REPLICAS,
    'one replica cannot survive a node drain or a rollout without an outage, and a PodDisruptionBudget either blocks the drain forever or lets it take the service.',
    'run at least 2 replicas (size from capacity: peak req/s / (saturation x 0.8), plus one for disruptions).');
  const health = inp.health ?? ({} as HealthProps);
  const readinessPath = checkPath('health.readinessPath', health.readinessPath);
  if (health.livenessPath !== undefined) checkPath('health.livenessPath', health.livenessPath);
  if (health.readinessCallsDependency === true) {
    throw new RollwiseInputError('health.readinessCallsDependency', true,
      'a readiness handler that calls a dependency makes every replica fail at the same moment the dependency is slow, turning a partial slowdown into a total outage while the probes keep hammering the dependency (docs/mechanisms.md#readiness-calls-a-dependency).',
      'make readiness report local state only (listeners up, config loaded, warm-up done), with at most a dependency status cached by a background task; requests that need the dependency get a fast 503 instead.');
  }
  const p99 = health.readinessP99UnderLoad === undefined ? undefined
    : checkDuration('health.readinessP99UnderLoad', health.readinessP99UnderLoad, 0.001, 60, 'it is the latency of the readiness handler at peak load; the timeout is derived from it.', 'measure the handler\'s p99 under peak load (not idle) and pass it, e.g. Duration.millis(250).');
  const startupBudget = health.startupBudget === undefined ? platform.startupBudgetSeconds.value
    : checkDuration('health.startupBudget', health.startupBudget, 1, 3600, 'it bounds how long the startup probe waits for the process; beyond an hour a stuck start goes unnoticed.', 'give the longest start you observed plus a margin, e.g. Duration.seconds(90).');

  const o = inp.overrides ?? {};
  const secOverride = (x: Override<Duration> | undefined) => x && { value: seconds(x.value), because: x.because };
  const readiness = readinessTiming({
    periodSeconds: platform.readinessPeriodSeconds.value,
    p99Seconds: p99,
    overrides: { timeoutSeconds: secOverride(o.readinessTimeout), failureThreshold: o.readinessFailureThreshold, successThreshold: o.readinessSuccessThreshold },
  });
  const resourceInputs = inp.resources ?? ({} as ResourcesProps);
  let capacity: Capacity | undefined;
  if (inp.capacity) {
    capacity = {
      peakRps: checkPositive('capacity.peakRequestsPerSecond', inp.capacity.peakRequestsPerSecond, 'it sizes the disruption budget and the alert floor.', 'give the measured peak for the whole service, e.g. 3700.'),
      saturationRpsPerReplica: checkPositive('capacity.saturationRequestsPerSecondPerReplica', inp.capacity.saturationRequestsPerSecondPerReplica, 'it is the per-replica rate where the handler\'s latency takes off, from a load test.', 'load-test one replica and give the rate where p99 starts climbing, e.g. 450.'),
    };
  }
  const liveness = livenessTiming(readiness, health.livenessPath, readinessPath);
  const resourceDecisions = resources(resourceInputs.cpu, resourceInputs.memory, o.cpuLimit);
  const budget = disruptionBudget({ replicas, capacity, ceiling: platform.peakUtilisationCeiling.value, override: o.pdbMaxUnavailable });
  return {
    name,
    image: inp.image,
    port,
    replicas,
    readinessPath,
    readinessP99Seconds: p99,
    capacity,
    readiness,
    liveness,
    startup: startupTiming(startupBudget, readiness),
    resources: resourceDecisions,
    rollout: rolloutStrategy(readiness, startupBudget, { minReadySeconds: secOverride(o.minReadySeconds) }),
    pdbMaxUnavailable: capacity && !budget.overridden ? simulatedDrainEvidence(budget, replicas, capacity, readiness, p99, resourceDecisions) : budget,
    shutdown: shutdown(platform.endpointPropagationSeconds.value, platform.shutdownDrainSeconds.value, platform.shutdownDelay),
  };
}

/** The replica count's reason: the input, and the load per replica at peak when capacity is known. */
export function replicasDecision(d: ServiceDecisions): Decision<number> {
  const c = d.capacity;
  return decided(d.replicas, `Input: ${d.replicas} replicas${c ? `, ${(c.peakRps / d.replicas).toFixed(0)} req/s each at the ${c.peakRps} req/s peak (${Math.round((c.peakRps / d.replicas / c.saturationRpsPerReplica) * 100)} % of saturation)` : ''}.`);
}

/**
 * Backs the capacity-derived disruption budget with the fleet simulator: a drain of the budgeted
 * pods at peak, with the generated probe settings (docs/mechanisms.md#fixes-and-verification: a fix you have not reproduced is
 * a hypothesis). A budget whose drain flaps or cascades is lowered until the drain holds; when even
 * one pod cannot be drained, synth fails with the simulated result.
 */
function simulatedDrainEvidence(budget: Decision<number>, replicas: number, capacity: Capacity, readiness: ReadinessTiming, p99: number | undefined, res: ResourceDecisions): Decision<number> {
  const cpuLimitRatio = res.cpuLimit.value === undefined ? undefined : checkCpu('overrides.cpuLimit', res.cpuLimit.value) / checkCpu('resources.cpu', res.cpuRequest.value);
  const simulateDrain = (drain: number) => simulateDrainAtPeak({
    replicas,
    drain,
    peakRps: capacity.peakRps,
    saturationRpsPerReplica: capacity.saturationRpsPerReplica,
    readiness: { periodSeconds: readiness.periodSeconds.value, timeoutSeconds: readiness.timeoutSeconds.value, failureThreshold: readiness.failureThreshold.value, successThreshold: readiness.successThreshold.value },
    healthP99Seconds: p99,
    cpuLimitRatio,
    seed: 1,
  });
  for (let drain = budget.value; drain >= 1; drain--) {
    const sim = simulateDrain(drain);
    if (isBadVerdict(sim.verdict as Verdict)) continue;
    const lowered = drain < budget.value ? ` The arithmetic allowed ${budget.value}, but the simulated drain of ${budget.value} did not hold, so the budget is ${drain}.` : '';
    return { ...budget, value: drain, reason: `${budget.reason} Simulated: ${sim.sentence}.${lowered}`, inputs: { ...budget.inputs, simulatedVerdict: sim.verdict, simulatedMinReady: sim.minReady } };
  }
  const sim = simulateDrain(1);
  throw new RollwiseInputError('replicas', replicas,
    `the fleet simulator says even a one-pod drain at peak does not hold: ${sim.sentence}. The survivors' health path slows past the probe deadline and readiness removes capacity exactly when it is short (docs/mechanisms.md#readiness-control-loop).`,
    `scale out first (more replicas), or lower the health path's latency under load; run \`rollwise simulate\` on a scenario to see the collapse.`);
}
