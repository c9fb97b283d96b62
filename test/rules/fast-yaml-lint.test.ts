/**
 * What lint reads with src/rules/fast-yaml.ts is what it reads with the yaml package alone:
 * parseManifestText with the reader on and off gives the same objects, the same line for every
 * field path lint can ask about, the same problems (a key twice included: the reader leaves such a
 * text to the package, which reports it), documents, skipped documents and templates. Compared on
 * every file of test/fixtures, and on the precision corpora (the public repositories of
 * test/precision/repos.json) where they are checked out: `.precision` here, or the folder
 * ROLLWISE_PRECISION_DIR names (not part of `npm test` where absent: they are gigabytes).
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { isDeepStrictEqual } from 'util';
import { readDocuments, setFastYamlForBench } from '../../src/rules/fast-yaml';
import * as fc from 'fast-check';
import * as YAML from 'yaml';
import { parseManifestText, ParsedSource } from '../../src/rules/source';
import { findSchemaDir } from '../../src/schemas/cluster-validator';
import { KubernetesVersion } from '../../src/decisions/kubernetes-version';

const root = path.join(__dirname, '..', '..');

/** Field paths into a value in lint's notation (`a.b[0]["x.y"]`), plus paths that lead nowhere. */
function fieldPaths(v: unknown, prefix = '', out: string[] = [], depth = 0): string[] {
  out.push(`${prefix ? `${prefix}.` : ''}noSuchKey`, `${prefix}[0]`);
  if (depth > 12 || out.length > 4000) return out;
  if (Array.isArray(v)) {
    v.forEach((x, i) => {
      out.push(`${prefix}[${i}]`);
      fieldPaths(x, `${prefix}[${i}]`, out, depth + 1);
    });
  } else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      const seg = /^[A-Za-z0-9_-]+$/.test(k)
        ? prefix
          ? `${prefix}.${k}`
          : k
        : `${prefix}["${k.replace(/["\\]/g, '\\$&')}"]`;
      out.push(seg);
      fieldPaths(x, seg, out, depth + 1);
    }
  }
  return out;
}

/** What lint takes from a parsed text, lines included. */
function summary(p: ParsedSource): unknown {
  return {
    template: p.template ?? false,
    documents: p.documents,
    notManifests: p.notManifests,
    problems: p.problems,
    objects: p.objects.map((o) => ({
      obj: o.obj,
      ref: o.ref,
      file: o.file,
      kind: o.kind,
      apiVersion: o.apiVersion,
      lines: fieldPaths(o.obj).map((f) => [f, o.line(f)]),
    })),
  };
}

/** parseManifestText with the reader on and off, compared; undefined when alike. */
function compareText(text: string): string | undefined {
  const read = (on: boolean) => {
    setFastYamlForBench(on);
    try {
      return summary(parseManifestText(text, 'gen.yaml'));
    } catch (e) {
      return { threw: (e as Error).message };
    } finally {
      setFastYamlForBench(true);
    }
  };
  const own = read(true);
  const pkg = read(false);
  return isDeepStrictEqual(own, pkg)
    ? undefined
    : `${JSON.stringify(own).slice(0, 600)}\n  vs the package:\n${JSON.stringify(pkg).slice(0, 600)}`;
}

/** 'same' when lint reads the text alike both ways, else what differs; 'fast' says whether the reader read it (not left it to the package). */
function compareFile(file: string): { result: string; fast: boolean } {
  const text = fs.readFileSync(file, 'utf8');
  const read = (on: boolean) => {
    setFastYamlForBench(on);
    try {
      return summary(parseManifestText(text, file));
    } catch (e) {
      return { threw: (e as Error).message };
    } finally {
      setFastYamlForBench(true);
    }
  };
  const own = read(true);
  const pkg = read(false);
  if (isDeepStrictEqual(own, pkg)) return { result: 'same', fast: readDocuments(text, '1.1') !== undefined };
  return {
    result: `${JSON.stringify(own).slice(0, 400)}\n  vs the package:\n${JSON.stringify(pkg).slice(0, 400)}`,
    fast: true,
  };
}

