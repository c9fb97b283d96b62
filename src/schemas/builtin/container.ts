import { KubernetesVersion } from '../../decisions/kubernetes-version';
import { Add, arr, Json, QUANTITY, quantityValue, rec, show } from './common';
import {
  chDirPrefixProblem,
  CONFIG_MAP_KEY,
  ENV_VAR_NAME,
  isPortName,
  isQualifiedName,
  RELAXED_ENV_VAR_NAME,
} from './names';

/**
 * core/v1 container validation (pkg/apis/core/validation/validation.go validateContainers): ports, image
 * references, env and its field references, probes and resources.
 * Split from src/schemas/builtin.ts (issue 26); each check cites its source where it is.
 */

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
  if (image.trim() !== image)
    return (
      'has leading or trailing whitespace (the API server refuses a Pod with it, core ' +
      'validateContainersOnlyForPod)'
    );
  if (/^[a-f0-9]{64}$/.test(image))
    return 'is a 64-character hexadecimal string, which the kubelet refuses as a ' + 'repository name';
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
  if (remote.toLowerCase() !== remote)
    return `has an upper-case repository name (${remote}); the kubelet requires ` + 'lower case';
  const domainComponent = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
  const host = `(?:${domainComponent}(?:\\.${domainComponent})*|\\[(?:[a-fA-F0-9:]+)\\])(?::[0-9]+)?`;
  const path = '[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*)*';
  const ref = new RegExp(
    `^((?:${host}/)?${path})(?::([\\w][\\w.-]{0,127}))?(?:@([A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}))?$`,
  );
  const full = `${domain}/${remainder}`;
  const m = ref.exec(full);
  if (!m)
    return (
      'is not a valid image reference ([registry/]repository[:tag][@digest]: lower-case path components, ' +
      'one tag of at most 128 word characters, one digest)'
    );
  const name = m[1];
  const repoPath = name.slice(domain.length + 1);
  if (repoPath.length > 255) return `has a repository name of ${repoPath.length} characters, more than 255`;
  const digest = m[3];
  if (digest) {
    const [alg, hex] = digest.split(':');
    const len: Record<string, number> = { sha256: 64, sha384: 96, sha512: 128 };
    if (len[alg] === undefined) return `has a digest with the unsupported algorithm ${alg} (sha256, sha384 or sha512)`;
    if (hex.length !== len[alg] || !/^[a-f0-9]+$/.test(hex))
      return `has a ${alg} digest that is not ${len[alg]} ` + 'lower-case hexadecimal digits';
  }
  return undefined;
}

