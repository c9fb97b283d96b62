// utils/analysis/helpers.go ValidateMetrics and GetDryRunMetrics (v1.9.1), run by
// analysis/analysis.go reconcileAnalysisRun on the metrics resolved with the run's args.
import { intOrStringValue, parseGoDuration } from '../go-values';
import { arr, ControllerCheck, Findings, Json, rec, set, show, str } from './findings';

/** `{{...}}` tags as fasttemplate finds them (utils/template/template.go). */
const TAG = /\{\{(.*?)\}\}/g;

/**
 * ResolveMetricArgs over a JSON value: each `{{args.x}}` with a known value is substituted;
 * `unknown` lists tags with no declared arg (the controller's "failed to resolve {{...}}"), and
 * `pending` lists args declared without a value (supplied by the Rollout at run time).
 */
export function resolveArgs(
  x: unknown,
  values: ReadonlyMap<string, string | undefined>,
  unknown: string[] = [],
  pending: string[] = [],
): { value: unknown; unknown: string[]; pending: string[] } {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') {
      // A string without "{{" holds no tag (TAG starts with it): replace would return it unchanged.
      if (!v.includes('{{')) return v;
      return v.replace(TAG, (whole, tag: string) => {
        const t = tag.trim();
        if (t.startsWith('args.') && values.has(t.slice(5))) {
          const val = values.get(t.slice(5));
          if (val === undefined) {
            pending.push(t);
            return whole;
          }
          return val;
        }
        unknown.push(whole);
        return '';
      });
    }
    // Copied only where a tag was substituted: a metric without tags (most, and every rollwise
    // metric but the canary hash's) is returned as it is. Callers only read the value.
    if (Array.isArray(v)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < v.length; i++) {
        const w = walk(v[i]);
        if (w !== v[i]) (copy ??= v.slice())[i] = w;
      }
      return copy ?? v;
    }
    const r = rec(v);
    if (!r) return v;
    let copy: Json | undefined;
    for (const k of Object.keys(r)) {
      const w = walk(r[k]);
      if (w !== r[k]) (copy ??= { ...r })[k] = w;
    }
    return copy ?? r;
  };
  return { value: walk(x), unknown, pending };
}

/** The MetricProvider fields (pkg/apis/rollouts/v1alpha1/analysis_types.go, v1.9.1); `plugin` counts once per entry. */
const PROVIDERS = [
  'prometheus',
  'job',
  'web',
  'wavefront',
  'kayenta',
  'datadog',
  'newRelic',
  'cloudWatch',
  'graphite',
  'influxdb',
  'skywalking',
];

