/**
 * A real Prometheus for the rehearsal: the worlds' series written as OpenMetrics, backfilled with
 * `promtool tsdb create-blocks-from openmetrics`, served by `prometheus` on 127.0.0.1 at a free
 * port, and queried at /api/v1/query with `time=` the measurement's instant, as the Argo Rollouts
 * Prometheus provider does (metricproviders/prometheus/prometheus.go v1.9.1: `p.api.Query(ctx,
 * query, time.Now())`). The server and its directory are removed on stop, on failure and on
 * SIGINT/SIGTERM.
 */
import { spawn, spawnSync, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import type { Result } from './condition';
import type { QueryAnswer } from './loop';
import type { Series } from './world';

/** 2026-01-01T00:00:00Z: every rehearsal is backfilled at the same instants, so runs repeat exactly. */
export const EPOCH_SECONDS = 1767225600;

export interface PrometheusBinaries {
  readonly promtool: string;
  readonly prometheus: string;
}

export const DEFAULT_BINARIES: PrometheusBinaries = {
  promtool: process.env.ROLLWISE_PROMTOOL ?? '/usr/bin/promtool',
  prometheus: process.env.ROLLWISE_PROMETHEUS ?? '/usr/bin/prometheus',
};

/** OpenMetrics text of some series, each sample at EPOCH_SECONDS + offset + t. */
export function toOpenMetrics(blocks: Array<{ offsetSeconds: number; series: Series[] }>): string {
  const byName = new Map<string, Array<{ offset: number; s: Series }>>();
  for (const b of blocks) {
    for (const s of b.series) {
      const list = byName.get(s.name) ?? [];
      list.push({ offset: b.offsetSeconds, s });
      byName.set(s.name, list);
    }
  }
  const lines: string[] = [];
  for (const [name, list] of byName) {
    lines.push(`# TYPE ${name} gauge`);
    for (const { offset, s } of list) {
      const labels = Object.entries(s.labels)
        .map(([k, v]) => `${k}="${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`)
        .join(',');
      for (const [t, v] of s.samples) lines.push(`${name}{${labels}} ${v} ${EPOCH_SECONDS + offset + t}`);
    }
  }
  lines.push('# EOF');
  return `${lines.join('\n')}\n`;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export class PrometheusUnavailable extends Error {}

/** Parse one /api/v1/query answer the way the provider turns it into `result`. */
export function resultFromApi(body: unknown): QueryAnswer {
  const b = body as { status?: string; error?: string; data?: { resultType?: string; result?: unknown } };
  if (b.status !== 'success' || !b.data)
    return { ok: false, error: b.error ?? 'Prometheus ' + `answered ${JSON.stringify(body).slice(0, 200)}` };
  const f = (s: string) => (s === 'NaN' ? NaN : s === '+Inf' ? Infinity : s === '-Inf' ? -Infinity : Number(s));
  const { resultType, result } = b.data;
  if (resultType === 'scalar') return { ok: true, result: f((result as [number, string])[1]) };
  if (resultType === 'vector')
    return { ok: true, result: (result as Array<{ value: [number, string] }>).map((x) => f(x.value[1])) };
  if (resultType === 'matrix')
    return {
      ok: true,
      result: (result as Array<{ values: Array<[number, string]> }>).flatMap((x) => x.values.map((v) => f(v[1]))),
    };
  // processResponse: "Prometheus metric type not supported" (a string result).
  return { ok: false, error: 'Prometheus metric type not supported' };
}

export class PrometheusHarness {
  private proc?: ChildProcess;
  private dir?: string;
  private readonly onSignal = () => {
    this.stopSync();
    process.exit(130);
  };
  private readonly onExit = () => this.stopSync();
  public port = 0;

  /** @param tmpRoot where the backfill and data directory go (default: the OS temporary folder) */
  constructor(
    private readonly bins: PrometheusBinaries = DEFAULT_BINARIES,
    private readonly tmpRoot: string = os.tmpdir(),
  ) {}

  /** Backfill the OpenMetrics text and start the server; resolves once /-/ready answers. */
  async start(openMetrics: string): Promise<void> {
    for (const b of [this.bins.promtool, this.bins.prometheus]) {
      if (!fs.existsSync(b))
        throw new PrometheusUnavailable(
          `${b} not found: install the prometheus package (Debian: apt-get install prometheus) or set ` +
            'ROLLWISE_PROMTOOL / ROLLWISE_PROMETHEUS',
        );
    }
    process.once('SIGINT', this.onSignal);
    process.once('SIGTERM', this.onSignal);
    process.once('exit', this.onExit);
    try {
      this.dir = fs.mkdtempSync(path.join(this.tmpRoot, 'rollwise-rehearse-'));
      const om = path.join(this.dir, 'series.om.txt');
      const data = path.join(this.dir, 'data');
      const cfg = path.join(this.dir, 'prometheus.yml');
      fs.writeFileSync(om, openMetrics);
      fs.writeFileSync(cfg, 'global: {}\n');
      const bf = spawnSync(this.bins.promtool, ['tsdb', 'create-blocks-from', 'openmetrics', om, data], {
        encoding: 'utf8',
      });
      if (bf.status !== 0) throw new Error(`promtool backfill failed: ${bf.stderr || bf.stdout}`);
      this.port = await freePort();
      this.proc = spawn(
        this.bins.prometheus,
        [
          `--storage.tsdb.path=${data}`,
          `--web.listen-address=127.0.0.1:${this.port}`,
          `--config.file=${cfg}`,
          // Blocks are old: keep them whatever the wall clock says.
          '--storage.tsdb.retention.time=100y',
          '--log.level=error',
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      this.proc.stderr?.on('data', (d: Buffer) => {
        stderr += d.toString();
      });
      const deadline = Date.now() + 30000;
      for (;;) {
        if (this.proc.exitCode !== null) throw new Error(`prometheus exited (${this.proc.exitCode}): ${stderr}`);
        try {
          const r = await fetch(`http://127.0.0.1:${this.port}/-/ready`);
          if (r.ok) break;
        } catch {
          // not listening yet
        }
        if (Date.now() > deadline) throw new Error(`prometheus did not become ready within 30 s: ${stderr}`);
        await new Promise((res) => setTimeout(res, 100));
      }
    } catch (e) {
      await this.stop();
      throw e;
    }
  }

  /** One instant query at EPOCH_SECONDS + at. */
  async query(query: string, at: number, port = this.port): Promise<QueryAnswer> {
    const url = `http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent(query)}&time=${EPOCH_SECONDS + at}`;
    try {
      const r = await fetch(url);
      return resultFromApi(await r.json());
    } catch (e) {
      const cause = (e as { cause?: { message?: string } }).cause?.message;
      return { ok: false, error: `Post "http://127.0.0.1:${port}/api/v1/query": ${cause ?? (e as Error).message}` };
    }
  }

  private stopSync(): void {
    if (this.proc && this.proc.exitCode === null) this.proc.kill('SIGKILL');
    if (this.dir) fs.rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }

  async stop(): Promise<void> {
    process.removeListener('SIGINT', this.onSignal);
    process.removeListener('SIGTERM', this.onSignal);
    process.removeListener('exit', this.onExit);
    const p = this.proc;
    if (p && p.exitCode === null) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          p.kill('SIGKILL');
        }, 5000);
        p.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        p.kill('SIGTERM');
      });
    }
    this.proc = undefined;
    if (this.dir) fs.rmSync(this.dir, { recursive: true, force: true });
    this.dir = undefined;
  }
}

export type { Result };
