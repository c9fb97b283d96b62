import { ANALYSIS_RULES } from './analysis-rules';
import { COMPOSITION_RULES } from './composition-rules';
import { CONTROLLER_RULES } from './controller-rules';
import { DISRUPTION_RULES } from './disruption-rules';
import { PROBE_RULES } from './probe-rules';
import { ROLLOUT_RULES } from './rollout-rules';
import { RuleDefinition, RuleMeta } from './rule';
import { TRAFFIC_RULES } from './traffic-rules';

/** Rules the engine applies itself (input problems, suppressions, facts); no per-kind check. */
export const ENGINE_RULES = {
  malformed: {
    id: 'RW000-malformed-document',
    severity: 'error',
    title: 'A document cannot be parsed as a Kubernetes object',
    kinds: [],
    mechanism: 'A document that does not parse is not checked at all (and kubectl would refuse the whole file), so every hazard in it is invisible.',
    fieldNotes: 'docs/mechanisms.md#readiness-control-loop (a composition can only be checked when every part of it is read)',
    fix: 'Fix the YAML at the reported line (indentation, unclosed brackets or quotes); the other documents of the file are still checked.',
    facts: [],
  },
  suppressionWithoutReason: {
    id: 'RW901-suppression-without-reason',
    severity: 'error',
    title: 'A rollwise.dev/suppress line has no reason',
    kinds: [],
    mechanism: 'A suppression hides a composition hazard from every later reviewer; without the reason nobody can tell whether it still holds when the numbers change.',
    fieldNotes: 'docs/mechanisms.md#readiness-control-loop (no single reviewer flags a composition)',
    fix: 'Write one "<rule-id>: <reason>" line per suppressed rule in the rollwise.dev/suppress annotation, e.g. "RW201-cpu-limit-with-http-probes: batch worker, probes are tcpSocket only".',
    facts: [],
  },
  unknownSuppression: {
    id: 'RW902-suppression-unknown-rule',
    severity: 'warning',
    title: 'A rollwise.dev/suppress line names a rule that does not exist',
    kinds: [],
    mechanism: 'A suppression for a misspelled or retired rule id suppresses nothing, while its author believes the hazard was reviewed.',
    fieldNotes: 'docs/mechanisms.md#readiness-control-loop',
    fix: 'Use a rule id from docs/rules.md (the full id or its RWnnn prefix), or delete the line.',
    facts: [],
  },
  invalidFact: {
    id: 'RW903-invalid-fact',
    severity: 'error',
    title: 'A declared fact (rollwise.dev/... annotation or option) cannot be read',
    kinds: [],
    mechanism: 'A fact the rules cannot read silently turns its rules off (a p99 of "fast" checks nothing), so a declared measurement must be a number.',
    fieldNotes: 'docs/mechanisms.md#readiness-calls-a-dependency, #keep-alive-race',
    fix: 'Write the value in the documented format (docs/rules.md, "Facts"): seconds or requests per second as a positive number, "none" for keep-alive, "true"/"false" for readiness-calls-dependency.',
    facts: [],
  },
} as const satisfies Record<string, RuleMeta>;

/** Every rule with a check, in catalogue order. */
export const RULES: readonly RuleDefinition[] = [...PROBE_RULES, ...COMPOSITION_RULES, ...ROLLOUT_RULES, ...ANALYSIS_RULES, ...TRAFFIC_RULES, ...DISRUPTION_RULES, ...CONTROLLER_RULES];

/** Every rule id, checks and engine rules, sorted by id. */
export function allRules(): readonly RuleMeta[] {
  return [...RULES, ...Object.values(ENGINE_RULES)].sort((a, b) => a.id.localeCompare(b.id));
}

const BY_ID = new Map<string, RuleMeta>();
for (const r of allRules()) {
  BY_ID.set(r.id, r);
  BY_ID.set(r.id.split('-')[0], r);
}

/** A rule by its full id or its `RWnnn` prefix. */
export function findRule(idOrPrefix: string): RuleMeta | undefined {
  return BY_ID.get(idOrPrefix.trim());
}
