import { ANNOTATIONS, valueAtPath } from '../../justify/annotations';
import { parseReasonLines } from '../../justify/reasons';
import { rec, stableJson } from '../../rules/k8s';
import { short, v } from './preamble';
import { Invariant, Violation } from './types';

/**
 * INV01: a value rollwise decided (one with a reason) is not changed by a patch.
 * Split from src/invariants/invariants.ts (issue 26), which keeps the list and its order.
 */

export const INV01: Invariant = {
  id: 'INV01-decided-values-unpatched',
  title: 'A value rollwise decided (one with a reason) is not changed by a patch',
  why:
    'The reason in the comment, the rollwise.dev/reasons annotation and `rollwise explain` describes the ' +
    'decided value; a patched value would be explained by a reason that no longer holds ' +
    '(docs/mechanisms.md#readiness-control-loop).',
  overridable: true,
  check(set) {
    const out: Violation[] = [];
    set.objects.forEach((o, i) => {
      const before = set.unpatched?.[i];
      if (!before || before === o) return; // no patch on this object (final-objects.ts reuses the render)
      const reasons = rec(rec(before.metadata)?.annotations)?.[ANNOTATIONS.reasons];
      if (typeof reasons !== 'string') return;
      for (const path of Object.keys(parseReasonLines(reasons))) {
        let a: unknown;
        let b: unknown;
        try {
          a = valueAtPath(before, path);
          b = valueAtPath(o, path);
        } catch {
          continue;
        }
        for (const [leaf, x, y] of differences(a, b, path)) {
          out.push(
            v(
              set,
              o,
              leaf,
              `a patch changed ${leaf} from ${short(x)} to ${short(y)}; rollwise decided ${path} with a reason that ` +
                'would then describe a value that is not there',
            ),
          );
        }
      }
    });
    return out;
  },
};

/** The leaf paths where two JSON values differ (arrays of different length differ as a whole). */
function differences(a: unknown, b: unknown, path: string): [string, unknown, unknown][] {
  if (stableJson(a) === stableJson(b)) return [];
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length)
    return a.flatMap((x, i) => differences(x, b[i], `${path}[${i}]`));
  const ra = rec(a);
  const rb = rec(b);
  if (ra && rb) {
    const keys = [...new Set([...Object.keys(ra), ...Object.keys(rb)])].sort();
    return keys.flatMap((k) =>
      differences(ra[k], rb[k], /^[A-Za-z0-9_-]+$/.test(k) ? `${path}.${k}` : `${path}["${k}"]`),
    );
  }
  return [[path, a, b]];
}
