import { CLAIM_WINDOW_SECONDS } from '../../src/decisions/alerts';
import { withoutHonorLabels } from '../support/scrape';
import {
  bothServices,
  controllerSeries,
  expected,
  only,
  PromTest,
  ROLLOUTS_MONITOR,
  runPromtool,
  Series,
} from './support';

/**
 * Canary and rollout state from the Argo Rollouts controller, the Deployment variant, and CPU
 * throttling, on promtool. The controller's series are shaped as Prometheus stores them when it
 * scrapes the controller through `rollwise platform`'s PodMonitor (controllerSeries).
 */
const { checkout, inventory } = bothServices();
const none = (eval_time: string, alertname: string) => ({ eval_time, alertname, exp_alerts: [] });
const rolloutInfo = (phase: string, values: string, monitor = ROLLOUTS_MONITOR): Series =>
  controllerSeries(
    'rollout_info',
    {
      namespace: 'checkout',
      name: 'checkout-api',
      strategy: 'canary',
      traffic_router: 'argoproj-labs/gatewayAPI',
      phase,
    },
    values,
    monitor,
  );
const run = (name: string, phase: string, values: string, monitor = ROLLOUTS_MONITOR): Series =>
  controllerSeries('analysis_run_info', { namespace: 'checkout', name, phase }, values, monitor);
/**
 * kube-state-metrics' kube_replicaset_owner of ReplicaSet <rollout>-<hash>, owned by its Rollout
 * (internal/store/replicaset.go v2.19.1; argo-rollouts v1.9.1 rollout/sync.go sets the controller
 * reference, kind Rollout), scraped by kube-prometheus-stack's ServiceMonitor (honorLabels).
 */
const replicaSet = (rollout: string, hash: string, values = '1x60'): Series => ({
  series: `kube_replicaset_owner{namespace="checkout", replicaset="${rollout}-${hash}", owner_kind="Rollout", owner_name="${rollout}", owner_is_controller="true", container="kube-state-metrics", endpoint="http", instance="10.244.2.9:8080", job="kube-state-metrics", pod="kube-state-metrics-5c8b9d7f6-q2w8r", service="kube-state-metrics"}`,
  values,
});
/** checkout-api's ReplicaSets in these tests: the release before (5b8c9d7f4), the canary (6f9d8c7b5), the release after (7c9d8b6f5). */
const OWN_REPLICASETS = ['5b8c9d7f4', '6f9d8c7b5', '7c9d8b6f5'].map((h) =>
  replicaSet('checkout-api', h, `1x${CLAIM_WINDOW_SECONDS / 30 + 40}`),
);
/** promtool values from runs of one token: ticks(['1', 10], ['stale', 1]) is ten 1s, then a staleness marker. */
const ticks = (...runs: [string, number][]) =>
  runs.map(([v, n]) => Array.from({ length: n }, () => v).join(' ')).join(' ');
const RUN = 'checkout-api-6f9d8c7b5-4-2';
/** A failed background run of the release before (revision 3, step 4), still in the run history (5 unsuccessful runs kept, utils/defaults/defaults.go v1.9.1). */
const OLD_RUN = 'checkout-api-5b8c9d7f4-3-4';
/** A re-run of the same revision's gate: the name was taken, so the controller appends .<N> (utils/analysis/helpers.go CreateWithCollisionCounter, v1.9.1). */
const RERUN = 'checkout-api-6f9d8c7b5-4-2.1';

/** cAdvisor's CFS counters of a pod's container, and kube-state-metrics' kube_pod_owner of the pod (its ReplicaSet). */
const cadvisor = (ns: string, pod: string, container: string, periods: number, throttled: number): Series[] => [
  {
    series: `container_cpu_cfs_periods_total{namespace="${ns}", pod="${pod}", container="${container}", job="kubelet", metrics_path="/metrics/cadvisor"}`,
    values: `0+${periods}x40`,
  },
  {
    series: `container_cpu_cfs_throttled_periods_total{namespace="${ns}", pod="${pod}", container="${container}", job="kubelet", metrics_path="/metrics/cadvisor"}`,
    values: `0x10 ${throttled}+${throttled}x29`,
  },
  {
    series: `kube_pod_owner{namespace="${ns}", pod="${pod}", uid="${pod}-uid", owner_kind="ReplicaSet", owner_name="${pod.replace(/-[a-z0-9]{5}$/, '')}", owner_is_controller="true", job="kube-state-metrics"}`,
    values: '1x40',
  },
];
const HOT = 'inventory-api-5c7d9b8f4-hot12';

