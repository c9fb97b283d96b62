import { execFileSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, App, Chart } from 'cdk8s';
import * as YAML from 'yaml';
import { AppServer } from '../src/decisions/keep-alive';
import { examplePlatform } from '../src/example';
import { HttpService, HttpServiceProps } from '../src/constructs/http-service';
import { synthesize } from '../src/synth/synth';
import { Delivery } from '../src/decisions/canary';
import { setSynthRehearsalForBench, synthRehearsalCounts } from '../src/rehearse/synth-check';
import { writeYaml } from '../src/synth/yaml-writer';
import { median } from './stats';

/**
 * Synth benchmark: generated estates of N services, each an HttpService in its own chart, measured
 * side by side, each measurement in its own child process (so peak RSS is that measurement's own
 * high-water mark), rounds interleaved (the order of the modes alternates) and medians reported:
 * - rollwise: `synthesize()` (linear synth, justification comments, temp folder + swap) of the
 *   golden-path estate: every service declares its capacity, so synth rehearses every canary;
 * - rollwise-no-rehearsal: the same estate with the synth-time rehearsal switched off (what the
 *   rehearsal costs, alone);
 * - rollwise-no-capacity: the same services without capacity figures, promoted by hand
 *   (`Delivery.canary({ manualPromotion })`, the only canary synth accepts without them): no
 *   rehearsal and no drain simulation;
 * - rollwise-distinct (first size only): every service its own traffic figure, so no two services
 *   share a rehearsal (the cost of the evaluation itself);
 * - rollwise-no-comments (first size only): without the comment pass (the bytes App.synth() writes);
 * - App.synth(): cdk8s on the golden-path construct tree (no comments);
 * - rollwise-package-yaml (first size only): rollwise with its own YAML writer off (the child runs
 *   with ROLLWISE_BENCH_NO_OWN_YAML): every object, comments included, written by the yaml package;
 * - floor: the golden-path estate's plain objects (computed beforehand, outside the timing, then
 *   the construct tree is dropped) serialized with the `yaml` package (cdk8s' options) and written
 *   one file per chart, nothing else: the serialization floor the targets are measured against;
 * - floor-own-writer (first size only): the same, written by synth's own writer
 *   (src/synth/yaml-writer.ts, the same bytes): reported beside the targets, not one of them.
 * The construct tree is rebuilt for every measurement; building it is timed separately and is not
 * part of the synth time. Peak RSS covers the whole child (build + synth).
 *
 * Environment: ROLLWISE_BENCH_SIZES (default "1000,3000"), ROLLWISE_BENCH_CDK8S_SIZES (sizes at
 * which App.synth() is measured; default: the same), ROLLWISE_BENCH_REPS (rounds at the first size,
 * default 3), ROLLWISE_BENCH_LARGE_REPS (rounds at the other sizes, default 1),
 * ROLLWISE_BENCH_NODE_FLAGS (V8 flags for every child alike, e.g. "--initial-old-space-size=1024";
 * default none: node's defaults, as users run it).
 */

const platform = examplePlatform('prod');

/**
 * Traffic classes of the golden-path estate (peak req/s): services of one class with the same
 * replicas and the same analysis share one rehearsal (src/rehearse/synth-check.ts), as a real
 * estate's services made from one template with the same figures do.
 */
export const TRAFFIC_CLASSES = [250, 400, 800, 1500, 2400, 3700, 6000, 9000];
const SATURATION_RPS = 450;

/** Which estate: the golden path (capacity in traffic classes), no capacity, or every service its own traffic. */
export type Estate = 'capacity' | 'no-capacity' | 'distinct';

/**
 * What a service in the generated estate looks like: the required props, a route and the shared
 * platform, so each emits the full canary set (Rollout, two Services, HTTPRoute, two
 * AnalysisTemplates, PDB, BackendTrafficPolicy, PrometheusRule, and the runbook file). With
 * capacity (the golden path), replicas keep 80 % of saturation with one pod drained, plus one.
 */
