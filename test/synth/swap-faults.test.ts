import { spawn, spawnSync, SpawnSyncReturns } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { compileSrc } from '../support/compile';

/**
 * Fault injection on the output swap (src/synth/swap.ts), in child node processes that are killed
 * at chosen points: a kill between the two renames, SIGTERM while writing, a read-only output, two
 * synths at once. After each, either the output folder is complete, or the next synth restores a
 * complete one before doing anything else; no temporary folder survives a run.
 */
const build = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-swap-'));
let root: string;
beforeAll(() => {
  compileSrc(build);
  fs.chmodSync(build, 0o755);
  fs.writeFileSync(
    path.join(build, 'synth-case.js'),
    `
const { App, Chart, ApiObject } = require('cdk8s');
const { synthesize } = require('./src/synth/synth');
const { setSwapFaultHook } = require('./src/synth/swap');
const [out, version] = process.argv.slice(2);
const charts = Number(process.env.CHARTS || 3);
function buildApp(outdir) {
  if (version === 'throws') throw new Error('the app failed to build');
  const app = new App({ outdir });
  for (let i = 0; i < charts; i++) new ApiObject(new Chart(app, 'c' + i), 'cm', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' + i }, data: { version } });
  return app;
}
setSwapFaultHook((stage) => {
  if (stage !== process.env.FAULT) return;
  if (process.env.ACTION === 'sleep') Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(process.env.SLEEP_MS));
  else process.kill(process.pid, process.env.ACTION || 'SIGKILL');
});
const r = synthesize(buildApp, { outdir: out, progress: () => undefined, lockWaitSeconds: Number(process.env.WAIT || 120) });
for (const w of r.warnings) console.error('warning: ' + w);
console.log('wrote ' + r.files.length + ' files');
`,
  );
});
afterAll(() => fs.rmSync(build, { recursive: true, force: true }));
beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-swap-out-'));
  fs.chmodSync(root, 0o777);
});
afterEach(() => {
  spawnSync('chmod', ['-R', 'u+w', root]);
  fs.rmSync(root, { recursive: true, force: true });
});

const out = () => path.join(root, 'dist');

function run(version: string, env: Record<string, string> = {}, asUser?: number): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [path.join(build, 'synth-case.js'), out(), version], {
    cwd: build,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, ...env },
    ...(asUser !== undefined ? { uid: asUser, gid: asUser } : {}),
  });
}

/** The version every file of the output holds, or a description of what is wrong with it. */
function outputVersion(charts = 3): string {
  if (!fs.existsSync(out())) return 'no output folder';
  const files = fs
    .readdirSync(out())
    .filter((f) => f !== '.rollwise-output')
    .sort();
  const expected = [...Array(charts).keys()].map((i) => `c${i}.k8s.yaml`).sort();
  if (JSON.stringify(files) !== JSON.stringify(expected)) return `incomplete: ${files.join(', ')}`;
  const versions = new Set(files.map((f) => /version: (\S+)/.exec(fs.readFileSync(path.join(out(), f), 'utf8'))?.[1]));
  return versions.size === 1 ? [...versions][0]! : `mixed: ${[...versions].join(', ')}`;
}

const leftovers = () =>
  fs
    .readdirSync(root)
    .filter((e) => e !== 'dist')
    .sort();

test('a kill between the two renames: the next run restores a complete output before anything else', () => {
  expect(run('v1').status).toBe(0);
  const killed = run('v2', { FAULT: 'between-renames' });
  expect(killed.signal).toBe('SIGKILL');
  // the instant the two-rename swap cannot avoid, frozen by the kill
  expect(outputVersion()).toBe('no output folder');
  expect(leftovers().some((e) => e === '.dist.swap')).toBe(true);
  // a run whose app fails still repairs the output first, and reports its own failure
  const next = run('throws');
  expect(next.status).not.toBe(0);
  expect(next.stderr).toContain('the app failed to build');
  expect(outputVersion()).toBe('v2');
  expect(leftovers()).toEqual([]);
});

test('a kill after writing, before the swap: the old output stays, the next run deletes the temporary folder', () => {
  expect(run('v1').status).toBe(0);
  expect(run('v2', { FAULT: 'written' }).signal).toBe('SIGKILL');
  expect(outputVersion()).toBe('v1');
  expect(leftovers().filter((e) => e.startsWith('.dist-tmp-'))).toHaveLength(1);
  const next = run('v3');
  expect(next.status).toBe(0);
  expect(next.stderr).toMatch(/warning: removed .*\.dist-tmp-[0-9a-f]+, left by an interrupted synth/);
  expect(outputVersion()).toBe('v3');
  expect(leftovers()).toEqual([]);
});

test.each(['SIGTERM', 'SIGINT'])(
  '%s before the swap: the process ends by the signal, the old output stays, the next run deletes the temporary folder',
  (sig) => {
    expect(run('v1').status).toBe(0);
    const r = run('v2', { FAULT: 'written', ACTION: sig });
    expect(r.signal).toBe(sig);
    expect(outputVersion()).toBe('v1');
    expect(leftovers().every((e) => /^\.dist-tmp-[0-9a-f]{12}$|^\.dist\.lock$/.test(e))).toBe(true);
    const next = run('v3');
    expect(next.status).toBe(0);
    expect(outputVersion()).toBe('v3');
    expect(leftovers()).toEqual([]);
  },
);

