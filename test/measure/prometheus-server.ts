import { ChildProcess, execFile, spawn } from 'child_process';
import * as fs from 'fs';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';

/**
 * A real Prometheus server (Debian's /usr/bin/prometheus 2.42) for the tests: the OpenMetrics text
 * is backfilled with `promtool tsdb create-blocks-from openmetrics`, then the server starts on a
 * free loopback port with an empty scrape config and a temporary data folder. `stop()` kills the
 * process and removes the folder; call it in afterAll so it also runs when a test fails.
 */
export interface TestPrometheus {
  readonly url: string;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** OpenMetrics text (ending in `# EOF`), or a function that writes it to the given file (for texts longer than a string holds). */
  readonly openMetrics: string | ((file: string) => void);
  /** Basic-auth users for --web.config.file: user -> bcrypt hash. */
  readonly basicAuthUsers?: Record<string, string>;
  /**
   * The server's --query.lookback-delta.
   * @default '59s' (just under the recorded data's 1 min scrape interval)
   */
  readonly lookbackDelta?: string;
}

export async function startPrometheus(opts: StartOptions): Promise<TestPrometheus> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-prom-'));
  let child: ChildProcess | undefined;
  const stop = async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child!.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    const input = path.join(dir, 'input.om');
    if (typeof opts.openMetrics === 'string') fs.writeFileSync(input, opts.openMetrics);
    else opts.openMetrics(input);
    const data = path.join(dir, 'data');
    fs.mkdirSync(data);
    // One block for the whole week: at the default 2 h blocks promtool re-reads the file per block.
    await run('promtool', ['tsdb', 'create-blocks-from', 'openmetrics', '--max-block-duration=240h', input, data]);
    fs.rmSync(input);
    const config = path.join(dir, 'prometheus.yml');
    fs.writeFileSync(config, 'global: {}\nscrape_configs: []\n');
    const args = [
      `--config.file=${config}`,
      `--storage.tsdb.path=${data}`,
      // The recorded week lies in the past: keep it (the default retention is 15 days).
      '--storage.tsdb.retention.time=3650d',
      '--log.level=warn',
      // Backfilled blocks carry no staleness markers (a scraping server writes one when a series
      // leaves a scrape, e.g. an endpoint address that stops being Ready), so an ended series would
      // linger for the default 5 min lookback. A lookback of one scrape interval (the recorded
      // data's 1 min; 59 s because the lookback includes its start) gives what a scraping server shows.
      `--query.lookback-delta=${opts.lookbackDelta ?? '59s'}`,
    ];
    if (opts.basicAuthUsers) {
      const web = path.join(dir, 'web.yml');
      const users = Object.entries(opts.basicAuthUsers)
        .map(([u, h]) => `  ${u}: '${h}'`)
        .join('\n');
      fs.writeFileSync(web, `basic_auth_users:\n${users}\n`);
      args.push(`--web.config.file=${web}`);
    }
    const port = await freePort();
    args.push(`--web.listen-address=127.0.0.1:${port}`);
    let stderr = '';
    child = spawn('prometheus', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    child.stderr!.on('data', (b: Buffer) => {
      stderr += b.toString();
    });
    const url = `http://127.0.0.1:${port}`;
    await waitReady(url, child, () => stderr, opts.basicAuthUsers !== undefined);
    return { url, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

function run(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { maxBuffer: 64 * 1024 * 1024 }, (err, _stdout, stderr) => {
      if (err)
        reject(
          new Error(
            `${cmd} ${args.join(' ')} failed: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'not installed (apt-get install -y prometheus)' : stderr}`,
          ),
        );
      else resolve();
    });
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as net.AddressInfo).port;
      srv.close(() => resolve(port));
    });
  });
}

async function waitReady(url: string, child: ChildProcess, stderr: () => string, auth: boolean): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`prometheus exited with ${child.exitCode}: ${stderr()}`);
    try {
      const res = await fetch(`${url}/-/ready`);
      // With basic auth every endpoint answers 401 once the server listens.
      if (res.ok || (auth && res.status === 401)) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`prometheus did not become ready within 30 s: ${stderr()}`);
}
