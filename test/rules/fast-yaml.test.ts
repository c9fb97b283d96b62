/**
 * src/rules/fast-yaml.ts reads what the yaml package reads (documents, values, the line of every
 * key and item), or says it cannot: compared on every YAML file of the repository, the pinned CRDs,
 * the lint benchmark's texts and generated documents written every way the package writes them,
 * with comments, blank lines and broken lines added.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { execFileSync } from 'child_process';
import { isDeepStrictEqual } from 'util';
import * as fc from 'fast-check';
import * as YAML from 'yaml';
import { benchManifest, benchTree } from '../../bench/lint';
import { readDocuments } from '../../src/rules/fast-yaml';
import { findSchemaDir } from '../../src/schemas/cluster-validator';
import { KubernetesVersion } from '../../src/decisions/kubernetes-version';

const root = path.join(__dirname, '..', '..');

/** source.ts lineOf on the package's Document. */
function yamlLineOf(doc: YAML.Document, segs: (string | number)[], lc: YAML.LineCounter): number {
  let node: unknown = doc.contents;
  let pos = doc.contents && YAML.isNode(doc.contents) && doc.contents.range ? doc.contents.range[0] : 0;
  for (const seg of segs) {
    if (YAML.isMap(node)) {
      const pair = node.items.find((p) => YAML.isScalar(p.key) && p.key.value === seg);
      if (!pair) break;
      if (YAML.isNode(pair.key) && pair.key.range) pos = pair.key.range[0];
      node = pair.value;
    } else if (YAML.isSeq(node) && typeof seg === 'number') {
      const item = node.items[seg];
      if (!YAML.isNode(item)) break;
      if (item.range) pos = item.range[0];
      node = item;
    } else break;
  }
  return lc.linePos(pos).line;
}

/** Every path into a value, plus paths that lead nowhere. */
function paths(v: unknown, pre: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [pre, [...pre, 'no-such-key'], [...pre, 0], [...pre, 'true']];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...paths(x, [...pre, i])));
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      out.push(...paths(x, [...pre, k]));
      if (/^-?\d+$/.test(k)) out.push([...pre, Number(k)]);
    }
  }
  return out;
}

/** 'read' when the reader gives what the package gives, 'left' when it leaves the text to the package; else what differs. */
function compare(text: string, version: '1.1' | '1.2'): string {
  const fast = readDocuments(text, version);
  if (!fast) return 'left';
  const lc = new YAML.LineCounter();
  const docs = Array.from(YAML.parseAllDocuments(text, { version, lineCounter: lc }));
  const bad = docs.find((d) => d.errors.length > 0);
  if (bad) return `the package has an error (${bad.errors[0].message.split('\n')[0]}) the reader did not see`;
  if (docs.length !== fast.length) return `${docs.length} documents vs ${fast.length}`;
  for (let i = 0; i < docs.length; i++) {
    const js = docs[i].toJS({ maxAliasCount: 100 });
    if (!isDeepStrictEqual(js, fast[i].value))
      return `document ${i}: ${JSON.stringify(js)} vs ${JSON.stringify(fast[i].value)}`;
    if (js !== null && docs[i].contents && lc.linePos(docs[i].contents!.range![0]).line !== fast[i].contentLine)
      return `document ${i}: contents at line ${lc.linePos(docs[i].contents!.range![0]).line} vs ${fast[i].contentLine}`;
    for (const p of paths(js)) {
      const a = yamlLineOf(docs[i], p, lc);
      const b = fast[i].lineOf(p);
      if (a !== b) return `document ${i} ${JSON.stringify(p)}: line ${a} vs ${b}`;
    }
  }
  return 'read';
}

