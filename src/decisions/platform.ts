import { Duration } from 'cdk8s';
import { RollwiseInputError } from '../errors';
import { decided, Decision, Override, withOverride } from './decision';
import { checkDuration, showSeconds } from './inputs';

/**
 * How a pod delays its exit until the proxies have stopped sending it requests. Kubernetes 1.28
 * has no built-in sleep hook (the `sleep` lifecycle action arrived in 1.29/1.30), and an `exec`
 * hook runs without a shell but needs a `sleep` binary in the image: distroless and scratch images
 * have none, so they need one of the other two strategies.
 */
export class ShutdownDelay {
  /** preStop `exec: [binary, N]` (no shell involved). @param binary the sleep executable in the image */
  public static execSleep(binary = 'sleep'): ShutdownDelay {
    return new ShutdownDelay('exec', binary);
  }
  /** preStop `httpGet` on a path whose handler waits before answering (for images without `sleep`). */
  public static httpGet(path: string): ShutdownDelay {
    return new ShutdownDelay('http', path);
  }
  /** The application itself keeps serving for the propagation time after SIGTERM; no hook. */
  public static inApplication(): ShutdownDelay {
    return new ShutdownDelay('app', '');
  }
  private constructor(public readonly kind: 'exec' | 'http' | 'app', public readonly target: string) {}
}

/** Org-wide settings a platform team sets once and every service shares. */
export interface PlatformProps {
  /**
   * Readiness probe period.
   * @default 10 s (the Kubernetes default; every window in the reasons is a multiple of it)
   */
  readonly readinessPeriod?: Override<Duration>;
  /**
   * Start-up budget for services that do not declare one.
   * @default 60 s
   */
  readonly startupBudget?: Override<Duration>;
  /**
   * Highest fraction of the measured saturation rate a replica may run at while others are
   * disrupted. Used to size the PodDisruptionBudget.
   * @default 0.8
   */
  readonly peakUtilisationCeiling?: Override<number>;
  /**
   * How long endpoint removal takes to reach every proxy (EndpointSlice -> kube-proxy / xDS).
   * @default 10 s
   */
  readonly endpointPropagation?: Override<Duration>;
  /**
   * How long the application may take to finish in-flight requests after SIGTERM.
   * @default 20 s
   */
  readonly shutdownDrain?: Override<Duration>;
  /**
   * How pods wait out endpoint propagation before the application sees SIGTERM.
   * @default ShutdownDelay.execSleep()
   */
  readonly shutdownDelay?: ShutdownDelay;
  /**
   * Labels added to every object (team, cost centre).
   * @default none
   */
  readonly labels?: Record<string, string>;
}

/** Resolved platform settings, each with its reason. */
export class Platform {
  /** The settings rollwise ships, each with its reason. */
  public static defaults(): Platform {
    return new Platform({});
  }

  public readonly readinessPeriodSeconds: Decision<number>;
  public readonly startupBudgetSeconds: Decision<number>;
  public readonly peakUtilisationCeiling: Decision<number>;
  public readonly endpointPropagationSeconds: Decision<number>;
  public readonly shutdownDrainSeconds: Decision<number>;
  public readonly shutdownDelay: ShutdownDelay;
  public readonly labels: Record<string, string>;

  constructor(props: PlatformProps) {
    const secs = (d: Duration) => d.toSeconds({ integral: false });
    const dur = (o: Override<Duration> | undefined) => o && { value: secs(o.value), because: o.because };
    const show = (s: number) => showSeconds(s);

    this.readinessPeriodSeconds = withOverride('platform.readinessPeriod', decided(10,
      'The Kubernetes default period; every readiness window below is a multiple of it, and probing more often adds load on the handler without detecting a real failure sooner than the failure threshold allows.'),
    dur(props.readinessPeriod), show);
    if (props.readinessPeriod) checkDuration('platform.readinessPeriod', props.readinessPeriod.value, 2, 60, 'the period must leave room for a 3 s timeout below it, and a period over a minute makes leaving and returning take minutes.', 'use 10 s unless you measured a reason to differ.');

    this.startupBudgetSeconds = withOverride('platform.startupBudget', decided(60,
      'Platform default for services that do not declare a start-up budget: one minute covers a typical JVM/Python warm-up; declare health.startupBudget for anything slower so liveness never counts a slow start.'),
    dur(props.startupBudget), show);

    this.peakUtilisationCeiling = withOverride('platform.peakUtilisationCeiling', decided(0.8,
      'Survivors of a disruption may run at most at 80 % of their measured saturation rate: queueing delay grows as 1/(1 - utilisation), so above ~80 % the health path\'s latency climbs toward the probe deadline and one departure can cause the next (field-notes 1, gain above one); the margin also absorbs the error in an "about" saturation figure.'),
    props.peakUtilisationCeiling && { value: props.peakUtilisationCeiling.value, because: props.peakUtilisationCeiling.because }, (v) => `${Math.round(v * 100)} %`);
    if (props.peakUtilisationCeiling) {
      const v = props.peakUtilisationCeiling.value;
      if (!(v > 0 && v <= 0.95)) {
        throw new RollwiseInputError('platform.peakUtilisationCeiling', v, 'must be above 0 and at most 0.95: at saturation queueing delay is unbounded, so survivors planned at 100 % time out their probes.', 'use 0.8 unless load tests show the health path stays fast closer to saturation.');
      }
    }

    this.endpointPropagationSeconds = withOverride('platform.endpointPropagation', decided(10,
      'kubelet status -> API server -> EndpointSlice controller -> every kube-proxy and the gateway\'s xDS takes seconds (field-notes 1, delay); 10 s covers the tail on a busy cluster.'),
    dur(props.endpointPropagation), show);

    this.shutdownDrainSeconds = withOverride('platform.shutdownDrain', decided(20,
      'Time for in-flight requests to finish after SIGTERM once no new ones arrive; 20 s covers request timeouts of typical HTTP APIs.'),
    dur(props.shutdownDrain), show);

    this.shutdownDelay = props.shutdownDelay ?? ShutdownDelay.execSleep();
    this.labels = { ...(props.labels ?? {}) };
  }
}
