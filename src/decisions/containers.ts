import { Duration } from 'cdk8s';
import type { k8s } from 'cdk8s-plus-28';
import { RollwiseInputError } from '../errors';
import { decided, Decision, Override, withOverride } from './decision';
import { checkDuration, checkInteger, checkPath, checkPort, showSeconds } from './inputs';
import { KubernetesVersion } from './kubernetes-version';
import { ShutdownDelay } from './platform';
import { SECURITY_REASON } from './pod';
import { MIN_STARTUP_BUDGET_SECONDS, ProcessCheck, ReadinessTiming, STARTUP_FLOOR_WHY, STARTUP_PERIOD_SECONDS, StartupTiming } from './probes';
import { resources, ResourceDecisions } from './resources';
import { knownSidecarImage } from './sidecar-images';
import { isCloudSqlProxyImage, ProxyContainer, proxyListenerProblems } from '../checks/cloud-sql-proxy';
import { looksLikeMigration } from '../checks/migration-commands';

/**
 * What a container and its pod need besides the decided safety values: environment, files,
 * identity, placement, sidecars and init containers. Each input is validated here (errors name
 * the input, the value, why and the fix); the decided fields (probes, resources, lifecycle,
 * security context) are not writable through these inputs.
 */

/** The value of one environment variable. */
export class EnvValue {
  /** A literal value (never a secret: it is committed to Git in the manifest). */
  public static fromValue(value: string): EnvValue {
    return new EnvValue({ value });
  }
  /** A key of a Secret in the service's namespace. @param options.optional start even when the Secret or key is missing (@default false: the pod does not start without it) */
  public static fromSecret(secretName: string, key: string, options: { optional?: boolean } = {}): EnvValue {
    return new EnvValue({ valueFrom: { secretKeyRef: { name: secretName, key, ...(options.optional ? { optional: true } : {}) } } });
  }
  /** A key of a ConfigMap in the service's namespace. @param options.optional start even when it is missing (@default false) */
  public static fromConfigMap(configMapName: string, key: string, options: { optional?: boolean } = {}): EnvValue {
    return new EnvValue({ valueFrom: { configMapKeyRef: { name: configMapName, key, ...(options.optional ? { optional: true } : {}) } } });
  }
  /** A field of the pod (downward API), e.g. 'metadata.name' or 'status.podIP'. */
  public static fromField(fieldPath: EnvFieldPath): EnvValue {
    return new EnvValue({ valueFrom: { fieldRef: { fieldPath } } });
  }
  private constructor(public readonly spec: EnvVarSource) {}
}

/** Pod fields the downward API exposes as environment variables. */
export type EnvFieldPath = 'metadata.name' | 'metadata.namespace' | 'metadata.uid' | 'spec.nodeName' | 'spec.serviceAccountName' | 'status.podIP' | 'status.hostIP';

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
  private constructor(public readonly kind: 'secretRef' | 'configMapRef', public readonly source: string, public readonly prefix?: string) {}
}

