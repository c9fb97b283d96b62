import { renderingPatch } from '../invariants/final-objects';
import { JsonPatch } from 'cdk8s';
import { k8s } from 'cdk8s-plus-28';
import { ServiceDecisions } from '../decisions/service';
import { PORT_NAME, securityReason } from '../decisions/pod';
import { ProcessCheck, ReadinessTiming } from '../decisions/probes';
import { ExtraContainerDecisions } from '../decisions/containers';
import { MigrationDecisions } from '../decisions/migrations';
import { Reasons } from '../justify/reasons';

// The container port's name; the Service and probes refer to it (decided in decisions/pod.ts).
export { PORT_NAME } from '../decisions/pod';

/** Labels that select this service's pods (the Service and PDB selectors). */
export function selectorLabels(name: string): Record<string, string> {
  return { 'app.kubernetes.io/name': name };
}

/**
 * Renders the pod template every workload kind (Deployment, Rollout) shares, recording the reason
 * of each decided field under `prefix` (the template's field path in the workload). `hashLabel` is
 * the label the workload's controller puts on each revision's pods (`pod-template-hash` for
 * Deployments, `rollouts-pod-template-hash` for Rollouts), so spreading applies per revision.
 */
export function renderPodTemplate(
  d: ServiceDecisions,
  labels: Record<string, string>,
  reasons: Reasons,
  hashLabel = 'pod-template-hash',
  prefix = 'spec.template',
): k8s.PodTemplateSpec {
  const c = `${prefix}.spec.containers[0]`;
  const r = d.readiness;
  const l = d.liveness;
  const s = d.startup;
  const processCheck = (check: ProcessCheck) =>
    check.kind === 'http'
      ? { httpGet: { path: check.path, port: k8s.IntOrString.fromString(PORT_NAME) } }
      : { tcpSocket: { port: k8s.IntOrString.fromString(PORT_NAME) } };

  const t = d.podTemplate;
  const readinessProbe: k8s.Probe = {
    httpGet: {
      path: reasons.use(`${c}.readinessProbe.httpGet`, t.readinessCheck),
      port: k8s.IntOrString.fromString(PORT_NAME),
    },
    periodSeconds: reasons.use(`${c}.readinessProbe.periodSeconds`, r.periodSeconds),
    timeoutSeconds: reasons.use(`${c}.readinessProbe.timeoutSeconds`, r.timeoutSeconds),
    failureThreshold: reasons.use(`${c}.readinessProbe.failureThreshold`, r.failureThreshold),
    successThreshold: reasons.use(`${c}.readinessProbe.successThreshold`, r.successThreshold),
  };
  reasons.use(`${c}.livenessProbe.${l.check.value.kind === 'http' ? 'httpGet' : 'tcpSocket'}`, l.check);
  const livenessProbe: k8s.Probe = {
    ...processCheck(l.check.value),
    periodSeconds: reasons.use(`${c}.livenessProbe.periodSeconds`, l.periodSeconds),
    timeoutSeconds: reasons.use(`${c}.livenessProbe.timeoutSeconds`, l.timeoutSeconds),
    failureThreshold: reasons.use(`${c}.livenessProbe.failureThreshold`, l.failureThreshold),
  };
  reasons.use(`${c}.startupProbe.${l.check.value.kind === 'http' ? 'httpGet' : 'tcpSocket'}`, t.startupCheck);
  const startupProbe: k8s.Probe = {
    ...processCheck(l.check.value),
    periodSeconds: reasons.use(`${c}.startupProbe.periodSeconds`, s.periodSeconds),
    timeoutSeconds: reasons.use(`${c}.startupProbe.timeoutSeconds`, s.timeoutSeconds),
    failureThreshold: reasons.use(`${c}.startupProbe.failureThreshold`, s.failureThreshold),
  };

  const res = d.resources;
  const limits: Record<string, k8s.Quantity> = {
    memory: k8s.Quantity.fromString(reasons.use(`${c}.resources.limits.memory`, res.memoryLimit)),
  };
  const cpuLimit = res.cpuLimit.value;
  if (cpuLimit !== undefined)
    limits.cpu = k8s.Quantity.fromString(
      reasons.use(`${c}.resources.limits.cpu`, { ...res.cpuLimit, value: cpuLimit }),
    );
  else reasons.use(`${c}.resources.limits`, res.cpuLimit);

  const sd = d.shutdown;
  const delay = sd.delay;
  let lifecycle: k8s.Lifecycle | undefined;
  const preStopSeconds = sd.preStopSeconds.value;
  if (delay.kind === 'exec') lifecycle = { preStop: { exec: { command: [delay.target, String(preStopSeconds)] } } };
  if (delay.kind === 'http')
    lifecycle = { preStop: { httpGet: { path: delay.target, port: k8s.IntOrString.fromString(PORT_NAME) } } };
  // The sleep action is not in cdk8s-plus-28's 1.28 types (their serializer drops it):
  // podTemplatePatches() writes it into the workload; the 1.33 schema validates it.
  if (delay.kind === 'sleep') lifecycle = { preStop: {} };
  if (lifecycle) reasons.use(`${c}.lifecycle.preStop`, sd.preStopSeconds);

  const x = d.pod;
  const runAs = x.runAs.value;
  reasons.use(`${prefix}.spec.securityContext.runAsUser`, { ...x.runAs, value: runAs.user });
  const runAsGroup = reasons.use(`${prefix}.spec.securityContext.runAsGroup`, t.runAsGroup);

  reasons.use(`${prefix}.spec.securityContext`, securityReason('pod'));
  reasons.use(`${c}.securityContext`, securityReason('container'));
  const automountToken = reasons.use(`${prefix}.spec.automountServiceAccountToken`, x.automountToken);
  const serviceAccountName = t.serviceAccountName
    ? reasons.use(`${prefix}.spec.serviceAccountName`, t.serviceAccountName)
    : undefined;
  const hostnameSpread = reasons.use(`${prefix}.spec.topologySpreadConstraints[0]`, t.hostnameSpread);
  const zoneSpread = reasons.use(`${prefix}.spec.topologySpreadConstraints[1]`, t.zoneSpread);
  const enableServiceLinks = reasons.use(`${prefix}.spec.enableServiceLinks`, t.enableServiceLinks);
  const tmpSizeLimit = reasons.use(`${prefix}.spec.volumes[0]`, t.tmpSizeLimit);

  const native = x.sidecars.length > 0 && x.nativeSidecars.value;
  const extra = (e: ExtraContainerDecisions, path: string, sidecar: boolean) =>
    renderExtraContainer(e, path, sidecar, r, reasons);
  // Native sidecars come first among the init containers, so the init containers can use them.
  const initContainers: k8s.Container[] = [];
  const sidecars: k8s.Container[] = [];
  x.sidecars.forEach((e, i) => {
    if (native) {
      const path = `${prefix}.spec.initContainers[${initContainers.length}]`;
      reasons.use(`${path}.restartPolicy`, x.nativeSidecars);
      initContainers.push({ ...extra(e, path, true), restartPolicy: 'Always' } as k8s.Container);
    } else {
      const path = `${prefix}.spec.containers[${1 + i}]`;
      if (i === 0) reasons.use(`${path}.name`, x.nativeSidecars);
      sidecars.push(extra(e, path, true));
    }
  });
  x.initContainers.forEach((e) => {
    const path = `${prefix}.spec.initContainers[${initContainers.length}]`;
    initContainers.push(extra(e, path, false));
  });
  if (t.extraPorts) reasons.use(`${c}.ports[1]`, t.extraPorts);
  x.volumes.forEach((v, i) => {
    if (v.reason) reasons.note(`${prefix}.spec.volumes[${i + 1}].emptyDir.sizeLimit`, v.reason);
  });
  if (t.affinity) reasons.use(`${prefix}.spec.affinity`, t.affinity);
  const podLabels = { ...x.podLabels, ...labels };
  const podAnnotations = Object.keys(x.podAnnotations).length ? x.podAnnotations : undefined;

  return {
    metadata: { labels: podLabels, ...(podAnnotations ? { annotations: podAnnotations } : {}) },
    spec: {
      automountServiceAccountToken: automountToken,
      ...(serviceAccountName ? { serviceAccountName } : {}),
      ...(x.imagePullSecrets.length ? { imagePullSecrets: x.imagePullSecrets.map((name) => ({ name })) } : {}),
      ...(x.scheduling.nodeSelector ? { nodeSelector: x.scheduling.nodeSelector } : {}),
      ...(x.scheduling.tolerations ? { tolerations: x.scheduling.tolerations } : {}),
      ...(x.scheduling.affinity ? { affinity: x.scheduling.affinity } : {}),
      ...(x.scheduling.priorityClassName ? { priorityClassName: x.scheduling.priorityClassName } : {}),
      enableServiceLinks,
      terminationGracePeriodSeconds: reasons.use(
        `${prefix}.spec.terminationGracePeriodSeconds`,
        sd.terminationGracePeriodSeconds,
      ),
      securityContext: {
        runAsNonRoot: true,
        runAsUser: runAs.user,
        runAsGroup,
        seccompProfile: { type: 'RuntimeDefault' },
        ...(x.unprivilegedPortStart
          ? {
              sysctls: [
                {
                  name: 'net.ipv4.ip_unprivileged_port_start',
                  value: String(
                    reasons.use(`${prefix}.spec.securityContext.sysctls[0].value`, x.unprivilegedPortStart),
                  ),
                },
              ],
            }
          : {}),
      },
      topologySpreadConstraints: [
        {
          maxSkew: 1,
          topologyKey: 'kubernetes.io/hostname',
          whenUnsatisfiable: hostnameSpread,
          labelSelector: { matchLabels: selectorLabels(d.name) },
          matchLabelKeys: [hashLabel],
        },
        {
          maxSkew: 1,
          topologyKey: 'topology.kubernetes.io/zone',
          whenUnsatisfiable: zoneSpread,
          labelSelector: { matchLabels: selectorLabels(d.name) },
          matchLabelKeys: [hashLabel],
        },
      ],
      ...(initContainers.length ? { initContainers } : {}),
      containers: [
        {
          name: 'app',
          image: d.image,
          ...(x.app.command ? { command: x.app.command } : {}),
          ...(x.app.args ? { args: x.app.args } : {}),
          ...(x.app.env.length ? { env: x.app.env as k8s.EnvVar[] } : {}),
          ...(x.app.envFrom.length ? { envFrom: x.app.envFrom as k8s.EnvFromSource[] } : {}),
          ports: [
            { name: PORT_NAME, containerPort: d.port, protocol: 'TCP' },
            ...x.app.ports.map((p) => ({ name: p.name, containerPort: p.port, protocol: 'TCP' })),
          ],
          readinessProbe,
          livenessProbe,
          startupProbe,
          resources: {
            requests: {
              cpu: k8s.Quantity.fromString(reasons.use(`${c}.resources.requests.cpu`, res.cpuRequest)),
              memory: k8s.Quantity.fromString(reasons.use(`${c}.resources.requests.memory`, res.memoryRequest)),
            },
            limits,
          },
          lifecycle,
          securityContext: containerSecurity,
          volumeMounts: [tmpMount, ...x.app.mounts],
        },
        ...sidecars,
      ],
      volumes: [
        { name: 'tmp', emptyDir: { sizeLimit: k8s.Quantity.fromString(tmpSizeLimit) } },
        ...x.volumes.map((v) => toVolume(v.spec)),
      ],
    },
  };
}

