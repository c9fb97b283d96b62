/**
 * How the Argo Rollouts controller (Go) reads the values of a manifest: durations, int-or-string
 * fields, percentages, label keys and selectors. The checker must read a value exactly as the
 * controller does, or its verdict differs (".5h" and "+10m" are valid pause durations, "1d" is not).
 */

/** Go's time.ParseDuration units, in nanoseconds (Go src/time/format.go, `unitMap`). */
const GO_UNITS: Readonly<Record<string, number>> = {
  ns: 1,
  us: 1e3,
  '\u00b5s': 1e3,
  '\u03bcs': 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};
/**
 * Go's int64 nanosecond limit (2^63 - 1, about 292 years); as a double it is 2^63, which the overflow check compares
 * against.
 */
const MAX_INT64_NS = 2 ** 63;

/**
 * Go's `time.ParseDuration`: an optional sign, then one or more `<decimal><unit>` parts (`1h30m`,
 * `.5h`, `1.5s`); "0" alone needs no unit. Returns seconds, or an error text as Go words it.
 */
export function parseGoDuration(input: string): { seconds: number } | { error: string } {
  let s = input;
  let neg = false;
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-';
    s = s.slice(1);
  }
  if (s === '0') return { seconds: 0 };
  if (s === '') return { error: `time: invalid duration "${input}"` };
  let total = 0;
  while (s !== '') {
    if (!(s[0] === '.' || (s[0] >= '0' && s[0] <= '9'))) return { error: `time: invalid duration "${input}"` };
    const m = /^(\d*)(?:\.(\d*))?/.exec(s)!;
    const pre = m[1].length > 0;
    const post = m[2] !== undefined && m[2].length > 0;
    if (!pre && !post) return { error: `time: invalid duration "${input}"` };
    const value = Number(`${m[1] || '0'}.${m[2] ?? '0'}`);
    s = s.slice(m[0].length);
    const u = /^[^.\d]*/.exec(s)![0];
    if (u === '') return { error: `time: missing unit in duration "${input}"` };
    const unit = GO_UNITS[u];
    if (unit === undefined) return { error: `time: unknown unit "${u}" in duration "${input}"` };
    s = s.slice(u.length);
    total += value * unit;
    if (total > MAX_INT64_NS) return { error: `time: invalid duration "${input}"` };
  }
  return { seconds: (neg ? -total : total) / 1e9 };
}

/** Go's `strconv.ParseInt(s, 10, 32)`: optional sign, decimal digits, within int32. */
export function goParseInt32(s: string): number | undefined {
  if (!/^[+-]?\d+$/.test(s)) return undefined;
  const n = Number(s);
  return n < -2147483648 || n > 2147483647 ? undefined : n;
}

/**
 * `intstr.IntOrString.IntValue()` (k8s.io/apimachinery util/intstr): an int as it is, a string
 * through `strconv.Atoi`, 0 when that fails (so "25%" and "{{args.n}}" are 0). Undefined when absent.
 */
export function intOrStringValue(x: unknown): number | undefined {
  if (x === undefined || x === null) return undefined;
  if (typeof x === 'number') return Math.trunc(x);
  if (typeof x === 'string') return /^[+-]?\d+$/.test(x) ? Number(x) : 0;
  return 0;
}

/**
 * `getIntOrPercentValue` (pkg/apis/rollouts/validation/validation.go, v1.9.1): "N%" (digits only,
 * `IsValidPercent`) is N, anything else is IntValue().
 */
export function intOrPercentValue(x: unknown): number {
  if (typeof x === 'string' && /^[0-9]+%$/.test(x)) return Number(x.slice(0, -1));
  return intOrStringValue(x) ?? 0;
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;

/** `validation.IsQualifiedName` (k8s.io/apimachinery util/validation): why a label key is invalid, or undefined. */
export function qualifiedNameError(key: string): string | undefined {
  const parts = key.split('/');
  let name = key;
  if (parts.length === 2) {
    const [prefix] = parts;
    name = parts[1];
    if (prefix.length === 0) return 'prefix part must be non-empty';
    if (prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix))
      return `prefix part "${prefix}" must be a lowercase ` + 'DNS subdomain';
  } else if (parts.length > 2) {
    return 'a qualified name has at most one "/"';
  }
  if (name.length === 0) return 'name part must be non-empty';
  if (name.length > 63) return 'name part must be no more than 63 characters';
  if (!QUALIFIED_NAME.test(name))
    return (
      'name part must consist of alphanumeric characters, "-", "_" or ".", and ' +
      'must start and end with an alphanumeric character'
    );
  return undefined;
}

