import { decided, Decision } from './decision';
import { PodExtrasDecisions } from './pod-extras-props';
import { SPREAD_REASON, TMP_SIZE_LIMIT } from './pod';

/**
 * The pod template's values that no input tunes, or that follow an input without arithmetic, each
 * with its reason: the construct (src/constructs/pod-template.ts) only renders them.
 */
export interface PodTemplateDecisions {
  /** The readiness probe's handler (health.readinessPath). */
  readonly readinessCheck: Decision<string>;
  /** The startup probe repeats liveness's process-only check (its kind is liveness's). */
  readonly startupCheck: Decision<'same as liveness'>;
  readonly runAsGroup: Decision<number>;
  /** pod.serviceAccount's name, when given. */
  readonly serviceAccountName?: Decision<string>;
  readonly hostnameSpread: Decision<'DoNotSchedule'>;
  readonly zoneSpread: Decision<'ScheduleAnyway'>;
  readonly enableServiceLinks: Decision<false>;
  /** The /tmp emptyDir's sizeLimit. */
  readonly tmpSizeLimit: Decision<string>;
  /** Why container.ports are on the pod only, when some are given. */
  readonly extraPorts?: Decision<number>;
  /** pod.affinity, when given. */
  readonly affinity?: Decision<true>;
}

/** Decides the pod template's fixed and input-following values (see PodTemplateDecisions). */
export function decidePodTemplate(readinessPath: string, pod: PodExtrasDecisions): PodTemplateDecisions {
  const runAs = pod.runAs.value;
  const automount = pod.automountToken.value;
  return {
    readinessCheck: decided(
      readinessPath,
      `Readiness asks the local handler ${readinessPath} (declared not to call a dependency): it reports ` +
        'whether this pod can serve, never whether a downstream is healthy ' +
        '(docs/mechanisms.md#readiness-calls-a-dependency).',
    ),
    startupCheck: decided(
      'same as liveness',
      'The same process-only check as liveness: start-up ends when the process answers, readiness then decides ' +
        'when it takes traffic.',
    ),
    runAsGroup: decided(
      runAs.group,
      `Group ${runAs.group}: ${
        runAs.group === runAs.user ? 'the user id (container.runAs.group not given)' : 'input (container.runAs.group)'
      }; ` + `the processes' primary group, which owns the files they create.`,
    ),
    ...(pod.serviceAccountName
      ? {
          serviceAccountName: decided(
            pod.serviceAccountName,
            `Input (pod.serviceAccount): the pods' identity; ${
              automount ? 'its API token is mounted (override above)' : 'its API token is not mounted'
            }.`,
          ),
        }
      : {}),
    hostnameSpread: decided('DoNotSchedule', SPREAD_REASON.hostname),
    zoneSpread: decided('ScheduleAnyway', SPREAD_REASON.zone),
    enableServiceLinks: decided(
      false,
      'No Docker-link environment variables for every Service in the namespace: the service finds its ' +
        "dependencies by DNS, and thousands of injected variables slow container start and can collide with the app's " +
        'own settings.',
    ),
    tmpSizeLimit: decided(
      TMP_SIZE_LIMIT,
      'A writable /tmp because the root filesystem is read-only and many servers write temporary files there; ' +
        `capped at ${TMP_SIZE_LIMIT} so a runaway writer is evicted before it fills the node's disk.`,
    ),
    ...(pod.app.ports.length
      ? {
          extraPorts: decided(
            pod.app.ports.length,
            'Input (container.ports): extra named ports are not part of the Service; a PodMonitor or another ' +
              'consumer reaches them on the pod.',
          ),
        }
      : {}),
    ...(pod.scheduling.affinity
      ? {
          affinity: decided(
            true as const,
            'Input (pod.affinity): placement the team chose; the topology spread above still applies.',
          ),
        }
      : {}),
  };
}
