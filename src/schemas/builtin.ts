import { KubernetesVersion } from '../decisions/kubernetes-version';

/**
 * The API server's built-in validation (and the kubelet's parsing) of the fields rollwise writes,
 * which no OpenAPI schema expresses. Each rule cites its source; "apimachinery" is
 * k8s.io/apimachinery at v0.33.0 (Kubernetes 1.33.0; the same functions in v0.28.0), "core" is
 * kubernetes/kubernetes pkg/apis/core/validation/validation.go at v1.28.0 and v1.33.0.
 */

type Json = Record<string, unknown>;

export interface BuiltinProblem {
  readonly path: string;
  readonly message: string;
}

// apimachinery pkg/util/validation/validation.go
const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
/** IsEnvVarName (envVarNameFmt); used by core's validateEnv unless RelaxedEnvironmentVariableValidation is on (beta, on by default from 1.32). */
const ENV_VAR_NAME = /^[-._a-zA-Z][-._a-zA-Z0-9]*$/;
/** IsRelaxedEnvVarName: printable ASCII except "=". */
const RELAXED_ENV_VAR_NAME = /^[ -<>-~]+$/;
const CONFIG_MAP_KEY = /^[-._a-zA-Z0-9]+$/;

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
  return v.length > 0 && v.length <= 15 && /^[-a-z0-9]+$/.test(v) && /[a-z]/.test(v) && !v.includes('--') && !v.startsWith('-') && !v.endsWith('-');
}

/**
 * The container image as the kubelet parses it: pkg/kubelet/images/image_manager.go
 * (applyDefaultImageTag, v1.33.0) calls distribution/reference's ParseNormalizedNamed, and a
 * failure is the pod's InvalidImageName. The grammar is github.com/distribution/reference v0.6.0
 * (regexp.go, normalize.go, reference.go): a 64-hex string alone is refused, the repository must
 * be lower case, the name at most 255 characters, the tag `[\w][\w.-]{0,127}`, the digest
 * `algorithm:hex` with the algorithm's exact length (go-digest: sha256 64, sha384 96, sha512 128
 * lower-case hex digits). The API server refuses leading or trailing whitespace (core,
 * validateContainers) and an empty image.
 * Returns the problem, or undefined when the kubelet accepts it.
 */
export function imageReferenceProblem(image: string): string | undefined {
  if (image === '') return 'is empty';
  if (image.trim() !== image) return 'has leading or trailing whitespace (the API server refuses it)';
  if (/^[a-f0-9]{64}$/.test(image)) return 'is a 64-character hexadecimal string, which the kubelet refuses as a repository name';
  const slash = image.indexOf('/');
  let domain = 'docker.io';
  let remainder = image;
  if (slash >= 0) {
    const maybe = image.slice(0, slash);
    if (maybe === 'localhost' || /[.:]/.test(maybe) || maybe.toLowerCase() !== maybe) {
      domain = maybe;
      remainder = image.slice(slash + 1);
    }
  }
  const tagSep = remainder.indexOf(':');
  const remote = tagSep >= 0 ? remainder.slice(0, tagSep) : remainder;
  if (remote.toLowerCase() !== remote) return `has an upper-case repository name (${remote}); the kubelet requires lower case`;
  const domainComponent = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
  const host = `(?:${domainComponent}(?:\\.${domainComponent})*|\\[(?:[a-fA-F0-9:]+)\\])(?::[0-9]+)?`;
  const path = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*)*';
  const ref = new RegExp(`^((?:${host}/)?${path})(?::([\\w][\\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}))?$`);
  const full = `${domain}/${remainder}`;
  const m = ref.exec(full);
  if (!m) return 'is not a valid image reference ([registry/]repository[:tag][@digest]: lower-case path components, one tag of at most 128 word characters, one digest)';
  const name = m[1];
  const repoPath = name.slice(domain.length + 1);
  if (repoPath.length > 255) return `has a repository name of ${repoPath.length} characters, more than 255`;
  const digest = m[3];
  if (digest) {
    const [alg, hex] = digest.split(':');
    const len: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };
    if (len[alg] === undefined) return `has a digest with the unsupported algorithm ${alg} (sha256, sha384 or sha512)`;
    if (hex.length !== len[alg] || !/^[a-f0-9]+$/.test(hex)) return `has a ${alg} digest that is not ${len[alg]} lower-case hexadecimal digits`;
  }
  return undefined;
}

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

/** Kinds whose object name must be a DNS-1035 label (core: ValidateServiceName) rather than a DNS-1123 subdomain. */
const LABEL_NAMED_KINDS = new Set(['Service']);

/** The pod spec of a workload kind (and where it is), or undefined. */
function podSpecs(o: Json): { spec: Json; path: string }[] {
  const kind = o.kind;
  const spec = rec(o.spec);
  if (!spec) return [];
  if (kind === 'Pod') return [{ spec, path: '/spec' }];
  if (kind === 'CronJob') {
    const ps = rec(rec(rec(rec(spec.jobTemplate)?.spec)?.template)?.spec);
    return ps ? [{ spec: ps, path: '/spec/jobTemplate/spec/template/spec' }] : [];
  }
  const ps = rec(rec(spec.template)?.spec);
  return ps ? [{ spec: ps, path: '/spec/template/spec' }] : [];
}

function rec(x: unknown): Json | undefined {
  return x && typeof x === 'object' && !Array.isArray(x) ? x as Json : undefined;
}

function arr(x: unknown): unknown[] {
  return Array.isArray(x) ? x : [];
}

const show = (v: unknown) => {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 70 ? `${s.slice(0, 67)}...` : s;
};

/** Quantity syntax (apimachinery pkg/api/resource/quantity.go, ParseQuantity). */
const QUANTITY = /^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+|[KMGTPE]i|[numkMGTPE])?$/;

