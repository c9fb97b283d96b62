import { Duration } from 'cdk8s';
import { RollwiseInputError } from '../errors';
import { checkOverrideShape, decided, Decision, Override, withOverride } from './decision';
import { checkKeys, keysOf } from './props-keys';
import {
  checkDnsLabel,
  checkDnsSubdomain,
  checkLabels,
  checkPath,
  checkWholeSeconds,
  seconds,
  showSeconds,
} from './inputs';
import { KubernetesVersion } from './kubernetes-version';
import { MIN_STARTUP_BUDGET_SECONDS, STARTUP_FLOOR_WHY } from './probes';
import type { NamespacePolicy } from './namespaces';
import { checkWhatArgoCdAccepts } from '../checks/argo-cd-spec';

/** The known keys of the platform's props groups (checked with checkKeys). */
export const PLATFORM_KEYS = keysOf<PlatformProps>()({
  readinessPeriod: true,
  startupBudget: true,
  peakUtilisationCeiling: true,
  endpointPropagation: true,
  shutdownDrain: true,
  shutdownDelay: true,
  kubernetesVersion: true,
  labels: true,
  gateway: true,
  prometheusAddress: true,
  canaryMaxErrorRatio: true,
  runbookBaseUrl: true,
  prometheusRuleLabels: true,
  measurementMaxAge: true,
  argoCd: true,
});
export const GATEWAY_KEYS = keysOf<GatewayRef>()({ name: true, namespace: true, sectionName: true });
export const ARGOCD_SETTINGS_KEYS = keysOf<ArgoCdSettings>()({
  repoURL: true,
  targetRevision: true,
  path: true,
  project: true,
  namespace: true,
  server: true,
  namespaces: true,
});

/**
 * How a pod delays its exit until the proxies have stopped sending it requests. Kubernetes 1.28
 * has no built-in sleep hook (the `sleep` lifecycle action is alpha in 1.29, on by default from
 * 1.30), and an `exec` hook runs without a shell but needs a `sleep` binary in the image:
 * distroless and scratch images have none, so on 1.28 they need `httpGet` or `inApplication`.
 */
export class ShutdownDelay {
  /** preStop `exec: [binary, N]` (no shell involved). @param binary the sleep executable in the image */
  public static execSleep(binary = 'sleep'): ShutdownDelay {
    if (typeof binary !== 'string' || binary === '' || /\s/.test(binary)) {
      throw new RollwiseInputError(
        'ShutdownDelay.execSleep(binary)',
        binary ?? null,
        'is run without a shell, so it must be one executable name or path without spaces.',
        'use "sleep" or e.g. "/bin/sleep".',
      );
    }
    return new ShutdownDelay('exec', binary);
  }
  /** preStop `httpGet` on a path whose handler waits before answering (for images without `sleep`). */
  public static httpGet(path: string): ShutdownDelay {
    return new ShutdownDelay('http', checkPath('ShutdownDelay.httpGet(path)', path));
  }
  /** The application itself keeps serving for the propagation time after SIGTERM; no hook. */
  public static inApplication(): ShutdownDelay {
    return new ShutdownDelay('app', '');
  }
  /**
   * The kubelet's own preStop `sleep` action: no binary needed in the image (distroless works).
   * Needs platform.kubernetesVersion 1.30 or later (KubernetesVersion.V1_33).
   */
  public static sleepAction(): ShutdownDelay {
    return new ShutdownDelay('sleep', '');
  }
  private constructor(
    public readonly kind: 'exec' | 'http' | 'app' | 'sleep',
    public readonly target: string,
  ) {}
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
   * How pods wait out endpoint propagation before the application sees SIGTERM; each service may
   * set its own (`container.shutdownDelay`), since it depends on the image.
   * @default ShutdownDelay.sleepAction() where kubernetesVersion allows it (1.30+), else ShutdownDelay.execSleep()
   */
  readonly shutdownDelay?: ShutdownDelay;
  /**
   * The Kubernetes version of the target clusters (the oldest one, if they differ): it decides which
   * API features are used and which schema the output is validated against.
   * @default KubernetesVersion.V1_28 (the version cdk8s-plus-28 targets)
   */
  readonly kubernetesVersion?: KubernetesVersion;
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
   * Oldest a service's measurements (`rollwise measure`) may be before synth warns.
   * @default 30 days
   */
  readonly measurementMaxAge?: Override<Duration>;
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
  /**
   * How the destination namespaces come to exist, with their Pod Security labels.
   * @default NamespacePolicy.createdByArgoCd(): CreateNamespace=true, enforcing "restricted"
   */
  readonly namespaces?: NamespacePolicy;
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
  /** True when shutdownDelay was set explicitly (not derived from the Kubernetes version). */
  public readonly shutdownDelaySet: boolean;
  public readonly kubernetesVersion: KubernetesVersion;
  public readonly labels: Record<string, string>;
  public readonly gateway?: GatewayRef;
  public readonly prometheusAddress?: string;
  public readonly canaryMaxErrorRatio: Decision<number>;
  public readonly argoCd?: ArgoCdSettings;
  public readonly runbookBaseUrl?: string;
  public readonly prometheusRuleLabels: Record<string, string>;
  public readonly measurementMaxAgeSeconds: Decision<number>;

