import { podName } from '../../src/decisions/generated-names';
import {
  bothServices,
  build,
  CHECKOUT,
  controllerSeries,
  endpointSeries,
  expected,
  PromTest,
  repeat,
  runPromtool,
  Series,
} from './support';

/**
 * Readiness shapes replayed on the real Prometheus rule engine (promtool test rules): the
 * saw-tooth collapse, a sustained shortfall, scale-ups and a drain that must stay silent, and a
 * few pods of ten flapping without restarts.
 */
const { checkout, inventory } = bothServices();
const NS = 'checkout';
/** The controller's desired replicas (labels namespace and name only, argo-rollouts v1.9.1 prommetrics.go), as scraped through rollwise platform's PodMonitor. */
const desired = (values: string): Series =>
  controllerSeries('rollout_info_replicas_desired', { namespace: NS, name: 'checkout-api' }, values);
const none = (eval_time: string, alertname: string) => ({ eval_time, alertname, exp_alerts: [] });

// 5 min healthy, then 5 saw-tooth cycles of 3 min (all ready 90 s, 6 ready, 0 ready, 0 ready), then 10 min healthy.
const sawtooth = [
  ...repeat(12, 10),
  ...Array.from({ length: 5 }, () => [12, 12, 12, 6, 0, 0]).flat(),
  ...repeat(12, 20),
];

function tests(): PromTest[] {
  return [
    {
      name: 'saw-tooth: all ready, none ready, all ready',
      interval: '30s',
      input_series: [desired(`12x${sawtooth.length}`), ...endpointSeries(NS, 'checkout-api', sawtooth, 12)],
      alert_rule_test: [
        none('4m', 'ReadyEndpointsOscillating'),
        none('4m', 'ReadyEndpointsBelowFloor'),
        none('9m', 'ReadyEndpointsOscillating'), // two crossings only: one dip is not a saw-tooth
        // third crossing of the floor (down 6m30, up 8m, down 9m30) inside the 6m window
        {
          eval_time: '10m',
          alertname: 'ReadyEndpointsOscillating',
          exp_alerts: [expected(checkout, 'ReadyEndpointsOscillating', {}, 3)],
        },
        // every recovery resets the sustained alert's timer: it never fires on this shape
        none('10m', 'ReadyEndpointsBelowFloor'),
        none('13m30s', 'ReadyEndpointsBelowFloor'),
        none('19m30s', 'ReadyEndpointsBelowFloor'),
        // 6 min after the last collapse (19m30s) the window is clean again
        none('29m', 'ReadyEndpointsOscillating'),
      ],
    },
    {
      name: 'sustained shortfall: 8 of 12 ready for 10 min',
      interval: '30s',
      input_series: [
        desired('12x60'),
        ...endpointSeries(NS, 'checkout-api', [...repeat(12, 10), ...repeat(8, 20), ...repeat(12, 30)], 12),
      ],
      alert_rule_test: [
        none('4m30s', 'ReadyEndpointsBelowFloor'),
        none('6m30s', 'ReadyEndpointsBelowFloor'), // pending: below since 5m, for 2m
        {
          eval_time: '7m',
          alertname: 'ReadyEndpointsBelowFloor',
          exp_alerts: [expected(checkout, 'ReadyEndpointsBelowFloor', {}, 8)],
        },
        {
          eval_time: '14m30s',
          alertname: 'ReadyEndpointsBelowFloor',
          exp_alerts: [expected(checkout, 'ReadyEndpointsBelowFloor', {}, 8)],
        },
        none('10m', 'ReadyEndpointsOscillating'),
        none('16m', 'ReadyEndpointsBelowFloor'),
      ],
    },
    {
      name: 'zero ready endpoints: no kube_endpoint_address{ready="true"} series at all',
      interval: '30s',
      input_series: [desired('12x20'), ...endpointSeries(NS, 'checkout-api', [...repeat(12, 4), ...repeat(0, 16)], 12)],
      alert_rule_test: [
        {
          eval_time: '4m',
          alertname: 'ReadyEndpointsBelowFloor',
          exp_alerts: [expected(checkout, 'ReadyEndpointsBelowFloor', {}, 0)],
        },
      ],
    },
    {
      // kube-state-metrics run with a --resources list that leaves endpointslices out (they are in
      // its defaults, pkg/options/resource.go v2.19.1): no kube_endpointslice_* series at all. The
      // ready count would fall back to 0 and page forever; instead the floor stays silent and the
      // missing signal is a warning.
      name: 'kube-state-metrics without the endpointslices collector: no floor page, a missing-signal warning',
      interval: '30s',
      input_series: [desired('12x40')],
      alert_rule_test: [
        none('15m', 'ReadyEndpointsBelowFloor'),
        none('15m', 'ReadyEndpointsOscillating'),
        none('9m', 'ReadyEndpointsMetricMissing'),
        // absent() carries the selector's equality labels (namespace), value 1; the other
        // service in the same rule file has no endpoint series either, so it warns too
        {
          eval_time: '15m',
          alertname: 'ReadyEndpointsMetricMissing',
          exp_alerts: [
            expected(checkout, 'ReadyEndpointsMetricMissing', {}, 1),
            expected(inventory, 'ReadyEndpointsMetricMissing', {}, 1),
          ],
        },
      ],
    },
    {
      name: 'two scale-ups (12 -> 16 -> 20) and a one-pod drain within the budget: silent',
      interval: '30s',
      input_series: [
        desired(`12x9 16x10 20x40`),
        ...endpointSeries(
          NS,
          'checkout-api',
          [
            ...repeat(12, 10),
            13,
            14,
            15,
            ...repeat(16, 7),
            17,
            18,
            19,
            ...repeat(20, 7),
            19,
            19,
            19,
            ...repeat(20, 27),
          ],
          20,
        ),
      ],
      alert_rule_test: [
        none('6m', 'ReadyEndpointsBelowFloor'),
        none('6m', 'ReadyEndpointsOscillating'),
        none('11m', 'ReadyEndpointsBelowFloor'),
        none('11m', 'ReadyEndpointsOscillating'),
        none('12m', 'ReadyEndpointsOscillating'),
        none('16m', 'ReadyEndpointsOscillating'),
        none('16m', 'ReadyEndpointsBelowFloor'),
        none('25m', 'ReadyEndpointsBelowFloor'),
      ],
    },
    flapping(),
  ];
}

