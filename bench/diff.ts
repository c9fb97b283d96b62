import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { performance } from 'perf_hooks';
import { diffOutputs } from '../src/diff/compare';
import { resolveSide } from '../src/diff/sources';
import { median } from './stats';

/**
 * `rollwise diff` on an estate of `services` copies of the example's committed prod output (each
 * renamed), in a Git repository, between a base commit and commits that change 1, 30 and 300 of
 * the services (the readiness timeout and its reason). Measured side by side, repetitions
 * interleaved, medians reported; the claim is that the time follows the changed files, not the
 * estate.
 */
export async function benchDiff(services = 3000, reps = Number(process.env.BENCH_REPS ?? 5)): Promise<string> {
  const template = fs.readFileSync(path.join(__dirname, '..', '..', 'dist', 'prod', 'checkout-api.k8s.yaml'), 'utf8');
  const repo = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-bench-diff-'));
  const git = (...args: string[]) =>
    execFileSync('git', ['-C', repo, ...args], { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 1 << 28 })
      .toString()
      .trim();
  try {
    const dir = path.join(repo, 'dist', 'prod');
    fs.mkdirSync(dir, { recursive: true });
    const file = (i: number) => path.join(dir, `svc-${i}.k8s.yaml`);
    const text = (i: number) => template.replace(/checkout-api/g, `svc-${i}`);
    for (let i = 0; i < services; i++) fs.writeFileSync(file(i), text(i));
    git('init', '-q', '-b', 'main');
    git('config', 'user.email', 'bench@example.com');
    git('config', 'user.name', 'bench');
    git('add', '-A');
    git('commit', '-q', '-m', 'estate');
    const base = git('rev-parse', 'HEAD');
    const commits = new Map<number, string>();
    for (const changed of [1, 30, 300]) {
      git('checkout', '-q', base);
      for (let i = 0; i < changed; i++) {
        fs.writeFileSync(
          file(i),
          text(i)
            .replace(
              'readinessProbe.timeoutSeconds: 2 x the health path',
              'readinessProbe.timeoutSeconds: Changed: 2 x the health path',
            )
            .replace(/timeoutSeconds: 3\n/, 'timeoutSeconds: 4\n'),
        );
      }
      git('commit', '-q', '-am', `${changed} changed`);
      commits.set(changed, git('rev-parse', 'HEAD'));
    }
    const times = new Map<number, number[]>([...commits.keys()].map((k) => [k, []]));
    const units = new Map<number, number>();
    for (let r = 0; r < reps + 1; r++) {
      const order = [...commits.keys()];
      if (r % 2) order.reverse();
      for (const changed of order) {
        const t0 = performance.now();
        const report = diffOutputs(resolveSide(base, 'dist', repo), resolveSide(commits.get(changed)!, 'dist', repo));
        const ms = performance.now() - t0;
        units.set(changed, report.units.length);
        if (r > 0) times.get(changed)!.push(ms); // the first round warms up
      }
    }
    const one = median(times.get(1)!);
    const rows = [...commits.keys()].map((changed) => {
      const ms = median(times.get(changed)!);
      return `| ${services} | ${changed} | ${units.get(changed)} | ${ms.toFixed(0)} | ${(ms / one).toFixed(1)}x | ${(ms / changed).toFixed(1)} |`;
    });
    return [
      `rollwise diff between two Git revisions of an estate of ${services} services (each a copy of the example's prod output, ${(template.length / 1024).toFixed(0)} KiB), median of ${reps} interleaved runs:`,
      '',
      '| services | changed | reported | wall ms (median) | vs 1 changed | ms per changed service |',
      '|---:|---:|---:|---:|---:|---:|',
      ...rows,
    ].join('\n');
  } finally {
    fs.rmSync(repo, { recursive: true, force: true });
  }
}
