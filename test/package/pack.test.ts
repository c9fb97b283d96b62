import { execFileSync, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ROOT } from '../support/compile';

/**
 * The package as a new user gets it: a fresh clone's `npm pack` (which builds), installed offline
 * from the tarball and the npm cache into a new cdk8s TypeScript app whose tsconfig is the one
 * `cdk8s init typescript-app` writes (strict, no skipLibCheck), compiled with tsc, synthesized with
 * `cdk8s synth`.
 */
interface LockEntry { version: string; bin?: Record<string, string>; resolved?: string; dev?: boolean; dependencies?: Record<string, string>; optionalDependencies?: Record<string, string>; peerDependencies?: Record<string, string>; peerDependenciesMeta?: Record<string, { optional?: boolean }> }
const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, LockEntry> };

/**
 * `npm ci` filled the npm cache with the tarballs of rollwise's lockfile, not with registry
 * metadata, so an offline install needs a lockfile: the new app's is the part of rollwise's that
 * its dependencies reach (node's lookup: nested node_modules first, then each parent's).
 */
function appLock(deps: Record<string, string>, rollwise: { file: string; entry: LockEntry }): unknown {
  const packages: Record<string, unknown> = {};
  const locate = (from: string, name: string): string | undefined => {
    for (let dir = from; ; dir = dir.includes('/node_modules/') ? dir.slice(0, dir.lastIndexOf('/node_modules/')) : '') {
      const candidate = dir ? `${dir}/node_modules/${name}` : `node_modules/${name}`;
      if (lock.packages[candidate] && candidate !== 'node_modules/rollwise') return candidate;
      if (!dir) return undefined;
    }
  };
  const visit = (key: string, entry: LockEntry) => {
    if (packages[key]) return;
    const { dev: _dev, ...rest } = entry;
    packages[key] = rest;
    const wanted = { ...entry.dependencies, ...entry.optionalDependencies, ...entry.peerDependencies };
    for (const name of Object.keys(wanted)) {
      const found = locate(key, name);
      if (found) visit(found, lock.packages[found]);
      else if (!entry.peerDependenciesMeta?.[name]?.optional && !entry.optionalDependencies?.[name]) throw new Error(`${key} needs ${name}, which rollwise's lockfile lacks`);
    }
  };
  visit('node_modules/rollwise', { ...rollwise.entry, resolved: rollwise.file });
  for (const name of Object.keys(deps)) if (name !== 'rollwise') visit(`node_modules/${name}`, lock.packages[`node_modules/${name}`]);
  return { name: 'new-app', version: '1.0.0', lockfileVersion: 3, requires: true, packages: { '': { name: 'new-app', version: '1.0.0', license: 'UNLICENSED', dependencies: deps }, ...packages } };
}

let work: string;
let tarball: string;
let app: string;
const npm = (args: string[], cwd: string) => execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' } });

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-pack-'));
  // a fresh clone: the tracked and untracked-but-not-ignored files, no lib/, no .schemas/
  const clone = path.join(work, 'clone');
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter((f) => f && f !== 'node_modules' && fs.existsSync(path.join(ROOT, f)));
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(clone, f)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, f), path.join(clone, f));
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'), 'dir');
  const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', work], clone)) as { filename: string }[];
  tarball = path.join(work, packed[0].filename);

  app = path.join(work, 'app');
  fs.mkdirSync(app);
  const template = path.join(ROOT, 'node_modules', 'cdk8s-cli', 'templates', 'typescript-app');
  fs.copyFileSync(path.join(template, 'tsconfig.json'), path.join(app, 'tsconfig.json'));
  const own = JSON.parse(fs.readFileSync(path.join(clone, 'package.json'), 'utf8')) as LockEntry;
  const file = `file:../${path.basename(tarball)}`;
  const deps: Record<string, string> = { rollwise: file };
  for (const name of ['cdk8s', 'cdk8s-plus-28', 'constructs', 'cdk8s-cli', 'typescript', '@types/node']) deps[name] = lock.packages[`node_modules/${name}`].version;
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'new-app', version: '1.0.0', private: true, license: 'UNLICENSED', dependencies: deps }, null, 2));
  const entry: LockEntry = { version: own.version, bin: own.bin, dependencies: own.dependencies, peerDependencies: own.peerDependencies, peerDependenciesMeta: own.peerDependenciesMeta };
  fs.writeFileSync(path.join(app, 'package-lock.json'), JSON.stringify(appLock(deps, { file, entry }), null, 2));
  // the README's first example, as written
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  // plus a type-level check that the plugin fits cdk8s-cli's own Validation contract
  const plugin = "import type { Validation } from 'cdk8s-cli/lib/plugins';\nimport { RollwiseValidation } from 'rollwise';\nexport const plugin: Validation = new RollwiseValidation();\n";
  fs.writeFileSync(path.join(app, 'main.ts'), example);
  fs.writeFileSync(path.join(app, 'plugin.ts'), plugin);
  fs.writeFileSync(path.join(app, 'cdk8s.yaml'), 'language: typescript\napp: node main.js\n');
  npm(['ci', '--offline'], app);
}, 600_000);

afterAll(() => { if (work) fs.rmSync(work, { recursive: true, force: true }); });

