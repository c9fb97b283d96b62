import { Duration } from 'cdk8s';
import { RollwiseInputError } from '../errors';
import { Override } from './decision';
import { acceptedNoHeadroom, Capacity, disruptionBudget } from './disruption';
import {
  checkCpu,
  checkDuration,
  checkInteger,
  checkMemory,
  checkName,
  checkOverrideValues,
  checkPath,
  checkPort,
  checkPositive,
  MAX_REPLICAS,
  seconds,
  showSeconds,
} from './inputs';
import { simulateDrainAtPeak } from '../simulate/drain-at-peak';
import { isBadVerdict, Verdict } from '../simulate/results';
import { Platform } from './platform';
import { PORT_NAME, SERVICE_PORT, shutdown, ShutdownDecisions } from './pod';
import { decidePodTemplate, PodTemplateDecisions } from './pod-template';
import {
  livenessTiming,
  LivenessTiming,
  MIN_STARTUP_BUDGET_SECONDS,
  readinessTiming,
  ReadinessTiming,
  STARTUP_FLOOR_WHY,
  startupTiming,
  StartupTiming,
} from './probes';
import { resources, ResourceDecisions } from './resources';
import { rolloutStrategy, RolloutDecisions } from './rollout';
import { decided, Decision } from './decision';
import { Delivery } from './canary';
import {
  ContainerProps,
  decidePodExtras,
  InitContainerProps,
  PodExtrasDecisions,
  PodProps,
  SidecarProps,
  WorkloadMetadataProps,
} from './containers';
import { KubernetesVersion } from './kubernetes-version';
import { checkDerivedNames } from './names';
import { checkShutdownDelay } from './platform';
import { Measurements } from '../measure/measurements';
import { decideMigration, Migration, MigrationDecisions } from './migrations';
import { GO_NET_HTTP } from './keep-alive';

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
  /**
   * Requests per second for the whole service at the time releases usually happen (e.g. a weekday
   * afternoon); the canary's volume gate is sized for it.
   * @default the peak: a release at a quieter hour may pause for too little canary traffic
   */
  readonly releaseRequestsPerSecond?: number;
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
  /**
   * Run a fleet that has no headroom at peak (the capacity figures need every replica, or the
   * simulated one-pod drain does not hold), with the reason: the budget is then 1, the alert floor
   * allows that one disruption, and the PDB, alerts and runbook say so.
   * @default refused ("scale out first")
   */
  readonly acceptNoHeadroom?: Override<boolean>;
}

/** The inputs of a service's core decisions (ServiceInputs adds what delivery, route and alerts need). */
export interface ServiceCoreInputs {
  readonly name: string;
  readonly image: string;
  readonly port: number;
  readonly replicas: number;
  readonly health: HealthProps;
  readonly resources: ResourcesProps;
  readonly capacity?: CapacityProps;
  readonly overrides?: HttpServiceOverrides;
  /** @default Delivery.canary() (decides which derived names must fit their limits) */
  readonly delivery?: Delivery;
  /** Whether an HTTPRoute is emitted. @default true with canary delivery */
  readonly route?: unknown;
  /** @default the image's entrypoint, no environment, user 65532 (see HttpServiceProps.container) */
  readonly container?: ContainerProps;
  /** @default the default service account without its token, no extra volumes or placement */
  readonly pod?: PodProps;
  /** @default none */
  readonly sidecars?: SidecarProps[];
  /** @default none */
  readonly initContainers?: InitContainerProps[];
  /** @default the platform labels and rollwise's annotations */
  readonly metadata?: WorkloadMetadataProps;
  /** Measured inputs from `rollwise measure` (the readiness p99 at peak). */
  readonly measurements?: Measurements;
  /** @default none (see HttpServiceProps.migrations) */
  readonly migrations?: Migration;
  /** The app server (its name decides whether the image likely has a sleep binary). @default not known */
  readonly appServer?: { readonly name: string };
}

/**
 * The service's core decisions: probes, resources, rollout, disruption budget, shutdown, pod and
 * migration (decideService adds delivery, route, proxy policy, autoscaler and alerts).
 */
