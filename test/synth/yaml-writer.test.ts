/**
 * src/synth/yaml-writer.ts writes the bytes the yaml package writes (with cdk8s' options, and the
 * comments commentDocument sets), or says it cannot: compared on every committed output, the bench
 * estates, and generated objects full of strings the package quotes, folds into block literals or
 * escapes.
 */
import * as fs from 'fs';
import * as path from 'path';
import { ApiObject, Chart, Yaml } from 'cdk8s';
import * as fc from 'fast-check';
import * as YAML from 'yaml';
import { buildEstate, type Estate } from '../../bench/synth';
import { cachedFieldPath, reasonsOf, toCommentedYaml, wrap, YAML_OPTIONS } from '../../src/justify/comments';
import { commentBySteps, commentText, writeYaml } from '../../src/synth/yaml-writer';
import { wrapBySplit } from '../../src/justify/wrap';
import { serializeObjects } from '../../src/synth/serialize';

const root = path.join(__dirname, '..', '..');

/** The package's bytes: with comments as toCommentedYaml writes them, without as YAML.stringify. */
function expected(o: unknown, reasons?: Record<string, string>): string {
  if (!reasons) return YAML.stringify(o, YAML_OPTIONS);
  const doc = new YAML.Document(o, YAML_OPTIONS);
  for (const [p, reason] of Object.entries(reasons)) {
    // commentDocument (src/justify/comments.ts), with given reasons instead of the annotation
    const segs = cachedFieldPath(p);
    const parent = doc.getIn(segs.slice(0, -1), true);
    const last = segs[segs.length - 1];
    if (YAML.isMap(parent)) {
      const pair = parent.items.find((x) => YAML.isScalar(x.key) && x.key.value === last);
      if (pair && YAML.isScalar(pair.key)) pair.key.commentBefore = wrap(reason);
    } else if (YAML.isSeq(parent)) {
      const item = parent.items[Number(last)];
      if (YAML.isNode(item)) item.commentBefore = wrap(reason);
    }
  }
  return doc.toString(YAML_OPTIONS);
}

const written = (o: unknown, reasons?: Record<string, string>) =>
  writeYaml(o, reasons ? { reasons, segments: cachedFieldPath, wrap } : undefined);

function committedObjects(): { file: string; objects: unknown[] }[] {
  const out: { file: string; objects: unknown[] }[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.ya?ml$/.test(e.name))
        out.push({
          file: path.relative(root, p),
          objects: YAML.parseAllDocuments(fs.readFileSync(p, 'utf8'), { version: '1.1' }).map((d) => d.toJS()),
        });
    }
  };
  walk(path.join(root, 'dist'));
  walk(path.join(root, 'test', 'rehearse', 'fixtures'));
  return out;
}

test('every committed output object: the same bytes as the yaml package, with and without the comments', () => {
  let n = 0;
  for (const { file, objects } of committedObjects()) {
    for (const o of objects) {
      if (o === null || typeof o !== 'object') continue;
      const reasons = reasonsOf(o);
      expect([file, written(o)]).toEqual([file, expected(o)]);
      expect([file, written(o, reasons)]).toEqual([file, toCommentedYaml([o])]);
      n++;
    }
  }
  expect(n).toBeGreaterThan(20);
});

test('the bench estates (capacity, no capacity, every service its own traffic): serializeObjects writes what the package writes', () => {
  for (const estate of ['capacity', 'no-capacity', 'distinct'] as Estate[]) {
    const app = buildEstate(9, undefined, estate);
    for (const chart of app.node.children.filter((c): c is Chart => c instanceof Chart)) {
      const objects = chart.node
        .findAll()
        .filter((c): c is ApiObject => c instanceof ApiObject)
        .map((o) => o.toJson());
      expect(serializeObjects(objects, false)).toBe(Yaml.stringify(...objects));
      expect(serializeObjects(objects, true)).toBe(
        objects
          .map((o) =>
            reasonsOf(o) && Object.keys(reasonsOf(o)).length ? toCommentedYaml([o]) : YAML.stringify(o, YAML_OPTIONS),
          )
          .join('---\n'),
      );
      for (const o of objects) expect(written(o, reasonsOf(o))).toBeDefined();
    }
  }
});

