/**
 * apimachinery pkg/util/validation/validation.go: the name and key formats (DNS labels, qualified names, label
 * values, port names, env var names, ConfigMap keys).
 * Split from src/schemas/builtin.ts (issue 26); each check cites its source where it is.
 */

// apimachinery pkg/util/validation/validation.go
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
/**
 * IsEnvVarName (envVarNameFmt); used by core's validateEnv unless RelaxedEnvironmentVariableValidation is on (beta, on
 * by default from 1.32).
 */
export const ENV_VAR_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
/** IsRelaxedEnvVarName: printable ASCII except "=". */
export const RELAXED_ENV_VAR_NAME = /^[ -<>-~]+$/;
export const CONFIG_MAP_KEY = /^[-._a-zA-Z0-9]+$/;

export function isDns1123Label(v: string): boolean {
  return v.length <= 63 && DNS1123_LABEL.test(v);
}

/** IsDNS1123Subdomain: at most 253 characters of DNS labels joined by dots. */
export function isDns1123Subdomain(v: string): boolean {
  return v.length > 0 && v.length <= 253 && v.split('.').every((l) => DNS1123_LABEL.test(l));
}

/** IsQualifiedName (label and annotation keys): an optional DNS-subdomain prefix and "/", then a name of 1-63. */
export function isQualifiedName(v: string): boolean {
  const parts = v.split('/');
  if (parts.length > 2) return false;
  const name = parts[parts.length - 1];
  if (parts.length === 2 && !isDns1123Subdomain(parts[0])) return false;
  return name.length > 0 && name.length <= 63 && QUALIFIED_NAME.test(name);
}

/** IsValidLabelValue: empty, or a qualified name part of at most 63. */
export function isLabelValue(v: string): boolean {
  return v === '' || (v.length <= 63 && QUALIFIED_NAME.test(v));
}

/** IsValidPortName (IANA_SVC_NAME): 1-15 of [-a-z0-9] with a letter, no "--", no leading or trailing "-". */
export function isPortName(v: string): boolean {
  return (
    v.length > 0 &&
    v.length <= 15 &&
    /^[-a-z0-9]+$/.test(v) &&
    /[a-z]/.test(v) &&
    !v.includes('--') &&
    !v.startsWith('-') &&
    !v.endsWith('-')
  );
}

/**
 * apimachinery pkg/util/validation/validation.go hasChDirPrefix, which IsEnvVarName and
 * IsConfigMapKey add to their patterns: ".", ".." and names starting with ".." are refused (a key
 * becomes a file name in a volume, and these would walk out of it). IsRelaxedEnvVarName (1.32+)
 * does not call it. Read in the stored kubernetes/kubernetes copy of staging apimachinery (the
 * 1.30+ file that has IsRelaxedEnvVarName); the function is the same in v0.28.0.
 */
export function chDirPrefixProblem(v: string): string | undefined {
  if (v === '.') return 'must not be "."';
  if (v === '..') return 'must not be ".."';
  if (v.startsWith('..')) return 'must not start with ".."';
  return undefined;
}

/**
 * apimachinery IsConfigMapKey: at most 253 of [-._a-zA-Z0-9], not ".", "..", or starting "..". Returns the problem or
 * undefined.
 */
export function configMapKeyProblem(key: string): string | undefined {
  if (key.length > 253) return 'is longer than 253 characters';
  if (!CONFIG_MAP_KEY.test(key)) return 'must consist of letters, digits, "-", "_" or "."';
  return chDirPrefixProblem(key);
}
