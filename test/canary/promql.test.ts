import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Duration } from 'cdk8s';
import * as YAML from 'yaml';
import { podName } from '../../src/decisions/generated-names';
import { find, synthService } from '../support/manifests';

/**
 * The analysis queries on the real Prometheus engine (`promtool test rules`), with the canary-hash
 * argument substituted, against series shaped the way the exporters shape them:
 * - Envoy creates a cluster's response-class counters on first use (source/common/http/codes.cc), so a
 *   canary that never answered a 5xx has no class "5" series at all;
 * - Envoy Gateway skips weight-0 backendRefs (internal/gatewayapi/route.go, v1.9.0), so the canary's
 *   cluster and all its series only exist from the first setWeight;
 * - kube-state-metrics exports kube_pod_status_ready once per status (true/false/unknown), 0 or 1, and
 *   only once the pod has a Ready condition (internal/store/pod.go, v2.19.1); a new pod is not Ready
 *   until readiness passed successThreshold times.
 * One scrape every 30 s; `_` is a scrape at which the series does not exist.
 */
const HASH = '6d9f8b7c5';
const objs = synthService();
const templates = [
  find(objs, 'AnalysisTemplate', 'checkout-api-canary-gate'),
  find(objs, 'AnalysisTemplate', 'checkout-api-canary-background'),
];
type Metric = { name: string; provider: { prometheus: { query: string } } };
const query = (name: string): string => {
  const qs = templates.map((t) => (t.spec.metrics as Metric[]).find((x) => x.name === name)?.provider.prometheus.query);
  if (!qs[0]) throw new Error(`no metric ${name}`);
  expect(qs[1]).toBe(qs[0]);
  return qs[0].replace(/\{\{args\.canary-hash\}\}/g, HASH);
};

const stable = 'httproute/checkout/checkout-api/rule/0';
const canary = `${stable}/backend/1`;
const SCRAPE_S = 30;
const SCRAPES = 40; // 20 minutes

