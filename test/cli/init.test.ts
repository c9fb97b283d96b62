import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { main } from '../../src/cli/main';
import { initFiles } from '../../src/cli/init';

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['node', 'rollwise', ...args], (t) => { out += t; }, (t) => { err += t; });
  return { code, out, err };
}

const snapshot = (dir: string): Record<string, string> => {
  const walk = (d: string): string[] => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
  return Object.fromEntries(walk(dir).map((f) => [path.relative(dir, f), fs.readFileSync(f, 'utf8')]));
};

describe('rollwise init', () => {
  let dir: string;
  beforeEach(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-init-')); });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('scaffolds every file, and a second run changes nothing', async () => {
    const first = await cli(['init', dir, '--service', 'orders-api']);
    expect(first.code).toBe(0);
    const files = snapshot(dir);
    expect(Object.keys(files).sort()).toEqual([...Object.keys(initFiles('orders-api')), 'package.json'].sort());
    const pkg = JSON.parse(files['package.json']) as { scripts: Record<string, string>; dependencies: Record<string, string> };
    expect(pkg.scripts.synth).toBe('rollwise synth');
    expect(pkg.dependencies.rollwise).toMatch(/^\^\d+\.\d+\.\d+$/);
    expect(files['main.ts']).toContain("'orders-api': {");
    expect(files['.github/workflows/rollwise.yml']).toContain('upload-sarif');
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
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'shop', version: '2.0.0', scripts: { start: 'node x.js' }, dependencies: { cdk8s: '^2.80.0' } }));
    expect((await cli(['init', dir, '--service', 'shop'])).code).toBe(0);
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name: string; scripts: Record<string, string>; dependencies: Record<string, string> };
    expect(pkg.name).toBe('shop');
    expect(pkg.scripts.start).toBe('node x.js');
    expect(pkg.scripts.lint).toBe('rollwise lint dist');
    expect(pkg.dependencies.cdk8s).toBe('^2.80.0'); // the app's own range is kept
    expect(pkg.dependencies.rollwise).toBeDefined();

    const other = fs.mkdtempSync(path.join(os.tmpdir(), 'rw-init-'));
    try {
      fs.writeFileSync(path.join(other, 'package.json'), JSON.stringify({ name: 'x', scripts: { synth: 'cdk8s synth' } }));
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