/** A pod volume; containers mount it by name (`mounts`). */
export class Volume {
  /**
   * Scratch space on the node, removed with the pod.
   * @param options.sizeLimit the most it may hold (@default "64Mi": a runaway writer is evicted before it fills the node's disk)
   */
  public static emptyDir(name: string, options: { sizeLimit?: string } = {}): Volume {
    return new Volume(name, 'emptyDir', options.sizeLimit ?? '64Mi', options.sizeLimit === undefined);
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
  private constructor(public readonly name: string, public readonly kind: 'emptyDir' | 'secret' | 'configMap' | 'pvc', public readonly source: string, public readonly defaulted = false) {}
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
   * @default the image's start-up endpoint when rollwise knows it (Cloud SQL Auth Proxy: "/startup"), else a TCP connect to the port
   */
  readonly startupPath?: string;
  /**
   * Whether readinessPath asks a dependency, with the reason. `{ value: true, because }` accepts
   * such a probe (every pod then leaves the Service when the dependency is slow); `{ value: false,
   * because }` corrects rollwise where it recognises the image but cannot tell (a digest).
   * @default false, except for images rollwise recognises (cloud-sql-proxy before 2.11.1 on /readiness), which are refused
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

/** A container that runs to completion before the app starts, in every pod (a config render); a schema migration belongs in `migrations`. */
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
  /** The startupProbe of a native sidecar that serves a port: the kubelet starts the app only after it passes. */
  readonly startup?: SidecarStartup;
}

/** A native sidecar's startupProbe, decided. */
export interface SidecarStartup {
  readonly check: Decision<ProcessCheck>;
  readonly timing: StartupTiming;
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

/** The uid distroless and Chainguard images name "nonroot". */
export const DEFAULT_UID = 65532;
/** Names rollwise itself uses in the pod. */
const RESERVED_CONTAINER = 'app';
const RESERVED_VOLUME = 'tmp';
const RESERVED_PORT = 'http';
/** Labels rollwise sets (selectors, revision hashes): a user value would break selection. */
const RESERVED_LABELS = ['app.kubernetes.io/name', 'app.kubernetes.io/managed-by', 'pod-template-hash', 'rollouts-pod-template-hash'];
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** Kubernetes 1.28 env var names (validation.IsEnvVarName): letters, digits, "_", "-", ".", not starting with a digit. */
const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
/** From 1.32 (KubernetesVersion.relaxedEnvNames; validation.IsRelaxedEnvVarName): printable ASCII other than "=". */
const RELAXED_ENV_NAME = /^[ -<>-~]+$/;

/** The env-name rule of the target version, with how the errors describe it. */
function envNameRule(version: KubernetesVersion): { test: (name: string) => boolean; rule: string; example: string } {
  return version.relaxedEnvNames
    ? { test: (n) => RELAXED_ENV_NAME.test(n), rule: `printable ASCII characters other than "=", on Kubernetes ${version.name} (platform.kubernetesVersion)`, example: 'DATABASE_URL' }
    : { test: (n) => ENV_NAME.test(n), rule: `letters, digits, "_", "-", ".", not starting with a digit, on Kubernetes ${version.name} (platform.kubernetesVersion; from 1.32 any printable ASCII but "=")`, example: 'DATABASE_URL' };
}
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;
const LABEL_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** How a value that should have been a list is shown: a factory's object by its class (`an EnvFrom`), else as given. */
function shownNonList(v: unknown): unknown {
  if (typeof v === 'object' && v !== null) {
    const proto = Object.getPrototypeOf(v) as { constructor?: { name?: string } } | null;
    const cls = proto && proto !== Object.prototype ? proto.constructor?.name : undefined;
    if (cls) return `${/^[AEIOU]/.test(cls) ? 'an' : 'a'} ${cls} (not a list)`;
    return `${JSON.stringify(v)} (an object, not a list)`;
  }
  return v;
}

/** A prop that is a list (`envFrom`, `mounts`, `volumes`...): anything else is refused naming it, with the list form as the fix. */
function checkList<T>(input: string, v: T[] | undefined, what: string, example: string): T[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) {
    throw new RollwiseInputError(input, shownNonList(v), `must be a list of ${what}, even for one.`, `write it as a list: ${input.split('.').pop()}: [${example}].`);
  }
  return v;
}

export function decidePodExtras(inp: PodExtrasInputs, version: KubernetesVersion): PodExtrasDecisions {
  const c = inp.container ?? {};
  const pod = inp.pod ?? {};
  // checked before anything reads them (the migration detection reads command and args)
  const appCommand = checkStrings('container.command', c.command);
  const appArgs = checkStrings('container.args', c.args);
  const volumes = checkVolumes(checkList('pod.volumes', pod.volumes, 'volumes', 'Volume.emptyDir("scratch")'));
  const volumeKinds = new Map(volumes.map((v) => [v.name, v.kind]));

  const runAs = decideRunAs(c.runAs);
  const sa = pod.serviceAccount;
  if (sa !== undefined) checkSubdomain('pod.serviceAccount.name', sa.name, 'it names an existing ServiceAccount; the API server refuses a pod whose account does not exist.', 'give the ServiceAccount\'s name, e.g. "checkout-api".');
  const noToken = decided(false, sa
    ? `${SECURITY_REASON.token} The pod runs as ServiceAccount ${sa.name} (pod.serviceAccount) for its identity; workload identity webhooks inject their own projected token, so the API token stays unmounted.`
    : SECURITY_REASON.token);
  const automountToken = withOverride('pod.serviceAccount.mountToken', noToken, sa?.mountToken, (v) => String(v));

  const pullSecrets = checkList('pod.imagePullSecrets', pod.imagePullSecrets, 'Secret names', '"ghcr-pull"').map((s, i) => checkSubdomain(`pod.imagePullSecrets[${i}]`, s, 'it names a docker-registry Secret in the service\'s namespace.', 'give the Secret\'s name, e.g. "ghcr-pull".'));

  const appPorts = checkList('container.ports', c.ports, 'named ports', '{ name: "metrics", port: 9090 }').map((p, i) => checkNamedPort(`container.ports[${i}]`, p));
  const seenPorts = new Set<string>([RESERVED_PORT]);
  const seenNumbers = new Set<number>([inp.port]);
  for (const [i, p] of appPorts.entries()) {
    if (seenPorts.has(p.name) || seenNumbers.has(p.port)) {
      throw new RollwiseInputError(`container.ports[${i}]`, `${p.name}:${p.port}`, `the name or number is already used in the pod (the main port is "${RESERVED_PORT}":${inp.port}); the API server refuses duplicate container ports.`, 'give each port its own name and number.');
    }
    seenPorts.add(p.name);
    seenNumbers.add(p.port);
  }

  const containerNames = new Set<string>([RESERVED_CONTAINER]);
  /** What the checks of known sidecar images could not decide, or question. */
  const configWarnings: string[] = [];
  const extra = (kind: 'sidecars' | 'initContainers', x: SidecarProps, i: number): ExtraContainerDecisions => {
    const at = `${kind}[${i}]`;
    if (typeof x?.name !== 'string' || x.name.length > 63 || !DNS_LABEL.test(x.name) || containerNames.has(x.name)) {
      throw new RollwiseInputError(`${at}.name`, x?.name, `a container name must be a DNS label (lower-case letters, digits, "-", at most 63) and unique in the pod; "${RESERVED_CONTAINER}" is the main container.`, 'use a short name like "cloud-sql-proxy".');
    }
    containerNames.add(x.name);
    checkImage(`${at}.image`, x.image);
    const res = x.resources ?? ({} as SidecarProps['resources']);
    const r = resources(res.cpu, res.memory, x.overrides?.cpuLimit, `${at}.`);
    let port: ExtraContainerDecisions['port'];
    let probed: Pick<ExtraContainerDecisions, 'readinessCallsDependency' | 'startup'> = {};
    const command = checkStrings(`${at}.command`, x.command);
    const args = checkStrings(`${at}.args`, x.args);
    const env = checkEnv(`${at}.env`, x.env, version);
    const envFrom = checkEnvFrom(`${at}.envFrom`, x.envFrom, version);
    if (kind === 'sidecars' && x.port !== undefined) {
      const p = checkNamedPort(`${at}.port`, x.port);
      if (seenPorts.has(p.name) || seenNumbers.has(p.port)) {
        throw new RollwiseInputError(`${at}.port`, `${p.name}:${p.port}`, 'the name or number is already used in the pod; containers of a pod share one network namespace, so two cannot listen on one port.', 'give the sidecar its own port name and number.');
      }
      seenPorts.add(p.name);
      seenNumbers.add(p.port);
      if (x.port.readinessPath !== undefined) checkPath(`${at}.port.readinessPath`, x.port.readinessPath);
      if (x.port.startupPath !== undefined) checkPath(`${at}.port.startupPath`, x.port.startupPath);
      port = { ...p, readinessPath: x.port.readinessPath };
      probed = decideSidecarProbes(at, x, port, inp, version, { command, args, env, envFrom }, (w) => configWarnings.push(w));
    } else if (kind === 'sidecars' && isCloudSqlProxyImage(x.image)) {
      // no probes, so no health server to check; its database listener still must stay in the pod
      for (const p of proxyListenerProblems({ command, args, env, envFrom })) configWarnings.push(`${at}.${p.field} (Cloud SQL Auth Proxy): ${p.why} Fix: ${p.fix}`);
    } else if (kind === 'initContainers' && (x as SidecarProps).port !== undefined) {
      throw new RollwiseInputError(`${at}.port`, JSON.stringify((x as SidecarProps).port), 'an init container runs to completion before the app starts and serves no traffic; the API server refuses probes on it.', 'move it to sidecars if it must keep running and serve, or remove the port.');
    }
    return {
      name: x.name,
      image: x.image,
      command,
      args,
      env,
      envFrom,
      mounts: checkMounts(`${at}.mounts`, x.mounts, volumeKinds),
      resources: r,
      runAsUser: x.runAs === undefined ? undefined : decided(checkUser(`${at}.runAs.user`, x.runAs.user), `Input (${at}.runAs): the sidecar's image expects this user; runAsNonRoot still applies.`),
      port,
      ...probed,
    };
  };
  if (inp.sidecars !== undefined && !Array.isArray(inp.sidecars)) throw new RollwiseInputError('sidecars', inp.sidecars, 'must be a list of sidecar definitions.', 'pass sidecars: [{ name, image, resources }].');
  if (inp.initContainers !== undefined && !Array.isArray(inp.initContainers)) throw new RollwiseInputError('initContainers', inp.initContainers, 'must be a list of init container definitions.', 'pass initContainers: [{ name, image, resources }].');
  const sidecars = (inp.sidecars ?? []).map((x, i) => extra('sidecars', x, i));
  const initContainers = (inp.initContainers ?? []).map((x, i) => extra('initContainers', x, i));

  const nativeSidecars = version.nativeSidecars
    ? decided(true, `Kubernetes ${version.name} (platform.kubernetesVersion) runs native sidecars (SidecarContainers, on by default since 1.29): an init container with restartPolicy Always is started before the init containers after it and before the app, and stops only after the app has exited, so the app keeps it during the shutdown delay. The kubelet waits only for a sidecar's startupProbe (none: only for its process to start) before it starts the next container, so a sidecar that serves a port gets a startupProbe and the app starts after it passes (KEP-753 "Startup probes"; kubelet computeInitContainerActions).`, { kubernetesVersion: version.name })
    : decided(false, `Kubernetes ${version.name} (platform.kubernetesVersion): native sidecars are alpha and off by default before 1.29, and with the gate off the API server drops restartPolicy, leaving an init container that never exits (the pod never starts). So sidecars run as ordinary containers: they may start after the app, and they get SIGTERM together with it, so a sidecar the app needs while it drains (a database proxy) must itself keep serving that long (its own graceful-shutdown setting); no preStop hook is added, since the sidecar's image may have no sleep binary and its named ports differ. Set platform.kubernetesVersion to KubernetesVersion.V1_33 when every cluster runs 1.33 or later.`, { kubernetesVersion: version.name });

  const warnings = [...configWarnings, ...(nativeSidecars.value ? [] : sidecars.map((x, i) => `sidecars[${i}] (${x.name}) runs as an ordinary container on Kubernetes ${version.name} and gets SIGTERM together with the app, and it may start after the app (which must retry its first connections): if the app needs it while draining (a proxy to its database or another service), make it wait out the app's drain itself (its own graceful-shutdown setting${knownSidecarImage(x.image)?.product === 'Cloud SQL Auth Proxy' ? ', e.g. the proxy\'s --max-sigterm-delay' : ''}), or target Kubernetes 1.33 (platform.kubernetesVersion) for a native sidecar that starts first and stops after the app.`))];
  // A migration in the pod runs in every pod (docs/mechanisms.md#migrations): detected by command
  // content and names, with the same code as lint's RW306 (checks/migration-commands.ts).
  const instead = 'Run it once per release before the pods instead: migrations: Migration.job({ command: [...] }) (an Argo CD PreSync hook Job with the app\'s image and security context, docs/mechanisms.md#migrations).';
  const inEveryPod = 'it runs in every pod, also in the canary\'s first pods before any analysis, several at once on a scale-up (racing for the migration lock), and again on every restart, and `git revert` does not undo it.';
  const appMigration = looksLikeMigration({ command: appCommand, args: appArgs }, false);
  if (appMigration) warnings.push(`container (the app) looks like it runs a schema migration (${appMigration.reason}): in the app container's command ${inEveryPod} ${instead} Then remove it from container.command/args.`);
  sidecars.forEach((x, i) => { const m = looksLikeMigration(x, true); if (m) warnings.push(`sidecars[${i}] (${x.name}) looks like a schema migration (${m.reason}): as a sidecar ${inEveryPod} ${instead}`); });
  initContainers.forEach((x, i) => { const m = looksLikeMigration(x, true); if (m) warnings.push(`initContainers[${i}] (${x.name}) looks like a schema migration (${m.reason}): as an init container ${inEveryPod} ${instead}`); });
  const podLabels = checkLabels('pod.labels', pod.labels);
  const workloadLabels = checkLabels('metadata.labels', inp.metadata?.labels);
  const lowPorts = [inp.port, ...appPorts.map((p) => p.port), ...sidecars.map((x) => x.port?.port ?? 65536)].filter((p) => p < 1024);
  const lowest = lowPorts.length ? Math.min(...lowPorts) : undefined;
  const unprivilegedPortStart = lowest === undefined ? undefined : decided(lowest, `A container listens on port ${lowest}, below 1024, where Linux requires root or CAP_NET_BIND_SERVICE (ip(7)) and the restricted profile drops both: the pod lowers net.ipv4.ip_unprivileged_port_start to ${lowest}, only as far as needed. The sysctl is per pod network namespace and in the safe set the kubelet allows and Pod Security restricted admits (pod-security-admission v0.28.0 check_sysctls.go), so the process stays non-root with no capabilities, on any container runtime.`, { lowestPort: lowest });
  return {
    runAs,
    serviceAccountName: sa?.name,
    automountToken,
    imagePullSecrets: pullSecrets,
    app: {
      command: appCommand,
      args: appArgs,
      env: checkEnv('container.env', c.env, version),
      envFrom: checkEnvFrom('container.envFrom', c.envFrom, version),
      mounts: checkMounts('container.mounts', c.mounts, volumeKinds),
      ports: appPorts,
    },
    volumes: volumes.map((v) => ({
      spec: renderVolume(v),
      reason: v.kind !== 'emptyDir' ? undefined : v.defaulted
        ? `Capped at ${v.source} (the Volume.emptyDir default, like /tmp): a runaway writer is evicted before it fills the node's disk; pass sizeLimit for more.`
        : `Capped at ${v.source} (input, Volume.emptyDir sizeLimit): the kubelet evicts the pod when the volume grows past it, before it fills the node's disk.`,
    })),
    sidecars,
    initContainers,
    nativeSidecars,
    unprivilegedPortStart,
    warnings,
    podLabels,
    podAnnotations: checkAnnotations('pod.annotations', pod.annotations),
    workloadLabels,
    workloadAnnotations: checkAnnotations('metadata.annotations', inp.metadata?.annotations),
    scheduling: {
      nodeSelector: pod.nodeSelector === undefined ? undefined : checkLabels('pod.nodeSelector', pod.nodeSelector, false),
      tolerations: checkTolerations(pod.tolerations),
      affinity: checkAffinity(pod.affinity),
      priorityClassName: pod.priorityClassName === undefined ? undefined : checkSubdomain('pod.priorityClassName', pod.priorityClassName, 'it names an existing PriorityClass; the API server refuses a pod whose class does not exist.', 'give the PriorityClass\'s name, e.g. "business-critical".'),
    },
  };
}

/**
 * A serving sidecar's probes, checked like the app's. Its readiness counts for the pod's (KEP-753:
 * "Readiness probes of sidecars will contribute to determine the whole Pod readiness"; for
 * ordinary containers always), so a readiness path that asks a dependency takes every pod out of
 * the Service at once when the dependency is slow: refused unless declared with a reason. Images
 * rollwise knows (sidecar-images.ts) have their health flags and paths checked. A native sidecar
 * gets a startupProbe sized from its start-up budget: the kubelet starts the next init container
 * and the app only after it passes (KEP-753 "Startup probes"; kubelet
 * pkg/kubelet/kuberuntime/kuberuntime_container.go computeInitContainerActions, which for a
 * running restartable init container with a startupProbe waits until the probe result is Success
 * before it appends the next container; read from the index, the kubernetes repository is too
 * large to mirror here, so no tag).
 */
function decideSidecarProbes(at: string, x: SidecarProps, port: NonNullable<ExtraContainerDecisions['port']>, inp: PodExtrasInputs, version: KubernetesVersion,
  container: ProxyContainer, warn: (w: string) => void): Pick<ExtraContainerDecisions, 'readinessCallsDependency' | 'startup'> {
  const known = knownSidecarImage(x.image);
  const path = port.readinessPath;
  if (known) {
    for (const w of known.checkConfig(at, container, port.port)) warn(w);
    for (const [field, p] of [['readinessPath', path], ['startupPath', x.port?.startupPath]] as const) {
      if (p !== undefined && !known.paths.includes(p.split('?')[0])) {
        throw new RollwiseInputError(`${at}.port.${field}`, p, `the ${known.product}'s health server answers only ${known.paths.join(', ')}; any other path is a 404 and the probe never passes.`, `use one of ${known.paths.join(', ')} (readiness: "/liveness", or "/readiness" where it does not dial the database).`);
      }
    }
  }
  const declared = x.port?.readinessCallsDependency;
  if (declared !== undefined && declared !== null && typeof declared === 'object' && 'value' in declared && typeof declared.value !== 'boolean') {
    throw new RollwiseInputError(`${at}.port.readinessCallsDependency.value`, declared.value, 'must be true or false.', `use ${at}.port.readinessCallsDependency: { value: true, because: '...' } (or false).`);
  }
  let readinessCallsDependency: Decision<boolean>;
  if (path === undefined) {
    readinessCallsDependency = decided(false, `A TCP connect to ${port.name}: it proves the sidecar listens and asks nothing of a dependency.`);
  } else {
    const recognised = known?.dependencyOf(path);
    const computed = decided(recognised?.calls ?? false, recognised ? `${known?.product}: ${recognised.why}.` : `Declared (the default) not to call a dependency: ${path} must answer from the sidecar's own state.`);
    const d = withOverride(`${at}.port.readinessCallsDependency`, computed, declared, String);
    if (declared === undefined && recognised?.calls !== false && recognised !== undefined) {
      const fix = `use readinessPath: "/liveness" (${known?.product}: 200 while it serves)${version.nativeSidecars ? `; its startupProbe already waits on ${known?.startupPath}` : ''}${recognised.calls === undefined ? '; or pin a version tag (2.11.1 or later answers /readiness without dialling)' : '; or run 2.11.1 or later, whose /readiness does not dial'}; or, if it must, declare ${at}.port.readinessCallsDependency: { value: ${recognised.calls === undefined ? 'false' : 'true'}, because: '...' }`;
      throw new RollwiseInputError(`${at}.port.readinessPath`, path, `${recognised.why}. A pod is Ready only when every container with a readiness probe is, so a sidecar whose readiness asks a dependency empties the Service when that dependency is slow (docs/mechanisms.md#readiness-calls-a-dependency).`, `${fix}.`);
    }
    readinessCallsDependency = { ...d, reason: d.value
      ? `${d.reason} ${path} asks a dependency, accepted with that reason: when it is slow, every pod leaves the Service at once (docs/mechanisms.md#readiness-calls-a-dependency).`
      : `${d.reason} A pod is Ready only when every container with a readiness probe is, so a sidecar's readiness must not ask a dependency (docs/mechanisms.md#readiness-calls-a-dependency).` };
  }
  if (!version.nativeSidecars) return { readinessCallsDependency };

  const budget = x.startupBudget === undefined ? inp.defaultStartupBudgetSeconds
    : checkDuration(`${at}.startupBudget`, x.startupBudget, MIN_STARTUP_BUDGET_SECONDS, 3600, `it bounds how long the kubelet waits for the sidecar before it restarts it, and the app starts only after it; ${STARTUP_FLOOR_WHY}.`, `give the longest start you observed plus a margin, at least ${MIN_STARTUP_BUDGET_SECONDS} s, e.g. Duration.seconds(30).`);
  const startupPath = x.port?.startupPath ?? known?.startupPath;
  const check = decided<ProcessCheck>(startupPath ? { kind: 'http', path: startupPath } : { kind: 'tcp' }, x.port?.startupPath
    ? `Input (${at}.port.startupPath): the sidecar's own start-up check.`
    : startupPath ? (known?.startupReason ?? '') : `A TCP connect to ${port.name}: the sidecar has started once it listens (give port.startupPath for a better check).`);
  const p = STARTUP_PERIOD_SECONDS;
  const failure = Math.max(1, Math.ceil(budget / p));
  const rt = inp.readiness.timeoutSeconds.value;
  const timeout = Math.min(rt, p - 1);
  const source = x.startupBudget === undefined ? 'platform.startupBudget' : `${at}.startupBudget`;
  return {
    readinessCallsDependency,
    startup: {
      check,
      timing: {
        periodSeconds: decided(p, `Every ${p} s while the sidecar starts: the app, which the kubelet starts only after this probe passes (KEP-753; kubelet computeInitContainerActions), waits at most ${p} s longer than needed.`),
        timeoutSeconds: decided(timeout, `The app's readiness timeout (${rt} s), capped below the ${p} s start-up period: ${timeout} s.`, { readinessTimeoutSeconds: rt }),
        failureThreshold: decided(failure, `Start-up budget ${showSeconds(budget)} (${source}) / ${p} s period = ${failure} attempts: the app starts only once the sidecar has started, and a sidecar not started within its budget is restarted instead of holding the pod forever.`, { startupBudgetSeconds: budget, periodSeconds: p }),
      },
    },
  };
}

/**
 * The numeric user. kubernetes/kubernetes pkg/kubelet/kuberuntime/security_context_others.go
 * verifyRunAsNonRoot: with runAsNonRoot and no runAsUser, an image user that is a name fails
 * ("image has non-numeric user"), and uid 0 fails; a non-zero runAsUser passes whatever the image says.
 */
function decideRunAs(runAs: RunAs | undefined): Decision<{ user: number; group: number }> {
  const why = 'with runAsNonRoot alone, the kubelet refuses to start an image whose USER is root or a name, such as the official node and python images ("container has runAsNonRoot and image has non-numeric user", CreateContainerConfigError; kubelet verifyRunAsNonRoot); a numeric user passes that check whatever the image declares';
  if (runAs === undefined) {
    return decided({ user: DEFAULT_UID, group: DEFAULT_UID }, `Not given (container.runAs), so ${DEFAULT_UID}, the "nonroot" user of distroless images: ${why}. Set container.runAs to the uid your image's files belong to (official node images: 1000).`, { runAsUser: DEFAULT_UID });
  }
  const user = checkUser('container.runAs.user', runAs.user);
  const group = runAs.group === undefined ? user : checkInteger('container.runAs.group', runAs.group, 0, 2147483647, 'a group id is a whole number the kernel checks file access against.', 'give the gid your image\'s files belong to, e.g. 1000.');
  return decided({ user, group }, `Input (container.runAs): user ${user}, group ${group}: ${why}.`, { runAsUser: user, runAsGroup: group });
}

function checkUser(input: string, v: number): number {
  return checkInteger(input, v, 1, 2147483647, 'runAsNonRoot refuses user 0 (root) and the kubelet accepts user ids from 1 to 2^31-1.', 'give the numeric uid your image runs as (distroless: 65532, official node images: 1000).');
}

function checkImage(input: string, image: string): void {
  if (typeof image !== 'string' || image.trim() === '' || /\s/.test(image)) {
    throw new RollwiseInputError(input, image, 'an image reference must be a non-empty string without spaces.', 'give the image as registry/repository:tag or @sha256 digest.');
  }
  if (/:latest$/.test(image) || !/[:@]/.test(image.split('/').pop() ?? '')) {
    throw new RollwiseInputError(input, image, 'has no tag or uses "latest": the manifest committed to Git would not say which code runs, and a restart could pull different code (docs/mechanisms.md#gitops-rollback).', `pin a version tag or a digest, e.g. "${image.replace(/:latest$/, '')}:1.2.3".`);
  }
}

function checkSubdomain(input: string, v: string, why: string, fix: string): string {
  if (typeof v !== 'string' || v.length === 0 || v.length > 253 || !DNS_SUBDOMAIN.test(v)) {
    throw new RollwiseInputError(input, v, `is not a Kubernetes object name (lower-case DNS subdomain, at most 253 characters): ${why}`, fix);
  }
  return v;
}

function checkStrings(input: string, v: string[] | undefined): string[] | undefined {
  if (v === undefined) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
    throw new RollwiseInputError(input, v, 'must be a list of strings: the kubelet runs it without a shell, one argument per item.', `write it as a list, e.g. ${input}: ["gunicorn", "app:app"].`);
  }
  return [...v];
}

