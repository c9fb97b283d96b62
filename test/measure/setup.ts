import { PrometheusClient } from '../../src/measure/prometheus';
import { recordedWeek } from './recorded-week';
import { startPrometheus, TestPrometheus } from './prometheus-server';

/**
 * One real Prometheus per test file, holding the recorded week of two services: "healthy"
 * (no CPU limit, no 5xx, no probe failures at peak; one pod's listener stopped on Thursday at 10:00
 * for 5 minutes, a verification experiment; a pod replaced with a surge on Wednesday at 12:29) and "incident" (a CPU limit, and readiness timeouts on
 * two pods during Tuesday's lunchtime peak, from 12:21 to 12:33 UTC).
 */
export const INCIDENT = { timeoutsFromMinute: 21, timeoutsToMinute: 33 };
/** In "healthy", Thursday 10:00 UTC: pod d's listener is stopped for 5 minutes (it must leave). */
export const LISTENER_STOP = { podIndex: 3, at: Date.UTC(2026, 10, 26, 10) / 1000 };
export const STOPPED_POD = 'checkout-api-6f7c9d8b5-d1x3q';

export async function recordedPrometheus(): Promise<{ server: TestPrometheus; client: PrometheusClient }> {
  const server = await startPrometheus({
    openMetrics: recordedWeek([
      { namespace: 'healthy', cpuLimit: false, listenerStop: LISTENER_STOP, appHistogram: true, replacement: true },
      { namespace: 'incident', cpuLimit: true, incident: INCIDENT },
    ]),
  });
  return { server, client: new PrometheusClient({ url: server.url }) };
}
