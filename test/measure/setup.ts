import { PrometheusClient } from '../../src/measure/prometheus';
import { recordedPod, recordedWeek } from './recorded-week';
import { startPrometheus, TestPrometheus } from './prometheus-server';

/**
 * One real Prometheus per test file, holding the recorded week of three services: "healthy"
 * (no CPU limit, no 5xx, no probe failures at peak; one pod's listener stopped on Thursday at 10:00
 * for 5 minutes, a verification experiment; a pod replaced with a surge on Wednesday at 12:29) and "incident" (a CPU limit, and readiness timeouts on
 * two pods during Tuesday's lunchtime peak, from 12:21 to 12:33 UTC), and the same incident for a
 * service with a 56-character name in "long", and "renamed" (Tuesday, no incident) whose Argo
 * Rollouts controller is scraped without honorLabels. Only "healthy" has kube-state-metrics' Endpoints
 * metrics; all have its default EndpointSlice metrics.
 */
export const INCIDENT = { timeoutsFromMinute: 21, timeoutsToMinute: 33 };
/** In "healthy", Thursday 10:00 UTC: pod d's listener is stopped for 5 minutes (it must leave). */
export const LISTENER_STOP = { podIndex: 3, at: Date.UTC(2026, 10, 26, 10) / 1000 };
export const STOPPED_POD = recordedPod('checkout-api', 1, 3);
/** A 56-character service (the longest rollwise accepts with a canary): its pods keep one character of their hash. */
export const LONG = 'customer-notification-preferences-synchronization-api-v2';

export async function recordedPrometheus(): Promise<{ server: TestPrometheus; client: PrometheusClient }> {
  const server = await startPrometheus({
    openMetrics: (file) =>
      recordedWeek(
        [
          // healthy: kube-state-metrics also collects Endpoints here (a --resources list with "endpoints")
          {
            namespace: 'healthy',
            cpuLimit: false,
            listenerStop: LISTENER_STOP,
            appHistogram: true,
            replacement: true,
            endpointsCollector: true,
          },
          { namespace: 'incident', cpuLimit: true, incident: INCIDENT },
          // Monday and Tuesday only: enough for Tuesday's peak, and a week of a third service would
          // make the backfill slower than the tests need
          {
            namespace: 'long',
            name: LONG,
            cpuLimit: false,
            incident: INCIDENT,
            recorded: { from: Date.UTC(2026, 10, 23) / 1000, to: Date.UTC(2026, 10, 25) / 1000 },
          },
          // Tuesday only, with the Argo Rollouts controller scraped without honorLabels (the
          // argo-rollouts Helm chart's ServiceMonitor): its desired replicas are stored as
          // exported_namespace="renamed" under namespace="argo-rollouts"
          {
            namespace: 'renamed',
            cpuLimit: false,
            controllerWithoutHonorLabels: true,
            recorded: { from: Date.UTC(2026, 10, 24) / 1000, to: Date.UTC(2026, 10, 25) / 1000 },
          },
        ],
        file,
      ),
  });
  return { server, client: new PrometheusClient({ url: server.url }) };
}
