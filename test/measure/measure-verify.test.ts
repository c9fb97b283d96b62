/**
 * rollwise measure and rollwise verify against one real Prometheus (test/measure/setup.ts) holding
 * the recorded week of two services; one server for the whole file, since building it costs seconds.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Chart, Duration } from 'cdk8s';
import * as YAML from 'yaml';
import { main } from '../../src/cli/main';
import { HttpService } from '../../src/constructs/http-service';
import { checkoutApiProps } from '../../src/example';
import { explainManifest } from '../../src/justify/explain';
import { measureService } from '../../src/measure/measure';
import { Measurements } from '../../src/measure/measurements';
import { PrometheusClient } from '../../src/measure/prometheus';
import { ServiceQueries } from '../../src/measure/queries';
import { loadScenarioFile } from '../../src/simulate/scenario';
import { synthesize } from '../../src/synth/synth';
import { freePort, startPrometheus, TestPrometheus } from './prometheus-server';
import { recordedPod, WEEK_END } from './recorded-week';
import { LONG, recordedPrometheus, STOPPED_POD } from './setup';

jest.setTimeout(180_000);

/** The test password's bcrypt hash (cost 10) for Prometheus' --web.config.file basic_auth_users. */
const AUTH = {
  user: 'rollwise',
  password: 'measure-test-only',
  hash: '$2b$10$9TOM8lRfTgW55sSIo3GpieOffIzcKxqlwJD/61I/inW1P89YktLj6',
};

let server: TestPrometheus | undefined;
let url = '';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-measure-'));