const tests: PromTest[] = [
  {
    name: 'canary analysis fails and aborts the rollout (stable keeps serving)',
    interval: '30s',
    input_series: [
      ...OWN_REPLICASETS,
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
      {
        eval_time: '6m',
        alertname: 'CanaryAnalysisFailed',
        exp_alerts: [expected(checkout, 'CanaryAnalysisFailed', { name: RUN, phase: 'Failed' }, 1)],
      },
      // the same incident does not page twice
      none('6m', 'RolloutDegraded'),
      none('12m', 'RolloutDegraded'),
    ],
  },
  {
    name: 'a re-run named <run>.<N> fails and aborts the rollout: matched too',
    interval: '30s',
    input_series: [
      ...OWN_REPLICASETS,
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
      {
        eval_time: '6m',
        alertname: 'CanaryAnalysisFailed',
        exp_alerts: [expected(checkout, 'CanaryAnalysisFailed', { name: RERUN, phase: 'Failed' }, 1)],
      },
      none('6m', 'RolloutDegraded'),
    ],
  },
  {
    // Rollout checkout-api-bff ("bff" is spelled in the hash alphabet) in the same namespace, whose
    // canary hash is all digits (decimal digits 0-5 encode as "4"-"9": about 0.6 % of 10-digit
    // hashes): its failed run checkout-api-bff-5974865-7 also matches checkout-api's run pattern
    // (hash "bff", revision 5974865, step 7). checkout-api is aborted by hand meanwhile.
    name: "another Rollout's run that matches the name pattern (checkout-api-bff-5974865-7) does not claim checkout-api's abort by hand",
    interval: '30s',
    input_series: [
      ...OWN_REPLICASETS,
      replicaSet('checkout-api-bff', '5974865'),
      rolloutInfo('Progressing', '1x9 stale'),
      rolloutInfo('Abort', '_x9 1x30'),
      run('checkout-api-bff-5974865-7', 'Running', '1x9 stale'),
      run('checkout-api-bff-5974865-7', 'Failed', '_x9 1x30'),
    ],
    alert_rule_test: [
      none('8m', 'CanaryAnalysisFailed'),
      {
        eval_time: '8m',
        alertname: 'RolloutDegraded',
        exp_alerts: [expected(checkout, 'RolloutDegraded', { name: 'checkout-api', phase: 'Abort' }, 1)],
      },
    ],
  },
  {
    name: "the run is Failed one scrape before the rollout shows Abort (two status writes): still the analysis's abort",
    interval: '30s',
    input_series: [
      ...OWN_REPLICASETS,
      rolloutInfo('Paused', ticks(['1', 11], ['stale', 1])),
      rolloutInfo('Abort', ticks(['_', 11], ['1', 30])),
      run(RUN, 'Running', ticks(['1', 10], ['stale', 1])),
      run(RUN, 'Failed', ticks(['_', 10], ['1', 31])),
    ],
    alert_rule_test: [
      none('6m', 'CanaryAnalysisFailed'), // Abort from 5m30s, for 1m
      {
        eval_time: '7m',
        alertname: 'CanaryAnalysisFailed',
        exp_alerts: [expected(checkout, 'CanaryAnalysisFailed', { name: RUN, phase: 'Failed' }, 1)],
      },
      {
        eval_time: '20m',
        alertname: 'CanaryAnalysisFailed',
        exp_alerts: [expected(checkout, 'CanaryAnalysisFailed', { name: RUN, phase: 'Failed' }, 1)],
      },
      none('7m', 'RolloutDegraded'),
      none('20m', 'RolloutDegraded'),
    ],
  },
  {
    name: 'a stale failed run of the release before, then the next release aborted by hand: RolloutDegraded, not the old run',
    interval: '30s',
    input_series: [
      ...OWN_REPLICASETS,
      // release 3: its background run failed and aborted it (0-5m); release 4 progresses (5m-15m) and is aborted by hand at 15m
      rolloutInfo('Abort', ticks(['1', 10], ['stale', 1], ['_', 19], ['1', 30])),
      rolloutInfo('Progressing', ticks(['_', 10], ['1', 20], ['stale', 1], ['_', 29])),
      run(OLD_RUN, 'Failed', ticks(['1', 60])),
      // release 4's background run, terminated by the abort (a terminated run ends Successful)
      run('checkout-api-7c9d8b6f5-4-1', 'Running', ticks(['_', 10], ['1', 20], ['stale', 1], ['_', 29])),
      run('checkout-api-7c9d8b6f5-4-1', 'Successful', ticks(['_', 30], ['1', 30])),
    ],
    alert_rule_test: [
      // release 3's own abort is the old run's
      {
        eval_time: '2m',
        alertname: 'CanaryAnalysisFailed',
        exp_alerts: [expected(checkout, 'CanaryAnalysisFailed', { name: OLD_RUN, phase: 'Failed' }, 1)],
      },
      none('2m', 'RolloutDegraded'),
      none('10m', 'CanaryAnalysisFailed'),
      none('10m', 'RolloutDegraded'),
      // release 4's abort by hand: the old run was Failed while release 4 progressed, so it claims nothing
      none('15m30s', 'RolloutDegraded'), // for 1m
      {
        eval_time: '16m30s',
        alertname: 'RolloutDegraded',
        exp_alerts: [expected(checkout, 'RolloutDegraded', { name: 'checkout-api', phase: 'Abort' }, 1)],
      },
      none('16m30s', 'CanaryAnalysisFailed'),
      {
        eval_time: '29m30s',
        alertname: 'RolloutDegraded',
        exp_alerts: [expected(checkout, 'RolloutDegraded', { name: 'checkout-api', phase: 'Abort' }, 1)],
      },
      none('29m30s', 'CanaryAnalysisFailed'),
    ],
  },
  {
    name: 'a retry after a failed run, and its re-run <run>.1 fails too: the re-run claims the new abort, the first run does not',
    interval: '30s',
    input_series: [
      ...OWN_REPLICASETS,
      rolloutInfo('Paused', ticks(['1', 10], ['stale', 1], ['_', 40])),
      rolloutInfo('Abort', ticks(['_', 10], ['1', 10], ['stale', 1], ['_', 9], ['1', 21])),
      rolloutInfo('Progressing', ticks(['_', 20], ['1', 10], ['stale', 1], ['_', 20])),
      run(RUN, 'Running', ticks(['1', 10], ['stale', 1], ['_', 40])),
      run(RUN, 'Failed', ticks(['_', 10], ['1', 41])),
      // `kubectl argo rollouts retry` at 10m: the same revision's run name is taken, so the re-run is <run>.1
      run(RERUN, 'Running', ticks(['_', 20], ['1', 10], ['stale', 1], ['_', 20])),
      run(RERUN, 'Failed', ticks(['_', 30], ['1', 21])),
      run('checkout-api-bff-7c8d9f6b5-2.1', 'Failed', ticks(['1', 51])),
    ],
    alert_rule_test: [
      {
        eval_time: '7m',
        alertname: 'CanaryAnalysisFailed',
        exp_alerts: [expected(checkout, 'CanaryAnalysisFailed', { name: RUN, phase: 'Failed' }, 1)],
      },
      none('12m', 'CanaryAnalysisFailed'),
      none('12m', 'RolloutDegraded'),
      {
        eval_time: '17m',
        alertname: 'CanaryAnalysisFailed',
        exp_alerts: [expected(checkout, 'CanaryAnalysisFailed', { name: RERUN, phase: 'Failed' }, 1)],
      },
      none('17m', 'RolloutDegraded'),
    ],
  },
  {
    name: 'rollout exceeds its progress deadline (a new pod never became available)',
    interval: '30s',
    input_series: [rolloutInfo('Progressing', '1x9 stale'), rolloutInfo('Timeout', '_x9 1x30')],
    alert_rule_test: [
      none('5m', 'RolloutDegraded'),
      {
        eval_time: '6m',
        alertname: 'RolloutDegraded',
        exp_alerts: [expected(checkout, 'RolloutDegraded', { name: 'checkout-api', phase: 'Timeout' }, 1)],
      },
      none('6m', 'CanaryAnalysisFailed'),
    ],
  },
  {
    name: 'healthy canary: Progressing, Paused, Completed; analysis Successful',
    interval: '30s',
    input_series: [
      rolloutInfo('Progressing', '1x9 stale'),
      rolloutInfo('Paused', '_x9 1x9 stale'),
      rolloutInfo('Completed', '_x19 1x20'),
      run(RUN, 'Running', '1x14 stale'),
      run(RUN, 'Successful', '_x14 1x25'),
    ],
    alert_rule_test: [
      none('3m', 'RolloutDegraded'),
      none('8m', 'RolloutDegraded'),
      none('15m', 'RolloutDegraded'),
      none('8m', 'CanaryAnalysisFailed'),
      none('15m', 'CanaryAnalysisFailed'),
      // rollout_info is there under the Rollout's own namespace: the signal is not missing
      none('15m', 'RolloutMetricsMissing'),
    ],
  },
  {
    // The argo-rollouts Helm chart's ServiceMonitor, a monitor without honorLabels, or a Prometheus
    // with overrideHonorLabels: the controller's namespace="checkout" is stored as
    // exported_namespace, under namespace="argo-rollouts". The same failed-analysis abort as above.
    name: 'the controller scraped without honorLabels: the rollout alerts cannot see the abort, and RolloutMetricsMissing says why',
    interval: '30s',
    input_series: [
      ...OWN_REPLICASETS,
      rolloutInfo('Progressing', '1x9 stale', withoutHonorLabels(ROLLOUTS_MONITOR)),
      rolloutInfo('Abort', '_x9 1x30', withoutHonorLabels(ROLLOUTS_MONITOR)),
      run(RUN, 'Running', '1x9 stale', withoutHonorLabels(ROLLOUTS_MONITOR)),
      run(RUN, 'Failed', '_x9 1x30', withoutHonorLabels(ROLLOUTS_MONITOR)),
    ],
    alert_rule_test: [
      none('8m', 'CanaryAnalysisFailed'),
      none('8m', 'RolloutDegraded'),
      none('9m30s', 'RolloutMetricsMissing'), // for 10m
      {
        eval_time: '10m',
        alertname: 'RolloutMetricsMissing',
        exp_alerts: [expected(checkout, 'RolloutMetricsMissing', { name: 'checkout-api' }, 1)],
      },
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
      {
        eval_time: '13m30s',
        alertname: 'CpuThrottlingHigh',
        exp_alerts: [expected(inventory, 'CpuThrottlingHigh', { pod: HOT }, 0.5)],
      },
    ],
  },
  {
    name: 'Deployment (inventory-api) Progressing=False',
    interval: '30s',
    input_series: [
      {
        series:
          'kube_deployment_status_condition{namespace="inventory", deployment="inventory-api", condition="Progressing", status="false", job="kube-state-metrics"}',
        values: '0x9 1x20',
      },
      {
        series:
          'kube_deployment_status_condition{namespace="inventory", deployment="inventory-api", condition="Progressing", status="true", job="kube-state-metrics"}',
        values: '1x9 0x20',
      },
    ],
    alert_rule_test: [
      none('5m', 'RolloutDegraded'),
      {
        eval_time: '6m',
        alertname: 'RolloutDegraded',
        exp_alerts: [expected(inventory, 'RolloutDegraded', { deployment: 'inventory-api' }, 1)],
      },
    ],
  },
];

