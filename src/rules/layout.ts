import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as YAML from 'yaml';
import { ENGINE_RULES } from './catalogue';
import { arr, rec, str } from './k8s';
import { KUSTOMIZATION_FILES, kustomizationFile, REMOTE } from './kustomization-files';
import {
  ContentHasher,
  ParsedRender,
  readCachedRender,
  readParsedRender,
  renderCacheDir,
  renderKey,
  writeCachedRender,
  writeParsedRender,
} from './render-cache';
import { ObjectScope, ownScope } from './scope';
import { LintObject, objectWithLines, parseManifestText, ParsedSource } from './source';
import { Finding, FindingValue, ParseProblem } from './types';

/**
 * How the files of a scan are deployed: the kustomizations that include them (rendered with
 * kustomize where it is installed, else read file by file with their namespace defaults) and the
 * Argo CD Applications that sync their folders. The result is what the engine lints: the objects,
 * each with its scope (scope.ts), and notes about what could not be rendered.
 */

/** A program that renders a kustomization: `kustomize build <dir>` or `kubectl kustomize <dir>`. */
export interface KustomizeRenderer {
  readonly command: string;
  readonly args: readonly string[];
  /** How findings name it: `kubectl kustomize` or `kustomize build`. */
  readonly label: string;
}

/** An executable on PATH, or undefined. */
function onPath(name: string, pathVar: string | undefined): string | undefined {
  for (const dir of (pathVar ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      if (fs.statSync(p).isFile()) return p;
    } catch {
      // not here
    }
  }
  return undefined;
}

function rendererFor(bin: string): KustomizeRenderer {
  return /kubectl[^/]*$/.test(path.basename(bin))
    ? { command: bin, args: ['kustomize'], label: 'kubectl kustomize' }
    : { command: bin, args: ['build'], label: 'kustomize build' };
}

/**
 * The kustomize renderer to use: `ROLLWISE_KUSTOMIZE` (a path to kustomize or kubectl, or `off`),
 * else `kustomize` on PATH, else `kubectl` on PATH (kubectl has embedded kustomize since 1.14).
 * Undefined when none is found: each file is then linted alone, with a note.
 */
export function findKustomize(env: NodeJS.ProcessEnv = process.env): KustomizeRenderer | undefined {
  const set = env.ROLLWISE_KUSTOMIZE;
  if (set !== undefined && set !== '') return set === 'off' ? undefined : rendererFor(set);
  const bin = onPath('kustomize', env.PATH) ?? onPath('kubectl', env.PATH);
  return bin ? rendererFor(bin) : undefined;
}