test('every YAML file of the repository: read as the package reads it (YAML 1.1), or left to it', () => {
  const files = execFileSync('git', ['ls-files', '*.yaml', '*.yml'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
  const results = files.map((f) => [f, compare(fs.readFileSync(path.join(root, f), 'utf8'), '1.1')]);
  expect(results.filter(([, r]) => r !== 'read' && r !== 'left')).toEqual([]);
  expect(results.filter(([, r]) => r === 'read').length).toBeGreaterThan(files.length * 0.8);
});

test('Windows line ends: every YAML file of the repository with CR LF read as the package reads it, as with LF', () => {
  const files = execFileSync('git', ['ls-files', '*.yaml', '*.yml'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
  let read = 0;
  for (const f of files) {
    const text = fs.readFileSync(path.join(root, f), 'utf8');
    const crlf = compare(text.replace(/\r?\n/g, '\r\n'), '1.1');
    // the same verdict as the LF text's: CR LF changes neither what is read nor what is left
    expect([f, crlf]).toEqual([f, compare(text.replace(/\r\n/g, '\n'), '1.1')]);
    if (crlf === 'read') read++;
  }
  expect(read).toBeGreaterThan(files.length * 0.8);
  // a lone CR is a line break to the package and not to the reader's lines: left to the package
  expect(compare('a: 1\rb: 2\n', '1.1')).toBe('left');
  expect(compare('a: 1\r\nb: |\r\n  x\r\n  y\r\nc: "p\r\n  q"\r\n', '1.1')).toBe('read');
});

test('the pinned CRDs: every one read exactly as the package reads it (YAML 1.2)', () => {
  const dir = findSchemaDir(KubernetesVersion.V1_33);
  if (!dir) throw new Error('no pinned schemas (npm test fetches them)');
  const crds = fs.readdirSync(path.join(dir, 'crds')).filter((f) => f.endsWith('.yaml'));
  expect(crds.length).toBeGreaterThan(5);
  for (const f of crds)
    expect([f, compare(fs.readFileSync(path.join(dir, 'crds', f), 'utf8'), '1.2')]).toEqual([f, 'read']);
});

test("the lint benchmark's texts and repository files: read exactly", () => {
  expect(compare(benchManifest(600), '1.1')).toBe('read');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fast-yaml-'));
  try {
    benchTree(dir, 300);
    const walk = (d: string): string[] =>
      fs
        .readdirSync(d, { withFileTypes: true })
        .flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]));
    // every file read exactly, the Helm templates left to the package (their actions break the YAML)
    for (const f of walk(dir))
      expect([path.basename(f), compare(fs.readFileSync(f, 'utf8'), '1.1')]).toEqual([
        path.basename(f),
        path.basename(f).startsWith('helm-') ? 'left' : 'read',
      ]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

const WORDS = [
  'a',
  'b c',
  'yes',
  'No',
  'on',
  'null',
  '~',
  '',
  ' x',
  'x ',
  '1',
  '-1',
  '0o7',
  '017',
  '0x1F',
  '1_000',
  '1:20',
  '.5',
  '1e3',
  '.inf',
  '.NaN',
  '2001-12-14',
  '=',
  '<<',
  '-',
  '- a',
  '? a',
  ':',
  'a:',
  'a: b',
  'a:b',
  '#a',
  'a #b',
  'a#b',
  "'",
  '"',
  "it's",
  'say "hi"',
  'a\nb',
  'a\n\nb',
  'a\n',
  '\na',
  ' a\nb',
  'a\n b',
  'tab\there',
  'x'.repeat(50),
  `${'word '.repeat(20)}end`,
  'é',
  '😀',
  '[a]',
  '{a}',
  'a,b',
  '%x',
  '@x',
  '`x',
  '!x',
  '&x',
  '*x',
  '|',
  '>',
  '---',
  '...',
  'http://x.io/a?b=c#d',
  '{{ .Values.x }}',
  'len(result) > 0',
  "rule: self.x == 'y'",
];
const word = fc.oneof(
  fc.constantFrom(...WORDS),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'grapheme-ascii', maxLength: 12 }),
);
const scalar = fc.oneof(word, fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null));
const { value: data } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('object'), tie('array')),
  object: fc.dictionary(word, tie('value'), { maxKeys: 5 }),
  array: fc.array(tie('value'), { maxLength: 4 }),
}));
const styles = fc.record({
  indentSeq: fc.boolean(),
  indent: fc.constantFrom(2, 4),
  lineWidth: fc.constantFrom(0, 20, 80),
  flowLevel: fc.constantFrom(undefined, 1, 2, 3),
  defaultStringType: fc.constantFrom('PLAIN', 'QUOTE_DOUBLE', 'QUOTE_SINGLE', 'BLOCK_LITERAL', 'BLOCK_FOLDED'),
  defaultKeyType: fc.constantFrom(null, 'PLAIN', 'QUOTE_DOUBLE'),
  blockQuote: fc.constantFrom(true, 'literal', 'folded'),
  doubleQuotedMinMultiLineLength: fc.constantFrom(10, 40),
});

