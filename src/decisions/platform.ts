import { Duration } from 'cdk8s';
import { RollwiseInputError } from '../errors';
import { decided, Decision, Override, withOverride } from './decision';
import { checkDuration, seconds, showSeconds } from './inputs';

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
  /**
   * The shared Gateway the services' HTTPRoutes attach to.
   * @default none: canary delivery (which needs an HTTPRoute) then fails with a clear error
   */
  readonly gateway?: GatewayRef;
  /**
   * Prometheus base URL the canary analysis queries.
   * @default none: canary delivery then fails with a clear error
   */
  readonly prometheusAddress?: string;
  /**
   * Highest 5xx ratio a canary may show.
   * @default 0.01
   */
  readonly canaryMaxErrorRatio?: Override<number>;
  /**
   * Web URL of the folder holding the committed runbooks (e.g. the Git host's view of dist/);
   * each alert links to `<runbookBaseUrl>/<service>.runbook.md#<alert>`.
   * @default none: no PrometheusRule is emitted and synth warns why
   */
  readonly runbookBaseUrl?: string;
  /**
   * Labels the Prometheus `ruleSelector` matches (e.g. `{ release: 'kube-prometheus-stack' }`).
   * @default none: only the platform labels
   */
  readonly prometheusRuleLabels?: Record<string, string>;
  /**
   * Where Argo CD finds the committed output.
   * @default none: no Argo CD Application is emitted
   */
  readonly argoCd?: ArgoCdSettings;
}

/** A Gateway API Gateway (and optionally one of its listeners). */
export interface GatewayRef {
  readonly name: string;
  readonly namespace: string;
  /**
   * Listener name.
   * @default all listeners of the Gateway that allow the route
   */
  readonly sectionName?: string;
}

/** Argo CD settings shared by every service's Application. */
export interface ArgoCdSettings {
  /** Git repository holding the committed dist/. */
  readonly repoURL: string;
  /**
   * Branch, tag or commit Argo CD follows.
   * @default 'main'
   */
  readonly targetRevision?: string;
  /** Folder of the synthesized manifests in the repository, e.g. 'dist' or 'dist/prod'. */
  readonly path: string;
  /**
   * Argo CD project.
   * @default 'default'
   */
  readonly project?: string;
  /**
   * Namespace Argo CD watches for Applications.
   * @default 'argocd'
   */
  readonly namespace?: string;
  /**
   * Destination cluster API server.
   * @default 'https://kubernetes.default.svc' (the cluster Argo CD runs in)
   */
  readonly server?: string;
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
  public readonly gateway?: GatewayRef;
  public readonly prometheusAddress?: string;
  public readonly canaryMaxErrorRatio: Decision<number>;
  public readonly argoCd?: ArgoCdSettings;
  public readonly runbookBaseUrl?: string;
  public readonly prometheusRuleLabels: Record<string, string>;