function promtoolTest(tests: unknown[]): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-promql-'));
  try {
    fs.writeFileSync(path.join(dir, 'empty-rules.yaml'), 'groups: []\n');
    fs.writeFileSync(
      path.join(dir, 'test.yaml'),
      YAML.stringify({ rule_files: ['empty-rules.yaml'], evaluation_interval: '30s', tests }),
    );
    return execFileSync('promtool', ['test', 'rules', 'test.yaml'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (e) {
    const err = e as { code?: string; stdout?: string; stderr?: string; message: string };
    if (err.code === 'ENOENT') throw new Error('promtool not found: apt-get install -y prometheus');
    throw new Error(`promtool failed:\n${err.stdout ?? ''}${err.stderr ?? ''}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** One value per scrape (undefined: the series does not exist at that scrape), in promtool notation. */
const values = (vs: (number | undefined)[]) => vs.map((v) => (v === undefined ? '_' : String(v))).join(' ');

/**
 * An Envoy counter that `perSecond` increments from `fromS` on (first use): absent before, and at its
 * first scrape already holding what it counted since then.
 */
function envoyCounter(perSecond: number, fromS = 0): string {
  const out: (number | undefined)[] = [];
  for (let i = 0; i < SCRAPES; i++) {
    const t = i * SCRAPE_S;
    out.push(t <= fromS ? undefined : Math.round((t - fromS) * perSecond));
  }
  return values(out);
}
/** A static Envoy counter (e.g. upstream_rq_total): exists at 0 from the cluster's creation at `fromS`. */
function staticCounter(perSecond: number, fromS = 0): string {
  const out: (number | undefined)[] = [];
  for (let i = 0; i < SCRAPES; i++) {
    const t = i * SCRAPE_S;
    out.push(t < fromS ? undefined : Math.round((t - fromS) * perSecond));
  }
  return values(out);
}
const xx = (cluster: string, cls: string, v: string) => ({
  series: `envoy_cluster_upstream_rq_xx{envoy_cluster_name="${cluster}", envoy_response_code_class="${cls}"}`,
  values: v,
});
const total = (cluster: string, v: string) => ({
  series: `envoy_cluster_upstream_rq_total{envoy_cluster_name="${cluster}"}`,
  values: v,
});

// The example's traffic: 3700 req/s at peak; the first weight is 5 % from t = 5 min.
const RPS = 3700;
const FIRST_WEIGHT_AT = 300;
const stableRps = RPS * 0.95;
const canaryRps = RPS * 0.05;
const at = (s: number) => `${s}s`;
/** promtool: the expression has one sample, whatever its value. */
const oneSample = (expr: string, s: number) => ({
  expr: `count(${expr})`,
  eval_time: at(s),
  exp_samples: [{ labels: '{}', value: 1 }],
});
/** promtool: the expression's one sample lies strictly between `lo` and `hi`. */
const between = (expr: string, lo: number, hi: number, s: number) => oneSample(`${expr} > ${lo} < ${hi}`, s);
const noSample = (expr: string, s: number) => ({ expr, eval_time: at(s), exp_samples: [] });

describe('error ratios on the real Prometheus engine, with Envoy-shaped series', () => {
  test('a healthy canary that never answered a 5xx (no class-5 series): 0, not "no sample"; absent before the first weight', () => {
    promtoolTest([
      {
        interval: '30s',
        input_series: [
          // stable: 0.1 % errors all along, so its class-5 counter exists
          xx(stable, '2', envoyCounter(stableRps * 0.999)),
          xx(stable, '5', envoyCounter(stableRps * 0.001)),
          total(stable, staticCounter(stableRps)),
          // canary: cluster created at the first weight, only 2xx
          xx(canary, '2', envoyCounter(canaryRps, FIRST_WEIGHT_AT)),
          total(canary, staticCounter(canaryRps, FIRST_WEIGHT_AT)),
        ],
        promql_expr_test: [
          noSample(query('canary-error-ratio'), FIRST_WEIGHT_AT - 30),
          noSample(query('canary-request-volume'), FIRST_WEIGHT_AT - 30),
          {
            expr: query('canary-error-ratio'),
            eval_time: at(FIRST_WEIGHT_AT + 120),
            exp_samples: [{ labels: '{}', value: 0 }],
          },
          {
            expr: query('canary-error-ratio'),
            eval_time: at(FIRST_WEIGHT_AT + 600),
            exp_samples: [{ labels: '{}', value: 0 }],
          },
          // the blend: 95 % of the traffic at 0.1 % errors
          between(query('route-error-ratio'), 0.00094, 0.00096, FIRST_WEIGHT_AT + 300),
          // 2 min of 185 req/s
          between(query('canary-request-volume'), 22190, 22210, FIRST_WEIGHT_AT + 300),
        ],
      },
    ]);
  });

  test('a route whose stable has never answered a 5xx either: both ratios 0', () => {
    promtoolTest([
      {
        interval: '30s',
        input_series: [
          xx(stable, '2', envoyCounter(stableRps)),
          xx(canary, '2', envoyCounter(canaryRps, FIRST_WEIGHT_AT)),
          total(canary, staticCounter(canaryRps, FIRST_WEIGHT_AT)),
        ],
        promql_expr_test: [
          {
            expr: query('canary-error-ratio'),
            eval_time: at(FIRST_WEIGHT_AT + 180),
            exp_samples: [{ labels: '{}', value: 0 }],
          },
          {
            expr: query('route-error-ratio'),
            eval_time: at(FIRST_WEIGHT_AT + 180),
            exp_samples: [{ labels: '{}', value: 0 }],
          },
        ],
      },
    ]);
  });

  test('a canary failing 10 %: its class-5 counter appears at the first error and the ratio reaches the threshold; the route blends it to 0.5 %', () => {
    promtoolTest([
      {
        interval: '30s',
        input_series: [
          xx(stable, '2', envoyCounter(stableRps)),
          xx(canary, '2', envoyCounter(canaryRps * 0.9, FIRST_WEIGHT_AT)),
          xx(canary, '5', envoyCounter(canaryRps * 0.1, FIRST_WEIGHT_AT)),
          total(canary, staticCounter(canaryRps, FIRST_WEIGHT_AT)),
        ],
        promql_expr_test: [
          between(query('canary-error-ratio'), 0.0999, 0.1001, FIRST_WEIGHT_AT + 180),
          between(query('route-error-ratio'), 0.0049, 0.0051, FIRST_WEIGHT_AT + 180),
        ],
      },
    ]);
  });

  test('a canary failing every request: only its class-5 counter exists, the ratio is 1; the route blends it to 5 %', () => {
    promtoolTest([
      {
        interval: '30s',
        input_series: [
          xx(stable, '2', envoyCounter(stableRps)),
          xx(canary, '5', envoyCounter(canaryRps, FIRST_WEIGHT_AT)),
          total(canary, staticCounter(canaryRps, FIRST_WEIGHT_AT)),
        ],
        promql_expr_test: [
          {
            expr: query('canary-error-ratio'),
            eval_time: at(FIRST_WEIGHT_AT + 180),
            exp_samples: [{ labels: '{}', value: 1 }],
          },
          between(query('route-error-ratio'), 0.049, 0.051, FIRST_WEIGHT_AT + 180),
        ],
      },
    ]);
  });

  test('stable errors while the canary is healthy: the canary ratio stays 0, the route ratio shows them', () => {
    promtoolTest([
      {
        interval: '30s',
        input_series: [
          xx(stable, '2', envoyCounter(stableRps * 0.95)),
          xx(stable, '5', envoyCounter(stableRps * 0.05)),
          xx(canary, '2', envoyCounter(canaryRps, FIRST_WEIGHT_AT)),
          total(canary, staticCounter(canaryRps, FIRST_WEIGHT_AT)),
        ],
        promql_expr_test: [
          {
            expr: query('canary-error-ratio'),
            eval_time: at(FIRST_WEIGHT_AT + 180),
            exp_samples: [{ labels: '{}', value: 0 }],
          },
          between(query('route-error-ratio'), 0.047, 0.048, FIRST_WEIGHT_AT + 180),
        ],
      },
    ]);
  });

  test('no traffic: counters that exist but do not move give NaN, a cluster that does not exist gives no sample; neither is 0', () => {
    promtoolTest([
      {
        interval: '30s',
        input_series: [
          xx(stable, '2', staticCounter(0)),
          xx(canary, '2', staticCounter(0)),
          total(canary, staticCounter(0)),
        ],
        promql_expr_test: [
          oneSample(query('canary-error-ratio'), 600),
          // NaN satisfies no comparison: both guarded conditions are false, the measurement Inconclusive
          noSample(`${query('canary-error-ratio')} >= 0`, 600),
          noSample(`${query('canary-error-ratio')} < 0.01`, 600),
          { expr: query('canary-request-volume'), eval_time: '600s', exp_samples: [{ labels: '{}', value: 0 }] },
        ],
      },
      {
        interval: '30s',
        // the canary at weight 0 (before the first step, or after an abort): no canary cluster at all
        input_series: [xx(stable, '2', envoyCounter(stableRps)), total(stable, staticCounter(stableRps))],
        promql_expr_test: [noSample(query('canary-error-ratio'), 600), noSample(query('canary-request-volume'), 600)],
      },
      {
        interval: '30s',
        // nothing scraped at all (a wrong job, Envoy metrics not collected)
        input_series: [{ series: 'up{job="other"}', values: '1x39' }],
        promql_expr_test: [noSample(query('canary-error-ratio'), 600), noSample(query('route-error-ratio'), 600)],
      },
    ]);
  });

  test('a canary Service that loses every endpoint at 5 % weight: its share goes to a cluster that does not exist (503 NC), counted nowhere; the canary ratio is NaN and the volume 0, so Inconclusive', () => {
    // Envoy Gateway v1.9.0 routes the empty backendRef's share to "invalid-backend-cluster"
    // (internal/xds/translator/route.go buildXdsWeightedRouteAction) and still builds the canary's
    // cluster, now without endpoints; Envoy answers the NC before choosing a cluster (router.cc
    // decodeHeaders, main), so the canary cluster's counters stop where they were.
    const lost = FIRST_WEIGHT_AT + 300;
    const frozen = (perSecond: number) =>
      values(
        Array.from({ length: SCRAPES }, (_, i) => {
          const t = i * SCRAPE_S;
          return t < FIRST_WEIGHT_AT ? undefined : Math.round((Math.min(t, lost) - FIRST_WEIGHT_AT) * perSecond);
        }),
      );
    const q = query('canary-error-ratio');
    promtoolTest([
      {
        interval: '30s',
        input_series: [
          xx(stable, '2', envoyCounter(stableRps)),
          total(stable, staticCounter(stableRps)),
          xx(canary, '2', frozen(canaryRps)),
          total(canary, frozen(canaryRps)),
        ],
        promql_expr_test: [
          { expr: q, eval_time: at(lost - 30), exp_samples: [{ labels: '{}', value: 0 }] },
          // 0/0 one window after the loss: NaN, which neither guarded condition accepts
          oneSample(`(${q}) != (${q})`, lost + 150),
          noSample(`${q} >= 0`, lost + 150),
          {
            expr: query('canary-request-volume'),
            eval_time: at(lost + 150),
            exp_samples: [{ labels: '{}', value: 0 }],
          },
          // the route's ratio over the clusters that still answer: the stable's, 0
          { expr: query('route-error-ratio'), eval_time: at(lost + 150), exp_samples: [{ labels: '{}', value: 0 }] },
        ],
      },
    ]);
  });
});

describe('canary readiness departures on the real Prometheus engine, with kube-state-metrics-shaped series', () => {
  /**
   * The series kube-state-metrics exports for a pod: kube_pod_status_ready once per status
   * (true/false/unknown) from `ready` (true/false per scrape, undefined before the pod has the
   * condition), and kube_pod_owner from its creation (internal/store/pod.go, v2.19.1). The pod is
   * named as the API server names it: "<replicaset>-" cut to 58 characters, then 5 random ones.
   */
  function pod(replicaSet: string, suffix: string, ready: (boolean | undefined)[], ns = 'checkout') {
    const name = podName(replicaSet, suffix);
    const cond = (c: string, f: (r: boolean) => number) => ({
      series: `kube_pod_status_ready{namespace="${ns}", pod="${name}", uid="${name}-uid", condition="${c}"}`,
      values: values(ready.map((r) => (r === undefined ? undefined : f(r)))),
    });
    // the pod exists (and has its owner) from the scrape before its first Ready condition
    const exists = ready.map((r, i) => r !== undefined || ready[i + 1] !== undefined);
    const owner = {
      series: `kube_pod_owner{namespace="${ns}", pod="${name}", uid="${name}-uid", owner_kind="ReplicaSet", owner_name="${replicaSet}", owner_is_controller="true"}`,
      values: values(exists.map((e) => (e ? 1 : undefined))),
    };
    return [cond('true', (r) => (r ? 1 : 0)), cond('false', (r) => (r ? 0 : 1)), cond('unknown', () => 0), owner];
  }
  /** A pod created at `fromS` with no Ready condition for 1 scrape, then not Ready for `notReadyS`, then Ready (flapping after that if `flaps`). */
  function timeline(
    fromS: number,
    notReadyS: number,
    flaps: { downAtS: number; upAtS: number }[] = [],
  ): (boolean | undefined)[] {
    const out: (boolean | undefined)[] = [];
    for (let i = 0; i < SCRAPES; i++) {
      const t = i * SCRAPE_S;
      if (t < fromS) out.push(undefined);
      else if (t === fromS)
        out.push(undefined); // scheduled, no Ready condition yet
      else if (t < fromS + notReadyS) out.push(false);
      else out.push(!flaps.some((f) => t >= f.downAtS && t < f.upAtS));
    }
    return out;
  }
  const canaryPod = (s: string, ready: (boolean | undefined)[]) => pod(`checkout-api-${HASH}`, s, ready);
  const stablePod = (s: string, ready: (boolean | undefined)[]) => pod('checkout-api-5c4b9d6f4', s, ready);
  // the example's start: startup probe until listening, then readiness successThreshold x period (30 s) to come in
  const START_S = 90;

  test('scale-up 1 -> 3 canary pods, the new ones not Ready for their start-up and return window: 0 departures at every measurement', () => {
    const series = [
      ...canaryPod('aaaaa', timeline(0, START_S)),
      ...canaryPod('bbbbb', timeline(600, START_S)),
      ...canaryPod('ccccc', timeline(600, START_S + 60)),
      // a stable pod restarting is not the canary's
      ...stablePod('zzzzz', timeline(0, 30, [{ downAtS: 400, upAtS: 500 }])),
    ];
    const readinessTests = [];
    for (let s = 60; s < SCRAPES * SCRAPE_S; s += 60)
      readinessTests.push({
        expr: query('canary-readiness-departures'),
        eval_time: at(s),
        exp_samples: [{ labels: '{}', value: 0 }],
      });
    promtoolTest([{ interval: '30s', input_series: series, promql_expr_test: readinessTests }]);
  });

  test('a canary pod that was Ready and leaves Ready is counted, in every window that holds the drop', () => {
    const series = [
      ...canaryPod(
        'aaaaa',
        timeline(0, START_S, [
          { downAtS: 600, upAtS: 660 },
          { downAtS: 900, upAtS: 930 },
        ]),
      ),
      ...canaryPod('bbbbb', timeline(0, START_S)),
    ];
    promtoolTest([
      {
        interval: '30s',
        input_series: series,
        promql_expr_test: [
          { expr: query('canary-readiness-departures'), eval_time: at(570), exp_samples: [{ labels: '{}', value: 0 }] },
          // the drop between the scrapes at 570 s and 600 s is in the windows ending at 600 s .. 690 s
          // (the window is 3m here: 1m + return window 30 s + minReadySeconds 30 s + 2 scrapes)
          { expr: query('canary-readiness-departures'), eval_time: at(600), exp_samples: [{ labels: '{}', value: 1 }] },
          { expr: query('canary-readiness-departures'), eval_time: at(750), exp_samples: [{ labels: '{}', value: 1 }] },
          { expr: query('canary-readiness-departures'), eval_time: at(780), exp_samples: [{ labels: '{}', value: 0 }] },
          // the second departure, 30 s long
          { expr: query('canary-readiness-departures'), eval_time: at(960), exp_samples: [{ labels: '{}', value: 1 }] },
        ],
      },
    ]);
  });

  /**
   * A canary pod that leaves Ready before it is first available: Ready at `readyS`, it fails from its
   * first probe after that and is out after the leave window (3 x 10 s), back after the return window
   * (3 x 10 s), and available `minReady` s later; only then does the controller set the first weight
   * and start the background run, whose first departure count comes one interval (60 s) later, plus
   * `lagS` for the controllers. kube-state-metrics is scraped every 30 s; the departure falls anywhere
   * between two scrapes.
   */
  function departureBeforeRun(q: string, minReady: number, lagS: number) {
    const failures: string[] = [];
    for (let readyS = 90; readyS < 120; readyS += 5) {
      const downS = readyS + 30;
      const upS = downS + 30;
      const firstMeasurementS = upS + minReady + lagS + 60;
      const ready = (t: number) => (t < readyS ? false : !(t >= downS && t < upS));
      const timelineOf: (boolean | undefined)[] = Array.from({ length: SCRAPES }, (_, i) =>
        i === 0 ? undefined : ready(i * SCRAPE_S),
      );
      try {
        promtoolTest([
          {
            interval: '30s',
            input_series: canaryPod('aaaaa', timelineOf),
            promql_expr_test: [
              { expr: q, eval_time: at(firstMeasurementS), exp_samples: [{ labels: '{}', value: 1 }] },
            ],
          },
        ]);
      } catch {
        failures.push(`Ready at ${readyS} s, out ${downS}-${upS} s, first measurement at ${firstMeasurementS} s`);
      }
    }
    return failures;
  }

  test("a canary pod that leaves Ready before it is first available is counted at the run's first measurement (minReadySeconds 30 and 120), wherever the drop falls between scrapes", () => {
    const departures = (props: Parameters<typeof synthService>[0]) =>
      (find(synthService(props), 'AnalysisTemplate', 'checkout-api-canary-background').spec.metrics as Metric[])
        .find((x) => x.name === 'canary-readiness-departures')!
        .provider.prometheus.query.replace(/\{\{args\.canary-hash\}\}/g, HASH);
    const golden = departures({});
    const slow = departures({
      overrides: {
        minReadySeconds: { value: Duration.seconds(120), because: 'a cache warm-up measured at 2 minutes after Ready' },
      },
    });
    expect(golden).toContain('[3m]');
    expect(slow).toContain('[4m30s]');
    for (const lag of [0, 10]) {
      expect(departureBeforeRun(golden, 30, lag)).toEqual([]);
      expect(departureBeforeRun(slow, 120, lag)).toEqual([]);
    }
  });

  test('measurements one interval apart never miss a departure (the windows overlap), wherever the drop falls', () => {
    const at2m = (t: number) => query('canary-readiness-departures').replace(/\[([^\]]+)\]/g, `[$1] @ ${t}`);
    for (let drop = 420; drop <= 480; drop += 30) {
      // measurements at 455 s, 515 s and 575 s (one a minute, not aligned with the scrapes)
      promtoolTest([
        {
          interval: '30s',
          input_series: canaryPod('bbbbb', timeline(0, START_S, [{ downAtS: drop, upAtS: drop + 30 }])),
          promql_expr_test: [
            {
              expr: `count((${at2m(455)} + ${at2m(515)} + ${at2m(575)}) >= 1)`,
              eval_time: at(600),
              exp_samples: [{ labels: '{}', value: 1 }],
            },
          ],
        },
      ]);
    }
  });

  test('a 56-character service (the longest rollwise accepts): its canary pods are found by owner, though their names have lost the hash', () => {
    const LONG = 'customer-notification-preferences-synchronization-api-v2';
    expect(LONG.length).toBe(56);
    const objs = synthService({}, LONG);
    const q = (find(objs, 'AnalysisTemplate', `${LONG}-canary-background`).spec.metrics as Metric[])
      .find((x) => x.name === 'canary-readiness-departures')!
      .provider.prometheus.query.replace(/\{\{args\.canary-hash\}\}/g, HASH);
    // the API server cuts "<replicaset>-" (67 characters) to 58: one character of the hash is left
    const canaryName = podName(`${LONG}-${HASH}`, 'bbbbb');
    expect(canaryName).toBe(`${LONG}-${HASH[0]}bbbbb`);
    expect(canaryName.length).toBe(63);
    const series = [
      ...pod(`${LONG}-${HASH}`, 'bbbbb', timeline(0, START_S, [{ downAtS: 600, upAtS: 660 }])),
      // a stable pod whose hash starts with the same character, leaving Ready at the same time
      ...pod(`${LONG}-${HASH[0]}c4b9d6f4`, 'zzzzz', timeline(0, 30, [{ downAtS: 600, upAtS: 660 }])),
    ];
    promtoolTest([
      {
        interval: '30s',
        input_series: series,
        promql_expr_test: [
          { expr: q, eval_time: at(570), exp_samples: [{ labels: '{}', value: 0 }] },
          // only the canary's departure, found by kube_pod_owner, not the stable pod's
          { expr: q, eval_time: at(630), exp_samples: [{ labels: '{}', value: 1 }] },
          // a name pattern with the hash (what the analysis used before) finds no pod at all
          noSample(`count(kube_pod_status_ready{namespace="checkout", pod=~"${LONG}-${HASH}-.*"})`, 630),
        ],
      },
    ]);
  });

  test('no kube-state-metrics series for the canary: no sample (Inconclusive)', () => {
    promtoolTest([
      {
        interval: '30s',
        input_series: stablePod('zzzzz', timeline(0, 30)),
        promql_expr_test: [noSample(query('canary-readiness-departures'), 600)],
      },
    ]);
  });
});