/** Strings the package writes in every way it has: plain, quoted for the YAML 1.1 types, indicators, block literals, escapes. */
const TRICKY = [
  '',
  ' ',
  'a',
  'yes',
  'No',
  'ON',
  'off',
  'y',
  'n',
  '~',
  'null',
  'Null',
  'true',
  'FALSE',
  '1',
  '-1',
  '+1',
  '0o7',
  '0x1',
  '0x1F',
  '1e3 ',
  '+.5',
  '0.',
  '12:30',
  '1,000',
  'Y',
  'N',
  'NULL',
  '~ ',
  '0b101',
  '017',
  '1_000',
  '1:20',
  '1:20:30.5',
  '.5',
  '1.',
  '1e3',
  '1.5e-3',
  '.inf',
  '-.Inf',
  '.nan',
  '2001-12-14',
  '2001-12-14t21:59:43.10-05:00',
  '=',
  '<<',
  '-',
  '?',
  '- a',
  '? a',
  ':',
  'a:',
  'a: b',
  'a:b',
  '#a',
  'a #b',
  'a#b',
  'a ',
  ' a',
  '\ta',
  '&a',
  '*a',
  '!a',
  '|',
  '>',
  "'",
  '"',
  "'a'",
  '"a"',
  'a"b',
  "a'b",
  `a'b"c`,
  '%a',
  '@a',
  '`a',
  '[a]',
  '{a}',
  'a,b',
  '---',
  '--- a',
  '...',
  'a\n---\nb',
  '%YAML',
  'a\nb',
  'a\n',
  'a\n\n',
  '\na',
  ' a\nb',
  'a\n b',
  'a \nb',
  'a\n\nb',
  'a\n\n\nb\n',
  'a\n ',
  'a\t\nb',
  '\u0000',
  'a\u0007b',
  '\u001b[0m',
  '\u0085',
  '\u00a0',
  '\u2028',
  '\u2029',
  '\ud800',
  'é',
  '日本',
  '😀',
  'x'.repeat(39),
  `${'x'.repeat(39)}\n`,
  `${'ab '.repeat(30)}\nline two`,
  'say "hi"\nthere',
  "it's\nok",
  'a: b\nc: d',
  'http://x.example.com/a?b=c#d',
  '{{ $value }}',
  'len(result) > 0 && !isNaN(result[0])',
  'sum(rate(x{a="b"}[2m])) or on() vector(0)',
];
const tricky = fc.oneof(
  fc.constantFrom(...TRICKY),
  fc.string({ maxLength: 12 }),
  fc.string({ unit: 'grapheme', maxLength: 8 }),
  fc
    .array(fc.constantFrom('a', ' ', '\n', ':', '#', '-', '"', "'", '\t', 'x', '---', '%', '\\'), { maxLength: 12 })
    .map((xs) => xs.join('')),
);
const scalar = fc.oneof(
  tricky,
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, 1e21, 1.5, -2.25, 1e-7, Number.MAX_SAFE_INTEGER),
  fc.boolean(),
  fc.constant(null),
);
const { value: jsonish } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('object'), tie('array')),
  object: fc.dictionary(tricky, tie('value'), { maxKeys: 5 }),
  array: fc.array(tie('value'), { maxLength: 4 }),
}));

