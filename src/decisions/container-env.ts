// A container's environment (env, envFrom): names by the target Kubernetes version's rule, values
// only through EnvValue, Secret and ConfigMap references checked.
import { EnvFrom, EnvValue, ExtraContainerDecisions } from './pod-extras-props';
import { KubernetesVersion } from './kubernetes-version';
import { RollwiseInputError } from '../errors';
import { checkList, checkSubdomain } from './container-input-checks';

/**
 * Kubernetes 1.28 env var names (validation.IsEnvVarName): letters, digits, "_", "-", ".", not starting with a digit.
 */
const ENV_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
/** From 1.32 (KubernetesVersion.relaxedEnvNames; validation.IsRelaxedEnvVarName): printable ASCII other than "=". */
const RELAXED_ENV_NAME = /^[ -<>-~]+$/;

/** The env-name rule of the target version, with how the errors describe it. */
function envNameRule(version: KubernetesVersion): { test: (name: string) => boolean; rule: string; example: string } {
  return version.relaxedEnvNames
    ? {
        test: (n) => RELAXED_ENV_NAME.test(n),
        rule:
          'printable ASCII characters other than "=", on ' + `Kubernetes ${version.name} (platform.kubernetesVersion)`,
        example: 'DATABASE_URL',
      }
    : {
        test: (n) => ENV_NAME.test(n),
        rule:
          'letters, digits, "_", "-", ".", not starting with a digit, on ' +
          `Kubernetes ${version.name} (platform.kubernetesVersion; from 1.32 any printable ASCII but "=")`,
        example: 'DATABASE_URL',
      };
}
const CONFIG_KEY = /^[-._a-zA-Z0-9]+$/;

export function checkEnv(
  input: string,
  env: Record<string, EnvValue> | undefined,
  version: KubernetesVersion,
): ExtraContainerDecisions['env'] {
  const names = envNameRule(version);
  if (env === undefined) return [];
  if (typeof env !== 'object' || env === null || Array.isArray(env) || env instanceof EnvValue) {
    throw new RollwiseInputError(
      input,
      env instanceof EnvValue ? 'an EnvValue (not an object of names)' : Array.isArray(env) ? 'a list' : env,
      'must be an object from variable names to EnvValues.',
      `write it as ${input.split('.').pop()}: { DATABASE_HOST: EnvValue.fromValue("127.0.0.1") }.`,
    );
  }
  return Object.keys(env).map((name) => {
    if (!names.test(name)) {
      throw new RollwiseInputError(
        `${input}.${name}`,
        name,
        `is not a valid environment variable name (${names.rule}); the API server refuses it.`,
        `use a name like "${names.example}".`,
      );
    }
    const v = env[name];
    if (!(v instanceof EnvValue)) {
      throw new RollwiseInputError(
        `${input}.${name}`,
        v,
        'must be an EnvValue, so a secret can never be written as a plain value by accident.',
        'use EnvValue.fromValue("..."), EnvValue.fromSecret("<secret>", "<key>"), EnvValue.fromConfigMap(...) or ' +
          'EnvValue.fromField(...).',
      );
    }
    const ref = v.spec.valueFrom?.secretKeyRef ?? v.spec.valueFrom?.configMapKeyRef;
    if (ref) {
      const what = v.spec.valueFrom?.secretKeyRef ? 'Secret' : 'ConfigMap';
      checkSubdomain(
        `${input}.${name}`,
        ref.name,
        `it names the ${what} holding the value.`,
        `give the ${what}'s name, e.g. "checkout-db".`,
      );
      if (typeof ref.key !== 'string' || !CONFIG_KEY.test(ref.key)) {
        throw new RollwiseInputError(
          `${input}.${name}`,
          ref.key,
          `is not a ${what} key (letters, digits, "-", "_", "."); the kubelet could never find it and the pod would ` +
            'not start.',
          'give the key as it appears in the object\'s data, e.g. "password".',
        );
      }
      // apimachinery IsConfigMapKey also refuses ".", ".." and a leading ".." (hasChDirPrefix; see schemas/builtin.ts)
      if (ref.key === '.' || ref.key.startsWith('..')) {
        throw new RollwiseInputError(
          `${input}.${name}`,
          ref.key,
          `is not a ${what} key: a key may not be "." or "..", or start with ".." (apimachinery IsConfigMapKey), and ` +
            'the API server refuses the pod.',
          'give the key as it appears in the object\'s data, e.g. "password".',
        );
      }
    }
    if (v.spec.value !== undefined && typeof v.spec.value !== 'string') {
      throw new RollwiseInputError(
        `${input}.${name}`,
        v.spec.value,
        'an environment value must be a string.',
        `quote it: EnvValue.fromValue("${String(v.spec.value)}").`,
      );
    }
    if (v.spec.value === undefined && v.spec.valueFrom === undefined) {
      throw new RollwiseInputError(
        `${input}.${name}`,
        'EnvValue.fromValue(undefined)',
        'gives the variable no value: the manifest would carry the name alone and the container would see an empty ' +
          'string, which hides the value that was meant (often a variable of the build that was not set).',
        'pass the value as a string, EnvValue.fromValue(""), if empty is meant; otherwise give the value or ' +
          `leave ${name} out.`,
      );
    }
    return { name, ...v.spec };
  });
}

export function checkEnvFrom(
  input: string,
  list: EnvFrom[] | undefined,
  version: KubernetesVersion,
): Record<string, unknown>[] {
  const names = envNameRule(version);
  return checkList(input, list, 'EnvFrom sources', 'EnvFrom.configMap("checkout-config")').map((e, i) => {
    if (!(e instanceof EnvFrom))
      throw new RollwiseInputError(
        `${input}[${i}]`,
        e,
        'must be an EnvFrom.',
        'use EnvFrom.secret("<name>") or EnvFrom.configMap("<name>").',
      );
    checkSubdomain(
      `${input}[${i}]`,
      e.source,
      'it names the Secret or ConfigMap whose keys become variables.',
      'give its name, e.g. "checkout-config".',
    );
    if (e.prefix !== undefined && !names.test(e.prefix)) {
      throw new RollwiseInputError(
        `${input}[${i}].prefix`,
        e.prefix,
        `the prefix starts every variable name, so it must itself be a valid variable name (${names.rule}).`,
        'use a prefix like "DB_".',
      );
    }
    return { ...(e.prefix ? { prefix: e.prefix } : {}), [e.kind]: { name: e.source } };
  });
}