export interface ServiceCoreDecisions {
  readonly name: string;
  readonly image: string;
  readonly port: number;
  readonly replicas: number;
  /** `spec.replicas` of the workload: `replicas` with its reason (replicasDecision). */
  readonly replicaCount: Decision<number>;
  readonly readinessPath: string;
  readonly readinessP99Seconds?: number;
  readonly capacity?: Capacity;
  /** capacity.releaseRequestsPerSecond: the traffic a release usually sees (sizes the canary's volume gate). */
  readonly releaseRps?: number;
  readonly readiness: ReadinessTiming;
  readonly liveness: LivenessTiming;
  readonly startup: StartupTiming;
  readonly resources: ResourceDecisions;
  readonly rollout: RolloutDecisions;
  readonly pdbMaxUnavailable: Decision<number>;
  readonly shutdown: ShutdownDecisions;
  /** Environment, identity, volumes, placement, sidecars and init containers. */
  readonly pod: PodExtrasDecisions;
  /** The Service's port, forwarding to the container's named port. */
  readonly servicePort: Decision<number>;
  /** The pod template's fixed and input-following values (pod-template.ts). */
  readonly podTemplate: PodTemplateDecisions;
  /** The schema migration Job (an Argo CD PreSync hook), when `migrations` is given. */
  readonly migration?: MigrationDecisions;
  readonly kubernetesVersion: KubernetesVersion;
  /** The `because` of an accepted no-headroom override; the alerts and runbook say so. */
  readonly noHeadroomAccepted?: string;
  /** Implausible inputs, questioned at synth (each names both values). */
  readonly warnings: readonly string[];
}

