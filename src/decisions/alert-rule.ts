import { Duration } from 'cdk8s';
import type { Decision, Override } from './decision';
import { formatGoDuration } from './inputs';
import type { Platform } from './platform';

/**
 * Which controller runs the pods. It decides where "desired replicas" and "the rollout is
 * degraded" come from (the Argo Rollouts controller's metrics or kube-state-metrics).
 */
export class WorkloadKind {
  /** An Argo Rollout named like the service (canary with traffic routing). */
  public static readonly ROLLOUT = new WorkloadKind('Rollout');
  /** A Deployment named like the service. */
  public static readonly DEPLOYMENT = new WorkloadKind('Deployment');
  private constructor(public readonly kind: 'Rollout' | 'Deployment') {}
}

/** Where the service's objects are, so each alert selects exactly this service's series. */
export interface AlertTargets {
  /** The namespace of the workload, its Services and its HTTPRoute. */
  readonly namespace: string;
  readonly workload: WorkloadKind;
  /**
   * Base URL of the service's runbook (e.g. the Git web URL of the committed file); each alert links
   * `<runbookUrl>#<section>`.
   */
  readonly runbookUrl: string;
  /**
   * Whether the service has an HTTPRoute; without one, no Envoy alerts (their series would never exist).
   * @default true
   */
  readonly route?: boolean;
  /**
   * Name of the application container (cAdvisor's `container` label).
   * @default "app" (the container the pod template renders)
   */
  readonly containerName?: string;
}

/** Settings of the alerts; each has a reasoned default. */
export interface AlertSettings {
  /**
   * The route's 5xx ratio above which the service is out of its SLO.
   * @default 0.01 (the canary analysis threshold of docs/mechanisms.md#canary-analysis, so the gate and the alert
   * agree)
   */
  readonly sloErrorRatio?: Override<number>;
  /**
   * CPU throttled-periods ratio above which the throttling alert fires (only with a CPU limit).
   * @default 0.25 (kubernetes-mixin's CPUThrottlingHigh default)
   */
  readonly cpuThrottlingRatio?: Override<number>;
  /**
   * Scrape interval of kube-state-metrics, cAdvisor and the Envoy proxies; rate windows and
   * subquery steps are multiples of it.
   * @default 30 s (kube-prometheus-stack's ServiceMonitor interval)
   */
  readonly scrapeInterval?: Duration;
  /**
   * Platform settings (utilisation ceiling, endpoint propagation).
   * @default Platform.defaults()
   */
  readonly platform?: Platform;
}

export type AlertSeverity = 'critical' | 'warning';

/** One alerting rule with what a responder needs; the reason lives in the enclosing Decision. */
export interface AlertRule {
  /** Alert name (also the runbook heading). */
  readonly alert: string;
  /** The mechanism it detects, as a label value (e.g. "UH", "readiness-floor"). */
  readonly mechanism: string;
  readonly severity: AlertSeverity;
  readonly expr: string;
  /** Prometheus duration, e.g. "2m". */
  readonly for: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<{ summary: string; description: string; runbook_url: string }>;
  /** Runbook section anchor (GitHub-style slug of the heading `alert`). */
  readonly anchor: string;
  /** What the alert means, for the runbook. */
  readonly meaning: string;
  /** What to check first, for the runbook (Markdown, one item per entry). */
  readonly checkFirst: readonly string[];
}

/** The alert rules and the values they are built from (shown in the runbook with their reasons). */
export interface AlertDecisions {
  readonly name: string;
  readonly namespace: string;
  readonly workload: WorkloadKind;
  readonly runbookUrl: string;
  /** Regex on `envoy_cluster_name` matching every cluster of the service's HTTPRoute. */
  readonly routeClusterRegex: string;
  /** Whether the service has an HTTPRoute (and so the Envoy alerts). */
  readonly route: boolean;
  /** Regex on kube_pod_owner's `owner_name` matching the service's ReplicaSets (its pods are selected by owner). */
  readonly replicaSetRegex: string;
  /** Regex on kube_endpointslice_*'s `endpointslice` matching the EndpointSlices of the service's Service. */
  readonly endpointSliceRegex: string;
  /** Ready endpoints of the Service `service` (the stable one by default) from its EndpointSlices, 0 when none. */
  readonly readyEndpoints: (service?: string) => string;
  /** Restricts a per-pod expression to the service's pods (by owner), reading the owner over `window`. */
  readonly ownPods: (expr: string, window: string) => string;
  readonly containerName: string;
  /** The PrometheusRule's one group, named after the service. */
  readonly group: Decision<string>;
  readonly rules: readonly Decision<AlertRule>[];
  /** Named values in force (floor, windows, thresholds), each with its reason. */
  readonly values: Readonly<Record<string, Decision<number | string>>>;
}

/** The default SLO error ratio: the canary gate of docs/mechanisms.md#canary-analysis. */
export const DEFAULT_SLO_ERROR_RATIO = 0.01;
/** kubernetes-mixin's CPUThrottlingHigh threshold (cpuThrottlingPercent: 25). */
export const DEFAULT_CPU_THROTTLING_RATIO = 0.25;
/** kube-prometheus-stack scrapes its ServiceMonitors every 30 s. */
export const DEFAULT_SCRAPE_INTERVAL_SECONDS = 30;
/** Crossings of the floor within the oscillation window that make a saw-tooth (down, up, down). */
export const OSCILLATION_CROSSINGS = 3;
/** Ready transitions of one pod within the flap window that count as flapping (two round trips). */
export const FLAP_CHANGES = 4;
/**
 * How long a failed AnalysisRun may claim the abort it caused: a day, so an aborted release can wait a night for its
 * revert in Git and still be reported as a failed analysis; the rule looks no further back.
 */
export const CLAIM_WINDOW_SECONDS = 24 * 3600;
/** Scrapes that may show a run Failed before the rollout shows Abort (two status writes read at one scrape). */
export const CLAIM_SKEW_SCRAPES = 2;
/**
 * The shortest flap window: a slow flap (one round trip every few minutes,
 * docs/mechanisms.md#readiness-calls-a-dependency) must fit twice.
 */
export const FLAP_WINDOW_FLOOR_SECONDS = 600;

/** Prometheus duration text for whole seconds: 120 -> "2m", 90 -> "1m30s", 0 -> "0s". */
export function promDuration(totalSeconds: number): string {
  const s = Math.round(totalSeconds);
  return s === 0 ? '0s' : formatGoDuration(s);
}

/** GitHub's heading anchor: lower case, punctuation other than "-" and "_" removed, spaces to "-". */
export function githubSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}
