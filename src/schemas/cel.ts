import { celEnv, isCelError, parse, plan } from '@bufbuild/cel';
import { strings } from '@bufbuild/cel/ext';
import { readsOf, type Reads } from './cel-reads';

/**
 * The CRDs' `x-kubernetes-validations` rules, evaluated by a real CEL implementation
 * (@bufbuild/cel) the way the apiextensions server evaluates them.
 *
 * The environment: CEL's standard definitions (has, size, all, exists, exists_one, filter,
 * matches, startsWith, endsWith, contains, duration, ...) plus cel-go's strings extension, version
 * 2 (split, upperAscii, lowerAscii, replace, ...), which Kubernetes adds to every CEL environment
 * (k8s.io/apiserver pkg/cel/environment/base.go, v0.33.0: `ext.Strings(ext.StringsVersion(2))`).
 * Kubernetes' own libraries (pkg/cel/library: lists, regex find, urls, quantity, ip, cidr, format,
 * semver) are not added: no rule of the pinned CRDs calls one (test/schemas/cel.test.ts lists
 * the functions they call and fails on one this environment lacks), and a rule that did would
 * fail to compile here rather than pass unchecked.
 */
const env = celEnv({ funcs: strings });

/** A compiled rule: evaluate with `self` bound (already converted by `toCel`). */
export interface CompiledRule {
  readonly rule: string;
  readonly message: string;
  /** Set when the rule reads `oldSelf`: a transition rule, which the API server does not run on create. */
  readonly transition: boolean;
  /** What the rule can read of `self` (cel-reads.ts): a memo of its results is keyed by that part only. */
  readonly reads: Reads;
  /** The result: true, false, or an evaluation error's text. */
  evaluate(self: unknown): true | false | string;
}

/** Compiles one rule; throws with the rule's text when it does not parse or plan. */
export function compileRule(rule: string, message: string | undefined): CompiledRule {
  const transition = /\boldSelf\b/.test(rule);
  const parsed = parse(rule);
  const fn = plan(env, parsed);
  return {
    rule,
    message: message ?? `failed rule: ${rule}`,
    transition,
    reads: readsOf(parsed.expr),
    evaluate(self: unknown) {
      const r = fn({ self } as never);
      if (isCelError(r)) return String((r as { message?: string }).message ?? r);
      if (r === true) return true;
      if (r === false) return false;
      return `the rule gave ${typeof r}, not a bool`;
    },
  };
}

/**
 * escapeProperty's results by name (bounded); NOT_ACCESSIBLE for a name CEL cannot reach, which no escaped
 * name can equal (escaped names hold only A-Z, a-z, 0-9 and _).
 */
const ESCAPED = new Map<string, string>();
const NOT_ACCESSIBLE = '\u0000';

const RESERVED = new Set([
  'true',
  'false',
  'null',
  'in',
  'as',
  'break',
  'const',
  'continue',
  'else',
  'for',
  'function',
  'if',
  'import',
  'let',
  'loop',
  'package',
  'namespace',
  'return',
  'var',
  'void',
  'while',
]);

/**
 * A property name as CEL rules see it (k8s.io/apiserver pkg/cel/escaping.go, v0.33.0): reserved
 * words become `__word__`; `__`, `.`, `-` and `/` become `__underscores__`, `__dot__`, `__dash__`,
 * `__slash__`; a name with any other character outside [A-Za-z0-9_], or starting with a digit, is
 * not accessible (undefined).
 */
export function escapeProperty(name: string): string | undefined {
  // A pure function of the name, so the name is the whole key; every object's keys pass through
  // here each time a value is converted for a CEL rule, and an estate repeats a few hundred names.
  const known = ESCAPED.get(name);
  if (known !== undefined) return known === NOT_ACCESSIBLE ? undefined : known;
  const escaped = escapeUncached(name);
  if (ESCAPED.size >= 10_000) ESCAPED.clear();
  ESCAPED.set(name, escaped ?? NOT_ACCESSIBLE);
  return escaped;
}

function escapeUncached(name: string): string | undefined {
  if (name === '' || /^[0-9]/.test(name)) return undefined;
  if (RESERVED.has(name)) return `__${name}__`;
  if (/[^A-Za-z0-9_./-]/.test(name)) return undefined;
  return name.replace(/__|[-./]/g, (m) =>
    m === '__' ? '__underscores__' : m === '.' ? '__dot__' : m === '-' ? '__dash__' : '__slash__',
  );
}
