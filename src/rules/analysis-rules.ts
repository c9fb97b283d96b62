import { arr, rec, str } from './k8s';
import { RuleDefinition } from './rule';

const KINDS = ['AnalysisTemplate', 'ClusterAnalysisTemplate'];

const INDEX0 = /result\s*\[\s*0\s*\]/;
const LEN_GUARD = /len\s*\(\s*result\s*\)|isNil\s*\(\s*result\s*\)|default\s*\(\s*result/;
const NAN_GUARD = /isNaN\s*\(\s*result\s*\[\s*0\s*\]\s*\)|isNaN\s*\(\s*default\s*\(\s*result/;
const OR_VECTOR0 = /\bor\s+on\s*\([^)]*\)\s*vector\s*\(\s*0(?:\.0*)?\s*\)|\bor\s+vector\s*\(\s*0(?:\.0*)?\s*\)/i;

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
    fieldNotes: 'docs/mechanisms.md#canary-analysis (reference: AnalysisTemplate)',
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
    mechanism: 'A query that answers 0 when there is no data passes the error-ratio check exactly when the canary serves nothing or its metrics are missing (e.g. its pods are not Ready, so its 503s never reach the upstream counters).',
    fieldNotes: 'docs/mechanisms.md#canary-analysis (reference: AnalysisTemplate, Measuring the canary)',
    fix: 'Remove `or vector(0)`; let an empty result be Inconclusive with guarded conditions, and add a request-volume metric that is Inconclusive below N requests.',
    facts: [],
    check(o, ctx) {
      arr(rec(o.obj.spec)?.metrics).forEach((m, i) => {
        const metric = rec(m);
        if (!metric) return;
        for (const s of providerStrings(metric.provider, `spec.metrics[${i}].provider`)) {
          const hit = OR_VECTOR0.exec(s.text);
          if (hit) {
            ctx.report(o, s.path, `metric "${str(metric.name) ?? i}": the query contains \`${hit[0]}\`, which reports 0 when there is no data.`, { metric: str(metric.name) ?? String(i), match: hit[0] });
          }
        }
      });
    },
  },
];