/** `validation.IsValidLabelValue`: empty, or up to 63 characters of the qualified-name alphabet. */
export function labelValueError(v: string): string | undefined {
  if (v.length > 63) return 'must be no more than 63 characters';
  if (v !== '' && !QUALIFIED_NAME.test(v))
    return (
      'must be empty or consist of alphanumeric characters, "-", "_" or ' +
      '".", starting and ending with an alphanumeric character'
    );
  return undefined;
}

export interface SelectorRequirement {
  readonly key: string;
  readonly operator: string;
  readonly values: readonly string[];
}

/** A `metav1.LabelSelector` read from JSON. */
export interface LabelSelector {
  readonly matchLabels: Readonly<Record<string, string>>;
  readonly matchExpressions: readonly SelectorRequirement[];
}

/**
 * The errors of `unversionedvalidation.ValidateLabelSelector` and `metav1.LabelSelectorAsSelector`
 * (k8s.io/apimachinery), each with the field path below the selector.
 */
export function labelSelectorErrors(sel: LabelSelector): { path: string; error: string }[] {
  const out: { path: string; error: string }[] = [];
  for (const [k, v] of Object.entries(sel.matchLabels)) {
    const ke = qualifiedNameError(k);
    if (ke) out.push({ path: `matchLabels[${JSON.stringify(k)}]`, error: `key ${JSON.stringify(k)}: ${ke}` });
    const ve = typeof v === 'string' ? labelValueError(v) : 'must be a string';
    if (ve) out.push({ path: `matchLabels[${JSON.stringify(k)}]`, error: `value ${JSON.stringify(v)}: ${ve}` });
  }
  sel.matchExpressions.forEach((r, i) => {
    const at = `matchExpressions[${i}]`;
    if (r.operator === 'In' || r.operator === 'NotIn') {
      if (r.values.length === 0)
        out.push({ path: `${at}.values`, error: `operator ${r.operator} needs at least one value` });
    } else if (r.operator === 'Exists' || r.operator === 'DoesNotExist') {
      if (r.values.length > 0) out.push({ path: `${at}.values`, error: `operator ${r.operator} must have no values` });
    } else {
      out.push({
        path: `${at}.operator`,
        error: `${JSON.stringify(r.operator)} is not a valid selector operator (In, ` + 'NotIn, Exists, DoesNotExist)',
      });
    }
    const ke = qualifiedNameError(r.key);
    if (ke) out.push({ path: `${at}.key`, error: `key ${JSON.stringify(r.key)}: ${ke}` });
  });
  return out;
}

/**
 * One matchExpressions requirement against a label set (`labels.Requirement.Matches`): In needs the
 * key with one of the values, NotIn passes an absent key, Exists and DoesNotExist look at the key only.
 * Undefined for an operator that is none of the four (each caller says what that means for it).
 */
export function requirementMatches(
  operator: unknown,
  key: string,
  values: readonly unknown[],
  labels: Readonly<Record<string, unknown>>,
): boolean | undefined {
  const has = Object.prototype.hasOwnProperty.call(labels, key);
  switch (operator) {
    case 'In':
      return has && values.includes(labels[key]);
    case 'NotIn':
      return !(has && values.includes(labels[key]));
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    default:
      return undefined;
  }
}

/** `labels.Selector.Matches` for a valid selector. */
export function selectorMatches(sel: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  for (const [k, v] of Object.entries(sel.matchLabels)) if (labels[k] !== v) return false;
  return sel.matchExpressions.every((r) => requirementMatches(r.operator, r.key, r.values, labels) === true);
}

/**
 * `fieldpath.ExtractFieldPathAsString` (k8s.io/kubernetes pkg/fieldpath/fieldpath.go, the module
 * argo-rollouts v1.9.1 pins in go.mod at v1.34.1): which `metadata.*` paths it resolves. Returns why
 * a path fails, or undefined.
 */
export function metadataFieldPathError(path: string): string | undefined {
  if (path.endsWith("']")) {
    const parts = path.slice(0, -2).split("['");
    if (parts.length >= 2 && parts[0].length > 0) {
      const base = parts[0];
      const subscript = parts.slice(1).join("['");
      if (base === 'metadata.annotations' || base === 'metadata.labels') {
        const e = qualifiedNameError(base === 'metadata.annotations' ? subscript.toLowerCase() : subscript);
        return e ? `invalid key subscript in ${path}: ${e}` : undefined;
      }
      return `fieldPath "${path}" does not support subscript`;
    }
  }
  return ['metadata.annotations', 'metadata.labels', 'metadata.name', 'metadata.namespace', 'metadata.uid'].includes(
    path,
  )
    ? undefined
    : `unsupported fieldPath: ${path}`;
}