/** The built-in checks on one object; `version` picks the rules that changed between 1.28 and 1.33. */
export function builtinProblems(o: Json, version: KubernetesVersion): BuiltinProblem[] {
  const out: BuiltinProblem[] = [];
  const add = (path: string, message: string) => out.push({ path, message });
  // Serializing every object to measure it costs more than all the other checks together, so it
  // is measured exactly only when a cheap upper bound of its JSON size could exceed the limit.
  const size = jsonSizeBound(o, ETCD_MAX_REQUEST_BYTES) > ETCD_MAX_REQUEST_BYTES ? JSON.stringify(o).length : 0;
  if (size > ETCD_MAX_REQUEST_BYTES) add('/', `the object is ${size} bytes as JSON, above etcd's 1.5 MiB request limit (--max-request-bytes); it cannot be stored`);
  objectMeta(rec(o.metadata), '/metadata', add, typeof o.kind === 'string' && LABEL_NAMED_KINDS.has(o.kind) ? 'label' : 'subdomain');
  for (const { spec, path } of podSpecs(o)) {
    const tmpl = rec(rec(o.spec)?.template);
    if (tmpl && o.kind !== 'Pod') objectMeta(rec(tmpl.metadata), path.replace(/\/spec$/, '/metadata'), add, undefined);
    podSpec(spec, path, add, version);
    podEnvReferences(spec, path, add, version);
    podAffinityTerms(rec(spec.affinity), `${path}/affinity`, add);
    containerProbesAndResources(spec, path, add);
  }
  kindRules(o, add);
  if (o.kind === 'Service') {
    const names = new Set<string>();
    arr(rec(o.spec)?.ports).forEach((p, i) => {
      const name = rec(p)?.name;
      if (typeof name === 'string' && name !== '') {
        if (!isDns1123Label(name)) add(`/spec/ports/${i}/name`, `${show(name)} is not a DNS label (core: validateServicePort)`);
        if (names.has(name)) add(`/spec/ports/${i}/name`, `${show(name)} is used by two ports`);
        names.add(name);
      }
      const target = rec(p)?.targetPort;
      if (typeof target === 'string' && !isPortName(target)) add(`/spec/ports/${i}/targetPort`, `${show(target)} is not a port name (IANA_SVC_NAME: 1-15 lower-case letters, digits and "-", with a letter)`);
    });
  }
  return out;
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
      for (const e of v) walk(e);
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

function objectMeta(meta: Json | undefined, path: string, add: (p: string, m: string) => void, nameKind: 'label' | 'subdomain' | undefined): void {
  if (!meta) return;
  const name = meta.name;
  if (nameKind && typeof name === 'string') {
    // core ValidateServiceName is DNS-1035 (apimachinery IsDNS1035Label); most kinds use NameIsDNSSubdomain
    const ok = nameKind === 'label' ? name.length <= 63 && DNS1035_LABEL.test(name) : isDns1123Subdomain(name);
    if (!ok) add(`${path}/name`, `${show(name)} is not a valid object name (${nameKind === 'label' ? 'a DNS-1035 label: lower-case letters, digits and "-", starting with a letter, at most 63' : 'a DNS-1123 subdomain'})`);
  }
  if (typeof meta.namespace === 'string' && !isDns1123Label(meta.namespace)) add(`${path}/namespace`, `${show(meta.namespace)} is not a DNS-1123 label`);
  // apimachinery pkg/apis/meta/v1/validation/validation.go ValidateLabels: qualified keys, label values
  for (const [k, v] of Object.entries(rec(meta.labels) ?? {})) {
    if (!isQualifiedName(k)) add(`${path}/labels/${k}`, `the label key ${show(k)} is not a qualified name (an optional DNS-subdomain prefix and "/", then 1-63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit)`);
    if (typeof v === 'string' && !isLabelValue(v)) add(`${path}/labels/${k}`, `the label value ${show(v)} is not valid (at most 63 letters, digits, "-", "_" or ".", starting and ending with a letter or digit)`);
  }
  // apimachinery pkg/api/validation/objectmeta.go ValidateAnnotations: lower-cased keys are qualified names; total size
  let total = 0;
  for (const [k, v] of Object.entries(rec(meta.annotations) ?? {})) {
    if (!isQualifiedName(k.toLowerCase())) add(`${path}/annotations/${k}`, `the annotation key ${show(k)} is not a qualified name`);
    total += Buffer.byteLength(k) + (typeof v === 'string' ? Buffer.byteLength(v) : 0);
  }
  if (total > TOTAL_ANNOTATION_BYTES) add(`${path}/annotations`, `the annotations are ${total} bytes, more than the API server's total of ${TOTAL_ANNOTATION_BYTES} (256 KiB)`);
}

function podSpec(spec: Json, path: string, add: (p: string, m: string) => void, version: KubernetesVersion): void {
  const volumes = new Set<string>();
  arr(spec.volumes).forEach((v, i) => {
    const name = rec(v)?.name;
    if (typeof name !== 'string') return;
    if (!isDns1123Label(name)) add(`${path}/volumes/${i}/name`, `${show(name)} is not a DNS-1123 label (core: ValidateVolumes)`);
    if (volumes.has(name)) add(`${path}/volumes/${i}/name`, `the volume name ${show(name)} is used twice`);
    volumes.add(name);
  });
  const containerNames = new Set<string>();
  for (const list of ['initContainers', 'containers'] as const) {
    arr(spec[list]).forEach((c0, i) => {
      const c = rec(c0);
      if (!c) return;
      const cp = `${path}/${list}/${i}`;
      const name = c.name;
      if (typeof name === 'string') {
        if (!isDns1123Label(name)) add(`${cp}/name`, `${show(name)} is not a DNS-1123 label`);
        if (containerNames.has(name)) add(`${cp}/name`, `the container name ${show(name)} is used twice in the pod`);
        containerNames.add(name);
      }
      if (typeof c.image === 'string') {
        const problem = imageReferenceProblem(c.image);
        if (problem) add(`${cp}/image`, `the image ${show(c.image)} ${problem}: the pod would fail with InvalidImageName`);
      }
      container(c, cp, volumes, add, version);
    });
  }
  arr(spec.tolerations).forEach((t0, i) => tolerations(rec(t0), `${path}/tolerations/${i}`, add));
  affinity(rec(spec.affinity), `${path}/affinity`, add);
  for (const [k, v] of Object.entries(rec(spec.nodeSelector) ?? {})) {
    if (!isQualifiedName(k)) add(`${path}/nodeSelector/${k}`, `the node selector key ${show(k)} is not a qualified name`);
    if (typeof v === 'string' && !isLabelValue(v)) add(`${path}/nodeSelector/${k}`, `the node selector value ${show(v)} is not a label value`);
  }
  if (typeof spec.serviceAccountName === 'string' && spec.serviceAccountName !== '' && !isDns1123Subdomain(spec.serviceAccountName)) add(`${path}/serviceAccountName`, `${show(spec.serviceAccountName)} is not a DNS-1123 subdomain`);
  if (typeof spec.priorityClassName === 'string' && spec.priorityClassName !== '' && !isDns1123Subdomain(spec.priorityClassName)) add(`${path}/priorityClassName`, `${show(spec.priorityClassName)} is not a DNS-1123 subdomain`);
}

function container(c: Json, cp: string, volumes: Set<string>, add: (p: string, m: string) => void, version: KubernetesVersion): void {
  // core validateEnv: names by IsEnvVarName, or IsRelaxedEnvVarName once RelaxedEnvironmentVariableValidation is on by default (1.32+)
  const relaxed = version.minor >= 32;
  arr(c.env).forEach((e0, j) => {
    const name = rec(e0)?.name;
    if (typeof name !== 'string') return;
    if (name === '' || !(relaxed ? RELAXED_ENV_VAR_NAME : ENV_VAR_NAME).test(name)) {
      add(`${cp}/env/${j}/name`, `${show(name)} is not a valid environment variable name (${relaxed ? 'printable ASCII other than "="' : 'letters, digits, "_", "-" or ".", not starting with a digit'}, Kubernetes ${version.name})`);
    }
    for (const ref of ['configMapKeyRef', 'secretKeyRef'] as const) {
      const key = rec(rec(rec(e0)?.valueFrom)?.[ref])?.key;
      if (typeof key === 'string' && !(key.length <= 253 && CONFIG_MAP_KEY.test(key))) add(`${cp}/env/${j}/valueFrom/${ref}/key`, `${show(key)} is not a valid ConfigMap or Secret key`);
    }
  });
  const ports = new Set<string>();
  arr(c.ports).forEach((p0, j) => {
    const name = rec(p0)?.name;
    if (typeof name === 'string' && name !== '') {
      if (!isPortName(name)) add(`${cp}/ports/${j}/name`, `${show(name)} is not a port name (IANA_SVC_NAME: 1-15 lower-case letters, digits and "-", with a letter)`);
      if (ports.has(name)) add(`${cp}/ports/${j}/name`, `the port name ${show(name)} is used twice in the container`);
      ports.add(name);
    }
  });
  // core ValidateVolumeMounts: the volume exists, mountPath is set and unique within the container
  const paths = new Set<string>();
  arr(c.volumeMounts).forEach((m0, j) => {
    const m = rec(m0);
    if (!m) return;
    if (typeof m.name === 'string' && !volumes.has(m.name)) add(`${cp}/volumeMounts/${j}/name`, `the volume ${show(m.name)} is not a volume of the pod`);
    const p = m.mountPath;
    if (typeof p !== 'string') return;
    if (p === '') add(`${cp}/volumeMounts/${j}/mountPath`, 'is required');
    const norm = p.replace(/\/+$/, '') || '/';
    if (paths.has(norm)) add(`${cp}/volumeMounts/${j}/mountPath`, `${show(p)} is mounted twice in the container (mountPath must be unique)`);
    paths.add(norm);
    // Not an API-server rule: a volume mounted at "/" would hide the image's whole file system, and
    // container runtimes refuse a mount over the container's root.
    if (norm === '/') add(`${cp}/volumeMounts/${j}/mountPath`, '"/" would mount the volume over the container\'s root file system; the container runtime refuses it');
    if (typeof m.subPath === 'string' && (m.subPath.startsWith('/') || m.subPath.split('/').includes('..'))) add(`${cp}/volumeMounts/${j}/subPath`, `${show(m.subPath)} must be a relative path without ".." (core: validateLocalDescendingPath)`);
  });
  const res = rec(c.resources);
  for (const kind of ['requests', 'limits'] as const) {
    for (const [k, v] of Object.entries(rec(res?.[kind]) ?? {})) {
      if (typeof v === 'string' && !QUANTITY.test(v)) add(`${cp}/resources/${kind}/${k}`, `${show(v)} is not a Kubernetes quantity`);
    }
  }
}

const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** core validateTolerations (unchanged from v1.28.0 to v1.33.0). */
function tolerations(t: Json | undefined, p: string, add: (p: string, m: string) => void): void {
  if (!t) return;
  const key = typeof t.key === 'string' ? t.key : '';
  const op = typeof t.operator === 'string' ? t.operator : '';
  if (key !== '' && !isQualifiedName(key)) add(`${p}/key`, `${show(key)} is not a qualified name (a label key)`);
  if (key === '' && op !== 'Exists') add(`${p}/operator`, 'operator must be Exists when key is empty (which means "match all values and all keys")');
  if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null && t.effect !== 'NoExecute') add(`${p}/effect`, 'effect must be NoExecute when tolerationSeconds is set');
  if (op === 'Equal' || op === '') {
    if (typeof t.value === 'string' && !isLabelValue(t.value)) add(`${p}/value`, `${show(t.value)} is not a label value`);
  } else if (op === 'Exists') {
    if (typeof t.value === 'string' && t.value !== '') add(`${p}/value`, 'value must be empty when operator is Exists');
  } else add(`${p}/operator`, `${show(op)} is not supported (Equal or Exists)`);
  if (typeof t.effect === 'string' && t.effect !== '' && !TAINT_EFFECTS.includes(t.effect)) add(`${p}/effect`, `${show(t.effect)} is not supported (${TAINT_EFFECTS.join(', ')})`);
}