function checkEnv(input: string, env: Record<string, EnvValue> | undefined, version: KubernetesVersion): ExtraContainerDecisions['env'] {
  const names = envNameRule(version);
  if (env === undefined) return [];
  if (typeof env !== 'object' || env === null || Array.isArray(env) || env instanceof EnvValue) {
    throw new RollwiseInputError(input, env instanceof EnvValue ? 'an EnvValue (not an object of names)' : Array.isArray(env) ? 'a list' : env, 'must be an object from variable names to EnvValues.', `write it as ${input.split('.').pop()}: { DATABASE_HOST: EnvValue.fromValue("127.0.0.1") }.`);
  }
  return Object.keys(env).map((name) => {
    if (!names.test(name)) {
      throw new RollwiseInputError(`${input}.${name}`, name, `is not a valid environment variable name (${names.rule}); the API server refuses it.`, `use a name like "${names.example}".`);
    }
    const v = env[name];
    if (!(v instanceof EnvValue)) {
      throw new RollwiseInputError(`${input}.${name}`, v, 'must be an EnvValue, so a secret can never be written as a plain value by accident.', `use EnvValue.fromValue("..."), EnvValue.fromSecret("<secret>", "<key>"), EnvValue.fromConfigMap(...) or EnvValue.fromField(...).`);
    }
    const ref = v.spec.valueFrom?.secretKeyRef ?? v.spec.valueFrom?.configMapKeyRef;
    if (ref) {
      const what = v.spec.valueFrom?.secretKeyRef ? 'Secret' : 'ConfigMap';
      checkSubdomain(`${input}.${name}`, ref.name, `it names the ${what} holding the value.`, `give the ${what}'s name, e.g. "checkout-db".`);
      if (typeof ref.key !== 'string' || !CONFIG_KEY.test(ref.key)) {
        throw new RollwiseInputError(`${input}.${name}`, ref.key, `is not a ${what} key (letters, digits, "-", "_", "."); the kubelet could never find it and the pod would not start.`, 'give the key as it appears in the object\'s data, e.g. "password".');
      }
      // apimachinery IsConfigMapKey also refuses ".", ".." and a leading ".." (hasChDirPrefix; see schemas/builtin.ts)
      if (ref.key === '.' || ref.key.startsWith('..')) {
        throw new RollwiseInputError(`${input}.${name}`, ref.key, `is not a ${what} key: a key may not be "." or "..", or start with ".." (apimachinery IsConfigMapKey), and the API server refuses the pod.`, 'give the key as it appears in the object\'s data, e.g. "password".');
      }
    }
    if (v.spec.value !== undefined && typeof v.spec.value !== 'string') {
      throw new RollwiseInputError(`${input}.${name}`, v.spec.value, 'an environment value must be a string.', `quote it: EnvValue.fromValue("${String(v.spec.value)}").`);
    }
    if (v.spec.value === undefined && v.spec.valueFrom === undefined) {
      throw new RollwiseInputError(`${input}.${name}`, 'EnvValue.fromValue(undefined)', 'gives the variable no value: the manifest would carry the name alone and the container would see an empty string, which hides the value that was meant (often a variable of the build that was not set).', `pass the value as a string, EnvValue.fromValue(""), if empty is meant; otherwise give the value or leave ${name} out.`);
    }
    return { name, ...v.spec };
  });
}

