/**
 * The runbook's table cells (src/justify/runbook.ts cell): the text returned as it is where both
 * replaces would return it unchanged, on the bench estates' reasons and generated texts.
 */
import { ApiObject, Chart } from 'cdk8s';
import * as fc from 'fast-check';
import { buildEstate } from '../../bench/synth';
import { reasonsOf } from '../../src/justify/comments';
import { cell, cellBySteps } from '../../src/justify/runbook';

test('the bench estate: every reason is the same cell both ways', () => {
  let n = 0;
  for (const chart of buildEstate(4).node.children.filter((c): c is Chart => c instanceof Chart))
    for (const o of chart.node.findAll().filter((c): c is ApiObject => c instanceof ApiObject))
      for (const [path, text] of Object.entries(reasonsOf(o.toJson()))) {
        expect(cell(path)).toBe(cellBySteps(path));
        expect(cell(text)).toBe(cellBySteps(text));
        n++;
      }
  expect(n).toBeGreaterThan(100);
});

test('generated texts: pipes, runs of whitespace, every kind of whitespace, Unicode', () => {
  const part = fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.constantFrom(' ', '  ', '|', '\\|', '\t', '\n', '\r\n', '\u00a0', '\u2028', '\ufeff', 'é', '𝔘', 'a b'),
  );
  fc.assert(
    fc.property(fc.array(part, { maxLength: 12 }), (parts) => {
      const s = parts.join('');
      expect(cell(s)).toBe(cellBySteps(s));
    }),
    { numRuns: 5000 },
  );
});