/** The service's core decisions (see ServiceCoreDecisions); decideService (service.ts) calls it first. */
export function decideServiceCore(inp: ServiceCoreInputs, platform: Platform): ServiceCoreDecisions {
  const name = checkName('name', inp.name);
  const canary = (inp.delivery?.kind ?? 'canary') === 'canary';
  checkDerivedNames('name', name, canary, canary || inp.route !== undefined, inp.migrations !== undefined);
  if (typeof inp.image !== 'string' || inp.image.trim() === '' || /\s/.test(inp.image)) {
    throw new RollwiseInputError(
      'image',
      inp.image,
      'an image reference must be a non-empty string without spaces; the kubelet could not pull anything else.',
      'give the image as registry/repository:tag or @sha256 digest, e.g. "ghcr.io/acme/checkout-api:1.4.2".',
    );
  }
  if (/:latest$/.test(inp.image) || !/[:@]/.test(inp.image.split('/').pop() ?? '')) {
    throw new RollwiseInputError(
      'image',
      inp.image,
      'has no tag or uses "latest": the manifest committed to Git would not say which code runs, a restart could ' +
        'pull different code, and a rollback by `git revert` would change nothing ' +
        '(docs/mechanisms.md#gitops-rollback).',
      'pin a version tag or a digest, e.g. "' + inp.image.replace(/:latest$/, '') + ':1.4.2".',
    );
  }
  const port = checkPort('port', inp.port);
  const replicas = checkInteger(
    'replicas',
    inp.replicas,
    2,
    MAX_REPLICAS,
    'one replica cannot survive a node drain or a rollout without an outage, and a PodDisruptionBudget either blocks ' +
      'the drain forever or lets it take the service.',
    'run at least 2 replicas (size from capacity: peak req/s / (saturation x 0.8), plus one for disruptions).',
  );
  const health = inp.health ?? ({} as HealthProps);
  const readinessPath = checkPath('health.readinessPath', health.readinessPath);
  if (health.livenessPath !== undefined) checkPath('health.livenessPath', health.livenessPath);
  if (health.readinessCallsDependency !== undefined && typeof health.readinessCallsDependency !== 'boolean') {
    throw new RollwiseInputError(
      'health.readinessCallsDependency',
      health.readinessCallsDependency,
      'must be true or false: any other value would be read as one of them without saying which (a string "yes" is ' +
        'not true).',
      'leave it out (the default, false: readiness reports local state only), or say false.',
    );
  }
  if (health.readinessCallsDependency === true) {
    throw new RollwiseInputError(
      'health.readinessCallsDependency',
      true,
      'a readiness handler that calls a dependency makes every replica fail at the same moment the dependency is ' +
        'slow, turning a partial slowdown into a total outage while the probes keep hammering the dependency ' +
        '(docs/mechanisms.md#readiness-calls-a-dependency).',
      'make readiness report local state only (listeners up, config loaded, warm-up done), with at most a dependency ' +
        'status cached by a background task; requests that need the dependency get a fast 503 instead.',
    );
  }
  const { p99, p99Source } = readinessP99(name, health, inp.measurements);
  const startupBudget =
    health.startupBudget === undefined
      ? platform.startupBudgetSeconds.value
      : checkDuration(
          'health.startupBudget',
          health.startupBudget,
          MIN_STARTUP_BUDGET_SECONDS,
          3600,
          'it bounds how long the startup probe waits for the process, and beyond an hour a stuck start goes ' +
            `unnoticed; ${STARTUP_FLOOR_WHY}.`,
          `give the longest start you observed plus a margin, at least ${MIN_STARTUP_BUDGET_SECONDS} s, e.g. ` +
            'Duration.seconds(90).',
        );

  const o = inp.overrides ?? {};
  checkOverrideValues(o);
  const secOverride = (x: Override<Duration> | undefined) => x && { value: seconds(x.value), because: x.because };
  const readiness = readinessTiming({
    periodSeconds: platform.readinessPeriodSeconds.value,
    p99Seconds: p99,
    p99Source,
    overrides: {
      timeoutSeconds: secOverride(o.readinessTimeout),
      failureThreshold: o.readinessFailureThreshold,
      successThreshold: o.readinessSuccessThreshold,
    },
  });
  const resourceInputs = inp.resources ?? ({} as ResourcesProps);
  let capacity: Capacity | undefined;
  if (inp.capacity) {
    capacity = {
      peakRps: checkPositive(
        'capacity.peakRequestsPerSecond',
        inp.capacity.peakRequestsPerSecond,
        'it sizes the disruption budget and the alert floor.',
        'give the measured peak for the whole service, e.g. 3700.',
      ),
      saturationRpsPerReplica: checkPositive(
        'capacity.saturationRequestsPerSecondPerReplica',
        inp.capacity.saturationRequestsPerSecondPerReplica,
        "it is the per-replica rate where the handler's latency takes off, from a load test.",
        'load-test one replica and give the rate where p99 starts climbing, e.g. 450.',
      ),
    };
  }
  const releaseRps =
    inp.capacity?.releaseRequestsPerSecond === undefined || capacity === undefined
      ? undefined
      : checkPositive(
          'capacity.releaseRequestsPerSecond',
          inp.capacity.releaseRequestsPerSecond,
          "it sizes the canary's volume gate: the canary must collect enough requests at the traffic a release usually " +
            'sees.',
          "give the service's request rate at your usual release time, e.g. 900.",
        );
  if (releaseRps !== undefined && capacity && releaseRps > capacity.peakRps) {
    throw new RollwiseInputError(
      'capacity.releaseRequestsPerSecond',
      releaseRps,
      `is above the peak (capacity.peakRequestsPerSecond ${capacity.peakRps}): the peak is the most the service ever ` +
        'sees, so one of the two figures is wrong.',
      `give the release-time traffic, at most ${capacity.peakRps}, or correct the peak.`,
    );
  }
  const liveness = livenessTiming(readiness, health.livenessPath, readinessPath);
  const resourceDecisions = resources(resourceInputs.cpu, resourceInputs.memory, o.cpuLimit);
  const budget = disruptionBudget({
    replicas,
    capacity,
    ceiling: platform.peakUtilisationCeiling.value,
    override: o.pdbMaxUnavailable,
    acceptNoHeadroom: o.acceptNoHeadroom,
  });
  const accepted = acceptedNoHeadroom(o.acceptNoHeadroom, 'refuses a fleet without headroom at peak');
  const pdbMaxUnavailable =
    capacity && !budget.overridden
      ? simulatedDrainEvidence(budget, replicas, capacity, readiness, p99, resourceDecisions, accepted)
      : budget;
  const noHeadroomAccepted = pdbMaxUnavailable.inputs.noHeadroomAccepted === true ? accepted : undefined;
  const warnings = implausibleInputs(resourceInputs, o);
  const pod = decidePodExtras(
    { ...inp, readiness, defaultStartupBudgetSeconds: platform.startupBudgetSeconds.value },
    platform.kubernetesVersion,
  );
  const migration =
    inp.migrations === undefined
      ? undefined
      : decideMigration(
          name,
          inp.image,
          inp.migrations,
          platform.kubernetesVersion,
          pod.sidecars.length > 0,
          platform.argoCd !== undefined,
          { request: resourceInputs.cpu, limit: resourceDecisions.cpuLimit },
        );
  if (accepted !== undefined && noHeadroomAccepted === undefined) {
    warnings.push(
      'overrides.acceptNoHeadroom is set, but the fleet has headroom at ' +
        `peak${capacity ? '' : ' (no capacity figures are given)'}: the override changes nothing; remove it so it ` +
        'cannot hide a real shortfall later.',
    );
  }
  return {
    name,
    image: inp.image,
    port,
    replicas,
    replicaCount: replicasDecision({ replicas, capacity }),
    readinessPath,
    readinessP99Seconds: p99,
    capacity,
    releaseRps,
    readiness,
    liveness,
    startup: startupTiming(startupBudget, readiness),
    resources: resourceDecisions,
    rollout: rolloutStrategy(
      readiness,
      startupBudget,
      { minReadySeconds: secOverride(o.minReadySeconds) },
      pod.sidecars.reduce(
        (sum, x) =>
          sum + (x.startup ? x.startup.timing.failureThreshold.value * x.startup.timing.periodSeconds.value : 0),
        0,
      ),
    ),
    pdbMaxUnavailable,
    shutdown: decideShutdown(inp, platform),
    pod,
    podTemplate: decidePodTemplate(readinessPath, pod),
    servicePort: decided(
      SERVICE_PORT,
      `Port ${SERVICE_PORT} forwards to the container's named port "${PORT_NAME}" (${port}); only Ready endpoints ` +
        'receive traffic, which is why readiness timing matters (docs/mechanisms.md#readiness-control-loop).',
    ),
    migration,
    kubernetesVersion: platform.kubernetesVersion,
    noHeadroomAccepted,
    warnings: [...warnings, ...pod.warnings, ...(migration?.warnings ?? [])],
  };
}

