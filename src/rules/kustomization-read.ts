import * as fs from 'fs';
import * as path from 'path';
import * as YAML from 'yaml';
import { arr, rec, str } from './k8s';
import { kustomizationFile, REMOTE } from './kustomization-files';
import { LintObject, ParsedSource } from './source';

/**
 * Reading kustomizations without kustomize, for a scan (layout.ts): what a kustomization file
 * lists (its resources, bases and components, its patch files, the fields that change objects),
 * its tree with the namespace that applies at each level, whether a tree only concatenates its
 * files (plainAggregation), which files beside it are patches, which roots are OLM bundle inputs,
 * and the JSON 6902 patches that target a file no kustomization of the scan includes. It mirrors
 * kustomize v5.5.0's Kustomization fields (kubernetes-sigs/kustomize kustomize/v5.5.0
 * api/types/kustomization.go), its build (api/internal/target/kusttarget.go) and patch targets
 * (api/types/selector.go), and operator-sdk v1.42.3's bundle generation, as each function's
 * comment says.
 */

/** What a kustomization file says, as far as scoping and rendering need it. */
export interface Kustomization {
  readonly dir: string;
  readonly file: string;
  readonly namespace?: string;
  /** Resource files (absolute). */
  readonly files: string[];
  /** Kustomization folders it includes as resources or components (absolute). */
  readonly children: string[];
  /** Patch files (absolute): partial objects, not deployable on their own. */
  readonly patchFiles: string[];
  /** Remote resources (URLs): rendering them needs the network. */
  readonly remote: string[];
  /** Fields that change the objects (patches, replicas, images, namePrefix, ...). */
  readonly transforms: string[];
  readonly helm: boolean;
  /** `kind: Component`: a fragment other kustomizations include, not buildable on its own. */
  readonly component: boolean;
  /**
   * Local entries of resources, bases or components that name nothing kustomize can read (a missing path, a folder
   * without a kustomization).
   */
  readonly unresolved: string[];
  /** The file's text and YAML as read (patchesTargeting asks again: not parsed twice). */
  readonly read: KustomizationText;
}

const TRANSFORMS = [
  'patches',
  'patchesStrategicMerge',
  'patchesJson6902',
  'replicas',
  'images',
  'namePrefix',
  'nameSuffix',
  'commonLabels',
  'labels',
  'commonAnnotations',
  'components',
  'replacements',
  'vars',
  'transformers',
  'configMapGenerator',
  'secretGenerator',
  'generators',
  'helmCharts',
  'buildMetadata',
  'validators',
];

/**
 * Per-scan memo of the folder questions asked once per scanned file (which folder above it holds a
 * kustomization; its text and YAML are read once, with the Kustomization): a repository with
 * hundreds of files under one kustomization asked the file system, and parsed the same
 * kustomization, once per file.
 */
export interface FolderMemo {
  readonly files: Map<string, string | undefined>;
}

export function kustomizationFileIn(dir: string, memo: FolderMemo): string | undefined {
  if (!memo.files.has(dir)) memo.files.set(dir, kustomizationFile(dir));
  return memo.files.get(dir);
}

export interface KustomizationText {
  readonly text: string;
  /** The parsed mapping; undefined when it is not one or did not read. */
  readonly doc: Record<string, unknown> | undefined;
  /** The file could not be read or parsed as YAML. */
  readonly failed: boolean;
}

/** A kustomization file's text and YAML (duplicate keys allowed, as kustomize's kyaml reads them). */
function readKustomizationText(file: string): KustomizationText {
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
    return { text, doc: rec(YAML.parse(text, { uniqueKeys: false })), failed: false };
  } catch {
    return { text, doc: undefined, failed: true };
  }
}