export function serviceProps(i: number, estate: Estate = 'capacity'): HttpServiceProps {
  const base = {
    image: `registry.example.com/svc-${i}:1.0.0`,
    port: 8080,
    health: { readinessPath: '/healthz' },
    resources: { cpu: '250m', memory: '256Mi' },
    appServer: AppServer.uvicorn(),
    route: { hostnames: [`svc-${i}.example.com`] },
    platform,
  };
  if (estate === 'no-capacity') {
    return {
      ...base,
      replicas: 3,
      delivery: Delivery.canary({
        manualPromotion: { because: 'bench estate without capacity figures: a person promotes each release' },
      }),
    };
  }
  const peak = TRAFFIC_CLASSES[i % TRAFFIC_CLASSES.length] + (estate === 'distinct' ? i : 0);
  return {
    ...base,
    replicas: Math.max(3, Math.ceil(peak / (0.8 * SATURATION_RPS)) + 2),
    capacity: { peakRequestsPerSecond: peak, saturationRequestsPerSecondPerReplica: SATURATION_RPS },
  };
}

/** An estate of `n` services, one chart each (chart id = service name = `svc-<i>`). */
export function buildEstate(n: number, outdir?: string, estate: Estate = 'capacity'): App {
  const app = new App({ outdir });
  for (let i = 0; i < n; i++) {
    const name = `svc-${String(i).padStart(4, '0')}`;
    new HttpService(new Chart(app, name, { namespace: `team-${i % 20}` }), name, serviceProps(i, estate));
  }
  return app;
}

type Mode =
  | 'rollwise'
  | 'rollwise-no-rehearsal'
  | 'rollwise-no-capacity'
  | 'rollwise-distinct'
  | 'rollwise-no-comments'
  | 'rollwise-package-yaml'
  | 'cdk8s'
  | 'floor'
  | 'floor-own-writer';

/** Modes whose child runs with ROLLWISE_BENCH_NO_OWN_YAML set: synth's own YAML writer off, every object written by the yaml package. */
const PACKAGE_YAML: ReadonlySet<Mode> = new Set(['rollwise-package-yaml']);
const childEnv = (mode: Mode): NodeJS.ProcessEnv =>
  PACKAGE_YAML.has(mode) ? { ...process.env, ROLLWISE_BENCH_NO_OWN_YAML: '1' } : process.env;

const ESTATE: Record<Mode, Estate> = {
  rollwise: 'capacity',
  'rollwise-no-rehearsal': 'capacity',
  'rollwise-no-capacity': 'no-capacity',
  'rollwise-distinct': 'distinct',
  'rollwise-no-comments': 'capacity',
  'rollwise-package-yaml': 'capacity',
  cdk8s: 'capacity',
  floor: 'capacity',
  'floor-own-writer': 'capacity',
};

interface Sample {
  readonly mode: Mode;
  readonly services: number;
  readonly buildMs: number;
  readonly synthMs: number;
  /** CPU time (user + system, all threads of the child) of the synth step. */
  readonly synthCpuMs: number;
  readonly files: number;
  readonly bytes: number;
  readonly objects: number;
  readonly maxRssMb: number;
  /** Canary rehearsals synth ran, and services that shared one already run. */
  readonly rehearsals: { readonly run: number; readonly shared: number };
}

function dirSize(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.isFile()) {
      files++;
      bytes += fs.statSync(path.join(dir, e.name)).size;
    }
  }
  return { files, bytes };
}

/** One chart's plain objects, as the floor writes them. */
export interface FloorChart {
  readonly name: string;
  readonly objects: unknown[];
}

/**
 * The floor's input: every chart's plain objects (`toJson()` of its ApiObjects), computed before the
 * timing so that the construct tree can be dropped and the floor holds only the plain objects.
 */
export function floorCharts(app: App): FloorChart[] {
  return app.node.children
    .filter((c): c is Chart => c instanceof Chart)
    .map((chart) => ({
      name: chart.node.id,
      objects: chart.node
        .findAll()
        .filter((c): c is ApiObject => c instanceof ApiObject)
        .map((o) => o.toJson() as unknown),
    }));
}

/**
 * The serialization floor (serialize + write, nothing else): one file per chart, each object with
 * the yaml package as cdk8s' Yaml.stringify calls it, or (`ownWriter`) with synth's own writer
 * (src/synth/yaml-writer.ts, the same bytes) and the package where it does not model an object.
 */
export function writeFloor(charts: readonly FloorChart[], outdir: string, ownWriter: boolean): void {
  fs.mkdirSync(outdir, { recursive: true });
  for (const c of charts) {
    const text = c.objects
      .map(
        (o) =>
          (ownWriter ? writeYaml(o) : undefined) ??
          YAML.stringify(o, { keepUndefined: true, lineWidth: 0, version: '1.1' }),
      )
      .join('---\n');
    fs.writeFileSync(path.join(outdir, `${c.name}.k8s.yaml`), text);
  }
}