function checkEnvFrom(input: string, list: EnvFrom[] | undefined, version: KubernetesVersion): Record<string, unknown>[] {
  const names = envNameRule(version);
  return checkList(input, list, 'EnvFrom sources', 'EnvFrom.configMap("checkout-config")').map((e, i) => {
    if (!(e instanceof EnvFrom)) throw new RollwiseInputError(`${input}[${i}]`, e, 'must be an EnvFrom.', 'use EnvFrom.secret("<name>") or EnvFrom.configMap("<name>").');
    checkSubdomain(`${input}[${i}]`, e.source, 'it names the Secret or ConfigMap whose keys become variables.', 'give its name, e.g. "checkout-config".');
    if (e.prefix !== undefined && !names.test(e.prefix)) {
      throw new RollwiseInputError(`${input}[${i}].prefix`, e.prefix, `the prefix starts every variable name, so it must itself be a valid variable name (${names.rule}).`, 'use a prefix like "DB_".');
    }
    return { ...(e.prefix ? { prefix: e.prefix } : {}), [e.kind]: { name: e.source } };
  });
}

function checkVolumes(vols: Volume[]): Volume[] {
  const seen = new Set<string>([RESERVED_VOLUME]);
  return vols.map((v, i) => {
    if (!(v instanceof Volume)) throw new RollwiseInputError(`pod.volumes[${i}]`, v, 'must be a Volume.', 'use Volume.fromSecret(...), Volume.fromConfigMap(...), Volume.emptyDir(...) or Volume.fromPersistentVolumeClaim(...).');
    if (typeof v.name !== 'string' || v.name.length > 63 || !DNS_LABEL.test(v.name) || seen.has(v.name)) {
      throw new RollwiseInputError(`pod.volumes[${i}].name`, v.name, `a volume name must be a DNS label, unique in the pod; "${RESERVED_VOLUME}" is the writable /tmp rollwise mounts.`, 'use a short name like "tls".');
    }
    seen.add(v.name);
    if (v.kind === 'emptyDir') {
      if (!/^\d+(Ki|Mi|Gi)$/.test(v.source)) throw new RollwiseInputError(`pod.volumes[${i}].sizeLimit`, v.source, 'must be a size with a binary unit; the kubelet evicts the pod when the volume grows past it.', 'use e.g. "256Mi".');
    } else {
      checkSubdomain(`pod.volumes[${i}]`, v.source, 'it names the object the volume reads.', 'give the object\'s name, e.g. "checkout-tls".');
    }
    return v;
  });
}

