import {
  bothServices,
  controllerSeries,
  endpointSeries,
  expected,
  PromTest,
  repeat,
  runPromtool,
  Series,
} from './support';

/**
 * The proxy's view, replayed on promtool, with series shaped as Envoy Gateway v1.9.0 exports them:
 * its bootstrap sets enableDeferredCreationStats (internal/xds/bootstrap/bootstrap.yaml.tpl), so the
 * cluster's traffic stats (envoy/upstream/upstream.h ALL_CLUSTER_TRAFFIC_STATS: upstream_rq_total,
 * upstream_cx_total, upstream_cx_none_healthy, upstream_cx_connect_fail, upstream_cx_idle_timeout,
 * upstream_cx_destroy_remote_with_active_rq, upstream_rq_timeout, upstream_rq_pending_overflow, ...)
 * are created as one block at the first use of any of them (source/common/stats/deferred_creation.h:
 * DeferredStats constructs the whole ClusterTrafficStats at its first getOrCreate), in practice the
 * cluster's first request, every counter at 0 but the one counted; /stats/prometheus without
 * `usedonly` (Envoy Gateway's stats route and the PodMonitor's path) exports them at 0. The
 * response-class counters (upstream_rq_xx) are created each at its own first response
 * (source/common/http/codes.cc); the endpoint and load-balancer stats (membership_healthy,
 * membership_total, lb_healthy_panic) exist with the cluster. `_` is a scrape at which the series
 * does not exist. (Envoy files read on the main branch in the code index; Envoy Gateway v1.9.0 runs
 * Envoy v1.39.0.)
 */
const { checkout } = bothServices();
const C0 = 'httproute/checkout/checkout-api/rule/0';
const PROXY = 'envoy-default-eg-7f9c-abcde';
const none = (eval_time: string, alertname: string) => ({ eval_time, alertname, exp_alerts: [] });
const envoy = (metric: string, cluster: string, values: string, extra = '', pod = PROXY): Series => ({
  series: `${metric}{envoy_cluster_name="${cluster}", namespace="envoy-gateway-system", pod="${pod}"${extra}}`,
  values,
});
/** A deferred counter: absent for `absent` scrapes, then created at its first use holding `step`, growing by `step` per scrape for `grow` scrapes in all. */
const deferred = (absent: number, step: number, grow: number) =>
  `${absent > 0 ? `_x${absent} ` : ''}${step}+${step}x${grow - 1}`;
/** The counters of the cluster's traffic-stats block the rules read (with upstream_cx_total, which every connection counts). */
const TRAFFIC_STATS = [
  'envoy_cluster_upstream_rq_total',
  'envoy_cluster_upstream_cx_total',
  'envoy_cluster_upstream_cx_none_healthy',
  'envoy_cluster_upstream_cx_connect_fail',
  'envoy_cluster_upstream_cx_destroy_remote_with_active_rq',
  'envoy_cluster_upstream_cx_idle_timeout',
  'envoy_cluster_upstream_rq_pending_overflow',
  'envoy_cluster_upstream_rq_timeout',
] as const;
type TrafficStat = (typeof TRAFFIC_STATS)[number];
/**
 * The cluster's traffic-stats block: absent for `absent` scrapes, then every counter from its
 * creation on as `counted` gives it (promtool values from the creation scrape), or 0 for `scrapes`
 * samples.
 */
const trafficStats = (
  cluster: string,
  absent: number,
  scrapes: number,
  counted: Partial<Record<TrafficStat, string>> = {},
): Series[] =>
  TRAFFIC_STATS.map((m) => envoy(m, cluster, `${absent > 0 ? `_x${absent} ` : ''}${counted[m] ?? `0x${scrapes - 1}`}`));