/** Reason paths into an object (existing or not), in the reasons' notation. */
function pathsOf(o: unknown, prefix = ''): string[] {
  const out: string[] = [];
  if (Array.isArray(o)) o.forEach((v, i) => out.push(`${prefix}[${i}]`, ...pathsOf(v, `${prefix}[${i}]`)));
  else if (o && typeof o === 'object') {
    for (const [k, v] of Object.entries(o)) {
      const seg = /^[^.[\]"]+$/.test(k)
        ? prefix
          ? `${prefix}.${k}`
          : k
        : `${prefix}["${k.replace(/["\\]/g, '\\$&')}"]`;
      out.push(seg, ...pathsOf(v, seg));
    }
  }
  return out;
}

test('generated objects: the same bytes as the yaml package whenever the writer writes, with comments anywhere', () => {
  let wrote = 0;
  fc.assert(
    fc.property(
      fc.dictionary(tricky, jsonish, { minKeys: 1, maxKeys: 6 }),
      fc.array(fc.nat(), { maxLength: 6 }),
      fc.array(fc.constantFrom(...TRICKY.filter((t) => t.trim() !== '')), { maxLength: 6 }),
      (o, picks, texts) => {
        const paths = pathsOf(o);
        const reasons: Record<string, string> = {};
        picks.forEach((p, i) => {
          if (paths.length) reasons[paths[p % paths.length]] = `${texts[i] ?? 'why'} ${'word '.repeat(p % 40)}`;
        });
        const plain = written(o);
        if (plain !== undefined) {
          wrote++;
          expect(plain).toBe(expected(o));
        }
        const commented = written(o, reasons);
        if (commented !== undefined) expect(commented).toBe(expected(o, reasons));
      },
    ),
    { numRuns: 3000, seed: 2525 },
  );
  expect(wrote).toBeGreaterThan(2500);
});

test('what the writer does not model is left to the package: an object reached twice (an alias), undefined, a Date, a long key', () => {
  const shared = { a: 1 };
  expect(written({ x: shared, y: shared })).toBeUndefined();
  expect(YAML.stringify({ x: shared, y: shared }, YAML_OPTIONS)).toMatch(/&a1/);
  expect(written({ x: undefined })).toBeUndefined();
  expect(written({ x: new Date(0) })).toBeUndefined();
  expect(written({ ['k'.repeat(1100)]: 1 })).toBeUndefined();
  expect(written({ x: 'kept\n\n' })).toBeUndefined();
  for (const o of [{ x: shared, y: shared }, { x: undefined }, { ['k'.repeat(1100)]: 1 }, { x: 'kept\n\n' }])
    expect(serializeObjects([o], false)).toBe(Yaml.stringify(o));
});

test("numbers, booleans and nulls written as strings, empty maps and lists, nested lists, unicode: the package's bytes", () => {
  const o = {
    strings: [
      '1e3',
      '0x1',
      '0o7',
      '017',
      '1_000',
      '1:20',
      '.inf',
      'yes',
      'No',
      'on',
      'Off',
      'y',
      '~',
      'null',
      'true',
      '',
      ' ',
      '2001-12-14',
      '-',
      '<<',
      '=',
      '@x',
      '%x',
    ],
    empty: { map: {}, list: [], nested: [[], [{}], [[]]] },
    nested: [[1, [2, [3, 'a: b']], { k: [[], ['x']] }], [], [[[]]]],
    unicode: { ключ: 'значение', 日本: '😀 emoji', accents: 'é\u00a0ü', rtl: 'שלום', zwj: '👩‍👩‍👧' },
    multi: {
      text: 'line one\nline two\n',
      trailing: 'kept  \nx',
      lead: '  indented\nnext',
      quoteish: 'it\'s "quoted"\nsecond',
    },
  };
  expect(written(o)).toBe(expected(o));
  const reasons = {
    'strings[0]': 'a reason',
    'empty.map': 'why # with a hash',
    'nested[0][1]': 'deep',
    'unicode["日本"]': 'why 😀',
    multi: `${'long '.repeat(30)}reason`,
  };
  expect(written(o, reasons)).toBe(expected(o, reasons));
});

test("comments: the direct path (texts as wrap writes them) gives the package's steps, at every indent", () => {
  // a line as wrap writes one (a space, then no space), with any characters after, line breaks included
  const rest = fc.array(
    fc.oneof(fc.string({ maxLength: 4 }), fc.constantFrom('\r', '\u2028', '\u2029', '\t', ' ', '#', ': ', '𝔘')),
    {
      maxLength: 6,
    },
  );
  const line = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.string({ unit: 'grapheme', maxLength: 10 }),
    fc.constantFrom(
      '',
      ' ',
      '  x',
      ' #',
      ' a: b',
      ' x\r',
      ' x\ry',
      ' x\u2028y',
      ' x\u2029',
      ' \u2028y',
      ' \u00a0',
      '\t',
      ' é',
    ),
    fc.tuple(fc.constantFrom('a', '#', ':', '𝔘', 'é', '"'), rest).map(([c, r]) => ` ${c}${r.join('')}`),
  );
  const commentTexts = fc.oneof(
    fc.array(line, { minLength: 1, maxLength: 5 }).map((ls) => ls.join('\n')),
    fc.string({ maxLength: 300 }).map(wrapBySplit),
    fc
      .array(fc.constantFrom('word', 'a#b', 'k: v', '𝔘', '"q"', 'w'.repeat(120)), { maxLength: 80 })
      .map((ws) => wrapBySplit(ws.join(' '))),
  );
  fc.assert(
    fc.property(commentTexts, fc.nat({ max: 6 }), (t, depth) => {
      const indent = '  '.repeat(depth);
      expect(commentText(t, indent)).toBe(commentBySteps(t, indent));
    }),
    { numRuns: 5000 },
  );
});