export function validateTemplate(t: Json, out: Findings): void {
  const spec = rec(t.spec) ?? {};
  const metrics = arr(spec.metrics);
  const nested = arr(spec.templates).length > 0;
  if (metrics.length === 0) {
    if (!nested)
      out.add(
        'noMetrics',
        'spec.metrics',
        'spec.metrics is empty: an AnalysisRun from this template goes to Error at once ("Analysis spec invalid: no ' +
          'metrics specified") and aborts the rollout. Add a metric.',
      );
    return;
  }
  const values = new Map<string, string | undefined>();
  for (const a of arr(spec.args)) {
    const arg = rec(a) ?? {};
    values.set(str(arg.name), typeof arg.value === 'string' ? arg.value : undefined);
  }
  const names = new Set<string>();
  metrics.forEach((m, i) => {
    const at = `spec.metrics[${i}]`;
    const raw = rec(m) ?? {};
    const name = str(raw.name);
    // ValidateMetrics: duplicate names first, then ValidateMetric.
    if (names.has(name)) {
      out.add(
        'duplicateMetric',
        `${at}.name`,
        `${at}.name "${name}" is used twice: the AnalysisRun goes to Error ("metrics[${i}]: duplicate name ` +
          `'${name}'") and the rollout aborts. Give every metric its own name.`,
        { metric: name },
      );
      return;
    }
    names.add(name);
    const r = resolveArgs(raw, values);
    for (const tag of new Set(r.unknown)) {
      out.add(
        'unresolvedArg',
        at,
        `metric "${name}" uses ${tag}, and the template declares no such arg: the AnalysisRun goes to Error ("Unable ` +
          `to resolve metric arguments: failed to resolve ${tag}") and the rollout aborts. Declare it in spec.args ` +
          'or fix the name.',
        { metric: name, tag },
      );
    }
    validateMetric(rec(r.value) ?? {}, raw, at, name, out);
  });
  // GetDryRunMetrics / GetMeasurementRetentionMetrics: every rule must match a metric name (a Go regexp).
  for (const field of ['dryRun', 'measurementRetention'] as const) {
    const seen = new Set<string>();
    arr(spec[field]).forEach((d, i) => {
      const pattern = str(rec(d)?.metricName);
      const label = field === 'dryRun' ? 'dryRun' : 'measurementRetention';
      if (seen.has(pattern)) {
        out.add(
          'dryRunRule',
          `spec.${field}[${i}].metricName`,
          `spec.${field}[${i}].metricName "${pattern}" is listed twice: the controller refuses it ` +
            `("two ${field === 'dryRun' ? 'Dry-Run' : 'Measurement Retention'} metric rules have the same name ` +
            `'${pattern}'"). Keep one.`,
          { metricName: pattern },
        );
        return;
      }
      seen.add(pattern);
      let re: RegExp | undefined;
      try {
        re = new RegExp(pattern, 'u');
      } catch {
        re = undefined;
      }
      if (!re || !metrics.some((m) => re!.test(str(rec(m)?.name)))) {
        out.add(
          'dryRunRule',
          `spec.${field}[${i}].metricName`,
          `spec.${field}[${i}].metricName "${pattern}" matches no metric name: the AnalysisRun goes to Error ` +
            `("${label}[${i}]: Rule didn't match any metric name(s)") and the rollout aborts. Use a metric name (or ` +
            'a regular expression matching one).',
          { metricName: pattern },
        );
      }
    });
  }
}

/**
 * ValidateMetric on a metric resolved with the template's arg values; fields still holding an
 * `{{args.x}}` the Rollout supplies are unknown here and not judged.
 */
