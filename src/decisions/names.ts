import { RollwiseInputError } from '../errors';

/** A name rollwise derives from the service's name, and the API limit it must fit. */
export interface DerivedName {
  readonly suffix: string;
  readonly object: string;
  /** The most characters the API server accepts for it. */
  readonly limit: number;
  readonly rule: string;
}

/**
 * A Service name is an RFC 1035 label (kubernetes pkg/apis/core/validation ValidateServiceName: NameIsDNS1035Label).
 */
const SERVICE = 'a Service name is a DNS-1035 label, at most 63 characters';
/** Label values (app.kubernetes.io/name carries the service's name) are at most 63 characters. */
const LABEL = 'a label value is at most 63 characters';
/** Custom resources and most objects take a DNS-1123 subdomain name, at most 253 characters. */
const SUBDOMAIN = 'an object name is a DNS-1123 subdomain, at most 253 characters';

/** Every name rollwise derives from the service's name, per delivery. */
export function derivedNames(canary: boolean, route: boolean, migration = false): DerivedName[] {
  const names: DerivedName[] = [
    { suffix: '', object: 'Service', limit: 63, rule: SERVICE },
    { suffix: '', object: 'label app.kubernetes.io/name value', limit: 63, rule: LABEL },
    { suffix: '', object: 'PodDisruptionBudget and PrometheusRule', limit: 253, rule: SUBDOMAIN },
  ];
  if (route) names.push({ suffix: '', object: 'HTTPRoute and BackendTrafficPolicy', limit: 253, rule: SUBDOMAIN });
  // the Job controller labels the Job's pods job-name: <name> (kubernetes pkg/controller/job), so the name is a label
  // value
  if (migration)
    names.push({
      suffix: '-migrate',
      object: 'migration Job (its pods carry its name as the job-name ' + 'label)',
      limit: 63,
      rule: LABEL,
    });
  if (canary) {
    names.push(
      { suffix: '-canary', object: 'canary Service', limit: 63, rule: SERVICE },
      { suffix: '-canary-background', object: 'AnalysisTemplate', limit: 253, rule: SUBDOMAIN },
      { suffix: '-canary-gate', object: 'AnalysisTemplate', limit: 253, rule: SUBDOMAIN },
    );
  }
  return names;
}

/**
 * Refuses a service name for which a derived name would exceed its API limit, naming the derived
 * name that binds (the longest suffix under the tightest limit) at the input, before anything is
 * rendered: the API server would otherwise reject that object at apply time, after review.
 */
export function checkDerivedNames(
  input: string,
  name: string,
  canary: boolean,
  route: boolean,
  migration = false,
): void {
  const names = derivedNames(canary, route, migration);
  const tooLong = names.filter((n) => name.length + n.suffix.length > n.limit);
  if (tooLong.length === 0) return;
  const binding = names.reduce((a, b) => (b.limit - b.suffix.length < a.limit - a.suffix.length ? b : a));
  const max = binding.limit - binding.suffix.length;
  const longest = names.reduce((a, b) => (b.suffix.length > a.suffix.length ? b : a));
  const first = tooLong[0];
  throw new RollwiseInputError(
    input,
    name,
    `is ${name.length} characters, and rollwise derives the ${first.object} name "${name}${first.suffix}" ` +
      `(${name.length + first.suffix.length} characters) from it: ${first.rule}, so the API server would reject it ` +
      `at apply time, after review. The tightest derived name is the ${binding.object} "<name>${binding.suffix}" ` +
      `(limit ${binding.limit}); the longest derived suffix is "${longest.suffix}" (${longest.object} ` +
      `"<name>${longest.suffix}", limit ${longest.limit}).`,
    `use a name of at most ${max} characters${canary ? ' (canary delivery adds "-canary")' : ''}.`,
  );
}