export function readKustomization(dir: string, cache: Map<string, Kustomization | null>): Kustomization | undefined {
  const hit = cache.get(dir);
  if (hit !== undefined) return hit ?? undefined;
  cache.set(dir, null); // a cycle reads as "none"
  const file = kustomizationFile(dir);
  if (!file) return undefined;
  const read = readKustomizationText(file);
  const { text, doc, failed } = read;
  if (failed) {
    // A kustomization that does not parse cannot be built, but the files it names as patches are
    // still fragments, not objects: read those names from its lines.
    const patchFiles = patchPathsFromText(text).map((p) => path.resolve(dir, p));
    if (patchFiles.length === 0) return undefined;
    const k: Kustomization = {
      dir,
      file,
      files: [],
      children: [],
      patchFiles,
      remote: [],
      transforms: ['patches'],
      helm: false,
      component: false,
      unresolved: [],
      read,
    };
    cache.set(dir, k);
    return k;
  }
  if (!doc) return undefined;
  const k: Kustomization = {
    dir,
    file,
    ...(str(doc.namespace) ? { namespace: str(doc.namespace) } : {}),
    files: [],
    children: [],
    patchFiles: [],
    remote: [],
    transforms: TRANSFORMS.filter((t) => doc![t] !== undefined && doc![t] !== null),
    helm: doc.helmCharts !== undefined || doc.helmChartInflationGenerator !== undefined,
    component: doc.kind === 'Component',
    unresolved: [],
    read,
  };
  const entries = [...arr(doc.resources), ...arr(doc.bases), ...arr(doc.components)]
    .map((x) => str(x))
    .filter((x): x is string => !!x);
  for (const e of entries) {
    if (REMOTE.test(e)) {
      k.remote.push(e);
      continue;
    }
    const abs = path.resolve(dir, e);
    let st: fs.Stats | undefined;
    try {
      st = fs.statSync(abs);
    } catch {
      k.unresolved.push(e);
      continue;
    }
    if (st.isDirectory()) {
      if (readKustomization(abs, cache)) k.children.push(abs);
      else k.unresolved.push(e);
    } else {
      k.files.push(abs);
    }
  }
  // Files a kustomization reads as patches (or replacement rules), not as resources: `patches`
  // entries with a path, or written as a bare path (kustomize v5.5.0 refuses that: "cannot
  // unmarshal string into Go struct field Kustomization.patches", so the build fails and RW010 says
  // so, but the file is still a fragment meant as a patch), patchesStrategicMerge (file names;
  // inline patches contain a newline), patchesJson6902 paths, and replacements read from a file.
  // A Component's patches are its own (walk() reaches it from the kustomization using it).
  const patchPaths = [
    ...arr(doc.patches).map((p) => str(p) ?? str(rec(p)?.path)),
    ...arr(doc.patchesStrategicMerge).map((p) => str(p)),
    ...arr(doc.patchesJson6902).map((p) => str(rec(p)?.path)),
    ...arr(doc.replacements).map((p) => str(rec(p)?.path)),
  ].filter((x): x is string => !!x && !x.includes('\n') && !REMOTE.test(x));
  for (const p of patchPaths) k.patchFiles.push(path.resolve(dir, p));
  cache.set(dir, k);
  return k;
}

const PATCH_KEYS = ['patches', 'patchesStrategicMerge', 'patchesJson6902', 'replacements'];

/**
 * The patch files a kustomization's text names, read line by line (for a kustomization that is
 * not valid YAML): under a top-level patch key, each `- file.yaml` item and each `path: file.yaml`.
 */
export function patchPathsFromText(text: string): string[] {
  const out: string[] = [];
  let inPatches = false;
  for (const line of text.split('\n')) {
    const top = /^([A-Za-z0-9_]+)\s*:/.exec(line);
    if (top) {
      inPatches = PATCH_KEYS.includes(top[1]);
      continue;
    }
    if (!inPatches) continue;
    const m = /^\s*(?:-\s*)?(?:path\s*:\s*)?["']?([^\s"'#:{}[\]]+\.(?:ya?ml|json))["']?\s*(?:#.*)?$/.exec(line);
    if (m) out.push(m[1]);
  }
  return out;
}

/** Whether a kustomization names a file in a comment (an entry commented out: `#- manager_auth_proxy_patch.yaml`). */
export function namesFileInComment(kustomizationFile: string, base: string): boolean {
  try {
    const name = new RegExp(`(^|[\\s/'"\\-:#])${base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![A-Za-z0-9_.-])`);
    return fs
      .readFileSync(kustomizationFile, 'utf8')
      .split('\n')
      .some((l) => l.trimStart().startsWith('#') && name.test(l));
  } catch {
    return false;
  }
}

const PATCHED_WORKLOADS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'ReplicaSet']);

/**
 * A workload that no API server would take as it is and no one would write whole: no spec.selector
 * (required for apps/v1) and a container without an image, or no containers at all (the image is
 * required too). That is the shape of a strategic-merge patch (kustomize merges it by kind and name
 * into the base: kubebuilder's manager_auth_proxy_patch.yaml names the manager container only to
 * add its args), not of an object.
 */
