/**
 * Benchmark of the canary rehearsal: what synth pays per canary service (the in-process rehearsal of
 * the healthy and 10 % error releases) at several fleet sizes, and one `rollwise rehearse` of the
 * whole catalogue on the real Prometheus (backfill, server start, every measurement, stop).
 *
 * Run: npm run bench -- rehearse
 */
import * as fs from 'fs';
import * as path from 'path';
import { readRollouts, rehearseInProcess, rehearseOnPrometheus, SYNTH_RELEASES } from '../src/rehearse';
import { medianMs } from './stats';

export async function benchRehearse(): Promise<string> {
  const file = path.join(__dirname, '..', '..', 'dist', 'prod', 'checkout-api.k8s.yaml');
  const model = readRollouts([{ file, text: fs.readFileSync(file, 'utf8') }])[0];
  const rows: string[] = [];
  for (const replicas of [12, 50, 300]) {
    const m = { ...model, replicas };
    const ms = medianMs(() => rehearseInProcess(m, { releases: SYNTH_RELEASES }), 5);
    rows.push(`| synth rehearsal (${SYNTH_RELEASES.join(' + ')}), in process | ${replicas} | ${ms.toFixed(0)} ms |`);
  }
  const t0 = process.hrtime.bigint();
  await rehearseOnPrometheus([model]);
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  rows.push(
    `| rollwise rehearse, 11 releases on Prometheus (backfill, start, queries, stop) | ${model.replicas} | ${ms.toFixed(0)} ms |`,
  );
  return [
    '### rollwise rehearse',
    '',
    '| what | replicas | time (median of 5; Prometheus: one run) |',
    '|---|---|---|',
    ...rows,
  ].join('\n');
}