  constructor(props: PlatformProps) {
    // A JavaScript caller: props must be an object of known settings (a typo is refused with "did
    // you mean"), each override { value, because } with a value of its type, checked before use.
    if (props === undefined) props = {};
    checkKeys('platform', props, PLATFORM_KEYS);
    for (const k of [
      'readinessPeriod',
      'startupBudget',
      'peakUtilisationCeiling',
      'endpointPropagation',
      'shutdownDrain',
      'canaryMaxErrorRatio',
      'measurementMaxAge',
    ] as const) {
      checkOverrideShape(`platform.${k}`, props[k]);
    }
    for (const k of [
      'readinessPeriod',
      'startupBudget',
      'endpointPropagation',
      'shutdownDrain',
      'measurementMaxAge',
    ] as const) {
      const v = props[k]?.value;
      if (props[k] !== undefined && !(v instanceof Duration))
        throw new RollwiseInputError(
          `platform.${k}.value`,
          v ?? null,
          'must be a Duration.',
          `use e.g. { value: Duration.seconds(10), because: '...' }.`,
        );
    }
    for (const k of ['peakUtilisationCeiling', 'canaryMaxErrorRatio'] as const) {
      const v = props[k]?.value;
      if (props[k] !== undefined && (typeof v !== 'number' || !Number.isFinite(v)))
        throw new RollwiseInputError(
          `platform.${k}.value`,
          v ?? null,
          'must be a finite number.',
          `use e.g. { value: ${k === 'canaryMaxErrorRatio' ? '0.01' : '0.8'}, because: '...' }.`,
        );
    }
    checkKeys('platform.gateway', props.gateway, GATEWAY_KEYS);
    if (props.argoCd !== undefined) checkArgoCdSettings('platform.argoCd', props.argoCd);
    const dur = (o: Override<Duration> | undefined) => o && { value: seconds(o.value), because: o.because };
    const show = (s: number) => showSeconds(s);

    this.readinessPeriodSeconds = withOverride(
      'platform.readinessPeriod',
      decided(
        10,
        'The Kubernetes default period; every readiness window below is a multiple of it, and probing more often adds ' +
          'load on the handler without detecting a real failure sooner than the failure threshold allows.',
      ),
      dur(props.readinessPeriod),
      show,
    );
    if (props.readinessPeriod)
      checkWholeSeconds(
        'platform.readinessPeriod',
        props.readinessPeriod.value,
        4,
        60,
        'the period must leave room for the 3 s timeout floor below it (probes must not overlap), and a period over a ' +
          'minute makes leaving and returning take minutes.',
        'use 10 s unless you measured a reason to differ.',
      );
    if (props.startupBudget)
      checkWholeSeconds(
        'platform.startupBudget',
        props.startupBudget.value,
        MIN_STARTUP_BUDGET_SECONDS,
        3600,
        `it is the start-up budget of every service and sidecar that declares none; ${STARTUP_FLOOR_WHY}.`,
        `use e.g. Duration.seconds(60) (at least ${MIN_STARTUP_BUDGET_SECONDS} s).`,
      );
    if (props.endpointPropagation)
      checkWholeSeconds(
        'platform.endpointPropagation',
        props.endpointPropagation.value,
        1,
        300,
        'it becomes the preStop sleep and part of terminationGracePeriodSeconds, an integer; 0 would close the ' +
          'listener while proxies still send requests (docs/mechanisms.md#readiness-control-loop).',
        'use the propagation you measured, rounded up, e.g. Duration.seconds(10).',
      );
    if (props.shutdownDrain)
      checkWholeSeconds(
        'platform.shutdownDrain',
        props.shutdownDrain.value,
        0,
        3600,
        'it is part of terminationGracePeriodSeconds, an integer.',
        'use e.g. Duration.seconds(20).',
      );

    this.startupBudgetSeconds = withOverride(
      'platform.startupBudget',
      decided(
        60,
        'Platform default for services that do not declare a start-up budget: one minute covers a typical JVM/Python ' +
          'warm-up; declare health.startupBudget for anything slower so liveness never counts a slow start.',
      ),
      dur(props.startupBudget),
      show,
    );

    this.peakUtilisationCeiling = withOverride(
      'platform.peakUtilisationCeiling',
      decided(
        0.8,
        'Survivors of a disruption may run at most at 80 % of their measured saturation rate: queueing delay grows as ' +
          "1/(1 - utilisation), so above ~80 % the health path's latency climbs toward the probe deadline and one " +
          'departure can cause the next (docs/mechanisms.md#readiness-control-loop, gain above one); the margin also ' +
          'absorbs the error in an "about" saturation figure.',
      ),
      props.peakUtilisationCeiling && {
        value: props.peakUtilisationCeiling.value,
        because: props.peakUtilisationCeiling.because,
      },
      (v) => `${Math.round(v * 100)} %`,
    );
    if (props.peakUtilisationCeiling) {
      const v = props.peakUtilisationCeiling.value;
      if (!(v > 0 && v <= 0.95)) {
        throw new RollwiseInputError(
          'platform.peakUtilisationCeiling',
          v,
          'must be above 0 and at most 0.95: at saturation queueing delay is unbounded, so survivors planned at 100 ' +
            '% time out their probes.',
          'use 0.8 unless load tests show the health path stays fast closer to saturation.',
        );
      }
    }

    this.endpointPropagationSeconds = withOverride(
      'platform.endpointPropagation',
      decided(
        10,
        "kubelet status -> API server -> EndpointSlice controller -> every kube-proxy and the gateway's xDS takes " +
          'seconds (docs/mechanisms.md#readiness-control-loop, delay); 10 s covers the tail on a busy cluster.',
      ),
      dur(props.endpointPropagation),
      show,
    );

    this.shutdownDrainSeconds = withOverride(
      'platform.shutdownDrain',
      decided(
        20,
        'Time for in-flight requests to finish after SIGTERM once no new ones arrive; 20 s covers request timeouts of ' +
          'typical HTTP APIs.',
      ),
      dur(props.shutdownDrain),
      show,
    );

    this.measurementMaxAgeSeconds = withOverride(
      'platform.measurementMaxAge',
      decided(
        30 * 86400,
        "A month: releases, traffic growth and dependency changes move a handler's p99 at peak within weeks, and a " +
          'month still holds four weekly peaks to measure again from.',
      ),
      dur(props.measurementMaxAge),
      show,
    );

    this.kubernetesVersion = props.kubernetesVersion ?? KubernetesVersion.V1_28;
    if (!(this.kubernetesVersion instanceof KubernetesVersion)) {
      throw new RollwiseInputError(
        'platform.kubernetesVersion',
        props.kubernetesVersion,
        'must be a KubernetesVersion: it selects the API features used and the schema the output is validated ' +
          'against.',
        'use KubernetesVersion.V1_28, KubernetesVersion.V1_33 or KubernetesVersion.of("1.33").',
      );
    }
    this.shutdownDelaySet = props.shutdownDelay !== undefined;
    this.shutdownDelay =
      props.shutdownDelay ??
      (this.kubernetesVersion.sleepAction ? ShutdownDelay.sleepAction() : ShutdownDelay.execSleep());
    checkShutdownDelay('platform.shutdownDelay', this.shutdownDelay, this.kubernetesVersion);
    this.labels = checkLabels('platform.labels', props.labels);
    if (props.gateway !== undefined) {
      checkDnsSubdomain('platform.gateway.name', props.gateway?.name, 'public');
      checkDnsLabel('platform.gateway.namespace', props.gateway?.namespace, 'envoy-gateway-system');
      if (props.gateway.sectionName !== undefined)
        checkDnsSubdomain('platform.gateway.sectionName', props.gateway.sectionName, 'https');
    }
    this.gateway = props.gateway;
    if (props.prometheusAddress !== undefined && !/^https?:\/\/[^\s/]+/.test(props.prometheusAddress)) {
      throw new RollwiseInputError(
        'platform.prometheusAddress',
        props.prometheusAddress,
        'the Argo Rollouts Prometheus provider needs an absolute http(s) URL; anything else makes every measurement ' +
          'an Error.',
        'give the in-cluster URL, e.g. "http://prometheus-operated.monitoring.svc:9090".',
      );
    }
    this.prometheusAddress = props.prometheusAddress;
    this.canaryMaxErrorRatio = withOverride(
      'platform.canaryMaxErrorRatio',
      decided(
        0.01,
        "A canary may fail at most 1 % of its requests (the design card's threshold, " +
          "docs/mechanisms.md#canary-analysis); measured on the canary's own traffic, not diluted by the stable share.",
      ),
      props.canaryMaxErrorRatio,
      (v) => `${v}`,
    );
    if (!(this.canaryMaxErrorRatio.value > 0 && this.canaryMaxErrorRatio.value < 0.5)) {
      throw new RollwiseInputError(
        'platform.canaryMaxErrorRatio',
        this.canaryMaxErrorRatio.value,
        'must be above 0 and below 0.5: 0 aborts on any single error, and at 0.5 a canary failing half its requests ' +
          'passes.',
        'use 0.01 unless your SLO says otherwise.',
      );
    }
    this.argoCd = props.argoCd;
    if (props.runbookBaseUrl !== undefined && !/^https?:\/\/[^\s#]+$/.test(props.runbookBaseUrl)) {
      throw new RollwiseInputError(
        'platform.runbookBaseUrl',
        props.runbookBaseUrl,
        'alerts link to `<url>/<service>.runbook.md#<alert>`, so it must be an http(s) URL without "#" or spaces.',
        'use e.g. "https://github.com/acme/deploy/blob/main/dist".',
      );
    }
    this.runbookBaseUrl = props.runbookBaseUrl?.replace(/\/+$/, '');
    this.prometheusRuleLabels = checkLabels('platform.prometheusRuleLabels', props.prometheusRuleLabels);
  }
}

/**
 * Argo CD settings as a JavaScript caller may pass them: known keys, the required repository and
 * path present (without a path the Application would have no source.path), strings where strings
 * belong, and the Applications' namespace a DNS label (the API server refuses anything else).
 * `input` names them as the user wrote them (`platform.argoCd`, or the Application's `settings`).
 */
export function checkArgoCdSettings(input: string, s: ArgoCdSettings): ArgoCdSettings {
  checkKeys(input, s, ARGOCD_SETTINGS_KEYS);
  if (s === undefined) {
    throw new RollwiseInputError(
      input,
      'undefined',
      'the Application needs the repository, path and destination from these settings.',
      `give ${input}: { repoURL: 'https://github.com/acme/deploy.git', path: 'dist/prod' } (usually platform.argoCd).`,
    );
  }
  for (const k of ['repoURL', 'path'] as const) {
    if (typeof s[k] !== 'string' || s[k].trim() === '') {
      throw new RollwiseInputError(
        `${input}.${k}`,
        s[k] === undefined ? 'unset' : (s[k] ?? null),
        k === 'path'
          ? 'is required: it is the folder of the committed manifests in the repository, and an Application without ' +
              "source.path applies the repository's root (or nothing)."
          : 'is required: it is the Git repository Argo CD clones the committed manifests from.',
        `set ${input}.${k}, e.g. ${k === 'path' ? "'dist/prod'" : "'https://github.com/acme/deploy.git'"}.`,
      );
    }
  }
  for (const k of ['targetRevision', 'project', 'namespace', 'server'] as const) {
    if (s[k] !== undefined && typeof s[k] !== 'string')
      throw new RollwiseInputError(
        `${input}.${k}`,
        s[k] ?? null,
        'must be a string.',
        `give ${input}.${k} as a string, or leave it out for the default.`,
      );
  }
  if (s.namespace !== undefined) checkDnsLabel(`${input}.namespace`, s.namespace, 'argocd');
  // what Argo CD and the API server refuse in the path, project, server and namespace
  checkWhatArgoCdAccepts(input, s);
  return s;
}

/** Refuses a shutdown delay the target Kubernetes version cannot run. */
export function checkShutdownDelay(input: string, delay: ShutdownDelay, version: KubernetesVersion): void {
  if (!(delay instanceof ShutdownDelay)) {
    throw new RollwiseInputError(
      input,
      delay,
      'must be a ShutdownDelay: it decides how the pod waits out endpoint propagation before SIGTERM.',
      'use ShutdownDelay.sleepAction(), execSleep(), httpGet(path) or inApplication().',
    );
  }
  if (delay.kind === 'sleep' && !version.sleepAction) {
    throw new RollwiseInputError(
      input,
      'ShutdownDelay.sleepAction()',
      'the preStop sleep action is on by default only from Kubernetes 1.30 (PodLifecycleSleepAction), and ' +
        `platform.kubernetesVersion is ${version.name}: the API server would reject or drop the hook and the pod ` +
        'would get SIGTERM while proxies still send it requests.',
      'set platform.kubernetesVersion to KubernetesVersion.V1_33 if every cluster runs 1.33, or use ' +
        'ShutdownDelay.httpGet(path) / inApplication() for an image without a sleep binary.',
    );
  }
  if (
    delay.kind === 'exec' &&
    (typeof delay.target !== 'string' || delay.target.trim() === '' || /\s/.test(delay.target))
  ) {
    throw new RollwiseInputError(
      input,
      delay.target,
      'the exec hook runs this binary without a shell, so it must be one path without spaces.',
      'use ShutdownDelay.execSleep() or e.g. ShutdownDelay.execSleep("/busybox/sleep").',
    );
  }
  if (
    delay.kind === 'http' &&
    (typeof delay.target !== 'string' || !delay.target.startsWith('/') || /\s/.test(delay.target))
  ) {
    throw new RollwiseInputError(
      input,
      delay.target,
      'the preStop httpGet path must start with "/" and contain no whitespace.',
      'use e.g. ShutdownDelay.httpGet("/shutdown-delay").',
    );
  }
}
