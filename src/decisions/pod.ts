import { decided, Decision } from './decision';
import { KubernetesVersion } from './kubernetes-version';
import { ShutdownDelay } from './platform';

export interface ShutdownDecisions {
  /** The preStop delay in seconds (0 when the application delays itself). */
  readonly preStopSeconds: Decision<number>;
  readonly terminationGracePeriodSeconds: Decision<number>;
  readonly delay: ShutdownDelay;
}

/**
 * Termination: the pod keeps serving until every proxy has stopped sending it requests, then the
 * application drains. The grace period outlasts both, or the kubelet SIGKILLs mid-request.
 */
export function shutdown(
  propagationSeconds: number,
  drainSeconds: number,
  delay: ShutdownDelay,
  version: KubernetesVersion = KubernetesVersion.V1_28,
  source = 'platform shutdownDelay',
): ShutdownDecisions {
  const how = {
    sleep:
      `the kubelet's preStop sleep action (no binary needed in the image; on by default from Kubernetes 1.30, ` +
      `and platform.kubernetesVersion is ${version.name}; ${source})`,
    exec:
      `a preStop exec of \`${delay.target} ${propagationSeconds}\` (${source}; exec runs without a shell, but ` +
      'the image needs that ' +
      `binary; ${
        version.sleepAction
          ? 'ShutdownDelay.sleepAction() needs none'
          : `Kubernetes ${version.name} has no sleep ` +
            'action (1.30+), so distroless images need ShutdownDelay.httpGet() or ShutdownDelay.inApplication()'
      })`,
    http:
      `a preStop GET ${delay.target} whose handler waits ${propagationSeconds} s before answering (for images ` +
      'without a sleep binary)',
    app:
      `the application itself, which must keep serving ${propagationSeconds} s after SIGTERM (no hook: ` +
      'ShutdownDelay.inApplication())',
  }[delay.kind];
  const grace = propagationSeconds + drainSeconds;
  return {
    delay,
    preStopSeconds: decided(
      propagationSeconds,
      `Endpoint removal takes up to ${propagationSeconds} s to reach every proxy (platform endpointPropagation), so ` +
        `the pod keeps serving that long before the app sees SIGTERM, via ${how}; otherwise proxies still send ` +
        'requests to a closed listener (UF/UC 503s, docs/mechanisms.md#readiness-control-loop, #response-flags).',
      { endpointPropagationSeconds: propagationSeconds },
    ),
    terminationGracePeriodSeconds: decided(
      grace,
      `Propagation delay ${propagationSeconds} s + application drain ${drainSeconds} s = ${grace} s: the kubelet's ` +
        'SIGKILL comes only after in-flight requests had time to finish.',
      { endpointPropagationSeconds: propagationSeconds, shutdownDrainSeconds: drainSeconds },
    ),
  };
}

/** The container port's name; the Service and probes refer to it. */
export const PORT_NAME = 'http';

/** The port the Service and the route's backendRefs use (servicePort in service-core.ts says why). */
export const SERVICE_PORT = 80;

/**
 * The size limit of the writable /tmp every pod gets (pod-template.ts), and the default of
 * `Volume.emptyDir` (pod-extras-props.ts): one value for both.
 */
export const TMP_SIZE_LIMIT = '64Mi';

export const SPREAD_REASON = {
  hostname:
    'At most one pod more on any node than on another (maxSkew 1, DoNotSchedule): a node drain or failure ' +
    'takes out as few pods as possible. matchLabelKeys on the revision pod-template hash spreads each ReplicaSet on ' +
    'its own, so surge and canary pods spread too.',
  zone:
    'Spread across zones (maxSkew 1, ScheduleAnyway): a zone outage costs a fraction of the fleet; a preference, ' +
    'not a hard rule, so a cluster with an unavailable zone still schedules and a maxUnavailable-0 rollout does not ' +
    'stall.',
};

export const SECURITY_REASON = {
  pod:
    'Restricted Pod Security profile: non-root, RuntimeDefault seccomp; the pod cannot gain privileges the ' +
    'service does not need.',
  container:
    'Restricted profile: no privilege escalation, all capabilities dropped, read-only root filesystem (a ' +
    'writable /tmp is mounted as an emptyDir).',
  token:
    'No service-account token mounted: an HTTP service that does not call the Kubernetes API must not carry ' +
    'credentials for it.',
};

export function securityReason(kind: keyof typeof SECURITY_REASON): Decision<true> {
  return decided(true, SECURITY_REASON[kind]);
}
