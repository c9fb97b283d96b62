import { KubernetesVersion } from '../decisions/kubernetes-version';
import { ClusterValidator, ClusterProblem, findSchemaDir } from '../schemas/cluster-validator';
import { BUILTIN_GROUPS, groupOf } from '../schemas/builtin';
import { pinnedOrigin } from '../schemas/pinned';
import { Pass } from '../schemas/structural';
import { LintResult } from './engine';
import { aboutPlaceholder } from './placeholders';
import { LintObject } from './source';
import { Finding, Severity } from './types';
import { ObjectScope, renderNote } from './scope';
import { arr, operatorManagedBy, rec } from './k8s';
import { ENGINE_RULES } from './catalogue';
import { IF_APPLIED, NOT_SHOWN } from './applied-gate';
import { RuleMeta } from './rule';

/**
 * The cluster's own validation as a lint stage, separate from the composition rules: what synth
 * runs on every object it writes (src/schemas/cluster-validator.ts) on any manifests. One rule per
 * validator: RW801 the kind's OpenAPI schema (strict), RW802 a CRD's CEL rule, RW803 the API
 * server's built-in validation (their texts are in the catalogue, so docs/rules.md lists them).
 * Findings are errors (the cluster refuses the object, or every pod its controller creates); they
 * are not suppressible, because no reason makes the API server accept it.
 */
export const CLUSTER_RULES: Record<ClusterProblem['source'], RuleMeta> = {
  schema: ENGINE_RULES.kindSchema,
  cel: ENGINE_RULES.crdValidationRule,
  builtin: ENGINE_RULES.apiServerValidation,
};

/** A map list's duplicate key, as structural.ts reports it. */
const MAP_LIST_DUPLICATE = /^two items have the same .* \(a map list\)$/;

/**
 * How sure lint is that the cluster refuses the object, as a severity with the words that say why
 * it is not an error (undefined: an error).
 *
 * - A custom resource's schema is that of the CRD version rollwise pins, and the cluster's
 *   installed CRD may be another release or channel (Gateway API's experimental channel adds
 *   HTTPRoute filters such as ExternalAuth that the standard channel's enum lacks: kubernetes-sigs/
 *   gateway-api v1.6.1 config/crd/experimental/gateway.networking.k8s.io_httproutes.yaml has the
 *   ExternalAuth filter type, config/crd/standard/ does not, read at the tag): a warning that
 *   names the CRD it was checked against. A CEL rule (RW802) stays an error: the rules are
 *   restrictions the CRD adds, and a channel or a later release that adds fields does not lift them.
 * - Two items of a built-in kind's list with the same map-list key (a container's ports with the
 *   same containerPort and protocol): the OpenAPI list-map keys bind only server-side apply, whose
 *   merge refuses duplicate keys. Create, update and client-side `kubectl apply` decode into the Go
 *   types and run the hand-written validation, which only warns ("duplicate port definition with",
 *   kubernetes pkg/api/pod/warnings.go warningsForPodSpecAndMeta, read in the code index's copy);
 *   the duplicates that validation refuses (container, volume and port names, mount paths) are
 *   RW803's.
 */
function clusterSeverity(
  o: LintObject,
  p: ClusterProblem,
  validator: ClusterValidator,
): { severity: Severity; note: string } | undefined {
  const builtin = BUILTIN_GROUPS.has(groupOf(o.apiVersion));
  if (!builtin && p.source === 'schema') {
    const file = validator.crdFileOf(o.apiVersion, o.kind);
    const origin = file ? pinnedOrigin(file) : undefined;
    return {
      severity: 'warning',
      note:
        `checked against the CRD of ${origin ?? 'the version rollwise pins'}; the ` +
        `cluster's installed CRD version or channel may accept it, so this is a warning, not an error`,
    };
  }
  if (builtin && p.source === 'schema' && MAP_LIST_DUPLICATE.test(p.message)) {
    return {
      severity: 'warning',
      note:
        'the API server accepts it on create, update and client-side kubectl apply ' +
        'with a warning ("duplicate port definition"); server-side apply (kubectl apply --server-side, Argo CD ' +
        'ServerSideApply=true) refuses it',
    };
  }
  return undefined;
}

/** JSON pointer to the field path style of findings (`/spec/ports/0/name` -> `spec.ports[0].name`). */
function fieldPath(pointer: string): string {
  return pointer
    .split('/')
    .filter(Boolean)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce(
      (acc, s) =>
        /^\d+$/.test(s) ? `${acc}[${s}]` : /^[A-Za-z0-9_-]+$/.test(s) ? (acc ? `${acc}.${s}` : s) : `${acc}["${s}"]`,
      '',
    );
}

