import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { performance } from 'perf_hooks';
import * as YAML from 'yaml';
import { readTextCapped } from '../src/read-limit';
import { lintParsed } from '../src/rules/engine';
import { findKustomize, KustomizeRenderer, layoutScan } from '../src/rules/layout';
import { lintText } from '../src/rules/run-lint';
import { scanFolder } from '../src/rules/scan';
import { median } from './stats';

/** One service's manifests (Deployment or Rollout, Service, HTTPRoute, PDB, policy, analysis), some with hazards. */
function serviceObjects(i: number): Record<string, unknown>[] {
  const name = `svc-${i}`;
  const ns = `team-${i % 17}`;
  const labels = { 'app.kubernetes.io/name': name };
  const hazard = i % 3 === 0;
  const container = {
    name: 'app',
    image: `ghcr.io/acme/${name}:1.${i % 10}.0`,
    ports: [{ name: 'http', containerPort: 8080 }],
    resources: { requests: { cpu: '250m', memory: '512Mi' }, limits: hazard ? { cpu: '500m', memory: '512Mi' } : { memory: '512Mi' } },
    readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, timeoutSeconds: hazard ? 1 : 3, periodSeconds: 10, failureThreshold: hazard ? 1 : 3, successThreshold: hazard ? 1 : 3 },
    livenessProbe: { tcpSocket: { port: 'http' }, timeoutSeconds: 6, periodSeconds: 20, failureThreshold: 6 },
    env: [{ name: 'LOG_LEVEL', value: 'info' }, { name: 'PORT', value: '8080' }],
  };
  const metadata = { name, namespace: ns, labels, annotations: { 'rollwise.dev/readiness-p99-seconds': '0.25', 'rollwise.dev/peak-rps': '900', 'rollwise.dev/saturation-rps-per-replica': '200' } };
  const template = { metadata: { labels }, spec: { containers: [container], terminationGracePeriodSeconds: 30 } };
  const workload = i % 4 === 0
    ? {
      apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', metadata,
      spec: {
        replicas: 6, minReadySeconds: 30, progressDeadlineAbort: !hazard, selector: { matchLabels: labels }, template,
        strategy: { canary: { canaryService: `${name}-canary`, stableService: name, maxUnavailable: 0, steps: [{ setWeight: 5 }, { pause: { duration: '10m' } }, { setWeight: 25 }, ...(hazard ? [] : [{ analysis: { templates: [{ templateName: `${name}-errors` }] } }])] } },
      },
    }
    : {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata,
      spec: { replicas: 6, minReadySeconds: hazard ? 0 : 30, strategy: { rollingUpdate: { maxSurge: '25%', maxUnavailable: hazard ? '25%' : 0 } }, selector: { matchLabels: labels }, template },
    };
  return [
    workload,
    { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns, labels, annotations: { 'rollwise.dev/app-keepalive-seconds': '5' } }, spec: { selector: labels, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } },
    { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: { name, namespace: ns }, spec: { parentRefs: [{ name: 'public', namespace: 'gateway' }], hostnames: [`${name}.example.com`], rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/' } }], backendRefs: [{ group: '', kind: 'Service', name, port: 80 }] }] } },
    { apiVersion: 'gateway.envoyproxy.io/v1alpha1', kind: 'BackendTrafficPolicy', metadata: { name, namespace: ns }, spec: { mergeType: 'StrategicMerge', targetRefs: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', name }], timeout: { http: { connectionIdleTimeout: hazard ? '10s' : '3s' } } } },
    { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name, namespace: ns }, spec: { maxUnavailable: 1, selector: { matchLabels: labels } } },
    {
      apiVersion: 'argoproj.io/v1alpha1', kind: 'AnalysisTemplate', metadata: { name: `${name}-errors`, namespace: ns },
      spec: { metrics: [{ name: 'error-ratio', interval: '1m', count: 10, failureLimit: 1, successCondition: hazard ? 'result[0] < 0.01' : 'len(result) > 0 && !isNaN(result[0]) && result[0] < 0.01', provider: { prometheus: { address: 'http://prometheus:9090', query: `sum(rate(envoy_cluster_upstream_rq_xx{envoy_response_code_class="5",envoy_cluster_name="httproute/${ns}/${name}/rule/0"}[2m])) / sum(rate(envoy_cluster_upstream_rq_total{envoy_cluster_name="httproute/${ns}/${name}/rule/0"}[2m]))` } } }] },
    },
  ];
}

/** `count` objects as one multi-document YAML text, as `helm template` would print them. */
export function benchManifest(count: number): string {
  const objs: Record<string, unknown>[] = [];
  for (let i = 0; objs.length < count; i++) objs.push(...serviceObjects(i));
  return objs.slice(0, count).map((o) => YAML.stringify(o, { version: '1.1' })).join('---\n');
}

/**
 * Lints 10,000 objects and compares with the `yaml` package alone parsing the same text, measured
 * side by side (repetitions interleaved, medians reported). Target: lint <= 1.5 x parse.
 */
export async function benchLint(count = 10_000, reps = Number(process.env.BENCH_REPS ?? 7)): Promise<string> {
  const text = benchManifest(count);
  // CPU time of this process (user + system) is the primary figure: the machine is shared, and wall
  // time also counts the time other processes held the cores. Wall time is reported beside it.
  const times = { parse: [] as number[], ast: [] as number[], lint: [] as number[] };
  const wall = { parse: [] as number[], ast: [] as number[], lint: [] as number[] };
  let findings = 0;
  let objects = 0;
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let r = 0; r < reps + 1; r++) {
    const round: [keyof typeof times, () => void][] = [
      ['parse', () => { for (const d of YAML.parseAllDocuments(text, { version: '1.1' })) d.toJS(); }],
      ['ast', () => { YAML.parseAllDocuments(text, { version: '1.1' }); }],
      ['lint', () => { const res = lintText(text, 'bench.yaml'); findings = res.findings.length; objects = res.objects; }],
    ];
    // Alternate the order each round so neither side always runs on a warmer heap.
    if (r % 2) round.reverse();
    for (const [k, fn] of round) {
      gc?.();
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      fn();
      const dt = performance.now() - t0;
      const c = process.cpuUsage(c0);
      if (r > 0) { // round 0 warms up the JIT
        times[k].push((c.user + c.system) / 1000);
        wall[k].push(dt);
      }
    }
  }
  const p = median(times.parse);
  const a = median(times.ast);
  const l = median(times.lint);
  const ratio = l / p;
  const wp = median(wall.parse);
  return [
    `Lint of ${objects} objects (${(text.length / 1e6).toFixed(1)} MB YAML, ${findings} findings), median of ${reps} interleaved runs:`,
    '',
    '| measurement | CPU ms (median) | vs parse | wall ms (median) | vs parse |',
    '|---|---:|---:|---:|---:|',
    `| yaml parseAllDocuments + toJS (parse) | ${p.toFixed(0)} | 1.00x | ${wp.toFixed(0)} | 1.00x |`,
    `| yaml parseAllDocuments only (AST) | ${a.toFixed(0)} | ${(a / p).toFixed(2)}x | ${median(wall.ast).toFixed(0)} | ${(median(wall.ast) / wp).toFixed(2)}x |`,
    `| rollwise lintText (parse with line positions + all rules) | ${l.toFixed(0)} | ${ratio.toFixed(2)}x | ${median(wall.lint).toFixed(0)} | ${(median(wall.lint) / wp).toFixed(2)}x |`,
    '',
    `Target lint <= 1.5x parse (CPU time): ${ratio <= 1.5 ? 'met' : 'NOT met'} (${ratio.toFixed(2)}x).`,
  ].join('\n');
}