beforeAll(async () => {
  ({ server } = await recordedPrometheus());
  url = server.url;
});
afterAll(async () => {
  await server?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

async function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const saved = { ...process.env };
  Object.assign(process.env, env);
  try {
    const code = await main(
      ['node', 'rollwise', ...args],
      (t) => {
        out += t;
      },
      (t) => {
        err += t;
      },
    );
    return { code, out, err };
  } finally {
    process.env = saved;
  }
}

const WEEK = ['--end', '2026-11-29T00:00:00Z'];

function synthWith(measurements: Measurements | undefined, typedP99?: Duration) {
  const outdir = fs.mkdtempSync(path.join(tmp, 'dist-'));
  const result = synthesize(
    (dir) => {
      const app = new App({ outdir: dir });
      // the chart in the namespace the file measured (a file from another namespace is refused)
      const chart = new Chart(app, 'checkout-api', {
        namespace: measurements?.document.service.namespace ?? 'healthy',
      });
      const props = checkoutApiProps();
      new HttpService(chart, 'checkout-api', {
        ...props,
        health: { ...props.health, readinessP99UnderLoad: typedP99 },
        measurements,
      });
      return app;
    },
    { outdir },
  );
  const text = fs.readFileSync(
    path.join(
      outdir,
      result.files.find((f) => f.endsWith('.k8s.yaml'))!,
    ),
    'utf8',
  );
  const rollout = YAML.parseAllDocuments(text)
    .map((d) => d.toJSON())
    .find((o) => o.kind === 'Rollout');
  // What `rollwise explain` prints for the Rollout's readiness timeout.
  const item = explainManifest(text).find(
    (e) => e.object === 'Rollout/checkout-api' && e.path.endsWith('readinessProbe.timeoutSeconds'),
  )!;
  return { text, rollout, reason: item.reason, warnings: result.warnings };
}

describe('rollwise measure on a recorded week with a lunchtime peak', () => {
  test("finds Tuesday 12:00-13:00 UTC and reports the peak's p99, not the week's", async () => {
    const m = await measureService({
      client: new PrometheusClient({ url }),
      target: { name: 'checkout-api', namespace: 'healthy' },
      end: WEEK_END,
      now: () => Date.UTC(2026, 10, 29, 1),
    });
    expect(m.peak.start).toBe('2026-11-24T12:00:00.000Z');
    expect(m.peak.end).toBe('2026-11-24T13:00:00.000Z');
    // increase() over the hour's samples, extrapolated to its edges: within 2 % of the 3,700 req/s offered.
    expect(Math.abs(m.peak.requestsPerSecond - 3700)).toBeLessThan(75);
    expect(m.peak.pods).toBe(4);
    // 5 % of the peak's probes take 250-500 ms: the p99 is in that bucket.
    expect(m.readiness.p99.value).toBe(0.5);
    expect(m.readiness.p99.bucketLowerSeconds).toBe(0.25);
    expect(m.readiness.p99.interpolatedSeconds).toBeGreaterThan(0.25);
    // The same query over the whole week lands in a bucket below 100 ms: the quiet hours dilute it.
    const q = new ServiceQueries({ name: 'checkout-api', namespace: 'healthy' });
    const week = (await new PrometheusClient({ url }).instant(q.probeQuantile(0.99, '7d'), WEEK_END))[0].samples[0].v;
    expect(week).toBeLessThan(0.1);
    expect(m.readiness.failedAtPeak.value).toBe(0);
    expect(Math.abs(m.traffic.perReadyReplicaAtPeak.value! - 3700 / 4)).toBeLessThan(20);
    expect(m.cpu.secondsPerRequestAtPeak.value).toBeGreaterThan(0.0002);
    expect(m.cpu.throttledRatioAtPeak.value).toBeNull();
    expect(m.cpu.throttledRatioAtPeak.note).toMatch(/no CPU limit/);
    // Thursday's listener-stop experiment took one pod of four out for a few minutes.
    expect(m.endpoints.lowestReadyRatio.value).toBe(0.75);
    expect(m.endpoints.lowestReadyRatio.note).toBe('lowest at 2026-11-26 10:01 UTC (sampled every minute)');
    expect(m.proxy.remoteResetsWithActiveRequest.value).toBe(0);
    expect(m.proxy.idleTimeouts.value).toBeGreaterThan(0);
    expect(m.capacity.points.length).toBeGreaterThan(2);
    expect(m.capacity.saturation.sentence).toMatch(/knee/);
    expect(m.measuredAt).toBe('2026-11-29T01:00:00.000Z');
  });

  test('counts readiness failures at the peak, including the "failed" series created at the first failure (container app, kube-state-metrics\' default collectors only)', async () => {
    const m = await measureService({
      client: new PrometheusClient({ url }),
      target: { name: 'checkout-api', namespace: 'incident' },
      end: WEEK_END,
    });
    expect(m.service.container).toBe('app');
    expect(m.peak.pods).toBe(4);
    // the p99 counts the 72 failures in: more than 1 % of the probes, so there is none to give
    expect(m.readiness.p99.value).toBeNull();
    // Two pods, 3 failed probes a minute, 12 minutes.
    expect(m.readiness.failedAtPeak.value).toBe(72);
    expect(m.cpu.throttledRatioAtPeak.value).toBeCloseTo(0.4, 1);
    expect(m.endpoints.lowestReadyRatio.value).toBe(0.5);
    expect(m.proxy.remoteResetsWithActiveRequest.value).toBe(3);
  });
});

describe('rollwise measure -> measurements file -> synth', () => {
  const file = path.join(tmp, 'checkout-api.json');
  let r: { code: number; out: string; err: string };
  // Every test below reads the file this writes, so it runs once for all of them.
  beforeAll(async () => {
    r = await cli([
      'measure',
      'checkout-api',
      '-n',
      'healthy',
      '--prometheus',
      url,
      ...WEEK,
      '-o',
      file,
      '--app-histogram',
      'http_request_duration_seconds{handler="/healthz"}',
    ]);
  });

  test('measure writes a versioned file and a summary with each query', () => {
    expect(r.err).toBe('');
    expect(r.out).toMatch(
      /readiness p99 at peak, the app's own histogram: 0\.5 seconds \(in the app's bucket \(0\.25, 0\.5\] s, interpolated \d+ ms; measured inside the app.*\n {2}query: histogram_quantile\(0\.99, sum by \(le\) \(increase\(http_request_duration_seconds_bucket\{handler="\/healthz", namespace="healthy"\}\[1h\]\) and on\(namespace, pod\) max_over_time\(kube_pod_owner\{namespace="healthy", owner_kind="ReplicaSet", owner_name=~"checkout-api-\[456789bcdf\]\{1,10\}"\}\[1h\]\)\)\)/,
    );
    // the p99 counts failed probes too, and says so
    expect(r.out).toMatch(
      /readiness p99 at peak: 0\.5 seconds \(p99 of successful and failed probes together lies in the bucket \(0\.25, 0\.5\] s: 0 of \d+ readiness probes \(0 %\) failed/,
    );
    expect(r.code).toBe(0);
    expect(r.out).toContain('busiest hour 2026-11-24 12:00-13:00 UTC (3662 req/s, 4 pods)');
    expect(r.out).toMatch(
      /readiness p99 at peak: 0\.5 seconds .*\n {2}query: histogram_quantile\(0\.99, sum by \(le\) \(increase\(prober_probe_duration_seconds_bucket\{probe_type="Readiness", namespace="healthy"/,
    );
    expect(r.out).toMatch(/CFS throttled ratio at peak: not measured \(no CFS series/);
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(doc.apiVersion).toBe('rollwise.dev/measurements/v1');
    expect(doc.readiness.p99.value).toBe(0.5);
    expect(fs.readdirSync(tmp).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });

  test("synth with the file: the readiness timeout's reason names the measured p99 and where it came from", () => {
    const { rollout, reason, text, warnings } = synthWith(Measurements.fromFile(file));
    expect(rollout.spec.template.spec.containers[0].readinessProbe.timeoutSeconds).toBe(3);
    expect(reason).toContain(
      "2 x the health path's p99 under peak load (500 ms, measured by rollwise measure (checkout-api.json",
    );
    expect(reason).toContain("the kubelet's readiness probe durations (prober_probe_duration_seconds");
    expect(reason).toContain(
      'busiest hour 2026-11-24 12:00-13:00 UTC at 3662 req/s, 4 pods, in the bucket 250 ms-500 ms',
    );
    expect(reason).toContain(
      'query histogram_quantile(0.99, sum by (le) (increase(prober_probe_duration_seconds_bucket{probe_type="Readiness", namespace="healthy"',
    );
    expect(text).toContain('busiest hour 2026-11-24 12:00-13:00 UTC');
    expect(warnings.filter((w) => /measurements/.test(w))).toEqual([]);
  });

  test('a measurement older than platform.measurementMaxAge is a synth warning', () => {
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    doc.measuredAt = new Date(Date.now() - 45 * 86400_000).toISOString();
    const old = path.join(tmp, 'old.json');
    fs.writeFileSync(old, JSON.stringify(doc));
    const { warnings } = synthWith(Measurements.fromFile(old));
    expect(warnings.join('\n')).toMatch(
      /measurements old\.json are 45 days old .*older than platform\.measurementMaxAge \(30 days\).*rollwise measure checkout-api --namespace healthy/,
    );
  });

  test('more than 1 % of the probes failed at the peak: no p99, and synth refuses the file with the reason', async () => {
    const incident = path.join(tmp, 'incident.json');
    const r = await cli(['measure', 'checkout-api', '-n', 'incident', '--prometheus', url, ...WEEK, '-o', incident]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /readiness p99 at peak: not measured \(72 of \d+ readiness probes \(5\.\d+ %\) failed in the busiest hour, more than 1 %: the p99 is a failed probe, at least the probe's timeout/,
    );
    const doc = JSON.parse(fs.readFileSync(incident, 'utf8'));
    expect(doc.readiness.p99).toMatchObject({ value: null, failedProbes: 72, successfulOnlySeconds: 0.5 });
    expect(() => synthWith(Measurements.fromFile(incident))).toThrow(
      /measurements = incident.json: holds no readiness p99 \(72 of \d+ readiness probes/,
    );
  });

  test('a p99 measured while a few probes failed at the peak is a synth warning', () => {
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    doc.readiness.failedAtPeak.value = 5;
    const few = path.join(tmp, 'few.json');
    fs.writeFileSync(few, JSON.stringify(doc));
    const { warnings } = synthWith(Measurements.fromFile(few));
    expect(warnings.join('\n')).toContain(
      "measurements few.json: 5 readiness probes failed in the busiest hour. The kubelet's duration histogram leaves failed probes out, so rollwise measure counted each as slower than every success",
    );
  });

  test('typed numbers still work and the reason says they are typed; both at once is refused', () => {
    expect(synthWith(undefined, Duration.millis(250)).reason).toContain(
      '(250 ms, typed in as health.readinessP99UnderLoad, not measured by rollwise',
    );
    expect(() => synthWith(Measurements.fromFile(file), Duration.millis(250))).toThrow(
      /health.readinessP99UnderLoad = 250 ms: is typed in while measurements \(checkout-api.json\) also give the p99 \(500 ms\)/,
    );
  });

  test('a file of another service, or of another format version, is refused', () => {
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(() => Measurements.fromJson({ ...doc, apiVersion: 'rollwise.dev/measurements/v0' }, 'x.json')).toThrow(
      /reads rollwise.dev\/measurements\/v1 only/,
    );
    const other = path.join(tmp, 'other.json');
    fs.writeFileSync(other, JSON.stringify({ ...doc, service: { ...doc.service, name: 'payments' } }));
    expect(() => synthWith(Measurements.fromFile(other))).toThrow(/the file measures payments, not checkout-api/);
  });
});

describe('the simulator takes the measurements as capacity', () => {
  test("capacity.measurements: the points and the knee's saturation estimate from the file", async () => {
    const file = path.join(tmp, 'sim', 'checkout-api.json');
    expect(
      (await cli(['measure', 'checkout-api', '-n', 'healthy', '--prometheus', url, ...WEEK, '-o', file])).code,
    ).toBe(0);
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    const scenarioFile = path.join(tmp, 'sim', 'drain.yaml');
    fs.writeFileSync(
      scenarioFile,
      [
        'name: measured checkout-api, a drain at the measured peak',
        'replicas: 4',
        'readiness: { periodSeconds: 10, timeoutSeconds: 3, failureThreshold: 3, successThreshold: 3 }',
        'capacity:',
        '  measurements: checkout-api.json',
        `load: { constantRps: ${Math.round(doc.peak.requestsPerSecond)} }`,
        'events:',
        '  - drain: { atSeconds: 60, count: 1 }',
        '',
      ].join('\n'),
    );
    const s = loadScenarioFile(scenarioFile);
    expect(s.capacity).toEqual({
      kind: 'points',
      points: doc.capacity.points.map((p: { rps: number; p99Seconds: number }) => ({
        rps: p.rps,
        p99Seconds: p.p99Seconds,
      })),
      saturationRps: doc.capacity.saturation.estimateRps,
    });
    expect(doc.capacity.saturation.estimateRps).toBeGreaterThan(0);
    const r = await cli(['simulate', scenarioFile]);
    expect(r.out).toMatch(/verdict/i);
  });
});

describe('rollwise verify', () => {
  test('passes on the healthy week, with a figure for each check', async () => {
    const r = await cli([
      'verify',
      'checkout-api',
      '-n',
      'healthy',
      '--prometheus',
      url,
      '--since',
      '2026-11-22T00:00:00Z',
      '--until',
      '2026-11-29T00:00:00Z',
    ]);
    expect(r.err).toBe('');
    expect(r.out).toContain('peak: 2026-11-24 12:00-13:00 UTC, 3662 req/s');
    expect(r.out).toContain(
      'PASS readiness timeouts at peak: 0 failed readiness probes in the busiest hour 2026-11-24 12:00-13:00 UTC (30 over the whole window)',
    );
    expect(r.out).toContain(
      'PASS ready endpoints / desired replicas: never below the floor; lowest 3 of 4 at 2026-11-26 10:01 UTC',
    );
    expect(r.out).toContain(
      'SKIP CPU throttling at peak: no CFS series while cAdvisor is scraped (container_cpu_usage_seconds_total exists): no CPU limit',
    );
    expect(r.out).toContain('PASS resets with a request in flight: 0 connections');
    expect(r.out).toContain('PASS route 5xx ratio: 0 % in the busiest hour');
    expect(r.out).toContain('verdict: PASS');
    expect(r.code).toBe(0);
  });

  test('fails on the week with readiness timeouts at the peak, naming the time and the count', async () => {
    const r = await cli([
      'verify',
      'checkout-api',
      '-n',
      'incident',
      '--prometheus',
      url,
      '--since',
      '2026-11-22T00:00:00Z',
      '--until',
      '2026-11-29T00:00:00Z',
    ]);
    expect(r.out).toContain(
      'FAIL readiness timeouts at peak: 72 failed readiness probes in the busiest hour 2026-11-24 12:00-13:00 UTC, from 2026-11-24 12:21 UTC to 2026-11-24 12:32 UTC',
    );
    expect(r.out).toMatch(
      /FAIL ready endpoints \/ desired replicas: below the floor in \d+ minute\(s\), first at 2026-11-24 12:25 UTC \(2 of 4 ready\)/,
    );
    expect(r.out).toMatch(/FAIL CPU throttling at peak: 39\.\d+ % of CFS periods throttled/);
    expect(r.out).toContain(
      'FAIL resets with a request in flight: 3 connections closed by the pods with a request in flight (each a 503 UC), first at 2026-11-24 12:30 UTC',
    );
    expect(r.out).toMatch(/FAIL route 5xx ratio: [\d.]+ % in the busiest hour/);
    expect(r.out).toContain('verdict: FAIL');
    expect(r.code).toBe(1);
    const json = await cli([
      'verify',
      'checkout-api',
      '-n',
      'incident',
      '--prometheus',
      url,
      '--since',
      '2026-11-22T00:00:00Z',
      '--until',
      '2026-11-29T00:00:00Z',
      '--json',
    ]);
    const report = JSON.parse(json.out);
    expect(report.verdict).toBe('fail');
    expect(report.checks.map((c: { name: string; verdict: string }) => `${c.name}: ${c.verdict}`)).toContain(
      'readiness timeouts at peak: fail',
    );
  });

  test('without flags, the namespace, Prometheus and disruption budget come from the app', async () => {
    const app = path.join(__dirname, '..', 'fixtures', 'apps', 'measured-app.ts');
    const r = await cli(
      ['verify', 'checkout-api', '--app', app, '--since', '2026-11-22T00:00:00Z', '--until', '2026-11-29T00:00:00Z'],
      { ROLLWISE_TEST_PROMETHEUS: url },
    );
    expect(r.err).toBe('');
    expect(r.out).toContain('verify incident/checkout-api over');
    expect(r.out).toContain(
      "(threshold ready >= desired - 1 (the app's PodDisruptionBudget maxUnavailable; sampled every minute))",
    );
    expect(r.code).toBe(1);
    const missing = await cli(['verify', 'payments', '--app', app, '--since', '2026-11-22T00:00:00Z'], {
      ROLLWISE_TEST_PROMETHEUS: url,
    });
    expect(missing.err).toContain('service = payments\n  why: the app has no HttpService payments.');
    expect(missing.code).toBe(2);
  });

  test('the probe can still fail: the pod whose listener was stopped left within the window its timing implies', async () => {
    const week = ['--since', '2026-11-22T00:00:00Z', '--until', '2026-11-29T00:00:00Z'];
    const ok = await cli([
      'verify',
      'checkout-api',
      '-n',
      'healthy',
      '--prometheus',
      url,
      ...week,
      '--listener-stopped',
      `${STOPPED_POD}@2026-11-26T10:00:00Z`,
      '--leave-within',
      '40',
    ]);
    expect(ok.out).toContain(
      `PASS probe can still fail: ${STOPPED_POD} was first seen not Ready 60 s after its listener was stopped at 2026-11-26 10:00 UTC (sample at 2026-11-26 10:01 UTC, every 60 s) (threshold not Ready within 40 s (--leave-within) + one 60 s sample)`,
    );
    expect(ok.code).toBe(0);
    // In "incident" nothing was stopped on Thursday: a pod that stays Ready fails the check.
    const app = path.join(__dirname, '..', 'fixtures', 'apps', 'measured-app.ts');
    const pod = recordedPod('checkout-api', 2, 0);
    const never = await cli(
      ['verify', 'checkout-api', '--app', app, ...week, '--listener-stopped', `${pod}@2026-11-26T10:00:00Z`],
      { ROLLWISE_TEST_PROMETHEUS: url },
    );
    expect(never.out).toContain(
      `FAIL probe can still fail: ${pod} was still Ready at 2026-11-26 10:10 UTC, 600 s after its listener was stopped at 2026-11-26 10:00 UTC`,
    );
    expect(never.out).toContain(
      "threshold not Ready within 40 s (the app's readiness: (failureThreshold 3 + 1) x period 10 s",
    );
    const outside = await cli([
      'verify',
      'checkout-api',
      '-n',
      'healthy',
      '--prometheus',
      url,
      ...week,
      '--listener-stopped',
      `${STOPPED_POD}@2026-12-02T10:00:00Z`,
      '--leave-within',
      '40',
    ]);
    expect(outside.err).toContain('the experiment lies outside the verified window');
    expect(outside.code).toBe(2);
  });

  test('a 56-character service: measure and verify find its pods by owner, though their names have lost the hash', async () => {
    expect(LONG.length).toBe(56);
    // "<service>-<hash>-" is cut to 58 characters: one character of the hash is left
    expect(recordedPod(LONG, 3, 0)).toMatch(new RegExp(`^${LONG}-6[a-z0-9]{5}$`));
    const m = await measureService({
      client: new PrometheusClient({ url }),
      target: { name: LONG, namespace: 'long' },
      end: WEEK_END,
    });
    expect(m.peak.pods).toBe(4);
    expect(m.readiness.failedAtPeak.value).toBe(72);
    const r = await cli([
      'verify',
      LONG,
      '-n',
      'long',
      '--prometheus',
      url,
      '--since',
      '2026-11-23T00:00:00Z',
      '--until',
      '2026-11-25T00:00:00Z',
    ]);
    expect(r.out).toContain(
      'FAIL readiness timeouts at peak: 72 failed readiness probes in the busiest hour 2026-11-24 12:00-13:00 UTC',
    );
    expect(r.out).toMatch(
      /FAIL ready endpoints \/ desired replicas: below the floor in \d+ minute\(s\), first at 2026-11-24 12:25 UTC \(2 of 4 ready\)/,
    );
    expect(r.code).toBe(1);
  });

  test('ready endpoints from EndpointSlices by default, from Endpoints with --endpoints endpoints (where kube-state-metrics collects them)', async () => {
    const week = ['--since', '2026-11-22T00:00:00Z', '--until', '2026-11-29T00:00:00Z'];
    const slices = await cli(['verify', 'checkout-api', '-n', 'healthy', '--prometheus', url, ...week, '--json']);
    const endpoints = await cli([
      'verify',
      'checkout-api',
      '-n',
      'healthy',
      '--prometheus',
      url,
      ...week,
      '--json',
      '--endpoints',
      'endpoints',
    ]);
    const check = (o: string) =>
      (JSON.parse(o).checks as Array<{ name: string; figure: string; query: string }>).find(
        (c) => c.name === 'ready endpoints / desired replicas',
      )!;
    expect(check(slices.out).query).toContain(
      'kube_endpointslice_endpoints{namespace="healthy", endpointslice=~"checkout-api-[bcdfghjklmnpqrstvwxz2456789]{5}", ready="true"}',
    );
    expect(check(endpoints.out).query).toContain(
      'kube_endpoint_address{namespace="healthy", endpoint="checkout-api", ready="true"}',
    );
    expect(check(endpoints.out).figure).toBe(check(slices.out).figure);
    // "incident" has kube-state-metrics' default collectors only: no Endpoints metrics at all
    const none = await cli([
      'verify',
      'checkout-api',
      '-n',
      'incident',
      '--prometheus',
      url,
      ...week,
      '--endpoints',
      'endpoints',
    ]);
    expect(none.code).toBe(2);
    expect(none.err).toMatch(
      /kube_endpoint_address\{namespace="incident", endpoint="checkout-api"\}\n {2}why: Prometheus has kube_endpoint_address .* but no series for incident\/checkout-api.*not collected by default/s,
    );
    expect(
      (await cli(['verify', 'checkout-api', '-n', 'healthy', '--prometheus', url, ...week, '--endpoints', 'ips'])).err,
    ).toContain('--endpoints = ips');
  });

  test('the controller scraped without honorLabels: verify refuses (exit 2) and names the renamed label, instead of skipping the floor check and passing', async () => {
    // Tuesday in "renamed": a healthy day, every other check passes; rollout_info_replicas_desired
    // is stored as exported_namespace="renamed" under namespace="argo-rollouts"
    const r = await cli([
      'verify',
      'checkout-api',
      '-n',
      'renamed',
      '--prometheus',
      url,
      '--since',
      '2026-11-24T00:00:00Z',
      '--until',
      '2026-11-25T00:00:00Z',
    ]);
    expect(r.code).toBe(2);
    expect(r.out).not.toContain('PASS');
    expect(r.err).toContain('rollwise: rollout_info_replicas_desired{namespace="renamed", name="checkout-api"}');
    expect(r.err).toContain(
      'why: Prometheus holds rollout_info_replicas_desired for renamed/checkout-api only with exported_namespace="renamed" (stored under namespace="argo-rollouts", job="argo-rollouts/argo-rollouts-controller")',
    );
    expect(r.err).toContain('fix: set honorLabels: true on the ServiceMonitor or PodMonitor that scrapes it');
    // the same day scraped with honorLabels ("incident" on Tuesday is the same data with an incident): the floor is checked
    const ok = await cli([
      'verify',
      'checkout-api',
      '-n',
      'healthy',
      '--prometheus',
      url,
      '--since',
      '2026-11-24T00:00:00Z',
      '--until',
      '2026-11-25T00:00:00Z',
    ]);
    expect(ok.out).toMatch(/(PASS|FAIL) ready endpoints \/ desired replicas/);
  });

  test('refuses a window without a peak, and says why', async () => {
    const r = await cli([
      'verify',
      'checkout-api',
      '-n',
      'incident',
      '--prometheus',
      url,
      '--since',
      '2026-11-28T20:00:00Z',
      '--until',
      '2026-11-29T00:00:00Z',
    ]);
    expect(r.out).toMatch(
      /REFUSED: the window has no peak: its busiest hour \(2026-11-28 \d\d:\d\d-\d\d:\d\d UTC, \d+ req\/s\) is below 80 % of the busiest hour of the week up to its end \(2026-11-24 12:00-13:00 UTC, \d+ req\/s\)/,
    );
    expect(r.code).toBe(2);
  });
});

describe('failure modes, each with what is missing and how to get it', () => {
  test('unreachable Prometheus', async () => {
    const port = await freePort();
    const r = await cli([
      'measure',
      'checkout-api',
      '-n',
      'healthy',
      '--prometheus',
      `http://127.0.0.1:${port}`,
      ...WEEK,
      '-o',
      path.join(tmp, 'x.json'),
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(
      `rollwise: Prometheus at http://127.0.0.1:${port}\n  why: cannot be reached (ECONNREFUSED).\n  fix: check the address`,
    );
    expect(fs.existsSync(path.join(tmp, 'x.json'))).toBe(false);
  });

  test('an empty window', async () => {
    const r = await cli([
      'measure',
      'checkout-api',
      '-n',
      'healthy',
      '--prometheus',
      url,
      '--end',
      '2026-12-20T00:00:00Z',
    ]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /the window 2026-12-13 00:00 UTC - 2026-12-20 00:00 UTC\n {2}why: is empty: Prometheus holds envoy_cluster_upstream_rq_total for healthy\/checkout-api, but no sample in this window/,
    );
  });

  test('a service with no series', async () => {
    const r = await cli(['measure', 'payments', '-n', 'healthy', '--prometheus', url, ...WEEK]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(
      /why: Prometheus has envoy_cluster_upstream_rq_total between .* but no series for healthy\/payments/,
    );
  });

  describe("a Prometheus with basic auth and without the kubelet's probe metrics", () => {
    let authed: TestPrometheus | undefined;
    beforeAll(async () => {
      const t0 = Date.UTC(2026, 10, 28) / 1000;
      const lines = ['# TYPE envoy_cluster_upstream_rq counter'];
      for (let i = 0; i <= 180; i++)
        lines.push(
          `envoy_cluster_upstream_rq_total{envoy_cluster_name="httproute/tiny/checkout-api/rule/0"} ${i * 6000} ${t0 + i * 60}`,
        );
      lines.push('# EOF', '');
      authed = await startPrometheus({ openMetrics: lines.join('\n'), basicAuthUsers: { [AUTH.user]: AUTH.hash } });
    });
    afterAll(async () => {
      await authed?.stop();
    });
    const args = () => [
      'measure',
      'checkout-api',
      '-n',
      'tiny',
      '--prometheus',
      authed!.url,
      '--end',
      '2026-11-28T03:00:00Z',
      '--window',
      '3h',
    ];

    test('no credentials, then wrong credentials', async () => {
      const none = await cli(args());
      expect(none.code).toBe(2);
      expect(none.err).toContain(
        'why: refused the request (HTTP 401 Unauthorized): it requires credentials and none were given.',
      );
      const wrong = await cli([...args(), '--user', AUTH.user], { ROLLWISE_PROMETHEUS_PASSWORD: 'not-the-password' });
      expect(wrong.err).toContain(
        'why: refused the request (HTTP 401 Unauthorized): the credentials given were not accepted.',
      );
      expect(wrong.err).toContain('fix: pass --user <name> with the password in $ROLLWISE_PROMETHEUS_PASSWORD');
    });

    test('the right credentials get through, and a metric that does not exist names how to enable it', async () => {
      const r = await cli([...args(), '--user', AUTH.user], { ROLLWISE_PROMETHEUS_PASSWORD: AUTH.password });
      expect(r.code).toBe(2);
      expect(r.err).toMatch(
        /rollwise: prober_probe_duration_seconds_bucket\n {2}why: Prometheus has no prober_probe_duration_seconds_bucket series at all between .*: nothing scrapes the kubelet's readiness probe durations/,
      );
      expect(r.err).toContain("fix: scrape the kubelet's /metrics/probes endpoint");
    });
  });
});