/**
 * Inputs that are valid but implausible, questioned at synth with a warning naming both values:
 * a CPU request ten times the memory's scale (cores vs GiB, e.g. "5000m" with "512Mi": a "0" too
 * many), and a readiness failureThreshold override that silently drags the success threshold
 * (which follows it unless overridden too).
 */
function implausibleInputs(res: ResourcesProps, o: HttpServiceOverrides): string[] {
  const out: string[] = [];
  if (typeof res.cpu === 'string' && typeof res.memory === 'string') {
    const cores = checkCpu('resources.cpu', res.cpu) / 1000;
    const gib = checkMemory('resources.memory', res.memory) / 1024 ** 3;
    if (cores >= 10 * gib) {
      out.push(
        `resources.cpu = ${res.cpu} is ${+(cores / gib).toFixed(1)} times resources.memory = ${res.memory} in cores ` +
          'per GiB (typical HTTP services run 0.25-2 cores per GiB): a digit too many in the CPU request reserves ' +
          'CPU no node may have, and the pods stay Pending. Check both against your load test.',
      );
    }
  }
  if (o.readinessFailureThreshold && !o.readinessSuccessThreshold) {
    out.push(
      `overrides.readinessFailureThreshold = ${o.readinessFailureThreshold.value} also sets ` +
        `readinessSuccessThreshold to ${o.readinessFailureThreshold.value} (the return window follows the leave ` +
        'window unless overridden): if you only meant to change how fast pods leave, override ' +
        'overrides.readinessSuccessThreshold too.',
    );
  }
  return out;
}

/**
 * The service's shutdown delay: its own (`container.shutdownDelay`, it depends on the image) or the
 * platform's. An exec of `sleep` in an image that names itself distroless or scratch is refused:
 * such images have no sleep binary, the hook fails, the kubelet records FailedPreStopHook and
 * sends SIGTERM at once, and the proxies keep sending requests to a closed listener.
 */
