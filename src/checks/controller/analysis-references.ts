// The analysis templates a Rollout references: ValidateAnalysisTemplatesWithType
// (pkg/apis/rollouts/validation/validation_references.go, v1.9.1) on the run that
// NewAnalysisRunFromTemplates (utils/analysis/helpers.go: FlattenTemplates, MergeArgs) would build.
import { intOrStringValue } from '../go-values';
import { resolveArgs } from './analysis-metrics';
import { arr, Findings, Json, ObjectLookup, rec, set, show, str } from './findings';

/** A template reference resolved, with its nested templates (getReferencedAnalysisTemplatesFromRef). */
interface ResolvedTemplate {
  readonly name: string;
  readonly kind: string;
  readonly spec: Json;
}

function resolveTemplates(
  refs: unknown[],
  ns: string | undefined,
  lookup: ObjectLookup,
  at: string,
  out: Findings,
  seen: Set<string>,
): ResolvedTemplate[] | undefined {
  const res: ResolvedTemplate[] = [];
  for (const [i, r] of refs.entries()) {
    const ref = rec(r) ?? {};
    const name = str(ref.templateName);
    const cluster = ref.clusterScope === true;
    const kind = cluster ? 'ClusterAnalysisTemplate' : 'AnalysisTemplate';
    const t = lookup.get(kind, cluster ? undefined : ns, name);
    if (!t) {
      out.add(
        'templateNotFound',
        `${at}.templates[${i}].templateName`,
        `${at}.templates[${i}] names ${kind} "${name}", which is not among the checked ` +
          `objects${cluster ? '' : ` in namespace ${ns ?? '(unset)'}`}: the controller marks the Rollout InvalidSpec ` +
          `("${kind} '${name}' not found"). Add the template or fix the ` +
          `name${cluster ? '' : ' (set clusterScope: true for a ClusterAnalysisTemplate)'}.`,
        { template: name, kind },
      );
      return undefined;
    }
    const key = `${kind}/${name}`;
    res.push({ name, kind, spec: rec(t.spec) ?? {} });
    if (seen.has(key)) continue;
    seen.add(key);
    const nested = arr(rec(t.spec)?.templates);
    if (nested.length > 0) {
      const inner = resolveTemplates(nested, ns, lookup, `${key} spec`, out, seen);
      if (!inner) return undefined;
      res.push(...inner);
    }
  }
  return res;
}

/**
 * ValidateAnalysisTemplatesWithType: NewAnalysisRunFromTemplates (FlattenTemplates, MergeArgs,
 * the dry-run and measurement-retention merges) with the Rollout's args, then
 * ValidateAnalysisTemplateWithType: inline analyses need a finite count; a background analysis
 * must supply every template arg that has no value.
 */