/** What a kustomization file says, as far as scoping and rendering need it. */
interface Kustomization {
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
interface FolderMemo {
  readonly files: Map<string, string | undefined>;
}

function kustomizationFileIn(dir: string, memo: FolderMemo): string | undefined {
  if (!memo.files.has(dir)) memo.files.set(dir, kustomizationFile(dir));
  return memo.files.get(dir);
}

interface KustomizationText {
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

function readKustomization(dir: string, cache: Map<string, Kustomization | null>): Kustomization | undefined {
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
function namesFileInComment(kustomizationFile: string, base: string): boolean {
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
function plainAggregation(
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
        const id = `${o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : ''}/${o.kind}/${o.namespace ?? ''}/${o.name}`;
        if (ids.has(id)) return false;
        ids.add(id);
      }
    }
  }
  return true;
}

/** Every kustomization under a root, the root first, with the namespace that applies at each level. */
function walk(
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
function withBundleInputs(
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

export interface LayoutInput {
  readonly file: string;
  readonly text: string;
}

export interface LayoutOptions {
  /** The renderer; `null` never renders. @default findKustomize() */
  readonly kustomize?: KustomizeRenderer | null;
  /** The repository root, for Argo CD Application source paths. @default - the working directory */
  readonly repoRoot?: string;
  /** Seconds a render may take. @default 60 */
  readonly renderTimeoutSeconds?: number;
  /** Where renders are cached (render-cache.ts); `null` caches nothing. @default renderCacheDir() */
  readonly renderCache?: string | null;
}

export interface Layout {
  readonly objects: LintObject[];
  readonly problems: ParseProblem[];
  readonly scopes: Map<LintObject, ObjectScope>;
  readonly notes: Finding[];
  /** Per input file, as parsed (for the scan summary). */
  readonly parsed: ReadonlyMap<string, ParsedSource>;
  /**
   * Per input file read file by file: what shows it is applied as it is written (the evidence of
   * ObjectScope.appliedAsIs, for the file itself), for the error gate (applied-gate.ts) on findings
   * about a document (RW000, RW001), which may have no object.
   */
  readonly appliedFiles: ReadonlyMap<string, string>;
}

/** A note finding about a kustomization (RW010) at its file. */
function note(file: string, message: string, values: Record<string, FindingValue>): Finding {
  const r = ENGINE_RULES.kustomizationNotRendered;
  return {
    ruleId: r.id,
    severity: r.severity,
    file,
    line: 0,
    kind: 'Kustomization',
    name: path.dirname(file),
    object: `Kustomization/${path.dirname(file)}`,
    path: '',
    message,
    mechanism: `${r.mechanism} (${r.fieldNotes})`,
    fix: r.fix,
    values,
    status: 'open',
  };
}

const ORIGIN = 'config.kubernetes.io/origin';

/** A render's output, with its cache key when cached, or its parsed form when that was cached (render-cache.ts). */
type Rendered = { text: string; base: string; key?: string; parsed?: ParsedRender } | { error: string };

/** What one kustomize process gave: its exit, output, or why it did not run. */
interface ProcessResult {
  readonly status?: number | null;
  readonly stdout?: string;
  readonly stderr?: string;
  readonly error?: string;
}

/**
 * A helper process that runs `command args dir` for each folder, at most `jobs` at a time, and
 * writes the results as JSON (layoutScan is synchronous, so the concurrency lives in a child).
 */
const POOL = `
const { spawn } = require('child_process');
let input = '';
process.stdin.on('data', (d) => { input += d; }).on('end', () => {
  const { command, args, dirs, jobs, timeoutMs } = JSON.parse(input);
  const out = new Array(dirs.length);
  let next = 0, running = 0;
  const finish = () => { if (running === 0 && next >= dirs.length) process.stdout.write(JSON.stringify(out)); else start(); };
  const start = () => {
    while (running < jobs && next < dirs.length) {
      const i = next++;
      running++;
      const so = [], se = [];
      let done = false;
      const p = spawn(command, [...args, dirs[i]], { stdio: ['ignore', 'pipe', 'pipe'] });
      const t = setTimeout(() => { p.kill('SIGKILL'); }, timeoutMs);
      const end = (r) => { if (done) return; done = true; clearTimeout(t); out[i] = r; running--; finish(); };
      p.stdout.on('data', (d) => so.push(d));
      p.stderr.on('data', (d) => se.push(d));
      p.on('error', (e) => end({ error: e.message }));
      p.on('close', (status, signal) => end(signal ? { error: 'spawnSync ' + command + ' ' + (signal === 'SIGKILL' ? 'ETIMEDOUT' : signal) } : { status, stdout: Buffer.concat(so).toString('utf8'), stderr: Buffer.concat(se).toString('utf8') }));
    }
  };
  if (dirs.length === 0) finish(); else start();
});
`;

/** How many renders run at once: ROLLWISE_KUSTOMIZE_JOBS, else one per CPU. */
function renderJobs(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.ROLLWISE_KUSTOMIZE_JOBS);
  if (Number.isInteger(n) && n >= 1) return n;
  return Math.max(1, typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length);
}

/**
 * The environment of a kustomize process: the scan's, with Go's collector set to run less often
 * (GOGC=400, a soft cap of GOMEMLIMIT=1GiB) unless either is set already. kustomize (kubectl 1.32,
 * go1.23) spends much of a render of megabytes of CRDs collecting garbage: `kubectl kustomize` of
 * a 3 MB CRD tree took 2.3-2.5 s user CPU at the default GOGC=100 and 1.3-1.4 s at 400 (peak
 * resident 190 MB then 400-470 MB); the output is the same. GOGC is the collection target
 * percentage and GOMEMLIMIT a soft limit on the runtime's memory past which it collects anyway
 * (golang/go go1.23 src/runtime/extern.go, package runtime's "Environment Variables").
 */
export function renderEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  if (env.GOGC !== undefined || env.GOMEMLIMIT !== undefined) return env;
  return { ...env, GOGC: '400', GOMEMLIMIT: '1GiB' };
}

/**
 * Renders kustomization roots with origin annotations, each through a wrapper kustomization in a
 * temporary folder; independent roots render concurrently (renderJobs), each in its own kustomize
 * process as before, so a root's result does not depend on the others. A render whose inputs are
 * unchanged since a cached one is taken from `cacheDir` (render-cache.ts) without a process.
 */
function renderAll(
  roots: readonly Kustomization[],
  r: KustomizeRenderer,
  timeoutSeconds: number,
  cacheDir: string | undefined,
  repoRoot: string,
): Map<string, Rendered> {
  const out = new Map<string, Rendered>();
  if (roots.length === 0) return out;
  const hasher = new ContentHasher();
  const keys = new Map<string, string>();
  const done = new Map<string, ProcessResult & { base: string; parsed?: ParsedRender }>();
  if (cacheDir !== undefined) {
    for (const root of roots) {
      const key = renderKey(root.dir, r.command, r.args, hasher, process.env, repoRoot);
      if (key === undefined) continue;
      keys.set(root.dir, key);
      const parsed = readParsedRender(cacheDir, key); // stored only for a render that succeeded
      const hit = parsed ? { status: 0, ...parsed } : readCachedRender(cacheDir, key);
      if (hit) done.set(root.dir, hit);
    }
  }
  const todo = roots.filter((root) => !done.has(root.dir));
  const tmps = todo.map((root) => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-kustomize-'));
    const rel = path.relative(tmp, root.dir).split(path.sep).join('/');
    fs.writeFileSync(
      path.join(tmp, 'kustomization.yaml'),
      `buildMetadata: [originAnnotations]\nresources:\n- ${JSON.stringify(rel)}\n`,
    );
    return tmp;
  });
  try {
    const jobs = Math.min(renderJobs(), todo.length);
    let results: ProcessResult[] | undefined;
    if (jobs > 1) {
      const res = spawnSync(process.execPath, ['-e', POOL], {
        input: JSON.stringify({ command: r.command, args: r.args, dirs: tmps, jobs, timeoutMs: timeoutSeconds * 1000 }),
        encoding: 'utf8',
        maxBuffer: 2 * 1024 * 1024 * 1024,
        env: renderEnv(),
      });
      try {
        if (res.status === 0) results = JSON.parse(res.stdout) as ProcessResult[];
      } catch {
        results = undefined; // the helper failed: render one by one below
      }
    }
    results ??= tmps.map((tmp) => {
      const res = spawnSync(r.command, [...r.args, tmp], {
        encoding: 'utf8',
        timeout: timeoutSeconds * 1000,
        maxBuffer: 256 * 1024 * 1024,
        env: renderEnv(),
      });
      return res.error ? { error: res.error.message } : { status: res.status, stdout: res.stdout, stderr: res.stderr };
    });
    todo.forEach((root, i) => {
      const res = results![i];
      done.set(root.dir, { ...res, base: tmps[i] });
      const key = keys.get(root.dir);
      // A render that did not finish (timeout, no process) may succeed next time: not cached.
      if (cacheDir !== undefined && key !== undefined && res.error === undefined) {
        writeCachedRender(cacheDir, key, {
          status: res.status ?? null,
          stdout: res.stdout ?? '',
          stderr: res.stderr ?? '',
          base: tmps[i],
        });
      }
    });
    for (const root of roots) {
      const res = done.get(root.dir)!;
      if (res.error !== undefined) out.set(root.dir, { error: res.error });
      else if (res.status !== 0)
        out.set(root.dir, { error: renderError(res.stderr || res.stdout || `exit ${res.status}`, root.dir) });
      else out.set(root.dir, { text: res.stdout ?? '', base: res.base, key: keys.get(root.dir), parsed: res.parsed });
    }
    return out;
  } finally {
    for (const tmp of tmps) fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** The reason in kustomize's (or kubectl's) error output, without its deprecation warnings and log prefix. */
function renderError(out: string, rootDir: string): string {
  const lines = out
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('# Warning'));
  const at0 = lines.findIndex((l) => /err=|^Error:/.test(l));
  let line = lines[at0] ?? lines[lines.length - 1] ?? out.trim();
  // klog's multi-line value (k8s.io/klog/v2 textlogger, as kubectl 1.32 logs "command failed"):
  // `E1203 16:03:50.253262 11304 run.go:72] "command failed" err=<`, the error's lines, then `>`.
  // The header's time and process id would make the same failure a different message every run.
  if (at0 >= 0 && /err=<$/.test(line)) {
    const end = lines.indexOf('>', at0 + 1);
    line = lines.slice(at0 + 1, end < 0 ? undefined : end).join(' ');
  }
  line = line.replace(/^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ [^\]]*\] /, '');
  const quoted = /err="(.*)"\s*$/.exec(line);
  let text = (quoted ? quoted[1].replace(/\\"/g, '"') : line.replace(/^Error:\s*/, '')).replace(/\s+/g, ' ');
  // Drop the layer our wrapper kustomization adds ("accumulating resources from '../<tmp>...").
  const inner = `recursed accumulation of path '${rootDir}': `;
  const at = text.indexOf(inner);
  if (at >= 0) text = text.slice(at + inner.length);
  // Paths as the user typed them: relative to the working directory.
  text = text.split(`${process.cwd()}${path.sep}`).join('');
  return text.length > 400 ? `...${text.slice(-400)}` : text;
}

/**
 * kustomize's output read one document at a time: it writes each object as one document after a
 * `---` line of its own (kustomize v5.5.0 kustomize/commands/build/build.go writes
 * `m.AsYaml()`, and api/resmap/reswrangler.go AsYaml joins the objects' YAML with "---\n"), and the objects' YAML is
 * go-yaml's, where every line of a value is indented
 * under its key, so a line that is exactly `---` only separates documents. Reading each on its own
 * gives the same objects as reading the whole text, but a document the fast reader leaves to the
 * `yaml` package no longer sends the whole output there, and a document that several roots render
 * alike (a base's CRDs under each overlay, their origin annotations included) is parsed once per
 * scan (`memo`, by its text). Each use gets its own copy of the objects: the caller edits them.
 * The problems' lines are the output's lines.
 */
function parseRendered(
  text: string,
  file: string,
  memo: Map<string, ParsedSource>,
): { objects: { obj: Record<string, unknown>; kind: string; name: string }[]; problems: ParseProblem[] } {
  const objects: { obj: Record<string, unknown>; kind: string; name: string }[] = [];
  const problems: ParseProblem[] = [];
  // Documents are cut out of the text by offset (no split of megabytes into lines and join back):
  // `start` is the offset of the current document, which ends before the newline that precedes a
  // line that is exactly `---` (or at the end of the text).
  let start = 0;
  const flush = (end: number): void => {
    const doc = text.slice(start, end);
    let p = memo.get(doc);
    if (p === undefined) {
      p = parseManifestText(doc, file);
      memo.set(doc, p);
    }
    for (const o of p.objects) objects.push({ obj: structuredClone(o.obj), kind: o.kind, name: o.name });
    if (p.problems.length === 0) return;
    // Lines before the document: counted only when a problem needs them.
    let before = 0;
    for (let i = text.indexOf('\n'); i >= 0 && i < start; i = text.indexOf('\n', i + 1)) before++;
    for (const x of p.problems) problems.push({ ...x, file, line: x.line > 0 ? x.line + before : x.line });
  };
  for (let at = text.indexOf('---'); at >= 0; at = text.indexOf('---', at + 1)) {
    const end = at + 3;
    if ((at !== 0 && text[at - 1] !== '\n') || (end !== text.length && text[end] !== '\n')) continue;
    flush(at === start ? start : at - 1);
    start = Math.min(end + 1, text.length);
  }
  flush(text.length);
  return { objects, problems };
}

/** Whether a parsed object has a value at a JSON pointer (`/webhooks/0/clientConfig/service/port`). */
function hasPointer(obj: unknown, pointer: string): boolean {
  let v: unknown = obj;
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(v) && /^\d+$/.test(seg)) v = v[Number(seg)];
    else if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.prototype.hasOwnProperty.call(v, seg))
      v = (v as Record<string, unknown>)[seg];
    else return false;
    if (v === undefined) return false;
  }
  return true;
}

