import { pointerKey } from '../structural';
import { Add, Json, rec, show } from './common';
import { KindRules, NameRule } from './kinds';
import { DNS1035_LABEL, isDns1123Label, isDns1123Subdomain, isLabelValue, isQualifiedName } from './names';

/**
 * Object metadata: each kind's name rule, the namespace, labels and annotations (apimachinery pkg/api/validation
 * objectmeta.go, pkg/apis/meta/v1/validation), the size limits, and the Pod Security labels.
 * Split from src/schemas/builtin.ts (issue 26); each check cites its source where it is.
 */

/** apimachinery pkg/api/validation/objectmeta.go: TotalAnnotationSizeLimitB, keys plus values in bytes. */
export const TOTAL_ANNOTATION_BYTES = 256 * 1024;

/**
 * etcd's request limit (--max-request-bytes, DefaultMaxRequestBytes = 1.5 MiB in etcd's
 * server/embed/config.go): a larger object cannot be stored, whatever the API server accepted
 * (its own body limit is 3 MiB, k8s.io/apiserver pkg/server/config.go). The JSON text is
 * measured; the API server stores built-in kinds as protobuf, which is smaller, and custom
 * resources as JSON.
 */
export const ETCD_MAX_REQUEST_BYTES = 1.5 * 1024 * 1024;

/**
 * The problem with a name under a rule, or undefined (apimachinery pkg/util/validation/validation.go,
 * pkg/api/validation/path/name.go).
 */
function nameProblem(name: string, rule: NameRule): string | undefined {
  switch (rule) {
    case 'dns1123-subdomain':
      return isDns1123Subdomain(name)
        ? undefined
        : 'a DNS-1123 subdomain: lower-case letters, digits, "-" and ".", ' + 'at most 253';
    case 'dns1123-label':
      return isDns1123Label(name) ? undefined : 'a DNS-1123 label: lower-case letters, digits and "-", at most 63';
    case 'dns1035-label':
      return name.length <= 63 && DNS1035_LABEL.test(name)
        ? undefined
        : 'a DNS-1035 label: lower-case letters, ' + 'digits and "-", starting with a letter, at most 63';
    case 'path-segment':
      return name === '.' || name === '..' || name.includes('/') || name.includes('%')
        ? 'a path segment: not "." or "..", ' + 'without "/" or "%"'
        : undefined;
  }
}

/**
 * An upper bound of the length of JSON.stringify(x), computed without building it (each string
 * counted at 6 characters per code unit, the most an escape takes, plus quotes and separators; a
 * number at 24), stopping once it passes `stop`.
 */
export function jsonSizeBound(x: unknown, stop: number): number {
  let total = 0;
  const walk = (v: unknown): void => {
    if (total > stop) return;
    if (typeof v === 'string') total += v.length * 6 + 3;
    else if (typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined) total += 25;
    else if (Array.isArray(v)) {
      total += 2;
      // one comma (or the last element's slack) per element: [{},[]] is 7 characters, not 2 + 2 + 2
      for (const e of v) {
        total += 1;
        walk(e);
      }
    } else if (typeof v === 'object') {
      total += 2;
      for (const k in v as Json) {
        total += k.length * 6 + 4;
        walk((v as Json)[k]);
      }
    } else total += 25;
  };
  walk(x);
  return total;
}

