import { ExtraContainerDecisions, PodExtrasDecisions, PodExtrasInputs, SidecarProps } from './pod-extras-props';
import { KubernetesVersion } from './kubernetes-version';
import { RollwiseInputError } from '../errors';
import { SECURITY_REASON } from './pod';
import { checkAffinity, checkAnnotations, checkLabels, checkTolerations } from './pod-metadata';
import { checkEnv, checkEnvFrom } from './container-env';
import {
  checkImage,
  checkList,
  checkNamedPort,
  checkStrings,
  checkSubdomain,
  DNS_LABEL,
} from './container-input-checks';
import { checkMounts, checkVolumes, renderVolume } from './pod-volumes';
import { checkPath } from './inputs';
import { checkUser, decideRunAs } from './run-as';
import { decideSidecarProbes } from './sidecar-probes';
import { decided, withOverride } from './decision';
import { isCloudSqlProxyImage, proxyListenerProblems } from '../checks/cloud-sql-proxy';
import { knownSidecarImage } from './sidecar-images';
import { looksLikeMigration } from '../checks/migration-commands';
import { resources } from './resources';

/**
 * What a container and its pod need besides the decided safety values: environment, files,
 * identity, placement, sidecars and init containers. Each input is validated (errors name
 * the input, the value, why and the fix), one concept per file: the inputs' types in
 * pod-extras-props.ts, env in container-env.ts, volumes and mounts in pod-volumes.ts, the user in
 * run-as.ts, labels, annotations and placement in pod-metadata.ts, a sidecar's probes in
 * sidecar-probes.ts, the shared checks in container-input-checks.ts. The decided fields (probes,
 * resources, lifecycle, security context) are not writable through these inputs.
 */

export * from './pod-extras-props';
export { DEFAULT_UID } from './run-as';

