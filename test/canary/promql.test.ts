import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as YAML from 'yaml';
import { find, synthService } from '../support/manifests';

/**
 * The analysis queries on the real Prometheus engine (`promtool test rules`), with the canary-hash
 * argument substituted, against synthetic series replaying each case.
 */
const HASH = '6d9f8b7c5';
const objs = synthService();
const gate = find(objs, 'AnalysisTemplate', 'checkout-api-canary-gate');
const query = (name: string): string => {
  const m = (gate.spec.metrics as { name: string; provider: { prometheus: { query: string } } }[]).find((x) => x.name === name);
  if (!m) throw new Error(`no metric ${name}`);
  return m.provider.prometheus.query.replace(/\{\{args\.canary-hash\}\}/g, HASH);
};

const stable = 'httproute/checkout/checkout-api/rule/0';
const canary = `${stable}/backend/1`;

function promtoolTest(tests: unknown[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-promql-'));
  try {
    fs.writeFileSync(path.join(dir, 'empty-rules.yaml'), 'groups: []\n');
    fs.writeFileSync(path.join(dir, 'test.yaml'), YAML.stringify({ rule_files: ['empty-rules.yaml'], evaluation_interval: '30s', tests }));
    return execFileSync('promtool', ['test', 'rules', 'test.yaml'], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    const err = e as { code?: string; stdout?: string; stderr?: string; message: string };
    if (err.code === 'ENOENT') throw new Error('promtool not found: apt-get install -y prometheus');
    throw new Error(`promtool failed:\n${err.stdout ?? ''}${err.stderr ?? ''}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Counter series growing by `perMin` per minute for `minutes`, sampled every 30 s. */
const counter = (perMin: number, minutes = 10) => `0+${perMin / 2}x${minutes * 2}`;
const rq = (cluster: string, cls: string, perMin: number) => ({ series: `envoy_cluster_upstream_rq_xx{envoy_cluster_name="${cluster}", envoy_response_code_class="${cls}"}`, values: counter(perMin) });
const total = (cluster: string, perMin: number) => ({ series: `envoy_cluster_upstream_rq_total{envoy_cluster_name="${cluster}"}`, values: counter(perMin) });

describe('analysis queries on the real Prometheus engine', () => {
  test('healthy canary: the canary ratio stays under the threshold; volume is enough', () => {
    // stable 95 % of 3700 req/s with 0.1 % errors, canary 5 % with 0.1 % errors, per minute
    const s2 = 3700 * 60 * 0.95;
    const c2 = 3700 * 60 * 0.05;
    promtoolTest([{
      interval: '30s',
      input_series: [rq(stable, '2', s2 * 0.999), rq(stable, '5', s2 * 0.001), rq(canary, '2', c2 * 0.999), rq(canary, '5', c2 * 0.001), total(canary, c2)],
      promql_expr_test: [
        { expr: query('canary-error-ratio'), eval_time: '6m', exp_samples: [{ labels: '{}', value: 0.001 }] },
        { expr: query('route-error-ratio'), eval_time: '6m', exp_samples: [{ labels: '{}', value: 0.001 }] },
        { expr: query('canary-request-volume'), eval_time: '6m', exp_samples: [{ labels: '{}', value: c2 * 2 }] },
      ],
    }]);
  });

  test('a canary failing all its requests at 5 % weight: caught by the canary-only signal at 1.0, while the route blends it to 0.05', () => {
    const s2 = 3700 * 60 * 0.95;
    const c2 = 3700 * 60 * 0.05;
    promtoolTest([{
      interval: '30s',
      input_series: [rq(stable, '2', s2), rq(canary, '5', c2), total(canary, c2)],
      promql_expr_test: [
        { expr: query('canary-error-ratio'), eval_time: '6m', exp_samples: [{ labels: '{}', value: 1 }] },
        { expr: query('route-error-ratio'), eval_time: '6m', exp_samples: [{ labels: '{}', value: 0.05 }] },
      ],
    }]);
  });

  test('a canary that fails 10 % of its requests is invisible to a 1 % route threshold (0.5 %) but not to the canary signal', () => {
    const s2 = 3700 * 60 * 0.95;
    const c2 = 3700 * 60 * 0.05;
    promtoolTest([{
      interval: '30s',
      input_series: [rq(stable, '2', s2), rq(canary, '2', c2 * 0.9), rq(canary, '5', c2 * 0.1), total(canary, c2)],
      promql_expr_test: [
        { expr: query('canary-error-ratio'), eval_time: '6m', exp_samples: [{ labels: '{}', value: 0.1 }] },
        { expr: query('route-error-ratio'), eval_time: '6m', exp_samples: [{ labels: '{}', value: 0.005 }] },
      ],
    }]);
  });

  test('a canary with flapping readiness is caught; steady canary pods are not', () => {
    const ready = (pod: string, cond: string, values: string) => ({ series: `kube_pod_status_ready{namespace="checkout", pod="${pod}", condition="${cond}"}`, values });
    promtoolTest([{
      interval: '30s',
      input_series: [
        // canary pod a: flips Ready every ~minute; canary pod b: steady; a stable pod out (not the canary: ignored)
        ready(`checkout-api-${HASH}-aaaaa`, 'false', '0 0 1 1 0 0 1 1 0 0 1 1 0 0 1 1 0 0 1 1'),
        ready(`checkout-api-${HASH}-bbbbb`, 'false', '0x19'),
        ready('checkout-api-5c4b3a2f1-zzzzz', 'false', '1x19'),
      ],
      promql_expr_test: [
        { expr: query('canary-not-ready-pods'), eval_time: '5m', exp_samples: [{ labels: '{}', value: 1 }] },
      ],
    }, {
      interval: '30s',
      input_series: [ready(`checkout-api-${HASH}-bbbbb`, 'false', '0x19'), ready('checkout-api-5c4b3a2f1-zzzzz', 'false', '1x19')],
      promql_expr_test: [
        { expr: query('canary-not-ready-pods'), eval_time: '5m', exp_samples: [{ labels: '{}', value: 0 }] },
      ],
    }]);
  });

  test('no traffic yields no sample (so the guarded condition is inconclusive)', () => {
    promtoolTest([{
      interval: '30s',
      input_series: [rq(stable, '2', 0), rq(canary, '2', 0), rq(canary, '5', 0)],
      promql_expr_test: [
        // counters exist but did not move: 0/0 gives one sample whose value is NaN (no comparison holds)
        { expr: `count(${query('canary-error-ratio')})`, eval_time: '6m', exp_samples: [{ labels: '{}', value: 1 }] },
        { expr: `${query('canary-error-ratio')} >= 0`, eval_time: '6m', exp_samples: [] },
        { expr: `${query('canary-error-ratio')} < 0.01`, eval_time: '6m', exp_samples: [] },
      ],
    }, {
      interval: '30s',
      // no canary cluster at all (no canary traffic yet): no sample, i.e. an empty result
      input_series: [rq(stable, '2', 6000)],
      promql_expr_test: [
        { expr: query('canary-error-ratio'), eval_time: '6m', exp_samples: [] },
        { expr: query('canary-request-volume'), eval_time: '6m', exp_samples: [] },
      ],
    }]);
  });
});
