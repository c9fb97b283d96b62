import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { main } from '../../src/cli/main';
import { listFiles } from '../../src/synth/diff';
import { OUTPUT_MARKER, outputMarkerText, readOutputMarker } from '../../src/synth/ownership';

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
    const code = await main(
      ['node', 'rollwise', 'synth', '--app', app, '--out', out ?? ''],
      () => undefined,
      (t) => {
        err += t;
      },
    );
    return { code, err };
  } finally {
    process.chdir(before);
  }
}

describe("the output folder is rollwise's alone", () => {
  let root: string;
  beforeEach(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-own-'));
  });
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

  test('absent, empty and marked folders are written; the marker lists the files and is kept out of the file list', async () => {
    const out = path.join(root, 'dist');
    expect((await synth(out)).code).toBe(0);
    expect(fs.existsSync(path.join(out, OUTPUT_MARKER))).toBe(true);
    expect(listFiles(out)).not.toContain(OUTPUT_MARKER);
    expect(fs.readFileSync(path.join(out, OUTPUT_MARKER), 'utf8')).toBe(outputMarkerText(listFiles(out)));
    expect(listFiles(out)).toContain('prod/checkout-api.k8s.yaml');
    // a file of the previous synth that is gone, or was edited, is rollwise's: replaced
    fs.rmSync(path.join(out, 'prod', 'checkout-api.runbook.md'));
    fs.appendFileSync(path.join(out, 'prod', 'checkout-api.k8s.yaml'), '# hand edit\n');
    expect((await synth(out)).code).toBe(0);
    expect(fs.existsSync(path.join(out, 'prod', 'checkout-api.runbook.md'))).toBe(true);
    const empty = path.join(root, 'empty');
    fs.mkdirSync(empty);
    expect((await synth(empty)).code).toBe(0);
  });

  test('a marked output that has since become a Git repository is refused, naming .git and the new file; nothing changed', async () => {
    const out = path.join(root, 'proj');
    expect((await synth(out)).code).toBe(0);
    execFileSync('git', ['init', '-q', out]);
    fs.writeFileSync(path.join(out, 'main.ts'), 'console.log(1)\n');
    const before = tree(root);
    const r = await synth(out);
    expect(r.code).toBe(2);
    expect(r.err).toContain('.git (a Git repository)');
    expect(r.err).toContain('main.ts (source code)');
    expect(r.err).toContain('did not write');
    expect(r.err).toContain('synthesize into another folder');
    expect(tree(root)).toEqual(before);
  });

  test('a file the user added to a marked output (USER-NOTES.md, a folder of their own) is refused by name; nothing changed', async () => {
    const out = path.join(root, 'dist');
    expect((await synth(out)).code).toBe(0);
    fs.writeFileSync(path.join(out, 'USER-NOTES.md'), 'mine');
    fs.mkdirSync(path.join(out, 'notes'));
    fs.writeFileSync(path.join(out, 'notes', 'a.txt'), 'mine');
    fs.writeFileSync(path.join(out, 'prod', 'extra.yaml'), 'kind: x\n');
    fs.mkdirSync(path.join(out, 'empty-folder')); // holds nothing to lose
    const before = tree(root);
    const r = await synth(out);
    expect(r.code).toBe(2);
    expect(r.err).toContain('USER-NOTES.md, notes/, prod/extra.yaml');
    expect(r.err).toContain('move them out of the output folder');
    expect(tree(root)).toEqual(before);
    fs.rmSync(path.join(out, 'USER-NOTES.md'));
    fs.rmSync(path.join(out, 'notes'), { recursive: true });
    fs.rmSync(path.join(out, 'prod', 'extra.yaml'));
    expect((await synth(out)).code).toBe(0);
  });

  test.each([
    ['empty', '', 'is empty'],
    ['hand-made', 'rollwise output\n', 'does not start with the lines synth writes'],
    [
      'of the first version, which listed no files',
      'This folder is written by `rollwise synth`, which replaces it as a whole on every run.\nKeep no other files in it: they would be deleted. (docs/synth.md#the-output-folder)\n',
      'did not list the files',
    ],
    ['listing a path outside the folder', outputMarkerText(['../keep.txt']), 'lists a path synth would not write'],
  ])('a marker that synth did not write (%s) is not trusted; nothing changed', async (_name, text, why) => {
    const out = path.join(root, 'forged');
    fs.mkdirSync(out);
    fs.writeFileSync(path.join(out, OUTPUT_MARKER), text);
    fs.writeFileSync(path.join(out, 'keep.txt'), 'x');
    const before = tree(root);
    const r = await synth(out);
    expect(r.code).toBe(2);
    expect(r.err).toContain(why);
    expect(r.err).toContain('keep.txt');
    expect(tree(root)).toEqual(before);
  });

  test('a marker with Git conflict lines (two branches each added a service) lists both sides', () => {
    const merged = outputMarkerText(['a.k8s.yaml']).replace(
      'a.k8s.yaml\n',
      '<<<<<<< HEAD\na.k8s.yaml\nb.k8s.yaml\n=======\na.k8s.yaml\nc.k8s.yaml\n>>>>>>> topic\n',
    );
    const read = readOutputMarker(merged.replace(/\n/g, '\r\n'));
    expect('files' in read && [...read.files].sort()).toEqual(['a.k8s.yaml', 'b.k8s.yaml', 'c.k8s.yaml']);
    const odd = ['"quoted".yaml', '<<<<<<< x.yaml', 'a\nb.yaml'];
    const back = readOutputMarker(outputMarkerText(odd));
    expect('files' in back && [...back.files].sort()).toEqual([...odd].sort());
  });

  test('a file named like the swap journal that synth did not write (it names src/) moves, overwrites and deletes nothing', async () => {
    const src = path.join(root, 'src');
    fs.mkdirSync(src);
    fs.writeFileSync(path.join(src, 'main.ts'), 'x');
    fs.writeFileSync(path.join(root, '.out.swap'), JSON.stringify({ next: src, old: path.join(root, 'elsewhere') }));
    const before = tree(root);
    const r = await synth(path.join(root, 'out'));
    expect(r.code).toBe(2);
    expect(r.err).toContain('which is not a swap journal rollwise synth wrote');
    expect(tree(root)).toEqual(before);
    // a journal a crash cut short (empty) is synth's own and is cleared
    fs.writeFileSync(path.join(root, '.out.swap'), '');
    expect((await synth(path.join(root, 'out'))).code).toBe(0);
    expect(fs.existsSync(path.join(root, '.out.swap'))).toBe(false);
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
