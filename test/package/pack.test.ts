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
interface LockEntry {
  version: string;
  bin?: Record<string, string>;
  resolved?: string;
  dev?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}
const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};

/**
 * `npm ci` filled the npm cache with the tarballs of rollwise's lockfile, not with registry
 * metadata, so an offline install needs a lockfile: the new app's is the part of rollwise's that
 * its dependencies reach (node's lookup: nested node_modules first, then each parent's).
 */
function appLock(deps: Record<string, string>, rollwise: { file: string; entry: LockEntry }): unknown {
  const packages: Record<string, unknown> = {};
  const locate = (from: string, name: string): string | undefined => {
    for (
      let dir = from;
      ;
      dir = dir.includes('/node_modules/') ? dir.slice(0, dir.lastIndexOf('/node_modules/')) : ''
    ) {
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
      else if (!entry.peerDependenciesMeta?.[name]?.optional && !entry.optionalDependencies?.[name])
        throw new Error(`${key} needs ${name}, which rollwise's lockfile lacks`);
    }
  };
  visit('node_modules/rollwise', { ...rollwise.entry, resolved: rollwise.file });
  for (const name of Object.keys(deps))
    if (name !== 'rollwise') visit(`node_modules/${name}`, lock.packages[`node_modules/${name}`]);
  return {
    name: 'new-app',
    version: '1.0.0',
    lockfileVersion: 3,
    requires: true,
    packages: { '': { name: 'new-app', version: '1.0.0', license: 'UNLICENSED', dependencies: deps }, ...packages },
  };
}

let work: string;
let tarball: string;
let app: string;
let ciStderr = '';
const npm = (args: string[], cwd: string) =>
  execFileSync('npm', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' },
  });

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-pack-'));
  // a fresh clone: the tracked and untracked-but-not-ignored files, no lib/, no .schemas/
  const clone = path.join(work, 'clone');
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: ROOT, encoding: 'utf8' })
    .split('\0')
    .filter((f) => f && f !== 'node_modules' && fs.existsSync(path.join(ROOT, f)));
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
  for (const name of ['cdk8s', 'cdk8s-plus-28', 'constructs', 'cdk8s-cli', 'typescript', '@types/node'])
    deps[name] = lock.packages[`node_modules/${name}`].version;
  fs.writeFileSync(
    path.join(app, 'package.json'),
    JSON.stringify(
      { name: 'new-app', version: '1.0.0', private: true, license: 'UNLICENSED', dependencies: deps },
      null,
      2,
    ),
  );
  const entry: LockEntry = {
    version: own.version,
    bin: own.bin,
    dependencies: own.dependencies,
    peerDependencies: own.peerDependencies,
    peerDependenciesMeta: own.peerDependenciesMeta,
  };
  fs.writeFileSync(path.join(app, 'package-lock.json'), JSON.stringify(appLock(deps, { file, entry }), null, 2));
  // the README's first example, as written
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  // plus a type-level check that the plugin fits cdk8s-cli's own Validation contract
  const plugin =
    "import type { Validation } from 'cdk8s-cli/lib/plugins';\nimport { RollwiseValidation } from 'rollwise';\nexport const plugin: Validation = new RollwiseValidation();\n";
  fs.writeFileSync(path.join(app, 'main.ts'), example);
  fs.writeFileSync(path.join(app, 'plugin.ts'), plugin);
  fs.writeFileSync(path.join(app, 'cdk8s.yaml'), 'language: typescript\napp: node main.js\n');
  // npm 11 warns about every installed package whose install scripts no allowScripts entry covers;
  // the tarball's prepare script used to be one (issue 24)
  const ci = spawnSync('npm', ['ci', '--offline'], {
    cwd: app,
    encoding: 'utf8',
    env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' },
  });
  if (ci.status !== 0) throw new Error(`npm ci failed: ${ci.stderr}`);
  ciStderr = ci.stderr;
}, 600_000);

afterAll(() => {
  if (work) fs.rmSync(work, { recursive: true, force: true });
});