/** Lines added between the lines of a text: comments at every indent, blank lines, trailing spaces and comments. */
function decorate(text: string, edits: number[]): string {
  const lines = text.split('\n');
  for (const e of edits) {
    const at = e % (lines.length + 1);
    const kind = Math.floor(e / 7) % 8;
    if (kind === 0) lines.splice(at, 0, '');
    else if (kind === 1) lines.splice(at, 0, `${' '.repeat(e % 9)}# comment ${e}`);
    else if (kind === 2 && lines[at] !== undefined && !lines[at].endsWith('|') && !lines[at].endsWith('>'))
      lines[at] += ' # trailing';
    else if (kind === 3 && lines[at] !== undefined) lines[at] += '  ';
    else if (kind === 4) lines.splice(at, 0, '---');
    else if (kind === 5 && lines[at] !== undefined) lines[at] = ` ${lines[at]}`;
    else if (lines[at] !== undefined && lines[at].length > 0) {
      // a broken line: a character dropped or doubled
      const c = e % lines[at].length;
      lines[at] =
        e % 2
          ? lines[at].slice(0, c) + lines[at].slice(c + 1)
          : lines[at].slice(0, c) + lines[at][c] + lines[at].slice(c);
    }
  }
  return lines.join('\n');
}

test('generated documents, written every way the package writes them, with comments and broken lines added: read exactly, or left', () => {
  const tally = { read: 0, left: 0 };
  fc.assert(
    fc.property(
      fc.array(data, { minLength: 1, maxLength: 3 }),
      styles,
      fc.array(fc.nat({ max: 500 }), { maxLength: 6 }),
      fc.constantFrom<'1.1' | '1.2'>('1.1', '1.2'),
      (values, style, edits, version) => {
        let text: string;
        try {
          // a value reused (written as an anchor and aliases) in every other document
          text = values
            .map((v, i) =>
              new YAML.Document(i % 2 && v && typeof v === 'object' ? { first: v, again: v, list: [v, 1, v] } : v, {
                version,
              }).toString(style as YAML.ToStringOptions),
            )
            .join('---\n');
        } catch {
          return;
        }
        const decorated = decorate(text, edits);
        for (const t of [text, decorated, decorated.replace(/\n/g, '\r\n')]) {
          const r = compare(t, version);
          if (r !== 'read' && r !== 'left') throw new Error(`${r}\n--- text:\n${t}`);
          tally[r as 'read' | 'left']++;
        }
      },
    ),
    { numRuns: 2500, seed: 2526 },
  );
  expect(tally.read).toBeGreaterThan(tally.left / 2);
});

test('quoted scalars over many lines (as in a render read for lint): read exactly', () => {
  // A quoted scalar may run over many lines (which producer writes set 11's long ones was not
  // checked); the reader scans each line once, carrying the scan across lines (an escape that ends
  // a line, a '' pair), and must read what the package reads.
  const lines = (n: number, line: (i: number) => string) => Array.from({ length: n }, (_, i) => line(i)).join('\n');
  const texts = [
    `kind: ConfigMap\ndata:\n  d.json: "{\\n\\"panels\\": [\n${lines(3000, (i) => `    {\\"id\\": ${i}, \\"t\\": \\"a b\\"},\\n\\`)}\n    {}]}"\n  other: x\n`,
    `kind: ConfigMap\ndata:\n  s: 'it''s\n${lines(2000, (i) => `    line ${i} ''q'' here`)}\n    end'\n`,
    `kind: ConfigMap\ndata:\n  e: "ends with an escape \\\\\n    next \\"\n    x"\n  f: "a\\\n    b"\n`,
    `a: "x\n\n  y \\t\n  z"\nb: 'p\n\n  ''\n  q'\n`,
  ];
  for (const t of texts) expect(compare(t, '1.1')).toBe('read');
  fc.assert(
    fc.property(
      fc.array(fc.stringMatching(/^[a-z "'\\#:]{0,12}$/), { minLength: 1, maxLength: 8 }),
      fc.constantFrom('"', "'"),
      (parts, q) => {
        const body = parts.map((p) => (q === '"' ? p.replace(/"/g, '\\"') : p.replace(/'/g, "''"))).join('\n    ');
        const r = compare(`k:\n  v: ${q}${body}${q}\n  w: 1\n`, '1.1');
        return r === 'read' || r === 'left';
      },
    ),
    { numRuns: 2000 },
  );
});
