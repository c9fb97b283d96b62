import { arr, rec, str } from './k8s';
import { commandWords } from './manifest-facts';
import { endsInTopLevelDefault, passesOnNoData, queryDefaults } from './no-data';
import { RuleDefinition } from './rule';

const KINDS = ['AnalysisTemplate', 'ClusterAnalysisTemplate'];

const INDEX0 = /result\s*\[\s*0\s*\]/;
/** Guards against an empty Prometheus result: only len() (the empty vector is an empty, non-nil array). */
const LEN_GUARD = /len\s*\(\s*result\s*\)/;
const NAN_GUARD = /isNaN\s*\(\s*result\s*\[\s*0\s*\]\s*\)|isNaN\s*\(\s*default\s*\(\s*result/;

/**
 * What each provider hands the conditions as `result` (Argo Rollouts v1.9.1):
 * - prometheus: a []float64 for a vector (empty when no series, [NaN] for 0/0), a float64 for a
 *   scalar (metricproviders/prometheus/prometheus.go processResponse);
 * - datadog: a float64, or nil without data (metricproviders/datadog/datadog.go parseResponseV1/V2);
 * - cloudwatch: the list of MetricDataResult structs, one per query, each with `Values` (empty when
 *   the period has no datapoint) (metricproviders/cloudwatch/cloudwatch.go Run);
 * - newrelic: one row as a map of the NRQL aliases, several rows as a list of maps; an empty row is
 *   Failed (metricproviders/newrelic/newrelic.go processResponse);
 * - wavefront: a float64 for one series (0 when no point is near the start time), a []float64 for
 *   several, Failed for none (metricproviders/wavefront/wavefront.go processResponse);
 * - web: the JSON value at jsonPath, of any type; Error when nothing matches
 *   (metricproviders/webmetric/webmetric.go parseResponse).
 */
type Shape = 'vector' | 'number-or-nil' | 'cloudwatch' | 'other';

function shapeOf(provider: string): Shape {
  switch (provider) {
    case 'prometheus':
      return 'vector';
    case 'datadog':
      return 'number-or-nil';
    case 'cloudWatch':
      return 'cloudwatch';
    default:
      return 'other';
  }
}

/** PromQL that can give NaN: a division (0/0 without traffic) or a quantile (histogram_quantile of empty buckets). */
const MAY_BE_NAN = /\/|quantile/;

/**
 * What the query itself rules out: an empty result when the whole query ends in `or vector(n)` (or
 * `or on() vector(n)`) outside any parentheses, since the `or` adds the constant's sample whenever
 * the left side has none (prometheus/prometheus promql/engine.go VectorOr: "len(lhs) == 0" returns
 * the right side; read in the code index's copies); NaN when it has no division and no
 * quantile, the operations that make one from ordinary counters.
 */
function queryRulesOut(metric: Record<string, unknown>): { empty: boolean; nan: boolean } {
  const q = str(rec(rec(metric.provider)?.prometheus)?.query);
  if (q === undefined) return { empty: false, nan: false };
  return { empty: endsInTopLevelDefault(q), nan: !MAY_BE_NAN.test(q) };
}

/** The conditions of a Prometheus metric that index result[0] without the guards (RW401). */
function unguarded(metric: Record<string, unknown>): { cond: string; text: string; missing: string[] }[] {
  if (shapeOf(providerName(metric)) !== 'vector') return [];
  const ruled = queryRulesOut(metric);
  return (['successCondition', 'failureCondition'] as const).flatMap((cond) => {
    const text = str(metric[cond]);
    if (!text || !INDEX0.test(text)) return [];
    const missing: string[] = [];
    if (!LEN_GUARD.test(text) && !ruled.empty) missing.push('empty result (len(result) > 0)');
    if (!NAN_GUARD.test(text) && !ruled.nan) missing.push('NaN (!isNaN(result[0]))');
    return missing.length ? [{ cond, text, missing }] : [];
  });
}

/**
 * Whether an empty result means unhealthy for this metric's conditions, so its Error (result[0] out
 * of range) ends where failing would: every successCondition compares result[0] against a floor
 * (`result[0] >= 3`, `result[0] > 0`: a count of ready pods) and every failureCondition fails below
 * one (`result[0] < 3`). Argo Rollouts v1.9.1 analysis/analysis.go assessMetricStatus: more than
 * consecutiveErrorLimit (default 4, utils/defaults/defaults.go) Errors in a row make the run Error,
 * and rollout/analysis.go aborts the Rollout on AnalysisPhaseError as on AnalysisPhaseFailed. An
 * upper bound (`result[0] < 0.01`, an error ratio or count) is the opposite: an absent 5xx counter
 * is healthy, and the Error aborts a healthy canary.
 */
function emptyMeansFailing(metric: Record<string, unknown>): boolean {
  const floor = /^\s*result\s*\[\s*0\s*\]\s*>=?\s*[\d.]+\s*$/;
  const below = /^\s*result\s*\[\s*0\s*\]\s*<=?\s*[\d.]+\s*$/;
  const sc = str(metric.successCondition);
  const fc = str(metric.failureCondition);
  if (sc === undefined && fc === undefined) return false;
  return (sc === undefined || floor.test(sc)) && (fc === undefined || below.test(fc));
}

/**
 * A condition written for another provider's result: `result[0]` on Datadog's number (or nil), or
 * a CloudWatch MetricDataResult compared as a number. expr cannot index a number or compare a
 * struct, so every measurement is an Error (RW405).
 */
function wrongShape(metric: Record<string, unknown>): { cond: string; text: string; why: string }[] {
  const shape = shapeOf(providerName(metric));
  return (['successCondition', 'failureCondition'] as const).flatMap((cond) => {
    const text = str(metric[cond]);
    if (!text) return [];
    if (shape === 'number-or-nil' && /result\s*\[/.test(text)) {
      return [
        {
          cond,
          text,
          why:
            'the Datadog provider hands the condition one number (or nil without data), not a ' +
            'list, so result[...] cannot be evaluated',
        },
      ];
    }
    if (shape === 'cloudwatch' && /result\s*\[\s*\d+\s*\]\s*(?:[<>=!]=?|[-+*/%])/.test(text)) {
      return [
        {
          cond,
          text,
          why:
            'the CloudWatch provider hands the condition a list of MetricDataResult objects ' +
            '(Id, Label, Values, ...), so result[n] is an object, not a number; compare result[n].Values (e.g. ' +
            'all(result[0].Values, {# < 0.01}))',
        },
      ];
    }
    return [];
  });
}

/** The provider's key (`prometheus`, `datadog`, `web`, ...). */
function providerName(metric: Record<string, unknown>): string {
  return Object.keys(rec(metric.provider) ?? {})[0] ?? 'none';
}

/**
 * A CloudWatch successCondition that is true when a query returned no datapoint: `all()` over an
 * empty `Values` list is true (expr), and CloudWatch returns an empty list for a period without data.
 */
function cloudwatchPassesEmpty(metric: Record<string, unknown>): string | undefined {
  if (shapeOf(providerName(metric)) !== 'cloudwatch') return undefined;
  const sc = str(metric.successCondition);
  if (!sc || !/\ball\s*\(\s*result\s*\[\s*\d+\s*\]\s*\.\s*Values/.test(sc)) return undefined;
  if (/len\s*\(\s*result\s*\[\s*\d+\s*\]\s*\.\s*Values\s*\)/.test(sc)) return undefined;
  return (
    'a query with no datapoint in the period (CloudWatch returns an empty Values list, and all() of an empty ' +
    'list is true)'
  );
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
    else if (after[j] === ')') {
      if (depth === 0) {
        end = j;
        break;
      }
      depth--;
    }
  }
  const divisor = after.slice(div[0].length, end);
  if (/\b(or|unless)\b|vector\s*\(|absent/.test(divisor)) return false;
  return /[A-Za-z_:][\w:]*\s*[{[]/.test(divisor);
}

/** Every string under a provider (queries of Prometheus, Datadog, New Relic, ...), with its path. */
function providerStrings(
  provider: unknown,
  path: string,
  out: { path: string; text: string }[] = [],
): { path: string; text: string }[] {
  const r = rec(provider);
  if (r) for (const [k, v] of Object.entries(r)) providerStrings(v, `${path}.${k}`, out);
  else if (Array.isArray(provider)) provider.forEach((v, i) => providerStrings(v, `${path}[${i}]`, out));
  else if (typeof provider === 'string') out.push({ path, text: provider });
  return out;
}

/** curl options that make it fail on an HTTP error status (curl(1): --fail, --fail-with-body). */
const CURL_FAILS = /^(--fail|--fail-with-body|-[a-zA-Z]*f[a-zA-Z]*)$/;
/** The options of curl that take a value (so their value is not read as a flag cluster). */
const CURL_VALUE_OPTS = new Set([
  '-o',
  '-H',
  '-d',
  '-X',
  '-u',
  '-A',
  '-e',
  '-m',
  '-w',
  '-T',
  '-x',
  '-b',
  '-c',
  '-F',
  '--data',
  '--header',
  '--request',
  '--output',
  '--max-time',
  '--connect-timeout',
  '--user',
  '--retry',
  '--write-out',
  '--cacert',
  '--cert',
  '--key',
  '--url',
]);

/**
 * The curl invocations of a Job container that can pass on an HTTP 5xx: no --fail/-f, no
 * --write-out of the status code, and not piped into a command that checks the body.
 */
export function curlWithoutFail(c: Record<string, unknown>): string[] {
  let words = commandWords(c);
  // An image whose entrypoint is curl (curlimages/curl) with only args.
  if (
    c.command === undefined &&
    /(^|\/)curl(:|$|@)|curlimages\/curl/.test(str(c.image) ?? '') &&
    words &&
    words[0] !== 'curl'
  )
    words = ['curl', ...words];
  if (!words) return [];
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    if (words[i] !== 'curl' && !words[i].endsWith('/curl')) continue;
    const args: string[] = [];
    let j = i + 1;
    for (; j < words.length && !['|', ';', '&&', '||', '&'].includes(words[j]); j++) args.push(words[j]);
    const piped = words[j] === '|';
    let fails = false;
    let checksCode = false;
    for (let k = 0; k < args.length; k++) {
      const a = args[k];
      if (CURL_VALUE_OPTS.has(a)) {
        if ((a === '-w' || a === '--write-out') && /http_code|response_code/.test(args[k + 1] ?? '')) checksCode = true;
        k++;
        continue;
      }
      if (a.startsWith('--write-out=') && /http_code|response_code/.test(a)) checksCode = true;
      if (CURL_FAILS.test(a)) fails = true;
    }
    if (!fails && !checksCode && !piped) out.push(['curl', ...args].join(' ').slice(0, 160));
  }
  return out;
}

export const ANALYSIS_RULES: readonly RuleDefinition[] = [
  {
    id: 'RW401-analysis-unguarded-result-index',
    severity: 'warning',
    title: 'Prometheus analysis condition indexes result[0] without guarding empty and NaN results',
    kinds: KINDS,
    mechanism:
      "The Prometheus provider hands a vector query's result to the condition as a list, empty when no " +
      'series exists yet (a canary that has not served, a 5xx counter Envoy has not created): result[0] is then an ' +
      'Error ("slice index out of range"), and errors do not count as failures until consecutiveErrorLimit; NaN (0/0 ' +
      'without traffic) makes `result[0] < 0.01` false: a Failed verdict from no data. Other providers hand other ' +
      'shapes (a number, objects) and are not checked by this rule. One finding per metric (its success and failure ' +
      'conditions read one result). Information where only the empty guard is missing and an empty result is ' +
      'unhealthy anyway: each successCondition asks for result[0] at or above a floor and each failureCondition ' +
      'fails below one (a count of ready pods, judged noise on set 4): more than consecutiveErrorLimit (default 4) ' +
      'Errors make the run Error, and the Rollout aborts on an Error run as on a Failed one (argoproj/argo-rollouts ' +
      'v1.9.1 analysis/analysis.go assessMetricStatus, utils/defaults/defaults.go, rollout/analysis.go). A warning ' +
      'where empty means healthy (an upper bound on an error count or ratio: Envoy creates the 5xx counter at the ' +
      'first 5xx).',
    fieldNotes: 'docs/mechanisms.md#canary-analysis (reference: AnalysisTemplate)',
    fix:
      'Write `len(result) > 0 && !isNaN(result[0]) && result[0] < 0.01` as successCondition and the mirror ' +
      'failureCondition (`len(result) > 0 && !isNaN(result[0]) && result[0] >= 0.01`), so no data is Inconclusive, ' +
      'never a silent pass or fail.',
    facts: [],
    check(o, ctx) {
      arr(rec(o.obj.spec)?.metrics).forEach((m, i) => {
        const metric = rec(m);
        if (!metric) return;
        // One finding per metric: its success and failure conditions share the one query result.
        const found = unguarded(metric);
        if (found.length === 0) return;
        const missing = [...new Set(found.flatMap((u) => u.missing))];
        const conds = found.map((u) => `${u.cond} \`${u.text}\``).join(' and ');
        const emptyOnly = missing.every((x) => x.startsWith('empty'));
        const same = emptyOnly && emptyMeansFailing(metric);
        ctx.report(
          o,
          `spec.metrics[${i}].${found[0].cond}`,
          `metric "${str(metric.name) ?? i}": ${conds} ${found.length > 1 ? 'index' : 'indexes'} result[0] without a ` +
            'guard ' +
            `for ${missing.join(' or ')}${
              same
                ? '. An empty result would fail these conditions anyway (they ask for ' +
                  'a value at or above a floor, or fail below one): its Error reaches consecutiveErrorLimit and the run ' +
                  'ends in Error, which aborts the Rollout as a failure would, later by the error limit; information'
                : ''
            }.`,
          {
            metric: str(metric.name) ?? String(i),
            condition: found.map((u) => u.text).join(' | '),
            missingGuards: missing.join('; '),
          },
          same ? 'info' : undefined,
        );
      });
    },
  },
  {
    id: 'RW402-analysis-no-data-as-zero',
    severity: 'warning',
    title:
      'Analysis query turns no data into a number (`or vector(n)` around a ratio or a denominator, ' +
      '`default_zero()`)',
    kinds: KINDS,
    mechanism:
      'A query that answers a number when there is no data passes (or fails) the check exactly when the ' +
      'canary serves nothing or its metrics are missing (e.g. its pods are not Ready, its weight goes back to 0 and ' +
      'its Envoy cluster, with every series on it, disappears). A default on the numerator alone, `(errors or on() ' +
      'vector(0)) / all`, is safe and needed: Envoy creates the 5xx counter at the first 5xx, and the denominator ' +
      'still gives no sample without traffic.',
    fieldNotes: 'docs/mechanisms.md#canary-analysis (reference: AnalysisTemplate, Measuring the canary)',
    fix:
      'Move the default to the numerator of the ratio, `(sum(rate(errors[2m])) or on() vector(0)) / ' +
      'sum(rate(all[2m]))`, or remove it; let an empty result be Inconclusive with guarded conditions, and add a ' +
      'request-volume metric that is Inconclusive below N requests.',
    facts: [],
    check(o, ctx) {
      arr(rec(o.obj.spec)?.metrics).forEach((m, i) => {
        const metric = rec(m);
        if (!metric) return;
        const provider = providerName(metric);
        // `or vector(n)` is PromQL; `default_zero()` is Datadog's (docs.datadoghq.com, "Interpolation").
        if (provider !== 'prometheus' && provider !== 'datadog') return;
        for (const s of providerStrings(metric.provider, `spec.metrics[${i}].provider`)) {
          for (const d of queryDefaults(s.text)) {
            if ((provider === 'prometheus') !== !d.match.startsWith('default_zero')) continue;
            // Safe only on the numerator of a ratio whose divisor reads a metric and has no default of its own.
            if (
              d.position === 'numerator' &&
              (d.match.startsWith('default_zero') || defaultsOnlyNumerator(s.text, d.index, d.match.length))
            )
              continue;
            const where =
              d.position === 'ratio'
                ? 'around the whole expression'
                : d.position === 'denominator'
                  ? 'in the denominator'
                  : 'on a numerator whose divisor reads no ' + 'metric or is defaulted too';
            ctx.report(
              o,
              s.path,
              `metric "${str(metric.name) ?? i}": the query contains \`${d.match}\` outside the numerator of a ratio ` +
                `(${where}), which reports ${d.value} when there is no data.`,
              { metric: str(metric.name) ?? String(i), match: d.match, position: d.position },
            );
          }
        }
      });
    },
  },
  {
    id: 'RW403-analysis-no-data-passes',
    severity: 'warning',
    title:
      'Analysis conditions pass when there is no data (`default(result, 0) < x`, `isNaN(result[0]) || ...`, ' +
      '`len(result) == 0 || ...`)',
    kinds: KINDS,
    mechanism:
      'A condition that is true for an empty, nil or NaN result promotes a canary that served nothing or ' +
      'whose metrics are missing: the check passes exactly when it measured nothing. Short-circuits ' +
      '(`isNaN(result[0]) || ...`) and defaults (`default(result, 0)`) read as guards but turn no data into a pass.',
    fieldNotes: 'docs/mechanisms.md#canary-analysis (reference: AnalysisTemplate)',
    fix:
      'Guard with && so no data makes both conditions false (Inconclusive: the rollout pauses): successCondition ' +
      '`len(result) > 0 && !isNaN(result[0]) && result[0] < 0.01` and failureCondition `len(result) > 0 && ' +
      '!isNaN(result[0]) && result[0] >= 0.01`; for providers that give nil, `!isNil(result) && result < 10` and ' +
      '`!isNil(result) && result >= 10`.',
    facts: [],
    check(o, ctx) {
      arr(rec(o.obj.spec)?.metrics).forEach((m, i) => {
        const metric = rec(m);
        if (!metric) return;
        const sc = str(metric.successCondition);
        const fc = str(metric.failureCondition);
        // RW401 / RW405 report those
        if ((!sc && !fc) || unguarded(metric).length > 0 || wrongShape(metric).length > 0) return;
        const what = passesOnNoData(providerName(metric), sc, fc) ?? cloudwatchPassesEmpty(metric);
        if (what === undefined) return;
        const cond = sc ? 'successCondition' : 'failureCondition';
        const shown = [sc ? `successCondition \`${sc}\`` : undefined, fc ? `failureCondition \`${fc}\`` : undefined]
          .filter(Boolean)
          .join(' with ');
        ctx.report(
          o,
          `spec.metrics[${i}].${cond}`,
          `metric "${str(metric.name) ?? i}": ${shown} ${fc && !sc ? 'is not true' : 'is true'} for ${what}: the ` +
            'measurement is Successful without data.',
          {
            metric: str(metric.name) ?? String(i),
            ...(sc ? { successCondition: sc } : {}),
            ...(fc ? { failureCondition: fc } : {}),
            noData: what,
          },
        );
      });
    },
  },
  {
    id: 'RW404-analysis-job-curl-without-fail',
    severity: 'warning',
    title: 'An analysis Job runs curl without --fail, so it succeeds on an HTTP 5xx',
    kinds: KINDS,
    mechanism:
      'The Job provider marks the measurement Successful when the Job completes and Failed when it fails ' +
      '(metricproviders/job/job.go, Argo Rollouts v1.9.1), and curl exits 0 on any HTTP response, 500 included, ' +
      'unless it runs with --fail (-f) or --fail-with-body (exit code 22). A check that curls the canary without it ' +
      'passes exactly the release it exists to stop; only a refused connection fails it.',
    fieldNotes: 'docs/mechanisms.md#canary-analysis',
    fix:
      'Run curl with --fail (e.g. `curl -sf --max-time 5 http://svc/healthz`) or --fail-with-body, or check the ' +
      'status code (`-w "%{http_code}"` compared in the script).',
    facts: [],
    check(o, ctx) {
      arr(rec(o.obj.spec)?.metrics).forEach((m, i) => {
        const metric = rec(m);
        const job = rec(rec(metric?.provider)?.job);
        if (!metric || !job) return;
        const podSpec = rec(rec(rec(job.spec)?.template)?.spec);
        arr(podSpec?.containers).forEach((c, j) => {
          const container = rec(c);
          if (!container) return;
          for (const call of curlWithoutFail(container)) {
            ctx.report(
              o,
              `spec.metrics[${i}].provider.job.spec.template.spec.containers[${j}]`,
              `metric "${str(metric.name) ?? i}": container "${str(container.name) ?? j}" runs \`${call}\` without ` +
                '--fail: the Job completes, and the measurement is Successful, when the endpoint answers 500.',
              { metric: str(metric.name) ?? String(i), command: call },
            );
          }
        });
      });
    },
  },
  {
    id: 'RW405-analysis-condition-wrong-result-shape',
    severity: 'error',
    title:
      "Analysis condition written for another provider's result: result[0] on Datadog's number, a CloudWatch " +
      'result compared as a number',
    kinds: KINDS,
    mechanism:
      'Each provider hands the condition its own shape: Datadog one number (or nil), CloudWatch a list of ' +
      'MetricDataResult objects. A condition that indexes a number or compares an object cannot be evaluated, so ' +
      'every measurement is an Error, and after consecutiveErrorLimit errors the AnalysisRun is Error and the ' +
      'rollout aborts, for every release, healthy ones included.',
    fieldNotes: 'docs/mechanisms.md#canary-analysis',
    fix:
      'Datadog: compare the number itself, guarded for no data: `!isNil(result) && result < 0.01`. CloudWatch: ' +
      'read the values, `len(result[0].Values) > 0 && all(result[0].Values, {# < 0.01})`.',
    facts: [],
    upstream:
      'argoproj/argo-rollouts v1.9.1: metricproviders/datadog/datadog.go (parseResponseV1/V2 evaluate a ' +
      'float64 or a nil *float64) and metricproviders/cloudwatch/cloudwatch.go (Run evaluates ' +
      'result.MetricDataResults); utils/evaluate/evaluate.go returns AnalysisPhaseError when the condition fails to ' +
      'evaluate, and analysis/analysis.go ends the metric in Error after consecutiveErrorLimit consecutive errors, ' +
      'which aborts the rollout.',
    check(o, ctx) {
      arr(rec(o.obj.spec)?.metrics).forEach((m, i) => {
        const metric = rec(m);
        if (!metric) return;
        for (const w of wrongShape(metric)) {
          ctx.report(
            o,
            `spec.metrics[${i}].${w.cond}`,
            `metric "${str(metric.name) ?? i}": ${w.cond} \`${w.text}\`: ${w.why}; every measurement is an Error.`,
            { metric: str(metric.name) ?? String(i), condition: w.text, provider: providerName(metric) },
          );
        }
      });
    },
  },
];