function decideShutdown(inp: ServiceCoreInputs, platform: Platform): ShutdownDecisions {
  const own = inp.container?.shutdownDelay;
  const version = platform.kubernetesVersion;
  if (own !== undefined) checkShutdownDelay('container.shutdownDelay', own, version);
  const delay = own ?? platform.shutdownDelay;
  const source =
    own !== undefined
      ? "this service's container.shutdownDelay"
      : platform.shutdownDelaySet
        ? 'platform shutdownDelay'
        : `platform default for Kubernetes ${version.name}`;
  const fails =
    'the preStop exec fails, the kubelet records a FailedPreStopHook event and sends SIGTERM at once, so ' +
    'the pod stops while proxies still route to it (503s on every rollout and drain, ' +
    'docs/mechanisms.md#readiness-control-loop, #response-flags).';
  const ways = version.sleepAction
    ? 'ShutdownDelay.sleepAction() (Kubernetes 1.30+)'
    : 'ShutdownDelay.httpGet("/shutdown-delay") ' +
      '(a handler that waits before answering) or ShutdownDelay.inApplication() (the app keeps serving for the delay ' +
      'after SIGTERM), or ShutdownDelay.execSleep("/busybox/sleep") for a :debug image; or target Kubernetes 1.33 ' +
      '(platform.kubernetesVersion: KubernetesVersion.V1_33), whose default is ShutdownDelay.sleepAction(), the ' +
      "kubelet's own sleep";
  if (
    delay.kind === 'exec' &&
    delay.target === 'sleep' &&
    /(^|[/:@_.-])(distroless|scratch)([/:@_.-]|$)/.test(inp.image)
  ) {
    throw new RollwiseInputError(
      own !== undefined ? 'container.shutdownDelay' : 'platform.shutdownDelay',
      `ShutdownDelay.execSleep() (${source})`,
      `the image ${inp.image} looks distroless, and distroless images have no sleep binary: ${fails}`,
      `set container.shutdownDelay to ${ways}.`,
    );
  }
  // The same hazard where the image's name does not say it: a Go binary usually ships on distroless
  // or scratch (no shell, no sleep), and rollwise cannot look inside the image. The platform's exec
  // of sleep (the 1.28 default) is not assumed for it; the service says how its image waits.
  if (own === undefined && delay.kind === 'exec' && delay.target === 'sleep' && inp.appServer?.name === GO_NET_HTTP) {
    throw new RollwiseInputError(
      'container.shutdownDelay',
      `unset, so ShutdownDelay.execSleep() (${source})`,
      'appServer is Go net/http, whose binaries usually run on distroless or scratch images, which have no sleep ' +
        `binary, and rollwise cannot see inside ${inp.image}. If it has none, ${fails}`,
      'say how this image waits: container.shutdownDelay: ShutdownDelay.execSleep() if the image has a sleep binary ' +
        `(e.g. an alpine base), else ${ways}.`,
    );
  }
  return shutdown(
    platform.endpointPropagationSeconds.value,
    platform.shutdownDrainSeconds.value,
    delay,
    version,
    source,
  );
}

/**
 * The readiness handler's p99 at peak: typed in (health.readinessP99UnderLoad) or measured (a
 * measurements file from `rollwise measure`), never both; the reason says which, and for a
 * measurement where it came from.
 */
function readinessP99(
  name: string,
  health: HealthProps,
  measurements: Measurements | undefined,
): { p99?: number; p99Source?: string } {
  const typed = health.readinessP99UnderLoad;
  if (measurements === undefined) {
    if (typed === undefined) return {};
    const p99 = checkDuration(
      'health.readinessP99UnderLoad',
      typed,
      0.001,
      60,
      'it is the latency of the readiness handler at peak load; the timeout is derived from it.',
      "measure the handler's p99 under peak load (not idle) and pass it, e.g. Duration.millis(250).",
    );
    return {
      p99,
      p99Source:
        'typed in as health.readinessP99UnderLoad, not measured by rollwise (`rollwise measure` ' +
        "reads it from the kubelet's probe durations at the busiest hour)",
    };
  }
  if (!(measurements instanceof Measurements)) {
    throw new RollwiseInputError(
      'measurements',
      String(measurements),
      'must be a Measurements object, read from the file `rollwise measure` wrote.',
      "pass Measurements.fromFile('measurements/<service>.json').",
    );
  }
  const m = measurements.document.service;
  if (m.name !== name) {
    throw new RollwiseInputError(
      'measurements',
      `${measurements.origin} (service ${m.namespace}/${m.name})`,
      `the file measures ${m.name}, not ${name}: another service's p99 would size this one's probes.`,
      `measure ${name}: rollwise measure ${name} --namespace <ns>.`,
    );
  }
  if (typed !== undefined) {
    throw new RollwiseInputError(
      'health.readinessP99UnderLoad',
      showSeconds(seconds(typed)),
      `is typed in while measurements (${measurements.origin}) also give the p99 ` +
        `(${showSeconds(measurements.readinessP99Seconds ?? NaN)}): two sources for one input, and a reader cannot ` +
        'tell which one sized the timeout.',
      'remove health.readinessP99UnderLoad to use the measurement, or remove measurements to keep the typed figure.',
    );
  }
  const p99 = measurements.readinessP99Seconds;
  if (p99 === undefined) {
    throw new RollwiseInputError(
      'measurements',
      measurements.origin,
      `holds no readiness p99 (${measurements.document.readiness.p99.note ?? 'not measured'}).`,
      'fix what the note says and measure again, or type health.readinessP99UnderLoad with a reason you can defend.',
    );
  }
  return { p99, p99Source: measurements.readinessP99Provenance() };
}