/** Names rollwise itself uses in the pod. */
const RESERVED_CONTAINER = 'app';
const RESERVED_PORT = 'http';

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
  if (sa !== undefined)
    checkSubdomain(
      'pod.serviceAccount.name',
      sa.name,
      'it names an existing ServiceAccount; the API server refuses a pod whose account does not exist.',
      'give the ServiceAccount\'s name, e.g. "checkout-api".',
    );
  const noToken = decided(
    false,
    sa
      ? `${SECURITY_REASON.token} The pod runs as ServiceAccount ${sa.name} (pod.serviceAccount) for its identity; ` +
          'workload identity webhooks inject their own projected token, so the API token stays unmounted.'
      : SECURITY_REASON.token,
  );
  const automountToken = withOverride('pod.serviceAccount.mountToken', noToken, sa?.mountToken, (v) => String(v));

  const pullSecrets = checkList('pod.imagePullSecrets', pod.imagePullSecrets, 'Secret names', '"ghcr-pull"').map(
    (s, i) =>
      checkSubdomain(
        `pod.imagePullSecrets[${i}]`,
        s,
        "it names a docker-registry Secret in the service's namespace.",
        'give the Secret\'s name, e.g. "ghcr-pull".',
      ),
  );

  const appPorts = checkList('container.ports', c.ports, 'named ports', '{ name: "metrics", port: 9090 }').map((p, i) =>
    checkNamedPort(`container.ports[${i}]`, p),
  );
  const seenPorts = new Set<string>([RESERVED_PORT]);
  const seenNumbers = new Set<number>([inp.port]);
  for (const [i, p] of appPorts.entries()) {
    if (seenPorts.has(p.name) || seenNumbers.has(p.port)) {
      throw new RollwiseInputError(
        `container.ports[${i}]`,
        `${p.name}:${p.port}`,
        `the name or number is already used in the pod (the main port is "${RESERVED_PORT}":${inp.port}); the API ` +
          'server refuses duplicate container ports.',
        'give each port its own name and number.',
      );
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
      throw new RollwiseInputError(
        `${at}.name`,
        x?.name,
        'a container name must be a DNS label (lower-case letters, digits, "-", at most 63) and unique in the pod; ' +
          `"${RESERVED_CONTAINER}" is the main container.`,
        'use a short name like "cloud-sql-proxy".',
      );
    }
    containerNames.add(x.name);
    checkImage(`${at}.image`, x.image);
    const res = x.resources ?? ({} as SidecarProps['resources']);
    const r = resources(res.cpu, res.memory, x.overrides?.cpuLimit, `${at}.`, kind === 'initContainers');
    let port: ExtraContainerDecisions['port'];
    let probed: Pick<ExtraContainerDecisions, 'readinessCallsDependency' | 'readinessTiming' | 'startup'> = {};
    const command = checkStrings(`${at}.command`, x.command);
    const args = checkStrings(`${at}.args`, x.args);
    const env = checkEnv(`${at}.env`, x.env, version);
    const envFrom = checkEnvFrom(`${at}.envFrom`, x.envFrom, version);
    if (kind === 'sidecars' && x.port !== undefined) {
      const p = checkNamedPort(`${at}.port`, x.port);
      if (seenPorts.has(p.name) || seenNumbers.has(p.port)) {
        throw new RollwiseInputError(
          `${at}.port`,
          `${p.name}:${p.port}`,
          'the name or number is already used in the pod; containers of a pod share one network namespace, so two ' +
            'cannot listen on one port.',
          'give the sidecar its own port name and number.',
        );
      }
      seenPorts.add(p.name);
      seenNumbers.add(p.port);
      if (x.port.readinessPath !== undefined) checkPath(`${at}.port.readinessPath`, x.port.readinessPath);
      if (x.port.startupPath !== undefined) checkPath(`${at}.port.startupPath`, x.port.startupPath);
      port = { ...p, readinessPath: x.port.readinessPath };
      probed = decideSidecarProbes(at, x, port, inp, version, { command, args, env, envFrom }, (w) =>
        configWarnings.push(w),
      );
    } else if (kind === 'sidecars' && isCloudSqlProxyImage(x.image)) {
      // no probes, so no health server to check; its database listener still must stay in the pod
      for (const p of proxyListenerProblems({ command, args, env, envFrom }))
        configWarnings.push(`${at}.${p.field} (Cloud SQL Auth Proxy): ${p.why} Fix: ${p.fix}`);
    } else if (kind === 'initContainers' && (x as SidecarProps).port !== undefined) {
      throw new RollwiseInputError(
        `${at}.port`,
        JSON.stringify((x as SidecarProps).port),
        'an init container runs to completion before the app starts and serves no traffic; the API server refuses ' +
          'probes on it.',
        'move it to sidecars if it must keep running and serve, or remove the port.',
      );
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
      runAsUser:
        x.runAs === undefined
          ? undefined
          : decided(
              checkUser(`${at}.runAs.user`, x.runAs.user),
              `Input (${at}.runAs): the sidecar's image expects this user; runAsNonRoot still applies.`,
            ),
      port,
      ...probed,
    };
  };
  if (inp.sidecars !== undefined && !Array.isArray(inp.sidecars))
    throw new RollwiseInputError(
      'sidecars',
      inp.sidecars,
      'must be a list of sidecar definitions.',
      'pass sidecars: [{ name, image, resources }].',
    );
  if (inp.initContainers !== undefined && !Array.isArray(inp.initContainers))
    throw new RollwiseInputError(
      'initContainers',
      inp.initContainers,
      'must be a list of init container definitions.',
      'pass initContainers: [{ name, image, resources }].',
    );
  const sidecars = (inp.sidecars ?? []).map((x, i) => extra('sidecars', x, i));
  const initContainers = (inp.initContainers ?? []).map((x, i) => extra('initContainers', x, i));

  const nativeSidecars = version.nativeSidecars
    ? decided(
        true,
        `Kubernetes ${version.name} (platform.kubernetesVersion) runs native sidecars (SidecarContainers, on by ` +
          'default since 1.29): an init container with restartPolicy Always is started before the init containers ' +
          'after it and before the app, and stops only after the app has exited, so the app keeps it during the ' +
          `shutdown delay. The kubelet waits only for a sidecar's startupProbe (none: only for its process to start) ` +
          'before it starts the next container, so a sidecar that serves a port gets a startupProbe and the app starts ' +
          'after it passes (KEP-753 "Startup probes"; kubelet computeInitContainerActions).',
        { kubernetesVersion: version.name },
      )
    : decided(
        false,
        `Kubernetes ${version.name} (platform.kubernetesVersion): native sidecars are alpha and off by default before ` +
          '1.29, and with the gate off the API server drops restartPolicy, leaving an init container that never exits ' +
          '(the pod never starts). So sidecars run as ordinary containers: they may start after the app, and they get ' +
          'SIGTERM together with it, so a sidecar the app needs while it drains (a database proxy) must itself keep ' +
          `serving that long (its own graceful-shutdown setting); no preStop hook is added, since the sidecar's image ` +
          'may have no sleep binary and its named ports differ. Set platform.kubernetesVersion to ' +
          'KubernetesVersion.V1_33 when every cluster runs 1.33 or later.',
        { kubernetesVersion: version.name },
      );

  const warnings = [
    ...configWarnings,
    ...(nativeSidecars.value
      ? []
      : sidecars.map(
          (x, i) =>
            `sidecars[${i}] (${x.name}) runs as an ` +
            `ordinary container on Kubernetes ${version.name} and gets SIGTERM together with the app, and it may start after ` +
            'the app (which must retry its first connections): if the app needs it while draining (a proxy to its database ' +
            `or another service), make it wait out the app's drain itself (its own graceful-shutdown ` +
            `setting${
              knownSidecarImage(x.image)?.product === 'Cloud SQL Auth Proxy'
                ? ", e.g. the proxy's --max-sigterm-delay"
                : ''
            }), ` +
            'or target Kubernetes 1.33 (platform.kubernetesVersion) for a native sidecar that starts first and stops after ' +
            'the app.',
        )),
  ];
  // A migration in the pod runs in every pod (docs/mechanisms.md#migrations): detected by command
  // content and names, with the same code as lint's RW306 (checks/migration-commands.ts).
  const instead =
    'Run it once per release before the pods instead: migrations: Migration.job({ command: [...] }) ' +
    "(an Argo CD PreSync hook Job with the app's image and security context, docs/mechanisms.md#migrations).";
  const inEveryPod =
    "it runs in every pod, also in the canary's first pods before any analysis, several at once on " +
    'a scale-up (racing for the migration lock), and again on every restart, and `git revert` does not undo it.';
  const appMigration = looksLikeMigration({ command: appCommand, args: appArgs }, false);
  if (appMigration)
    warnings.push(
      `container (the app) looks like it runs a schema migration (${appMigration.reason}): in the app container's ` +
        `command ${inEveryPod} ${instead} Then remove it from container.command/args.`,
    );
  sidecars.forEach((x, i) => {
    const m = looksLikeMigration(x, true);
    if (m)
      warnings.push(
        `sidecars[${i}] (${x.name}) looks like a schema migration (${m.reason}): as a sidecar ` +
          `${inEveryPod} ${instead}`,
      );
  });
  initContainers.forEach((x, i) => {
    const m = looksLikeMigration(x, true);
    if (m)
      warnings.push(
        `initContainers[${i}] (${x.name}) looks like a schema migration (${m.reason}): as an init ` +
          `container ${inEveryPod} ${instead}`,
      );
  });
  const podLabels = checkLabels('pod.labels', pod.labels);
  const workloadLabels = checkLabels('metadata.labels', inp.metadata?.labels);
  const lowPorts = [inp.port, ...appPorts.map((p) => p.port), ...sidecars.map((x) => x.port?.port ?? 65536)].filter(
    (p) => p < 1024,
  );
  const lowest = lowPorts.length ? Math.min(...lowPorts) : undefined;
  const unprivilegedPortStart =
    lowest === undefined
      ? undefined
      : decided(
          lowest,
          `A container listens on port ${lowest}, below 1024, where Linux requires root or CAP_NET_BIND_SERVICE (ip(7)) ` +
            `and the restricted profile drops both: the pod lowers net.ipv4.ip_unprivileged_port_start to ${lowest}, only ` +
            'as far as needed. The sysctl is per pod network namespace and in the safe set the kubelet allows and Pod ' +
            'Security restricted admits (pod-security-admission v0.28.0 check_sysctls.go), so the process stays non-root ' +
            'with no capabilities, on any container runtime.',
          { lowestPort: lowest },
        );
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
      reason:
        v.kind !== 'emptyDir'
          ? undefined
          : v.defaulted
            ? `Capped at ${v.source} (the Volume.emptyDir default, like /tmp): a runaway writer is evicted before it ` +
              `fills the node's disk; pass sizeLimit for more.`
            : `Capped at ${v.source} (input, Volume.emptyDir sizeLimit): the kubelet evicts the pod when the volume ` +
              `grows past it, before it fills the node's disk.`,
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
      nodeSelector:
        pod.nodeSelector === undefined ? undefined : checkLabels('pod.nodeSelector', pod.nodeSelector, false),
      tolerations: checkTolerations(pod.tolerations),
      affinity: checkAffinity(pod.affinity),
      priorityClassName:
        pod.priorityClassName === undefined
          ? undefined
          : checkSubdomain(
              'pod.priorityClassName',
              pod.priorityClassName,
              'it names an existing PriorityClass; the API server refuses a pod whose class does not exist.',
              'give the PriorityClass\'s name, e.g. "business-critical".',
            ),
    },
  };
}