test('the tarball holds the compiled library, its types, the bin and the docs, and nothing else', () => {
  const entries = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((e) => e.replace(/^package\//, ''));
  for (const f of [
    'lib/src/index.js',
    'lib/src/index.d.ts',
    'lib/src/cli/main.js',
    'bin/rollwise.js',
    'README.md',
    'package.json',
    'docs/rules.md',
    'docs/mechanisms.md',
    'CHANGELOG.md',
  ])
    expect(entries).toContain(f);
  // what the README, the docs and --help point at (issue 24): the example app, its output and the
  // scenarios; every source or output file the README names before its repository Layout section
  const pointedAt = new Set<string>();
  const readmeForUsers = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n## Layout\n')[0];
  for (const m of readmeForUsers.matchAll(
    /\b((?:lib\/)?src\/[a-z0-9/-]+\.(?:ts|js)|dist\/[a-z0-9-]+\/[a-z0-9.-]+\.(?:yaml|md)|examples\/scenarios\/[a-z0-9-]+\.yaml)\b/g,
  ))
    pointedAt.add(m[1]);
  // docs/simulate.md also names the repository's sources (src/simulate/); its scenarios must ship
  for (const m of fs
    .readFileSync(path.join(ROOT, 'docs', 'simulate.md'), 'utf8')
    .matchAll(/\b(src\/(?:example|main)\.ts|examples\/scenarios\/[a-z0-9-]+\.yaml)\b/g))
    pointedAt.add(m[1]);
  expect(pointedAt.size).toBeGreaterThan(5);
  for (const f of ['src/example.ts', 'dist/prod/checkout-api.k8s.yaml', 'lib/src/invariants/invariants.js'])
    expect(pointedAt).toContain(f);
  for (const f of pointedAt) expect([f, entries.includes(f)]).toEqual([f, true]);
  for (const f of ['lib/src/example.js', 'lib/src/main.js', 'examples/scenarios/manifests/checkout-rollwise.k8s.yaml'])
    expect(entries).toContain(f);
  // issue 24: the packed package.json builds on pack (prepack), with no prepare script, which npm
  // 11 lists as an install script of every tarball or Git install
  const packed = JSON.parse(
    execFileSync('tar', ['xzf', tarball, '-O', 'package/package.json'], { encoding: 'utf8' }),
  ) as { scripts: Record<string, string> };
  expect(packed.scripts.prepare).toBeUndefined();
  expect(packed.scripts.prepack).toMatch(/rmSync\('lib'.*npm run -s build/);
  for (const s of ['preinstall', 'install', 'postinstall']) expect(packed.scripts[s]).toBeUndefined();
  expect(ciStderr).not.toMatch(/rollwise@\S+ \(prepare/);
  const strays = entries.filter(
    (e) =>
      (/^(test|bench|dist|scripts|\.ci)\//.test(e) &&
        !/^dist\/prod\/checkout-api\.(k8s\.yaml|runbook\.md|catalog-info\.yaml)$/.test(e)) ||
      (/^src\//.test(e) && !/^src\/(example|main)\.ts$/.test(e)) ||
      /^lib\/(test|bench)\//.test(e) ||
      (/\.ts$/.test(e) && !/\.d\.ts$/.test(e) && !/^src\/(example|main)\.ts$/.test(e)),
  );
  expect(strays).toEqual([]);
}, 60_000);

test('a new cdk8s app compiles against it under the default strict tsconfig, without skipLibCheck', () => {
  const tsconfig = JSON.parse(fs.readFileSync(path.join(app, 'tsconfig.json'), 'utf8')) as {
    compilerOptions: Record<string, unknown>;
  };
  expect(tsconfig.compilerOptions.strict).toBe(true);
  expect(tsconfig.compilerOptions.skipLibCheck).toBeUndefined();
  const tsc = spawnSync(process.execPath, [path.join(app, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', '.'], {
    cwd: app,
    encoding: 'utf8',
  });
  expect(tsc.stdout + tsc.stderr).toBe('');
  expect(tsc.status).toBe(0);
}, 300_000);

test('cdk8s synth of the README example writes the manifests with their reasons; rollwise synth writes the same', () => {
  const cdk8s = spawnSync(process.execPath, [path.join(app, 'node_modules', 'cdk8s-cli', 'bin', 'cdk8s'), 'synth'], {
    cwd: app,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true' },
  });
  expect(cdk8s.status).toBe(0);
  const out = path.join(app, 'dist', 'checkout-api.k8s.yaml');
  const yaml = fs.readFileSync(out, 'utf8');
  expect(yaml).toMatch(/# .*\n\s+timeoutSeconds: 3\n/);
  expect(yaml).toContain('rollwise.dev/reasons');
  const rw = spawnSync(process.execPath, [path.join(app, 'node_modules', '.bin', 'rollwise'), 'synth', '--check'], {
    cwd: app,
    encoding: 'utf8',
  });
  // the same synth warning through both (this example declares no alerting platform)
  const warnings = (t: string) => t.split('\n').filter((l) => l.startsWith('warning: '));
  expect(warnings(cdk8s.stderr)).toEqual([
    expect.stringContaining('no PrometheusRule: platform.runbookBaseUrl is not set'),
  ]);
  expect(warnings(rw.stderr)).toEqual(warnings(cdk8s.stderr));
  expect(rw.stdout).toContain('is in sync');
  expect(rw.status).toBe(0);
  const version = spawnSync(process.execPath, [path.join(app, 'node_modules', '.bin', 'rollwise'), '--version'], {
    cwd: app,
    encoding: 'utf8',
  });
  expect(version.stdout.trim()).toBe(
    (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string }).version,
  );
}, 300_000);

test("without schemas an installed rollwise warns with a subject and a fix it ships: `rollwise schemas fetch` into the project's .schemas/, after which the warning is gone", () => {
  const bin = path.join(app, 'node_modules', '.bin', 'rollwise');
  const { ROLLWISE_SCHEMA_DIR: schemaDir, ...env } = process.env;
  const synth = () =>
    spawnSync(process.execPath, [bin, 'synth', '-o', 'schema-check'], { cwd: app, encoding: 'utf8', env });
  const before = synth();
  expect(before.status).toBe(0);
  const warning = before.stderr.split('\n').find((l) => l.includes('no pinned schemas')) ?? '';
  expect(warning).toMatch(
    /^warning: schemas: no pinned schemas for Kubernetes 1\.28 were found \(looked in .*\/app\/node_modules\/shared, .*\/app\/node_modules\/rollwise\/\.schemas, .*\/app\/\.schemas\).* Fix: run `npx rollwise schemas fetch` in the project \(it downloads the pinned files into \.schemas\/ there and needs network; offline: --from <a \.schemas\/ folder fetched elsewhere>\)/,
  );
  // no network here: the copy a colleague fetched (the repository's set) stands in for the download
  const fetched = spawnSync(process.execPath, [bin, 'schemas', 'fetch', '--from', schemaDir as string], {
    cwd: app,
    encoding: 'utf8',
    env,
  });
  expect(fetched.stderr).toBe('');
  expect(fetched.status).toBe(0);
  expect(fetched.stdout).toMatch(/14 pinned schema files in \.schemas\/;/);
  const where = spawnSync(process.execPath, [bin, 'schemas', 'where'], { cwd: app, encoding: 'utf8', env });
  expect(where.stdout).toContain(`${path.join(fs.realpathSync(app), '.schemas')}  <- used`);
  const after = synth();
  expect(after.status).toBe(0);
  expect(after.stderr).not.toMatch(/schemas/);
  fs.rmSync(path.join(app, 'schema-check'), { recursive: true, force: true });
  fs.rmSync(path.join(app, '.schemas'), { recursive: true, force: true });
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
  const run = (...args: string[]) =>
    spawnSync('npm', ['run', '-s', ...args], {
      cwd: golden,
      encoding: 'utf8',
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
  const synth = run('synth');
  // dev declares its own traffic (Sizing.fixed(2, { peakRequestsPerSecond: 40 })), so both canaries are rehearsed at synth: no warning.
  expect(synth.stderr.split('\n').filter(Boolean)).toEqual([]);
  expect(synth.status).toBe(0);
  for (const f of [
    'dev/orders-api.k8s.yaml',
    'dev/orders-api.runbook.md',
    'prod/orders-api.k8s.yaml',
    'prod/orders-api.runbook.md',
    'argocd/dev/orders-api.k8s.yaml',
    'argocd/prod/orders-api.k8s.yaml',
  ])
    expect(fs.existsSync(path.join(golden, 'dist', f))).toBe(true);
  const tests = run('test');
  expect(tests.stdout).toMatch(/# pass 3\n# fail 0/);
  expect(tests.status).toBe(0);
  // cdk8s synth runs the same app command and writes the same files
  const viaCdk8s = spawnSync(
    process.execPath,
    [path.join(app, 'node_modules', 'cdk8s-cli', 'bin', 'cdk8s'), 'synth', '-o', 'by-cdk8s'],
    { cwd: golden, encoding: 'utf8', env: { ...process.env, CI: 'true' } },
  );
  expect(viaCdk8s.status).toBe(0);
  const files = (d: string) =>
    execFileSync('find', ['.', '-type', 'f'], { cwd: d, encoding: 'utf8' }).split('\n').filter(Boolean).sort();
  expect(files(path.join(golden, 'by-cdk8s'))).toEqual(files(path.join(golden, 'dist')));
  for (const f of files(path.join(golden, 'dist')))
    expect(fs.readFileSync(path.join(golden, 'by-cdk8s', f), 'utf8')).toBe(
      fs.readFileSync(path.join(golden, 'dist', f), 'utf8'),
    );
  fs.rmSync(path.join(golden, 'by-cdk8s'), { recursive: true });

  const again = spawnSync(process.execPath, [bin, 'init', '--service', 'orders-api'], {
    cwd: golden,
    encoding: 'utf8',
  });
  expect(again.status).toBe(0);
  expect(again.stdout).toContain('nothing to do');
}, 300_000);

/**
 * `cdk8s init typescript-app` needs the npm registry (it installs the template's dependencies);
 * without it the test below is skipped, saying so. Its last post-install steps need GitHub too:
 * `cdk8s import` downloads the Kubernetes schema, and when that fails here the steps the template
 * runs after it (compile, the snapshot test with -u, synth) are run as the template would.
 */
const registry = spawnSync('npm', ['ping'], { encoding: 'utf8', timeout: 30_000 }).status === 0;
if (!registry)
  console.warn(
    'skipped: rollwise init into a fresh cdk8s init typescript-app folder needs the npm registry (npm ping failed)',
  );

(registry ? test : test.skip)(
  "rollwise init into a fresh `cdk8s init typescript-app` folder: it merges, the dependency is the tarball, npm install works offline, and the app's synth and tests pass",
  () => {
    const shop = path.join(work, 'shop');
    fs.mkdirSync(shop);
    const env = {
      ...process.env,
      CI: 'true',
      npm_config_update_notifier: 'false',
      npm_config_fund: 'false',
      npm_config_audit: 'false',
    };
    const cdk8s = path.join(ROOT, 'node_modules', 'cdk8s-cli', 'bin', 'cdk8s');
    const init = spawnSync(process.execPath, [cdk8s, 'init', 'typescript-app'], { cwd: shop, encoding: 'utf8', env });
    for (const f of [
      'main.ts',
      'main.test.ts',
      'cdk8s.yaml',
      'tsconfig.json',
      'jest.config.js',
      'node_modules/cdk8s/package.json',
    ])
      expect([f, fs.existsSync(path.join(shop, f))]).toEqual([f, true]);
    if (init.status !== 0) {
      expect(init.stdout + init.stderr).toMatch(/> \S+ import\n> cdk8s import[\s\S]*http error/);
      const run = (...args: string[]) => spawnSync('npm', ['run', '-s', ...args], { cwd: shop, encoding: 'utf8', env });
      for (const step of [['compile'], ['test', '--', '-u'], ['synth']])
        expect([step.join(' '), run(...step).status]).toEqual([step.join(' '), 0]);
    }
    const template = fs.readFileSync(path.join(shop, 'main.ts'), 'utf8');

    // the user installs the tarball they were given, then runs rollwise init from it
    npm(['install', tarball], shop);
    const bin = path.join(shop, 'node_modules', '.bin', 'rollwise');
    const adopt = spawnSync(process.execPath, [bin, 'init', '--service', 'orders-api'], {
      cwd: shop,
      encoding: 'utf8',
    });
    expect(adopt.stderr).toBe('');
    expect(adopt.status).toBe(0);
    expect(adopt.stdout).toContain('rollwise joined it');
    const pkg = JSON.parse(fs.readFileSync(path.join(shop, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
      dependencies: Record<string, string>;
    };
    expect(pkg.dependencies.rollwise).toBe(`file:../${path.basename(tarball)}`);
    expect(pkg.scripts.synth).toBe('cdk8s synth');
    const main = fs.readFileSync(path.join(shop, 'main.ts'), 'utf8');
    expect(main).toBe(
      template
        .replace('const app = new App();', 'const app = new RollwiseApp();')
        .replace('app.synth();', 'addRollwise(app);\napp.synth();')
        .replace(
          "import { App, Chart, ChartProps } from 'cdk8s';",
          "import { Chart, ChartProps } from 'cdk8s';\nimport { RollwiseApp } from 'rollwise';\nimport { addRollwise } from './rollwise';",
        ),
    );

    expect(npm(['install', '--offline'], shop)).toMatch(/up to date|added|changed/);
    const synth = spawnSync('npm', ['run', '-s', 'synth'], { cwd: shop, encoding: 'utf8', env });
    expect(synth.status).toBe(0);
    for (const f of ['dev/orders-api.k8s.yaml', 'prod/orders-api.k8s.yaml', 'argocd/prod/orders-api.k8s.yaml'])
      expect([f, fs.existsSync(path.join(shop, 'dist', f))]).toEqual([f, true]);
    const tests = spawnSync('npm', ['test'], { cwd: shop, encoding: 'utf8', env });
    expect({
      status: tests.status,
      summary: (tests.stdout + tests.stderr).split('\n').filter((l) => /^(Tests|Test Suites):/.test(l)),
    }).toEqual({ status: 0, summary: ['Test Suites: 2 passed, 2 total', 'Tests:       4 passed, 4 total'] });

    // What Argo CD and CI see: a clean clone of what was committed. The template's .gitignore had
    // dist/, which init removed, so the output is in Git and the clone's drift check passes.
    expect(adopt.stdout).toContain('.gitignore ignored the output folder (line "dist/")');
    const git = (cwd: string, ...args: string[]) =>
      execFileSync(
        'git',
        ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'init.defaultBranch=main', ...args],
        { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
      );
    git(shop, 'init', '-q');
    git(shop, 'add', '-A');
    git(shop, 'commit', '-q', '-m', 'rollwise');
    git(work, 'clone', '-q', shop, 'shop-clone');
    const clone = path.join(work, 'shop-clone');
    expect(git(clone, 'ls-files', 'dist').split('\n')).toEqual(
      expect.arrayContaining([
        'dist/dev/orders-api.k8s.yaml',
        'dist/prod/orders-api.k8s.yaml',
        'dist/argocd/prod/orders-api.k8s.yaml',
      ]),
    );
    fs.symlinkSync(path.join(shop, 'node_modules'), path.join(clone, 'node_modules'), 'dir'); // npm ci, which a clone needs, offline
    const check = spawnSync(
      process.execPath,
      [path.join(clone, 'node_modules', '.bin', 'rollwise'), 'synth', '--check'],
      { cwd: clone, encoding: 'utf8', env },
    );
    expect({ status: check.status, out: check.stdout }).toEqual({
      status: 0,
      out: expect.stringContaining('is in sync'),
    });
  },
  900_000,
);