/** The replica count's reason: the input, and the load per replica at peak when capacity is known. */
export function replicasDecision(d: Pick<ServiceCoreDecisions, 'replicas' | 'capacity'>): Decision<number> {
  const c = d.capacity;
  return decided(
    d.replicas,
    `Input: ${d.replicas} ` +
      `replicas${
        c
          ? `, ${(c.peakRps / d.replicas).toFixed(0)} req/s each at the ${c.peakRps} req/s peak ` +
            `(${Math.round((c.peakRps / d.replicas / c.saturationRpsPerReplica) * 100)} % of saturation)`
          : ''
      }.`,
  );
}

/**
 * Backs the capacity-derived disruption budget with the fleet simulator: a drain of the budgeted
 * pods at peak, with the generated probe settings (docs/mechanisms.md#fixes-and-verification: a fix you have not
 * reproduced is
 * a hypothesis). A budget whose drain flaps or cascades is lowered until the drain holds; when even
 * one pod cannot be drained, synth fails with the simulated result.
 */
function simulatedDrainEvidence(
  budget: Decision<number>,
  replicas: number,
  capacity: Capacity,
  readiness: ReadinessTiming,
  p99: number | undefined,
  res: ResourceDecisions,
  accepted?: string,
): Decision<number> {
  const cpuLimitRatio =
    res.cpuLimit.value === undefined
      ? undefined
      : checkCpu('overrides.cpuLimit', res.cpuLimit.value) / checkCpu('resources.cpu', res.cpuRequest.value);
  const simulateDrain = (drain: number) =>
    simulateDrainAtPeak({
      replicas,
      drain,
      peakRps: capacity.peakRps,
      saturationRpsPerReplica: capacity.saturationRpsPerReplica,
      readiness: {
        periodSeconds: readiness.periodSeconds.value,
        timeoutSeconds: readiness.timeoutSeconds.value,
        failureThreshold: readiness.failureThreshold.value,
        successThreshold: readiness.successThreshold.value,
      },
      healthP99Seconds: p99,
      cpuLimitRatio,
      seed: 1,
    });
  for (let drain = budget.value; drain >= 1; drain--) {
    const sim = simulateDrain(drain);
    if (isBadVerdict(sim.verdict as Verdict)) continue;
    const lowered =
      drain < budget.value
        ? ` The arithmetic allowed ${budget.value}, but the simulated drain ` +
          `of ${budget.value} did not hold, so the budget is ${drain}.`
        : '';
    return {
      ...budget,
      value: drain,
      reason: `${budget.reason} Simulated: ${sim.sentence}.${lowered}`,
      inputs: { ...budget.inputs, simulatedVerdict: sim.verdict, simulatedMinReady: sim.minReady },
    };
  }
  const sim = simulateDrain(1);
  if (accepted !== undefined) {
    return {
      value: 1,
      overridden: true,
      inputs: { ...budget.inputs, simulatedVerdict: sim.verdict, noHeadroomAccepted: true },
      reason:
        `Overridden (overrides.acceptNoHeadroom): ${accepted} The fleet has NO headroom at peak: the simulated ` +
        `one-pod drain does not hold (${sim.sentence}), so a drain at peak can start the readiness cascade ` +
        '(docs/mechanisms.md#readiness-control-loop). One pod at a time, the least that still lets nodes drain; ' +
        'drain off-peak, and scale out to remove this override.',
    };
  }
  throw new RollwiseInputError(
    'replicas',
    replicas,
    `the fleet simulator says even a one-pod drain at peak does not hold: ${sim.sentence}. The survivors' health ` +
      'path slows past the probe deadline and readiness removes capacity exactly when it is short ' +
      '(docs/mechanisms.md#readiness-control-loop).',
    `scale out first (more replicas), or lower the health path's latency under load; run \`rollwise simulate\` on a ` +
      'scenario to see the collapse. If the fleet must run so for now, accept it with overrides.acceptNoHeadroom: { ' +
      `value: true, because: '<why, and until when>' }.`,
  );
}
