/**
 * What both rehearsals used to miss, rehearsed on the real Prometheus (promtool backfill + server):
 * a 56-character service (pods named as the API server names them, found by owner), quiet
 * environments (the example's dev and every environment `rollwise init` writes), a one-burst
 * release both ways (a 1-minute blip promotes, a sustained 2 % aborts), a canary pod that leaves
 * Ready in the first minute of a run whose ratios look back 5 minutes, and one that leaves Ready
 * before it is first available (minReadySeconds 30 and 120).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Duration } from 'cdk8s';
import * as ts from 'typescript';
import * as rollwise from '../../src';
import { initFiles } from '../../src/cli/init';
import { failureLimitFor } from '../../src/decisions/analysis';
import { podName, replicaSetName } from '../../src/decisions/generated-names';
import {
  buildWorld,
  evaluateInstant,
  readRolloutObjects,
  readRollouts,
  rehearseOnPrometheus,
  releaseById,
  runLoopSync,
  type Rehearsal,
  type Release,
  type ReleaseResult,
  type RolloutModel,
} from '../../src/rehearse';
import { synthService } from '../support/manifests';

const ROOT = path.join(__dirname, '..', '..');
const LONG = 'customer-notification-preferences-synchronization-api-v2';
const read = (f: string) => ({ file: f, text: fs.readFileSync(f, 'utf8') });

/** Synthesizes what `rollwise init` writes (main.ts and platform.ts, compiled as the scaffold's tsconfig does) against this rollwise. */
function initEnvironments(service: string): RolloutModel[] {
  const files = initFiles(service);
  const modules: Record<string, unknown> = { rollwise };
  const load = (name: string): unknown => {
    if (name in modules) return modules[name];
    const src = files[`${name.replace(/^\.\//, '')}.ts`];
    if (src === undefined) return require(name); // eslint-disable-line @typescript-eslint/no-require-imports -- the scaffold's own imports (cdk8s), resolved at run time
    const js = ts.transpileModule(src, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2020 },
    }).outputText;
    const mod = { exports: {} as Record<string, unknown> };
    new Function('exports', 'require', 'module', js)(mod.exports, load, mod); // the scaffold's own module text, compiled above
    modules[name] = mod.exports;
    return mod.exports;
  };
  const main = load('./main') as { buildApp: (outdir: string) => { synth(): void } };
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-init-rehearse-'));
  try {
    main.buildApp(out).synth();
    return ['dev', 'prod'].flatMap((env) => readRollouts([read(path.join(out, env, `${service}.k8s.yaml`))]));
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

const long = readRolloutObjects(synthService({}, LONG))[0];
const dev = readRollouts([read(path.join(ROOT, 'dist', 'dev', 'checkout-api.k8s.yaml'))])[0];
const prod = readRollouts([read(path.join(ROOT, 'dist', 'prod', 'checkout-api.k8s.yaml'))])[0];
// 20 req/s: 25 % over 5-minute windows, so the ratios' first measurement comes 5 minutes into the run
const quiet = readRolloutObjects(
  synthService({ replicas: 3, capacity: { peakRequestsPerSecond: 20, saturationRequestsPerSecondPerReplica: 450 } }),
)[0];
const init = initEnvironments('orders-api');
// minReadySeconds 120 accepted by override: a canary pod that leaves Ready right after its first
// Ready is available, and the run starts, 30 + 120 s after its departure
const slowReady = readRolloutObjects(
  synthService({
    overrides: {
      minReadySeconds: { value: Duration.seconds(120), because: 'a cache warm-up measured at 2 minutes after Ready' },
    },
  }),
)[0];

let rehearsals: Rehearsal[];
beforeAll(async () => {
  rehearsals = await rehearseOnPrometheus([long, dev, ...init, prod, quiet, slowReady], {});
}, 240_000);
const of = (m: RolloutModel) => rehearsals.find((r) => r.rollout === m) as Rehearsal;
const byId = (m: RolloutModel, id: string): ReleaseResult =>
  of(m).results.find((x) => x.release.id === id) as ReleaseResult;
const misses = (m: RolloutModel) =>
  of(m)
    .results.filter((x) => !x.met)
    .map((x) => `${x.release.id}: ${x.sentence}`);

describe('a 56-character canary service', () => {
  test('its pods are named as the API server names them (one character of the hash left) and carry kube_pod_owner', () => {
    const rs = replicaSetName(LONG, long.canaryHash);
    const w = byId(long, 'healthy').world;
    const pods = w.series
      .filter((s) => s.name === 'kube_pod_owner' && s.labels.owner_name === rs)
      .map((s) => s.labels.pod);
    expect(pods.length).toBe(12);
    for (const p of pods) {
      expect(p.length).toBe(63);
      expect(p.startsWith(`${LONG}-${long.canaryHash[0]}`)).toBe(true);
      expect(p).not.toContain(long.canaryHash);
    }
    expect(pods[0]).toBe(podName(rs, p5(pods[0])));
  });

  test('every release behaves as expected: healthy promotes, bad ones abort at 5 %, a flapping canary is caught by owner', () => {
    expect(misses(long)).toEqual([]);
    expect(byId(long, 'healthy').sentence).toMatch(/^promoted after \d+ min$/);
    expect(byId(long, 'canary-flaps').verdict).toMatchObject({
      outcome: 'aborted',
      weight: 5,
      metric: 'canary-readiness-departures',
    });
    // the departures were measured, not inconclusive: the owner join found the canary's pods
    expect(
      byId(long, 'healthy')
        .verdict.measurements.filter((m) => m.metric === 'canary-readiness-departures')
        .every((m) => m.value === '[0]'),
    ).toBe(true);
  });
});

describe('quiet environments promote', () => {
  test("the example's dev environment (2 replicas at its declared 40 req/s) promotes a healthy release and aborts bad ones at its first weight", () => {
    expect(dev.peakRps).toBe(40);
    expect(misses(dev)).toEqual([]);
    expect(byId(dev, 'healthy').verdict.outcome).toBe('promoted');
    expect(byId(dev, 'canary-5xx-2').verdict).toMatchObject({ outcome: 'aborted', weight: 10 });
  });

  test('every environment rollwise init writes promotes a healthy release in the rehearsal', () => {
    expect(init.map((m) => m.namespace)).toEqual(['orders-api-dev', 'orders-api']);
    for (const m of init) {
      expect(misses(m)).toEqual([]);
      expect(byId(m, 'healthy').verdict.outcome).toBe('promoted');
    }
  });
});

describe('one burst, both ways (docs/mechanisms.md#one-burst-and-the-limits)', () => {
  test('a 1-minute blip of 100 % errors promotes; a sustained 2 % aborts at the first weight', () => {
    const blip = byId(prod, 'canary-blip');
    expect(blip.verdict.outcome).toBe('promoted');
    const failed = blip.verdict.measurements.filter(
      (m) => m.metric === 'canary-error-ratio' && m.phase === 'Failed',
    ).length;
    expect(failed).toBeGreaterThan(0);
    expect(failed).toBeLessThanOrEqual(failureLimitFor(120));
    const two = byId(prod, 'canary-5xx-2');
    expect(two.verdict).toMatchObject({ outcome: 'aborted', weight: 5, metric: 'canary-error-ratio' });
    // the abort the reason states: failureLimit 3, so the 4th failed measurement, 2 + 3 minutes into the run
    const fails = two.verdict.measurements.filter((m) => m.metric === 'canary-error-ratio' && m.phase === 'Failed');
    expect(fails.length).toBe(4);
    expect(fails[3].t - (two.world.backgroundStart ?? 0)).toBe(300);
  });

  test('wherever the blip falls, it fails at most 3 measurements of 2-minute windows, and somewhere exactly 3: failureLimit 3 is the bound, 2 would abort', () => {
    // A canary that already answered the odd 5xx (0.1 %), so its class-5 counter exists before the
    // blip: on a counter the blip creates, rate() cannot see the first increment and the blip fails
    // one measurement fewer (docs/mechanisms.md#counters-created-at-first-use).
    const counts: number[] = [];
    for (let offset = 60; offset <= 240; offset += 10) {
      const release: Release = {
        ...releaseById('canary-blip'),
        id: `blip-${offset}`,
        canaryErrorRatio: 0.001,
        burst: { afterFirstTrafficSeconds: offset, seconds: 60, errorRatio: 1 },
      };
      const world = buildWorld(prod, release);
      const v = runLoopSync(world, prod, (q) => evaluateInstant(q.query, world.series, q.t));
      expect(v.outcome).toBe('promoted');
      counts.push(v.measurements.filter((m) => m.metric === 'canary-error-ratio' && m.phase === 'Failed').length);
    }
    expect(Math.max(...counts)).toBe(failureLimitFor(120));
  });
});

describe('a canary pod that leaves Ready in the first minute of the first step', () => {
  test("aborts the release, also when the ratios' first full window ends 5 minutes in", () => {
    expect(quiet.background?.metrics.find((m) => m.name === 'canary-error-ratio')?.initialDelaySeconds).toBe(300);
    const r = byId(quiet, 'canary-leaves-ready-once');
    expect(r.verdict).toMatchObject({ outcome: 'aborted', weight: 25, metric: 'canary-readiness-departures' });
    expect(r.verdict.t - (r.world.backgroundStart ?? 0)).toBe(60);
    expect(misses(quiet)).toEqual([]);
  });
});

describe('a canary pod that leaves Ready before it is first available (docs/mechanisms.md#one-burst-and-the-limits)', () => {
  test("canary-leaves-ready-once (failing from the first probe after Ready) aborts at the first weight, at the run's first departure count, with minReadySeconds 30 and 120", () => {
    expect(slowReady.minReadySeconds).toBe(120);
    for (const m of [prod, slowReady]) {
      const r = byId(m, 'canary-leaves-ready-once');
      expect(r.verdict).toMatchObject({ outcome: 'aborted', weight: 5, metric: 'canary-readiness-departures' });
      expect(r.verdict.t - (r.world.backgroundStart ?? 0)).toBe(60);
      expect(misses(m)).toEqual([]);
    }
  });

  test('wherever in its first 75 s of Ready a canary pod leaves, before or after it is available, the rollout aborts at the first weight (in-process, 5 s steps)', () => {
    for (const m of [prod, slowReady]) {
      const missed: string[] = [];
      for (let after = 0; after <= 75; after += 5) {
        const release: Release = {
          ...releaseById('canary-leaves-ready-once'),
          id: `leave-once-${after}`,
          failReadinessOnceAfterReadySeconds: after,
        };
        const world = buildWorld(m, release);
        const v = runLoopSync(world, m, (q) => evaluateInstant(q.query, world.series, q.t));
        if (!(v.outcome === 'aborted' && v.weight === 5 && v.metric === 'canary-readiness-departures'))
          missed.push(`${release.id}: ${v.outcome} at ${v.weight} % (${v.metric ?? v.reason})`);
      }
      expect([m.minReadySeconds, missed]).toEqual([m.minReadySeconds, []]);
    }
  });
});

/** The 5 generated characters of a pod name. */
function p5(pod: string): string {
  return pod.slice(-5);
}