test('the tarball holds the compiled library, its types, the bin and the docs, and nothing else', () => {
  const entries = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean).map((e) => e.replace(/^package\//, ''));
  for (const f of ['lib/src/index.js', 'lib/src/index.d.ts', 'lib/src/cli/main.js', 'bin/rollwise.js', 'README.md', 'package.json', 'docs/rules.md', 'docs/mechanisms.md', 'CHANGELOG.md']) expect(entries).toContain(f);
  const strays = entries.filter((e) => /^(test|bench|dist|examples|scripts|src|\.ci)\//.test(e) || /^lib\/(test|bench)\//.test(e) || (/\.ts$/.test(e) && !/\.d\.ts$/.test(e)) || /^lib\/src\/(main|example)\./.test(e));
  expect(strays).toEqual([]);
}, 60_000);

test('a new cdk8s app compiles against it under the default strict tsconfig, without skipLibCheck', () => {
  const tsconfig = JSON.parse(fs.readFileSync(path.join(app, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
  expect(tsconfig.compilerOptions.strict).toBe(true);
  expect(tsconfig.compilerOptions.skipLibCheck).toBeUndefined();
  const tsc = spawnSync(process.execPath, [path.join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], { cwd: app, encoding: 'utf8' });
  expect(tsc.stdout + tsc.stderr).toBe('');
  expect(tsc.status).toBe(0);
}, 300_000);

test('cdk8s synth of the README example writes the manifests with their reasons; rollwise synth writes the same', () => {
  const cdk8s = spawnSync(process.execPath, [path.join(app, 'node_modules', 'cdk8s-cli', 'bin', 'cdk8s'), 'synth'], { cwd: app, encoding: 'utf8', env: { ...process.env, CI: 'true' } });
  expect(cdk8s.status).toBe(0);
  const out = path.join(app, 'dist', 'checkout-api.k8s.yaml');
  const yaml = fs.readFileSync(out, 'utf8');
  expect(yaml).toMatch(/# .*\n\s+timeoutSeconds: 3\n/);
  expect(yaml).toContain('rollwise.dev/reasons');
  const rw = spawnSync(process.execPath, [path.join(app, 'node_modules', '.bin', 'rollwise'), 'synth', '--check'], { cwd: app, encoding: 'utf8' });
  // the same synth warning through both (this example declares no alerting platform)
  const warnings = (t: string) => t.split('\n').filter((l) => l.startsWith('warning: '));
  expect(warnings(cdk8s.stderr)).toEqual([expect.stringContaining('no PrometheusRule: platform.runbookBaseUrl is not set')]);
  expect(warnings(rw.stderr)).toEqual(warnings(cdk8s.stderr));
  expect(rw.stdout).toContain('is in sync');
  expect(rw.status).toBe(0);
  const version = spawnSync(process.execPath, [path.join(app, 'node_modules', '.bin', 'rollwise'), '--version'], { cwd: app, encoding: 'utf8' });
  expect(version.stdout.trim()).toBe((JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version);
}, 300_000);

test('rollwise init into an empty folder gives a repo whose synth and own tests pass; a second run changes nothing', () => {
  const golden = path.join(work, 'golden-path');
  fs.mkdirSync(golden);
  const bin = path.join(app, 'node_modules', '.bin', 'rollwise');
  const init = spawnSync(process.execPath, [bin, 'init', '--service', 'orders-api'], { cwd: golden, encoding: 'utf8' });
  expect(init.stderr).toBe('');
  expect(init.status).toBe(0);
  // the dependencies the scaffold's package.json names, from the install above (offline)
  fs.symlinkSync(path.join(app, 'node_modules'), path.join(golden, 'node_modules'), 'dir');
  const run = (...args: string[]) => spawnSync('npm', ['run', '-s', ...args], { cwd: golden, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
  const synth = run('synth');
  // dev declares its own traffic (Sizing.fixed(2, { peakRequestsPerSecond: 40 })), so both canaries are rehearsed at synth: no warning.
  expect(synth.stderr.split('\n').filter(Boolean)).toEqual([]);
  expect(synth.status).toBe(0);
  for (const f of ['dev/orders-api.k8s.yaml', 'dev/orders-api.runbook.md', 'prod/orders-api.k8s.yaml', 'prod/orders-api.runbook.md', 'argocd/dev/orders-api.k8s.yaml', 'argocd/prod/orders-api.k8s.yaml']) expect(fs.existsSync(path.join(golden, 'dist', f))).toBe(true);
  const tests = run('test');
  expect(tests.stdout).toMatch(/# pass 3\n# fail 0/);
  expect(tests.status).toBe(0);
  // cdk8s synth runs the same app command and writes the same files
  const viaCdk8s = spawnSync(process.execPath, [path.join(app, 'node_modules', 'cdk8s-cli', 'bin', 'cdk8s'), 'synth', '-o', 'by-cdk8s'], { cwd: golden, encoding: 'utf8', env: { ...process.env, CI: 'true' } });
  expect(viaCdk8s.status).toBe(0);
  const files = (d: string) => execFileSync('find', ['.', '-type', 'f'], { cwd: d, encoding: 'utf8' }).split('\n').filter(Boolean).sort();
  expect(files(path.join(golden, 'by-cdk8s'))).toEqual(files(path.join(golden, 'dist')));
  for (const f of files(path.join(golden, 'dist'))) expect(fs.readFileSync(path.join(golden, 'by-cdk8s', f), 'utf8')).toBe(fs.readFileSync(path.join(golden, 'dist', f), 'utf8'));
  fs.rmSync(path.join(golden, 'by-cdk8s'), { recursive: true });

  const again = spawnSync(process.execPath, [bin, 'init', '--service', 'orders-api'], { cwd: golden, encoding: 'utf8' });
  expect(again.status).toBe(0);
  expect(again.stdout).toContain('nothing to do');
}, 300_000);
