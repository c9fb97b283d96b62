import { Decision } from './decision';
import { promDuration, FLAP_CHANGES, OSCILLATION_CROSSINGS } from './alert-rule';
import { SOURCES } from './alert-sources';
import type { AlertRule } from './alert-rule';
import { AlertValues, ruleList } from './alert-values';

/**
 * The readiness cascade, seen from ready endpoints: below the capacity floor for longer than a
 * rollout step takes (ReadyEndpointsBelowFloor), collapsing and recovering in a saw-tooth
 * (ReadyEndpointsOscillating), and single pods leaving and rejoining Ready (ReadinessFlapping).
 */
export function readinessAlerts(v: AlertValues): Decision<AlertRule>[] {
  const { d, name, ns, leave, ret, floorD, sustainedD, oscWindowD, flapWindowD } = v;
  const { rsRegex, ownPods, ready, desired, desiredSource, endpointsExported, below } = v;
  const [scrape, rateWindow, floor] = [v.scrapeD.value, v.rateWindowD.value, floorD.value];
  const [sustained, oscWindow, flapWindow] = [sustainedD.value, oscWindowD.value, flapWindowD.value];
  const [rules, add] = ruleList(v);
  add(
    {
      alert: 'ReadyEndpointsBelowFloor',
      mechanism: 'readiness-floor',
      severity: 'critical',
      expr: below,
      for: promDuration(sustained),
      summary:
        `${name}: ready endpoints below the capacity floor (readiness removed pods; restarts and error logs ` +
        'stay flat)',
      description:
        `Service ${ns}/${name} has {{ $value }} ready endpoints, fewer than ${floor} of every ${d.replicas} ` +
        `desired replicas, for over ${promDuration(sustained)}. Survivors run past the utilisation ceiling; this is ` +
        'the start of the readiness cascade (docs/mechanisms.md#readiness-control-loop, #fixes-and-verification).',
      meaning:
        `Fewer pods are in the Service's endpoints than the capacity figures need (${floor} of ${d.replicas}, ` +
        'scaled to the desired count), for longer than any single rollout step or scale-up takes. Readiness removed ' +
        'them: nothing restarts, no exit code, no error log, so this is the only early signal of the readiness cascade ' +
        '(docs/mechanisms.md#readiness-control-loop, #fixes-and-verification).',
      checkFirst: [
        `Probe failure events: \`kubectl -n ${ns} get events --field-selector reason=Unhealthy\` and read the text: ` +
          'statuscode 503 vs context deadline exceeded (see "A timeout is not a status code").',
        `CPU of the remaining pods (throttling if a CPU limit is set) and the health path's latency at this load.`,
        'Scale out first (raise replicas in Git) to leave the oscillating region; then find the cause ' +
          '(docs/mechanisms.md#fixes-and-verification).',
      ],
    },
    `Ready endpoints of Service ${name} (${SOURCES.endpointSlice}) against desired replicas (${desiredSource}): ` +
      `fires when ready < desired x ${floor} / ${d.replicas}. Floor: ${floorD.reason} ` +
      `for ${promDuration(sustained)}: ${sustainedD.reason} Zero ready endpoints leave no ` +
      'kube_endpointslice_endpoints{ready="true"} series, so the count falls back to 0 (or on() vector(0)) instead ' +
      `of going silent; the fallback applies only while kube_endpointslice_info shows the Service's EndpointSlices ` +
      'are exported (ReadyEndpointsMetricMissing says when they are not).',
    { floor, replicas: d.replicas, forSeconds: sustained },
  );

  add(
    {
      alert: 'ReadyEndpointsOscillating',
      mechanism: 'readiness-sawtooth',
      severity: 'critical',
      expr:
        `(changes((${ready} < bool ${desired} * ${floor} ` +
        `/ ${d.replicas})[${promDuration(oscWindow)}:${promDuration(scrape)}]) >= ${OSCILLATION_CROSSINGS}) and on() ` +
        `(resets(${ready}[${promDuration(oscWindow)}:${promDuration(scrape)}]) >= 2) and on() (${endpointsExported})`,
      for: '0s',
      summary: `${name}: ready endpoints collapse and recover in a saw-tooth (readiness cascade)`,
      description:
        `Service ${ns}/${name}'s ready endpoint count crossed the floor (${floor} of ${d.replicas} desired) ` +
        `{{ $value }} times in ${promDuration(oscWindow)}: pods leave together, return together and collapse again ` +
        '(docs/mechanisms.md#readiness-control-loop). A sustained-shortfall alert never fires on this shape because ' +
        'every recovery resets its timer.',
      meaning:
        'The ready count drops below the floor and recovers, repeatedly: all ready, none ready, all ready. Once ' +
        'every pod is out, traffic is zero, every probe passes, the fleet re-enters at full load, cold, and collapses ' +
        'again (docs/mechanisms.md#readiness-control-loop). Users see waves of 503 (UH while no endpoint is ready).',
      checkFirst: [
        'Scale out immediately (replicas in Git, then sync): fewer pods per request is the only thing that leaves the ' +
          'oscillation.',
        `The readiness probe's failure text in events (deadline exceeded = the handler is starved: CPU limit, load).`,
        'Whether the readiness handler calls a dependency (it must not, ' +
          'docs/mechanisms.md#readiness-calls-a-dependency).',
      ],
    },
    `Counts crossings of the floor by the ready count (${SOURCES.endpointSlice}; desired from ${desiredSource}) in ` +
      `a ${promDuration(oscWindow)} subquery at the ${scrape} s scrape step; ${OSCILLATION_CROSSINGS} crossings = ` +
      'down, up, down; and the ready count itself fell at least twice (resets() counts decreases), so an autoscaler ' +
      'raising desired replicas twice, which moves the floor but never lowers the ready count, does not fire. ' +
      `Window: ${oscWindowD.reason} No for: the window already requires the pattern to repeat. A saw-tooth faster ` +
      `than two scrapes (${2 * scrape} s) aliases and may be missed; the golden path's leave/return windows ` +
      `(${leave} s / ${ret} s) keep cycles slower than that.`,
    { floor, windowSeconds: oscWindow, crossings: OSCILLATION_CROSSINGS },
  );

  add(
    {
      alert: 'ReadinessFlapping',
      mechanism: 'readiness-flapping',
      severity: 'warning',
      expr:
        'count((max by (pod) ' +
        `(${ownPods(
          `changes(kube_pod_status_ready{namespace="${ns}", condition="true"}[${promDuration(flapWindow)}])`,
          promDuration(flapWindow),
        )}) ` +
        `>= ${FLAP_CHANGES}) unless on(pod) (max by (pod) ` +
        `(increase(kube_pod_container_status_restarts_total{namespace="${ns}"}[${promDuration(flapWindow)}])) > 0) ` +
        'unless on(pod) (max by (pod) ' +
        `(increase(kube_pod_init_container_status_restarts_total{namespace="${ns}"}[${promDuration(flapWindow)}])) > ` +
        '0)) > 0',
      for: promDuration(rateWindow),
      summary: `${name}: pods flapping Ready without restarting (readiness leaves and returns)`,
      description:
        `{{ $value }} pod(s) of ${ns}/${name} changed Ready at least ${FLAP_CHANGES} times ` +
        `in ${promDuration(flapWindow)} without a container restart: the readiness probe fails intermittently ` +
        `(deadline below the handler's p99 under load, or a dependency in the handler), and the gateway serves a ` +
        'steady trickle of 503s in waves (docs/mechanisms.md#readiness-calls-a-dependency).',
      meaning:
        'A few pods keep leaving and re-entering the Service: with 10 pods, 2-3 out at any moment. Nothing ' +
        `restarts, so restart-based alerts are silent. Typical causes: the probe deadline is below the handler's p99 ` +
        'under load, or the handler calls a dependency (docs/mechanisms.md#readiness-calls-a-dependency).',
      checkFirst: [
        `The failure text of the flapping pods' probe events (\`kubectl -n ${ns} get events --field-selector ` +
          `reason=Unhealthy\`).`,
        "The health path's p99 under current load against the probe's timeoutSeconds (values below).",
        'Whether the readiness handler calls a database or another service (it must not).',
      ],
    },
    `Per pod of the service (owned by a ReplicaSet ${rsRegex}, which Deployment and Rollout pods ` +
      `share: ${SOURCES.podOwner}; kube_pod_status_ready carries no pod labels without --metric-labels-allowlist): ` +
      `changes of ${SOURCES.podReady} over ${promDuration(flapWindow)} >= ${FLAP_CHANGES}, minus pods ` +
      `whose ${SOURCES.restarts} or ${SOURCES.initRestarts} increased (restart loops are a different failure, ` +
      'docs/mechanisms.md#liveness-vs-readiness; a native sidecar is an init container, so its restarts are counted ' +
      `there). Window: ${flapWindowD.reason} for ${promDuration(rateWindow)} (4 scrapes) so one evaluation on a ` +
      'half-scraped window does not fire.',
    { windowSeconds: flapWindow, changes: FLAP_CHANGES },
  );

  // Every response Envoy gives, from a pod or its own (UH), counts in exactly one class counter;
  // upstream_rq_total counts only requests sent upstream, so a total outage of local 503s would
  return rules;
}