/** core ValidateNodeSelectorRequirement and apimachinery ValidateLabelSelectorRequirement (metav1 validation). */
function affinity(a: Json | undefined, p: string, add: (p: string, m: string) => void): void {
  if (!a) return;
  const node = rec(a.nodeAffinity);
  const nodeTerms = [
    ...arr(rec(node?.requiredDuringSchedulingIgnoredDuringExecution)?.nodeSelectorTerms).map((t, i) => ({ t: rec(t), at: `${p}/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/${i}` })),
    ...arr(node?.preferredDuringSchedulingIgnoredDuringExecution).map((w, i) => ({ t: rec(rec(w)?.preference), at: `${p}/nodeAffinity/preferredDuringSchedulingIgnoredDuringExecution/${i}/preference` })),
  ];
  for (const { t, at } of nodeTerms) {
    for (const field of ['matchExpressions', 'matchFields'] as const) {
      arr(t?.[field]).forEach((r0, i) => {
        const r = rec(r0) ?? {};
        const rp = `${at}/${field}/${i}`;
        const values = arr(r.values);
        if (typeof r.key === 'string' && field === 'matchExpressions' && !isQualifiedName(r.key)) add(`${rp}/key`, `${show(r.key)} is not a qualified name`);
        switch (r.operator) {
          case 'In': case 'NotIn':
            if (values.length === 0) add(`${rp}/values`, `must be specified when operator is ${r.operator}`);
            break;
          case 'Exists': case 'DoesNotExist':
            if (values.length > 0) add(`${rp}/values`, `may not be specified when operator is ${r.operator}`);
            break;
          case 'Gt': case 'Lt':
            if (values.length !== 1 || !/^-?[0-9]+$/.test(String(values[0]))) add(`${rp}/values`, `must be one integer when operator is ${r.operator}`);
            break;
          default:
            add(`${rp}/operator`, `${show(r.operator)} is not a valid node selector operator (In, NotIn, Exists, DoesNotExist, Gt, Lt)`);
        }
      });
    }
  }
  for (const kind of ['podAffinity', 'podAntiAffinity'] as const) {
    const pa = rec(a[kind]);
    const terms = [
      ...arr(pa?.requiredDuringSchedulingIgnoredDuringExecution).map((t, i) => ({ t: rec(t), at: `${p}/${kind}/requiredDuringSchedulingIgnoredDuringExecution/${i}` })),
      ...arr(pa?.preferredDuringSchedulingIgnoredDuringExecution).map((w, i) => ({ t: rec(rec(w)?.podAffinityTerm), at: `${p}/${kind}/preferredDuringSchedulingIgnoredDuringExecution/${i}/podAffinityTerm` })),
    ];
    for (const { t, at } of terms) {
      if (!t) continue;
      if (typeof t.topologyKey !== 'string' || !isQualifiedName(t.topologyKey)) add(`${at}/topologyKey`, `${show(t.topologyKey)} must be a qualified name (a node label key)`);
      arr(rec(t.labelSelector)?.matchExpressions).forEach((r0, i) => {
        const r = rec(r0) ?? {};
        const rp = `${at}/labelSelector/matchExpressions/${i}`;
        const values = arr(r.values);
        if (r.operator === 'In' || r.operator === 'NotIn') {
          if (values.length === 0) add(`${rp}/values`, `must be specified when operator is ${r.operator}`);
        } else if (r.operator === 'Exists' || r.operator === 'DoesNotExist') {
          if (values.length > 0) add(`${rp}/values`, `may not be specified when operator is ${r.operator}`);
        } else add(`${rp}/operator`, `${show(r.operator)} is not a valid label selector operator (In, NotIn, Exists, DoesNotExist)`);
      });
    }
  }
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
 * The downward-API field paths an env var may read (core validation.go
 * validEnvDownwardAPIFieldPathExpressions, read in the stored kubernetes/kubernetes copy, a
 * 1.33-era file with AllowRelaxedEnvironmentVariableValidation): status.hostIPs is in the list from
 * 1.29, when PodHostIPs went beta (at 1.28 it is alpha, off by default, and the API server
 * refuses it: PodValidationOptions.AllowHostIPsField follows the gate).
 */
function envFieldPaths(version: KubernetesVersion): string[] {
  return ['metadata.name', 'metadata.namespace', 'metadata.uid', 'spec.nodeName', 'spec.serviceAccountName', 'status.hostIP', 'status.podIP', 'status.podIPs', ...(version.minor >= 29 ? ['status.hostIPs'] : [])];
}

/**
 * core validateObjectFieldSelector: a subscripted path (fieldpath.SplitMaybeSubscriptedPath,
 * `path['key']`) is allowed for metadata.labels (the key a qualified name) and
 * metadata.annotations (the lower-cased key a qualified name); any other path must be one of the
 * expressions. Returns the problem, or undefined.
 */
export function envFieldPathProblem(fieldPath: string, version: KubernetesVersion): string | undefined {
  if (fieldPath === '') return 'is required';
  if (fieldPath.endsWith("']")) {
    const parts = fieldPath.slice(0, -2).split("['");
    if (parts.length >= 2 && parts[0] !== '') {
      const [base, ...rest] = parts;
      const key = rest.join("['");
      if (base === 'metadata.labels') return isQualifiedName(key) ? undefined : `the label key ${show(key)} is not a qualified name`;
      if (base === 'metadata.annotations') return isQualifiedName(key.toLowerCase()) ? undefined : `the annotation key ${show(key)} is not a qualified name`;
      return `${show(base)} does not support a subscript (only metadata.labels['<key>'] and metadata.annotations['<key>'] do)`;
    }
  }
  const allowed = envFieldPaths(version);
  return allowed.includes(fieldPath) ? undefined : `${show(fieldPath)} is not supported (Kubernetes ${version.name}: ${allowed.join(', ')}, metadata.labels['<key>'] or metadata.annotations['<key>'])`;
}

/**
 * Env vars and envFrom of every container, as core ValidateEnv / ValidateEnvFrom check them
 * beyond the name pattern builtinProblems already applies: hasChDirPrefix on names and
 * envFrom prefixes (strict IsEnvVarName, before RelaxedEnvironmentVariableValidation is on by
 * default in 1.32), on configMapKeyRef and secretKeyRef keys (IsConfigMapKey, always), and the
 * fieldRef paths (validateObjectFieldSelector).
 */
function podEnvReferences(spec: Json, path: string, add: (p: string, m: string) => void, version: KubernetesVersion): void {
  const strict = version.minor < 32;
  for (const list of ['initContainers', 'containers'] as const) {
    arr(spec[list]).forEach((c0, i) => {
      const c = rec(c0);
      if (!c) return;
      const cp = `${path}/${list}/${i}`;
      arr(c.env).forEach((e0, j) => {
        const e = rec(e0);
        if (!e) return;
        const name = e.name;
        const chdir = typeof name === 'string' && strict && ENV_VAR_NAME.test(name) ? chDirPrefixProblem(name) : undefined;
        if (chdir) add(`${cp}/env/${j}/name`, `${show(name)} is not a valid environment variable name: it ${chdir} (apimachinery IsEnvVarName, Kubernetes ${version.name})`);
        for (const ref of ['configMapKeyRef', 'secretKeyRef'] as const) {
          const key = rec(rec(e.valueFrom)?.[ref])?.key;
          const p = typeof key === 'string' && key.length <= 253 && CONFIG_MAP_KEY.test(key) ? chDirPrefixProblem(key) : undefined;
          if (p) add(`${cp}/env/${j}/valueFrom/${ref}/key`, `${show(key)} is not a valid ConfigMap or Secret key: it ${p} (apimachinery IsConfigMapKey)`);
        }
        const fieldRef = rec(rec(e.valueFrom)?.fieldRef);
        if (fieldRef && typeof fieldRef.fieldPath === 'string') {
          const p = envFieldPathProblem(fieldRef.fieldPath, version);
          if (p) add(`${cp}/env/${j}/valueFrom/fieldRef/fieldPath`, `the downward-API field path ${p} (core: validateObjectFieldSelector)`);
        }
      });
      arr(c.envFrom).forEach((f0, j) => {
        const prefix = rec(f0)?.prefix;
        if (typeof prefix !== 'string' || prefix === '') return;
        const bad = strict ? (!ENV_VAR_NAME.test(prefix) ? 'is not letters, digits, "_", "-" or ".", not starting with a digit' : chDirPrefixProblem(prefix)) : (RELAXED_ENV_VAR_NAME.test(prefix) ? undefined : 'is not printable ASCII other than "="');
        if (bad) add(`${cp}/envFrom/${j}/prefix`, `the envFrom prefix ${show(prefix)} ${bad.startsWith('must') ? `is not a valid environment variable name: it ${bad}` : bad} (core: ValidateEnvFrom, Kubernetes ${version.name})`);
      });
    });
  }
}

/**
 * Node and pod affinity as core validation.go checks it beyond the operators (read in the stored
 * kubernetes/kubernetes copy; unchanged from 1.28): ValidateNodeSelector wants at least one
 * nodeSelectorTerm when requiredDuringScheduling... is set; ValidateNodeFieldSelectorRequirement
 * allows matchFields only on "metadata.name" (nodeFieldSelectorValidators) with In or NotIn and
 * exactly one value, a node name; ValidatePreferredSchedulingTerms and
 * validateWeightedPodAffinityTerms want each weight in 1-100.
 */
function podAffinityTerms(a: Json | undefined, p: string, add: (p: string, m: string) => void): void {
  if (!a) return;
  const node = rec(a.nodeAffinity);
  const required = rec(node?.requiredDuringSchedulingIgnoredDuringExecution);
  if (required && arr(required.nodeSelectorTerms).length === 0) {
    add(`${p}/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms`, 'must have at least one node selector term (core: ValidateNodeSelector); an empty list matches no node, so no pod could be scheduled');
  }
  const terms = [
    ...arr(required?.nodeSelectorTerms).map((t, i) => ({ t: rec(t), at: `${p}/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms/${i}` })),
    ...arr(node?.preferredDuringSchedulingIgnoredDuringExecution).map((w, i) => ({ t: rec(rec(w)?.preference), at: `${p}/nodeAffinity/preferredDuringSchedulingIgnoredDuringExecution/${i}/preference` })),
  ];
  for (const { t, at } of terms) {
    arr(t?.matchFields).forEach((r0, i) => {
      const r = rec(r0) ?? {};
      const rp = `${at}/matchFields/${i}`;
      if (r.key !== 'metadata.name') add(`${rp}/key`, `${show(r.key)} is not a valid field selector key: node affinity matchFields supports only "metadata.name" (core: ValidateNodeFieldSelectorRequirement)`);
      if (['Exists', 'DoesNotExist', 'Gt', 'Lt'].includes(String(r.operator))) add(`${rp}/operator`, `${show(r.operator)} is not allowed for a node field selector (In or NotIn)`);
      const values = arr(r.values);
      if ((r.operator === 'In' || r.operator === 'NotIn') && values.length > 1) add(`${rp}/values`, `must be exactly one value when operator is ${r.operator} for a node field selector`);
      values.forEach((v, j) => {
        if (r.key === 'metadata.name' && typeof v === 'string' && !isDns1123Subdomain(v)) add(`${rp}/values/${j}`, `${show(v)} is not a node name (a DNS-1123 subdomain)`);
      });
    });
  }
  const weights: { w: unknown; at: string }[] = [
    ...arr(node?.preferredDuringSchedulingIgnoredDuringExecution).map((w, i) => ({ w: rec(w)?.weight, at: `${p}/nodeAffinity/preferredDuringSchedulingIgnoredDuringExecution/${i}/weight` })),
    ...(['podAffinity', 'podAntiAffinity'] as const).flatMap((k) => arr(rec(a[k])?.preferredDuringSchedulingIgnoredDuringExecution).map((w, i) => ({ w: rec(w)?.weight, at: `${p}/${k}/preferredDuringSchedulingIgnoredDuringExecution/${i}/weight` }))),
  ];
  for (const { w, at } of weights) {
    if (typeof w === 'number' && !(w >= 1 && w <= 100)) add(at, `${w} must be in the range 1-100 (core: ValidatePreferredSchedulingTerms, validateWeightedPodAffinityTerms)`);
  }
}

/** core types.go MaxSecretSize: the most a ConfigMap's or Secret's data may hold, 1 MiB. */
export const MAX_SECRET_SIZE = 1024 * 1024;

const QUANTITY_SUFFIX: Record<string, number> = { '': 1, n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };

/** A quantity's value as a number (apimachinery resource.ParseQuantity's grammar), or undefined when it is not one. */
export function quantityValue(q: unknown): number | undefined {
  if (typeof q === 'number') return Number.isFinite(q) ? q : undefined;
  if (typeof q !== 'string') return undefined;
  const m = /^([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))(?:[eE]([+-]?[0-9]+)|([KMGTPE]i|[numkMGTPE]))?$/.exec(q);
  if (!m) return undefined;
  return Number(m[1]) * (m[2] !== undefined ? 10 ** Number(m[2]) : QUANTITY_SUFFIX[m[3] ?? '']);
}

/**
 * Probes and resources of every container, as core validation.go checks them (read in the stored
 * kubernetes/kubernetes copy; the same rules at v1.28.0, where validateContainers tests
 * LivenessProbe/StartupProbe.SuccessThreshold inline): validateLivenessProbe and
 * validateStartupProbe want successThreshold 1 (regular containers and restartable init
 * containers); validateResourceRequirements wants each request at most its limit, and equal to it
 * for a resource that cannot be overcommitted (hugepages-*, extended resources: a limit is then
 * required), helper.IsOvercommitAllowed.
 */
function containerProbesAndResources(spec: Json, path: string, add: (p: string, m: string) => void): void {
  for (const list of ['initContainers', 'containers'] as const) {
    arr(spec[list]).forEach((c0, i) => {
      const c = rec(c0);
      if (!c) return;
      const cp = `${path}/${list}/${i}`;
      if (list === 'containers' || c.restartPolicy === 'Always') {
        for (const probe of ['livenessProbe', 'startupProbe'] as const) {
          const st = rec(c[probe])?.successThreshold;
          if (st !== undefined && st !== null && st !== 1) add(`${cp}/${probe}/successThreshold`, `${show(st)} must be 1 for a ${probe === 'livenessProbe' ? 'liveness' : 'startup'} probe (core: validate${probe === 'livenessProbe' ? 'Liveness' : 'Startup'}Probe)`);
        }
      }
      const res = rec(c.resources);
      const limits = rec(res?.limits) ?? {};
      for (const [name, request] of Object.entries(rec(res?.requests) ?? {})) {
        const native = !name.includes('/') || name.includes('kubernetes.io/');
        const overcommit = native && !name.startsWith('hugepages-');
        const r = quantityValue(request);
        if (!(name in limits)) {
          if (!overcommit) add(`${cp}/resources/limits`, `a limit must be set for ${show(name)}, a resource that cannot be overcommitted (core: validateResourceRequirements)`);
          continue;
        }
        const l = quantityValue(limits[name]);
        if (r === undefined || l === undefined) continue;
        if (!overcommit && r !== l) add(`${cp}/resources/requests/${name}`, `the request ${show(request)} must equal the limit ${show(limits[name])} for ${show(name)}, a resource that cannot be overcommitted (core: validateResourceRequirements)`);
        else if (r > l) add(`${cp}/resources/requests/${name}`, `the request ${show(request)} must be less than or equal to the ${name} limit ${show(limits[name])} (resources.limits.${name}; core: validateResourceRequirements)`);
      }
    });
  }
}

/** Standard base64 with padding, as Go's encoding/json decodes a []byte field (\r and \n are skipped). */
function isBase64(v: string): boolean {
  return /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(v.replace(/[\r\n]/g, ''));
}

function base64Bytes(v: string): number {
  const t = v.replace(/[\r\n]/g, '');
  return (t.length / 4) * 3 - (t.endsWith('==') ? 2 : t.endsWith('=') ? 1 : 0);
}

/** apimachinery IsConfigMapKey: at most 253 of [-._a-zA-Z0-9], not ".", "..", or starting "..". Returns the problem or undefined. */
export function configMapKeyProblem(key: string): string | undefined {
  if (key.length > 253) return 'is longer than 253 characters';
  if (!CONFIG_MAP_KEY.test(key)) return 'must consist of letters, digits, "-", "_" or "."';
  return chDirPrefixProblem(key);
}

/** The values of the Service spec.type (core ValidateService supportedServiceType). */
const SERVICE_TYPES = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'];

/** Kinds whose pod template must carry the selector's labels (apps validation ValidateDeploymentSpec, ValidateReplicaSetSpec, ValidateDaemonSetSpec). */
const SELECTOR_TEMPLATE_KINDS: Record<string, string> = { 'apps/Deployment': 'ValidateDeploymentSpec', 'apps/ReplicaSet': 'ValidateReplicaSetSpec', 'apps/DaemonSet': 'ValidateDaemonSetSpec' };

/** Whether a label selector (matchLabels and matchExpressions) selects `labels`; undefined when it is malformed. */
function selects(selector: Json, labels: Record<string, unknown>): boolean | undefined {
  for (const [k, v] of Object.entries(rec(selector.matchLabels) ?? {})) if (labels[k] !== v) return false;
  for (const e0 of arr(selector.matchExpressions)) {
    const e = rec(e0);
    if (!e || typeof e.key !== 'string') return undefined;
    const values = arr(e.values);
    const has = Object.prototype.hasOwnProperty.call(labels, e.key);
    switch (e.operator) {
      case 'In': if (!has || !values.includes(labels[e.key])) return false; break;
      case 'NotIn': if (has && values.includes(labels[e.key])) return false; break;
      case 'Exists': if (!has) return false; break;
      case 'DoesNotExist': if (has) return false; break;
      default: return undefined;
    }
  }
  return true;
}

/**
 * Rules of single kinds, read in the stored kubernetes/kubernetes copies (core validation.go, a
 * 1.33-era file; apps and batch validation; the same rules at v1.28.0):
 * - Service: spec.type one of ClusterIP, NodePort, LoadBalancer, ExternalName (ValidateService).
 * - ConfigMap: data and binaryData keys by IsConfigMapKey, no key in both, binaryData base64, the
 *   values at most MaxSecretSize (1 MiB) in all (ValidateConfigMap).
 * - Secret: data values base64 (the JSON decoder of a []byte field refuses anything else before
 *   validation), data and stringData keys by IsConfigMapKey, at most 1 MiB in all (ValidateSecret;
 *   stringData is merged into data first).
 * - Deployment, ReplicaSet, DaemonSet: a non-empty selector that selects the pod template's labels
 *   ("`selector` does not match template `labels`"), and a template with restartPolicy Always and
 *   no activeDeadlineSeconds (ValidatePodTemplateSpecForReplicaSet).
 * - CronJob: spec.schedule as robfig/cron v3.0.1 ParseStandard parses it, and no TZ/CRON_TZ in it
 *   on create (batch validateScheduleFormat).
 * - Namespace: the Pod Security labels as the pod-security-admission plugin reads them on create
 *   (admission.go ValidateNamespace -> api PolicyToEvaluate: levels privileged, baseline,
 *   restricted; versions "latest" or "v1.<n>"); an invalid one refuses the Namespace.
 */
function kindRules(o: Json, add: (p: string, m: string) => void): void {
  const group = typeof o.apiVersion === 'string' && o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : '';
  const spec = rec(o.spec);
  if (group === '' && o.kind === 'Service' && spec && spec.type !== undefined && !SERVICE_TYPES.includes(String(spec.type))) {
    add('/spec/type', `${show(spec.type)} is not supported (${SERVICE_TYPES.join(', ')}; core: ValidateService)`);
  }
  if (group === '' && (o.kind === 'ConfigMap' || o.kind === 'Secret')) dataRules(o, add);
  if (group === '' && o.kind === 'Namespace') {
    for (const p of podSecurityLabelProblems(rec(rec(o.metadata)?.labels) ?? {})) add(`/metadata/labels/${p.key}`, p.message);
  }
  const rule = SELECTOR_TEMPLATE_KINDS[`${group}/${String(o.kind)}`];
  if (rule && spec) {
    const selector = rec(spec.selector);
    const tmpl = rec(spec.template);
    if (!selector) add('/spec/selector', `is required (apps: ${rule})`);
    else if (Object.keys(rec(selector.matchLabels) ?? {}).length + arr(selector.matchExpressions).length === 0) add('/spec/selector', `an empty selector is invalid (it would select every pod of the namespace; apps: ${rule})`);
    else if (selects(selector, rec(rec(tmpl?.metadata)?.labels) ?? {}) === false) add('/spec/template/metadata/labels', `${show(rec(rec(tmpl?.metadata)?.labels) ?? {})} is not selected by spec.selector ${show(selector)}: "\`selector\` does not match template \`labels\`" (apps: ${rule}); the controller could not own the pods it creates`);
    const ps = rec(tmpl?.spec);
    if (ps && ps.restartPolicy !== undefined && ps.restartPolicy !== 'Always') add('/spec/template/spec/restartPolicy', `${show(ps.restartPolicy)} is not supported for a ${String(o.kind)}'s pods (Always; apps: ValidatePodTemplateSpecForReplicaSet)`);
    if (ps && ps.activeDeadlineSeconds !== undefined && ps.activeDeadlineSeconds !== null) add('/spec/template/spec/activeDeadlineSeconds', `is forbidden for a ${String(o.kind)}'s pods (apps: ValidatePodTemplateSpecForReplicaSet)`);
  }
  if (group === 'batch' && o.kind === 'CronJob' && spec && typeof spec.schedule === 'string') {
    const p = cronScheduleProblem(spec.schedule);
    if (p) add('/spec/schedule', `${show(spec.schedule)} ${p} (batch: validateScheduleFormat)`);
  }
}

function dataRules(o: Json, add: (p: string, m: string) => void): void {
  let total = 0;
  const data = rec(o.data) ?? {};
  const keyRule = o.kind === 'Secret' ? 'ValidateSecret' : 'ValidateConfigMap';
  const stringData = o.kind === 'Secret' ? rec(o.stringData) ?? {} : {};
  for (const [k, v] of Object.entries(data)) {
    const p = configMapKeyProblem(k);
    if (p) add(`/data/${k}`, `the key ${show(k)} ${p} (apimachinery IsConfigMapKey; core: ${keyRule})`);
    if (typeof v !== 'string') continue;
    if (o.kind === 'Secret') {
      if (!isBase64(v)) add(`/data/${k}`, 'is not base64: a Secret\'s data values are base64-encoded bytes, and the API server refuses the request when one does not decode ("illegal base64 data"); put plain text in stringData');
      else if (!(k in stringData)) total += base64Bytes(v);
    } else total += Buffer.byteLength(v);
  }
  for (const [k, v] of Object.entries(stringData)) {
    const p = configMapKeyProblem(k);
    if (p) add(`/stringData/${k}`, `the key ${show(k)} ${p} (apimachinery IsConfigMapKey; core: ValidateSecret)`);
    if (typeof v === 'string') total += Buffer.byteLength(v);
  }
  if (o.kind === 'ConfigMap') {
    for (const [k, v] of Object.entries(rec(o.binaryData) ?? {})) {
      const p = configMapKeyProblem(k);
      if (p) add(`/binaryData/${k}`, `the key ${show(k)} ${p} (apimachinery IsConfigMapKey; core: ValidateConfigMap)`);
      if (k in data) add(`/data/${k}`, `the key ${show(k)} is also in binaryData (core: ValidateConfigMap, "duplicate of key present in binaryData")`);
      if (typeof v !== 'string') continue;
      if (!isBase64(v)) add(`/binaryData/${k}`, 'is not base64 (binaryData values are base64-encoded bytes; the API server refuses the request)');
      else total += base64Bytes(v);
    }
  }
  if (total > MAX_SECRET_SIZE) add('/', `the ${o.kind}'s data is ${total} bytes, more than the 1 MiB (${MAX_SECRET_SIZE} bytes) the API server allows (core: ${keyRule}, MaxSecretSize)`);
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
      out.push({ key: `pod-security.kubernetes.io/${mode}`, message: `${show(level)} is not a Pod Security level (privileged, baseline or restricted): the PodSecurity admission plugin refuses the namespace (pod-security-admission ValidateNamespace)` });
    }
    const version = labels[`pod-security.kubernetes.io/${mode}-version`];
    if (version !== undefined && version !== 'latest' && !/^v1\.([0-9]|[1-9][0-9]*)$/.test(String(version))) {
      out.push({ key: `pod-security.kubernetes.io/${mode}-version`, message: `${show(version)} is not "latest" or "v1.<minor>": the PodSecurity admission plugin refuses the namespace (pod-security-admission ValidateNamespace)` });
    }
  }
  return out;
}

