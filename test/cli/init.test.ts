import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { main } from '../../src/cli/main';
import { commitOutput, initFiles, installedDependency } from '../../src/cli/init';
import { App } from 'cdk8s';
import { HttpServiceProps } from '../../src/constructs/http-service';
import { KubernetesVersion } from '../../src/decisions/kubernetes-version';
import { Platform } from '../../src/decisions/platform';
import { addEstate, Environment, Sizing } from '../../src/environments';
import { threeServices, threeServicesPlatform } from '../fixtures/apps/three-services';
import { spawnSync } from 'child_process';
import { transformFileSync } from '@swc/core';
import { compileSrc, ROOT } from '../support/compile';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(
    ['node', 'rollwise', ...args],
    (t) => {
      out += t;
    },
    (t) => {
      err += t;
    },
  );
  return { code, out, err };
}

const snapshot = (dir: string): Record<string, string> => {
  const walk = (d: string): string[] =>
    fs
      .readdirSync(d, { withFileTypes: true })
      .flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
  return Object.fromEntries(walk(dir).map((f) => [path.relative(dir, f), fs.readFileSync(f, 'utf8')]));
};

describe('rollwise init', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-init-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('scaffolds every file, and a second run changes nothing', async () => {
    const first = await cli(['init', dir, '--service', 'orders-api']);
    expect(first.code).toBe(0);
    const files = snapshot(dir);
    expect(Object.keys(files).sort()).toEqual([...Object.keys(initFiles('orders-api')), 'package.json'].sort());
    const pkg = JSON.parse(files['package.json']) as {
      scripts: Record<string, string>;
      dependencies: Record<string, string>;
    };
    expect(pkg.scripts.synth).toBe('rollwise synth');
    // run from this checkout (no installed package): the checkout's folder, which npm links
    expect(pkg.dependencies.rollwise).toBe(`file:${path.relative(dir, path.join(__dirname, '..', '..'))}`);
    expect(files['main.ts']).toContain("'orders-api': {");
    expect(files['.github/workflows/rollwise.yml']).toContain('upload-sarif');
    // issue 24: where `rollwise schemas fetch` writes is not committed; the namespace policy a migration with its own ServiceAccount needs is named
    expect(files['.gitignore'].split('\n')).toContain('.schemas/');
    expect(files['platform.ts']).toMatch(
      /a service whose migration needs a ServiceAccount or Secret\n.*there needs the namespace made first, with them: add namespaces: NamespacePolicy\.existing\(\)/,
    );
    expect(files['.github/workflows/rollwise.yml']).toContain('rollwise synth --check');
    const second = await cli(['init', dir, '--service', 'orders-api']);
    expect(second.code).toBe(0);
    expect(second.out).toContain('nothing to do');
    expect(snapshot(dir)).toEqual(files);
  });

  test('refuses to overwrite a changed file, names it and writes nothing; --force overwrites', async () => {
    await cli(['init', dir, '--service', 'orders-api']);
    fs.writeFileSync(path.join(dir, 'main.ts'), '// my own app\n');
    fs.rmSync(path.join(dir, 'README.md'));
    const before = snapshot(dir);
    const refused = await cli(['init', dir, '--service', 'orders-api']);
    expect(refused.code).toBe(2);
    expect(refused.err).toContain('main.ts exists with other content');
    expect(refused.err).toContain('--force');
    expect(snapshot(dir)).toEqual(before); // README.md was not written either
    const forced = await cli(['init', dir, '--service', 'orders-api', '--force']);
    expect(forced.code).toBe(0);
    expect(forced.out).toContain('updated: main.ts');
    expect(forced.out).toContain('created: README.md');
    expect(fs.readFileSync(path.join(dir, 'main.ts'), 'utf8')).toBe(initFiles('orders-api')['main.ts']);
  });

  test('adds rollwise to an existing package.json: keeps its fields, adds scripts and dependencies, refuses a clashing script', async () => {
    fs.writeFileSync(
      path.join(dir, 'package.json'),
      JSON.stringify({
        name: 'shop',
        version: '2.0.0',
        scripts: { start: 'node x.js' },
        dependencies: { cdk8s: '^2.80.0' },
      }),
    );
    expect((await cli(['init', dir, '--service', 'shop'])).code).toBe(0);
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
      name: string;
      scripts: Record<string, string>;
      dependencies: Record<string, string>;
    };
    expect(pkg.name).toBe('shop');
    expect(pkg.scripts.start).toBe('node x.js');
    expect(pkg.scripts.lint).toBe('rollwise lint dist');
    expect(pkg.dependencies.cdk8s).toBe('^2.80.0'); // the app's own range is kept
    expect(pkg.dependencies.rollwise).toBeDefined();

    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-init-'));
    try {
      fs.writeFileSync(
        path.join(other, 'package.json'),
        JSON.stringify({ name: 'x', scripts: { synth: 'cdk8s synth' } }),
      );
      const clash = await cli(['init', other, '--service', 'x']);
      expect(clash.code).toBe(2);
      expect(clash.err).toContain('package.json script "synth" is `cdk8s synth`');
      expect(fs.readdirSync(other)).toEqual(['package.json']);
    } finally {
      fs.rmSync(other, { recursive: true, force: true });
    }
  });

  test('a service name that is no DNS label is refused, naming it', async () => {
    const r = await cli(['init', dir, '--service', 'Orders_API']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('--service = Orders_API');
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe('the rollwise dependency, as it was installed (issue 24)', () => {
  let work: string;
  beforeEach(() => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-dep-'));
  });
  afterEach(() => fs.rmSync(work, { recursive: true, force: true }));
  const installed = (spec: string) => {
    const project = path.join(work, 'installer');
    const pkgRoot = path.join(project, 'node_modules', 'rollwise');
    fs.mkdirSync(path.join(pkgRoot, 'lib', 'src', 'cli'), { recursive: true });
    fs.writeFileSync(path.join(pkgRoot, 'package.json'), JSON.stringify({ name: 'rollwise', version: '0.1.0' }));
    fs.writeFileSync(
      path.join(project, 'package.json'),
      JSON.stringify({ name: 'x', dependencies: { rollwise: spec } }),
    );
    return path.join(pkgRoot, 'lib', 'src', 'cli');
  };

  test('a tarball: its path, relative to the new project', () => {
    const from = installed('file:../rollwise-0.1.0.tgz');
    expect(installedDependency(path.join(work, 'deploy'), from)).toBe('file:../rollwise-0.1.0.tgz');
    expect(installedDependency(path.join(work, 'a', 'b'), from)).toBe('file:../../rollwise-0.1.0.tgz');
    // npx keeps the absolute path it was given
    expect(
      installedDependency(
        path.join(work, 'deploy'),
        installed(`file:${path.join(work, 'tarballs', 'rollwise-0.1.0.tgz')}`),
      ),
    ).toBe('file:../tarballs/rollwise-0.1.0.tgz');
  });

  test('a Git URL and a registry range are kept as they are', () => {
    expect(
      installedDependency(path.join(work, 'deploy'), installed('git+https://github.com/acme/rollwise.git#v0.1.0')),
    ).toBe('git+https://github.com/acme/rollwise.git#v0.1.0');
    expect(installedDependency(path.join(work, 'deploy'), installed('^0.1.0'))).toBe('^0.1.0');
  });

  test('--dependency wins', async () => {
    const r = await cli([
      'init',
      path.join(work, 'deploy'),
      '--service',
      'orders-api',
      '--dependency',
      'file:../vendor/rollwise-0.1.0.tgz',
    ]);
    expect(r.code).toBe(0);
    expect(
      (
        JSON.parse(fs.readFileSync(path.join(work, 'deploy', 'package.json'), 'utf8')) as {
          dependencies: Record<string, string>;
        }
      ).dependencies.rollwise,
    ).toBe('file:../vendor/rollwise-0.1.0.tgz');
  });
});

describe('rollwise init into an existing cdk8s app (issue 24)', () => {
  let dir: string;
  const template = path.join(__dirname, '..', '..', 'node_modules', 'cdk8s-cli', 'templates', 'typescript-app');
  beforeEach(() => {
    // the files `cdk8s init typescript-app` renders (its template, with the folder's name); the real
    // CLI, with npm install, runs in test/package/pack.test.ts
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-adopt-'));
    for (const f of ['cdk8s.yaml', 'main.ts', 'main.test.ts', 'jest.config.js', 'tsconfig.json', 'package.json']) {
      fs.writeFileSync(
        path.join(dir, f),
        fs
          .readFileSync(path.join(template, f), 'utf8')
          .replace(/\{\{ \$base \}\}/g, 'shop')
          .replace(/\{\{ [a-z_]+ \}\}/g, '1.0.0'),
      );
    }
    fs.writeFileSync(path.join(dir, '.gitignore'), fs.readFileSync(path.join(template, '{{}}.gitignore'), 'utf8'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test("merges instead of refusing: keeps the app's files, adds rollwise.ts and platform.ts, switches the template main.ts to a RollwiseApp", async () => {
    const before = snapshot(dir);
    const r = await cli(['init', dir, '--service', 'orders-api']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('rollwise joined it');
    const after = snapshot(dir);
    for (const kept of ['cdk8s.yaml', 'tsconfig.json', 'main.test.ts', 'jest.config.js'])
      expect([kept, after[kept]]).toEqual([kept, before[kept]]);
    expect(after['main.ts']).toContain('const app = new RollwiseApp();');
    expect(after['main.ts']).toContain('addRollwise(app);\napp.synth();');
    expect(after['main.ts']).toContain(
      "import { Chart, ChartProps } from 'cdk8s';\nimport { RollwiseApp } from 'rollwise';\nimport { addRollwise } from './rollwise';",
    );
    expect(after['main.ts']).toContain("new MyChart(app, 'shop');");
    expect(after['rollwise.ts']).toContain('export function addRollwise(app: App): void {');
    expect(after['rollwise.test.ts']).toContain("test('the committed dist/ is what the code synthesizes");
    expect(after['.gitignore']).toMatch(/rollwise\.sarif\n$/);
    // the template ignores dist/, which Argo CD applies from Git: only that line goes, and init says so
    expect(before['.gitignore'].split('\n')).toContain('dist/');
    expect(after['.gitignore']).toBe(before['.gitignore'].replace('dist/\n', '') + 'rollwise.sarif\n');
    expect(r.out).toMatch(
      /note: \.gitignore ignored the output folder \(line "dist\/"\), so dist\/ would never be committed.*That line was removed; nothing else in \.gitignore changed/,
    );
    const pkg = JSON.parse(after['package.json']) as {
      scripts: Record<string, string>;
      dependencies: Record<string, string>;
    };
    expect(pkg.scripts).toMatchObject({
      synth: 'cdk8s synth',
      test: 'jest',
      'synth:check': 'rollwise synth --check',
      lint: 'rollwise lint dist',
    });
    expect(pkg.dependencies['cdk8s-plus-28']).toBeDefined();
    const again = await cli(['init', dir, '--service', 'orders-api']);
    expect(again.out).toContain('nothing to do');
    expect(snapshot(dir)).toEqual(after);
  });

  test('the output is committed: a clean clone of the adopted app (git init, add -A, commit, clone) holds dist/', async () => {
    expect((await cli(['init', dir, '--service', 'orders-api'])).code).toBe(0);
    // what `npm run synth` writes (the real synth of an adopted app runs in test/package/pack.test.ts)
    fs.mkdirSync(path.join(dir, 'dist', 'dev'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'dist', 'dev', 'orders-api.k8s.yaml'), 'kind: Deployment\n');
    const git = (cwd: string, ...args: string[]) =>
      execFileSync(
        'git',
        ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'init.defaultBranch=main', ...args],
        { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
      );
    git(dir, 'init', '-q');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'adopt rollwise');
    const clone = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-clone-'));
    try {
      git(clone, 'clone', '-q', dir, 'app');
      expect(fs.existsSync(path.join(clone, 'app', 'dist', 'dev', 'orders-api.k8s.yaml'))).toBe(true);
      expect(git(path.join(clone, 'app'), 'ls-files', 'dist')).toBe('dist/dev/orders-api.k8s.yaml\n');
    } finally {
      fs.rmSync(clone, { recursive: true, force: true });
    }
  });

  test('only the line that ignores the output folder (cdk8s.yaml output:) is removed', () => {
    expect(commitOutput('*.js\nnode_modules\ndist/\n', 'dist')).toEqual({
      text: '*.js\nnode_modules\n',
      removed: ['dist/'],
    });
    expect(commitOutput('/manifests\r\nlib/\r\n', 'manifests')).toEqual({ text: 'lib/\r\n', removed: ['/manifests'] });
    // a folder beneath it, another folder with the same prefix, and a comment stay
    expect(commitOutput('# dist/\ndist/tmp/\ndistribution/\n', 'dist')).toEqual({
      text: '# dist/\ndist/tmp/\ndistribution/\n',
      removed: [],
    });
  });

  test('a main.ts of its own is left alone, and the note says the two lines to add', async () => {
    fs.writeFileSync(
      path.join(dir, 'main.ts'),
      "import { App } from 'cdk8s';\nexport const app = new App();\nrequire('./charts').add(app);\napp.synth();\n",
    );
    const r = await cli(['init', dir, '--service', 'orders-api']);
    expect(r.code).toBe(0);
    expect(fs.readFileSync(path.join(dir, 'main.ts'), 'utf8')).toBe(
      "import { App } from 'cdk8s';\nexport const app = new App();\nrequire('./charts').add(app);\napp.synth();\n",
    );
    expect(r.out).toMatch(
      /note: main\.ts is not the cdk8s template's shape.*new RollwiseApp\(\);.*addRollwise\(app\);/,
    );
  });
});

describe("the scaffold's environments (issue 24: dev copied prod's database connection)", () => {
  test('main.ts says connection settings are per environment, and its suggested adjust gives dev its own instance, which synth accepts where the copy is refused', () => {
    const scaffold = initFiles('orders-api')['main.ts'];
    expect(scaffold).toMatch(
      /Connection settings are per environment too: every environment starts from the service's props\n[\s\S]*dev's migration would run against prod's database/,
    );
    const line = /^ {2}\/\/ {3}(sidecars: .*),$/m.exec(scaffold)?.[1];
    expect(line).toBeDefined();
    // the line as the scaffold shows it, in dev's adjust (the props are orders-api with its proxy and migration)
    const devAdjust = new Function('props', `return { ...props, ${line} };`) as (
      p: HttpServiceProps,
    ) => HttpServiceProps;
    const server = 'https://kubernetes.default.svc';
    const build = (adjust?: (p: HttpServiceProps) => HttpServiceProps) => {
      const app = new App({ outdir: '/tmp/rollwise-init-unused' });
      const platform = (env: string) =>
        new Platform({
          gateway: { name: 'public', namespace: 'envoy-gateway-system' },
          prometheusAddress: 'http://prometheus-operated.monitoring.svc:9090',
          runbookBaseUrl: `https://github.com/acme/deploy/blob/main/dist/${env}`,
          prometheusRuleLabels: { release: 'kube-prometheus-stack' },
          kubernetesVersion: KubernetesVersion.V1_33,
        });
      return addEstate(app, {
        environments: [
          new Environment({
            name: 'dev',
            destination: { server, namespace: 'shop-dev' },
            platform: platform('dev'),
            sizing: Sizing.fixed(2, { peakRequestsPerSecond: 40 }),
            adjust: (p) => {
              const q = adjust ? adjust(p) : p;
              return { ...q, route: q.route && { ...q.route, hostnames: ['orders.dev.example.com'] } };
            },
          }),
          new Environment({ name: 'prod', destination: { server, namespace: 'shop' }, platform: platform('prod') }),
        ],
        services: { 'orders-api': threeServices(threeServicesPlatform(KubernetesVersion.V1_33))['orders-api'] },
      });
    };
    expect(() => build()).toThrow(
      /environments dev and prod both connect orders-api's Cloud SQL Auth Proxy to acme-prod:europe-west1:orders/,
    );
    expect(build(devAdjust)[0].service.decisions.pod.sidecars[0].args).toContain('acme-dev:europe-west1:orders');
  });
});

/**
 * The scaffold's own test after the user replaces its service, as its README says (review of issue
 * 24: `npm test` of a project made with `--service shop-api` failed with ENOENT on
 * dist/dev/shop-api.k8s.yaml once main.ts described payments-api). The generated
 * test/golden-path.test.js runs under node --test against this checkout, compiled with swc as a
 * package (test/package/pack.test.ts runs the whole `npm test` of the packed tarball).
 */
describe("the scaffold's golden-path test", () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-golden-'));
    const pkg = path.join(dir, 'rollwise');
    compileSrc(path.join(pkg, 'lib'));
    fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(pkg, 'package.json'));
    fs.cpSync(path.join(ROOT, 'bin'), path.join(pkg, 'bin'), { recursive: true });
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Scaffolds with --service shop-api, edits main.ts, compiles it (swc) and runs the generated test that synthesizes every environment. */
  const runGoldenTest = async (project: string, edit: (main: string) => string) => {
    const app = path.join(dir, project);
    expect((await cli(['init', app, '--service', 'shop-api'])).code).toBe(0);
    fs.writeFileSync(path.join(app, 'main.ts'), edit(fs.readFileSync(path.join(app, 'main.ts'), 'utf8')));
    fs.mkdirSync(path.join(app, 'node_modules'));
    fs.symlinkSync(path.join(dir, 'rollwise'), path.join(app, 'node_modules', 'rollwise'), 'dir');
    fs.symlinkSync(path.join(ROOT, 'node_modules', 'cdk8s'), path.join(app, 'node_modules', 'cdk8s'), 'dir');
    for (const f of ['main', 'platform']) {
      const { code } = transformFileSync(path.join(app, `${f}.ts`), {
        jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
        module: { type: 'commonjs' },
      });
      fs.mkdirSync(path.join(app, 'lib'), { recursive: true });
      fs.writeFileSync(path.join(app, 'lib', `${f}.js`), code);
    }
    // the compiled app, loaded in-process (cdk8s.yaml's `npx tsc -p . && node lib/main.js` needs rollwise's .d.ts, which swc does not write)
    fs.writeFileSync(path.join(app, 'cdk8s.yaml'), 'language: typescript\napp: node lib/main.js\noutput: dist\n');
    const r = spawnSync(process.execPath, ['--test', '--test-name-pattern=every environment', 'test/'], {
      cwd: app,
      encoding: 'utf8',
    });
    return `${r.stdout}${r.stderr}`;
  };

  test("passes after main.ts's service is renamed (shop-api -> payments-api); near miss: an Application missing from the app still fails it, by name", async () => {
    const renamed = await runGoldenTest('renamed', (main) => main.replace(/shop-api/g, 'payments-api'));
    expect(renamed).toMatch(/# pass 1\n# fail 0/);
    const noApplications = await runGoldenTest('no-applications', (main) =>
      main.replace(/shop-api/g, 'payments-api').replace('if (!settings) return;', 'if (settings) return;'),
    );
    expect(noApplications).toMatch(/# fail 1/);
    expect(noApplications).toContain('argocd/dev/payments-api.k8s.yaml');
  }, 300_000);
});