/** The cluster's endpoint and load-balancer stats, which exist from its creation. */
const clusterStats = (cluster: string, healthy: string, total: string, panic: string): Series[] => [
  envoy('envoy_cluster_membership_healthy', cluster, healthy),
  envoy('envoy_cluster_membership_total', cluster, total),
  envoy('envoy_cluster_lb_healthy_panic', cluster, panic),
];
const ALL = [
  'Route5xxOverSlo',
  'EnvoyNoHealthyUpstream',
  'EnvoyUpstreamResetKeepAliveRace',
  'EnvoyUpstreamConnectFailure',
  'EnvoyUpstreamOverflow',
  'EnvoyUpstreamTimeout',
];
const silent = (eval_time: string) => ALL.map((a) => none(eval_time, a));

const tests: PromTest[] = [
  {
    name: 'a cluster that never took traffic: only its endpoint and load-balancer stats exist; nothing fires',
    interval: '30s',
    input_series: clusterStats(`${C0}/backend/1`, '1x60', '1x60', '0x60'),
    alert_rule_test: [...silent('10m'), ...silent('30m')],
  },
  {
    name: 'a route that never failed: no class-5 series, no failure counters at all; nothing fires',
    interval: '30s',
    input_series: [
      ...clusterStats(C0, '12x60', '12x60', '0x60'),
      // the traffic-stats block from the first request: the failure counters are there, at 0
      ...trafficStats(C0, 1, 60, {
        envoy_cluster_upstream_rq_total: '6000+6000x59',
        envoy_cluster_upstream_cx_total: '40x59',
        envoy_cluster_upstream_cx_idle_timeout: '0 40+40x58',
      }),
      envoy('envoy_cluster_upstream_rq_xx', C0, deferred(1, 6000, 60), ', envoy_response_code_class="2"'),
    ],
    alert_rule_test: [...silent('10m'), ...silent('30m')],
  },
  {
    name: '5xx over the SLO (5 % from 5 min), another route failing, and zero traffic',
    interval: '30s',
    input_series: [
      ...trafficStats(C0, 1, 40, { envoy_cluster_upstream_rq_total: '100+100x39' }),
      envoy('envoy_cluster_upstream_rq_xx', C0, deferred(1, 95, 40), ', envoy_response_code_class="2"'),
      envoy('envoy_cluster_upstream_rq_xx', C0, deferred(11, 5, 30), ', envoy_response_code_class="5"'),
      // another service's route at 50 % errors must not fire checkout-api's alert
      ...trafficStats('httproute/checkout/other-api/rule/0', 0, 41, { envoy_cluster_upstream_rq_total: '0+100x40' }),
      envoy(
        'envoy_cluster_upstream_rq_xx',
        'httproute/checkout/other-api/rule/0',
        '0+50x40',
        ', envoy_response_code_class="5"',
      ),
    ],
    alert_rule_test: [
      none('5m', 'Route5xxOverSlo'),
      // the class-5 series appears at 5m30s already at 5; with its second sample (6m) the 5-min ratio is 5 %; for 5m
      none('10m30s', 'Route5xxOverSlo'),
      { eval_time: '11m', alertname: 'Route5xxOverSlo', exp_alerts: [expected(checkout, 'Route5xxOverSlo', {}, 0.05)] },
      none('11m', 'EnvoyUpstreamResetKeepAliveRace'),
    ],
  },
  {
    name: 'a route in total outage, UH only: every response is a 503 Envoy gives itself, upstream_rq_total stops moving',
    interval: '30s',
    input_series: [
      // 5 min healthy, then a cluster that is still routed to has no host: UH for every request. (Envoy
      // Gateway routes a Service with no endpoints away from its cluster, the next case; the alerts
      // must still fire when a routed cluster is empty.)
      ...clusterStats(C0, '12x9 0x30', '12x9 0x30', '0x9 50+50x29'),
      // the block exists since the route's first request: cx_none_healthy counts from 0
      ...trafficStats(C0, 0, 41, {
        envoy_cluster_upstream_rq_total: '1000+1000x9 10000x30',
        envoy_cluster_upstream_cx_none_healthy: '0x9 1000+1000x30',
      }),
      envoy('envoy_cluster_upstream_rq_xx', C0, '1000+1000x9 10000x30', ', envoy_response_code_class="2"'),
      // a class's counter is created at its first response
      envoy('envoy_cluster_upstream_rq_xx', C0, deferred(10, 1000, 30), ', envoy_response_code_class="5"'),
    ],
    alert_rule_test: [
      none('5m', 'Route5xxOverSlo'),
      none('5m', 'EnvoyNoHealthyUpstream'),
      // over every class the ratio is 1 (a division by upstream_rq_total would be by 0: no sample)
      { eval_time: '11m30s', alertname: 'Route5xxOverSlo', exp_alerts: [expected(checkout, 'Route5xxOverSlo', {}, 1)] },
      {
        eval_time: '7m',
        alertname: 'EnvoyNoHealthyUpstream',
        exp_alerts: [expected(checkout, 'EnvoyNoHealthyUpstream', { envoy_cluster_name: C0 }, 0)],
      },
    ],
  },
  {
    // Envoy Gateway v1.9.0 gives the rule a direct 503 when its only backend has no endpoints
    // (internal/gatewayapi/route.go, failedNoReadyEndpoints) and still builds the empty cluster
    // (internal/xds/translator/translator.go processXdsCluster for every destination setting), so
    // the cluster's stats stay, with no endpoint and no traffic. Envoy answers the direct response
    // before choosing a cluster (router.cc decodeHeaders, main): only the listener's counters move.
    name: 'a Service with no endpoints at all: direct 503s counted on no cluster; the route alerts are blind, ReadyEndpointsBelowFloor pages',
    interval: '30s',
    input_series: [
      ...clusterStats(C0, '12x9 0x30', '12x9 0x30', '0x40'),
      ...trafficStats(C0, 0, 41, { envoy_cluster_upstream_rq_total: '1000+1000x9 10000x30' }),
      envoy('envoy_cluster_upstream_rq_xx', C0, '1000+1000x9 10000x30', ', envoy_response_code_class="2"'),
      // the listener's counters (http.http-10080.*): every route on the port shares them
      {
        series:
          'envoy_http_rq_direct_response{envoy_http_conn_manager_prefix="http-10080", namespace="envoy-gateway-system", pod="envoy-default-eg-7f9c-abcde"}',
        values: '0x9 1000+1000x30',
      },
      {
        series:
          'envoy_http_downstream_rq_xx{envoy_http_conn_manager_prefix="http-10080", envoy_response_code_class="5", namespace="envoy-gateway-system", pod="envoy-default-eg-7f9c-abcde"}',
        values: '0x9 1000+1000x30',
      },
      controllerSeries('rollout_info_replicas_desired', { namespace: 'checkout', name: 'checkout-api' }, '12x40'),
      // the EndpointSlice stays and lists no endpoint: no kube_endpointslice_endpoints series at all from 5m
      ...endpointSeries('checkout', 'checkout-api', repeat(12, 10), 12).map((x) =>
        x.series.startsWith('kube_endpointslice_info')
          ? { ...x, values: '1x40' }
          : { ...x, values: `${x.values} stale` },
      ),
    ],
    alert_rule_test: [
      none('4m30s', 'ReadyEndpointsBelowFloor'),
      none('6m30s', 'ReadyEndpointsBelowFloor'), // 0 ready from 5m, for 2m
      {
        eval_time: '7m',
        alertname: 'ReadyEndpointsBelowFloor',
        exp_alerts: [expected(checkout, 'ReadyEndpointsBelowFloor', {}, 0)],
      },
      {
        eval_time: '19m',
        alertname: 'ReadyEndpointsBelowFloor',
        exp_alerts: [expected(checkout, 'ReadyEndpointsBelowFloor', {}, 0)],
      },
      ...silent('12m'),
      ...silent('19m'),
    ],
  },
  {
    name: 'panic routing: every pod not Ready but still listed; Envoy sends the requests to them (no UH at all)',
    interval: '30s',
    input_series: [
      ...clusterStats(C0, '12x9 0x30', '12x40', '0x9 3000+3000x29'),
      // the not-Ready pods still answer (slowly): requests go upstream, cx_none_healthy stays 0
      ...trafficStats(C0, 0, 40, { envoy_cluster_upstream_rq_total: '3000+3000x39' }),
      envoy('envoy_cluster_upstream_rq_xx', C0, '3000+3000x39', ', envoy_response_code_class="2"'),
    ],
    alert_rule_test: [
      none('5m', 'EnvoyNoHealthyUpstream'),
      {
        eval_time: '7m',
        alertname: 'EnvoyNoHealthyUpstream',
        exp_alerts: [expected(checkout, 'EnvoyNoHealthyUpstream', { envoy_cluster_name: C0 }, 0)],
      },
      none('12m', 'Route5xxOverSlo'),
    ],
  },
  {
    name: 'UH: the canary backend cluster has no healthy member while requests arrive; an idle empty cluster stays silent',
    interval: '30s',
    input_series: [
      ...clusterStats(`${C0}/backend/0`, '12x30', '12x30', '0x30'),
      ...clusterStats(`${C0}/backend/1`, '1x9 0x20', '1x9 0x20', '0x30'),
      ...trafficStats(`${C0}/backend/0`, 0, 31, { envoy_cluster_upstream_rq_total: '1000+1000x30' }),
      envoy('envoy_cluster_upstream_rq_xx', `${C0}/backend/0`, '1000+1000x30', ', envoy_response_code_class="2"'),
      // the canary cluster's first requests find no healthy host: the 503s Envoy gives itself
      // create its traffic-stats block (cx_none_healthy counting, upstream_rq_total at 0: nothing is
      // sent upstream) and the class-5 counter (router.cc sendNoHealthyUpstreamResponse)
      ...trafficStats(`${C0}/backend/1`, 10, 20, { envoy_cluster_upstream_cx_none_healthy: '20+20x19' }),
      envoy('envoy_cluster_upstream_rq_xx', `${C0}/backend/1`, deferred(10, 20, 20), ', envoy_response_code_class="5"'),
      // an empty cluster nobody sends requests to: no traffic stats at all
      ...clusterStats('httproute/checkout/checkout-api/rule/1', '0x30', '0x30', '0x30'),
    ],
    alert_rule_test: [
      none('4m30s', 'EnvoyNoHealthyUpstream'),
      none('6m', 'EnvoyNoHealthyUpstream'), // first sample at 5m, rate from 5m30s; for 1m
      {
        eval_time: '6m30s',
        alertname: 'EnvoyNoHealthyUpstream',
        exp_alerts: [expected(checkout, 'EnvoyNoHealthyUpstream', { envoy_cluster_name: `${C0}/backend/1` }, 0)],
      },
    ],
  },
  {
    name: "UC: a rare upstream reset under healthy traffic: the counter is there at 0 since the route's first request, and increase() sees the race",
    interval: '30s',
    input_series: [
      ...trafficStats(C0, 0, 71, {
        envoy_cluster_upstream_rq_total: '1000+1000x70',
        envoy_cluster_upstream_cx_idle_timeout: '3+3x70',
        envoy_cluster_upstream_cx_destroy_remote_with_active_rq: '0x19 1x51',
      }),
      envoy('envoy_cluster_upstream_rq_xx', C0, '998+998x70', ', envoy_response_code_class="2"'),
      envoy('envoy_cluster_upstream_rq_xx', C0, deferred(20, 1, 1) + ' 1x49', ', envoy_response_code_class="5"'),
      ...clusterStats(C0, '12x70', '12x70', '0x70'),
    ],
    alert_rule_test: [
      none('9m30s', 'EnvoyUpstreamResetKeepAliveRace'),
      {
        eval_time: '10m',
        alertname: 'EnvoyUpstreamResetKeepAliveRace',
        exp_alerts: [expected(checkout, 'EnvoyUpstreamResetKeepAliveRace', { envoy_cluster_name: C0 }, 1)],
      },
      {
        eval_time: '24m',
        alertname: 'EnvoyUpstreamResetKeepAliveRace',
        exp_alerts: [expected(checkout, 'EnvoyUpstreamResetKeepAliveRace', { envoy_cluster_name: C0 }, 1)],
      },
      // one 503 in 50,000 requests: the ratio alert can never see this mechanism
      none('16m', 'Route5xxOverSlo'),
      none('26m', 'EnvoyUpstreamResetKeepAliveRace'),
      none('16m', 'EnvoyUpstreamConnectFailure'),
    ],
  },
  {
    // The canary's cluster exists from the first weight; its first requests and a race land in one
    // scrape interval, so the block's first sample already holds the race: increase() has no sample
    // before it, the rule's "exists now, not 15 min ago" branch fires.
    name: "UC within the first scrape of a new cluster's traffic: the counter's first sample is already 1",
    interval: '30s',
    input_series: [
      ...clusterStats(`${C0}/backend/1`, '_x9 1x40', '_x9 1x40', '_x9 0x40'),
      ...trafficStats(`${C0}/backend/1`, 10, 41, {
        envoy_cluster_upstream_rq_total: '50+50x40',
        envoy_cluster_upstream_cx_destroy_remote_with_active_rq: '1x40',
      }),
      envoy(
        'envoy_cluster_upstream_rq_xx',
        `${C0}/backend/1`,
        deferred(10, 49, 1) + ' 49+50x39',
        ', envoy_response_code_class="2"',
      ),
      envoy(
        'envoy_cluster_upstream_rq_xx',
        `${C0}/backend/1`,
        deferred(10, 1, 1) + ' 1x39',
        ', envoy_response_code_class="5"',
      ),
    ],
    alert_rule_test: [
      none('4m30s', 'EnvoyUpstreamResetKeepAliveRace'),
      {
        eval_time: '5m',
        alertname: 'EnvoyUpstreamResetKeepAliveRace',
        exp_alerts: [
          expected(checkout, 'EnvoyUpstreamResetKeepAliveRace', { envoy_cluster_name: `${C0}/backend/1` }, 1),
        ],
      },
      {
        eval_time: '19m30s',
        alertname: 'EnvoyUpstreamResetKeepAliveRace',
        exp_alerts: [
          expected(checkout, 'EnvoyUpstreamResetKeepAliveRace', { envoy_cluster_name: `${C0}/backend/1` }, 1),
        ],
      },
      none('20m30s', 'EnvoyUpstreamResetKeepAliveRace'),
    ],
  },
  {
    name: 'a pod crash: a few requests reset and connects refused at once, then the pod is gone',
    interval: '30s',
    input_series: [
      ...trafficStats(C0, 0, 51, {
        envoy_cluster_upstream_rq_total: '1000+1000x50',
        envoy_cluster_upstream_cx_destroy_remote_with_active_rq: '0x9 3x41',
        envoy_cluster_upstream_cx_connect_fail: '0x9 4x41',
      }),
      envoy('envoy_cluster_upstream_rq_xx', C0, '1000+1000x50', ', envoy_response_code_class="2"'),
      envoy('envoy_cluster_upstream_rq_xx', C0, deferred(10, 7, 1) + ' 7x40', ', envoy_response_code_class="5"'),
      ...clusterStats(C0, '12x9 11x41', '12x9 11x41', '0x50'),
    ],
    alert_rule_test: [
      // every reset with a request in flight is a 503 the client saw: UC pages, naming pod shutdown
      {
        eval_time: '6m',
        alertname: 'EnvoyUpstreamResetKeepAliveRace',
        exp_alerts: [expected(checkout, 'EnvoyUpstreamResetKeepAliveRace', { envoy_cluster_name: C0 }, 3)],
      },
      // a one-off burst of connect failures is not a lasting mechanism; 7 in 10,000 is no SLO breach
      none('8m', 'EnvoyUpstreamConnectFailure'),
      none('12m', 'EnvoyUpstreamConnectFailure'),
      none('12m', 'Route5xxOverSlo'),
      none('12m', 'EnvoyNoHealthyUpstream'),
    ],
  },
  {
    name: 'a restart of the proxy: its counters start again (the traffic-stats block at the first request, classes at their first response): no alert from the reset, the SLO breach keeps firing',
    interval: '30s',
    input_series: [
      // route A (checkout-api, rule 0) at 5 % errors throughout; the proxy restarts at 15m
      envoy('envoy_cluster_upstream_rq_xx', C0, '950+950x29 stale 950+950x19', ', envoy_response_code_class="2"'),
      envoy('envoy_cluster_upstream_rq_xx', C0, '50+50x29 stale 50+50x19', ', envoy_response_code_class="5"'),
      // the keep-alive race counter, from a race an hour earlier, starts again at 0 with the block
      ...trafficStats(
        C0,
        0,
        51,
        Object.fromEntries(TRAFFIC_STATS.map((m) => [m, '0x29 stale 0x19'])) as Record<TrafficStat, string>,
      ).map((x) =>
        x.series.startsWith('envoy_cluster_upstream_rq_total{')
          ? { ...x, values: '1000+1000x29 stale 1000+1000x19' }
          : x.series.startsWith('envoy_cluster_upstream_cx_destroy_remote_with_active_rq{')
            ? { ...x, values: '2x29 stale 0x19' }
            : x,
      ),
      // rule 1 at 0.5 % errors with the same restart: below the SLO before and after
      envoy(
        'envoy_cluster_upstream_rq_xx',
        `httproute/checkout/checkout-api/rule/1`,
        '995+995x29 stale 995+995x19',
        ', envoy_response_code_class="2"',
      ),
      envoy(
        'envoy_cluster_upstream_rq_xx',
        `httproute/checkout/checkout-api/rule/1`,
        '5+5x29 stale 5+5x19',
        ', envoy_response_code_class="5"',
      ),
    ],
    alert_rule_test: [
      {
        eval_time: '14m',
        alertname: 'Route5xxOverSlo',
        exp_alerts: [expected(checkout, 'Route5xxOverSlo', {}, 0.0275)],
      },
      {
        eval_time: '17m',
        alertname: 'Route5xxOverSlo',
        exp_alerts: [expected(checkout, 'Route5xxOverSlo', {}, 0.0275)],
      },
      {
        eval_time: '24m',
        alertname: 'Route5xxOverSlo',
        exp_alerts: [expected(checkout, 'Route5xxOverSlo', {}, 0.0275)],
      },
      none('16m', 'EnvoyUpstreamResetKeepAliveRace'),
      none('24m', 'EnvoyUpstreamResetKeepAliveRace'),
    ],
  },
  {
    name: 'UF, UO, UT: connect failures, overflow and timeouts from 5m30s on a route with traffic: each counter there at 0 since the first request',
    interval: '30s',
    input_series: [
      ...trafficStats(C0, 0, 31, {
        envoy_cluster_upstream_rq_total: '1000+1000x30',
        envoy_cluster_upstream_cx_connect_fail: '0x10 2+2x19',
        envoy_cluster_upstream_rq_pending_overflow: '0x10 7+7x19',
        envoy_cluster_upstream_rq_timeout: '0x10 1+1x19',
      }),
    ],
    alert_rule_test: [
      none('5m', 'EnvoyUpstreamConnectFailure'),
      none('5m', 'EnvoyUpstreamOverflow'),
      none('5m', 'EnvoyUpstreamTimeout'),
      none('7m', 'EnvoyUpstreamConnectFailure'), // counting from 5m30s (rate > 0 at once: a 0 before), for 2m
      none('7m', 'EnvoyUpstreamTimeout'),
      {
        eval_time: '7m30s',
        alertname: 'EnvoyUpstreamConnectFailure',
        exp_alerts: [expected(checkout, 'EnvoyUpstreamConnectFailure', { envoy_cluster_name: C0 }, 0)],
      },
      {
        eval_time: '8m',
        alertname: 'EnvoyUpstreamConnectFailure',
        exp_alerts: [expected(checkout, 'EnvoyUpstreamConnectFailure', { envoy_cluster_name: C0 }, 0)],
      },
      {
        eval_time: '8m',
        alertname: 'EnvoyUpstreamOverflow',
        exp_alerts: [expected(checkout, 'EnvoyUpstreamOverflow', { envoy_cluster_name: C0 }, 0)],
      },
      {
        eval_time: '8m',
        alertname: 'EnvoyUpstreamTimeout',
        exp_alerts: [expected(checkout, 'EnvoyUpstreamTimeout', { envoy_cluster_name: C0 }, 0)],
      },
      none('8m', 'EnvoyUpstreamResetKeepAliveRace'),
    ],
  },
  {
    // A new cluster (the canary's, from its first weight) whose every connect fails: the connect
    // failures are its first traffic, so the block's first sample already counts them; the rate
    // sees the events from the series' second scrape.
    name: "UF as a new cluster's very first traffic: the block appears already counting; the alert fires one scrape later than on a cluster with traffic",
    interval: '30s',
    input_series: [
      ...clusterStats(`${C0}/backend/1`, '_x9 1x21', '_x9 1x21', '_x9 0x21'),
      ...trafficStats(`${C0}/backend/1`, 10, 21, {
        envoy_cluster_upstream_cx_total: '2+2x20',
        envoy_cluster_upstream_cx_connect_fail: '2+2x20',
      }),
    ],
    alert_rule_test: [
      none('7m', 'EnvoyUpstreamConnectFailure'), // created at 5m, rate > 0 from 5m30s, for 2m
      {
        eval_time: '7m30s',
        alertname: 'EnvoyUpstreamConnectFailure',
        exp_alerts: [expected(checkout, 'EnvoyUpstreamConnectFailure', { envoy_cluster_name: `${C0}/backend/1` }, 0)],
      },
    ],
  },
];