/** Runs one measurement in this process (the child). */
function measure(mode: Mode, n: number, work: string): Sample {
  const outdir = path.join(work, `${mode}-${n}`);
  const gc = () => (global as { gc?: () => void }).gc?.();
  if (mode === 'rollwise-no-rehearsal') setSynthRehearsalForBench(false);
  const t0 = process.hrtime.bigint();
  let app: App | undefined = buildEstate(n, outdir, ESTATE[mode]);
  const buildMs = Number(process.hrtime.bigint() - t0) / 1e6;
  // for the parent's CPU cap (runCapped): this process's CPU time so far, before the timed step
  if (mode === 'cdk8s') {
    const c = process.cpuUsage();
    process.stdout.write(`${JSON.stringify({ builtCpuMs: (c.user + c.system) / 1000 })}\n`);
  }
  const objects = app.node.findAll().filter((c) => c instanceof ApiObject).length;
  let synthMs: number;
  let cpu0: NodeJS.CpuUsage;
  if (mode === 'floor' || mode === 'floor-own-writer') {
    // The same plain objects, computed outside the timing; the construct tree is then dropped so
    // the floor holds only the plain objects (the floor is serialize + write, nothing else).
    const perChart = floorCharts(app);
    app = undefined;
    gc();
    cpu0 = process.cpuUsage();
    const t1 = process.hrtime.bigint();
    writeFloor(perChart, outdir, mode === 'floor-own-writer');
    synthMs = Number(process.hrtime.bigint() - t1) / 1e6;
  } else {
    gc();
    cpu0 = process.cpuUsage();
    const t1 = process.hrtime.bigint();
    const built = app;
    if (mode === 'cdk8s') built.synth();
    else synthesize(() => built, { outdir, progress: () => undefined, comments: mode !== 'rollwise-no-comments' });
    synthMs = Number(process.hrtime.bigint() - t1) / 1e6;
  }
  const cpu = process.cpuUsage(cpu0);
  const synthCpuMs = (cpu.user + cpu.system) / 1000;
  const size = dirSize(outdir);
  fs.rmSync(outdir, { recursive: true, force: true });
  return {
    mode,
    services: n,
    buildMs,
    synthMs,
    synthCpuMs,
    objects,
    ...size,
    maxRssMb: process.resourceUsage().maxRSS / 1024,
    rehearsals: synthRehearsalCounts(),
  };
}

const NODE_FLAGS = (process.env.ROLLWISE_BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);

/** App.synth() is stopped after this many times rollwise's CPU time at the same size (then its ratio is below 1 / CAP_FACTOR). */
const CAP_FACTOR = 3;

function runChild(mode: Mode, n: number, work: string): Sample {
  const out = execFileSync(
    process.execPath,
    ['--expose-gc', ...NODE_FLAGS, __filename, '--child', mode, String(n), work],
    { encoding: 'utf8', maxBuffer: 1 << 20, stdio: ['ignore', 'pipe', 'inherit'], env: childEnv(mode) },
  );
  return JSON.parse(out.trim().split('\n').pop()!) as Sample;
}

/**
 * The user and system CPU time in a /proc stat file (a process's, or a thread's under
 * /proc/<pid>/task), in ms: fields 14 and 15, utime and stime, in clock ticks (Linux; USER_HZ 100).
 * Undefined when the process or thread is gone.
 */
export function procStatCpuMs(statFile: string): { user: number; sys: number } | undefined {
  try {
    const stat = fs.readFileSync(statFile, 'utf8');
    // the name (field 2) is in parentheses and may hold spaces: count from the last ")"
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { user: (Number(f[11]) * 1000) / 100, sys: (Number(f[12]) * 1000) / 100 };
  } catch {
    return undefined;
  }
}

/** A child's CPU time (user + system, every thread) from /proc, in ms. */
function procCpuMs(pid: number): number | undefined {
  const t = procStatCpuMs(`/proc/${pid}/stat`);
  return t && t.user + t.sys;
}

/**
 * One measurement whose synth step is stopped once it has used `capMs` of CPU (App.synth() at
 * these sizes: cdk8s validates the whole app once per chart, and every HttpService re-renders and
 * re-checks its objects at each validation, so its time grows with the square of the estate). A
 * stopped run is reported with the CPU it had used when stopped: a lower bound.
 */
