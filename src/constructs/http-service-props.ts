import { AppServer } from '../decisions/keep-alive';
import { Override } from '../decisions/decision';
import type { AutoscalingProps } from '../decisions/autoscaling';
import { Delivery } from '../decisions/canary';
import {
  ContainerProps,
  InitContainerProps,
  PodProps,
  SidecarProps,
  WorkloadMetadataProps,
} from '../decisions/containers';
import { Migration } from '../decisions/migrations';
import { Platform } from '../decisions/platform';
import type { RouteProps } from '../decisions/route';
import { CapacityProps, HealthProps, HttpServiceOverrides, ResourcesProps } from '../decisions/service';
import { Measurements } from '../measure/measurements';

export interface HttpServiceProps {
  // --- What runs ---------------------------------------------------------------------------
  /** Container image, pinned by tag or digest. */
  readonly image: string;
  /** Port the server listens on. */
  readonly port: number;
  /** Number of replicas (at least 2). */
  readonly replicas: number;
  /** Health endpoints and their measured behaviour. */
  readonly health: HealthProps;
  /** CPU request and memory. */
  readonly resources: ResourcesProps;
  /**
   * The application server and its idle keep-alive (e.g. `AppServer.uvicorn()`): the proxy's idle
   * timeout is derived from it. Required: a guessed keep-alive is the unchecked pairing that causes
   * the 503 UC race (docs/mechanisms.md#keep-alive-race).
   */
  readonly appServer: AppServer;
  /**
   * Command, args, environment (values, Secret and ConfigMap keys, the downward API), mounted
   * files, extra named ports, the numeric user and the image's shutdown delay.
   * @default the image's entrypoint, no environment, user 65532, the platform's shutdown delay
   */
  readonly container?: ContainerProps;
  /**
   * Containers beside the app (a proxy, an agent), checked like it: resources without a CPU limit
   * unless overridden with a reason, the restricted security context, a readiness probe when they
   * serve. Native sidecars where platform.kubernetesVersion allows (1.29+).
   * @default none
   */
  readonly sidecars?: SidecarProps[];
  /**
   * Containers that run to completion before the app starts (after the native sidecars), in
   * every pod; one that looks like a schema migration is questioned at synth (use `migrations`).
   * @default none
   */
  readonly initContainers?: InitContainerProps[];
  /**
   * The schema migration, run once per release before the new pods start and outside them:
   * `Migration.job({ command: [...] })`, an Argo CD PreSync hook Job with the app's image,
   * environment and security context (docs/mechanisms.md#migrations).
   * @default none
   */
  readonly migrations?: Migration;
  // --- What it needs -----------------------------------------------------------------------
  /**
   * The service account, image pull secrets, volumes, placement (node selector, tolerations,
   * affinity, priority class) and the pods' own labels and annotations.
   * @default the namespace's default service account without its token; no extra volumes or placement
   */
  readonly pod?: PodProps;
  /**
   * Labels and annotations of the workload object (Rollout or Deployment).
   * @default the platform labels and rollwise's annotations
   */
  readonly metadata?: WorkloadMetadataProps;
  // --- How it is reached and delivered -----------------------------------------------------
  /**
   * Passive health checking (Envoy outlier detection) on the route, with an ejection cap derived
   * from the disruption budget.
   * @default false: no outlier detection (the readiness probe decides which pods serve)
   */
  readonly passiveHealthCheck?: boolean;
  /**
   * The service's error-ratio SLO for the route 5xx alert.
   * @default 0.01 (the canary gate's threshold, docs/mechanisms.md#canary-analysis)
   */
  readonly sloErrorRatio?: Override<number>;
  /**
   * Measured capacity figures; they size the PodDisruptionBudget.
   * @default none: the budget is 1 pod and the reason says why
   */
  readonly capacity?: CapacityProps;
  /**
   * Org-wide settings shared by every service.
   * @default Platform.defaults()
   */
  readonly platform?: Platform;
  /**
   * Replacements for decided values, each with its reason.
   * @default none
   */
  readonly overrides?: HttpServiceOverrides;
  /**
   * Namespace of every object, written on each, so that the objects, the plugin config, the
   * analysis, the alerts and the Argo CD Application's destination all name the same one.
   * @default the chart's namespace; required for canary delivery (and alerts), else none (the Argo CD Application's
   * destination namespace applies)
   */
  readonly namespace?: string;
  /**
   * How new versions reach users.
   * @default Delivery.canary(): an Argo Rollout with analysis; needs `route` and the platform's gateway and Prometheus
   */
  readonly delivery?: Delivery;
  /**
   * The HTTPRoute's hostnames and path (required for canary delivery). With a rolling update the
   * route, its BackendTrafficPolicy and the route's alerts are emitted too.
   * @default none: no HTTPRoute (only allowed with Delivery.rollingUpdate())
   */
  readonly route?: RouteProps;
  /**
   * A HorizontalPodAutoscaler between `replicas` (the floor) and `maxReplicas`.
   * @default none: `replicas` is fixed
   */
  readonly autoscaling?: AutoscalingProps;
  /**
   * Measured inputs from `rollwise measure` (`Measurements.fromFile('measurements/<service>.json')`):
   * the readiness p99 at peak, with its provenance in the reason. Older than
   * `platform.measurementMaxAge` is a synth warning.
   * @default none: inputs are typed, and the reasons say so
   */
  readonly measurements?: Measurements;
}
