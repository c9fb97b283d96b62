import { bothServices, expected, PromTest, runPromtool, Series } from './support';

/** Canary and rollout state from the Argo Rollouts controller, the Deployment variant, and CPU throttling, on promtool. */
const { checkout, inventory } = bothServices();
const none = (eval_time: string, alertname: string) => ({ eval_time, alertname, exp_alerts: [] });
const rolloutInfo = (phase: string, values: string): Series => ({
  series: `rollout_info{namespace="checkout", name="checkout-api", strategy="canary", traffic_router="argoproj-labs/gatewayAPI", phase="${phase}", job="argo-rollouts-metrics"}`, values,
});
const run = (name: string, phase: string, values: string): Series => ({
  series: `analysis_run_info{namespace="checkout", name="${name}", phase="${phase}", job="argo-rollouts-metrics"}`, values,
});
const RUN = 'checkout-api-6f9d8c7b5-4-2';
/** A re-run of the same revision's gate: the name was taken, so the controller appends .<N> (utils/analysis/helpers.go CreateWithCollisionCounter, v1.9.1). */
const RERUN = 'checkout-api-6f9d8c7b5-4-2.1';

/** cAdvisor's CFS counters of a pod's container, and kube-state-metrics' kube_pod_owner of the pod (its ReplicaSet). */
const cadvisor = (ns: string, pod: string, container: string, periods: number, throttled: number): Series[] => [
  { series: `container_cpu_cfs_periods_total{namespace="${ns}", pod="${pod}", container="${container}", job="kubelet", metrics_path="/metrics/cadvisor"}`, values: `0+${periods}x40` },
  { series: `container_cpu_cfs_throttled_periods_total{namespace="${ns}", pod="${pod}", container="${container}", job="kubelet", metrics_path="/metrics/cadvisor"}`, values: `0x10 ${throttled}+${throttled}x29` },
  { series: `kube_pod_owner{namespace="${ns}", pod="${pod}", uid="${pod}-uid", owner_kind="ReplicaSet", owner_name="${pod.replace(/-[a-z0-9]{5}$/, '')}", owner_is_controller="true", job="kube-state-metrics"}`, values: '1x40' },
];
const HOT = 'inventory-api-5c7d9b8f4-hot12';

const tests: PromTest[] = [
  {
    name: 'canary analysis fails and aborts the rollout (stable keeps serving)',
    interval: '30s',
    input_series: [
      rolloutInfo('Progressing', '1x9 stale'),
      rolloutInfo('Abort', '_x9 1x30'),
      run(RUN, 'Running', '1x9 stale'),
      run(RUN, 'Failed', '_x9 1x30'),
      // another service's failed run in the same namespace must not fire
      run('checkout-api-worker-7c8d9f6b5-2-1', 'Failed', '1x40'),
    ],
    alert_rule_test: [
      none('4m', 'CanaryAnalysisFailed'),
      none('5m', 'CanaryAnalysisFailed'), // pending, for 1m
      { eval_time: '6m', alertname: 'CanaryAnalysisFailed', exp_alerts: [expected(checkout, 'CanaryAnalysisFailed', { name: RUN, phase: 'Failed' }, 1)] },
      // the same incident does not page twice
      none('6m', 'RolloutDegraded'),
      none('12m', 'RolloutDegraded'),
    ],
  },
  {
    name: 'a re-run named <run>.<N> fails and aborts the rollout: matched too',
    interval: '30s',
    input_series: [
      rolloutInfo('Progressing', '1x9 stale'),
      rolloutInfo('Abort', '_x9 1x30'),
      run(RUN, 'Successful', '1x40'),
      run(RERUN, 'Running', '1x9 stale'),
      run(RERUN, 'Failed', '_x9 1x30'),
      // a failed re-run of another Rollout whose name starts like checkout-api's
      run('checkout-api-bff-7c8d9f6b5-2.1', 'Failed', '1x40'),
    ],
    alert_rule_test: [
      none('5m', 'CanaryAnalysisFailed'),
      { eval_time: '6m', alertname: 'CanaryAnalysisFailed', exp_alerts: [expected(checkout, 'CanaryAnalysisFailed', { name: RERUN, phase: 'Failed' }, 1)] },
      none('6m', 'RolloutDegraded'),
    ],
  },
  {
    name: 'rollout exceeds its progress deadline (a new pod never became available)',
    interval: '30s',
    input_series: [rolloutInfo('Progressing', '1x9 stale'), rolloutInfo('Timeout', '_x9 1x30')],
    alert_rule_test: [
      none('5m', 'RolloutDegraded'),
      { eval_time: '6m', alertname: 'RolloutDegraded', exp_alerts: [expected(checkout, 'RolloutDegraded', { name: 'checkout-api', phase: 'Timeout' }, 1)] },
      none('6m', 'CanaryAnalysisFailed'),
    ],
  },
  {
    name: 'healthy canary: Progressing, Paused, Completed; analysis Successful',
    interval: '30s',
    input_series: [
      rolloutInfo('Progressing', '1x9 stale'), rolloutInfo('Paused', '_x9 1x9 stale'), rolloutInfo('Completed', '_x19 1x20'),
      run(RUN, 'Running', '1x14 stale'), run(RUN, 'Successful', '_x14 1x25'),
    ],
    alert_rule_test: [
      none('3m', 'RolloutDegraded'), none('8m', 'RolloutDegraded'), none('15m', 'RolloutDegraded'),
      none('8m', 'CanaryAnalysisFailed'), none('15m', 'CanaryAnalysisFailed'),
    ],
  },
  {
    name: 'a throttled container under a CPU limit kept by override (inventory-api); checkout-api has no limit, so no rule',
    interval: '30s',
    input_series: [
      ...cadvisor('inventory', HOT, 'app', 300, 150), // 50 % of periods throttled from 5m30s
      ...cadvisor('inventory', 'inventory-api-5c7d9b8f4-cool1', 'app', 300, 3), // 1 %
      ...cadvisor('checkout', 'checkout-api-6f9d8c7b5-hot34', 'app', 300, 240), // 80 %, but no CPU limit is declared
    ],
    alert_rule_test: [
      none('5m', 'CpuThrottlingHigh'),
      // throttling from 5m30s; the 5-min ratio passes 25 % at 8m; for 5m
      none('12m30s', 'CpuThrottlingHigh'),
      { eval_time: '13m30s', alertname: 'CpuThrottlingHigh', exp_alerts: [expected(inventory, 'CpuThrottlingHigh', { pod: HOT }, 0.5)] },
    ],
  },
  {
    name: 'Deployment (inventory-api) Progressing=False',
    interval: '30s',
    input_series: [
      { series: 'kube_deployment_status_condition{namespace="inventory", deployment="inventory-api", condition="Progressing", status="false", job="kube-state-metrics"}', values: '0x9 1x20' },
      { series: 'kube_deployment_status_condition{namespace="inventory", deployment="inventory-api", condition="Progressing", status="true", job="kube-state-metrics"}', values: '1x9 0x20' },
    ],
    alert_rule_test: [
      none('5m', 'RolloutDegraded'),
      { eval_time: '6m', alertname: 'RolloutDegraded', exp_alerts: [expected(inventory, 'RolloutDegraded', { deployment: 'inventory-api' }, 1)] },
    ],
  },
];

test('promtool: failed analysis, degraded rollout, stalled Deployment and CPU throttling fire with their labels; healthy rollouts stay silent', () => {
  const r = runPromtool([checkout, inventory], tests);
  expect(r.output).toContain('SUCCESS');
  expect(r.status).toBe(0);
});