  constructor(props: PlatformProps) {
    const dur = (o: Override<Duration> | undefined) => o && { value: seconds(o.value), because: o.because };
    const show = (s: number) => showSeconds(s);

    this.readinessPeriodSeconds = withOverride('platform.readinessPeriod', decided(10,
      'The Kubernetes default period; every readiness window below is a multiple of it, and probing more often adds load on the handler without detecting a real failure sooner than the failure threshold allows.'),
    dur(props.readinessPeriod), show);
    if (props.readinessPeriod) checkDuration('platform.readinessPeriod', props.readinessPeriod.value, 2, 60, 'the period must leave room for a 3 s timeout below it, and a period over a minute makes leaving and returning take minutes.', 'use 10 s unless you measured a reason to differ.');

    this.startupBudgetSeconds = withOverride('platform.startupBudget', decided(60,
      'Platform default for services that do not declare a start-up budget: one minute covers a typical JVM/Python warm-up; declare health.startupBudget for anything slower so liveness never counts a slow start.'),
    dur(props.startupBudget), show);

    this.peakUtilisationCeiling = withOverride('platform.peakUtilisationCeiling', decided(0.8,
      'Survivors of a disruption may run at most at 80 % of their measured saturation rate: queueing delay grows as 1/(1 - utilisation), so above ~80 % the health path\'s latency climbs toward the probe deadline and one departure can cause the next (docs/mechanisms.md#readiness-control-loop, gain above one); the margin also absorbs the error in an "about" saturation figure.'),
    props.peakUtilisationCeiling && { value: props.peakUtilisationCeiling.value, because: props.peakUtilisationCeiling.because }, (v) => `${Math.round(v * 100)} %`);
    if (props.peakUtilisationCeiling) {
      const v = props.peakUtilisationCeiling.value;
      if (!(v > 0 && v <= 0.95)) {
        throw new RollwiseInputError('platform.peakUtilisationCeiling', v, 'must be above 0 and at most 0.95: at saturation queueing delay is unbounded, so survivors planned at 100 % time out their probes.', 'use 0.8 unless load tests show the health path stays fast closer to saturation.');
      }
    }

    this.endpointPropagationSeconds = withOverride('platform.endpointPropagation', decided(10,
      'kubelet status -> API server -> EndpointSlice controller -> every kube-proxy and the gateway\'s xDS takes seconds (docs/mechanisms.md#readiness-control-loop, delay); 10 s covers the tail on a busy cluster.'),
    dur(props.endpointPropagation), show);

    this.shutdownDrainSeconds = withOverride('platform.shutdownDrain', decided(20,
      'Time for in-flight requests to finish after SIGTERM once no new ones arrive; 20 s covers request timeouts of typical HTTP APIs.'),
    dur(props.shutdownDrain), show);

    this.shutdownDelay = props.shutdownDelay ?? ShutdownDelay.execSleep();
    this.labels = { ...(props.labels ?? {}) };
    this.gateway = props.gateway;
    if (props.prometheusAddress !== undefined && !/^https?:\/\/[^\s/]+/.test(props.prometheusAddress)) {
      throw new RollwiseInputError('platform.prometheusAddress', props.prometheusAddress, 'the Argo Rollouts Prometheus provider needs an absolute http(s) URL; anything else makes every measurement an Error.', 'give the in-cluster URL, e.g. "http://prometheus-operated.monitoring.svc:9090".');
    }
    this.prometheusAddress = props.prometheusAddress;
    this.canaryMaxErrorRatio = withOverride('platform.canaryMaxErrorRatio', decided(0.01,
      'A canary may fail at most 1 % of its requests (the design card\'s threshold, docs/mechanisms.md#canary-analysis); measured on the canary\'s own traffic, not diluted by the stable share.'),
    props.canaryMaxErrorRatio, (v) => `${v}`);
    if (!(this.canaryMaxErrorRatio.value > 0 && this.canaryMaxErrorRatio.value < 0.5)) {
      throw new RollwiseInputError('platform.canaryMaxErrorRatio', this.canaryMaxErrorRatio.value, 'must be above 0 and below 0.5: 0 aborts on any single error, and at 0.5 a canary failing half its requests passes.', 'use 0.01 unless your SLO says otherwise.');
    }
    this.argoCd = props.argoCd;
    if (props.runbookBaseUrl !== undefined && !/^https?:\/\/[^\s#]+$/.test(props.runbookBaseUrl)) {
      throw new RollwiseInputError('platform.runbookBaseUrl', props.runbookBaseUrl, 'alerts link to `<url>/<service>.runbook.md#<alert>`, so it must be an http(s) URL without "#" or spaces.', 'use e.g. "https://github.com/acme/deploy/blob/main/dist".');
    }
    this.runbookBaseUrl = props.runbookBaseUrl?.replace(/\/+$/, '');
    this.prometheusRuleLabels = { ...(props.prometheusRuleLabels ?? {}) };
  }
}
