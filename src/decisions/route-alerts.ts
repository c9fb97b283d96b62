import { Decision } from './decision';
import { promDuration } from './alert-rule';
import { SOURCES } from './alert-sources';
import type { AlertRule } from './alert-rule';
import { AlertValues, ruleList } from './alert-values';

/** Envoy counters, one alert per response flag (docs/mechanisms.md#response-flags). */
const ENVOY_FLAGS = [
  {
    flag: 'UF',
    alert: 'EnvoyUpstreamConnectFailure',
    metric: 'envoy_cluster_upstream_cx_connect_fail',
    what: 'could not connect to a pod (connect failure)',
    meaning:
      'Envoy could not open a TCP connection to an endpoint it believed healthy: nothing listens on the port, ' +
      "a NetworkPolicy drops the gateway's traffic, or a pod was removed from the proxy's view later than it " +
      'stopped listening.',
    checkFirst: [
      "A NetworkPolicy change in the namespace (does it still admit the gateway's namespace?).",
      'The Service\'s targetPort against the container port name "http".',
      'Whether pods stop listening before the preStop delay ended (shutdown order, ' +
        'docs/mechanisms.md#readiness-control-loop delay).',
    ],
  },
  {
    flag: 'UO',
    alert: 'EnvoyUpstreamOverflow',
    metric: 'envoy_cluster_upstream_rq_pending_overflow',
    what: 'circuit breaker overflow',
    meaning:
      "Envoy refused requests because the cluster's circuit breaker (max pending requests / connections, " +
      '1024 each by default) was full: the pods answer more slowly than requests arrive.',
    checkFirst: [
      'Latency of the pods (a slow dependency fills the pending queue).',
      'Whether ready endpoints dropped (fewer pods hold the same load).',
      'The BackendTrafficPolicy circuitBreaker limits for this route.',
    ],
  },
  {
    flag: 'UT',
    alert: 'EnvoyUpstreamTimeout',
    metric: 'envoy_cluster_upstream_rq_timeout',
    what: 'upstream request timeout',
    meaning:
      "Requests exceeded the route's request timeout and Envoy answered 504 with flag UT: the application " +
      '(or what it calls) is too slow.',
    checkFirst: [
      "The application's latency percentiles and its database / downstream latency.",
      'CPU throttling of the pods if a CPU limit is set.',
      "Whether the route's timeout (HTTPRoute timeouts.request) changed recently.",
    ],
  },
] as const;

/** Mechanisms of the alerts on the HTTPRoute's Envoy clusters (emitted only when there is a route). */

/**
 * The route's Envoy alerts (only for a route that exists; without one their series never do):
 * the 5xx SLO, no healthy upstream (UH or panic routing), the keep-alive race (UC), and one alert
 * per other response flag (UF, UO, UT).
 */