const CRON_FIELDS: readonly { name: string; min: number; max: number; names?: readonly string[] }[] = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'day of month', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12, names: ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] },
  { name: 'day of week', min: 0, max: 6, names: ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] },
];

/**
 * A CronJob schedule as the API server parses it on create: robfig/cron v3.0.1 ParseStandard
 * (parser.go: five whitespace-separated fields, each a comma list of `*`/`?`, a number or a name,
 * a range, each with an optional /step; or a descriptor @yearly, @annually, @monthly, @weekly,
 * @daily, @midnight, @hourly, @every <Go duration>), then batch validateScheduleFormat refuses
 * any "TZ" in it (use spec.timeZone). Returns the problem, or undefined.
 */
export function cronScheduleProblem(schedule: string): string | undefined {
  if (schedule === '') return 'is empty';
  if (schedule.includes('TZ')) return 'contains TZ or CRON_TZ: the API server refuses a time zone in the schedule on create (use spec.timeZone)';
  if (schedule.startsWith('@')) {
    if (['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'].includes(schedule)) return undefined;
    if (schedule.startsWith('@every ')) return /^[-+]?(0|([0-9]*(\.[0-9]*)?(ns|us|µs|μs|ms|s|m|h))+)$/.test(schedule.slice(7)) && /[0-9]/.test(schedule.slice(7)) ? undefined : 'is not a Go duration after "@every"';
    return 'is not a known descriptor (@yearly, @annually, @monthly, @weekly, @daily, @midnight, @hourly, @every <duration>)';
  }
  const fields = schedule.split(/[ \t\n\r\v\f]+/).filter(Boolean);
  if (fields.length !== 5) return `is not a cron schedule: expected exactly 5 fields (minute hour day-of-month month day-of-week), found ${fields.length}`;
  for (let f = 0; f < 5; f++) {
    const b = CRON_FIELDS[f];
    const num = (x: string): number | undefined => {
      const i = b.names?.indexOf(x.toLowerCase()) ?? -1;
      if (i >= 0) return i + b.min;
      return /^[+-]?[0-9]+$/.test(x) && Number(x) >= 0 ? Number(x) : undefined;
    };
    for (const expr of fields[f].split(',').filter((x) => x !== '')) {
      const [range, step, ...extraSlash] = expr.split('/');
      if (extraSlash.length > 0) return `has too many slashes in ${b.name} "${expr}"`;
      const lohi = range.split('-');
      let start: number | undefined;
      let end: number | undefined;
      if (lohi[0] === '*' || lohi[0] === '?') {
        start = b.min;
        end = b.max;
      } else {
        if (lohi.length > 2) return `has too many hyphens in ${b.name} "${expr}"`;
        start = num(lohi[0]);
        end = lohi.length === 2 ? num(lohi[1]) : start;
        if (start === undefined || end === undefined) return `has "${expr}" where the ${b.name} must be a number${b.names ? ' or a name' : ''}, a range or "*"`;
      }
      if (step !== undefined) {
        if (!/^[+-]?[0-9]+$/.test(step) || Number(step) < 0) return `has the step "${step}" in ${b.name} "${expr}", not a number`;
        if (lohi.length === 1 && lohi[0] !== '*' && lohi[0] !== '?') end = b.max;
        if (Number(step) === 0) return `has a step of 0 in ${b.name} "${expr}"`;
      }
      if (start < b.min) return `has ${b.name} ${start} below the minimum ${b.min} in "${expr}"`;
      if (end > b.max) return `has ${b.name} ${end} above the maximum ${b.max} in "${expr}"`;
      if (start > end) return `has a ${b.name} range that starts after it ends in "${expr}"`;
    }
  }
  return undefined;
}
