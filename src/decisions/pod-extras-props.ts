/**
 * The inputs of a container and its pod besides the decided safety values (environment, files,
 * identity, placement, sidecars, init containers), and what decidePodExtras (containers.ts)
 * returns for them.
 */
import type { k8s } from 'cdk8s-plus-28';
import { Duration } from 'cdk8s';
import { ProcessCheck, ReadinessTiming, StartupTiming } from './probes';
import { ResourceDecisions } from './resources';
import { ShutdownDelay } from './platform';
import { Decision, Override } from './decision';
import { TMP_SIZE_LIMIT } from './pod';

/** The value of one environment variable. */
export class EnvValue {
  /** A literal value (never a secret: it is committed to Git in the manifest). */
  public static fromValue(value: string): EnvValue {
    return new EnvValue({ value });
  }
  /**
   * A key of a Secret in the service's namespace. @param options.optional start even when the Secret or key is missing
   * (@default false: the pod does not start without it)
   */
  public static fromSecret(secretName: string, key: string, options: { optional?: boolean } = {}): EnvValue {
    return new EnvValue({
      valueFrom: { secretKeyRef: { name: secretName, key, ...(options.optional ? { optional: true } : {}) } },
    });
  }
  /**
   * A key of a ConfigMap in the service's namespace. @param options.optional start even when it is missing (@default
   * false)
   */
  public static fromConfigMap(configMapName: string, key: string, options: { optional?: boolean } = {}): EnvValue {
    return new EnvValue({
      valueFrom: { configMapKeyRef: { name: configMapName, key, ...(options.optional ? { optional: true } : {}) } },
    });
  }
  /** A field of the pod (downward API), e.g. 'metadata.name' or 'status.podIP'. */
  public static fromField(fieldPath: EnvFieldPath): EnvValue {
    return new EnvValue({ valueFrom: { fieldRef: { fieldPath } } });
  }
  private constructor(public readonly spec: EnvVarSource) {}
}

/** Pod fields the downward API exposes as environment variables. */
export type EnvFieldPath =
  | 'metadata.name'
  | 'metadata.namespace'
  | 'metadata.uid'
  | 'spec.nodeName'
  | 'spec.serviceAccountName'
  | 'status.podIP'
  | 'status.hostIP';

/** An environment variable's value as the API takes it. */
export interface EnvVarSource {
  readonly value?: string;
  readonly valueFrom?: {
    readonly secretKeyRef?: { readonly name: string; readonly key: string; readonly optional?: boolean };
    readonly configMapKeyRef?: { readonly name: string; readonly key: string; readonly optional?: boolean };
    readonly fieldRef?: { readonly fieldPath: string };
  };
}

/** Every key of a Secret or ConfigMap as environment variables. */
export class EnvFrom {
  /** @param prefix prepended to each key (@default none) */
  public static secret(secretName: string, prefix?: string): EnvFrom {
    return new EnvFrom('secretRef', secretName, prefix);
  }
  /** @param prefix prepended to each key (@default none) */
  public static configMap(configMapName: string, prefix?: string): EnvFrom {
    return new EnvFrom('configMapRef', configMapName, prefix);
  }
  private constructor(
    public readonly kind: 'secretRef' | 'configMapRef',
    public readonly source: string,
    public readonly prefix?: string,
  ) {}
}

/** A pod volume; containers mount it by name (`mounts`). */
export class Volume {
  /**
   * Scratch space on the node, removed with the pod.
   * @param options.sizeLimit the most it may hold (@default "64Mi": a runaway writer is evicted before it fills the
   * node's disk)
   */
  public static emptyDir(name: string, options: { sizeLimit?: string } = {}): Volume {
    return new Volume(name, 'emptyDir', options.sizeLimit ?? TMP_SIZE_LIMIT, options.sizeLimit === undefined);
  }
  /** The keys of a Secret as files (read-only). */
  public static fromSecret(name: string, secretName: string): Volume {
    return new Volume(name, 'secret', secretName);
  }
  /** The keys of a ConfigMap as files (read-only). */
  public static fromConfigMap(name: string, configMapName: string): Volume {
    return new Volume(name, 'configMap', configMapName);
  }
  /** A PersistentVolumeClaim in the service's namespace. */
  public static fromPersistentVolumeClaim(name: string, claimName: string): Volume {
    return new Volume(name, 'pvc', claimName);
  }
  private constructor(
    public readonly name: string,
    public readonly kind: 'emptyDir' | 'secret' | 'configMap' | 'pvc',
    public readonly source: string,
    public readonly defaulted = false,
  ) {}
}

/** Where a container sees a volume. */
export interface Mount {
  /** The volume's name (one of `pod.volumes`). */
  readonly volume: string;
  /** Absolute path in the container. */
  readonly path: string;
  /**
   * Mount read-only.
   * @default true for Secret and ConfigMap volumes (the kubelet mounts them read-only anyway), false otherwise
   */
  readonly readOnly?: boolean;
}

