import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Duration } from 'cdk8s';
import * as YAML from 'yaml';
import { measurementPhase } from '../../src/checks/analysis-condition';
import { CanaryStep, Delivery } from '../../src/decisions/canary';
import { failureLimitFor } from '../../src/decisions/analysis';
import { planCanaryVolume } from '../../src/decisions/canary-volume';
import { checkoutApiProps } from '../../src/example';
import { find, Manifest, synthService, workload } from '../support/manifests';

type Metric = {
  name: string;
  initialDelay?: string;
  successCondition: string;
  failureCondition: string;
  provider: { prometheus: { query: string } };
};
const metrics = (objs: Manifest[], name: string): Metric[] =>
  find(objs, 'AnalysisTemplate', name).spec.metrics as Metric[];
const lowTraffic = (peak: number, release?: number) => ({
  capacity: {
    peakRequestsPerSecond: peak,
    saturationRequestsPerSecondPerReplica: 450,
    ...(release === undefined ? {} : { releaseRequestsPerSecond: release }),
  },
  replicas: peak > 1000 ? 12 : 3,
});

/** The value of `expr` at `evalS` on the real engine, for a canary cluster taking `rps` from t = 0 (one scrape per 30 s). */
function promtoolValue(expr: string, rps: number, evalS: number): number {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-volume-'));
  try {
    const scrapes = Array.from({ length: 41 }, (_, i) => String(Math.round(i * 30 * rps)));
    const tests = [
      {
        interval: '30s',
        input_series: [
          {
            series:
              'envoy_cluster_upstream_rq_total{envoy_cluster_name="httproute/checkout/checkout-api/rule/0/backend/1"}',
            values: scrapes.join(' '),
          },
        ],
        // promtool prints the value it got when the expectation is wrong; ask for an impossible one
        promql_expr_test: [{ expr, eval_time: `${evalS}s`, exp_samples: [{ labels: '{}', value: -1 }] }],
      },
    ];
    fs.writeFileSync(path.join(dir, 'rules.yaml'), 'groups: []\n');
    fs.writeFileSync(
      path.join(dir, 'test.yaml'),
      YAML.stringify({ rule_files: ['rules.yaml'], evaluation_interval: '30s', tests }),
    );
    try {
      execFileSync('promtool', ['test', 'rules', 'test.yaml'], {
        cwd: dir,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (e) {
      const out = `${(e as { stdout?: string }).stdout ?? ''}${(e as { stderr?: string }).stderr ?? ''}`;
      const got = /got: \{\} ([-0-9.eE+]+)/.exec(out);
      if (got) return Number(got[1]);
      throw new Error(`promtool: ${out}`);
    }
    throw new Error('promtool accepted an impossible expectation');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('the volume gate is derived from the traffic', () => {
  test('the example (3700 req/s at peak) keeps 5 % for 10 min and 2 min windows', () => {
    const objs = synthService();
    expect(workload(objs).spec.strategy.canary.steps.slice(0, 4)).toEqual([
      { setWeight: 5 },
      { pause: { duration: '10m' } },
      { setWeight: 25 },
      { pause: { duration: '10m' } },
    ]);
    const volume = metrics(objs, 'checkout-api-canary-background').find((m) => m.name === 'canary-request-volume')!;
    expect(volume.provider.prometheus.query).toContain('[2m]');
    expect(volume.successCondition).toContain('>= 1000');
    expect(metrics(objs, 'checkout-api-canary-background')[0].initialDelay).toBe('2m');
  });

  test('a 20 req/s service gets an analysis that can pass: 25 % over 5 min windows, measured on promtool', () => {
    const objs = synthService(lowTraffic(20));
    const ro = workload(objs);
    expect(ro.spec.strategy.canary.steps[0]).toEqual({ setWeight: 25 });
    // held until a canary failing every measurement is aborted: the first measurement after the 5 min window, 6 more a minute apart, and one to spare
    expect(ro.spec.strategy.canary.steps[1]).toEqual({ pause: { duration: '12m' } });
    expect(ro.metadata.annotations?.['rollwise.dev/reasons']).toMatch(
      /25 % x 20 req\/s x 300 s = 1,500 requests per 5 min window, the smallest first weight, then the shortest window, that reaches it \(5 % x 20 req\/s x 120 s = 120;/,
    );
    for (const t of ['checkout-api-canary-background', 'checkout-api-canary-gate']) {
      for (const m of metrics(objs, t).filter((x) => x.name !== 'canary-readiness-departures'))
        expect(m.provider.prometheus.query).toContain('[5m]');
    }
    const bg = metrics(objs, 'checkout-api-canary-background');
    expect(bg[0].initialDelay).toBe('5m');
    // the canary's share of the release traffic, on the real engine, at the first measurement (initialDelay)
    const volume = bg.find((m) => m.name === 'canary-request-volume')!;
    const got = promtoolValue(volume.provider.prometheus.query, 20 * 0.25, 300);
    expect(got).toBeCloseTo(1500, 0);
    expect(measurementPhase([got], volume.successCondition, volume.failureCondition)).toBe('Successful');
    // and two thirds of that traffic still passes (the 1.5 margin)
    expect(
      measurementPhase(
        [promtoolValue(volume.provider.prometheus.query, (20 * 0.25 * 2) / 3, 300)],
        volume.successCondition,
        volume.failureCondition,
      ),
    ).toBe('Successful');
  });

  test('the release-time traffic sizes the gate, not the peak', () => {
    const ro = workload(synthService(lowTraffic(3700, 100)));
    expect(ro.spec.strategy.canary.steps[0]).toEqual({ setWeight: 5 });
    expect(ro.metadata.annotations?.['rollwise.dev/release-rps']).toBe('100');
    expect(ro.metadata.annotations?.['rollwise.dev/reasons']).toMatch(
      /capacity.releaseRequestsPerSecond 100 req\/s .*5 % x 100 req\/s x 300 s = 1,500 requests per 5 min window/,
    );
  });

  test('a 2 req/s service fails synth with the arithmetic and the choices', () => {
    expect(() => synthService(lowTraffic(2))).toThrow(
      /capacity.peakRequestsPerSecond = 2: the canary cannot collect the sample its error ratio needs .*1,000 requests per window \(10 \/ 0.01\).*1,500.*25 % x 2 req\/s x 600 s = 300 .*below 1,500.*Fix: .*releaseRequestsPerSecond; otherwise, as even all of the traffic for 10 min would not be enough, promote by hand with a reason: Delivery.canary\(\{ manualPromotion/,
    );
  });

  test('given steps whose first weight cannot collect the sample fail synth naming the steps', () => {
    expect(() =>
      synthService({
        ...lowTraffic(20),
        delivery: Delivery.canary({
          steps: [CanaryStep.setWeight(5), CanaryStep.pause(Duration.minutes(10)), CanaryStep.analysisGate()],
        }),
      }),
    ).toThrow(
      /delivery.steps = .*at the first weight \(5 %\) the canary cannot collect .*5 % x 20 req\/s x 300 s = 300 in the longest window \(5 min\) whose abort fits the hold at that weight \(15 min\), below 1,500/,
    );
    // a hold shorter than the window plus one interval
    expect(() =>
      synthService({
        ...lowTraffic(3700),
        delivery: Delivery.canary({
          steps: [
            CanaryStep.setWeight(5),
            CanaryStep.pause(Duration.seconds(90)),
            CanaryStep.setWeight(25),
            CanaryStep.pause(Duration.minutes(10)),
            CanaryStep.analysisGate(),
          ],
        }),
      }),
    ).toThrow(
      /the hold \(90 s\) is shorter than the shortest window's abort \(the first measurement after the 2 min window, 3 more a minute apart, and one to spare: 6 min\)/,
    );
  });

  test('manual promotion with a reason: the first weight waits for a human, no volume metric, the ratios still abort', () => {
    const objs = synthService({
      ...lowTraffic(2),
      delivery: Delivery.canary({
        manualPromotion: { because: 'about 2 req/s: too few requests for a measured 1 % ratio' },
      }),
    });
    const ro = workload(objs);
    expect(ro.spec.strategy.canary.steps.slice(0, 2)).toEqual([{ setWeight: 5 }, { pause: {} }]);
    expect(ro.metadata.annotations?.['rollwise.dev/reasons']).toContain('Promoted by hand: about 2 req/s');
    for (const t of ['checkout-api-canary-background', 'checkout-api-canary-gate']) {
      expect(metrics(objs, t).map((m) => m.name)).toEqual([
        'canary-error-ratio',
        'route-error-ratio',
        'canary-readiness-departures',
      ]);
    }
    // refused by the service that uses it, naming the service (issue 24)
    expect(() =>
      synthService({ ...lowTraffic(2), delivery: Delivery.canary({ manualPromotion: { because: 'low' } }) }),
    ).toThrow(
      /^service checkout-api \(test\/checkout-api\): delivery.manualPromotion.because = low: manual promotion takes the release decision away/,
    );
  });

  test("manual promotion with the service's own steps keeps them, with the longest window and no volume metric", () => {
    const steps = [CanaryStep.setWeight(20), CanaryStep.pauseUntilPromoted(), CanaryStep.analysisGate()];
    const objs = synthService({
      ...lowTraffic(2),
      delivery: Delivery.canary({
        steps,
        manualPromotion: { because: 'a 2 req/s back-office API, checked by its owner' },
      }),
    });
    expect(workload(objs).spec.strategy.canary.steps.slice(0, 2)).toEqual([{ setWeight: 20 }, { pause: {} }]);
    const bg = metrics(objs, 'checkout-api-canary-background');
    expect(bg.map((m) => m.name)).not.toContain('canary-request-volume');
    expect(bg[0].provider.prometheus.query).toContain('[10m]');
    expect(bg[0].initialDelay).toBe('10m');
  });

  test('release traffic above the peak is refused', () => {
    expect(() => synthService(lowTraffic(100, 200))).toThrow(
      /capacity.releaseRequestsPerSecond = 200: is above the peak/,
    );
  });

  test('property: for any traffic and threshold, the plan either collects the sample within its first step or throws the arithmetic', () => {
    for (const rps of [0.5, 1, 3, 7, 13, 20, 50, 99, 250, 1000, 3700]) {
      for (const maxErrorRatio of [0.001, 0.005, 0.01, 0.05]) {
        let plan;
        try {
          plan = planCanaryVolume({ maxErrorRatio, peakRps: rps });
        } catch (e) {
          expect(String(e)).toMatch(/below [0-9,]+\. Every release would pause/);
          expect(rps * 0.25 * 600).toBeLessThan(Math.ceil(10 / maxErrorRatio) * 1.5);
          continue;
        }
        const first = plan.steps[0].json.setWeight as number;
        const pause = plan.steps[1].json.pause as { duration: string };
        const pauseS = /^(\d+)m$/.test(pause.duration) ? Number(pause.duration.slice(0, -1)) * 60 : NaN;
        expect(rps * (first / 100) * plan.windowSeconds).toBeGreaterThanOrEqual(plan.minRequests * 1.5);
        // the first weight holds until a canary failing every measurement is aborted there
        expect(pauseS).toBeGreaterThanOrEqual(plan.windowSeconds + (failureLimitFor(plan.windowSeconds) + 1) * 60);
      }
    }
  });
});

void checkoutApiProps;
