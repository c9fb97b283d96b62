import { bothServices, expected, PromTest, runPromtool, Series } from './support';

/** The proxy's view, replayed on promtool: 5xx over the SLO, UH, the rare keep-alive race (UC), UF/UO/UT. */
const { checkout } = bothServices();
const C0 = 'httproute/checkout/checkout-api/rule/0';
const none = (eval_time: string, alertname: string) => ({ eval_time, alertname, exp_alerts: [] });
const envoy = (metric: string, cluster: string, values: string, extra = ''): Series => ({
  series: `${metric}{envoy_cluster_name="${cluster}", namespace="envoy-gateway-system", pod="envoy-default-eg-7f9c-abcde"${extra}}`, values,
});
/** A counter at 0 for steps 0..flat, then growing by `step` per interval for `grow` more steps. */
const counter = (flat: number, step: number, grow: number) => `0x${flat} ${step}+${step}x${grow - 1}`;

const tests: PromTest[] = [
  {
    name: '5xx over the SLO (5 % from 5 min), another route failing, and zero traffic',
    interval: '30s',
    input_series: [
      envoy('envoy_cluster_upstream_rq_total', C0, '0+100x40'),
      envoy('envoy_cluster_upstream_rq_xx', C0, '0+95x40', ', envoy_response_code_class="2"'),
      envoy('envoy_cluster_upstream_rq_xx', C0, counter(10, 5, 30), ', envoy_response_code_class="5"'),
      // another service's route at 50 % errors must not fire checkout-api's alert
      envoy('envoy_cluster_upstream_rq_total', 'httproute/checkout/other-api/rule/0', '0+100x40'),
      envoy('envoy_cluster_upstream_rq_xx', 'httproute/checkout/other-api/rule/0', '0+50x40', ', envoy_response_code_class="5"'),
    ],
    alert_rule_test: [
      none('5m', 'Route5xxOverSlo'),
      // errors from 5m30s; the 5-min ratio passes 1 % at 6m30s; for 5m
      none('11m', 'Route5xxOverSlo'),
      { eval_time: '11m30s', alertname: 'Route5xxOverSlo', exp_alerts: [expected(checkout, 'Route5xxOverSlo', {}, 0.05)] },
      none('11m', 'EnvoyUpstreamResetKeepAliveRace'),
    ],
  },
  {
    name: 'zero traffic: 0/0 is no alert',
    interval: '30s',
    input_series: [
      envoy('envoy_cluster_upstream_rq_total', C0, '0x40'),
      envoy('envoy_cluster_upstream_rq_xx', C0, '0x40', ', envoy_response_code_class="5"'),
      envoy('envoy_cluster_membership_healthy', C0, '12x40'),
    ],
    alert_rule_test: [none('6m', 'Route5xxOverSlo'), none('12m', 'Route5xxOverSlo'), none('12m', 'EnvoyNoHealthyUpstream')],
  },
  {
    name: 'UH: the canary backend cluster has no healthy member while requests arrive; an idle empty cluster stays silent',
    interval: '30s',
    input_series: [
      envoy('envoy_cluster_membership_healthy', `${C0}/backend/0`, '12x30'),
      envoy('envoy_cluster_upstream_cx_none_healthy', `${C0}/backend/0`, '0x30'),
      envoy('envoy_cluster_membership_healthy', `${C0}/backend/1`, '1x9 0x20'),
      envoy('envoy_cluster_upstream_cx_none_healthy', `${C0}/backend/1`, counter(10, 20, 20)),
      // an empty cluster nobody sends requests to
      envoy('envoy_cluster_membership_healthy', 'httproute/checkout/checkout-api/rule/1', '0x30'),
      envoy('envoy_cluster_upstream_cx_none_healthy', 'httproute/checkout/checkout-api/rule/1', '0x30'),
    ],
    alert_rule_test: [
      none('4m30s', 'EnvoyNoHealthyUpstream'),
      none('6m', 'EnvoyNoHealthyUpstream'), // pending since 5m30s, for 1m
      { eval_time: '6m30s', alertname: 'EnvoyNoHealthyUpstream', exp_alerts: [expected(checkout, 'EnvoyNoHealthyUpstream', { envoy_cluster_name: `${C0}/backend/1` }, 0)] },
    ],
  },
  {
    name: 'UC: two rare upstream resets under otherwise healthy traffic',
    interval: '30s',
    input_series: [
      envoy('envoy_cluster_upstream_rq_total', C0, '0+1000x70'),
      envoy('envoy_cluster_upstream_rq_xx', C0, '0+998x70', ', envoy_response_code_class="2"'),
      envoy('envoy_cluster_upstream_rq_xx', C0, '0x19 1x50', ', envoy_response_code_class="5"'),
      envoy('envoy_cluster_upstream_cx_destroy_remote_with_active_rq', C0, '0x19 1x50'),
      envoy('envoy_cluster_upstream_cx_idle_timeout', C0, '0+3x70'),
      envoy('envoy_cluster_membership_healthy', C0, '12x70'),
    ],
    alert_rule_test: [
      none('9m30s', 'EnvoyUpstreamResetKeepAliveRace'),
      { eval_time: '10m', alertname: 'EnvoyUpstreamResetKeepAliveRace', exp_alerts: [expected(checkout, 'EnvoyUpstreamResetKeepAliveRace', { envoy_cluster_name: C0 }, 1)] },
      { eval_time: '24m', alertname: 'EnvoyUpstreamResetKeepAliveRace', exp_alerts: [expected(checkout, 'EnvoyUpstreamResetKeepAliveRace', { envoy_cluster_name: C0 }, 1)] },
      // one 503 in 50,000 requests: the ratio alert can never see this mechanism
      none('16m', 'Route5xxOverSlo'),
      none('26m', 'EnvoyUpstreamResetKeepAliveRace'),
      none('16m', 'EnvoyUpstreamConnectFailure'),
    ],
  },
  {
    name: 'UF, UO, UT: connect failures, overflow and timeouts from 5 min',
    interval: '30s',
    input_series: [
      envoy('envoy_cluster_upstream_cx_connect_fail', C0, counter(10, 2, 20)),
      envoy('envoy_cluster_upstream_rq_pending_overflow', C0, counter(10, 7, 20)),
      envoy('envoy_cluster_upstream_rq_timeout', C0, counter(10, 1, 20)),
    ],
    alert_rule_test: [
      none('5m', 'EnvoyUpstreamConnectFailure'), none('5m', 'EnvoyUpstreamOverflow'), none('5m', 'EnvoyUpstreamTimeout'),
      none('7m', 'EnvoyUpstreamConnectFailure'), // pending: rate > 0 since 5m30s, for 2m
      none('7m', 'EnvoyUpstreamTimeout'),
      { eval_time: '8m', alertname: 'EnvoyUpstreamConnectFailure', exp_alerts: [expected(checkout, 'EnvoyUpstreamConnectFailure', { envoy_cluster_name: C0 }, 0)] },
      { eval_time: '8m', alertname: 'EnvoyUpstreamOverflow', exp_alerts: [expected(checkout, 'EnvoyUpstreamOverflow', { envoy_cluster_name: C0 }, 0)] },
      { eval_time: '8m', alertname: 'EnvoyUpstreamTimeout', exp_alerts: [expected(checkout, 'EnvoyUpstreamTimeout', { envoy_cluster_name: C0 }, 0)] },
      none('8m', 'EnvoyUpstreamResetKeepAliveRace'),
    ],
  },
];

test('promtool: 5xx over SLO, UH, rare UC, UF/UO/UT fire with their labels; zero traffic and other routes stay silent', () => {
  const r = runPromtool([checkout], tests);
  expect(r.output).toContain('SUCCESS');
  expect(r.status).toBe(0);
});