export function container(
  c: Json,
  cp: string,
  volumes: Set<string>,
  claimTemplates: boolean,
  add: Add,
  version: KubernetesVersion,
): void {
  // core validateEnv: names by IsEnvVarName, or IsRelaxedEnvVarName once RelaxedEnvironmentVariableValidation is on by
  // default (1.32+)
  const relaxed = version.minor >= 32;
  arr(c.env).forEach((e0, j) => {
    const name = rec(e0)?.name;
    if (typeof name !== 'string') return;
    if (name === '' || !(relaxed ? RELAXED_ENV_VAR_NAME : ENV_VAR_NAME).test(name)) {
      add(
        `${cp}/env/${j}/name`,
        `${show(name)} is not a valid environment variable name ` +
          `(${
            relaxed ? 'printable ASCII other than "="' : 'letters, digits, "_", "-" or ".", not starting with a digit'
          }, ` +
          `Kubernetes ${version.name})`,
        name,
      );
    }
    for (const ref of ['configMapKeyRef', 'secretKeyRef'] as const) {
      const key = rec(rec(rec(e0)?.valueFrom)?.[ref])?.key;
      if (typeof key === 'string' && !(key.length <= 253 && CONFIG_MAP_KEY.test(key)))
        add(`${cp}/env/${j}/valueFrom/${ref}/key`, `${show(key)} is not a valid ConfigMap or Secret key`, key);
    }
  });
  const ports = new Set<string>();
  arr(c.ports).forEach((p0, j) => {
    const name = rec(p0)?.name;
    if (typeof name === 'string' && name !== '') {
      if (!isPortName(name))
        add(
          `${cp}/ports/${j}/name`,
          `${show(name)} is not a port name (IANA_SVC_NAME: 1-15 lower-case letters, digits and "-", with a letter)`,
          name,
        );
      if (ports.has(name))
        add(`${cp}/ports/${j}/name`, `the port name ${show(name)} is used twice in the container`, name);
      ports.add(name);
    }
  });
  // core ValidateVolumeMounts: the volume exists, mountPath is set and unique within the container
  const paths = new Set<string>();
  arr(c.volumeMounts).forEach((m0, j) => {
    const m = rec(m0);
    if (!m) return;
    if (typeof m.name === 'string' && !volumes.has(m.name))
      add(
        `${cp}/volumeMounts/${j}/name`,
        `the volume ${show(m.name)} is not a volume of the pod${claimTemplates ? ' nor a volumeClaimTemplate' : ''}`,
        m.name,
      );
    const p = m.mountPath;
    if (typeof p !== 'string') return;
    if (p === '') add(`${cp}/volumeMounts/${j}/mountPath`, 'is required');
    const norm = p.replace(/\/+$/, '') || '/';
    if (paths.has(norm))
      add(
        `${cp}/volumeMounts/${j}/mountPath`,
        `${show(p)} is mounted twice in the container (mountPath must be unique)`,
        p,
      );
    paths.add(norm);
    // Not an API-server rule: a volume mounted at "/" would hide the image's whole file system, and
    // container runtimes refuse a mount over the container's root.
    if (norm === '/')
      add(
        `${cp}/volumeMounts/${j}/mountPath`,
        '"/" would mount the volume over the container\'s root file system; the container runtime refuses it',
        p,
      );
    if (typeof m.subPath === 'string' && (m.subPath.startsWith('/') || m.subPath.split('/').includes('..')))
      add(
        `${cp}/volumeMounts/${j}/subPath`,
        `${show(m.subPath)} must be a relative path without ".." (core: validateLocalDescendingPath)`,
        m.subPath,
      );
  });
  const res = rec(c.resources);
  for (const kind of ['requests', 'limits'] as const) {
    for (const [k, v] of Object.entries(rec(res?.[kind]) ?? {})) {
      if (typeof v === 'string' && !QUANTITY.test(v))
        add(`${cp}/resources/${kind}/${k}`, `${show(v)} is not a Kubernetes quantity`, v);
    }
  }
}

/**
 * The downward-API field paths an env var may read (core validation.go
 * validEnvDownwardAPIFieldPathExpressions, read in the stored kubernetes/kubernetes copy, a
 * 1.33-era file with AllowRelaxedEnvironmentVariableValidation): status.hostIPs is in the list from
 * 1.29, when PodHostIPs went beta (at 1.28 it is alpha, off by default, and the API server
 * refuses it: PodValidationOptions.AllowHostIPsField follows the gate).
 */
function envFieldPaths(version: KubernetesVersion): string[] {
  return [
    'metadata.name',
    'metadata.namespace',
    'metadata.uid',
    'spec.nodeName',
    'spec.serviceAccountName',
    'status.hostIP',
    'status.podIP',
    'status.podIPs',
    ...(version.minor >= 29 ? ['status.hostIPs'] : []),
  ];
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
      if (base === 'metadata.labels')
        return isQualifiedName(key) ? undefined : `the label key ${show(key)} is not a ` + 'qualified name';
      if (base === 'metadata.annotations')
        return isQualifiedName(key.toLowerCase())
          ? undefined
          : `the annotation key ${show(key)} is not ` + 'a qualified name';
      return (
        `${show(base)} does not support a subscript (only metadata.labels['<key>'] and ` +
        `metadata.annotations['<key>'] do)`
      );
    }
  }
  const allowed = envFieldPaths(version);
  const listed = allowed.join(', ');
  return allowed.includes(fieldPath)
    ? undefined
    : `${show(fieldPath)} is not supported ` +
        `(Kubernetes ${version.name}: ${listed}, metadata.labels['<key>'] or metadata.annotations['<key>'])`;
}

/**
 * Env vars and envFrom of every container, as core ValidateEnv / ValidateEnvFrom check them
 * beyond the name pattern builtinProblems already applies: hasChDirPrefix on names and
 * envFrom prefixes (strict IsEnvVarName, before RelaxedEnvironmentVariableValidation is on by
 * default in 1.32), on configMapKeyRef and secretKeyRef keys (IsConfigMapKey, always), and the
 * fieldRef paths (validateObjectFieldSelector).
 */