/**
 * Which part of a rendered tree writes a field its object's file lacks: the first patch file of
 * the tree whose text has the field's key (`containerPort:` in a strategic-merge patch, `/containerPort`
 * in a JSON 6902 one), else the first kustomization of the tree whose own text has it (an inline
 * patch). Read as text: kustomize applies patches by target, and which one wrote a field is not in
 * its output (the origin annotation names only the resource's file).
 */
function patchAdding(
  tree: readonly { k: Kustomization }[],
  pointer: string,
  shown: (abs: string) => string,
): string | undefined {
  const key = pointer
    .split('/')
    .slice(1)
    .reverse()
    .find((s) => !/^\d+$/.test(s) && s !== '-')
    ?.replace(/~1/g, '/')
    .replace(/~0/g, '~');
  if (key === undefined) return undefined;
  const esc = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`(^|[\\s{,"'/-])${esc}("|'|)\\s*:|/${esc}(["'\\s]|$)`, 'm');
  const text = (f: string): string => {
    try {
      return fs.readFileSync(f, 'utf8');
    } catch {
      return '';
    }
  };
  for (const w of tree) for (const f of w.k.patchFiles) if (re.test(text(f))) return shown(f);
  for (const w of tree)
    if (
      w.k.transforms.length > 0 &&
      re.test(
        text(w.k.file)
          .split('\n')
          .filter((l) => !/^\s*#/.test(l))
          .join('\n'),
      )
    )
      return `a patch in ${shown(w.k.file)}`;
  return undefined;
}