async function runCapped(mode: Mode, n: number, work: string, capMs: number): Promise<Sample & { stopped?: boolean }> {
  const child = spawn(process.execPath, ['--expose-gc', ...NODE_FLAGS, __filename, '--child', mode, String(n), work], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  let builtCpuMs: number | undefined;
  let stoppedAt: number | undefined;
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString('utf8');
    const m = /\{"builtCpuMs":([\d.]+)\}/.exec(out);
    if (m && builtCpuMs === undefined) builtCpuMs = Number(m[1]);
  });
  const timer = setInterval(() => {
    const used = procCpuMs(child.pid!);
    if (builtCpuMs === undefined || used === undefined) return;
    if (used - builtCpuMs > capMs) {
      stoppedAt = used - builtCpuMs;
      child.kill('SIGKILL');
    }
  }, 250);
  const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
  clearInterval(timer);
  fs.rmSync(path.join(work, `${mode}-${n}`), { recursive: true, force: true });
  if (stoppedAt !== undefined) {
    return {
      mode,
      services: n,
      buildMs: NaN,
      synthMs: NaN,
      synthCpuMs: stoppedAt,
      files: NaN,
      bytes: NaN,
      objects: n * 9,
      maxRssMb: NaN,
      rehearsals: { run: NaN, shared: NaN },
      stopped: true,
    };
  }
  if (code !== 0) throw new Error(`bench child ${mode} ${n} exited with ${code}`);
  return JSON.parse(out.trim().split('\n').pop()!) as Sample;
}

const s = (ms: number) => (ms / 1000).toFixed(2);
const NAME: Record<Mode, string> = {
  rollwise: 'rollwise (capacity: rehearsed)',
  'rollwise-no-rehearsal': 'rollwise, rehearsal off',
  'rollwise-no-capacity': 'rollwise, no capacity (manual promotion)',
  'rollwise-distinct': 'rollwise, every service its own traffic',
  'rollwise-no-comments': 'rollwise, no comments',
  'rollwise-package-yaml': 'rollwise, yaml package writer (own writer off)',
  cdk8s: 'App.synth()',
  floor: 'floor (yaml package)',
  'floor-own-writer': 'floor (own writer)',
};

/** The median sample of a mode at a size: the median of each figure across the rounds. */
function medianSample(xs: readonly Sample[]): Sample {
  if (xs.length === 1) return xs[0];
  const m = (f: (x: Sample) => number) => median(xs.map(f));
  return {
    ...xs[0],
    buildMs: m((x) => x.buildMs),
    synthMs: m((x) => x.synthMs),
    synthCpuMs: m((x) => x.synthCpuMs),
    maxRssMb: m((x) => x.maxRssMb),
  };
}

/** A ratio against a target: the figure and "met" / "NOT met". */
export function verdict(what: string, value: number | undefined, limit: number): string {
  if (value === undefined || !Number.isFinite(value)) return `- ${what}: not measured (at most ${limit})`;
  return `- ${what}: ${value.toFixed(2)} (at most ${limit}): ${value <= limit ? 'met' : 'NOT met'}`;
}