export function isPatchShaped(obj: Record<string, unknown>): boolean {
  if (typeof obj.kind !== 'string' || !PATCHED_WORKLOADS.has(obj.kind)) return false;
  const spec = rec(obj.spec);
  if (spec?.selector !== undefined) return false;
  const pod = rec(rec(spec?.template)?.spec);
  const cs = [...arr(pod?.containers), ...arr(pod?.initContainers)].map(rec);
  return cs.length === 0 || cs.some((c) => typeof c?.image !== 'string' || c.image === '');
}

/**
 * Whether kustomize's build of a root is exactly its resource files' objects, unchanged: no
 * kustomization of the tree transforms anything (TRANSFORMS) or sets a namespace, every entry
 * names a file or a kustomization folder, no folder is reached twice, and every file parses into
 * objects with a kind and a name, none a List and none marked config.kubernetes.io/local-config,
 * no two with the same kind, namespace and name. Then kustomize only concatenates the files: its
 * build accumulates the resources, then runs the generators, components, transformers and
 * validators the kustomization's fields configure, none here (kustomize v5.5.0
 * api/internal/target/kusttarget.go accumulateTarget, makeCustomizedResMap; a List is expanded by
 * api/resource/factory.go inlineAnyEmbeddedLists and a local-config object dropped by
 * KustTarget.IgnoreLocal). So its files are linted one by one, as a single kustomization of plain
 * resources is, without a kustomize process; otherwise kustomize renders it (and says why it fails,
 * if it does). Checked against `kubectl kustomize` on the burned held-out sets
 * (docs/lint-precision.md, Timing; scripts/kustomize-plain-check.js).
 */
export function plainAggregation(
  tree: readonly { k: Kustomization }[],
  source: (abs: string) => ParsedSource | undefined,
): boolean {
  // One kustomization's namespace is applied file by file as a scope default (its objects' own
  // namespace aside); across a tree, kustomize's outer namespace overriding inner ones is left to it.
  const namespaced = tree.length > 1 && tree.some((w) => w.k.namespace !== undefined);
  if (
    namespaced ||
    tree.some(
      (w) =>
        w.k.transforms.length > 0 || w.k.unresolved.length > 0 || w.k.remote.length > 0 || w.k.helm || w.k.component,
    )
  )
    return false;
  // a folder reached twice (a diamond) is accumulated twice by kustomize, and refused as a duplicate
  const reached = tree.flatMap((w) => w.k.children);
  if (new Set(reached).size !== reached.length || reached.length !== tree.length - 1) return false;
  const ids = new Set<string>();
  for (const w of tree) {
    for (const f of w.k.files) {
      const p = source(f);
      if (!p || p.problems.length > 0 || p.template || p.notManifests > 0) return false;
      for (const o of p.objects) {
        if (
          !o.name ||
          /List$/.test(o.kind) ||
          rec(rec(o.obj.metadata)?.annotations)?.['config.kubernetes.io/local-config'] !== undefined
        )
          return false;
        const group = o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : '';
        const id = `${group}/${o.kind}/${o.namespace ?? ''}/${o.name}`;
        if (ids.has(id)) return false;
        ids.add(id);
      }
    }
  }
  return true;
}

/** Every kustomization under a root, the root first, with the namespace that applies at each level. */
export function walk(
  root: Kustomization,
  cache: Map<string, Kustomization | null>,
): { k: Kustomization; namespace?: string; from?: string }[] {
  const out: { k: Kustomization; namespace?: string; from?: string }[] = [];
  const seen = new Set<string>();
  const visit = (k: Kustomization, ns: string | undefined, from: string | undefined): void => {
    if (seen.has(k.dir)) return;
    seen.add(k.dir);
    // kustomize's namespace transformer of an outer kustomization overrides the inner ones.
    const effective = ns ?? k.namespace;
    const source = ns !== undefined ? from : k.namespace !== undefined ? k.file : undefined;
    out.push({ k, namespace: effective, from: source });
    for (const c of k.children) {
      const ck = readKustomization(c, cache);
      if (ck) visit(ck, effective, source);
    }
  };
  visit(root, undefined, undefined);
  return out;
}

