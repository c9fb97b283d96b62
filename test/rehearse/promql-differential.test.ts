/**
 * The in-process PromQL evaluator synth uses equals the real Prometheus engine on the rehearsal
 * data: every analysis query of today's output and of the previous version's, plus the functions
 * the evaluator offers, at every measurement instant of every release and at instants in between.
 */
import * as fs from 'fs';
import * as path from 'path';
import {
  buildWorld,
  evaluateInstant,
  PrometheusHarness,
  readRollouts,
  RELEASES,
  runLoopSync,
  toOpenMetrics,
  type QueryAnswer,
  type World,
} from '../../src/rehearse';

const read = (f: string) => ({ file: f, text: fs.readFileSync(f, 'utf8') });
const models = [
  ...readRollouts([read(path.join(__dirname, '..', '..', 'dist', 'prod', 'checkout-api.k8s.yaml'))]),
  ...readRollouts([read(path.join(__dirname, 'fixtures', 'checkout-api.v0.1.0.k8s.yaml'))]),
];
const EXTRA = [
  'sum(max_over_time(kube_pod_status_ready{condition="false"}[2m]))',
  'sum by (pod) (changes(kube_pod_status_ready{condition="true"}[3m]))',
  'count(kube_pod_status_ready{condition="true"} == 1)',
  'sum(increase(envoy_cluster_upstream_rq_total[90s])) / 2',
  'sum without (pod) (rate(envoy_cluster_upstream_rq_xx[1m]))',
  'max(avg_over_time(envoy_cluster_upstream_rq_total[5m]))',
  'scalar(sum(envoy_cluster_upstream_rq_total)) > bool 100',
  'sum(rate(envoy_cluster_upstream_rq_xx{envoy_response_code_class="5"}[2m])) or vector(0)',
  'sum(rate(envoy_cluster_upstream_rq_total[2m])) > 1000',
  'absent(envoy_cluster_upstream_rq_xx{envoy_response_code_class="5"})',
];
const SLOT = 8 * 3600;

function same(a: QueryAnswer, b: QueryAnswer): boolean {
  if (!a.ok || !b.ok) return a.ok === b.ok;
  const xs = Array.isArray(a.result) ? [...a.result].sort() : [a.result];
  const ys = Array.isArray(b.result) ? [...b.result].sort() : [b.result];
  if (xs.length !== ys.length) return false;
  return xs.every((x, i) => {
    const y = ys[i];
    if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) && Number.isNaN(y);
    if (!Number.isFinite(x) || !Number.isFinite(y)) return x === y;
    return Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(x), Math.abs(y));
  });
}

test('in-process evaluator = Prometheus 2.42 on every query and instant of the rehearsal data', async () => {
  const plans: Array<{ world: World; queries: string[]; times: number[] }> = [];
  for (const model of models) {
    const queries = [
      ...new Set(
        [
          ...(model.background?.metrics ?? []),
          ...model.steps.flatMap((s) => (s.kind === 'analysis' ? s.run.metrics : [])),
        ].map((m) => m.query),
      ),
      ...EXTRA,
    ];
    for (const release of RELEASES) {
      const world = buildWorld(model, release);
      // The instants the analysis loop measures at, plus every 127 s over the whole timeline.
      const times = new Set<number>();
      runLoopSync(world, model, (q) => {
        times.add(q.t);
        return evaluateInstant(q.query, world.series, q.t);
      });
      for (let t = 0; t <= world.durationSeconds; t += 127) times.add(t);
      plans.push({ world, queries, times: [...times] });
    }
  }
  const prom = new PrometheusHarness();
  await prom.start(toOpenMetrics(plans.map((p, k) => ({ offsetSeconds: k * SLOT, series: p.world.series }))));
  const mismatches: string[] = [];
  let compared = 0;
  try {
    for (const [k, p] of plans.entries()) {
      for (const q of p.queries) {
        for (const t of p.times) {
          const real = await prom.query(q, k * SLOT + t);
          const mine = evaluateInstant(q, p.world.series, t);
          compared++;
          if (!same(real, mine) && mismatches.length < 10)
            mismatches.push(
              `${p.world.release.id} t=${t} ${q}: prometheus ${JSON.stringify(real)} vs in-process ${JSON.stringify(mine)}`,
            );
        }
      }
    }
  } finally {
    await prom.stop();
  }
  expect(mismatches).toEqual([]);
  expect(compared).toBeGreaterThan(5000);
}, 300000);