/** Runs the benchmark and returns a markdown table, the ratios and the targets. */
export async function benchSynth(log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<string> {
  const sizes = (process.env.ROLLWISE_BENCH_SIZES ?? '1000,3000').split(',').map(Number);
  const cdk8sSizes = new Set(
    (process.env.ROLLWISE_BENCH_CDK8S_SIZES ?? sizes.join(',')).split(',').filter(Boolean).map(Number),
  );
  const reps = Number(process.env.ROLLWISE_BENCH_REPS ?? 3);
  const largeReps = Number(process.env.ROLLWISE_BENCH_LARGE_REPS ?? 1);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-bench-'));
  const raw: Sample[] = [];
  const loads: number[] = [];
  try {
    for (const [k, n] of sizes.entries()) {
      const modes: Mode[] = [
        'floor',
        'rollwise',
        'rollwise-no-rehearsal',
        'rollwise-no-capacity',
        ...(k === 0
          ? (['rollwise-distinct', 'rollwise-no-comments', 'rollwise-package-yaml', 'floor-own-writer'] as Mode[])
          : []),
      ];
      const rounds = k === 0 ? reps : largeReps;
      for (let r = 0; r < rounds; r++) {
        // Alternate the order each round so that no mode always runs first (or last) on the machine.
        for (const mode of r % 2 ? [...modes].reverse() : modes) {
          log(`bench synth: ${NAME[mode]} at ${n} services (round ${r + 1}/${rounds}) ...`);
          const x = runChild(mode, n, work);
          loads.push(os.loadavg()[0]);
          log(
            `  synth ${s(x.synthMs)} s (CPU ${s(x.synthCpuMs)} s), build ${s(x.buildMs)} s, peak RSS ${x.maxRssMb.toFixed(0)} MiB, rehearsals run ${x.rehearsals.run}, shared ${x.rehearsals.shared}`,
          );
          raw.push(x);
        }
      }
      if (cdk8sSizes.has(n)) {
        // App.synth() once, after the rounds, stopped at CAP_FACTOR x rollwise's median CPU here
        const mine = median(raw.filter((x) => x.mode === 'rollwise' && x.services === n).map((x) => x.synthCpuMs));
        const cap = CAP_FACTOR * mine;
        log(`bench synth: App.synth() at ${n} services (stopped after ${s(cap)} s of CPU) ...`);
        const x = await runCapped('cdk8s', n, work, cap);
        loads.push(os.loadavg()[0]);
        log(
          x.stopped
            ? `  stopped after ${s(x.synthCpuMs)} s of CPU`
            : `  synth ${s(x.synthMs)} s (CPU ${s(x.synthCpuMs)} s), build ${s(x.buildMs)} s, peak RSS ${x.maxRssMb.toFixed(0)} MiB`,
        );
        raw.push(x);
      }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  const samples: Sample[] = [];
  for (const n of sizes) {
    for (const mode of Object.keys(NAME) as Mode[]) {
      const xs = raw.filter((x) => x.mode === mode && x.services === n);
      if (xs.length) samples.push({ ...medianSample(xs), rounds: xs.length } as Sample);
    }
  }
  const get = (mode: Mode, n: number) => samples.find((x) => x.mode === mode && x.services === n);
  const stopped = (x: Sample | undefined) => (x as { stopped?: boolean } | undefined)?.stopped === true;
  // against a stopped App.synth() a ratio is an upper bound ("< r")
  const ratio = (a: number, b: Sample | undefined, f: (x: Sample) => number) =>
    !b ? 'n/a' : stopped(b) ? (f === cpuOf ? `< ${(a / f(b)).toFixed(2)}x` : 'n/a') : `${(a / f(b)).toFixed(2)}x`;
  const cpuOf = (x: Sample) => x.synthCpuMs;
  const wallOf = (x: Sample) => x.synthMs;
  const num = (v: number, f: (v: number) => string) => (Number.isFinite(v) ? f(v) : '-');
  const rows = samples.map((x) => {
    const floor = get('floor', x.services)!;
    const cdk8s = get('cdk8s', x.services);
    if (stopped(x))
      return `| ${x.services} | ${NAME[x.mode]} | 1 | ${x.objects} | - | - | - | - | - | stopped after ${s(x.synthCpuMs)} | > ${(x.synthCpuMs / floor.synthCpuMs).toFixed(2)}x | - | - | - | - |`;
    return `| ${x.services} | ${NAME[x.mode]} | ${(x as Sample & { rounds: number }).rounds} | ${x.objects} | ${x.files} | ${(x.bytes / 1e6).toFixed(1)} | ${x.rehearsals.run} / ${x.rehearsals.shared} | ${s(x.buildMs)} | ${s(x.synthMs)} | ${s(x.synthCpuMs)} | ${ratio(x.synthCpuMs, floor, cpuOf)} | ${ratio(x.synthCpuMs, cdk8s, cpuOf)} | ${ratio(x.synthMs, floor, wallOf)} | ${ratio(x.synthMs, cdk8s, wallOf)} | ${num(x.maxRssMb, (v) => v.toFixed(0))} |`;
  });
  const load = loads.length ? `${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}` : 'n/a';
  const lines = [
    `machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, load average (1 min) during the run ${load}; node ${process.version} ${NODE_FLAGS.join(' ') || '(default flags)'} in every child. Medians of the rounds (CPU and wall separately). rollwise serializes on worker threads, so its CPU time adds up the threads: CPU-time ratios are the work done, wall-time ratios the time a user waits (on a shared machine wall time also includes waiting for a core).`,
    '',
    '| services | synth | rounds | objects | files | MB written | rehearsals run / shared | build s (excluded) | synth wall s | synth CPU s | CPU vs floor | CPU vs App.synth() | wall vs floor | wall vs App.synth() | peak RSS MiB |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ];
  const cpu = (mode: Mode, n: number) => get(mode, n)?.synthCpuMs;
  const div = (a: number | undefined, b: number | undefined) =>
    a === undefined || b === undefined ? undefined : a / b;
  const [a, b] = [sizes[0], sizes[sizes.length - 1]];
  lines.push('');
  lines.push(
    `rollwise, rehearsal's share at ${a}: CPU with / without rehearsal = ${div(cpu('rollwise', a), cpu('rollwise-no-rehearsal', a))?.toFixed(2) ?? 'n/a'}; every service its own traffic / rehearsal off = ${div(cpu('rollwise-distinct', a), cpu('rollwise-no-rehearsal', a))?.toFixed(2) ?? 'n/a'}.`,
  );
  if (sizes.length >= 2) {
    for (const mode of ['rollwise', 'floor'] as Mode[]) {
      const x = get(mode, a);
      const y = get(mode, b);
      if (x && y)
        lines.push(
          `${NAME[mode]}: time(${b}) / time(${a}) = ${(y.synthCpuMs / x.synthCpuMs).toFixed(2)} (CPU), ${(y.synthMs / x.synthMs).toFixed(2)} (wall)`,
        );
    }
  }
  lines.push('', 'Targets (CPU time):');
  lines.push(
    verdict(
      `synth of ${a} canary services with capacity / the same estate without capacity`,
      div(cpu('rollwise', a), cpu('rollwise-no-capacity', a)),
      1.2,
    ),
  );
  lines.push(
    verdict(
      `synth of ${a} canary services with capacity / the serialization floor (the yaml package, as the issue defines it)`,
      div(cpu('rollwise', a), cpu('floor', a)),
      1.6,
    ),
  );
  const own = div(cpu('rollwise', a), cpu('floor-own-writer', a));
  if (own !== undefined)
    lines.push(
      `  the same against the own-writer floor (the plain objects written by src/synth/yaml-writer.ts, not a target): ${own.toFixed(2)}`,
    );
  const pkg = div(cpu('rollwise-package-yaml', a), cpu('floor', a));
  if (pkg !== undefined) {
    lines.push(
      `  without the own writer (every object by the yaml package, comments included) / the yaml package floor: ${pkg.toFixed(2)} (${pkg <= 1.6 ? 'would be met' : 'would NOT be met'} without it)`,
    );
    lines.push(
      `  the own writer's share: rollwise with the yaml package writer / with the own writer = ${div(cpu('rollwise-package-yaml', a), cpu('rollwise', a))!.toFixed(2)}`,
    );
  }
  if (sizes.length >= 2) {
    const c = get('cdk8s', b);
    const r = div(cpu('rollwise', b), cpu('cdk8s', b));
    lines.push(
      stopped(c)
        ? `${verdict(`synth at ${b} services / App.synth()`, r, 0.4)} (an upper bound: App.synth() was stopped after ${s(c!.synthCpuMs)} s of CPU, ${CAP_FACTOR}x rollwise's, unfinished)`
        : verdict(`synth at ${b} services / App.synth()`, r, 0.4),
    );
    lines.push(verdict(`synth time(${b}) / time(${a})`, div(cpu('rollwise', b), cpu('rollwise', a)), 3.3));
  }
  for (const n of sizes) {
    const c = get('cdk8s', n);
    if (stopped(c))
      lines.push(
        `App.synth() at ${n} services did not finish: stopped after ${s(c!.synthCpuMs)} s of CPU (${CAP_FACTOR}x rollwise's). It validates the whole app once per chart, and each HttpService re-renders and re-checks its objects at every validation: its CPU time grows with the square of the estate.`,
      );
  }
  return lines.join('\n');
}

if (require.main === module) {
  const args = process.argv.slice(2);
  if (args[0] === '--child') {
    process.stdout.write(`${JSON.stringify(measure(args[1] as Mode, Number(args[2]), args[3]))}\n`);
  } else {
    benchSynth().then(
      (table) => process.stdout.write(`${table}\n`),
      (e) => {
        process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
        process.exitCode = 1;
      },
    );
  }
}
