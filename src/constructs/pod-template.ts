import { k8s } from 'cdk8s-plus-28';
import { ServiceDecisions } from '../decisions/service';
import { securityReason, SPREAD_REASON } from '../decisions/pod';
import { ProcessCheck } from '../decisions/probes';
import { Reasons } from '../justify/reasons';

/** The container port's name; the Service and probes refer to it. */
export const PORT_NAME = 'http';

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
export function renderPodTemplate(d: ServiceDecisions, labels: Record<string, string>, reasons: Reasons, hashLabel = 'pod-template-hash', prefix = 'spec.template'): k8s.PodTemplateSpec {
  const c = `${prefix}.spec.containers[0]`;
  const r = d.readiness;
  const l = d.liveness;
  const s = d.startup;
  const processCheck = (check: ProcessCheck) => (check.kind === 'http'
    ? { httpGet: { path: check.path, port: k8s.IntOrString.fromString(PORT_NAME) } }
    : { tcpSocket: { port: k8s.IntOrString.fromString(PORT_NAME) } });

  reasons.note(`${c}.readinessProbe.httpGet`, `Readiness asks the local handler ${d.readinessPath} (declared not to call a dependency): it reports whether this pod can serve, never whether a downstream is healthy (docs/mechanisms.md#readiness-calls-a-dependency).`);
  const readinessProbe: k8s.Probe = {
    httpGet: { path: d.readinessPath, port: k8s.IntOrString.fromString(PORT_NAME) },
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
  reasons.note(`${c}.startupProbe.${l.check.value.kind === 'http' ? 'httpGet' : 'tcpSocket'}`, 'The same process-only check as liveness: start-up ends when the process answers, readiness then decides when it takes traffic.');
  const startupProbe: k8s.Probe = {
    ...processCheck(l.check.value),
    periodSeconds: reasons.use(`${c}.startupProbe.periodSeconds`, s.periodSeconds),
    timeoutSeconds: reasons.use(`${c}.startupProbe.timeoutSeconds`, s.timeoutSeconds),
    failureThreshold: reasons.use(`${c}.startupProbe.failureThreshold`, s.failureThreshold),
  };

  const res = d.resources;
  const limits: Record<string, k8s.Quantity> = { memory: k8s.Quantity.fromString(reasons.use(`${c}.resources.limits.memory`, res.memoryLimit)) };
  const cpuLimit = res.cpuLimit.value;
  if (cpuLimit !== undefined) limits.cpu = k8s.Quantity.fromString(reasons.use(`${c}.resources.limits.cpu`, { ...res.cpuLimit, value: cpuLimit }));
  else reasons.use(`${c}.resources.limits`, res.cpuLimit);

  const sd = d.shutdown;
  const delay = sd.delay;
  let lifecycle: k8s.Lifecycle | undefined;
  const preStopSeconds = sd.preStopSeconds.value;
  if (delay.kind === 'exec') lifecycle = { preStop: { exec: { command: [delay.target, String(preStopSeconds)] } } };
  if (delay.kind === 'http') lifecycle = { preStop: { httpGet: { path: delay.target, port: k8s.IntOrString.fromString(PORT_NAME) } } };
  if (lifecycle) reasons.use(`${c}.lifecycle.preStop`, sd.preStopSeconds);

  reasons.use(`${prefix}.spec.securityContext`, securityReason('pod'));
  reasons.use(`${c}.securityContext`, securityReason('container'));
  reasons.use(`${prefix}.spec.automountServiceAccountToken`, securityReason('token'));
  reasons.note(`${prefix}.spec.topologySpreadConstraints[0]`, SPREAD_REASON.hostname);
  reasons.note(`${prefix}.spec.topologySpreadConstraints[1]`, SPREAD_REASON.zone);
  reasons.note(`${prefix}.spec.enableServiceLinks`, 'No Docker-link environment variables for every Service in the namespace: the service finds its dependencies by DNS, and thousands of injected variables slow container start and can collide with the app\'s own settings.');
  reasons.note(`${prefix}.spec.volumes[0]`, 'A writable /tmp because the root filesystem is read-only and many servers write temporary files there; capped at 64Mi so a runaway writer is evicted before it fills the node\'s disk.');

  return {
    metadata: { labels },
    spec: {
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      terminationGracePeriodSeconds: reasons.use(`${prefix}.spec.terminationGracePeriodSeconds`, sd.terminationGracePeriodSeconds),
      securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
      topologySpreadConstraints: [
        { maxSkew: 1, topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: selectorLabels(d.name) }, matchLabelKeys: [hashLabel] },
        { maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: selectorLabels(d.name) }, matchLabelKeys: [hashLabel] },
      ],
      containers: [{
        name: 'app',
        image: d.image,
        ports: [{ name: PORT_NAME, containerPort: d.port, protocol: 'TCP' }],
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
        securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, capabilities: { drop: ['ALL'] } },
        volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
      }],
      volumes: [{ name: 'tmp', emptyDir: { sizeLimit: k8s.Quantity.fromString('64Mi') } }],
    },
  };
}