/**
 * A repository-like tree of about `files` files: one folder per service, one object per file (as
 * most repositories keep them), and every 17th service deployed by a kustomization that labels its
 * resources (so kustomize, where installed, renders it).
 */
export function benchTree(dir: string, files = 2000): { files: number; kustomizations: number } {
  let written = 0;
  let kustomizations = 0;
  for (let i = 0; written < files; i++) {
    const folder = path.join(dir, `team-${i % 17}`, `svc-${i}`);
    fs.mkdirSync(folder, { recursive: true });
    const names: string[] = [];
    for (const o of serviceObjects(i)) {
      if (written >= files) break;
      const name = `${String(o.kind).toLowerCase()}.yaml`;
      fs.writeFileSync(path.join(folder, name), YAML.stringify(o, { version: '1.1' }));
      names.push(name);
      written++;
    }
    if (i % 17 === 0 && written < files) {
      fs.writeFileSync(path.join(folder, 'kustomization.yaml'), `labels:\n- pairs: { team: team-${i % 17} }\nresources:\n${names.map((n) => `- ${n}`).join('\n')}\n`);
      written++;
      kustomizations++;
    }
  }
  return { files: written, kustomizations };
}

/**
 * `rollwise lint <folder>` on about 2,000 files against reading and parsing the same files with the
 * `yaml` package, side by side (interleaved, medians). The lint runs the folder scan, the layout
 * (kustomization graph, scopes) and every rule; with kustomize found on PATH it is also timed with
 * the renders, which are separate processes and are reported on their own row.
 */
