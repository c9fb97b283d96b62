import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { ApiObject, App, Chart, YamlOutputType } from 'cdk8s';
import { commentYamlText } from '../../src/justify/comments';
import { listFiles } from '../../src/synth/diff';
import { SynthLayout } from '../../src/synth/layout';
import { writeApp } from '../../src/synth/synth';
import { outputFilesOf } from '../../src/synth/output';
import { FIXTURES } from './fixtures';

const COMMENT_LINE = /^\s*#/;

/**
 * The lines `actual` has in addition to `expected`, when `expected` is `actual` with some
 * whole-line comments removed (and nothing else changed); otherwise the first line that differs.
 * Unlike stripping every "#" line, this keeps content lines that merely look like comments (a
 * "# ..." line inside a block scalar) in the comparison.
 */
function addedComments(actual: string, expected: string): { added: string[]; mismatch?: string } {
  const a = hoistItemComments(actual.split('\n'));
  const e = expected.split('\n');
  const added: string[] = [];
  let j = 0;
  for (let i = 0; i < a.length; i++) {
    if (j < e.length && a[i] === e[j]) j++;
    else if (COMMENT_LINE.test(a[i])) added.push(a[i]);
    else
      return {
        added,
        mismatch: `line ${i + 1}: ${JSON.stringify(a[i])} where App.synth() has ${JSON.stringify(e[j])}`,
      };
  }
  return j === e.length ? { added } : { added, mismatch: `App.synth() has more: ${JSON.stringify(e[j])}` };
}

/**
 * A comment before the first key of a sequence item is written on the dash line
 * ("- # reason" ... "  key: v"); rewrite it as whole-line comments followed by "- key: v", the
 * form the comparison understands, changing nothing else.
 */
function hoistItemComments(lines: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^(\s*)- (#.*)$/.exec(lines[i]);
    if (!m) {
      out.push(lines[i]);
      continue;
    }
    const indent = m[1];
    out.push(`${indent}  ${m[2]}`);
    let k = i + 1;
    while (k < lines.length && COMMENT_LINE.test(lines[k])) out.push(lines[k++]);
    if (k < lines.length && lines[k].startsWith(`${indent}  `))
      out.push(`${indent}- ${lines[k].slice(indent.length + 2)}`);
    else if (k < lines.length) out.push(lines[k]);
    i = k;
  }
  return out;
}

function read(dir: string): Record<string, string> {
  return Object.fromEntries(listFiles(dir).map((f) => [f, fs.readFileSync(path.join(dir, f), 'utf8')]));
}

/** The files cdk8s knows nothing about (a construct's runbook, via addOutputFile) are compared elsewhere. */
function withoutExtraFiles(files: Record<string, string>, app: App): Record<string, string> {
  const extra = new Set(outputFilesOf(app).keys());
  return Object.fromEntries(Object.entries(files).filter(([f]) => !extra.has(f)));
}

let root: string;
beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-eq-'));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe.each(Object.entries(FIXTURES))('%s', (name, build) => {
  const dir = (k: string) => path.join(root, `${name.replace(/\W+/g, '-')}-${k}`);
  let expected: Record<string, string>;
  beforeAll(() => {
    build(dir('cdk8s')).synth();
    expected = read(dir('cdk8s'));
  });

  test('without comments: the same files and bytes as App.synth()', () => {
    const app = build(dir('plain'));
    writeApp(app, dir('plain'), { comments: false, layout: SynthLayout.flat() });
    const actual = withoutExtraFiles(read(dir('plain')), app);
    expect(Object.keys(actual)).toEqual(Object.keys(expected));
    expect(Object.keys(actual).length).toBeGreaterThan(0);
    for (const f of Object.keys(expected)) expect(actual[f]).toBe(expected[f]);
  });

  test('with comments: App.synth() plus comment lines only, and the comments the old re-parse pass adds', () => {
    const app = build(dir('commented'));
    writeApp(app, dir('commented'), {});
    const actual = withoutExtraFiles(read(dir('commented')), app);
    expect(Object.keys(actual)).toEqual(Object.keys(expected));
    for (const f of Object.keys(expected)) {
      const { mismatch } = addedComments(actual[f], expected[f]);
      expect(mismatch).toBeUndefined();
      expect(actual[f]).toBe(commentYamlText(expected[f]));
    }
  });
});