/**
 * Adds the cluster-validation findings to a lint result, at `version` (@default the newest
 * supported Kubernetes version). Without pinned schemas only the built-in checks run.
 *
 * Only objects of kinds the validator covers are checked: Kubernetes kinds of that version and the
 * pinned CRDs' kinds (ClusterValidator.covers). A file of another kind may never be sent to an API
 * server (eksctl's ClusterConfig, kind's Cluster, a Backstage entity), and how one would validate
 * it is not known, so nothing is said of it. A value that is an unrendered placeholder
 * (`${VAR}`, `<PROJECT_ID>`, placeholders.ts) is not what is applied: a problem with it is not
 * reported (it is checked once substituted).
 *
 * Two kinds of problem are warnings here, not errors (synth, which writes the objects itself, keeps
 * them errors): see clusterSeverity.
 */
/**
 * Whether every leaf of the object (apiVersion and kind aside) is null: a skeleton to fill in, as
 * exercises hand out (eficode-academy/kubernetes-katas deployments-ingress/start/*-deployment.yaml
 * and services/start/backend-svc.yaml: `name: # Deployment name`, `port:`; judged wrong as
 * warnings on held-out set 9). Nobody applies it as written; its problems are info at most. An
 * object with one real value (a name, an image) is not a skeleton.
 */
export function isSkeleton(obj: Readonly<Record<string, unknown>>): boolean {
  let leaves = 0;
  const walk = (v: unknown, depth: number): boolean => {
    if (depth > 20) return false;
    if (v === null) {
      leaves++;
      return true;
    }
    if (Array.isArray(v)) return v.every((x) => walk(x, depth + 1));
    if (typeof v === 'object') return Object.values(v as Record<string, unknown>).every((x) => walk(x, depth + 1));
    return false;
  };
  const rest = Object.entries(obj).filter(([k]) => k !== 'apiVersion' && k !== 'kind');
  return rest.every(([, v]) => walk(v, 0)) && leaves > 0;
}

export function withClusterFindings(
  result: LintResult,
  objects: readonly LintObject[],
  version: KubernetesVersion = KubernetesVersion.supported().slice(-1)[0],
  scopes?: ReadonlyMap<LintObject, ObjectScope>,
): LintResult {
  const dir = findSchemaDir(version);
  const validator = dir === undefined ? ClusterValidator.builtinOnly(version) : ClusterValidator.for(dir, version);
  const pass = new Pass();
  const extra: Finding[] = [];
  for (const o of objects) {
    if (!validator.covers(o.apiVersion, o.kind)) continue;
    const scope = scopes?.get(o);
    // Without scopes (a caller that lints objects it holds itself) the objects are what it applies.
    const asIs = scopes === undefined ? 'given as objects' : scope?.appliedAsIs;
    // A workload with the shape of a patch, that nothing shows is applied: a fragment, not an object.
    if (asIs === undefined && isFragmentShaped(o.obj)) continue;
    const signs = templateSigns(o);
    const encrypted = sopsEncrypted(o.obj);
    const skeleton = isSkeleton(o.obj);
    const problems = validator.check(o.obj, pass).filter((p) => !aboutSopsEncryption(p, encrypted));
    // A fill-in recognized in one field is the same fill-in wherever the object repeats it
    // (`port: PORT` is a placeholder where a number belongs, so `targetPort: PORT` is too).
    const fillIns = new Set(
      problems
        .filter(aboutPlaceholder)
        .map((p) => p.value)
        .filter((v): v is string => typeof v === 'string'),
    );
    for (const p of problems) {
      if (aboutPlaceholder(p) || (typeof p.value === 'string' && fillIns.has(p.value))) continue;
      if (filledInByTool(o, p) || suppliedByPatch(scope, p.path)) continue;
      const rule = CLUSTER_RULES[p.source];
      const path = fieldPath(p.path);
      const lenient = clusterSeverity(o, p, validator);
      const own = [...signs, ...deletionKey(p)];
      const applied = appliedSeverity(lenient, asIs, own, scope?.bundleInput);
      const severity = skeleton ? 'info' : applied.severity;
      const note = skeleton
        ? 'every field of this object is empty: a skeleton to fill in, not what anyone applies'
        : applied.note;
      // The validator says only "is required" of a missing field (the path holds it): name it.
      const text = path !== '' && p.message.startsWith('is required') ? `${path} ${p.message}` : p.message;
      // On a rendered object, the render is named: its file may not have the field at all.
      const rendered = renderNote(scope, p.path, o.file);
      extra.push({
        ruleId: rule.id,
        severity,
        file: o.file,
        line: o.line(path),
        kind: o.kind,
        ...(o.namespace ? { namespace: o.namespace } : {}),
        name: o.name,
        object: o.ref,
        path,
        ...(scope?.render ? { render: scope.render.folder } : {}),
        message:
          `${
            scope?.bundleInput !== undefined
              ? 'if this render were applied with kubectl: '
              : asIs === undefined
                ? IF_APPLIED
                : ''
          }${text} ` + `(Kubernetes ${version.name}${rendered ? `; ${rendered}` : ''}${note ? `; ${note}` : ''})`,
        mechanism: rule.mechanism,
        fix: rule.fix,
        values: {},
        status: 'open',
      });
    }
  }
  if (extra.length === 0) return result;
  const findings = [...result.findings, ...extra].sort((a, b) =>
    a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1,
  );
  return { ...result, findings };
}