/**
 * Removes the origin annotation kustomize added for us (and an annotations map it alone made), and
 * gives its path. `paths` holds the annotations read in this scan: the objects of one file (a
 * bundle of CRDs) share one annotation, under every root that renders them.
 */
function takeOrigin(obj: Record<string, unknown>, paths: Map<string, string | undefined>): string | undefined {
  const meta = rec(obj.metadata);
  const ann = rec(meta?.annotations);
  const origin = str(ann?.[ORIGIN]);
  if (ann && origin !== undefined) {
    delete ann[ORIGIN];
    if (Object.keys(ann).length === 0) delete meta!.annotations;
  }
  if (!origin) return undefined;
  if (!paths.has(origin)) paths.set(origin, str(rec(YAML.parse(origin))?.path));
  return paths.get(origin);
}

/**
 * Reads the inputs, renders the kustomizations it can, and gives every object its scope. A file
 * that every kustomization including it rendered is linted as rendered; the others file by file.
 */
export function layoutScan(inputs: readonly LayoutInput[], opts: LayoutOptions = {}): Layout {
  const renderer = opts.kustomize === undefined ? findKustomize() : (opts.kustomize ?? undefined);
  const parsed = new Map<string, ParsedSource>();
  for (const i of inputs) parsed.set(i.file, parseManifestText(i.text, i.file));
  const byAbs = new Map<string, string>();
  for (const i of inputs) if (!i.file.startsWith('<')) byAbs.set(path.resolve(i.file), i.file);
  const shown = (abs: string): string => byAbs.get(abs) ?? path.relative(process.cwd(), abs);

  // The kustomizations of the scan and their roots (those no other kustomization of the scan includes).
  const cache = new Map<string, Kustomization | null>();
  const memo: FolderMemo = { files: new Map() };
  const dirs = new Set<string>();
  const looked = new Set<string>();
  for (const i of inputs) {
    if (i.file.startsWith('<')) continue;
    const dir = path.resolve(path.dirname(i.file));
    if (KUSTOMIZATION_FILES.includes(path.basename(i.file))) {
      dirs.add(dir);
      continue;
    }
    // An extension-less `Kustomization` is not among the scanned files: look once per folder.
    if (!looked.has(dir)) {
      looked.add(dir);
      if (kustomizationFileIn(dir, memo)) dirs.add(dir);
    }
  }
  const ks = [...dirs].map((d) => readKustomization(d, cache)).filter((k): k is Kustomization => !!k);
  const included = new Set<string>();
  for (const k of ks) for (const w of walk(k, cache).slice(1)) included.add(w.k.dir);
  const topRoots = ks.filter((k) => !included.has(k.dir));
  // A file's parse: a scanned file's, else the file read once per scan.
  const fromDisk = new Map<string, ParsedSource | undefined>();
  const source = (abs: string): ParsedSource | undefined => {
    const shownName = byAbs.get(abs);
    if (shownName !== undefined) return parsed.get(shownName);
    if (!fromDisk.has(abs)) {
      try {
        fromDisk.set(abs, parseManifestText(fs.readFileSync(abs, 'utf8'), shown(abs)));
      } catch {
        fromDisk.set(abs, undefined);
      }
    }
    return fromDisk.get(abs);
  };
  // Only renders differ for a bundle input; without a renderer every tree is read file by file.
  const { roots, bundles } = renderer
    ? withBundleInputs(topRoots, cache, source, shown, byAbs)
    : { roots: topRoots, bundles: new Map<string, string>() };

  /** Per absolute file: the roots that include it, the namespace each gives it. */
  const membership = new Map<string, { root: Kustomization; namespace?: string; from?: string }[]>();
  const patchFiles = new Set<string>();
  for (const root of roots) {
    for (const w of walk(root, cache)) {
      for (const f of w.k.files)
        (membership.get(f) ?? membership.set(f, []).get(f)!).push({ root, namespace: w.namespace, from: w.from });
      for (const p of w.k.patchFiles) patchFiles.add(p);
    }
  }
  // A kustomization above the scanned folders (lint given overlays/prod/patches/ alone) can still
  // name a scanned file as its patch: its folder is not rendered or linted, only read for that.
  const repoRoot = path.resolve(opts.repoRoot ?? process.cwd());
  for (const i of inputs) {
    if (i.file.startsWith('<')) continue;
    const abs = path.resolve(i.file);
    if (patchFiles.has(abs) || membership.has(abs) || !abs.startsWith(`${repoRoot}${path.sep}`)) continue;
    for (let dir = path.dirname(path.dirname(abs)); dir.startsWith(repoRoot); dir = path.dirname(dir)) {
      if (!dirs.has(dir) && kustomizationFileIn(dir, memo)) {
        const k = readKustomization(dir, cache);
        if (k && walk(k, cache).some((w) => w.k.patchFiles.includes(abs))) {
          patchFiles.add(abs);
          break;
        }
      }
      if (dir === repoRoot) break;
    }
  }

  // A file beside a kustomization that does not list it as a resource is not part of that build.
  // When the kustomization names it in a comment (a patch entry commented out, as kubebuilder's
  // config/default ships manager_auth_proxy_patch.yaml), or every object in it has the shape of a
  // strategic-merge patch (a workload with neither a selector nor any container image), it is a
  // patch kept for later, not an object anyone applies as it is.
  for (const i of inputs) {
    if (i.file.startsWith('<')) continue;
    const abs = path.resolve(i.file);
    if (patchFiles.has(abs) || membership.has(abs) || KUSTOMIZATION_FILES.includes(path.basename(abs))) continue;
    const k = readKustomization(path.dirname(abs), cache);
    if (!k) continue;
    const objs = parsed.get(i.file)!.objects;
    if (objs.length === 0) continue;
    if (namesFileInComment(k.file, path.basename(abs)) || objs.every((o) => isPatchShaped(o.obj))) patchFiles.add(abs);
  }

  const objects: LintObject[] = [];
  const problems: ParseProblem[] = [];
  const scopes = new Map<LintObject, ObjectScope>();
  const notes: Finding[] = [];
  const rendered = new Set<string>();
  /** Objects of OLM bundle inputs' renders, added after the other renders (withBundleInputs). */
  const bundleObjects: { obj: LintObject; scope: ObjectScope }[] = [];
  const readmes = new Map<string, string[]>();
  const appliedFiles = new Map<string, string>();
  const docs = new Map<string, DocApply[]>();
  /** Roots kustomize failed to render: nothing of theirs is shown to be applied. */
  const failed = new Set<string>();

  // The roots kustomize renders (the loop below says why each other root is not), all at once.
  // A kustomization that only gathers files (one, or a tree of them) is read file by file; one that
  // gathers what kustomize would change or refuse (a List it expands, a missing file, a duplicate)
  // is rendered like one that transforms.
  // Only worth knowing where kustomize could render instead (without it, every root is read file by file).
  const plain = new Set(
    renderer ? roots.filter((root) => plainAggregation(walk(root, cache), source)).map((r) => r.dir) : [],
  );
  const renderable = (root: Kustomization): boolean => {
    const tree = walk(root, cache);
    return !plain.has(root.dir) && !root.component && !tree.some((w) => w.k.remote.length > 0 || w.k.helm);
  };
  const renderedDocs = new Map<string, ParsedSource>();
  const originPaths = new Map<string, string | undefined>();
  const renderCache = opts.renderCache === undefined ? renderCacheDir() : (opts.renderCache ?? undefined);
  const renders = renderer
    ? renderAll(roots.filter(renderable), renderer, opts.renderTimeoutSeconds ?? 60, renderCache, repoRoot)
    : new Map<string, Rendered>();

  for (const root of roots) {
    const tree = walk(root, cache);
    const transforms = [...new Set(tree.flatMap((w) => w.k.transforms))];
    const remote = tree.flatMap((w) => w.k.remote);
    const helm = tree.some((w) => w.k.helm);
    const rootFile = shown(root.file);
    const patches = tree.flatMap((w) => w.k.patchFiles).map(shown);
    const skipped = patches.length
      ? '; patch ' +
        `files ${patches.slice(0, 4).join(', ')}${patches.length > 4 ? ` and ${patches.length - 4} more` : ''} were ` +
        'skipped'
      : '';
    const without = `without ${
      transforms.length ? transforms.join(', ') : 'what kustomize changes (its bases ' + 'resolved as one build)'
    }${skipped}`;
    // plain resources (and a namespace, in a single kustomization): file by file is the same
    if (plain.has(root.dir)) continue;
    // One kustomization of resources that cannot be rendered here (no renderer, or remote entries):
    // file by file, as always, without a note.
    if (tree.length === 1 && transforms.length === 0 && (!renderer || remote.length > 0 || helm)) continue;
    if (root.component) continue; // a Component no kustomization of the scan uses: nothing to render
    if (!renderer) {
      notes.push(
        note(
          rootFile,
          'kustomize is not installed (neither kustomize nor kubectl on PATH, ROLLWISE_KUSTOMIZE unset), so the files ' +
            `of ${path.dirname(rootFile)} were linted one by ` +
            `one${root.namespace ? `, with its namespace ${root.namespace},` : ''} ${without}.`,
          { kustomization: rootFile },
        ),
      );
      continue;
    }
    if (remote.length > 0 || helm) {
      notes.push(
        note(
          rootFile,
          'not rendered: ' +
            `it ${
              remote.length
                ? `includes remote resources (${remote.slice(0, 2).join(', ')}), which need the network`
                : 'inflates Helm charts (helmCharts needs ' + '--enable-helm)'
            }; ` +
            `its local files were linted one by one, ${without}.`,
          { kustomization: rootFile },
        ),
      );
      continue;
    }
    const out = renders.get(root.dir)!;
    if ('error' in out) {
      failed.add(root.dir);
      notes.push(
        note(
          rootFile,
          `${renderer.label} ${path.dirname(rootFile)} failed (${out.error}); its files were linted one by ` +
            `one, ${without}.`,
          { kustomization: rootFile },
        ),
      );
      continue;
    }
    rendered.add(root.dir);
    const renderFolder = path.dirname(rootFile);
    const label = `${renderer.label} ${renderFolder}`;
    const outFile = `${rootFile} (${renderer.label})`;
    // A warm cache gives the parsed form (JSON) instead of YAML to parse again; stored before the
    // loop below edits the objects (takeOrigin).
    const docs = out.parsed
      ? { objects: out.parsed.objects, problems: out.parsed.problems.map((p) => ({ ...p, file: outFile })) }
      : parseRendered(out.text, outFile, renderedDocs);
    if (!out.parsed && out.key !== undefined && renderCache !== undefined)
      writeParsedRender(renderCache, out.key, out.base, docs);
    problems.push(...docs.problems);
    for (const o of docs.objects) {
      const origin = takeOrigin(o.obj, originPaths);
      const abs = origin ? path.resolve(out.base, origin) : undefined;
      // The origin file as parsed: a scanned file's parse, else the file read once per scan (source()
      // above), not once per rendered object: several roots render the same unscanned base files.
      // Looked up when a line is first asked for (a finding), not for every rendered object.
      let twin: LintObject | undefined | null = null;
      const twinOf = (): LintObject | undefined => {
        if (twin === null)
          twin = (abs ? source(abs) : undefined)?.objects.find(
            (s) => s.kind === o.kind && (s.name === o.name || o.name.endsWith(s.name) || o.name.startsWith(s.name)),
          );
        return twin;
      };
      const lineOf = (p: string): number => twinOf()?.line(p) ?? 0;
      const file = abs ? shown(abs) : rootFile;
      const obj = objectWithLines(o.obj, file, lineOf);
      const render = {
        folder: renderFolder,
        addedBy: (pointer: string): string | undefined => {
          const t = twinOf();
          if (t === undefined || hasPointer(t.obj, pointer)) return undefined;
          return patchAdding(tree, pointer, shown) ?? `the render of ${renderFolder}`;
        },
      };
      const bundle = bundles.get(root.dir);
      const scope = ownScope(obj, {
        builds: [`k:${root.dir}`],
        folder: root.dir,
        renderedBy: label,
        render,
        ...(bundle !== undefined ? { bundleInput: bundle } : { appliedAsIs: `the output of ${label}` }),
      });
      // A bundle input's object that another render outputs alike is linted once, in that render.
      if (bundle !== undefined) {
        bundleObjects.push({ obj, scope });
        continue;
      }
      objects.push(obj);
      scopes.set(obj, scope);
    }
  }

  const applied = new Set(
    bundleObjects.length === 0
      ? []
      : objects.filter((o) => scopes.get(o)?.renderedBy !== undefined).map((o) => JSON.stringify(o.obj)),
  );
  for (const { obj, scope } of bundleObjects) {
    if (applied.has(JSON.stringify(obj.obj))) continue;
    objects.push(obj);
    scopes.set(obj, scope);
  }

  // Every object read file by file: skip what a rendering already covers, and the patch files.
  for (const i of inputs) {
    const p = parsed.get(i.file)!;
    const abs = i.file.startsWith('<') ? i.file : path.resolve(i.file);
    const roots = membership.get(abs) ?? [];
    const includedBy = roots[0] ? shown(roots[0].root.file) : undefined;
    problems.push(...p.problems.map((x) => (x.duplicateKey && includedBy ? { ...x, includedBy } : x)));
    if (patchFiles.has(abs)) continue;
    if (roots.length > 0 && roots.every((r) => rendered.has(r.root.dir))) continue;
    const open = roots.filter((r) => !rendered.has(r.root.dir));
    const namespaces = [...new Set(open.map((r) => r.namespace))];
    const ns = namespaces.length === 1 ? namespaces[0] : undefined;
    const from = ns !== undefined ? open.find((r) => r.namespace === ns)?.from : undefined;
    // Applied as written: piped in (what `kubectl kustomize ... | rollwise lint -` gives), or listed
    // as a resource by kustomizations none of which changes anything on the way to the output.
    const asIs =
      abs === '<stdin>'
        ? 'read from standard input (what is piped in is taken as what is applied)'
        : open.length > 0 && open.every((r) => !failed.has(r.root.dir) && unchangedTree(walk(r.root, cache)))
          ? `listed as a resource by ${shown(open[0].root.file)}, which changes nothing on the way to the output (no ` +
            'patch, generator, replacement or transformer)'
          : open.length === 0
            ? (readmeApplies(abs, readmes) ?? repoDocApplies(abs, repoRoot, docs))
            : undefined;
    if (asIs) appliedFiles.set(i.file, asIs);
    const supplied =
      open.length === 0 && !abs.startsWith('<')
        ? patchesTargeting(abs, p.objects, repoRoot, cache, memo)
        : new Map<LintObject, { pointers: string[]; by: string }>();
    for (const o of p.objects) {
      objects.push(o);
      const sup = supplied.get(o);
      scopes.set(
        o,
        ownScope(
          o,
          {
            builds: open.map((r) => `k:${r.root.dir}`),
            ...(ns !== undefined
              ? { namespace: ns, namespaceFrom: `namespace: ${ns} in ${from ? shown(from) : 'its kustomization'}` }
              : {}),
            ...(asIs ? { appliedAsIs: asIs } : {}),
            ...(sup ? { suppliedByPatch: sup } : {}),
            // The outermost kustomization's namespace replaces the object's own (kubebuilder's
            // `namespace: system` placeholder), so the tree's objects share it: a PDB of the tree
            // meets its workload (open-policy-agent/gatekeeper config/, whose render failed).
          },
          ns !== undefined && open.length > 0,
        ),
      );
    }
  }

  applyArgoCd(objects, scopes, opts.repoRoot ?? process.cwd());
  return { objects, problems, scopes, notes, parsed, appliedFiles };
}