/** kube-state-metrics' kube_pod_owner of a pod of ReplicaSet `rs` (internal/store/pod.go v2.19.1), one sample per interval. */
const owner = (ns: string, pod: string, rs: string, uid: string, steps: number): Series => ({
  series: `kube_pod_owner{namespace="${ns}", pod="${pod}", uid="${uid}", owner_kind="ReplicaSet", owner_name="${rs}", owner_is_controller="true"}`,
  values: `1x${steps - 1}`,
});

/** inventory-api: 10 pods; from 5 min, pods 0-2 leave and return every minute without restarting; pod 3 flaps in a restart loop. */
function flapping(): PromTest {
  const rs = 'inventory-api-5c7d9b8f4';
  const pod = (k: number) => podName(rs, `x${k}k2p`);
  const steps = 40;
  const series: Series[] = [];
  for (let k = 0; k < 10; k++) {
    const flaps = k <= 3;
    const v = Array.from({ length: steps }, (_, i) =>
      flaps && i >= 12 ? (Math.floor((i - 12) / 2) % 2 === 0 ? 0 : 1) : 1,
    );
    series.push({
      series: `kube_pod_status_ready{namespace="inventory", pod="${pod(k)}", condition="true", uid="u${k}"}`,
      values: v.join(' '),
    });
    series.push({
      series: `kube_pod_status_ready{namespace="inventory", pod="${pod(k)}", condition="false", uid="u${k}"}`,
      values: v.map((x) => 1 - x).join(' '),
    });
    series.push(owner('inventory', pod(k), rs, `u${k}`, steps));
    const restarts = Array.from({ length: steps }, (_, i) => (k === 3 && i >= 12 ? Math.floor((i - 12) / 4) + 1 : 0));
    series.push({
      series: `kube_pod_container_status_restarts_total{namespace="inventory", pod="${pod(k)}", container="app", uid="u${k}"}`,
      values: restarts.join(' '),
    });
  }
  // a pod of another workload in the namespace that flaps too (a Job's pod, say): not inventory-api's
  series.push({
    series:
      'kube_pod_status_ready{namespace="inventory", pod="inventory-api-migrate-x9k2p", condition="true", uid="m1"}',
    values: Array.from({ length: steps }, (_, i) => (i >= 12 ? Math.floor((i - 12) / 2) % 2 : 1)).join(' '),
  });
  series.push(owner('inventory', 'inventory-api-migrate-x9k2p', 'inventory-api-migrate', 'm1', steps));
  return {
    name: 'a steady few pods out of ten flapping without restarts',
    interval: '30s',
    input_series: series,
    alert_rule_test: [
      none('5m', 'ReadinessFlapping'),
      // 4th change at 9m (out 6m, in 7m, out 8m, in 9m); pending for 2m
      none('10m30s', 'ReadinessFlapping'),
      {
        eval_time: '11m',
        alertname: 'ReadinessFlapping',
        exp_alerts: [expected(inventory, 'ReadinessFlapping', {}, 3)],
      },
      {
        eval_time: '19m',
        alertname: 'ReadinessFlapping',
        exp_alerts: [expected(inventory, 'ReadinessFlapping', {}, 3)],
      },
    ],
  };
}

/**
 * A 56-character service (the longest rollwise accepts with a canary): its pods are named as the API
 * server names them, "<replicaset>-" cut to 58 characters, so they keep one character of the hash.
 * Two of its 6 pods flap; the flapping alert finds them by owner.
 */
