import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { main } from '../../src/cli/main';
import { listFiles } from '../../src/synth/diff';
import { OUTPUT_MARKER } from '../../src/synth/ownership';

/** Every file and folder under `dir` (dot entries included) with its bytes, to prove nothing changed. */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isSymbolicLink()) out[r] = `-> ${fs.readlinkSync(path.join(dir, r))}`;
      else if (e.isDirectory()) {
        out[`${r}/`] = '';
        walk(r);
      } else out[r] = fs.readFileSync(path.join(dir, r), 'latin1');
    }
  };
  walk('');
  return out;
}

const app = path.join(__dirname, '..', 'fixtures', 'apps', 'example-app.ts');

async function synth(out: string | undefined, cwd?: string): Promise<{ code: number; err: string }> {
  let err = '';
  const before = process.cwd();
  if (cwd) process.chdir(cwd);
  try {
    const code = await main(['node', 'rollwise', 'synth', '--app', app, '--out', out ?? ''], () => undefined, (t) => { err += t; });
    return { code, err };
  } finally {
    process.chdir(before);
  }
}

describe('the output folder is rollwise\'s alone', () => {
  let root: string;
  beforeEach(() => { root = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-own-')); });
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

  function checkout(): string {
    const repo = path.join(root, 'repo');
    fs.mkdirSync(path.join(repo, 'src'), { recursive: true });
    fs.writeFileSync(path.join(repo, 'src', 'main.ts'), 'export const x = 1;\n');
    fs.writeFileSync(path.join(repo, 'package.json'), '{"name":"x"}\n');
    execFileSync('git', ['init', '-q', repo]);
    execFileSync('git', ['-C', repo, 'add', '-A']);
    execFileSync('git', ['-C', repo, '-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'init']);
    return repo;
  }

  test('-o . in a Git checkout is refused, naming .git and the source files; nothing changed', async () => {
    const repo = checkout();
    const before = tree(root);
    const r = await synth('.', repo);
    expect(r.code).toBe(2);
    expect(r.err).toContain('.git (a Git repository)');
    expect(r.err).toContain('package.json (a project file)');
    expect(r.err).toContain('nothing was changed');
    expect(tree(root)).toEqual(before);
  });

  test('-o src is refused; nothing changed', async () => {
    const repo = checkout();
    const before = tree(root);
    const r = await synth('src', repo);
    expect(r.code).toBe(2);
    expect(r.err).toContain('main.ts (source code)');
    expect(tree(root)).toEqual(before);
  });

  test('-o ~ (a temporary HOME) is refused; nothing changed', async () => {
    const home = path.join(root, 'home', 'user');
    fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
    fs.writeFileSync(path.join(home, '.bashrc'), 'export A=1\n');
    fs.writeFileSync(path.join(home, '.ssh', 'config'), 'Host x\n');
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      const before = tree(root);
      const r = await synth(process.env.HOME, home); // what the shell makes of `-o ~`
      expect(r.err).toContain('.ssh/');
      expect(r.code).toBe(2);
      expect(tree(root)).toEqual(before);
    } finally {
      process.env.HOME = saved;
    }
  });

  test('a file or a symbolic link as the output is refused', async () => {
    fs.writeFileSync(path.join(root, 'file'), 'x');
    fs.mkdirSync(path.join(root, 'real'));
    fs.symlinkSync(path.join(root, 'real'), path.join(root, 'link'));
    const before = tree(root);
    expect((await synth(path.join(root, 'file'))).err).toContain('is a file, not a folder');
    expect((await synth(path.join(root, 'link'))).err).toContain('is a symbolic link');
    expect(tree(root)).toEqual(before);
  });

  test('absent, empty and marked folders are written; the marker is written and kept out of the file list', async () => {
    const out = path.join(root, 'dist');
    expect((await synth(out)).code).toBe(0);
    expect(fs.existsSync(path.join(out, OUTPUT_MARKER))).toBe(true);
    expect(listFiles(out)).not.toContain(OUTPUT_MARKER);
    fs.writeFileSync(path.join(out, 'stray.yaml'), 'kind: x\n');
    expect((await synth(out)).code).toBe(0); // marked: replaced as a whole
    expect(fs.existsSync(path.join(out, 'stray.yaml'))).toBe(false);
    const empty = path.join(root, 'empty');
    fs.mkdirSync(empty);
    expect((await synth(empty)).code).toBe(0);
  });

  test('a marker that is a folder does not count', async () => {
    const out = path.join(root, 'dist');
    fs.mkdirSync(path.join(out, OUTPUT_MARKER), { recursive: true });
    fs.writeFileSync(path.join(out, 'keep.txt'), 'mine');
    const r = await synth(out);
    expect(r.code).toBe(2);
    expect(fs.readFileSync(path.join(out, 'keep.txt'), 'utf8')).toBe('mine');
  });
});
