import { bothServices, controllerSeries, endpointSeries, expected, PromTest, repeat, runPromtool, Series } from './support';

/**
 * The proxy's view, replayed on promtool, with series shaped as Envoy Gateway v1.9.0 exports them:
 * its bootstrap sets enableDeferredCreationStats (internal/xds/bootstrap/bootstrap.yaml.tpl), so every
 * cluster traffic stat (upstream_rq_total, upstream_cx_none_healthy, upstream_cx_connect_fail,
 * upstream_cx_destroy_remote_with_active_rq, upstream_rq_timeout, upstream_rq_pending_overflow) is
 * absent until its first use and then appears already holding what it counted; the response-class
 * counters (upstream_rq_xx) are created at their first response too (source/common/http/codes.cc);
 * the endpoint and load-balancer stats (membership_healthy, membership_total, lb_healthy_panic)
 * exist with the cluster. `_` is a scrape at which the series does not exist.
 */
const { checkout } = bothServices();
const C0 = 'httproute/checkout/checkout-api/rule/0';
const PROXY = 'envoy-default-eg-7f9c-abcde';
const none = (eval_time: string, alertname: string) => ({ eval_time, alertname, exp_alerts: [] });
const envoy = (metric: string, cluster: string, values: string, extra = '', pod = PROXY): Series => ({
  series: `${metric}{envoy_cluster_name="${cluster}", namespace="envoy-gateway-system", pod="${pod}"${extra}}`, values,
});
/** A deferred counter: absent for `absent` scrapes, then created at its first use holding `step`, growing by `step` per scrape for `grow` scrapes in all. */
const deferred = (absent: number, step: number, grow: number) => `${absent > 0 ? `_x${absent} ` : ''}${step}+${step}x${grow - 1}`;
/** The cluster's endpoint and load-balancer stats, which exist from its creation. */
const clusterStats = (cluster: string, healthy: string, total: string, panic: string): Series[] => [
  envoy('envoy_cluster_membership_healthy', cluster, healthy),
  envoy('envoy_cluster_membership_total', cluster, total),
  envoy('envoy_cluster_lb_healthy_panic', cluster, panic),
];
const ALL = ['Route5xxOverSlo', 'EnvoyNoHealthyUpstream', 'EnvoyUpstreamResetKeepAliveRace', 'EnvoyUpstreamConnectFailure', 'EnvoyUpstreamOverflow', 'EnvoyUpstreamTimeout'];
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
      envoy('envoy_cluster_upstream_rq_total', C0, deferred(1, 6000, 60)),
      envoy('envoy_cluster_upstream_rq_xx', C0, deferred(1, 6000, 60), ', envoy_response_code_class="2"'),
      envoy('envoy_cluster_upstream_cx_idle_timeout', C0, deferred(2, 40, 59)),
    ],
    alert_rule_test: [...silent('10m'), ...silent('30m')],
  },
  {
    name: '5xx over the SLO (5 % from 5 min), another route failing, and zero traffic',
    interval: '30s',
    input_series: [
      envoy('envoy_cluster_upstream_rq_total', C0, deferred(1, 100, 40)),
      envoy('envoy_cluster_upstream_rq_xx', C0, deferred(1, 95, 40), ', envoy_response_code_class="2"'),
      envoy('envoy_cluster_upstream_rq_xx', C0, deferred(11, 5, 30), ', envoy_response_code_class="5"'),
      // another service's route at 50 % errors must not fire checkout-api's alert
      envoy('envoy_cluster_upstream_rq_total', 'httproute/checkout/other-api/rule/0', '0+100x40'),
      envoy('envoy_cluster_upstream_rq_xx', 'httproute/checkout/other-api/rule/0', '0+50x40', ', envoy_response_code_class="5"'),
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
      envoy('envoy_cluster_upstream_rq_total', C0, '1000+1000x9 10000x30'),
      envoy('envoy_cluster_upstream_rq_xx', C0, '1000+1000x9 10000x30', ', envoy_response_code_class="2"'),
      envoy('envoy_cluster_upstream_rq_xx', C0, deferred(10, 1000, 30), ', envoy_response_code_class="5"'),
      envoy('envoy_cluster_upstream_cx_none_healthy', C0, deferred(10, 1000, 30)),
    ],
    alert_rule_test: [
      none('5m', 'Route5xxOverSlo'),
      none('5m', 'EnvoyNoHealthyUpstream'),
      // over every class the ratio is 1 (a division by upstream_rq_total would be by 0: no sample)
      { eval_time: '11m30s', alertname: 'Route5xxOverSlo', exp_alerts: [expected(checkout, 'Route5xxOverSlo', {}, 1)] },
      { eval_time: '7m', alertname: 'EnvoyNoHealthyUpstream', exp_alerts: [expected(checkout, 'EnvoyNoHealthyUpstream', { envoy_cluster_name: C0 }, 0)] },
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
      envoy('envoy_cluster_upstream_rq_total', C0, '1000+1000x9 10000x30'),
      envoy('envoy_cluster_upstream_rq_xx', C0, '1000+1000x9 10000x30', ', envoy_response_code_class="2"'),
      // the listener's counters (http.http-10080.*): every route on the port shares them
      { series: 'envoy_http_rq_direct_response{envoy_http_conn_manager_prefix="http-10080", namespace="envoy-gateway-system", pod="envoy-default-eg-7f9c-abcde"}', values: '0x9 1000+1000x30' },
      { series: 'envoy_http_downstream_rq_xx{envoy_http_conn_manager_prefix="http-10080", envoy_response_code_class="5", namespace="envoy-gateway-system", pod="envoy-default-eg-7f9c-abcde"}', values: '0x9 1000+1000x30' },
      controllerSeries('rollout_info_replicas_desired', { namespace: 'checkout', name: 'checkout-api' }, '12x40'),
      // the EndpointSlice stays and lists no endpoint: no kube_endpointslice_endpoints series at all from 5m
      ...endpointSeries('checkout', 'checkout-api', repeat(12, 10), 12).map((x) => (x.series.startsWith('kube_endpointslice_info')
        ? { ...x, values: '1x40' }
        : { ...x, values: `${x.values} stale` })),
    ],
    alert_rule_test: [
      none('4m30s', 'ReadyEndpointsBelowFloor'),
      none('6m30s', 'ReadyEndpointsBelowFloor'), // 0 ready from 5m, for 2m
      { eval_time: '7m', alertname: 'ReadyEndpointsBelowFloor', exp_alerts: [expected(checkout, 'ReadyEndpointsBelowFloor', {}, 0)] },
      { eval_time: '19m', alertname: 'ReadyEndpointsBelowFloor', exp_alerts: [expected(checkout, 'ReadyEndpointsBelowFloor', {}, 0)] },
      ...silent('12m'), ...silent('19m'),
    ],
  },
  {
    name: 'panic routing: every pod not Ready but still listed; Envoy sends the requests to them (no UH at all)',
    interval: '30s',
    input_series: [
      ...clusterStats(C0, '12x9 0x30', '12x40', '0x9 3000+3000x29'),
      // the not-Ready pods still answer (slowly): requests go upstream, no cx_none_healthy series
      envoy('envoy_cluster_upstream_rq_total', C0, '3000+3000x39'),
      envoy('envoy_cluster_upstream_rq_xx', C0, '3000+3000x39', ', envoy_response_code_class="2"'),
    ],
    alert_rule_test: [
      none('5m', 'EnvoyNoHealthyUpstream'),
      { eval_time: '7m', alertname: 'EnvoyNoHealthyUpstream', exp_alerts: [expected(checkout, 'EnvoyNoHealthyUpstream', { envoy_cluster_name: C0 }, 0)] },
      none('12m', 'Route5xxOverSlo'),
    ],
  },
  {
    name: 'UH: the canary backend cluster has no healthy member while requests arrive; an idle empty cluster stays silent',
    interval: '30s',
    input_series: [
      ...clusterStats(`${C0}/backend/0`, '12x30', '12x30', '0x30'),
      ...clusterStats(`${C0}/backend/1`, '1x9 0x20', '1x9 0x20', '0x30'),
      envoy('envoy_cluster_upstream_cx_none_healthy', `${C0}/backend/1`, deferred(10, 20, 20)),
      // an empty cluster nobody sends requests to: no traffic stats at all
      ...clusterStats('httproute/checkout/checkout-api/rule/1', '0x30', '0x30', '0x30'),
    ],
    alert_rule_test: [
      none('4m30s', 'EnvoyNoHealthyUpstream'),
      none('6m', 'EnvoyNoHealthyUpstream'), // first sample at 5m, rate from 5m30s; for 1m
      { eval_time: '6m30s', alertname: 'EnvoyNoHealthyUpstream', exp_alerts: [expected(checkout, 'EnvoyNoHealthyUpstream', { envoy_cluster_name: `${C0}/backend/1` }, 0)] },
    ],
  },
  {
    name: 'UC: a rare upstream reset under healthy traffic, the first one creating the counter (at 1)',
    interval: '30s',
    input_series: [
      envoy('envoy_cluster_upstream_rq_total', C0, '1000+1000x70'),
      envoy('envoy_cluster_upstream_rq_xx', C0, '998+998x70', ', envoy_response_code_class="2"'),
      envoy('envoy_cluster_upstream_rq_xx', C0, deferred(20, 1, 1) + ' 1x49', ', envoy_response_code_class="5"'),
      envoy('envoy_cluster_upstream_cx_destroy_remote_with_active_rq', C0, deferred(20, 1, 1) + ' 1x49'),
      envoy('envoy_cluster_upstream_cx_idle_timeout', C0, '3+3x70'),
      ...clusterStats(C0, '12x70', '12x70', '0x70'),
    ],
    alert_rule_test: [
      none('9m30s', 'EnvoyUpstreamResetKeepAliveRace'),
      // increase() cannot see the first value of a new series; its creation is the event
      { eval_time: '10m', alertname: 'EnvoyUpstreamResetKeepAliveRace', exp_alerts: [expected(checkout, 'EnvoyUpstreamResetKeepAliveRace', { envoy_cluster_name: C0 }, 1)] },
      { eval_time: '24m', alertname: 'EnvoyUpstreamResetKeepAliveRace', exp_alerts: [expected(checkout, 'EnvoyUpstreamResetKeepAliveRace', { envoy_cluster_name: C0 }, 1)] },
      // one 503 in 50,000 requests: the ratio alert can never see this mechanism
      none('16m', 'Route5xxOverSlo'),
      none('26m', 'EnvoyUpstreamResetKeepAliveRace'),
      none('16m', 'EnvoyUpstreamConnectFailure'),
    ],
  },
  {
    name: 'a pod crash: a few requests reset and connects refused at once, then the pod is gone',
    interval: '30s',
    input_series: [
      envoy('envoy_cluster_upstream_rq_total', C0, '1000+1000x50'),
      envoy('envoy_cluster_upstream_rq_xx', C0, '1000+1000x50', ', envoy_response_code_class="2"'),
      envoy('envoy_cluster_upstream_rq_xx', C0, deferred(10, 7, 1) + ' 7x40', ', envoy_response_code_class="5"'),
      envoy('envoy_cluster_upstream_cx_destroy_remote_with_active_rq', C0, deferred(10, 3, 1) + ' 3x40'),
      envoy('envoy_cluster_upstream_cx_connect_fail', C0, deferred(10, 4, 1) + ' 4x40'),
      ...clusterStats(C0, '12x9 11x41', '12x9 11x41', '0x50'),
    ],
    alert_rule_test: [
      // every reset with a request in flight is a 503 the client saw: UC pages, naming pod shutdown
      { eval_time: '6m', alertname: 'EnvoyUpstreamResetKeepAliveRace', exp_alerts: [expected(checkout, 'EnvoyUpstreamResetKeepAliveRace', { envoy_cluster_name: C0 }, 3)] },
      // a one-off burst of connect failures is not a lasting mechanism; 7 in 10,000 is no SLO breach
      none('8m', 'EnvoyUpstreamConnectFailure'), none('12m', 'EnvoyUpstreamConnectFailure'),
      none('12m', 'Route5xxOverSlo'), none('12m', 'EnvoyNoHealthyUpstream'),
    ],
  },
  {
    name: 'a restart of the proxy: its counters start again (absent until first use, then small): no alert from the reset, the SLO breach keeps firing',
    interval: '30s',
    input_series: [
      // route A (checkout-api, rule 0) at 5 % errors throughout; the proxy restarts at 15m
      envoy('envoy_cluster_upstream_rq_xx', C0, '950+950x29 stale 950+950x19', ', envoy_response_code_class="2"'),
      envoy('envoy_cluster_upstream_rq_xx', C0, '50+50x29 stale 50+50x19', ', envoy_response_code_class="5"'),
      envoy('envoy_cluster_upstream_rq_total', C0, '1000+1000x29 stale 1000+1000x19'),
      // the keep-alive race counter, from a race an hour earlier, is gone after the restart and stays so
      envoy('envoy_cluster_upstream_cx_destroy_remote_with_active_rq', C0, '2x29 stale'),
      // rule 1 at 0.5 % errors with the same restart: below the SLO before and after
      envoy('envoy_cluster_upstream_rq_xx', `httproute/checkout/checkout-api/rule/1`, '995+995x29 stale 995+995x19', ', envoy_response_code_class="2"'),
      envoy('envoy_cluster_upstream_rq_xx', `httproute/checkout/checkout-api/rule/1`, '5+5x29 stale 5+5x19', ', envoy_response_code_class="5"'),
    ],
    alert_rule_test: [
      { eval_time: '14m', alertname: 'Route5xxOverSlo', exp_alerts: [expected(checkout, 'Route5xxOverSlo', {}, 0.0275)] },
      { eval_time: '17m', alertname: 'Route5xxOverSlo', exp_alerts: [expected(checkout, 'Route5xxOverSlo', {}, 0.0275)] },
      { eval_time: '24m', alertname: 'Route5xxOverSlo', exp_alerts: [expected(checkout, 'Route5xxOverSlo', {}, 0.0275)] },
      none('16m', 'EnvoyUpstreamResetKeepAliveRace'), none('24m', 'EnvoyUpstreamResetKeepAliveRace'),
    ],
  },
  {
    name: 'UF, UO, UT: connect failures, overflow and timeouts from 5 min, each counter created at its first event',
    interval: '30s',
    input_series: [
      envoy('envoy_cluster_upstream_cx_connect_fail', C0, deferred(11, 2, 20)),
      envoy('envoy_cluster_upstream_rq_pending_overflow', C0, deferred(11, 7, 20)),
      envoy('envoy_cluster_upstream_rq_timeout', C0, deferred(11, 1, 20)),
    ],
    alert_rule_test: [
      none('5m', 'EnvoyUpstreamConnectFailure'), none('5m', 'EnvoyUpstreamOverflow'), none('5m', 'EnvoyUpstreamTimeout'),
      none('7m30s', 'EnvoyUpstreamConnectFailure'), // created at 5m30s, rate > 0 from 6m, for 2m
      none('7m30s', 'EnvoyUpstreamTimeout'),
      { eval_time: '8m', alertname: 'EnvoyUpstreamConnectFailure', exp_alerts: [expected(checkout, 'EnvoyUpstreamConnectFailure', { envoy_cluster_name: C0 }, 0)] },
      { eval_time: '8m', alertname: 'EnvoyUpstreamOverflow', exp_alerts: [expected(checkout, 'EnvoyUpstreamOverflow', { envoy_cluster_name: C0 }, 0)] },
      { eval_time: '8m', alertname: 'EnvoyUpstreamTimeout', exp_alerts: [expected(checkout, 'EnvoyUpstreamTimeout', { envoy_cluster_name: C0 }, 0)] },
      none('8m', 'EnvoyUpstreamResetKeepAliveRace'),
    ],
  },
];

test('promtool: a cluster without traffic and a route that never failed stay silent; total UH outage, a Service with no endpoints (only the floor alert), panic routing, pod crash, proxy restart, rare UC and UF/UO/UT behave as their alerts say', () => {
  const r = runPromtool([checkout], tests);
  expect(r.output).toContain('SUCCESS');
  expect(r.status).toBe(0);
});
