import { Decision } from './decision';
import { SOURCES } from './alert-sources';
import type { AlertRule } from './alert-rule';
import { AlertValues, ruleList } from './alert-values';

/** CPU throttling under a CPU limit kept by override (CpuThrottlingHigh); none without a limit. */
export function cpuAlerts(v: AlertValues): Decision<AlertRule>[] {
  const { d, name, ns, container, throttle, ownPods } = v;
  const [rules, add] = ruleList(v);
  if (d.resources.cpuLimit.value !== undefined) {
    const sel = `namespace="${ns}", container="${container}"`;
    add(
      {
        alert: 'CpuThrottlingHigh',
        mechanism: 'cpu-throttling',
        severity: 'warning',
        expr:
          `sum by (pod) (${ownPods(`rate(container_cpu_cfs_throttled_periods_total{${sel}}[5m])`, '5m')}) / sum by ` +
          `(pod) (${ownPods(`rate(container_cpu_cfs_periods_total{${sel}}[5m])`, '5m')}) > ${throttle.value}`,
        for: '5m',
        summary: `${name}: container throttled by its CPU limit (CFS quota): the probe measures load`,
        description:
          `Pod {{ $labels.pod }} of ${ns}/${name} was throttled in {{ $value | humanizePercentage }} of CFS ` +
          `periods over 5 minutes under the CPU limit ${d.resources.cpuLimit.value} kept by override. The readiness ` +
          'handler shares the quota: at peak it answers in seconds and readiness removes capacity ' +
          '(docs/mechanisms.md#cpu-limits-and-cfs-throttling).',
        meaning:
          `The container used its CPU quota (limit ${d.resources.cpuLimit.value}, kept by ` +
          `override: ${d.resources.cpuLimit.reason}) in many 100 ms periods and was descheduled for the rest of each. ` +
          'The probe handler shares that quota, so probes time out exactly at peak ' +
          '(docs/mechanisms.md#readiness-control-loop).',
        checkFirst: [
          'Whether the readiness events say "context deadline exceeded" on the throttled pods.',
          'Remove or raise the CPU limit in Git (keep the request: the pod stays Burstable, ' +
            'docs/mechanisms.md#fixes-and-verification).',
        ],
      },
      `Throttled-period ratio from ${SOURCES.cfs} per pod of the service (${SOURCES.podOwner}), container ` +
        `"${container}", over 5 minutes, above ${throttle.value}: ${throttle.reason} Emitted only because a CPU ` +
        `limit (${d.resources.cpuLimit.value}) was kept by override; without a limit there is no CFS quota to ` +
        'throttle. for 5m: a peak, not a spike.',
      { cpuThrottlingRatio: throttle.value, cpuLimit: d.resources.cpuLimit.value },
    );
  }
  return rules;
}