/** An extra named container port (e.g. metrics), not exposed by the Service. */
export interface NamedPort {
  /** Port name (IANA service name: at most 15 lower-case letters, digits and "-"), e.g. "metrics". */
  readonly name: string;
  readonly port: number;
}

/** The numeric user and group the processes run as. */
export interface RunAs {
  /** User id (1 or above: runAsNonRoot refuses 0). */
  readonly user: number;
  /**
   * Group id.
   * @default the user id
   */
  readonly group?: number;
}

/** What runs in the main container besides its image and port. */
export interface ContainerProps {
  /** @default the image's ENTRYPOINT */
  readonly command?: string[];
  /** @default the image's CMD */
  readonly args?: string[];
  /** @default none */
  readonly env?: Record<string, EnvValue>;
  /** @default none */
  readonly envFrom?: EnvFrom[];
  /** Volumes (from `pod.volumes`) to mount. @default none besides the writable /tmp */
  readonly mounts?: Mount[];
  /** Extra named ports, e.g. `{ name: 'metrics', port: 9090 }`. @default none */
  readonly ports?: NamedPort[];
  /**
   * The numeric user and group of every process in the pod.
   * @default user and group 65532 (the "nonroot" user of distroless images), with the reason
   */
  readonly runAs?: RunAs;
  /**
   * How this image waits out endpoint propagation before SIGTERM (it depends on the image:
   * distroless has no `sleep` binary).
   * @default platform.shutdownDelay
   */
  readonly shutdownDelay?: ShutdownDelay;
}

/** The Kubernetes identity of the pods. */
export interface ServiceAccountProps {
  /** An existing ServiceAccount in the service's namespace. */
  readonly name: string;
  /**
   * Mount its API token, with the reason (only for services that call the Kubernetes API).
   * @default false: no token (workload identity webhooks inject their own projected token)
   */
  readonly mountToken?: Override<boolean>;
}

/** What the pod needs from the cluster: identity, pull credentials, volumes, placement, metadata. */
export interface PodProps {
  /** @default the namespace's default ServiceAccount, without its token */
  readonly serviceAccount?: ServiceAccountProps;
  /** Names of docker-registry Secrets for pulling the images. @default none */
  readonly imagePullSecrets?: string[];
  /** @default none besides the writable /tmp */
  readonly volumes?: Volume[];
  /** Extra pod labels (not the selector labels). @default none */
  readonly labels?: Record<string, string>;
  /** Pod annotations. @default none */
  readonly annotations?: Record<string, string>;
  /** @default none */
  readonly nodeSelector?: Record<string, string>;
  /** @default none */
  readonly tolerations?: k8s.Toleration[];
  /** @default none (the topology spread is decided separately) */
  readonly affinity?: k8s.Affinity;
  /** @default the cluster's default priority */
  readonly priorityClassName?: string;
}

/** Labels and annotations of the workload object (Rollout or Deployment). */
export interface WorkloadMetadataProps {
  /** @default the platform labels only */
  readonly labels?: Record<string, string>;
  /** @default rollwise's own annotations only */
  readonly annotations?: Record<string, string>;
}

/** What every extra container shares. */
export interface ExtraContainerProps {
  /** Container name (DNS label, not "app"). */
  readonly name: string;
  /** Image, pinned by tag or digest. */
  readonly image: string;
  /** CPU request and memory, as for the main container; no CPU limit unless overridden with a reason. */
  readonly resources: { readonly cpu: string; readonly memory: string };
  /** @default the image's ENTRYPOINT */
  readonly command?: string[];
  /** @default the image's CMD */
  readonly args?: string[];
  /** @default none */
  readonly env?: Record<string, EnvValue>;
  /** @default none */
  readonly envFrom?: EnvFrom[];
  /** @default none besides the writable /tmp */
  readonly mounts?: Mount[];
  /**
   * Its own numeric user.
   * @default the pod's user (container.runAs)
   */
  readonly runAs?: RunAs;
  /** Replacements for decided values, each with its reason. @default none */
  readonly overrides?: { readonly cpuLimit?: Override<string> };
}

/** The port a sidecar serves on (its health port, for a proxy), and how it is probed. */
export interface SidecarPort {
  /** Port name (IANA service name), e.g. "sql-health". */
  readonly name: string;
  readonly port: number;
  /**
   * HTTP path of the sidecar's readiness handler; checked like the app's: one that asks a
   * dependency (a database, another service) is refused unless declared below with a reason.
   * @default a TCP connect to the port
   */
  readonly readinessPath?: string;
  /**
   * HTTP path of its start-up check, used for the startupProbe of a native sidecar.
   * @default the image's start-up endpoint when rollwise knows it (Cloud SQL Auth Proxy: "/startup"), else a TCP
   * connect to the port
   */
  readonly startupPath?: string;
  /**
   * Whether readinessPath asks a dependency, with the reason. `{ value: true, because }` accepts
   * such a probe (every pod then leaves the Service when the dependency is slow); `{ value: false,
   * because }` corrects rollwise where it recognises the image but cannot tell (a digest).
   * @default false, except for images rollwise recognises (cloud-sql-proxy before 2.11.1 on /readiness), which are
   * refused
   */
  readonly readinessCallsDependency?: Override<boolean>;
}