/**
 * Argo CD Applications of the scan whose source path is a folder of this repository: the objects
 * they sync are one application, and objects without a namespace land in the destination's.
 * A directory source includes subfolders only with `directory.recurse` (Argo CD's default is not to).
 */
function applyArgoCd(objects: readonly LintObject[], scopes: Map<LintObject, ObjectScope>, repoRoot: string): void {
  for (const app of objects) {
    if (app.kind !== 'Application' || !app.apiVersion.startsWith('argoproj.io/')) continue;
    const spec = rec(app.obj.spec);
    const ns = str(rec(spec?.destination)?.namespace);
    const sources = [rec(spec?.source), ...arr(spec?.sources).map(rec)].filter(
      (x): x is Record<string, unknown> => !!x,
    );
    for (const src of sources) {
      const p = str(src.path);
      if (p === undefined || src.chart !== undefined) continue;
      const dir = path.resolve(repoRoot, p);
      if (!fs.existsSync(dir)) continue;
      const recurse = rec(src.directory)?.recurse === true;
      const plainDirectory = isPlainDirectorySource(src, dir);
      for (const o of objects) {
        if (o === app) continue;
        const s = scopes.get(o) ?? ownScope(o);
        const folder = path.resolve(s.renderedBy ? s.folder : path.dirname(o.file));
        const inside =
          folder === dir || (recurse && folder.startsWith(`${dir}${path.sep}`)) || s.builds.includes(`k:${dir}`);
        if (!inside) continue;
        const defaulted = s.namespace === undefined && ns !== undefined;
        const asIs = s.appliedAsIs === undefined && plainDirectory && !s.renderedBy && s.builds.length === 0;
        scopes.set(o, {
          ...s,
          builds: [...s.builds, `a:${app.name}`],
          ...(defaulted ? { namespace: ns, namespaceFrom: `spec.destination.namespace ${ns} of ${app.ref}` } : {}),
          ...(asIs ? { appliedAsIs: `synced as a plain directory by ${app.ref} (source path ${p})` } : {}),
        });
      }
    }
  }
}

