import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, App, Chart } from 'cdk8s';
import * as YAML from 'yaml';
import { AppServer } from '../src/decisions/keep-alive';
import { examplePlatform } from '../src/example';
import { HttpService, HttpServiceProps } from '../src/constructs/http-service';
import { synthesize } from '../src/synth/synth';

/**
 * Synth benchmark: generated estates of N services, each an HttpService with default props in its
 * own chart, measured side by side, each measurement in its own child process (so peak RSS is
 * that measurement's own high-water mark):
 * - rollwise: `synthesize()` (linear synth, justification comments, temp folder + swap);
 * - rollwise-no-comments: the same without the comment pass (the bytes App.synth() writes);
 * - App.synth(): cdk8s on the same construct tree (no comments);
 * - floor: the same plain objects (computed beforehand, outside the timing, then the construct
 *   tree is dropped) serialized with the `yaml` package (cdk8s' options) and written one file per
 *   chart, nothing else.
 * The construct tree is rebuilt for every measurement; building it is timed separately and is not
 * part of the synth time. Peak RSS covers the whole child (build + synth).
 *
 * Environment: ROLLWISE_BENCH_SIZES (default "1000,3000"), ROLLWISE_BENCH_CDK8S_SIZES (sizes at
 * which App.synth() is measured; default: the same), ROLLWISE_BENCH_NODE_FLAGS (V8 flags for every
 * child alike, e.g. "--initial-old-space-size=1024"; default none: node's defaults, as users run it).
 */

const platform = examplePlatform('prod');

/**
 * What a service in the generated estate looks like: the required props, a route and the shared
 * platform, so each emits the full canary set (Rollout, two Services, HTTPRoute, two
 * AnalysisTemplates, PDB, BackendTrafficPolicy, PrometheusRule, and the runbook file).
 */
export function defaultServiceProps(i: number): HttpServiceProps {
  return {
    image: `registry.example.com/svc-${i}:1.0.0`,
    port: 8080,
    replicas: 3,
    health: { readinessPath: '/healthz' },
    resources: { cpu: '250m', memory: '256Mi' },
    appServer: AppServer.uvicorn(),
    route: { hostnames: [`svc-${i}.example.com`] },
    platform,
  };
}

/** An estate of `n` services, one chart each (chart id = service name = `svc-<i>`). */
export function buildEstate(n: number, outdir?: string): App {
  const app = new App({ outdir });
  for (let i = 0; i < n; i++) {
    const name = `svc-${String(i).padStart(4, '0')}`;
    new HttpService(new Chart(app, name, { namespace: `team-${i % 20}` }), name, defaultServiceProps(i));
  }
  return app;
}

type Mode = 'rollwise' | 'rollwise-no-comments' | 'cdk8s' | 'floor';

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

/** Runs one measurement in this process (the child). */
function measure(mode: Mode, n: number, work: string): Sample {
  const outdir = path.join(work, `${mode}-${n}`);
  const gc = () => (global as { gc?: () => void }).gc?.();
  const t0 = process.hrtime.bigint();
  let app: App | undefined = buildEstate(n, outdir);
  const buildMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const objects = app.node.findAll().filter((c) => c instanceof ApiObject).length;
  let synthMs: number;
  let cpu0: NodeJS.CpuUsage;
  if (mode === 'floor') {
    // The same plain objects, computed outside the timing; the construct tree is then dropped so
    // the floor holds only the plain objects (the floor is serialize + write, nothing else).
    const perChart = app.node.children.filter((c): c is Chart => c instanceof Chart)
      .map((chart) => ({ name: chart.node.id, objects: chart.node.findAll().filter((c): c is ApiObject => c instanceof ApiObject).map((o) => o.toJson()) }));
    app = undefined;
    gc();
    cpu0 = process.cpuUsage();
    const t1 = process.hrtime.bigint();
    fs.mkdirSync(outdir, { recursive: true });
    for (const c of perChart) {
      const text = c.objects.map((o) => YAML.stringify(o, { keepUndefined: true, lineWidth: 0, version: '1.1' })).join('---\n');
      fs.writeFileSync(path.join(outdir, `${c.name}.k8s.yaml`), text);
    }
    synthMs = Number(process.hrtime.bigint() - t1) / 1e6;
  } else {
    gc();
    cpu0 = process.cpuUsage();
    const t1 = process.hrtime.bigint();
    const built = app;
    if (mode === 'cdk8s') built.synth();
    else synthesize(() => built, { outdir, progress: () => undefined, comments: mode === 'rollwise' });
    synthMs = Number(process.hrtime.bigint() - t1) / 1e6;
  }
  const cpu = process.cpuUsage(cpu0);
  const synthCpuMs = (cpu.user + cpu.system) / 1000;
  const size = dirSize(outdir);
  fs.rmSync(outdir, { recursive: true, force: true });
  return { mode, services: n, buildMs, synthMs, synthCpuMs, objects, ...size, maxRssMb: process.resourceUsage().maxRSS / 1024 };
}

