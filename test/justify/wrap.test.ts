/**
 * wrap's two ways (src/justify/wrap.ts): the index-cut path for simple texts (single spaces between
 * words) gives the lines the split-and-fill path gives, on the bench estates' reasons and on
 * generated texts: lengths around the width, words longer than a line, Unicode (astral characters,
 * no-break and other Unicode spaces), '#' and ': ' inside texts, every kind of whitespace.
 */
import { ApiObject, Chart } from 'cdk8s';
import * as fc from 'fast-check';
import { buildEstate, type Estate } from '../../bench/synth';
import { reasonsOf, wrap } from '../../src/justify/comments';
import { wrapBySplit, wrapUncached } from '../../src/justify/wrap';

test('the bench estates: every reason wrapped the same both ways (and by the cached wrap)', () => {
  let n = 0;
  for (const estate of ['capacity', 'no-capacity', 'distinct'] as Estate[]) {
    const app = buildEstate(6, undefined, estate);
    for (const chart of app.node.children.filter((c): c is Chart => c instanceof Chart))
      for (const o of chart.node.findAll().filter((c): c is ApiObject => c instanceof ApiObject))
        for (const text of Object.values(reasonsOf(o.toJson()))) {
          expect(wrapUncached(text)).toBe(wrapBySplit(text));
          expect(wrap(text)).toBe(wrapBySplit(text));
          n++;
        }
  }
  expect(n).toBeGreaterThan(500);
});

const word = fc.oneof(
  fc.string({ minLength: 1, maxLength: 12 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }),
  fc.constantFrom('#', ': ', 'a:', '#x', '-', '"', "'", '\\', '𝔘𝔫𝔦', 'é', '日本語'),
  fc.integer({ min: 95, max: 130 }).map((k) => 'w'.repeat(k)),
);
const space = fc.oneof(
  { weight: 8, arbitrary: fc.constant(' ') },
  { weight: 1, arbitrary: fc.constantFrom('  ', '\t', '\n', '\r\n', '\u00a0', '\u2028', '\u3000', '\ufeff', ' \n ') },
);
/** Texts of words and whitespace, lengths from empty to several lines, whitespace first and last at times. */
const text = fc
  .tuple(fc.array(fc.tuple(word, space), { maxLength: 60 }), fc.option(space), fc.option(space))
  .map(([parts, lead, trail]) => `${lead ?? ''}${parts.map(([w, s]) => w + s).join('')}`.slice(0, -1) + (trail ?? ''));

/** Simple texts (single spaces between words), the ones the index-cut path takes. */
const simple = fc
  .array(
    fc.oneof(
      fc.stringMatching(/^[^\s]{1,14}$/),
      fc.constantFrom('#', 'a:', '#x', '𝔘𝔫𝔦', 'é', '日本語', 'k:'),
      fc.integer({ min: 95, max: 130 }).map((k) => 'w'.repeat(k)),
    ),
    { minLength: 1, maxLength: 80 },
  )
  .map((ws) => ws.join(' '));

test('generated texts: the index-cut path gives the split path lines', () => {
  fc.assert(
    fc.property(fc.oneof(text, simple), (t) => {
      expect(wrapUncached(t)).toBe(wrapBySplit(t));
    }),
    { numRuns: 5000 },
  );
});

test('lengths at the width: words that end at, before and after the 100th character', () => {
  for (let a = 1; a <= 105; a++)
    for (const b of [1, 2, 5, 99, 100, 101]) {
      const t = `${'a'.repeat(a)} ${'b'.repeat(b)} ${'c'.repeat(100 - Math.min(a, 99))} d`;
      expect(wrapUncached(t)).toBe(wrapBySplit(t));
    }
  for (const t of ['', ' ', 'x', ' x', 'x ', 'a  b', 'a\tb', 'w'.repeat(250), `${'w'.repeat(250)} x`])
    expect(wrapUncached(t)).toBe(wrapBySplit(t));
});