test('promtool: a cluster without traffic and a route that never failed stay silent; total UH outage, a Service with no endpoints (only the floor alert), panic routing, pod crash, proxy restart, rare UC and UF/UO/UT behave as their alerts say', () => {
  const r = runPromtool([checkout], tests);
  expect(r.output).toContain('SUCCESS');
  expect(r.status).toBe(0);
});

test('the test data is shaped as Envoy creates the traffic stats: per cluster and proxy, every counter of the block at once, or none', () => {
  // promtool notation: "_" and "_xN" are scrapes without the series (1 and N of them)
  const firstSample = (values: string) => {
    let n = 0;
    for (const t of values.trim().split(/\s+/)) {
      const m = /^_(?:x(\d+))?$/.exec(t);
      if (!m) return n;
      n += m[1] ? Number(m[1]) : 1;
    }
    return Infinity;
  };
  const blocks = new Map<string, Map<string, number>>();
  for (const [i, t] of tests.entries()) {
    for (const x of t.input_series) {
      const m = /^(\w+)\{envoy_cluster_name="([^"]+)".*pod="([^"]+)"/.exec(x.series);
      if (!m || !(TRAFFIC_STATS as readonly string[]).includes(m[1])) continue;
      const key = `${i}|${m[2]}|${m[3]}`;
      if (!blocks.has(key)) blocks.set(key, new Map());
      blocks.get(key)!.set(m[1], firstSample(x.values));
    }
  }
  expect(blocks.size).toBeGreaterThan(5);
  for (const [key, b] of blocks) {
    expect([key, [...b.keys()].sort()]).toEqual([key, [...TRAFFIC_STATS].sort()]);
    expect([key, new Set(b.values()).size]).toEqual([key, 1]);
  }
});
