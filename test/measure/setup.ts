import { PrometheusClient } from '../../src/measure/prometheus';
import { recordedWeek } from './recorded-week';
import { startPrometheus, TestPrometheus } from './prometheus-server';

/**
 * One real Prometheus per test file, holding the recorded week of two services: "healthy"
 * (no CPU limit, no 5xx, no probe failures) and "incident" (a CPU limit, and readiness timeouts on
 * two pods during Tuesday's lunchtime peak, from 12:21 to 12:33 UTC).
 */
export const INCIDENT = { timeoutsFromMinute: 21, timeoutsToMinute: 33 };

export async function recordedPrometheus(): Promise<{ server: TestPrometheus; client: PrometheusClient }> {
  const server = await startPrometheus({
    openMetrics: recordedWeek([
      { namespace: 'healthy', cpuLimit: false },
      { namespace: 'incident', cpuLimit: true, incident: INCIDENT },
    ]),
  });
  return { server, client: new PrometheusClient({ url: server.url }) };
}