function renderVolume(v: Volume): Record<string, unknown> {
  switch (v.kind) {
    case 'emptyDir': return { name: v.name, emptyDir: { sizeLimit: v.source } };
    case 'secret': return { name: v.name, secret: { secretName: v.source } };
    case 'configMap': return { name: v.name, configMap: { name: v.source } };
    case 'pvc': return { name: v.name, persistentVolumeClaim: { claimName: v.source } };
  }
}

function checkMounts(input: string, mounts: Mount[] | undefined, volumes: Map<string, Volume['kind']>): ExtraContainerDecisions['mounts'] {
  const paths = new Set<string>(['/tmp']);
  return checkList(input, mounts, 'mounts', '{ volume: "config", path: "/etc/config" }').map((m, i) => {
    const kind = volumes.get(m?.volume);
    if (kind === undefined) {
      throw new RollwiseInputError(`${input}[${i}].volume`, m?.volume, `is not one of pod.volumes (${[...volumes.keys()].join(', ') || 'none'}); the API server refuses a mount of an undeclared volume.`, 'declare it in pod.volumes, e.g. Volume.fromSecret("tls", "checkout-tls").');
    }
    if (typeof m.path !== 'string' || !m.path.startsWith('/') || /\s|:/.test(m.path) || m.path.split('/').includes('..') || paths.has(m.path.replace(/\/+$/, ''))) {
      throw new RollwiseInputError(`${input}[${i}].path`, m.path, 'a mount path must be absolute, without ".." or ":", and not used twice in the container; /tmp is already the writable scratch space.', 'use a path like "/etc/tls".');
    }
    paths.add(m.path.replace(/\/+$/, ''));
    if (m.readOnly !== undefined && typeof m.readOnly !== 'boolean') {
      throw new RollwiseInputError(`${input}[${i}].readOnly`, m.readOnly, 'must be true or false: any other value would be read as one of them without saying which.', `use readOnly: true (or false), or leave it out for the default (read-only for Secret and ConfigMap volumes).`);
    }
    const readOnly = m.readOnly ?? (kind === 'secret' || kind === 'configMap');
    return { name: m.volume, mountPath: m.path, ...(readOnly ? { readOnly: true } : {}) };
  });
}

