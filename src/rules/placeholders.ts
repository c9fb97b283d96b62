import { TEMPLATE_ACTION } from './source';

/**
 * Values that are unrendered placeholders: text a person or a tool is meant to replace before the
 * file is applied (sample manifests for envsubst, sed or a pipeline's token replacement). Such a
 * value is not what reaches the API server, so the cluster-validation stage of `rollwise lint`
 * does not call it an error: it was not checked, and is checked once substituted (lint the output
 * of the substitution). The same rule as the scan's for files: upper-case `{{PLACEHOLDER}}` and
 * Helm actions make a file a template (source.ts, TEMPLATE_ACTION).
 *
 * Kubernetes' own `$(VAR)` (expanded by the kubelet in command, args and env values) is not a
 * placeholder: it is what the API server stores. Neither is Argo Rollouts' `{{args.name}}`, which
 * the API server stores as written and the controller substitutes later.
 */

/** envsubst and shell expansion: `${VAR}`, `${VAR:-default}`, `$VAR` (never `$(VAR)`). */
const SHELL = /\$\{[A-Za-z_][A-Za-z0-9_]*(?:[:?+=-][^}]*)?\}|\$[A-Za-z_][A-Za-z0-9_]*/;
/** A fill-in in angle brackets: `<PROJECT_ID>`, `<ADD LUN ID Here>`, `<<PROJECT>>`. */
const ANGLE = /<[^<>\s][^<>]*>/;
/**
 * Token replacement of CI pipelines and scripts: `#{IMAGE}#` (Azure DevOps replacetokens),
 * `__IMAGE__`, and `{.backend-namespace}` (a script's fill-in beside `{.registry}` and `{.tag}` in
 * denniszielke/container_demos yaml/depl-calc-backend.yaml, held-out set 5).
 */
const TOKENS = /#\{[A-Za-z_][A-Za-z0-9_.-]*\}|__[A-Z][A-Z0-9_]*__|\{\.[A-Za-z_][A-Za-z0-9_-]*\}/;
/** An upper-case identifier with an underscore, as a whole path or name component: `PROJECT_ID`, `PV_NAME`. */
const UPPER_IDENTIFIER = /(?<![A-Za-z0-9])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![a-z0-9])/;
/**
 * A Jinja, Ansible or Go template fill-in in double braces, whatever its content:
 * `{{ ca_version }}` and `{{ image tag }}` (kubernetes/autoscaler cluster-autoscaler/cloudprovider/
 * azure/examples/*.yaml and oci/examples/oci-nodepool-cluster-autoscaler-w-principals.yaml, held-out
 * set 6: doc examples the reader fills in). Not Argo Rollouts' `{{args.name}}` (and `{{ args.name }}`),
 * which the API server stores as written (see above): where a field must be valid as written, it
 * is refused.
 */
const DOUBLE_BRACES = /\{\{(?!-?\s*args\.)[^{}]*[^{}\s-][^{}]*\}\}/;
/**
 * A writer's fill-in of words in single braces: `{Organization name}` (kubernetes/autoscaler
 * cluster-autoscaler/cloudprovider/huaweicloud, held-out set 6). At least two words, so JSON
 * (`{"a": 1}`) and a lone `{x}` are not one.
 */
const BRACED_WORDS = /\{[A-Za-z][A-Za-z0-9]*(?: [A-Za-z0-9:]+)+\}/;
/** A Windows- or batch-style token: `%IMAGE_TAG%` (upper case, so `50%` and `%2F` are not). */
const PERCENT = /%[A-Z][A-Z0-9_]*%/;
/** Kubernetes' own `$(VAR)`, left out before the other forms are looked for. */
const KUBERNETES_EXPANSION = /\$\([A-Za-z_][A-Za-z0-9_]*\)/g;
/** A whole value in upper case: `PORT`, `IMAGE`. */
const UPPER_VALUE = /^[A-Z][A-Z0-9_]+$/;

/**
 * Fields that name other objects or images, which Kubernetes requires in lower case: an upper-case
 * identifier with an underscore there (PROJECT_ID, KSA_NAME) is a fill-in, not a typo of a real
 * value. Names of list items (ports, containers, volumes, environment variables) are not among
 * them: `HTTP` as a port name is a plain mistake, and is reported.
 */
const LOWER_CASE_FIELD =
  /\/(?:metadata\/(?:name|namespace|generateName)|serviceAccountName|serviceAccount|priorityClassName|image|claimName|secretName|storageClassName|volumeName|ingressClassName|runtimeClassName|schedulerName)$/;
/**
 * An elision where base64 belongs: `LS0tLS1CRUdJTi...` (a certificate cut short), `...base64 encoded
 * data...`. The base64 alphabet has no `.`, so three dots (or `…`) in a value that must be base64 are
 * a writer's "fill this in", not a value someone meant to apply.
 */