test('the HttpService fixture really carries comments (the comment pass is exercised)', () => {
  const out = path.join(root, 'http-count');
  writeApp(FIXTURES['HttpService (with reasons)'](out), out);
  const text = fs.readFileSync(path.join(out, 'checkout-api.k8s.yaml'), 'utf8');
  expect(text).toMatch(
    /\n {14}# Measured CPU need at peak \(input\): the scheduler reserves 250m and the kernel weights the pod's\n {14}# share by it under contention.\n {14}cpu: 250m\n/,
  );
  const expected = path.join(root, 'http-count-cdk8s');
  FIXTURES['HttpService (with reasons)'](expected).synth();
  const { added, mismatch } = addedComments(
    text,
    fs.readFileSync(path.join(expected, 'checkout-api.k8s.yaml'), 'utf8'),
  );
  expect(mismatch).toBeUndefined();
  expect(added.length).toBeGreaterThan(40);
  expect(added.filter((l) => l.includes('docs/mechanisms.md#')).length).toBeGreaterThan(5);
});

test('the comparison catches a changed value next to added comments', () => {
  const base = 'a: 1\nb:\n  c: 2\n';
  expect(addedComments('a: 1\nb:\n  # why\n  c: 2\n', base)).toEqual({ added: ['  # why'] });
  expect(addedComments('a: 1\nb:\n  # why\n  c: 3\n', base).mismatch).toBe(
    'line 4: "  c: 3" where App.synth() has "  c: 2"',
  );
  expect(addedComments('a: 1', 'a: 1\nb: 2').mismatch).toBe('App.synth() has more: "b: 2"');
});

test('the dependent-charts fixture gets the indexed names, in dependency order', () => {
  const out = path.join(root, 'indexed');
  writeApp(FIXTURES['dependencies between charts (indexed file names)'](out), out, { comments: false });
  expect(listFiles(out)).toEqual([
    '0000-base.k8s.yaml',
    '0001-crds.k8s.yaml',
    '0002-apps.k8s.yaml',
    '0003-empty.k8s.yaml',
  ]);
  expect(fs.readFileSync(path.join(out, '0003-empty.k8s.yaml'), 'utf8')).toBe('');
});

describe.each([
  ['FILE_PER_APP', YamlOutputType.FILE_PER_APP],
  ['FILE_PER_RESOURCE', YamlOutputType.FILE_PER_RESOURCE],
  ['FOLDER_PER_CHART_FILE_PER_RESOURCE', YamlOutputType.FOLDER_PER_CHART_FILE_PER_RESOURCE],
])('yamlOutputType %s, construct metadata, custom extension', (name, yamlOutputType) => {
  const build = (outdir: string) => {
    const app = new App({ outdir, yamlOutputType, outputFileExtension: '.yml', recordConstructMetadata: true });
    const a = new Chart(app, 'a');
    const x = new ApiObject(a, 'x', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'same' } });
    new ApiObject(a, 'y', { apiVersion: 'v1', kind: 'Secret' });
    const b = new Chart(app, 'b');
    new ApiObject(b, 'z', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'other' },
      data: { b: 'chart' },
    } as never).addDependency(x);
    return app;
  };
  test('same files and bytes as App.synth()', () => {
    const expectedDir = path.join(root, `${name}-cdk8s`);
    build(expectedDir).synth();
    const actualDir = path.join(root, `${name}-ours`);
    writeApp(build(actualDir), actualDir, { comments: false });
    const expected = read(expectedDir);
    expect(Object.keys(expected).length).toBeGreaterThan(1);
    expect(read(actualDir)).toEqual(expected);
  });
  if (yamlOutputType !== YamlOutputType.FILE_PER_APP) {
    test('two objects of one kind and name in one folder: refused, naming both (cdk8s writes only the last)', () => {
      const app = build(path.join(root, `${name}-dup`));
      new ApiObject(app.node.findChild('b') as Chart, 'dup', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: yamlOutputType === YamlOutputType.FILE_PER_RESOURCE ? 'same' : 'other' },
      });
      expect(() => writeApp(app, path.join(root, `${name}-dup`), { comments: false })).toThrow(
        /two outputs write (0001-b\/)?ConfigMap\.(same|other)\.yml: ConfigMap (same|other) of chart (a|b) and ConfigMap (same|other) of chart b/,
      );
    });
  }
});