/** A container that runs beside the app for the pod's whole life (a proxy, an agent, an exporter). */
export interface SidecarProps extends ExtraContainerProps {
  /**
   * The port the sidecar serves on; it then gets a readiness probe with the app's timing, and, as
   * a native sidecar, a startupProbe the kubelet waits for before it starts the app.
   * @default none: it serves no traffic and has no probe
   */
  readonly port?: SidecarPort;
  /**
   * Longest time the sidecar may take to start; sizes its startupProbe (native sidecars).
   * @default platform.startupBudget (60 s)
   */
  readonly startupBudget?: Duration;
}

/**
 * A container that runs to completion before the app starts, in every pod (a config render); a schema migration belongs
 * in `migrations`.
 */
export type InitContainerProps = ExtraContainerProps;

/** An extra container, decided: its spec without the decided fields, and the decided fields. */
export interface ExtraContainerDecisions {
  readonly name: string;
  readonly image: string;
  readonly command?: string[];
  readonly args?: string[];
  readonly env: { name: string; value?: string; valueFrom?: EnvVarSource['valueFrom'] }[];
  readonly envFrom: Record<string, unknown>[];
  readonly mounts: { name: string; mountPath: string; readOnly?: boolean }[];
  readonly resources: ResourceDecisions;
  readonly runAsUser?: Decision<number>;
  readonly port?: { name: string; port: number; readinessPath?: string };
  /** Whether the sidecar's readiness probe asks a dependency (false unless accepted with a reason), and why. */
  readonly readinessCallsDependency?: Decision<boolean>;
  /** Why a serving sidecar's readinessProbe has the app's readiness timing. */
  readonly readinessTiming?: Decision<"the app's">;
  /** The startupProbe of a native sidecar that serves a port: the kubelet starts the app only after it passes. */
  readonly startup?: SidecarStartup;
}

/** A native sidecar's startupProbe, decided. */
export interface SidecarStartup {
  readonly check: Decision<ProcessCheck>;
  readonly timing: StartupTiming;
  /** In the migration Job the sidecar keeps its startupProbe and no readinessProbe. */
  readonly inMigrationJob: Decision<'startupProbe only'>;
}

/** Everything the pod needs besides the decided safety values. */
export interface PodExtrasDecisions {
  readonly runAs: Decision<{ user: number; group: number }>;
  readonly serviceAccountName?: string;
  readonly automountToken: Decision<boolean>;
  readonly imagePullSecrets: string[];
  readonly app: {
    readonly command?: string[];
    readonly args?: string[];
    readonly env: ExtraContainerDecisions['env'];
    readonly envFrom: ExtraContainerDecisions['envFrom'];
    readonly mounts: ExtraContainerDecisions['mounts'];
    readonly ports: NamedPort[];
  };
  /** Extra volumes as the API takes them, each emptyDir with the reason for its size limit. */
  readonly volumes: { readonly spec: Record<string, unknown>; readonly reason?: string }[];
  readonly sidecars: ExtraContainerDecisions[];
  readonly initContainers: ExtraContainerDecisions[];
  /** Whether sidecars are native (init containers with restartPolicy Always), with the version's reason. */
  readonly nativeSidecars: Decision<boolean>;
  /** The pod's net.ipv4.ip_unprivileged_port_start, when a container listens below 1024. */
  readonly unprivilegedPortStart?: Decision<number>;
  /** Questions for synth (e.g. sidecars that stop with the app on 1.28). */
  readonly warnings: readonly string[];
  readonly podLabels: Record<string, string>;
  readonly podAnnotations: Record<string, string>;
  readonly workloadLabels: Record<string, string>;
  readonly workloadAnnotations: Record<string, string>;
  readonly scheduling: {
    readonly nodeSelector?: Record<string, string>;
    readonly tolerations?: k8s.Toleration[];
    readonly affinity?: k8s.Affinity;
    readonly priorityClassName?: string;
  };
}

export interface PodExtrasInputs {
  readonly port: number;
  /** The app's readiness timing: sidecars that serve are probed with it. */
  readonly readiness: ReadinessTiming;
  /** The start-up budget of sidecars that declare none (platform.startupBudget), in seconds. */
  readonly defaultStartupBudgetSeconds: number;
  readonly container?: ContainerProps;
  readonly pod?: PodProps;
  readonly sidecars?: SidecarProps[];
  readonly initContainers?: InitContainerProps[];
  readonly metadata?: WorkloadMetadataProps;
}