/**
 * The severity of a cluster problem on an object, and the words that say why it is not an error.
 * An error only where the object is shown to be applied as written (ObjectScope.appliedAsIs) and
 * no sign says it is a template another program fills in; then the API server refuses exactly
 * this. Not shown to be applied as written: a warning (what the API server would refuse if it
 * were), and info when a template sign is also read. Shown, but with a sign: a warning. The
 * render of an OLM bundle input: info (operator-sdk reads it, kubectl does not apply it).
 */
function appliedSeverity(
  lenient: { severity: Severity; note: string } | undefined,
  asIs: string | undefined,
  signs: readonly string[],
  bundleInput?: string,
): { severity: Severity; note?: string } {
  const notes: string[] = [];
  if (lenient) notes.push(lenient.note);
  // An OLM bundle input (layout.ts withBundleInputs): operator-sdk reads it, kubectl never applies it.
  if (bundleInput !== undefined)
    return { severity: 'info', note: [...notes, `${bundleInput}, so this is not an error`].join('; ') };
  if (asIs === undefined) {
    notes.push(NOT_SHOWN);
  }
  if (signs.length > 0) notes.push(`it reads as a template that another program fills in (${signs.join('; ')})`);
  const severity: Severity =
    asIs === undefined
      ? signs.length > 0
        ? 'info'
        : 'warning'
      : signs.length > 0
        ? 'warning'
        : (lenient?.severity ?? 'error');
  return { severity, ...(notes.length ? { note: notes.join('; ') } : {}) };
}

/** The signs, read from the object itself, that it is a template another program fills in. */
export function templateSigns(o: LintObject): string[] {
  const signs: string[] = [];
  const manager = operatorManagedBy(o);
  if (manager !== undefined)
    signs.push(`app.kubernetes.io/managed-by: ${manager} names an operator, which reads its files as templates`);
  return signs;
}

/**
 * An annotation key ending in `-` is openshift/library-go's "delete this annotation" marker:
 * resourcemerge.MergeMap removes the key without the `-` from the existing object and never
 * writes the marked key (openshift/library-go pkg/operator/resource/resourcemerge/object_merger.go,
 * MergeMap, `strings.HasSuffix(k, "-")`, at 93ac9206). Operators built on library-go apply such
 * files through it, so the key is never sent to the API server.
 */
function deletionKey(p: ClusterProblem): string[] {
  const m = /^\/metadata\/annotations\/(.+)$/.exec(p.path);
  const key = m?.[1].replace(/~1/g, '/').replace(/~0/g, '~');
  return key !== undefined && key.endsWith('-')
    ? [
        `the annotation key "${key}" ends in "-", openshift/library-go ` +
          `resourcemerge's marker to delete that annotation`,
      ]
    : [];
}

/**
 * Values a deploy tool or a controller replaces before any pod is created, so a problem with them
 * is not a problem with what is applied (as unrendered placeholders, placeholders.ts):
 * - a `ko://` import path as an image: `ko resolve` / `ko apply` builds it and writes the image
 *   reference in its place (knative/serving config/core/deployments/*.yaml are applied so);
 * - an empty or blank image (`" "`) in a template with an `image.openshift.io/triggers`
 *   annotation: OpenShift's image trigger controller sets the image from the ImageStreamTag the
 *   annotation names (openshift/library-go pkg/image/trigger/types.go TriggerAnnotationKey, as
 *   vendored by openshift/openshift-controller-manager at 26d20fea, pkg/image/controller/trigger).
 *   The API server accepts `" "` in a pod template on purpose: kubernetes pkg/apis/core/validation/
 *   validation.go validateContainerCommon requires only a non-empty image, citing openshift/origin
 *   #14659 ("image = \" \" is special token in pod template"); the whitespace check is for Pods.
 */
export function filledInByTool(o: LintObject, p: { readonly path: string; readonly value?: unknown }): boolean {
  if (!/\/image$/.test(p.path) || typeof p.value !== 'string') return false;
  if (p.value.startsWith('ko://')) return true;
  const triggers = rec(rec(o.obj.metadata)?.annotations)?.['image.openshift.io/triggers'];
  return p.value.trim() === '' && typeof triggers === 'string' && triggers.trim() !== '';
}

