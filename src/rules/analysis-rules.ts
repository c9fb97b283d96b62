import { arr, rec, str } from './k8s';
import { RuleDefinition } from './rule';

const KINDS = ['AnalysisTemplate', 'ClusterAnalysisTemplate'];

const INDEX0 = /result\s*\[\s*0\s*\]/;
const LEN_GUARD = /len\s*\(\s*result\s*\)|isNil\s*\(\s*result\s*\)|default\s*\(\s*result/;
const NAN_GUARD = /isNaN\s*\(\s*result\s*\[\s*0\s*\]\s*\)|isNaN\s*\(\s*default\s*\(\s*result/;
const OR_VECTOR0 = /\bor\s+on\s*\([^)]*\)\s*vector\s*\(\s*0(?:\.0*)?\s*\)|\bor\s+vector\s*\(\s*0(?:\.0*)?\s*\)/i;

/**
 * Whether the `or vector(0)` at `at` (length `len`) defaults only the numerator of a ratio, as in
 * `(sum(rate(errors[2m])) or on() vector(0)) / sum(rate(all[2m]))`: it closes the parenthesised
 * group it stands in, that group is divided by something, is not itself a divisor, and the divisor
 * reads a metric and has no default of its own. Then "no traffic" is still no sample (the
 * denominator), and only "traffic but no error series yet" becomes 0, which is true. A default
 * anywhere else (around the whole ratio, a denominator, a count) turns no data into a pass.
 */
export function defaultsOnlyNumerator(text: string, at: number, len: number): boolean {
  // The innermost parenthesised group that contains the match.
  let open = -1;
  const stack: number[] = [];
  for (let i = 0; i < at; i++) {
    if (text[i] === '(') stack.push(i);
    else if (text[i] === ')') stack.pop();
  }
  if (stack.length === 0) return false;
  open = stack[stack.length - 1];
  let i = at + len;
  while (i < text.length && /\s/.test(text[i])) i++;
  if (text[i] !== ')') return false;
  const before = text.slice(0, open).trimEnd();
  if (before.endsWith('/') || /\/\s*[A-Za-z_]\w*$/.test(before)) return false;
  const after = text.slice(i + 1);
  const div = /^\s*\/\s*/.exec(after);
  if (!div) return false;
  // The divisor: up to the end of the enclosing group (or of the query).
  let depth = 0;
  let end = after.length;
  for (let j = div[0].length; j < after.length; j++) {
    if (after[j] === '(') depth++;
    else if (after[j] === ')') { if (depth === 0) { end = j; break; } depth--; }
  }
  const divisor = after.slice(div[0].length, end);
  if (/\b(or|unless)\b|vector\s*\(|absent/.test(divisor)) return false;
  return /[A-Za-z_:][\w:]*\s*[{[]/.test(divisor);
}

/** Every string under a provider (queries of Prometheus, Datadog, New Relic, ...), with its path. */
function providerStrings(provider: unknown, path: string, out: { path: string; text: string }[] = []): { path: string; text: string }[] {
  const r = rec(provider);
  if (r) for (const [k, v] of Object.entries(r)) providerStrings(v, `${path}.${k}`, out);
  else if (Array.isArray(provider)) provider.forEach((v, i) => providerStrings(v, `${path}[${i}]`, out));
  else if (typeof provider === 'string') out.push({ path, text: provider });
  return out;
}

export const ANALYSIS_RULES: readonly RuleDefinition[] = [
  {
    id: 'RW401-analysis-unguarded-result-index',
    severity: 'error',
    title: 'Analysis condition indexes result[0] without guarding empty and NaN results',
    kinds: KINDS,
    mechanism: 'An empty result makes result[0] an Error ("slice index out of range"), and errors do not count as failures, so a run can end Successful with every measurement errored; NaN (0/0 without traffic) makes `result[0] < 0.01` false: a Failed verdict from no data.',
    fieldNotes: 'field-notes 6 (reference: AnalysisTemplate)',
    fix: 'Write `len(result) > 0 && !isNaN(result[0]) && result[0] < 0.01` as successCondition and the mirror failureCondition (`len(result) > 0 && !isNaN(result[0]) && result[0] >= 0.01`), so no data is Inconclusive, never a silent pass or fail.',
    facts: [],
    check(o, ctx) {
      arr(rec(o.obj.spec)?.metrics).forEach((m, i) => {
        const metric = rec(m);
        if (!metric) return;
        for (const cond of ['successCondition', 'failureCondition'] as const) {
          const text = str(metric[cond]);
          if (!text || !INDEX0.test(text)) continue;
          const missing: string[] = [];
          if (!LEN_GUARD.test(text)) missing.push('empty result (len(result) > 0)');
          if (!NAN_GUARD.test(text)) missing.push('NaN (!isNaN(result[0]))');
          if (missing.length === 0) continue;
          ctx.report(o, `spec.metrics[${i}].${cond}`, `metric "${str(metric.name) ?? i}": ${cond} \`${text}\` indexes result[0] without a guard for ${missing.join(' or ')}.`,
            { metric: str(metric.name) ?? String(i), condition: text, missingGuards: missing.join('; ') });
        }
      });
    },
  },
  {
    id: 'RW402-analysis-no-data-as-zero',
    severity: 'error',
    title: 'Analysis query turns no data into 0 (`or vector(0)`)',
    kinds: KINDS,
    mechanism: 'A query that answers 0 when there is no data passes the error-ratio check exactly when the canary serves nothing or its metrics are missing (e.g. its pods are not Ready, its weight goes back to 0 and its Envoy cluster, with every series on it, disappears). A default on the numerator alone, `(errors or on() vector(0)) / all`, is safe and needed: Envoy creates the 5xx counter at the first 5xx, and the denominator still gives no sample without traffic.',
    fieldNotes: 'field-notes 6 (reference: AnalysisTemplate, Measuring the canary)',
    fix: 'Move the default to the numerator of the ratio, `(sum(rate(errors[2m])) or on() vector(0)) / sum(rate(all[2m]))`, or remove it; let an empty result be Inconclusive with guarded conditions, and add a request-volume metric that is Inconclusive below N requests.',
    facts: [],
    check(o, ctx) {
      arr(rec(o.obj.spec)?.metrics).forEach((m, i) => {
        const metric = rec(m);
        if (!metric) return;
        for (const s of providerStrings(metric.provider, `spec.metrics[${i}].provider`)) {
          const all = new RegExp(OR_VECTOR0.source, 'gi');
          for (let hit = all.exec(s.text); hit; hit = all.exec(s.text)) {
            if (defaultsOnlyNumerator(s.text, hit.index, hit[0].length)) continue;
            ctx.report(o, s.path, `metric "${str(metric.name) ?? i}": the query contains \`${hit[0]}\` outside the numerator of a ratio, which reports 0 when there is no data.`, { metric: str(metric.name) ?? String(i), match: hit[0] });
            break;
          }
        }
      });
    },
  },
];