function checkNamedPort(input: string, p: NamedPort): NamedPort {
  if (typeof p?.name !== 'string' || p.name.length > 15 || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(p.name) || !/[a-z]/.test(p.name) || p.name.includes('--')) {
    throw new RollwiseInputError(`${input}.name`, p?.name, 'a port name must be an IANA service name: at most 15 lower-case letters, digits and "-", with a letter; the API server refuses anything else.', 'use a name like "metrics".');
  }
  checkPort(`${input}.port`, p.port);
  return { name: p.name, port: p.port };
}

function checkLabels(input: string, labels: Record<string, string> | undefined, reservedCheck = true): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels ?? {})) {
    const [prefix, name] = k.includes('/') ? [k.slice(0, k.lastIndexOf('/')), k.slice(k.lastIndexOf('/') + 1)] : [undefined, k];
    if ((prefix !== undefined && !DNS_SUBDOMAIN.test(prefix)) || name.length > 63 || !LABEL_NAME.test(name)) {
      throw new RollwiseInputError(`${input}`, k, 'is not a label key ([prefix/]name, the name at most 63 letters, digits, "-", "_", "."); the API server refuses it.', 'use a key like "team" or "acme.com/cost-centre".');
    }
    if (typeof v !== 'string' || v.length > 63 || !LABEL_VALUE.test(v)) {
      throw new RollwiseInputError(`${input}.${k}`, v, 'is not a label value (at most 63 letters, digits, "-", "_", ".", starting and ending alphanumeric); the API server refuses it.', 'shorten it or move it to an annotation.');
    }
    if (reservedCheck && RESERVED_LABELS.includes(k)) {
      throw new RollwiseInputError(`${input}.${k}`, v, 'rollwise sets this label itself: the Service, PodDisruptionBudget and spread constraints select pods by it (or a controller sets it per revision), so another value would leave the pods unselected.', `remove ${k} from ${input}.`);
    }
    out[k] = v;
  }
  return out;
}