/** A folder named for OLM (`config/olm-default`, `olm_rbac`): a kustomization kept to feed a bundle. */
const OLM_NAMED = /(^|[-_.])olm([-_.]|$)/i;

/**
 * The roots of a scan with the OLM bundle inputs told apart. operator-sdk builds an OLM bundle from
 * a kustomize render piped to `operator-sdk generate bundle`: the render lists a base
 * ClusterServiceVersion (`generate kustomize manifests` scaffolds config/manifests with
 * `bases/<package>.clusterserviceversion.yaml`, `../default`, `../samples`, `../scorecard`:
 * operator-framework/operator-sdk v1.42.3 internal/cmd/operator-sdk/generate/kustomize/manifests.go
 * and internal/plugins/manifests/v2/templates/config/manifests/kustomization.go), and the command
 * reads the stream into typed objects with sigs.k8s.io/yaml, which drops unknown fields
 * (internal/generate/collector/manifests.go updateFromReader), then writes the Deployments and
 * webhook configurations into the ClusterServiceVersion (internal/generate/clusterserviceversion/
 * clusterserviceversion_updaters.go: a webhook becomes a webhookdefinition, whose containerPort
 * it takes from the Service). OLM installs the bundle; kubectl never applies that render. So a
 * root whose tree lists a file holding a ClusterServiceVersion is a bundle input, not shown to be
 * applied as written (cloudnative-pg/cloudnative-pg's Makefile olm-bundle target pipes
 * `kustomize build config/olm-manifests` to `operator-sdk generate bundle`).
 *
 * What such a tree includes may also be applied on its own (`make deploy` builds config/default;
 * cloudnative-pg's Makefile writes `kustomize build config/default` as its release manifest): each
 * kustomization of a bundle tree that no other root includes, that is not named for OLM, and whose
 * includers in the tree are the bundle root or named for OLM (config/default under
 * config/olm-default), is rendered as a root of its own as well, and is checked as applied.
 */