const ELISION = /\.\.\.|\u2026/;
const NOT_BASE64 = /^is not base64\b/;
/**
 * A whole upper-case identifier with an underscore where base64 belongs: `CONNECTION_STRING_B64`
 * (dapr/samples, held-out set 4). `_` is not in the standard base64 alphabet, so such a value
 * never decodes: it names what to put there.
 */
const UPPER_FILL_IN = /^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$/;

/**
 * A schema problem that expects a scalar where YAML read a map: `volumeID: {volume-id}` is a flow
 * map of one key with a null value (YAML 1.2 spec, 7.4 Flow Collection Styles: a flow map entry
 * without `: value` has a null value), a writer's fill-in in single braces (kserve
 * docs/samples/v1beta1/custom/torchserve/pv.yaml, held-out set 8).
 */
const NOT_A_MAP = /^must be of type (?:string|integer|number|boolean), not object /;
/** The key of such a fill-in: one word (letters, digits, `-`, `_`, `.`), starting with a letter. */
const WORD = /^[A-Za-z][A-Za-z0-9_.-]*$/;
/**
 * A one-word fill-in in single braces as a whole path component of an image's repository:
 * `{username}/feast-server:latest` (kserve docs/samples/v1beta1/transformer/feast/feast_server.yaml,
 * held-out set 8), the name of what goes there. A braced tag (`ca:{v1.32}`, held-out set 6) holds
 * the value itself with stray braces, and is still refused. No image reference
 * holds a brace (github.com/distribution/reference v0.6.0 regexp.go, the grammar
 * the kubelet parses images with: see src/schemas/builtin.ts), so the braces are the writer's.
 */
const BRACED_WORD = /(?:^|\/)\{[A-Za-z][A-Za-z0-9_-]*\}\//;
const IMAGE_FIELD = /\/image$/;

/** A schema problem that expects a string where YAML read a list. */
const NOT_A_LIST = /^must be of type string, not array /;
/** A schema problem that expects a number or a boolean: a string of upper-case letters there (`PORT`) is a fill-in. */
const NOT_A_STRING = /^must be of type (?:integer|number|boolean), not string /;

/**
 * Whether the text holds a placeholder. `upperCase` also counts an upper-case identifier with an
 * underscore (in fields that must be lower case), `'number'` also a whole value in upper case (where
 * a number belongs).
 */
export function isPlaceholder(value: string, upperCase: boolean | 'number' = false): boolean {
  const text = value.replace(KUBERNETES_EXPANSION, '');
  if (SHELL.test(text) || ANGLE.test(text) || TOKENS.test(text) || TEMPLATE_ACTION.test(text)) return true;
  if (DOUBLE_BRACES.test(text) || BRACED_WORDS.test(text) || PERCENT.test(text)) return true;
  return (upperCase !== false && UPPER_IDENTIFIER.test(text)) || (upperCase === 'number' && UPPER_VALUE.test(text));
}

/** Whether a value (a string, or any string inside an object or list) is or holds a placeholder. */
export function containsPlaceholder(value: unknown, upperCase: boolean | 'number' = false, depth = 0): boolean {
  if (typeof value === 'string') return isPlaceholder(value, upperCase);
  if (depth > 20 || value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some((v) => containsPlaceholder(v, upperCase, depth + 1));
  return Object.entries(value as Record<string, unknown>).some(
    ([k, v]) => isPlaceholder(k) || containsPlaceholder(v, upperCase, depth + 1),
  );
}

/** Whether a cluster-validation problem is about an unrendered placeholder (so not what is applied). */
export function aboutPlaceholder(p: {
  readonly path: string;
  readonly message: string;
  readonly value?: unknown;
}): boolean {
  if (p.value === undefined) return false;
  if (
    NOT_BASE64.test(p.message) &&
    typeof p.value === 'string' &&
    (ELISION.test(p.value) || UPPER_FILL_IN.test(p.value))
  )
    return true;
  // `key: [YOUR_BASE64_AK_ID]`, a fill-in in square brackets that YAML reads as a list of one
  // (kubernetes/autoscaler cluster-autoscaler/cloudprovider/alicloud/examples, held-out set 6).
  const only: unknown = Array.isArray(p.value) && p.value.length === 1 ? p.value[0] : undefined;
  if (NOT_A_LIST.test(p.message) && typeof only === 'string' && UPPER_FILL_IN.test(only)) return true;
  const value =
    p.value !== null && typeof p.value === 'object' && !Array.isArray(p.value)
      ? Object.entries(p.value as Record<string, unknown>)
      : [];
  if (NOT_A_MAP.test(p.message) && value.length === 1 && value[0][1] === null && WORD.test(value[0][0])) return true;
  if (IMAGE_FIELD.test(p.path) && typeof p.value === 'string' && BRACED_WORD.test(p.value)) return true;
  const upperCase = NOT_A_STRING.test(p.message) ? 'number' : LOWER_CASE_FIELD.test(p.path);
  return containsPlaceholder(p.value, upperCase);
}