test('SIGINT after the swap: it says the new output is in place, and ends by the signal', () => {
  expect(run('v1').status).toBe(0);
  const r = run('v2', { FAULT: 'swapped', ACTION: 'SIGINT' });
  expect(r.signal).toBe('SIGINT');
  expect(r.stderr).toContain('interrupted by SIGINT after the swap');
  expect(r.stderr).toContain('holds the complete new output');
  expect(outputVersion()).toBe('v2');
  expect(leftovers()).toEqual([]);
});

test('SIGTERM from outside at a random moment of a long synth, then SIGKILL: the output is complete after the next run', async () => {
  expect(run('v1', { CHARTS: '3000' }).status).toBe(0);
  for (const [sig, delay] of [
    ['SIGTERM', 400],
    ['SIGKILL', 600],
  ] as const) {
    const child = spawn(process.execPath, [path.join(build, 'synth-case.js'), out(), `v-${sig}`], {
      cwd: build,
      env: { ...process.env, CHARTS: '3000' },
      stdio: 'ignore',
    });
    // Listen before the delay: on a quiet machine the synth may be done before the signal, and an
    // 'exit' that was already emitted is not emitted again.
    const exited = new Promise((r) => child.on('exit', r));
    await new Promise((r) => setTimeout(r, delay));
    child.kill(sig);
    await exited;
    const now = outputVersion(3000);
    if (sig === 'SIGTERM') {
      expect(['v1', `v-${sig}`]).toContain(now);
      // at most the temporary folder of the killed synth, which the next run deletes
      expect(leftovers().every((e) => /^\.dist-tmp-[0-9a-f]{12}$|^\.dist\.lock$/.test(e))).toBe(true);
    }
  }
  expect(run('v3', { CHARTS: '3000' }).status).toBe(0);
  expect(outputVersion(3000)).toBe('v3');
  expect(leftovers()).toEqual([]);
}, 60_000);

test('a read-only folder in the output: synth fails naming it and the old output stays in place', () => {
  // as root the permission bits do not stop anything, so the case runs as nobody
  const user = process.getuid?.() === 0 ? 65534 : undefined;
  expect(run('v1', {}, user).status).toBe(0);
  fs.mkdirSync(path.join(out(), 'ro'));
  fs.writeFileSync(path.join(out(), 'ro', 'kept.txt'), 'kept');
  // a folder of the previous output (listed in its marker), else ownership refuses it first
  const marker = path.join(out(), '.rollwise-output');
  fs.writeFileSync(marker, `${fs.readFileSync(marker, 'utf8')}ro/kept.txt\n`);
  if (user !== undefined) spawnSync('chown', ['-R', `${user}:${user}`, out()]);
  fs.chmodSync(path.join(out(), 'ro'), 0o555);
  const r = run('v2', {}, user);
  expect(r.status).not.toBe(0);
  expect(r.stderr).toContain(
    `${path.join(out(), 'ro')} is read-only, so the previous output could not be replaced and deleted; nothing was changed`,
  );
  expect(fs.readFileSync(path.join(out(), 'ro', 'kept.txt'), 'utf8')).toBe('kept');
  expect(fs.readFileSync(path.join(out(), 'c0.k8s.yaml'), 'utf8')).toContain('version: v1');
  expect(leftovers()).toEqual([]);
});

test('the output folder has the mode the umask gives, not 0700', () => {
  const r = spawnSync(
    'sh',
    ['-c', `umask 022 && "${process.execPath}" "${path.join(build, 'synth-case.js')}" "${out()}" v1`],
    { cwd: build, encoding: 'utf8' },
  );
  expect(r.status).toBe(0);
  expect((fs.statSync(out()).mode & 0o777).toString(8)).toBe('755');
  expect((fs.statSync(path.join(out(), 'c0.k8s.yaml')).mode & 0o777).toString(8)).toBe('644');
});

test('two synths at once: the second waits for the first, both outputs land in order; with no wait it fails clearly', async () => {
  const start = (version: string, env: Record<string, string>) =>
    new Promise<{ code: number | null; err: string }>((resolve) => {
      const child = spawn(process.execPath, [path.join(build, 'synth-case.js'), out(), version], {
        cwd: build,
        env: { ...process.env, ...env },
      });
      let err = '';
      child.stderr.on('data', (d) => {
        err += String(d);
      });
      child.on('exit', (code) => resolve({ code, err }));
    });
  const slow = { FAULT: 'written', ACTION: 'sleep', SLEEP_MS: '1500' };
  const first = start('first', slow);
  // once the first holds the lock (its temporary folder exists), it sleeps 1.5 s before its swap
  for (let i = 0; i < 400 && !leftovers().some((e) => e.startsWith('.dist-tmp-')); i++)
    await new Promise((r) => setTimeout(r, 25));
  const impatient = await start('impatient', { WAIT: '0' });
  expect(impatient.code).not.toBe(0);
  expect(impatient.err).toMatch(
    /dist is being written by another synth \(pid \d+ on .*\); waited 0 s\. Wait for it to finish, or, if no synth is running, delete .*\.dist\.lock/,
  );
  const second = start('second', {});
  const [a, b] = await Promise.all([first, second]);
  expect([a.code, b.code]).toEqual([0, 0]);
  expect(outputVersion()).toBe('second');
  expect(leftovers()).toEqual([]);
}, 60_000);

test('a lock left by a killed synth is taken over', () => {
  expect(run('v1', { FAULT: 'written' }).signal).toBe('SIGKILL');
  expect(leftovers()).toContain('.dist.lock');
  expect(run('v2', { WAIT: '0' }).status).toBe(0);
  expect(outputVersion()).toBe('v2');
  expect(leftovers()).toEqual([]);
});