test('promtool: failed analysis, degraded rollout, stalled Deployment and CPU throttling fire with their labels; healthy rollouts stay silent', () => {
  const r = runPromtool([checkout, inventory], tests);
  expect(r.output).toContain('SUCCESS');
  expect(r.status).toBe(0);
});

test('promtool: a failed-analysis abort left for over the claim window (24 h) is reported by RolloutDegraded from then on', () => {
  // a day and 20 minutes of scrapes; only the two rules evaluated (each holds a 24 h subquery)
  const n = CLAIM_WINDOW_SECONDS / 30 + 40;
  const long: PromTest = {
    name: 'an abort by a failed analysis that lasts a day',
    interval: '30s',
    input_series: [
      ...OWN_REPLICASETS,
      rolloutInfo('Paused', ticks(['1', 10], ['stale', 1])),
      rolloutInfo('Abort', ticks(['_', 10], ['1', n])),
      run(RUN, 'Running', ticks(['1', 10], ['stale', 1])),
      run(RUN, 'Failed', ticks(['_', 10], ['1', n])),
    ],
    alert_rule_test: [
      {
        eval_time: '23h50m',
        alertname: 'CanaryAnalysisFailed',
        exp_alerts: [expected(checkout, 'CanaryAnalysisFailed', { name: RUN, phase: 'Failed' }, 1)],
      },
      none('23h50m', 'RolloutDegraded'),
      // the run failed at 5m: from 24h5m its Failed series existed 24 h ago, so it claims nothing
      none('24h10m', 'CanaryAnalysisFailed'),
      {
        eval_time: '24h10m',
        alertname: 'RolloutDegraded',
        exp_alerts: [expected(checkout, 'RolloutDegraded', { name: 'checkout-api', phase: 'Abort' }, 1)],
      },
    ],
  };
  const r = runPromtool([only(checkout, ['CanaryAnalysisFailed', 'RolloutDegraded'])], [long], 240_000);
  expect(r.output).toContain('SUCCESS');
  expect(r.status).toBe(0);
}, 300_000);