/** The API server's toleration rules (operator Equal or Exists; Exists takes no value; known effects). */
function checkTolerations(list: k8s.Toleration[] | undefined): k8s.Toleration[] | undefined {
  if (list === undefined) return undefined;
  if (!Array.isArray(list)) throw new RollwiseInputError('pod.tolerations', list, 'must be a list of tolerations.', 'pass tolerations: [{ key: "dedicated", operator: "Equal", value: "web", effect: "NoSchedule" }].');
  list.forEach((t, i) => {
    const at = `pod.tolerations[${i}]`;
    const op = t?.operator ?? 'Equal';
    if (op !== 'Equal' && op !== 'Exists') throw new RollwiseInputError(`${at}.operator`, t?.operator, 'the API server accepts only "Equal" and "Exists".', 'use operator: "Equal" with a value, or "Exists" without one.');
    if (op === 'Exists' && t.value !== undefined && t.value !== '') throw new RollwiseInputError(`${at}.value`, t.value, 'with operator "Exists" the value must be empty (the API server refuses the pod): Exists matches any value of the key.', 'remove value, or use operator: "Equal".');
    if (t.effect !== undefined && !['NoSchedule', 'PreferNoSchedule', 'NoExecute'].includes(t.effect)) throw new RollwiseInputError(`${at}.effect`, t.effect, 'is not a taint effect; the API server accepts NoSchedule, PreferNoSchedule and NoExecute.', 'use the effect of the taint you tolerate, e.g. "NoSchedule".');
    if (t.key === undefined && op !== 'Exists') throw new RollwiseInputError(`${at}.key`, 'unset', 'a toleration without a key must use operator "Exists" (it then tolerates every taint, which is rarely meant).', 'give the taint\'s key.');
  });
  return list;
}

function checkAffinity(a: k8s.Affinity | undefined): k8s.Affinity | undefined {
  if (a === undefined) return undefined;
  if (typeof a !== 'object' || a === null || Array.isArray(a) || Object.keys(a).some((k) => !['nodeAffinity', 'podAffinity', 'podAntiAffinity'].includes(k))) {
    throw new RollwiseInputError('pod.affinity', a, 'must be an object with nodeAffinity, podAffinity or podAntiAffinity; anything else is pruned by the API server and the placement silently lost.', 'write it as in the Pod spec, e.g. { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: ... } }.');
  }
  return a;
}

function checkAnnotations(input: string, annotations: Record<string, string> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(annotations ?? {})) {
    if (k.startsWith('rollwise.dev/')) {
      throw new RollwiseInputError(`${input}.${k}`, v, 'rollwise.dev/ annotations carry the reasons, overrides and measured facts the lint rules read; a hand-written one would be trusted as a fact.', 'use your own prefix, e.g. "acme.com/owner".');
    }
    if (typeof v !== 'string') throw new RollwiseInputError(`${input}.${k}`, v, 'an annotation value must be a string.', 'quote it.');
    out[k] = v;
  }
  return out;
}
