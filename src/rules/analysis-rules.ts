import { arr, rec, str } from './k8s';
import { passesOnNoData, queryDefaults } from './no-data';
import { RuleDefinition } from './rule';

const KINDS = ['AnalysisTemplate', 'ClusterAnalysisTemplate'];

const INDEX0 = /result\s*\[\s*0\s*\]/;
/**
 * Guards against an empty result. `isNil`/`default` only see nil (utils/evaluate/evaluate.go,
 * v1.9.1), and the Prometheus provider's empty vector is an empty non-nil array, so for Prometheus
 * only len() guards; other providers give nil for no data.
 */
const LEN_GUARD = /len\s*\(\s*result\s*\)/;
const NIL_GUARD = /len\s*\(\s*result\s*\)|isNil\s*\(|default\s*\(/;
const NAN_GUARD = /isNaN\s*\(\s*result\s*\[\s*0\s*\]\s*\)|isNaN\s*\(\s*default\s*\(\s*result/;

/** The conditions of a metric that index result[0] without the guards (RW401). */
function unguarded(metric: Record<string, unknown>): { cond: string; text: string; missing: string[] }[] {
  return (['successCondition', 'failureCondition'] as const).flatMap((cond) => {
    const text = str(metric[cond]);
    if (!text || !INDEX0.test(text)) return [];
    const missing: string[] = [];
    if (!(providerName(metric) === 'prometheus' ? LEN_GUARD : NIL_GUARD).test(text)) missing.push('empty result (len(result) > 0)');
    if (!NAN_GUARD.test(text)) missing.push('NaN (!isNaN(result[0]))');
    return missing.length ? [{ cond, text, missing }] : [];
  });
}

/** The provider's key (`prometheus`, `datadog`, `web`, ...). */
function providerName(metric: Record<string, unknown>): string {
  return Object.keys(rec(metric.provider) ?? {})[0] ?? 'none';
}

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
    fieldNotes: 'docs/mechanisms.md#canary-analysis (reference: AnalysisTemplate)',
    fix: 'Write `len(result) > 0 && !isNaN(result[0]) && result[0] < 0.01` as successCondition and the mirror failureCondition (`len(result) > 0 && !isNaN(result[0]) && result[0] >= 0.01`), so no data is Inconclusive, never a silent pass or fail.',
    facts: [],
    check(o, ctx) {
      arr(rec(o.obj.spec)?.metrics).forEach((m, i) => {
        const metric = rec(m);
        if (!metric) return;
        for (const u of unguarded(metric)) {
          ctx.report(o, `spec.metrics[${i}].${u.cond}`, `metric "${str(metric.name) ?? i}": ${u.cond} \`${u.text}\` indexes result[0] without a guard for ${u.missing.join(' or ')}.`,
            { metric: str(metric.name) ?? String(i), condition: u.text, missingGuards: u.missing.join('; ') });
        }
      });
    },
  },
  {
    id: 'RW402-analysis-no-data-as-zero',
    severity: 'error',
    title: 'Analysis query turns no data into a number (`or vector(n)` around a ratio or a denominator, `default_zero()`)',
    kinds: KINDS,
    mechanism: 'A query that answers a number when there is no data passes (or fails) the check exactly when the canary serves nothing or its metrics are missing (e.g. its pods are not Ready, its weight goes back to 0 and its Envoy cluster, with every series on it, disappears). A default on the numerator alone, `(errors or on() vector(0)) / all`, is safe and needed: Envoy creates the 5xx counter at the first 5xx, and the denominator still gives no sample without traffic.',
    fieldNotes: 'docs/mechanisms.md#canary-analysis (reference: AnalysisTemplate, Measuring the canary)',
    fix: 'Move the default to the numerator of the ratio, `(sum(rate(errors[2m])) or on() vector(0)) / sum(rate(all[2m]))`, or remove it; let an empty result be Inconclusive with guarded conditions, and add a request-volume metric that is Inconclusive below N requests.',
    facts: [],
    check(o, ctx) {
      arr(rec(o.obj.spec)?.metrics).forEach((m, i) => {
        const metric = rec(m);
        if (!metric) return;
        for (const s of providerStrings(metric.provider, `spec.metrics[${i}].provider`)) {
          for (const d of queryDefaults(s.text)) {
            // Safe only on the numerator of a ratio whose divisor reads a metric and has no default of its own.
            if (d.position === 'numerator' && (d.match.startsWith('default_zero') || defaultsOnlyNumerator(s.text, d.index, d.match.length))) continue;
            const where = d.position === 'ratio' ? 'around the whole expression' : d.position === 'denominator' ? 'in the denominator' : 'on a numerator whose divisor reads no metric or is defaulted too';
            ctx.report(o, s.path, `metric "${str(metric.name) ?? i}": the query contains \`${d.match}\` outside the numerator of a ratio (${where}), which reports ${d.value} when there is no data.`,
              { metric: str(metric.name) ?? String(i), match: d.match, position: d.position });
          }
        }
      });
    },
  },
  {
    id: 'RW403-analysis-no-data-passes',
    severity: 'error',
    title: 'Analysis conditions pass when there is no data (`default(result, 0) < x`, `isNaN(result[0]) || ...`, `len(result) == 0 || ...`)',
    kinds: KINDS,
    mechanism: 'A condition that is true for an empty, nil or NaN result promotes a canary that served nothing or whose metrics are missing: the check passes exactly when it measured nothing. Short-circuits (`isNaN(result[0]) || ...`) and defaults (`default(result, 0)`) read as guards but turn no data into a pass.',
    fieldNotes: 'docs/mechanisms.md#canary-analysis (reference: AnalysisTemplate)',
    fix: 'Guard with && so no data makes both conditions false (Inconclusive: the rollout pauses): successCondition `len(result) > 0 && !isNaN(result[0]) && result[0] < 0.01` and failureCondition `len(result) > 0 && !isNaN(result[0]) && result[0] >= 0.01`; for providers that give nil, `!isNil(result) && result < 10` and `!isNil(result) && result >= 10`.',
    facts: [],
    check(o, ctx) {
      arr(rec(o.obj.spec)?.metrics).forEach((m, i) => {
        const metric = rec(m);
        if (!metric) return;
        const sc = str(metric.successCondition);
        const fc = str(metric.failureCondition);
        if ((!sc && !fc) || unguarded(metric).length > 0) return; // RW401 reports the unguarded index
        const what = passesOnNoData(providerName(metric), sc, fc);
        if (what === undefined) return;
        const cond = sc ? 'successCondition' : 'failureCondition';
        const shown = [sc ? `successCondition \`${sc}\`` : undefined, fc ? `failureCondition \`${fc}\`` : undefined].filter(Boolean).join(' with ');
        ctx.report(o, `spec.metrics[${i}].${cond}`, `metric "${str(metric.name) ?? i}": ${shown} ${fc && !sc ? 'is not true' : 'is true'} for ${what}: the measurement is Successful without data.`,
          { metric: str(metric.name) ?? String(i), ...(sc ? { successCondition: sc } : {}), ...(fc ? { failureCondition: fc } : {}), noData: what });
      });
    },
  },
];