function walk(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === '.git' || e.name === 'node_modules') continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile() && /\.(ya?ml|json)$/.test(e.name) && fs.statSync(p).size <= 4 * 1024 * 1024) out.push(p);
  }
  return out;
}

test('every file of test/fixtures and every YAML or JSON file of the repository: lint reads the same objects, lines and problems with its own reader as with the yaml package', () => {
  const tracked = execFileSync('git', ['ls-files', '*.yaml', '*.yml', '*.json'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((f) => path.join(root, f));
  const files = [...new Set([...walk(path.join(root, 'test', 'fixtures')), ...tracked])].filter(
    (f) => fs.existsSync(f) && fs.statSync(f).size <= 4 * 1024 * 1024,
  );
  const schemas = findSchemaDir(KubernetesVersion.V1_33);
  if (schemas) files.push(...walk(schemas).filter((f) => f.endsWith('.yaml')));
  expect(files.length).toBeGreaterThan(40);
  const results = files.map((f) => ({ f: path.relative(root, f), ...compareFile(f) }));
  expect(results.filter((r) => r.result !== 'same').map((r) => `${r.f}: ${r.result}`)).toEqual([]);
  // most of them read by the reader itself, not left to the package
  expect(results.filter((r) => r.fast).length).toBeGreaterThan(files.length * 0.7);
});

test('JSON that is not a manifest (package-lock.json, dashboards): lint reads it alike with JSON.parse and with the package', () => {
  const lock =
    '{\n  "name": "app",\n  "version": "1.0.0",\n  "packages": {"": {"name": "app"}, "node_modules/a": {"version": "1"}}\n}\n';
  expect(parseManifestText(lock, 'package-lock.json')).toEqual({
    objects: [],
    problems: [],
    documents: 1,
    notManifests: 1,
  });
  // a key twice (a string with ": inside does not count as a key), a manifest, its missing kind: the package's path
  const dup = '{"a": "x\\": 1", "b": {"c": 1, "c": 2}}';
  expect(parseManifestText(dup, 'd.json').problems.map((p) => p.duplicateKey?.key)).toEqual(['c']);
  expect(
    parseManifestText('{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "m"}}', 'm.json').objects,
  ).toHaveLength(1);
  expect(parseManifestText('{"apiVersion": "v1"}', 'n.json').problems).toHaveLength(1);
  for (const t of [lock, dup]) expect(compareText(t)).toBeUndefined();
  // generated JSON objects (keys twice now and then, written compact or indented, with CR LF)
  fc.assert(
    fc.property(
      fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 }),
      fc.nat({ max: 3 }),
      fc.constantFrom(0, 2),
      fc.boolean(),
      (obj, twice, indent, crlf) => {
        let text = JSON.stringify(obj, null, indent);
        const keys = Object.keys(obj);
        if (twice > 0 && keys.length > 0)
          text = text.replace(/^\{/, `{${JSON.stringify(keys[twice % keys.length])}: 0, `);
        if (crlf) text = text.replace(/\n/g, '\r\n');
        const diff = compareText(text);
        if (diff !== undefined) throw new Error(`${diff}\n--- text:\n${text}`);
      },
    ),
    { numRuns: 1500, seed: 1515 },
  );
});

test('a key twice: left to the package, which keeps the last value and reports the key (as kubectl reads it)', () => {
  const text = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: "1"\n  x: "2"\n';
  expect(readDocuments(text, '1.1')).toBeUndefined();
  const p = parseManifestText(text, 'dup.yaml');
  expect(p.objects[0].obj.data).toEqual({ x: '2' });
  expect(p.problems).toHaveLength(1);
  expect(p.problems[0].line).toBe(7);
});

test('an unquoted timestamp (kubectl get -o yaml): left to the package, whose toJS() gives a Date (the reader once gave its JSON text)', () => {
  const text =
    'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: a\n  creationTimestamp: 2018-12-02T08:09:25Z\nstatus:\n  startTime: 2018-12-02 08:09:25\n';
  expect(readDocuments(text, '1.1')).toBeUndefined();
  expect(compareText(text)).toBeUndefined();
  expect(
    (parseManifestText(text, 'job.yaml').objects[0].obj.metadata as Record<string, unknown>).creationTimestamp,
  ).toBeInstanceOf(Date);
  // quoted, it is a string, and the reader reads it
  expect(readDocuments(text.replace(/: (2018[^\n]*)/g, ': "$1"'), '1.1')).toBeDefined();
});

const corpora = process.env.ROLLWISE_PRECISION_DIR ?? path.join(root, '.precision');
const corporaTest = fs.existsSync(corpora) ? test : test.skip;

corporaTest(
  'the precision corpora (every YAML and JSON file of the checked-out repositories): lint reads them alike both ways',
  () => {
    const files = walk(corpora);
    const bad: string[] = [];
    let fast = 0;
    for (const f of files) {
      const r = compareFile(f);
      if (r.result !== 'same') bad.push(`${path.relative(corpora, f)}: ${r.result}`);
      if (r.fast) fast++;
    }
    process.stderr.write(
      `precision corpora: ${files.length} files compared, ${fast} read by fast-yaml.ts, ${files.length - fast} left to the yaml package, ${bad.length} different\n`,
    );
    expect(bad.slice(0, 20)).toEqual([]);
  },
  3_600_000,
);

const WORDS = [
  'a',
  'yes',
  'No',
  'on',
  '~',
  'null',
  '',
  ' x',
  '1e3',
  '0x1',
  '0o7',
  '017',
  '1_000',
  '1:20',
  '.inf',
  '2001-12-14',
  '- a',
  'a: b',
  '#a',
  'a #b',
  "it's",
  'say "hi"',
  'a\nb',
  'a\n',
  'é',
  '😀',
  '{{ .Values.x }}',
  '<<',
  '=',
  '---',
];
const word = fc.oneof(fc.constantFrom(...WORDS), fc.string({ maxLength: 8 }));
const scalar = fc.oneof(word, fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null));
const { value: data } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('object'), tie('array')),
  object: fc.dictionary(word, tie('value'), { maxKeys: 4 }),
  array: fc.array(tie('value'), { maxLength: 3 }),
}));
const manifest = fc.record({
  apiVersion: fc.constantFrom('v1', 'apps/v1', 'argoproj.io/v1alpha1'),
  kind: fc.constantFrom('ConfigMap', 'Deployment', 'Rollout', 'List'),
  metadata: fc.record({ name: word, namespace: fc.option(word) }),
  spec: data,
  items: fc.array(data, { maxLength: 2 }),
});

test('generated manifests in the styles the yaml package writes, with comments and a key twice now and then: lint reads them alike both ways', () => {
  fc.assert(
    fc.property(
      fc.array(fc.oneof(manifest, data), { minLength: 1, maxLength: 3 }),
      fc.constantFrom(2, 4),
      fc.boolean(),
      fc.nat(),
      (docs, indent, indentSeq, n) => {
        let text = docs
          .map((d) => YAML.stringify(d, { version: '1.1', indent, indentSeq, lineWidth: n % 3 === 0 ? 20 : 0 }))
          .join(n % 2 ? '---\n' : '---\n# a comment\n');
        // a key twice (kubectl keeps the last value; lint reports it)
        if (n % 5 === 0) text = text.replace(/^kind: (.*)$/m, 'kind: $1\nkind: $1');
        const r = compareText(text);
        if (r) throw new Error(`${r}\n--- text:\n${text}`);
      },
    ),
    { numRuns: 800, seed: 2527 },
  );
});