const LONG = 'customer-notification-preferences-synchronization-api-v2';
const long = build(
  {
    ...CHECKOUT,
    name: LONG,
    replicas: 6,
    capacity: { peakRequestsPerSecond: 1000, saturationRequestsPerSecondPerReplica: 450 },
  },
  'long',
);
function longFlapping(): PromTest {
  const rs = `${LONG}-6f9d8c7b54`;
  const steps = 40;
  const series: Series[] = [];
  for (let k = 0; k < 6; k++) {
    const pod = podName(rs, `q${k}x7z`);
    const flaps = k < 2;
    const v = Array.from({ length: steps }, (_, i) =>
      flaps && i >= 12 ? (Math.floor((i - 12) / 2) % 2 === 0 ? 0 : 1) : 1,
    );
    series.push({
      series: `kube_pod_status_ready{namespace="long", pod="${pod}", condition="true", uid="l${k}"}`,
      values: v.join(' '),
    });
    series.push(owner('long', pod, rs, `l${k}`, steps));
    series.push({
      series: `kube_pod_container_status_restarts_total{namespace="long", pod="${pod}", container="app", uid="l${k}"}`,
      values: `0x${steps - 1}`,
    });
  }
  return {
    name: 'a 56-character service: two of six pods flapping, found by owner although their names lost the hash',
    interval: '30s',
    input_series: series,
    alert_rule_test: [
      none('10m30s', 'ReadinessFlapping'),
      { eval_time: '11m', alertname: 'ReadinessFlapping', exp_alerts: [expected(long, 'ReadinessFlapping', {}, 2)] },
    ],
  };
}

/**
 * A crashing native sidecar: the pod leaves Ready and returns at each restart of the sidecar, whose
 * restarts kube-state-metrics counts in kube_pod_init_container_status_restarts_total (v2.19.1
 * internal/store/pod.go: one series per InitContainerStatuses entry), not in the containers'
 * counter. Pods 0-1 flap with a crashing cloud-sql-proxy (restart loop: not this alert's failure),
 * pods 2-4 flap without any restart (the alert counts those 3); the app's counter stays flat for all.
 */
function sidecarCrashes(): PromTest {
  const rs = 'inventory-api-5c7d9b8f4';
  const pod = (k: number) => podName(rs, `s${k}k2p`);
  const steps = 40;
  const series: Series[] = [];
  for (let k = 0; k < 10; k++) {
    const flaps = k <= 4;
    const v = Array.from({ length: steps }, (_, i) =>
      flaps && i >= 12 ? (Math.floor((i - 12) / 2) % 2 === 0 ? 0 : 1) : 1,
    );
    series.push({
      series: `kube_pod_status_ready{namespace="inventory", pod="${pod(k)}", condition="true", uid="s${k}"}`,
      values: v.join(' '),
    });
    series.push(owner('inventory', pod(k), rs, `s${k}`, steps));
    series.push({
      series: `kube_pod_container_status_restarts_total{namespace="inventory", pod="${pod(k)}", container="app", uid="s${k}"}`,
      values: `0x${steps - 1}`,
    });
    const restarts = Array.from({ length: steps }, (_, i) => (k <= 1 && i >= 12 ? Math.floor((i - 12) / 4) + 1 : 0));
    series.push({
      series: `kube_pod_init_container_status_restarts_total{namespace="inventory", pod="${pod(k)}", container="cloud-sql-proxy", uid="s${k}"}`,
      values: restarts.join(' '),
    });
  }
  return {
    name: "a native sidecar in a restart loop is not readiness flapping: its restarts are the init containers' counter",
    interval: '30s',
    input_series: series,
    alert_rule_test: [
      none('10m30s', 'ReadinessFlapping'),
      {
        eval_time: '11m',
        alertname: 'ReadinessFlapping',
        exp_alerts: [expected(inventory, 'ReadinessFlapping', {}, 3)],
      },
    ],
  };
}

test('promtool: pods flapping because their native sidecar restarts are left out, like app restarts (kube_pod_init_container_status_restarts_total)', () => {
  const r = runPromtool([inventory], [sidecarCrashes()]);
  expect(r.output).toContain('SUCCESS');
  expect(r.status).toBe(0);
});

test("promtool: a 56-character service's flapping pods are found (pods named as the API server names them)", () => {
  expect(LONG.length).toBe(56);
  expect(podName(`${LONG}-6f9d8c7b54`, 'q0x7z')).toBe(`${LONG}-6q0x7z`);
  const r = runPromtool([long], [longFlapping()]);
  expect(r.output).toContain('SUCCESS');
  expect(r.status).toBe(0);
});

test('promtool: saw-tooth fires the oscillation alert, sustained shortfall the floor alert, scale-ups nothing, flapping counts 3 pods', () => {
  const r = runPromtool([checkout, inventory], tests());
  expect(r.output).toContain('SUCCESS');
  expect(r.status).toBe(0);
});

test('promtool can fail: the sustained-shortfall alert stays silent through the saw-tooth', () => {
  const wrong = tests()[0];
  const r = runPromtool(
    [checkout],
    [
      {
        ...wrong,
        alert_rule_test: [
          {
            eval_time: '10m',
            alertname: 'ReadyEndpointsBelowFloor',
            exp_alerts: [expected(checkout, 'ReadyEndpointsBelowFloor', {}, 0)],
          },
        ],
      },
    ],
  );
  expect(r.status).not.toBe(0);
  expect(r.output).toContain('FAILED');
  expect(r.output).toContain('ReadyEndpointsBelowFloor');
});