/**
 * The migration Job's pod template: the app's identity, pull secrets, volumes, placement and
 * security context, its sidecars where they are native (they stop when the migration exits), and
 * the migration container with the app's environment, mounts and resources. No probes, no spread,
 * no shutdown delay (nothing routes to it), and not the app's selector label: the Service and the
 * PodDisruptionBudget must never count it.
 */
export function renderMigrationPodTemplate(
  d: ServiceDecisions,
  m: MigrationDecisions,
  labels: Record<string, string>,
  reasons: Reasons,
  prefix = 'spec.template',
): k8s.PodTemplateSpec {
  const x = d.pod;
  const runAs = x.runAs.value;
  const c = `${prefix}.spec.containers[0]`;
  reasons.use(`${prefix}.spec.restartPolicy`, m.restartPolicy);
  reasons.use(`${prefix}.spec.securityContext.runAsUser`, { ...x.runAs, value: runAs.user });
  reasons.use(`${prefix}.spec.securityContext`, securityReason('pod'));
  reasons.use(`${c}.securityContext`, securityReason('container'));
  const automountToken = reasons.use(`${prefix}.spec.automountServiceAccountToken`, x.automountToken);
  const image = reasons.use(`${c}.image`, m.image);
  reasons.use(`${c}.env`, m.environment);
  reasons.use(`${prefix}.metadata.labels`, m.podLabels);
  const res = d.resources;
  const limits: Record<string, k8s.Quantity> = {
    memory: k8s.Quantity.fromString(reasons.use(`${c}.resources.limits.memory`, res.memoryLimit)),
  };
  if (res.cpuLimit.value !== undefined)
    limits.cpu = k8s.Quantity.fromString(
      reasons.use(`${c}.resources.limits.cpu`, { ...res.cpuLimit, value: res.cpuLimit.value }),
    );
  else reasons.use(`${c}.resources.limits`, m.cpuLimit);
  const initContainers: k8s.Container[] = [];
  if (m.withSidecars.value) {
    x.sidecars.forEach((e) => {
      const path = `${prefix}.spec.initContainers[${initContainers.length}]`;
      reasons.use(`${path}.restartPolicy`, m.withSidecars);
      initContainers.push({
        ...renderExtraContainer(e, path, true, d.readiness, reasons, true),
        restartPolicy: 'Always',
      } as k8s.Container);
    });
  } else if (x.sidecars.length > 0) {
    reasons.note(`${prefix}.spec.containers`, m.withSidecars.reason);
  }
  return {
    metadata: { labels },
    spec: {
      restartPolicy: m.restartPolicy.value,
      automountServiceAccountToken: automountToken,
      ...(x.serviceAccountName ? { serviceAccountName: x.serviceAccountName } : {}),
      ...(x.imagePullSecrets.length ? { imagePullSecrets: x.imagePullSecrets.map((name) => ({ name })) } : {}),
      ...(x.scheduling.nodeSelector ? { nodeSelector: x.scheduling.nodeSelector } : {}),
      ...(x.scheduling.tolerations ? { tolerations: x.scheduling.tolerations } : {}),
      ...(x.scheduling.affinity ? { affinity: x.scheduling.affinity } : {}),
      ...(x.scheduling.priorityClassName ? { priorityClassName: x.scheduling.priorityClassName } : {}),
      enableServiceLinks: d.podTemplate.enableServiceLinks.value,
      securityContext: {
        runAsNonRoot: true,
        runAsUser: runAs.user,
        runAsGroup: runAs.group,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      ...(initContainers.length ? { initContainers } : {}),
      containers: [
        {
          name: MIGRATION_CONTAINER,
          image,
          command: m.command,
          ...(m.args ? { args: m.args } : {}),
          ...(x.app.env.length ? { env: x.app.env as k8s.EnvVar[] } : {}),
          ...(x.app.envFrom.length ? { envFrom: x.app.envFrom as k8s.EnvFromSource[] } : {}),
          resources: {
            requests: {
              cpu: k8s.Quantity.fromString(reasons.use(`${c}.resources.requests.cpu`, res.cpuRequest)),
              memory: k8s.Quantity.fromString(reasons.use(`${c}.resources.requests.memory`, res.memoryRequest)),
            },
            limits,
          },
          securityContext: containerSecurity,
          volumeMounts: [tmpMount, ...x.app.mounts],
        },
      ],
      volumes: [
        { name: 'tmp', emptyDir: { sizeLimit: k8s.Quantity.fromString(d.podTemplate.tmpSizeLimit.value) } },
        ...x.volumes.map((v) => toVolume(v.spec)),
      ],
    },
  };
}

const containerSecurity = {
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  runAsNonRoot: true,
  capabilities: { drop: ['ALL'] },
};
/** The migration Job's own container (beside the app's native sidecars, src/decisions/migrations.ts). */
export const MIGRATION_CONTAINER = 'migrate';

const tmpMount = { name: 'tmp', mountPath: '/tmp' };

/**
 * A sidecar or init container, checked like the app: its resources, security context and (serving
 * sidecars) probes. In the migration Job (`inJob`) a serving sidecar keeps only its startupProbe.
 */
function renderExtraContainer(
  e: ExtraContainerDecisions,
  path: string,
  sidecar: boolean,
  r: ReadinessTiming,
  reasons: Reasons,
  inJob = false,
): k8s.Container {
  const er = e.resources;
  const elimits: Record<string, k8s.Quantity> = {
    memory: k8s.Quantity.fromString(reasons.use(`${path}.resources.limits.memory`, er.memoryLimit)),
  };
  if (er.cpuLimit.value !== undefined)
    elimits.cpu = k8s.Quantity.fromString(
      reasons.use(`${path}.resources.limits.cpu`, { ...er.cpuLimit, value: er.cpuLimit.value }),
    );
  else reasons.use(`${path}.resources.limits`, er.cpuLimit);
  reasons.use(`${path}.securityContext`, securityReason('container'));
  let readinessProbe: k8s.Probe | undefined;
  let startupProbe: k8s.Probe | undefined;
  if (sidecar && e.port && !inJob) {
    const port = k8s.IntOrString.fromString(e.port.name);
    if (e.readinessTiming) reasons.use(`${path}.readinessProbe`, e.readinessTiming);
    if (e.readinessCallsDependency)
      reasons.use(
        `${path}.readinessProbe.${e.port.readinessPath ? 'httpGet' : 'tcpSocket'}`,
        e.readinessCallsDependency,
      );
    readinessProbe = {
      ...(e.port.readinessPath ? { httpGet: { path: e.port.readinessPath, port } } : { tcpSocket: { port } }),
      periodSeconds: r.periodSeconds.value,
      timeoutSeconds: r.timeoutSeconds.value,
      failureThreshold: r.failureThreshold.value,
      successThreshold: r.successThreshold.value,
    };
  }
  if (sidecar && e.port) {
    const port = k8s.IntOrString.fromString(e.port.name);
    if (e.startup) {
      const st = e.startup;
      // in the migration Job it keeps only its startupProbe (why: src/decisions/sidecar-probes.ts)
      if (inJob) reasons.use(`${path}.startupProbe`, st.inMigrationJob);
      reasons.use(`${path}.startupProbe.${st.check.value.kind === 'http' ? 'httpGet' : 'tcpSocket'}`, st.check);
      startupProbe = {
        ...(st.check.value.kind === 'http'
          ? { httpGet: { path: st.check.value.path, port } }
          : { tcpSocket: { port } }),
        periodSeconds: reasons.use(`${path}.startupProbe.periodSeconds`, st.timing.periodSeconds),
        timeoutSeconds: reasons.use(`${path}.startupProbe.timeoutSeconds`, st.timing.timeoutSeconds),
        failureThreshold: reasons.use(`${path}.startupProbe.failureThreshold`, st.timing.failureThreshold),
      };
    }
  }
  if (e.runAsUser) reasons.use(`${path}.securityContext.runAsUser`, e.runAsUser);
  return {
    name: e.name,
    image: e.image,
    ...(e.command ? { command: e.command } : {}),
    ...(e.args ? { args: e.args } : {}),
    ...(e.env.length ? { env: e.env as k8s.EnvVar[] } : {}),
    ...(e.envFrom.length ? { envFrom: e.envFrom as k8s.EnvFromSource[] } : {}),
    ...(e.port ? { ports: [{ name: e.port.name, containerPort: e.port.port, protocol: 'TCP' }] } : {}),
    ...(readinessProbe ? { readinessProbe } : {}),
    ...(startupProbe ? { startupProbe } : {}),
    resources: {
      requests: {
        cpu: k8s.Quantity.fromString(reasons.use(`${path}.resources.requests.cpu`, er.cpuRequest)),
        memory: k8s.Quantity.fromString(reasons.use(`${path}.resources.requests.memory`, er.memoryRequest)),
      },
      limits: elimits,
    },
    securityContext: { ...containerSecurity, ...(e.runAsUser ? { runAsUser: e.runAsUser.value } : {}) },
    volumeMounts: [tmpMount, ...e.mounts],
  };
}

/** A decided volume in cdk8s-plus' types (quantities are objects there). */
function toVolume(v: Record<string, unknown>): k8s.Volume {
  const empty = v.emptyDir as { sizeLimit: string } | undefined;
  return (empty
    ? { ...v, emptyDir: { sizeLimit: k8s.Quantity.fromString(empty.sizeLimit) } }
    : v) as unknown as k8s.Volume;
}

/**
 * JSON patches for fields newer than cdk8s-plus-28's Kubernetes 1.28 types, which its serializer
 * would drop: the preStop sleep action (Kubernetes 1.30+). Applied to the workload object.
 */
export function podTemplatePatches(d: ServiceDecisions): JsonPatch[] {
  if (d.shutdown.delay.kind !== 'sleep') return [];
  return renderingPatch(
    JsonPatch.add('/spec/template/spec/containers/0/lifecycle/preStop/sleep', {
      seconds: d.shutdown.preStopSeconds.value,
    }),
  );
}