export function validateAnalysisUse(
  ro: Json,
  at: string,
  analysis: Json,
  background: boolean,
  steps: unknown[],
  lookup: ObjectLookup,
  out: Findings,
): void {
  const ns = str(rec(ro.metadata)?.namespace) || undefined;
  const templates = resolveTemplates(arr(analysis.templates), ns, lookup, at, out, new Set());
  if (!templates) return;
  const names = templates.map((t) => t.name).join(', ');
  // FlattenTemplates: flattenMetrics, flattenDryRunMetrics, flattenMeasurementRetentionMetrics, flattenArgs.
  const metricNames = new Map<string, string>();
  for (const t of templates) {
    for (const m of arr(t.spec.metrics)) {
      const n = str(rec(m)?.name);
      const prev = metricNames.get(n);
      if (prev !== undefined) {
        out.add(
          'templatesMergeInvalid',
          `${at}.templates`,
          `${at}: ${
            prev === t.name
              ? `template ${t.name} has two metrics`
              : `templates ${prev} and ${t.name} both ` + 'have a metric'
          } ` +
            `named "${n}": the controller cannot build the AnalysisRun ("two metrics have the same name '${n}'") and ` +
            'marks the Rollout InvalidSpec. Rename one of the metrics.',
          { templates: names, metric: n },
        );
        return;
      }
      metricNames.set(n, t.name);
    }
  }
  for (const field of ['dryRun', 'measurementRetention'] as const) {
    const seen = new Set<string>();
    for (const t of templates) {
      for (const d of arr(t.spec[field])) {
        const n = str(rec(d)?.metricName);
        if (seen.has(n)) {
          out.add(
            'templatesMergeInvalid',
            `${at}.templates`,
            `${at}: ${field} rule "${n}" appears twice across the templates ${names}: the controller refuses to ` +
              `build the AnalysisRun ("two ${field === 'dryRun' ? 'Dry-Run' : 'Measurement Retention'} metric rules ` +
              `have the same name '${n}'"). Keep one rule.`,
            { templates: names, metricName: n },
          );
          return;
        }
        seen.add(n);
      }
    }
    // mergeDryRunMetrics / mergeMeasurementRetentionMetrics with each analysis step's own rules.
    for (const [i, s] of steps.entries()) {
      const stepRules = arr(rec(rec(s)?.analysis)?.[field]).map((d) => str(rec(d)?.metricName));
      const dup = stepRules.find((n) => seen.has(n));
      if (dup !== undefined) {
        out.add(
          'templatesMergeInvalid',
          `spec.strategy.canary.steps[${i}].analysis.${field}`,
          `spec.strategy.canary.steps[${i}].analysis.${field} repeats the rule "${dup}" that the templates ${names} ` +
            'already have: the controller refuses it ' +
            `("two ${field === 'dryRun' ? 'Dry-Run' : 'Measurement Retention'} metric rules have the same name ` +
            `'${dup}'"). Keep the rule in one place.`,
          { metricName: dup },
        );
        return;
      }
    }
  }
  const args = new Map<string, Json>();
  for (const t of templates) {
    for (const a of arr(t.spec.args)) {
      const arg = rec(a) ?? {};
      const n = str(arg.name);
      const prev = args.get(n);
      if (prev && typeof prev.value === 'string' && typeof arg.value === 'string' && prev.value !== arg.value) {
        out.add(
          'templatesMergeInvalid',
          `${at}.templates`,
          `${at}: arg "${n}" has different values across the templates ${names} ("${prev.value}", "${arg.value}"): ` +
            `the controller refuses it ("Argument \`${n}\` specified multiple times with different values"). Give it ` +
            'one value.',
          { arg: n },
        );
        return;
      }
      if (!prev || !set(prev.value)) args.set(n, arg);
    }
  }
  // MergeArgs + ResolveArgs: every template arg without value or valueFrom must come from the Rollout.
  const supplied = new Set(arr(analysis.args).map((a) => str(rec(a)?.name)));
  for (const [n, arg] of args) {
    if (set(arg.value) || set(arg.valueFrom) || supplied.has(n)) continue;
    out.add(
      'analysisArgsNotSupplied',
      `${at}.args`,
      `${at}: the template arg "${n}" (${names}) has no value and ${at}.args does not supply it: the controller ` +
        `refuses to create the AnalysisRun ("args.${n} was not ` +
        `resolved"${background ? '; "missing analysis arguments in rollout spec"' : ''}) and marks the Rollout ` +
        `InvalidSpec. Add { name: "${n}", value: ... } or valueFrom to ${at}.args.`,
      { arg: n },
    );
  }
  if (background) return;
  // validateAnalysisMetrics: an arg with both value and valueFrom; then EffectiveCount on the
  // metrics resolved with the template's own args (args without a value get a placeholder).
  for (const [n, arg] of args) {
    if (set(arg.value) && set(arg.valueFrom)) {
      out.add(
        'argValueAndValueFrom',
        `${at}.templates`,
        `${at}: the template arg "${n}" has both value and valueFrom: the controller refuses the inline analysis ` +
          `("arg '${n}' has both Value and ValueFrom fields"). Keep one of them.`,
        { arg: n },
      );
      return;
    }
  }
  const values = new Map<string, string>();
  for (const [n, arg] of args) values.set(n, typeof arg.value === 'string' ? arg.value : 'dummy-value');
  for (const t of templates) {
    for (const m of arr(t.spec.metrics)) {
      const r = resolveArgs(m, values);
      if (r.unknown.length > 0) {
        out.add(
          'inlineUnresolvedArg',
          `${at}.templates`,
          `${at}: ${t.kind} ${t.name} metric "${str(rec(m)?.name)}" uses ${r.unknown[0]}, which is not an arg of the ` +
            `template: the controller cannot resolve it for an analysis step ("AnalysisTemplate ${t.name}: failed to ` +
            `resolve ${r.unknown[0]}") and marks the Rollout InvalidSpec. Declare the arg in the template's ` +
            'spec.args or fix the name.',
          { template: t.name, tag: r.unknown[0] },
        );
        return;
      }
      const resolved = rec(r.value) ?? {};
      const count = intOrStringValue(resolved.count) ?? 0;
      if (count === 0 && str(resolved.interval) !== '') {
        out.add(
          'inlineAnalysisIndefinite',
          `${at}.templates`,
          `${at}: ${t.kind} ${t.name} metric "${str(resolved.name)}" has interval ${show(resolved.interval)} ` +
            `and ${set(rec(m)?.count) ? `count ${show(rec(m)?.count)}, which reads as 0 here` : 'no count'}: it ` +
            'would run until stopped, and an inline analysis step must end, so the controller refuses it ("runs ' +
            'indefinitely. Invalid value for count"). Set a literal count (e.g. 5); a count from a Rollout arg does ' +
            'not count here.',
          { template: t.name, metric: str(resolved.name) },
        );
      }
    }
  }
}