export async function benchLintFolder(files = 2000, reps = Number(process.env.BENCH_REPS ?? 5)): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-bench-tree-'));
  try {
    const tree = benchTree(dir, files);
    const kustomize = findKustomize();
    const lint = (renderer: KustomizeRenderer | null): number => {
      const inputs = scanFolder(dir).files.map((f) => ({ file: f, text: readTextCapped(f) }));
      const layout = layoutScan(inputs, { kustomize: renderer, repoRoot: dir });
      return lintParsed(layout.objects, layout.problems, { scopes: layout.scopes, notes: layout.notes }).findings.length;
    };
    const rows: [string, () => void][] = [
      ['read + yaml parseAllDocuments + toJS (parse)', () => { for (const f of scanFolder(dir).files) for (const d of YAML.parseAllDocuments(readTextCapped(f), { version: '1.1' })) d.toJS(); }],
      ['rollwise lint, kustomizations file by file', () => { lint(null); }],
      ...(kustomize ? [[`rollwise lint, rendered with ${kustomize.label}`, () => { lint(kustomize); }] as [string, () => void]] : []),
    ];
    const cpu = rows.map(() => [] as number[]);
    const wall = rows.map(() => [] as number[]);
    for (let r = 0; r < reps + 1; r++) {
      const order = rows.map((_, i) => i);
      if (r % 2) order.reverse();
      for (const i of order) {
        (globalThis as { gc?: () => void }).gc?.();
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        rows[i][1]();
        const dt = performance.now() - t0;
        const c = process.cpuUsage(c0);
        if (r > 0) { cpu[i].push((c.user + c.system) / 1000); wall[i].push(dt); }
      }
    }
    const p = median(cpu[0]);
    const wp = median(wall[0]);
    const findings = lint(null);
    return [
      `Lint of a folder of ${tree.files} files (${tree.kustomizations} kustomizations, ${findings} findings), median of ${reps} interleaved runs. CPU time is this process only: kustomize renders run in child processes, so compare wall time for that row.`,
      '',
      '| measurement | CPU ms (median) | vs parse | wall ms (median) | vs parse |',
      '|---|---:|---:|---:|---:|',
      ...rows.map(([name], i) => `| ${name} | ${median(cpu[i]).toFixed(0)} | ${(median(cpu[i]) / p).toFixed(2)}x | ${median(wall[i]).toFixed(0)} | ${(median(wall[i]) / wp).toFixed(2)}x |`),
      '',
      `Target lint <= 1.5x parse for about 2,000 files (file by file, CPU time): ${median(cpu[1]) / p <= 1.5 ? 'met' : 'NOT met'} (${(median(cpu[1]) / p).toFixed(2)}x).`,
    ].join('\n');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  benchLint().then((t) => process.stdout.write(`${t}\n`), (e) => { process.stderr.write(`${String(e)}\n`); process.exit(1); });
}