const NODE_FLAGS = (process.env.ROLLWISE_BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);

function runChild(mode: Mode, n: number, work: string): Sample {
  const out = execFileSync(process.execPath, ['--expose-gc', ...NODE_FLAGS, __filename, '--child', mode, String(n), work], { encoding: 'utf8', maxBuffer: 1 << 20, stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(out.trim().split('\n').pop()!) as Sample;
}

const s = (ms: number) => (ms / 1000).toFixed(2);

/** Runs the benchmark and returns a markdown table (and a few derived ratios). */
export async function benchSynth(log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<string> {
  const sizes = (process.env.ROLLWISE_BENCH_SIZES ?? '1000,3000').split(',').map(Number);
  const cdk8sSizes = new Set((process.env.ROLLWISE_BENCH_CDK8S_SIZES ?? sizes.join(',')).split(',').filter(Boolean).map(Number));
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-bench-'));
  const samples: Sample[] = [];
  try {
    for (const n of sizes) {
      for (const mode of ['floor', 'rollwise', 'rollwise-no-comments', 'cdk8s'] as Mode[]) {
        if (mode === 'cdk8s' && !cdk8sSizes.has(n)) continue;
        log(`bench synth: ${mode} at ${n} services ...`);
        const r = runChild(mode, n, work);
        log(`  synth ${s(r.synthMs)} s (CPU ${s(r.synthCpuMs)} s), build ${s(r.buildMs)} s, peak RSS ${r.maxRssMb.toFixed(0)} MiB`);
        samples.push(r);
      }
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  const get = (mode: Mode, n: number) => samples.find((x) => x.mode === mode && x.services === n);
  const rows = samples.map((x) => {
    const floor = get('floor', x.services)!;
    const cdk8s = get('cdk8s', x.services);
    const ratio = (a: number, b: number | undefined) => (b ? `${(a / b).toFixed(2)}x` : 'n/a');
    return `| ${x.services} | ${x.mode === 'cdk8s' ? 'App.synth()' : x.mode} | ${x.objects} | ${x.files} | ${(x.bytes / 1e6).toFixed(1)} | ${s(x.buildMs)} | ${s(x.synthMs)} | ${s(x.synthCpuMs)} | ${ratio(x.synthMs, floor.synthMs)} | ${ratio(x.synthMs, cdk8s?.synthMs)} | ${ratio(x.synthCpuMs, floor.synthCpuMs)} | ${ratio(x.synthCpuMs, cdk8s?.synthCpuMs)} | ${x.maxRssMb.toFixed(0)} |`;
  });
  const lines = [
    `machine: ${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, load average at the end ${os.loadavg()[0].toFixed(1)}; node ${process.version} ${NODE_FLAGS.join(' ') || '(default flags)'} in every child. rollwise serializes on worker threads, so its CPU time adds up the threads: wall-time ratios are the time a user waits, CPU-time ratios the work done (on a shared machine wall time also includes waiting for a core)`,
    '',
    '| services | synth | objects | files | MB written | build s (excluded) | synth wall s | synth CPU s | wall vs floor | wall vs App.synth() | CPU vs floor | CPU vs App.synth() | peak RSS MiB |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows,
  ];
  if (sizes.length >= 2) {
    const [a, b] = [sizes[0], sizes[sizes.length - 1]];
    for (const mode of ['rollwise', 'cdk8s', 'floor'] as Mode[]) {
      const x = get(mode, a);
      const y = get(mode, b);
      if (x && y) lines.push(`\n${mode === 'cdk8s' ? 'App.synth()' : mode}: time(${b}) / time(${a}) = ${(y.synthCpuMs / x.synthCpuMs).toFixed(2)} (CPU), ${(y.synthMs / x.synthMs).toFixed(2)} (wall)`);
    }
  }
  return lines.join('\n');
}

if (require.main === module) {
  const args = process.argv.slice(2);
  if (args[0] === '--child') {
    process.stdout.write(`${JSON.stringify(measure(args[1] as Mode, Number(args[2]), args[3]))}\n`);
  } else {
    benchSynth().then((table) => process.stdout.write(`${table}\n`), (e) => {
      process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
      process.exitCode = 1;
    });
  }
}
