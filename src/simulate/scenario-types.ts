/** The resolved scenario: what the fleet model (model.ts) consumes, complete and valid. */

export interface ProbeSettings {
  periodSeconds: number;
  timeoutSeconds: number;
  failureThreshold: number;
  successThreshold: number;
}

/** Latency of a dependency the probe handler calls synchronously, as a lognormal fitted to p50 and p99. */
export interface DependencySettings {
  p50Seconds: number;
  p99Seconds: number;
}

export interface ReadinessSettings extends ProbeSettings {
  /** The readiness handler calls this dependency synchronously (docs/mechanisms.md#readiness-calls-a-dependency). */
  dependency?: DependencySettings;
}

export interface LivenessSettings extends ProbeSettings {
  /**
   * `http`: an httpGet/grpc/exec handler that runs inside the container and
   * shares its CPU (latency follows load). `tcp`: a tcpSocket probe answered by
   * the kernel's accept queue, independent of load.
   */
  handler: 'http' | 'tcp';
  dependency?: DependencySettings;
}

export type CapacityModel =
  | {
      kind: 'cpu';
      /** `resources.requests.cpu`, cores. Informational plus the basis of the `burstCores` default. */
      requestCores: number;
      /** `resources.limits.cpu`, cores; undefined = no CFS limit. */
      limitCores?: number;
      /** CPU a container without a limit can actually get (request plus idle node CPU), cores. */
      burstCores: number;
      /** CPU cost of one request, core-seconds. */
      cpuSecondsPerRequest: number;
      /** Latency of the health handler on an idle pod, seconds. */
      healthSeconds: number;
    }
  | {
      kind: 'points';
      /** Measured p99 of the health handler at a per-replica load, ascending by rps. */
      points: Array<{ rps: number; p99Seconds: number }>;
      /** Per-replica rate above which requests queue, req/s. */
      saturationRps: number;
    };

export type LoadProfile =
  | { kind: 'constant'; rps: number }
  | { kind: 'steps'; steps: Array<{ atSeconds: number; rps: number }> }
  | { kind: 'daily'; troughRps: number; peakRps: number; peakAtSeconds: number };

export type SimEvent =
  | {
      kind: 'drain';
      atSeconds: number;
      count: number;
      /** Replacement pods are created this long after the eviction; undefined = never within the run. */
      replaceAfterSeconds?: number;
    }
  | {
      kind: 'rollout';
      atSeconds: number;
      /** Absolute pod counts (percentages are resolved against `replicas`). */
      maxSurge: number;
      maxUnavailable: number;
      minReadySeconds: number;
    };

export interface Scenario {
  name: string;
  seed: number;
  durationSeconds: number;
  stepSeconds: number;
  sampleSeconds: number;
  replicas: number;
  readiness: ReadinessSettings;
  liveness?: LivenessSettings;
  capacity: CapacityModel;
  load: LoadProfile;
  proxy: { propagationSeconds: number; requestTimeoutSeconds: number };
  pods: { startSeconds: number };
  events: SimEvent[];
  /** Ready endpoints the fleet should never fall below. */
  floor: number;
  /** Error ratio above which the run is at least `degraded`. */
  errorBudget: number;
}