/**
 * A document SOPS encrypted: a top-level `sops` mapping with a non-empty `mac`, the test Flux's
 * kustomize-controller applies before it decrypts a resource (fluxcd/kustomize-controller v1.9.4
 * internal/decryptor/decryptor.go isSOPSEncryptedResource, DecryptResource). sops writes that key
 * (getsops/sops v3.13.2 stores/stores.go SopsMetadataKey = "sops", Metadata's `mac`), and the sops
 * CLI and Flux decrypt the document and drop the key before anything reaches the API server, so
 * the document is never applied as written (xunholy/k8s-gitops kubernetes/apps/base/flux-system/
 * flux-instance/extras/secret.enc.age.yaml, held-out set 6). The block is one per document and
 * covers all of it: sops loads the document as one tree and takes the `sops` key off its top
 * (stores/yaml/store.go LoadEncryptedFile, stores.ExtractMetadata), so a `kind: List`'s block
 * covers its items (thoth-station/thoth-application amun/overlays/moc-prod/amun-api/
 * secrets.enc.yaml, set 7). An item has no `sops` key of its own; what decryption changes in it
 * is its ENC[...] values, which are not reported wherever they are (SOPS_VALUE).
 */
export function sopsEncrypted(obj: Record<string, unknown>): boolean {
  const mac = rec(obj.sops)?.mac;
  return typeof mac === 'string' && mac.trim() !== '';
}

/**
 * A value sops encrypted: `ENC[AES256_GCM,data:...,iv:...,tag:...,type:...]`, the format sops
 * writes (getsops/sops v3.13.2 aes/cipher.go Encrypt's Sprintf) and reads back (its `encre`
 * regexp). Decryption replaces it with the plain value of that type. No one writes that text as
 * a plain value, so it is ciphertext wherever it appears, with or without a `sops` block in the
 * same object: what decrypts it (ksops, Flux, the sops CLI) is not the API server's concern.
 */
const SOPS_VALUE = /^ENC\[AES256_GCM,data:[^,\]]*,iv:[^,\]]*,tag:[^,\]]*,type:[a-z]+\]$/;

/**
 * Whether a problem is about what sops decryption changes: an encrypted value (replaced by its
 * plain text), anywhere; and on a SOPS-encrypted document the `sops` key itself (removed). Fields
 * sops left in plain text (`encrypted_regex: ^(data|stringData)$` keeps metadata plain) are
 * applied as written, so a problem there is still reported; so is a `sops` key without a `mac`.
 */
function aboutSopsEncryption(p: { readonly path: string; readonly value?: unknown }, encrypted: boolean): boolean {
  if (encrypted && (p.path === '/sops' || p.path.startsWith('/sops/'))) return true;
  return holdsSopsValue(p.value, 0);
}

function holdsSopsValue(value: unknown, depth: number): boolean {
  if (typeof value === 'string') return SOPS_VALUE.test(value.trim());
  if (depth > 20 || value === null || typeof value !== 'object') return false;
  return Object.values(value as Record<string, unknown>).some((v) => holdsSopsValue(v, depth + 1));
}

/** Whether a JSON 6902 patch of an unrendered kustomization adds the field (or one above it) the problem is about. */
function suppliedByPatch(scope: ObjectScope | undefined, pointer: string): boolean {
  return !!scope?.suppliedByPatch?.pointers.some(
    (q) => pointer === q || pointer.startsWith(`${q}/`) || q.startsWith(`${pointer}/`),
  );
}

const WORKLOADS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet']);

/**
 * A workload that no one writes whole: no spec.selector (required by apps/v1), and a pod template
 * without labels (which a selector must match) or a container without an image. That is a
 * strategic-merge patch's shape (sourcegraph/deploy-sourcegraph overlays/non-privileged/
 * otel-collector/otel-collector.Deployment.yaml: a container's securityContext only;
 * vfarcic/cncf-demo kustomize/overlays/prod/deployment-otel.yaml: a sidecar with an image, but no
 * selector and no labels). Used only where nothing shows the file is applied as is: a kustomization
 * that lists such a file as a resource outputs it unchanged, and the API server refuses that.
 */
export function isFragmentShaped(obj: Record<string, unknown>): boolean {
  if (typeof obj.kind !== 'string' || !WORKLOADS.has(obj.kind)) return false;
  const spec = rec(obj.spec);
  if (spec?.selector !== undefined) return false;
  const template = rec(spec?.template);
  const labels = rec(rec(template?.metadata)?.labels);
  const cs = [...arr(rec(template?.spec)?.containers), ...arr(rec(template?.spec)?.initContainers)].map(rec);
  return (
    labels === undefined ||
    Object.keys(labels).length === 0 ||
    cs.length === 0 ||
    cs.some((c) => typeof c?.image !== 'string' || c.image === '')
  );
}