export function podEnvReferences(
  spec: Json,
  path: string,
  add: (p: string, m: string) => void,
  version: KubernetesVersion,
): void {
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
        const chdir =
          typeof name === 'string' && strict && ENV_VAR_NAME.test(name) ? chDirPrefixProblem(name) : undefined;
        if (chdir)
          add(
            `${cp}/env/${j}/name`,
            `${show(name)} is not a valid environment variable name: it ${chdir} (apimachinery IsEnvVarName, ` +
              `Kubernetes ${version.name})`,
          );
        for (const ref of ['configMapKeyRef', 'secretKeyRef'] as const) {
          const key = rec(rec(e.valueFrom)?.[ref])?.key;
          const p =
            typeof key === 'string' && key.length <= 253 && CONFIG_MAP_KEY.test(key)
              ? chDirPrefixProblem(key)
              : undefined;
          if (p)
            add(
              `${cp}/env/${j}/valueFrom/${ref}/key`,
              `${show(key)} is not a valid ConfigMap or Secret key: it ${p} (apimachinery IsConfigMapKey)`,
            );
        }
        const fieldRef = rec(rec(e.valueFrom)?.fieldRef);
        if (fieldRef && typeof fieldRef.fieldPath === 'string') {
          const p = envFieldPathProblem(fieldRef.fieldPath, version);
          if (p)
            add(
              `${cp}/env/${j}/valueFrom/fieldRef/fieldPath`,
              `the downward-API field path ${p} (core: validateObjectFieldSelector)`,
            );
        }
      });
      arr(c.envFrom).forEach((f0, j) => {
        const prefix = rec(f0)?.prefix;
        if (typeof prefix !== 'string' || prefix === '') return;
        const bad = strict
          ? !ENV_VAR_NAME.test(prefix)
            ? 'is not letters, digits, "_", "-" or ".", not starting ' + 'with a digit'
            : chDirPrefixProblem(prefix)
          : RELAXED_ENV_VAR_NAME.test(prefix)
            ? undefined
            : 'is not printable ASCII other than "="';
        if (bad)
          add(
            `${cp}/envFrom/${j}/prefix`,
            'the envFrom ' +
              `prefix ${show(prefix)} ${
                bad.startsWith('must') ? `is not a valid environment variable name: it ${bad}` : bad
              } ` +
              `(core: ValidateEnvFrom, Kubernetes ${version.name})`,
          );
      });
    });
  }
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
export function containerProbesAndResources(spec: Json, path: string, add: (p: string, m: string) => void): void {
  for (const list of ['initContainers', 'containers'] as const) {
    arr(spec[list]).forEach((c0, i) => {
      const c = rec(c0);
      if (!c) return;
      const cp = `${path}/${list}/${i}`;
      if (list === 'containers' || c.restartPolicy === 'Always') {
        for (const probe of ['livenessProbe', 'startupProbe'] as const) {
          const st = rec(c[probe])?.successThreshold;
          if (st !== undefined && st !== null && st !== 1)
            add(
              `${cp}/${probe}/successThreshold`,
              `${show(st)} must be 1 for a ${probe === 'livenessProbe' ? 'liveness' : 'startup'} probe (core: ` +
                `validate${probe === 'livenessProbe' ? 'Liveness' : 'Startup'}Probe)`,
            );
        }
      }
      const res = rec(c.resources);
      const limits = rec(res?.limits) ?? {};
      for (const [name, request] of Object.entries(rec(res?.requests) ?? {})) {
        const native = !name.includes('/') || name.includes('kubernetes.io/');
        const overcommit = native && !name.startsWith('hugepages-');
        const r = quantityValue(request);
        if (!(name in limits)) {
          if (!overcommit)
            add(
              `${cp}/resources/limits`,
              `a limit must be set for ${show(name)}, a resource that cannot be overcommitted (core: ` +
                'validateResourceRequirements)',
            );
          continue;
        }
        const l = quantityValue(limits[name]);
        if (r === undefined || l === undefined) continue;
        if (!overcommit && r !== l)
          add(
            `${cp}/resources/requests/${name}`,
            `the request ${show(request)} must equal the limit ${show(limits[name])} for ${show(name)}, a resource ` +
              'that cannot be overcommitted (core: validateResourceRequirements)',
          );
        else if (r > l)
          add(
            `${cp}/resources/requests/${name}`,
            `the request ${show(request)} must be less than or equal to the ${name} limit ${show(limits[name])} ` +
              `(resources.limits.${name}; core: validateResourceRequirements)`,
          );
      }
    });
  }
}