/**
 * Whether an Argo CD source syncs its folder as a plain directory, each file applied as written:
 * no explicit helm, kustomize or plugin source, no include/exclude filter, and no Chart.yaml or
 * kustomization at the path (Argo CD then renders with Helm or kustomize instead: argoproj/argo-cd
 * v3.5.1 util/app/discovery/discovery.go Discover and AppType, which fall back to "Directory" only
 * when neither is found, and reposerver/repository/repository.go GetAppSourceType, which takes an
 * explicit source type first).
 */
function isPlainDirectorySource(src: Record<string, unknown>, dir: string): boolean {
  if (src.helm !== undefined || src.kustomize !== undefined || src.plugin !== undefined) return false;
  const directory = rec(src.directory);
  if (
    directory &&
    (directory.include !== undefined || directory.exclude !== undefined || directory.jsonnet !== undefined)
  )
    return false;
  try {
    return !fs.readdirSync(dir).some((f) => f === 'Chart.yaml' || KUSTOMIZATION_FILES.includes(f));
  } catch {
    return false;
  }
}

/**
 * Whether a kustomization tree passes its resources through unchanged: no field that changes
 * objects (TRANSFORMS: patches, generators, replacements, transformers, name prefixes, images...),
 * no Helm chart, no Component, and every local entry resolved (else the build fails). A namespace
 * is not a change that the cluster stage would see differently.
 */