export function routeAlerts(v: AlertValues): Decision<AlertRule>[] {
  const { name, ns, hasRoute, slo, route, routeSel } = v;
  const [scrape, rateWindow] = [v.scrapeD.value, v.rateWindowD.value];
  const [rules, add] = ruleList(v);
  const total = `sum(rate(envoy_cluster_upstream_rq_xx{${routeSel}}[5m]))`;
  if (hasRoute) {
    add(
      {
        alert: 'Route5xxOverSlo',
        mechanism: '5xx-slo',
        severity: 'critical',
        expr:
          `(sum(rate(envoy_cluster_upstream_rq_xx{${routeSel}, envoy_response_code_class="5"}[5m])) / ${total} ` +
          `> ${slo.value}) and on() (${total} > 0)`,
        for: '5m',
        summary:
          `${name}: route 5xx ratio above the ${slo.value * 100} % SLO (read the response flags to find the ` +
          'mechanism)',
        description:
          `HTTPRoute ${ns}/${name} answered {{ $value | humanizePercentage }} 5xx over 5 minutes ` +
          `(SLO ${slo.value * 100} %). The status code alone does not say why: the response flags in the gateway's ` +
          'access log do (docs/mechanisms.md#response-flags).',
        meaning:
          `More than ${slo.value * 100} % of the route's responses were 5xx for 5 minutes, counted over every ` +
          'response class, so 503s Envoy answers itself (UH, charged to class 5 but never to upstream_rq_total) count ' +
          'in the numerator and the denominator alike and a total outage reads 100 %, not "no data". The ratio blends ' +
          'every cluster of the route. A Service with no endpoints at all is not in it: Envoy Gateway answers that ' +
          `backend's share with a direct 503 (no response flag) or sends it to a cluster that does not exist (503 NC), ` +
          'and neither is counted on any cluster, so in that outage this alert stays silent and ' +
          'ReadyEndpointsBelowFloor pages (docs/mechanisms.md#counters-created-at-first-use, #panic-routing).',
        checkFirst: [
          'The response flags of the 503s in Loki (query below): "-" = the pod answered 5xx (with ' +
            'response_code_details "direct_response" the gateway answered itself: the Service has no endpoints), UC = ' +
            'keep-alive race, UF = connect failure, UO = overflow, UT = timeout, NC = a backend with no endpoints.',
          'Whether a canary is in progress (a canary failing at 20 % shows as 1 % at 5 % weight).',
          'The application\'s own error logs when the flag is "-".',
        ],
      },
      'Ratio of envoy_cluster_upstream_rq_xx{envoy_response_code_class="5"} to all envoy_cluster_upstream_rq_xx ' +
        `classes (Envoy cluster stats on Envoy Gateway's /stats/prometheus, port 19001; each class counter is ` +
        `created at its first response, source/common/http/codes.cc) over the route's clusters ` +
        `(envoy_cluster_name=~"${route}", Envoy Gateway's names for HTTPRoute ${name}'s rule clusters, including ` +
        `per-backend clusters) over 5 minutes, above the SLO: ${slo.reason} The denominator is every class, not ` +
        'upstream_rq_total: a 503 Envoy answers itself for lack of a healthy host is charged to class 5 without an ' +
        'upstream request (source/common/router/router.cc sendNoHealthyUpstreamResponse), so over upstream_rq_total ' +
        'a total outage would divide by 0 and vanish. A route that never failed has no class-5 series, so no sample: ' +
        'silent; 0/0 with no traffic is NaN, and the "and ... > 0" guard says so explicitly. for 5m: a single burst ' +
        '(one pod restarting) does not page; an SLO breach lasting 5 minutes does.',
      { sloErrorRatio: slo.value },
    );

    // Envoy's router answers a cluster with no healthy host itself and still charges the 503 to the
    // cluster (source/common/router/router.cc, Filter::sendNoHealthyUpstreamResponse ->
    // chargeUpstreamCode). With Envoy Gateway's 50 % panic threshold (internal/xds/translator/cluster.go,
    // v1.9.0) a cluster whose pods are all not Ready is in panic and sends every request to those pods
    // instead (docs/mechanisms.md#panic-routing), so the alert fires on either: UH (cx_none_healthy)
    // or panic picks (lb_healthy_panic).
    //
    // A Service with no endpoints at all is not routed to its cluster, and no route alert can see it.
    // Envoy Gateway v1.9.0 gives the rule a direct 503 when no backendRef of it has an endpoint
    // (internal/gatewayapi/route.go: processBackendRef's "no ready endpoints" error at line 3122 and the
    // failedNoReadyEndpoints case at lines 404-420), or, when another backendRef is valid, sends the
    // empty one's share to the cluster "invalid-backend-cluster", which does not exist, with
    // clusterNotFoundResponseCode 503 (internal/xds/translator/route.go buildXdsWeightedRouteAction,
    // lines 350-398). Envoy answers the first in Filter::decodeHeaders' direct-response branch (no
    // response flag, response_code_details "direct_response", counter http.<prefix>.rq_direct_response)
    // and the second in its unknown-cluster branch (flag NC, NoClusterFound; details
    // "cluster_not_found"; counter http.<prefix>.no_cluster); both return before a cluster is chosen,
    // so neither calls chargeUpstreamCode and no cluster counts them (router.cc decodeHeaders; flag
    // strings in source/common/stream_info/utility.h; both read on Envoy's main branch, commit
    // 001b1c0c in the index, as no release tag was available there; Envoy Gateway v1.9.0 runs Envoy
    // v1.39.0, api/v1alpha1/shared_types.go). The per-route stats a routeStatName turns on are charged
    // in chargeUpstreamCode as well. The counters that do move are the HTTP connection manager's, one
    // set per listener (stat prefix http-<port>, internal/xds/translator/listener.go hcmStatPrefix,
    // v1.9.0) shared by every route on it, and they count deliberate direct responses too: no sound
    // per-service signal. ReadyEndpointsBelowFloor is the alert for this case (ready endpoints 0
    // against desired replicas, from kube-state-metrics).
    add(
      {
        alert: 'EnvoyNoHealthyUpstream',
        mechanism: 'UH',
        severity: 'critical',
        expr:
          `(max by (envoy_cluster_name) (envoy_cluster_membership_healthy{${routeSel}}) == 0) and ` +
          'on(envoy_cluster_name) ((sum by (envoy_cluster_name) ' +
          `(rate(envoy_cluster_upstream_cx_none_healthy{${routeSel}}[${promDuration(rateWindow)}])) > 0) or (sum by ` +
          `(envoy_cluster_name) (rate(envoy_cluster_lb_healthy_panic{${routeSel}}[${promDuration(rateWindow)}])) > 0))`,
        for: promDuration(2 * scrape),
        summary:
          `${name}: no Ready endpoint behind {{ $labels.envoy_cluster_name }} while requests arrive (Envoy UH, ` +
          'or panic routing to not-Ready pods)',
        description:
          `Envoy cluster {{ $labels.envoy_cluster_name }} of route ${ns}/${name} has no healthy endpoint ` +
          'while requests arrive. With endpoints that are all not Ready, Envoy is in panic mode (Envoy Gateway keeps ' +
          'the 50 % threshold) and sends every request to those pods; a cluster that is routed to with no endpoint at ' +
          'all answers 503 with flag UH. A Service with no endpoints is not routed to its cluster at all (a direct ' +
          '503, or 503 NC), which no Envoy alert sees: ReadyEndpointsBelowFloor does ' +
          '(docs/mechanisms.md#panic-routing, #response-flags).',
        meaning:
          'No endpoint Envoy has for this route (or for one backend of it, e.g. the canary) is Ready while ' +
          'requests arrive. If the cluster still lists the not-Ready pods, Envoy is in panic mode and routes every ' +
          'request to them, answered slowly or with 5xx by pods readiness took out; if a cluster that is still routed ' +
          'to lists none, Envoy answers 503 UH itself. This is the bottom of the readiness cascade, or a canary whose ' +
          'pods never became ready. Once the Service has no endpoint at all, Envoy Gateway stops routing to the ' +
          'cluster: users get a direct 503 (response flag "-", response_code_details direct_response) or a 503 NC, no ' +
          'cluster counts them, and this alert and Route5xxOverSlo go quiet while the outage goes on; ' +
          'ReadyEndpointsBelowFloor is the alert for that (docs/mechanisms.md#readiness-control-loop, #panic-routing, ' +
          '#response-flags).',
        checkFirst: [
          `Ready endpoints: \`kubectl -n ${ns} get endpointslices -l kubernetes.io/service-name=${name}\` ` +
            `(and ${name}-canary).`,
          'Which cluster: a name ending in /backend/<i> is one backendRef (the canary when it is the second one).',
          'Probe failure events, as for ReadyEndpointsBelowFloor.',
        ],
      },
      `${SOURCES.membership}, per cluster of the route: the healthy-member gauge is 0 on every Envoy replica (max) ` +
        'while requests arrive, seen as UH (the no-healthy-host counter grows) or as panic routing (the panic ' +
        'counter grows: Envoy excludes not-Ready endpoints, which Envoy Gateway sends as DRAINING, from the healthy ' +
        'share and enters panic when none is left, then picks among all of them, upstream_impl.cc ' +
        'excludeBasedOnHealthFlag, load_balancer_impl.cc isHostSetInPanic; docs/mechanisms.md#panic-routing). An ' +
        'idle empty cluster does not fire. A Service with no endpoints at all is not seen here: Envoy Gateway ' +
        '(v1.9.0, internal/gatewayapi/route.go, internal/xds/translator/route.go) answers its share with a direct ' +
        '503 or routes it to a cluster that does not exist (503 NC), and Envoy charges neither to any cluster ' +
        '(router.cc decodeHeaders); ReadyEndpointsBelowFloor is the alert for it (docs/mechanisms.md#panic-routing). ' +
        `for ${promDuration(2 * scrape)} (two scrapes): one stale gauge sample during an xDS update does not page.`,
      { forSeconds: 2 * scrape },
    );

    add(
      {
        alert: 'EnvoyUpstreamResetKeepAliveRace',
        mechanism: 'UC',
        severity: 'warning',
        expr:
          '(sum by (envoy_cluster_name) ' +
          `(increase(envoy_cluster_upstream_cx_destroy_remote_with_active_rq{${routeSel}}[15m])) > 0) or (max by ` +
          `(envoy_cluster_name) (envoy_cluster_upstream_cx_destroy_remote_with_active_rq{${routeSel}} unless ` +
          `envoy_cluster_upstream_cx_destroy_remote_with_active_rq{${routeSel}} offset 15m) > 0)`,
        for: '0s',
        summary: `${name}: upstream closed a connection with a request on it (Envoy UC, the keep-alive race)`,
        description:
          'Envoy cluster {{ $labels.envoy_cluster_name }} saw connections closed by the pod with a request ' +
          `in flight in the last 15 minutes: each is a 503 UC the client sees. The proxy's idle timeout must be ` +
          `shorter than the application's keep-alive (docs/mechanisms.md#keep-alive-race).`,
        meaning:
          'A pod closed a pooled connection exactly as Envoy wrote a request onto it: no byte of response, 503 ' +
          'UC (upstream_reset_before_response_started). Rare under steady load, clustered when pools are redistributed ' +
          '(scale-out, rollout). Ratios never show it; any occurrence means the two idle timeouts are in the wrong ' +
          'order or a pod closes connections before it left the endpoints (docs/mechanisms.md#keep-alive-race).',
        checkFirst: [
          `The BackendTrafficPolicy attached to HTTPRoute ${name}: connectionIdleTimeout must be below the app's ` +
            'keep-alive (uvicorn 5 s, Node <= 25 5 s, ...).',
          'Whether envoy_cluster_upstream_cx_idle_timeout grows (the proxy closing first: it should, after the fix).',
          'Pod terminations at the same moments (preStop delay shorter than endpoint propagation).',
          'Do not add retry-on-reset to hide it: unsafe for non-idempotent requests ' +
            '(docs/mechanisms.md#keep-alive-race).',
        ],
      },
      'envoy_cluster_upstream_cx_destroy_remote_with_active_rq (Envoy cluster stat via Envoy Gateway; the keep-alive ' +
        'race signature in the reference) over 15 minutes per cluster of the route, above 0. The counter is one of ' +
        `the cluster's traffic stats, which Envoy Gateway's deferred stats create as one block at the cluster's ` +
        'first traffic (Envoy envoy/upstream/upstream.h ALL_CLUSTER_TRAFFIC_STATS, ' +
        'source/common/stats/deferred_creation.h), so on a route with traffic it exists at 0 before the first race ' +
        `and increase() sees the race. Only a race within the first scrape of a cluster's traffic (a canary cluster ` +
        `at its first weight, a restarted proxy) makes the series' first sample already 1, which increase() cannot ` +
        'see (it needs a sample before), so a series that exists now with a value above 0 and did not exist 15 ' +
        'minutes ago counts too (docs/mechanisms.md#counters-created-at-first-use). The race is rare (a few per hour ' +
        `under steady load), so a ratio or a short rate window would never see it; with the proxy's idle timeout ` +
        `below the app's and a preStop delay, the counter stays flat, so any increase is a misconfiguration. No for: ` +
        'each event is already a user-visible 503.',
      { windowSeconds: 900 },
    );

    for (const f of ENVOY_FLAGS) {
      add(
        {
          alert: f.alert,
          mechanism: f.flag,
          severity: 'warning',
          expr: `sum by (envoy_cluster_name) (rate(${f.metric}{${routeSel}}[${promDuration(rateWindow)}])) > 0`,
          for: promDuration(rateWindow),
          summary: `${name}: ${f.what} (Envoy ${f.flag}) on {{ $labels.envoy_cluster_name }}`,
          description:
            `Envoy cluster {{ $labels.envoy_cluster_name }} of route ${ns}/${name} counts ${f.metric} for ` +
            `over ${promDuration(rateWindow)}: 5xx with response flag ${f.flag} (docs/mechanisms.md#response-flags).`,
          meaning: f.meaning,
          checkFirst: [...f.checkFirst],
        },
        `${f.metric} (Envoy cluster stat via Envoy Gateway) per cluster of the route, rate ` +
          `over ${promDuration(rateWindow)} (4 scrapes) above 0, for another ${promDuration(rateWindow)}: one ` +
          'mechanism per alert so the responder starts at the right place (docs/mechanisms.md#response-flags); a ' +
          `transient event (one pod going away) does not last two windows. The counter is one of the cluster's ` +
          `traffic stats, which Envoy Gateway's deferred stats create together at the cluster's first traffic, all ` +
          'at 0 but the one counted (docs/mechanisms.md#counters-created-at-first-use): on a route with traffic the ' +
          'series is there at 0 and the rate sees the first event; a cluster that never had traffic has no series ' +
          `and no alert; a failure that is a new cluster's very first traffic (UF at its first connect) starts the ` +
          'series already counting, and the rate sees the events from its second scrape, which a sustained failure ' +
          'has.',
        { windowSeconds: rateWindow },
      );
    }
  }
  return rules;
}