function validateMetric(m: Json, raw: Json, at: string, name: string, out: Findings): void {
  const pending = (k: string) => typeof m[k] === 'string' && (m[k] as string).includes('{{');
  const num = (k: string) => (pending(k) ? undefined : intOrStringValue(m[k]));
  const count = pending('count') ? undefined : (intOrStringValue(m.count) ?? 0);
  const failureLimit = pending('failureLimit') ? undefined : (intOrStringValue(m.failureLimit) ?? 0);
  const successLimit = pending('consecutiveSuccessLimit')
    ? undefined
    : (intOrStringValue(m.consecutiveSuccessLimit) ?? 0);
  const inconclusiveLimit = pending('inconclusiveLimit') ? undefined : (intOrStringValue(m.inconclusiveLimit) ?? 0);
  const errorLimit = num('consecutiveErrorLimit');
  const say = (
    check: ControllerCheck,
    path: string,
    why: string,
    controller: string,
    fix: string,
    values: Record<string, string | number | boolean> = {},
  ) =>
    out.add(
      check,
      `${at}${path}`,
      `metric "${name}": ${why}: the AnalysisRun goes to Error ("Analysis spec invalid: ${controller}") and the ` +
        `rollout aborts. ${fix}`,
      { metric: name, ...values },
    );
  // Only the first error of a metric is reported, as ValidateMetric returns at the first.
  if (successLimit !== undefined && successLimit < 0)
    return say(
      'negativeLimit',
      '.consecutiveSuccessLimit',
      `consecutiveSuccessLimit = ${show(raw.consecutiveSuccessLimit)}`,
      'consecutiveSuccessLimit must be >= 0',
      'Use 0 (off) or more.',
      { field: 'consecutiveSuccessLimit' },
    );
  if (failureLimit !== undefined && failureLimit < -1)
    return say(
      'negativeLimit',
      '.failureLimit',
      `failureLimit = ${show(raw.failureLimit)}`,
      'failureLimit must be >= 0, or -1 to be disabled',
      'Use 0 or more (-1 disables it).',
      { field: 'failureLimit' },
    );
  if (successLimit === 0 && failureLimit === -1)
    return say(
      'limitsBothDisabled',
      '.failureLimit',
      'failureLimit = -1 and consecutiveSuccessLimit is 0 (both disabled)',
      'failureLimit and consecutiveSuccessLimit cannot both be disabled',
      'Set failureLimit to 0 or more, or a consecutiveSuccessLimit.',
    );
  if (inconclusiveLimit !== undefined && inconclusiveLimit < 0)
    return say(
      'negativeLimit',
      '.inconclusiveLimit',
      `inconclusiveLimit = ${show(raw.inconclusiveLimit)}`,
      'inconclusiveLimit must be >= 0',
      'Use 0 or more.',
      { field: 'inconclusiveLimit' },
    );
  if (errorLimit !== undefined && errorLimit < 0)
    return say(
      'negativeLimit',
      '.consecutiveErrorLimit',
      `consecutiveErrorLimit = ${show(raw.consecutiveErrorLimit)}`,
      'consecutiveErrorLimit must be >= 0',
      'Use 0 or more (the default is 4).',
      { field: 'consecutiveErrorLimit' },
    );
  if (count !== undefined && count > 0) {
    if (successLimit !== undefined && failureLimit !== undefined) {
      if (successLimit >= 0 && failureLimit >= 0 && count < failureLimit + successLimit) {
        return say(
          'countBelowLimits',
          '.count',
          `count ${count} is below failureLimit + consecutiveSuccessLimit (${failureLimit} + ${successLimit})`,
          `count (${count}) must be >= failureLimit + consecutiveSuccessLimit (${failureLimit} + ${successLimit}) if ` +
            'both >= 0',
          `Raise count to at least ${failureLimit + successLimit} or lower the limits.`,
          { count, failureLimit, consecutiveSuccessLimit: successLimit },
        );
      }
      if (successLimit >= 0 && failureLimit < 0 && count < successLimit) {
        return say(
          'countBelowLimits',
          '.count',
          `count ${count} is below consecutiveSuccessLimit ${successLimit}`,
          'count must be >= consecutiveSuccessLimit',
          `Raise count to at least ${successLimit}.`,
          { count, consecutiveSuccessLimit: successLimit },
        );
      }
    }
    if (inconclusiveLimit !== undefined && count < inconclusiveLimit) {
      return say(
        'countBelowInconclusive',
        '.count',
        `count ${count} is below inconclusiveLimit ${inconclusiveLimit}`,
        'count must be >= inconclusiveLimit',
        `Raise count to at least ${inconclusiveLimit} or lower inconclusiveLimit.`,
        { count, inconclusiveLimit },
      );
    }
  }
  const interval = str(m.interval);
  if (count !== undefined && count > 1 && interval === '' && !pending('interval')) {
    return say(
      'intervalRequired',
      '.interval',
      `count ${count} and no interval`,
      'interval must be specified when count > 1',
      'Set interval (e.g. "1m") between the measurements.',
      { count },
    );
  }
  for (const [field, label] of [
    ['interval', 'interval'],
    ['initialDelay', 'startDelay'],
  ] as const) {
    const v = str(m[field]);
    if (v === '' || pending(field)) continue;
    const d = parseGoDuration(v);
    if ('error' in d)
      return say(
        'durationInvalid',
        `.${field}`,
        `${field} ${show(v)} is not a Go duration`,
        `invalid ${label} string: ${d.error}`,
        'Write a Go duration with units ns, us, ms, s, m, h ("30s", "1m", "1h30m"); there is no "d" unit.',
        { field, value: v },
      );
  }
  const provider = rec(m.provider) ?? {};
  let n = PROVIDERS.filter((p) => set(provider[p])).length;
  const plugin = rec(provider.plugin);
  if (plugin) n += Object.keys(plugin).length;
  if (n === 0)
    return say(
      'providerCount',
      '.provider',
      `no provider${Object.keys(provider).length ? ` rollouts knows (${Object.keys(provider).join(', ')})` : ''}`,
      'no provider specified',
      'Give exactly one provider, e.g. provider: { prometheus: { address, query } }.',
    );
  if (n > 1)
    return say(
      'providerCount',
      '.provider',
      `${n} providers (${Object.keys(provider).join(', ')})`,
      'multiple providers specified',
      'Keep exactly one provider per metric.',
    );
  return undefined;
}
