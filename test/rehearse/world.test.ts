/**
 * The series the rehearsal's world exposes, shaped as the real exporters shape them: Envoy
 * Gateway's canary cluster only while its weight is above 0, response-class counters created at
 * first use, kube-state-metrics readiness per condition with new pods not Ready while starting.
 */
import * as fs from 'fs';
import * as path from 'path';
import { buildWorld, firstReady, readRollouts, releaseById, type Series } from '../../src/rehearse';

const model = readRollouts([
  {
    file: 'x',
    text: fs.readFileSync(path.join(__dirname, '..', '..', 'dist', 'prod', 'checkout-api.k8s.yaml'), 'utf8'),
  },
])[0];
const canary = (s: Series) => s.labels.envoy_cluster_name === model.canaryCluster;

describe('the world of a healthy release', () => {
  const w = buildWorld(model, releaseById('healthy'));

  test('reads the Rollout: 12 replicas, steps, the per-backend canary cluster, readiness timing', () => {
    expect(model.replicas).toBe(12);
    expect(model.canaryCluster).toBe('httproute/checkout/checkout-api/rule/0/backend/1');
    expect(model.stableCluster).toBe('httproute/checkout/checkout-api/rule/0/backend/0');
    expect(model.steps.map((s) => s.kind)).toEqual(['setWeight', 'pause', 'setWeight', 'pause', 'analysis']);
    expect(model.readiness).toMatchObject({ periodSeconds: 10, successThreshold: 3 });
    expect(model.background?.metrics.every((m) => !m.query.includes('{{'))).toBe(true);
  });

  test('the canary is not Ready until readiness passed successThreshold times, and weight 5 % waits for minReadySeconds', () => {
    const ready = firstReady(model, 0, 8);
    // start-up probe passes at 10 s (period 5), readiness then succeeds at 10, 20, 30 s.
    expect(ready).toBe(30);
    expect(w.canaryReady[ready - 1]).toBe(0);
    expect(w.canaryReady[ready]).toBe(1);
    const firstWeight = w.weight.findIndex((x) => x > 0);
    expect(firstWeight).toBe(ready + model.minReadySeconds);
    expect(w.weight[firstWeight]).toBe(5);
  });

  test('no canary cluster series before the first weight; never a class "5" series; rq_total from the start', () => {
    const firstWeight = w.weight.findIndex((x) => x > 0);
    const series = w.series.filter(canary);
    expect(series.length).toBeGreaterThan(0);
    for (const s of series) expect(s.samples[0][0]).toBeGreaterThanOrEqual(firstWeight);
    expect(w.series.some((s) => s.labels.envoy_response_code_class === '5')).toBe(false);
    const total = series.find((s) => s.name === 'envoy_cluster_upstream_rq_total');
    expect(total?.samples.length).toBeGreaterThan(10);
  });

  test('every scale-up has pods with condition="false" while they start; the rollout is promoted', () => {
    const notReady = w.series.filter(
      (s) =>
        s.name === 'kube_pod_status_ready' && s.labels.condition === 'false' && s.labels.pod.includes(model.canaryHash),
    );
    expect(notReady.length).toBe(12);
    for (const s of notReady) expect(s.samples[0][1]).toBe(1);
    expect(w.promotedAt).toBeGreaterThan(20 * 60);
    expect(w.events.map((e) => e.text)).toEqual(
      expect.arrayContaining(['canary scaled to 1 pod(s)', 'canary scaled to 3 pod(s)', 'canary scaled to 12 pod(s)']),
    );
  });
});

describe('other releases', () => {
  test('0.5 % errors: the class "5" series appears only at the first 5xx', () => {
    const w = buildWorld(model, releaseById('canary-5xx-0.5'));
    const five = w.series.filter((s) => canary(s) && s.labels.envoy_response_code_class === '5');
    const total = w.series.find((s) => canary(s) && s.name === 'envoy_cluster_upstream_rq_total');
    expect(five.length).toBe(2); // one per proxy
    expect(total?.samples[0][1]).toBeGreaterThan(0);
    expect(five[0].samples.length).toBeLessThanOrEqual(total?.samples.length ?? 0);
  });

  test('a flapping canary: while its only pod is out, the weight drops to 0 and the canary cluster disappears', () => {
    const w = buildWorld(model, releaseById('canary-flaps'));
    const first = w.weight.findIndex((x) => x > 0);
    const drop = w.weight.findIndex((x, t) => t > first && x === 0);
    expect(drop).toBeGreaterThan(first);
    const total = w.series.filter((s) => canary(s) && s.name === 'envoy_cluster_upstream_rq_total');
    // The counter restarts from 0 when the cluster comes back: a reset for rate().
    const values = total[0].samples.map(([, v]) => v);
    expect(values.some((v, i) => i > 0 && v < values[i - 1])).toBe(true);
  });

  test('no traffic: no Envoy counters move; the slow start still promotes later than the healthy one', () => {
    const none = buildWorld(model, releaseById('no-traffic'));
    // (the membership gauges count hosts, not traffic)
    expect(
      none.series.filter(
        (s) =>
          s.name.startsWith('envoy_') &&
          !s.name.startsWith('envoy_cluster_membership_') &&
          s.samples.some(([, v]) => v > 0),
      ),
    ).toEqual([]);
    // deferred stats: without a request there is no upstream_rq_total at all (internal/xds/bootstrap, Envoy Gateway v1.9.0)
    expect(none.series.filter((s) => s.name === 'envoy_cluster_upstream_rq_total')).toEqual([]);
    const slow = buildWorld(model, releaseById('slow-start'));
    expect(slow.promotedAt ?? 0).toBeGreaterThan(buildWorld(model, releaseById('healthy')).promotedAt ?? Infinity);
  });
});