/** metadata.name by the kind's rule (and a CronJob's 52), metadata.namespace on a namespaced kind. */
export function objectName(meta: Json, rules: KindRules, namespaced: boolean | undefined, add: Add): void {
  const name = meta.name;
  if (typeof name === 'string' && name !== '') {
    const problem = nameProblem(name, rules.name);
    if (problem)
      add('/metadata/name', `${show(name)} is not a valid name for this kind (${problem}; ${rules.source})`, name);
    else if (rules.maxNameLength !== undefined && name.length > rules.maxNameLength)
      add(
        '/metadata/name',
        `${show(name)} is ${name.length} characters, more than the ${rules.maxNameLength} this kind allows ` +
          `(${rules.source})`,
        name,
      );
  }
  // apimachinery v0.33.0 pkg/api/validation/objectmeta.go ValidateObjectMetaAccessor: a namespaced
  // object's namespace is ValidateNamespaceName (a DNS-1123 label)
  if (
    namespaced === true &&
    typeof meta.namespace === 'string' &&
    meta.namespace !== '' &&
    !isDns1123Label(meta.namespace)
  )
    add('/metadata/namespace', `${show(meta.namespace)} is not a DNS-1123 label`, meta.namespace);
}

/** apimachinery pkg/apis/meta/v1/validation ValidateLabels and pkg/api/validation/objectmeta.go ValidateAnnotations. */
export function labelsAndAnnotations(meta: Json, path: string, add: Add): void {
  for (const [k, v] of Object.entries(rec(meta.labels) ?? {})) {
    if (!isQualifiedName(k))
      add(
        `${path}/labels/${pointerKey(k)}`,
        `the label key ${show(k)} is not a qualified name (an optional DNS-subdomain prefix and "/", then 1-63 ` +
          'letters, digits, "-", "_" or ".", starting and ending with a letter or digit)',
        k,
      );
    if (typeof v === 'string' && !isLabelValue(v))
      add(
        `${path}/labels/${pointerKey(k)}`,
        `the label value ${show(v)} is not valid (at most 63 letters, digits, "-", "_" or ".", starting and ending ` +
          'with a letter or digit)',
        v,
      );
  }
  // lower-cased keys are qualified names; keys and values at most 256 KiB in total
  let total = 0;
  for (const [k, v] of Object.entries(rec(meta.annotations) ?? {})) {
    if (!isQualifiedName(k.toLowerCase()))
      add(`${path}/annotations/${pointerKey(k)}`, `the annotation key ${show(k)} is not a qualified name`, k);
    total += Buffer.byteLength(k) + (typeof v === 'string' ? Buffer.byteLength(v) : 0);
  }
  if (total > TOTAL_ANNOTATION_BYTES)
    add(
      `${path}/annotations`,
      `the annotations are ${total} bytes, more than the API server's total of ${TOTAL_ANNOTATION_BYTES} (256 KiB)`,
    );
}

/**
 * Pod Security admission's namespace labels that would refuse the namespace (pod-security-admission
 * api/helpers.go PolicyToEvaluate, ParseLevel, ParseVersion; admission.go ValidateNamespace
 * "require valid labels on create"), read in the stored kubernetes/kubernetes staging copy; the
 * same at 1.28 and 1.33. Also used for the labels Argo CD puts on a namespace it creates.
 */
export function podSecurityLabelProblems(labels: Record<string, unknown>): { key: string; message: string }[] {
  const out: { key: string; message: string }[] = [];
  for (const mode of ['enforce', 'audit', 'warn']) {
    const level = labels[`pod-security.kubernetes.io/${mode}`];
    if (level !== undefined && !['privileged', 'baseline', 'restricted'].includes(String(level))) {
      const shown = show(level);
      out.push({
        key: `pod-security.kubernetes.io/${mode}`,
        message:
          `${shown} is not a Pod Security level (privileged, baseline or restricted): the PodSecurity admission ` +
          'plugin refuses the namespace (pod-security-admission ValidateNamespace)',
      });
    }
    const version = labels[`pod-security.kubernetes.io/${mode}-version`];
    if (version !== undefined && version !== 'latest' && !/^v1\.([0-9]|[1-9][0-9]*)$/.test(String(version))) {
      out.push({
        key: `pod-security.kubernetes.io/${mode}-version`,
        message:
          `${show(version)} is not "latest" or "v1.<minor>": the PodSecurity admission plugin refuses the namespace ` +
          '(pod-security-admission ValidateNamespace)',
      });
    }
  }
  return out;
}