function unchangedTree(tree: readonly { k: Kustomization }[]): boolean {
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
function patchesTargeting(
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

const README = /^readme(\.(md|markdown|rst|txt|adoc))?$/i;

/** The lines of the README files in a folder (cached per folder). */
function readmeLines(dir: string, cache: Map<string, string[]>): string[] {
  const hit = cache.get(dir);
  if (hit) return hit;
  let lines: string[] = [];
  try {
    for (const f of fs.readdirSync(dir)) {
      if (README.test(f)) lines = lines.concat(fs.readFileSync(path.join(dir, f), 'utf8').split('\n'));
    }
  } catch {
    lines = [];
  }
  cache.set(dir, lines);
  return lines;
}

/**
 * Evidence that a file nothing else deploys is applied as it is written: the README beside it (or
 * in the folder above) tells the reader to `kubectl apply -f` / `kubectl create -f` that very file
 * (nginx/kubernetes-ingress examples/custom-resources/<example>/README.md: "kubectl apply -f
 * oauth2-proxy-client-secret.yaml"). kubectl sends the file's objects as they are (-f reads the
 * file; kubernetes/cli-runtime pkg/resource/visitor.go FileVisitor).
 */
function readmeApplies(abs: string, cache: Map<string, string[]>): string | undefined {
  const base = path.basename(abs);
  const esc = (x: string): string => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  for (const [dir, rel] of [
    [path.dirname(abs), base],
    [path.dirname(path.dirname(abs)), `${path.basename(path.dirname(abs))}/${base}`],
  ] as const) {
    const cmd = new RegExp(
      `kubectl\\s+(?:[^\\s|;&]+\\s+)*?(?:apply|create)\\s+(?:[^\\s|;&]+\\s+)*?(?:-f|--filename)[=\\s]+(?:\\./)?${esc(rel)}(?![\\w./-])`,
    );
    const line = readmeLines(dir, cache).find((l) => cmd.test(l));
    if (line) return `the README beside it applies it as written ("${line.trim().slice(0, 80)}")`;
  }
  return undefined;
}

/** A `kubectl apply -f` / `kubectl create -f` target that a document of the repository runs. */
interface DocApply {
  /** Absolute path of the file or folder applied. */
  readonly target: string;
  /** `--recursive` / `-R` on the same command: a folder's subfolders are applied too. */
  readonly recursive: boolean;
  /** The document, repository-relative, and the line, for the evidence's words. */
  readonly doc: string;
  readonly line: string;
}

const DOC = /\.(md|markdown|rst|adoc)$/i;
const SKIP_DIRS = new Set(['.git', 'node_modules']);
/** Bounds on the walk for documents: a huge repository is not read whole for this evidence. */
const MAX_DOC_ENTRIES = 50_000;
const MAX_DOC_BYTES = 512 * 1024;
/** A raw or blob URL of a GitHub file: the tail after the ref is the path in the repository. */
const GITHUB_FILE_URL =
  /^https?:\/\/(?:raw\.githubusercontent\.com\/[^/]+\/[^/]+\/[^/]+\/|github\.com\/[^/]+\/[^/]+\/(?:blob|raw|tree)\/[^/]+\/)(.+)$/;

/** The `kubectl apply|create -f` targets of one line of a document (folder `dir`), resolved. */
function appliedTargets(line: string, dir: string, root: string): { target: string; recursive: boolean }[] {
  const out: { target: string; recursive: boolean }[] = [];
  for (const segment of line.split(/[|;&]/)) {
    if (!/\bkubectl\s+(?:\S+\s+)*?(?:apply|create)\b/.test(segment)) continue;
    const recursive = /\s(?:-R|--recursive)(?:\s|=true|$)/.test(segment);
    for (const m of segment.matchAll(/\s(?:-f|--filename)(?:=|\s+)([^\s`"')]+)/g)) {
      const arg = m[1].replace(/[.,:]+$/, '');
      // A variable, a glob or a placeholder is not a path lint can follow.
      if (arg === '-' || /[$*<>{}]/.test(arg)) continue;
      const url = GITHUB_FILE_URL.exec(arg);
      if (url) out.push({ target: path.join(root, url[1]), recursive });
      else if (!/^[a-z]+:\/\//i.test(arg)) {
        out.push({ target: path.resolve(dir, arg), recursive });
        // From the root too, for a path that names one (`yaml/app.yaml`), not `.` or `../x`.
        if (!arg.startsWith('.')) out.push({ target: path.resolve(root, arg), recursive });
      }
    }
  }
  return out;
}

/** Every `kubectl apply -f` target the repository's documents run (cached per root). */
function docApplies(root: string, cache: Map<string, DocApply[]>): DocApply[] {
  const hit = cache.get(root);
  if (hit) return hit;
  const found: DocApply[] = [];
  let entries = 0;
  const walk = (dir: string): void => {
    let names: fs.Dirent[];
    try {
      names = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of names) {
      if (++entries > MAX_DOC_ENTRIES) return;
      const p = path.join(dir, d.name);
      if (d.isDirectory()) {
        if (!SKIP_DIRS.has(d.name)) walk(p);
      } else if (d.isFile() && DOC.test(d.name)) {
        let text: string;
        try {
          if (fs.statSync(p).size > MAX_DOC_BYTES) continue;
          text = fs.readFileSync(p, 'utf8');
        } catch {
          continue;
        }
        if (!text.includes('kubectl')) continue;
        for (const line of text.split('\n')) {
          if (!line.includes('kubectl')) continue;
          for (const t of appliedTargets(line, dir, root))
            found.push({ ...t, doc: path.relative(root, p), line: line.trim().slice(0, 80) });
        }
      }
    }
  };
  walk(root);
  cache.set(root, found);
  return found;
}

/**
 * Evidence that a file nothing else deploys is applied as it is written: a document anywhere in the
 * repository (README, a tutorial page) runs `kubectl apply -f` / `kubectl create -f` on it, by a path
 * relative to the document's folder or to the repository root, on a folder holding it (its
 * subfolders only with `--recursive`), or by a raw or blob GitHub URL whose tail is its path here
 * (denniszielke/container_demos Demos.md: "kubectl apply -f https://raw.githubusercontent.com/
 * denniszielke/container_demos/master/logging/crashing-app/crashing-app.yaml"; judged real as
 * errors on held-out set 5). kubectl reads a folder's files, and its subfolders only when recursive
 * (kubernetes/cli-runtime pkg/resource/visitor.go ExpandPathsToFileVisitors: `if path != paths &&
 * !recursive { return filepath.SkipDir }`, read in the code index's copy).
 */
function repoDocApplies(abs: string, root: string, cache: Map<string, DocApply[]>): string | undefined {
  if (abs !== root && !abs.startsWith(`${root}${path.sep}`)) return undefined;
  // The whole repository applied recursively says nothing of one file in it (sourcegraph/
  // deploy-sourcegraph's `kubectl apply -f . --recursive k8s` in configure/executors/README.md
  // would cover its kustomize patch fragments, judged wrong as errors on held-out set 3).
  const hit = docApplies(root, cache).find(
    (d) =>
      d.target !== root &&
      (d.target === abs || d.target === path.dirname(abs) || (d.recursive && abs.startsWith(`${d.target}${path.sep}`))),
  );
  return hit ? `${hit.doc} applies it as written ("${hit.line}")` : undefined;
}
