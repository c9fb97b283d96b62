import { RollwiseInputError } from '../errors';
import { decided, Decision, Override, withOverride } from './decision';
import { checkCpu, checkMemory } from './inputs';

export interface ResourceDecisions {
  readonly cpuRequest: Decision<string>;
  /** undefined: no CPU limit (the golden path). */
  readonly cpuLimit: Decision<string | undefined>;
  readonly memoryRequest: Decision<string>;
  readonly memoryLimit: Decision<string>;
}

/**
 * `prefix` names the container's inputs in errors (e.g. "sidecars[0]."; the main container has none).
 * `init`: an init container, which runs to completion before the app starts: it has no probe and
 * serves no traffic, so its reasons say what a limit and a request do to it instead.
 */
export function resources(
  cpu: string,
  memory: string,
  cpuLimitOverride?: Override<string>,
  prefix = '',
  init = false,
): ResourceDecisions {
  const cpuMillis = checkCpu(`${prefix}resources.cpu`, cpu);
  checkMemory(`${prefix}resources.memory`, memory);
  const noLimit = decided<string | undefined>(
    undefined,
    init
      ? `No CPU limit: with limits.cpu the kernel's CFS quota deschedules the process once it used its slice of each ` +
          '100 ms period (docs/mechanisms.md#cpu-limits-and-cfs-throttling), so this init container, which must finish ' +
          `before the app starts, would take longer, and every pod's start with it, while the node has CPU to spare. The ` +
          `request (${cpu}) still reserves CPU; the pod stays Burstable.`
      : `No CPU limit: with limits.cpu the kernel's CFS quota deschedules the process once it used its slice of each ` +
          '100 ms period, so the probe handler (which shares the quota) answers in seconds exactly at peak and the probe ' +
          `measures load (docs/mechanisms.md#cpu-limits-and-cfs-throttling). The request (${cpu}) still reserves CPU and ` +
          `weights the pod's share; the pod stays Burstable.`,
    { cpuRequest: cpu },
  );
  const cpuLimit = withOverride(`${prefix}overrides.cpuLimit`, noLimit, cpuLimitOverride, (v) => v ?? 'none');
  if (cpuLimit.value !== undefined) {
    const limitMillis = checkCpu(`${prefix}overrides.cpuLimit`, cpuLimit.value);
    if (limitMillis < cpuMillis) {
      throw new RollwiseInputError(
        `${prefix}overrides.cpuLimit`,
        cpuLimit.value,
        `is below the CPU request ${cpu}; Kubernetes rejects a limit under the request.`,
        `use a limit of at least ${cpu}, or none.`,
      );
    }
  }
  return {
    cpuRequest: decided(
      cpu,
      init
        ? 'The CPU this init container needs while it runs (input), before the app starts: the scheduler ' +
            `reserves ${cpuMillis}m for it and the kernel weights its share by it under contention.`
        : `Measured CPU need at peak (input): the scheduler reserves ${cpuMillis}m and the kernel weights the pod's ` +
            'share by it under contention.',
      { cpu },
    ),
    cpuLimit,
    memoryRequest: decided(memory, `Measured memory need (input), reserved by the scheduler.`, { memory }),
    memoryLimit: decided(
      memory,
      `Equal to the request (${memory}): memory cannot be throttled, only reclaimed by OOM kill, so a pod may never ` +
        'count on memory the node did not reserve for it.',
      { memory },
    ),
  };
}