export function withBundleInputs(
  topRoots: readonly Kustomization[],
  cache: Map<string, Kustomization | null>,
  source: (abs: string) => ParsedSource | undefined,
  shown: (abs: string) => string,
  scanned: ReadonlyMap<string, string>,
): { roots: Kustomization[]; bundles: Map<string, string> } {
  const bundles = new Map<string, string>();
  // A file outside the scan is parsed only when its text names the kind (most are not read at all).
  const mayHold = (f: string): boolean => {
    if (scanned.has(f)) return true;
    try {
      return /^kind:\s*["']?ClusterServiceVersion/m.test(fs.readFileSync(f, 'utf8'));
    } catch {
      return false;
    }
  };
  for (const root of topRoots) {
    for (const w of walk(root, cache)) {
      const csv = w.k.files.find(
        (f) =>
          mayHold(f) &&
          source(f)?.objects.some(
            (o) => o.kind === 'ClusterServiceVersion' && o.apiVersion.startsWith('operators.coreos.com/'),
          ),
      );
      if (csv !== undefined) {
        bundles.set(
          root.dir,
          `${shown(root.file)} lists the ClusterServiceVersion ${shown(csv)}: its render is an OLM bundle input, ` +
            'which operator-sdk generate bundle reads into the ClusterServiceVersion (unknown fields dropped) and ' +
            'OLM installs; kubectl does not apply it',
        );
        break;
      }
    }
  }
  if (bundles.size === 0) return { roots: [...topRoots], bundles };
  const elsewhere = new Set(
    topRoots.filter((r) => !bundles.has(r.dir)).flatMap((r) => walk(r, cache).map((w) => w.k.dir)),
  );
  const olmOnly = (k: Kustomization): boolean => bundles.has(k.dir) || OLM_NAMED.test(path.basename(k.dir));
  const extra = new Map<string, Kustomization>();
  for (const root of topRoots.filter((r) => bundles.has(r.dir))) {
    const tree = walk(root, cache);
    const parents = new Map<string, Kustomization[]>();
    for (const w of tree) for (const c of w.k.children) (parents.get(c) ?? parents.set(c, []).get(c)!).push(w.k);
    for (const w of tree.slice(1)) {
      if (olmOnly(w.k) || w.k.component || elsewhere.has(w.k.dir) || bundles.has(w.k.dir)) continue;
      if ((parents.get(w.k.dir) ?? []).every(olmOnly)) extra.set(w.k.dir, w.k);
    }
  }
  return { roots: [...topRoots, ...extra.values()], bundles };
}

/**
 * Whether a kustomization tree passes its resources through unchanged: no field that changes
 * objects (TRANSFORMS: patches, generators, replacements, transformers, name prefixes, images...),
 * no Helm chart, no Component, and every local entry resolved (else the build fails). A namespace
 * is not a change that the cluster stage would see differently.
 */
export function unchangedTree(tree: readonly { k: Kustomization }[]): boolean {
  return tree.every((w) => w.k.transforms.length === 0 && w.k.unresolved.length === 0 && !w.k.helm && !w.k.component);
}

/** A `key=value,key2=value2` label selector (equality only) matched against labels; undefined: not understood. */
function selectorMatches(selector: string, labels: Record<string, unknown>): boolean | undefined {
  const terms = selector
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  let all = true;
  for (const t of terms) {
    const m = /^([A-Za-z0-9./_-]+)\s*(==|=|!=)\s*([A-Za-z0-9._-]*)$/.exec(t);
    if (!m) return undefined;
    const has = str(labels[m[1]]) === m[3];
    all &&= m[2] === '!=' ? !has : has;
  }
  return all;
}

/** The pointers a JSON 6902 patch (inline YAML or JSON list of operations) adds or replaces. */
function patchPointers(text: string): string[] {
  try {
    return arr(YAML.parse(text))
      .map(rec)
      .filter((op) => op && (op.op === 'add' || op.op === 'replace'))
      .map((op) => str(op!.path))
      .filter((x): x is string => !!x);
  } catch {
    return [];
  }
}

/**
 * For a file that no kustomization of the scan includes: the JSON 6902 patches of a kustomization
 * in a folder above it that names the file (as a resource, or in a commented-out entry, as
 * cloud-native-toolkit/multi-tenancy-gitops 0-bootstrap/single-cluster/3-apps/kustomization.yaml
 * does) and whose `target` selects the object (kind, group, name, labelSelector; kustomize v5.5.0
 * api/types/selector.go). The pointers they add are supplied, not missing, once the entry is on.
 */
export function patchesTargeting(
  abs: string,
  objs: readonly LintObject[],
  repoRoot: string,
  cache: Map<string, Kustomization | null>,
  memo: FolderMemo,
): Map<LintObject, { pointers: string[]; by: string }> {
  const out = new Map<LintObject, { pointers: string[]; by: string }>();
  if (objs.length === 0 || !abs.startsWith(`${repoRoot}${path.sep}`)) return out;
  for (let dir = path.dirname(abs); dir.startsWith(repoRoot); dir = path.dirname(dir)) {
    const file = kustomizationFileIn(dir, memo);
    const k = file ? readKustomization(dir, cache) : undefined;
    if (file && k) {
      const { text, doc } = k.read;
      const rel = path.relative(dir, abs).split(path.sep).join('/');
      const names =
        doc &&
        (arr(doc.resources).some((r) => str(r) === rel || str(r) === `./${rel}`) ||
          text.split('\n').some((l) => /^\s*#/.test(l) && l.includes(rel)));
      if (doc && names) {
        const patches = [...arr(doc.patches), ...arr(doc.patchesJson6902)]
          .map(rec)
          .filter((x): x is Record<string, unknown> => !!x);
        for (const o of objs) {
          const labels = rec(rec(o.obj.metadata)?.labels) ?? {};
          const pointers: string[] = [];
          for (const pt of patches) {
            const t = rec(pt.target);
            const inline = str(pt.patch);
            if (!t || inline === undefined) continue;
            if (str(t.kind) !== undefined && str(t.kind) !== o.kind) continue;
            if (str(t.name) !== undefined && str(t.name) !== o.name) continue;
            if (
              str(t.group) !== undefined &&
              str(t.group) !== (o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : '')
            )
              continue;
            const sel = str(t.labelSelector);
            if (sel !== undefined && selectorMatches(sel, labels) !== true) continue;
            if (t.annotationSelector !== undefined) continue;
            pointers.push(...patchPointers(inline));
          }
          if (pointers.length > 0) out.set(o, { pointers, by: path.relative(process.cwd(), file) });
        }
        return out;
      }
    }
    if (dir === repoRoot) break;
  }
  return out;
}
