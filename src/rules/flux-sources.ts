import * as fs from 'fs';
import * as path from 'path';
import { rec, str } from './k8s';
import { kustomizationFile } from './kustomization-files';
import { ParsedSource } from './source';

/**
 * Flux Kustomizations of a scan (layout.ts) as evidence that a file is applied as it is written:
 * kustomize-controller applies the folder a Kustomization's `spec.path` names in its source. This
 * mirrors fluxcd/kustomize-controller v1.9.4 internal/controller/kustomization_controller.go
 * (reconcile: `securejoin.SecureJoin(tmpDir, obj.Spec.Path)`, the path taken inside the source's
 * root, then `generator.NewGenerator(workDir, obj).WriteFile(dirPath)`) and the generator it
 * builds with, fluxcd/pkg kustomize/v1.35.4 (its go.mod's version) kustomize/kustomize_generator.go:
 * - findOrGenerateKustomization: a kustomization file at the path is used as it is (then this is
 *   kustomize's render, which lint judges by its own kustomize evidence, not here);
 * - without one, scanManifests walks the folder recursively and lists every `.yaml` / `.yml` file
 *   as a resource, except that a subfolder holding a kustomization file is listed as a folder and
 *   not walked (kustomize renders it);
 * - the spec's targetNamespace, namePrefix, nameSuffix, patches, patchesStrategicMerge,
 *   patchesJson6902, images and components are written into that kustomization, and the controller
 *   adds spec.commonMetadata and spec.postBuild substitution (kustomization_controller.go build):
 *   with any of them the objects are changed on the way, so there is no evidence.
 * The source must be this repository: a sourceRef to the GitRepository `flux-system` in namespace
 * flux-system, which `flux bootstrap` creates for the repository it commits to (fluxcd/flux2 v2.9.4
 * pkg/manifestgen/sync/options.go MakeDefaultOptions: Name and Namespace "flux-system"; sync.go
 * Generate: the GitRepository and the Kustomization share that name), or a GitRepository of the
 * scan whose url names this repository.
 */

/** The Flux Kustomization API versions read here (kustomize.toolkit.fluxcd.io). */
const FLUX_KUSTOMIZATION = new Set(['kustomize.toolkit.fluxcd.io/v1', 'kustomize.toolkit.fluxcd.io/v1beta2']);
/** Spec fields with which kustomize-controller changes the objects on the way (see above). */
const CHANGING = [
  'targetNamespace',
  'namePrefix',
  'nameSuffix',
  'patches',
  'patchesStrategicMerge',
  'patchesJson6902',
  'images',
  'components',
  'commonMetadata',
  'postBuild',
];
/**
 * Folders whose Flux Kustomizations are examples, tests or CI, not what a cluster runs: not
 * evidence sources (nor is what the source artifact leaves out: fluxcd/pkg sourceignore/v0.18.0
 * sourceignore.go ExcludeCI excludes `.github/`).
 */
const NOT_DEPLOYED = new Set(['.github', 'docs', 'doc', 'examples', 'example', 'test', 'tests', 'testdata']);
/**
 * Files the source artifact leaves out by default (fluxcd/pkg sourceignore/v0.18.0 sourceignore.go
 * ExcludeCI and ExcludeExtra), so the controller never sees them.
 */
const IGNORED_FILES = new Set([
  '.travis.yml',
  '.gitlab-ci.yml',
  'appveyor.yml',
  '.drone.yml',
  'cloudbuild.yaml',
  'codeship-services.yml',
  'codeship-steps.yml',
  '.goreleaser.yml',
  '.sops.yaml',
  '.flux.yaml',
]);

/** A folder of this repository a Flux Kustomization applies as generated (no kustomization file). */
export interface FluxFolder {
  readonly dir: string;
  /** The Kustomization and its file, for the evidence's words. */
  readonly by: string;
  readonly specPath: string;
}

/** owner/name of a git URL (https, ssh or scp-like), lower case, or undefined. */
function repoSlug(url: string): string | undefined {
  const m = /(?:[:/])([^/:]+)\/([^/]+?)(?:\.git)?\/?$/.exec(url.trim());
  return m ? `${m[1]}/${m[2]}`.toLowerCase() : undefined;
}

/** This repository's owner/name, from its git remote `origin` (undefined when it has none). */
function ownSlug(repoRoot: string): string | undefined {
  try {
    const config = fs.readFileSync(path.join(repoRoot, '.git', 'config'), 'utf8');
    const m = /\[remote "origin"\][^[]*?\burl\s*=\s*(\S+)/.exec(config);
    return m ? repoSlug(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The folders of this repository that Flux Kustomizations of the scan apply, each as a generated
 * kustomization of its `.yaml` files (no kustomization file at the path) without a change.
 */
export function fluxFolders(parsed: ReadonlyMap<string, ParsedSource>, repoRoot: string): FluxFolder[] {
  const objects = [...parsed.values()].flatMap((p) => p.objects);
  if (!objects.some((o) => o.kind === 'Kustomization' && FLUX_KUSTOMIZATION.has(o.apiVersion))) return [];
  const inRepo = (file: string): string | undefined => {
    const rel = path.relative(repoRoot, path.resolve(file));
    return rel.startsWith('..') || path.isAbsolute(rel) ? undefined : rel;
  };
  const deployed = (file: string): boolean => {
    const rel = inRepo(file);
    return rel !== undefined && !rel.split(path.sep).some((s) => NOT_DEPLOYED.has(s));
  };
  const own = ownSlug(repoRoot);
  // GitRepositories of the scan that name this repository, by namespace/name.
  const ours = new Set<string>();
  for (const o of objects) {
    if (o.kind !== 'GitRepository' || !o.apiVersion.startsWith('source.toolkit.fluxcd.io/')) continue;
    const spec = rec(o.obj.spec);
    const url = str(spec?.url);
    // spec.ignore changes which files the artifact holds: not followed, so no evidence.
    if (url === undefined || spec?.ignore !== undefined || own === undefined || repoSlug(url) !== own) continue;
    ours.add(`${o.namespace ?? ''}/${o.name}`);
  }
  const out: FluxFolder[] = [];
  for (const o of objects) {
    if (o.kind !== 'Kustomization' || !FLUX_KUSTOMIZATION.has(o.apiVersion) || !deployed(o.file)) continue;
    const spec = rec(o.obj.spec);
    const ref = rec(spec?.sourceRef);
    if (!spec || !ref || str(ref.kind) !== 'GitRepository') continue;
    if (CHANGING.some((f) => spec[f] !== undefined)) continue;
    // sourceRef.namespace defaults to the Kustomization's own (CrossNamespaceSourceReference).
    const key = `${str(ref.namespace) ?? o.namespace ?? ''}/${str(ref.name) ?? ''}`;
    if (key !== 'flux-system/flux-system' && !ours.has(key)) continue;
    const specPath = str(spec.path) ?? '';
    if (/[$*{}]/.test(specPath)) continue;
    // SecureJoin: the path is taken inside the source's root, `..` cannot leave it.
    const dir = path.join(repoRoot, path.posix.resolve('/', specPath.split(path.sep).join('/')));
    // The whole repository applied says nothing of one file in it (as for documents).
    if (dir === repoRoot || kustomizationFile(dir) !== undefined) continue;
    try {
      if (!fs.statSync(dir).isDirectory()) continue;
    } catch {
      continue;
    }
    out.push({ dir, by: `${o.ref} in ${inRepo(o.file)}`, specPath });
  }
  return out;
}

/**
 * Evidence that kustomize-controller applies the file as it is written: a Flux Kustomization of
 * the scan (fluxFolders) applies a folder above it or holding it, and no folder between holds a
 * kustomization file (scanManifests lists such a folder instead of walking into it).
 */
export function fluxApplies(abs: string, folders: readonly FluxFolder[]): string | undefined {
  if (folders.length === 0 || !/\.ya?ml$/.test(abs) || IGNORED_FILES.has(path.basename(abs))) return undefined;
  for (const f of folders) {
    if (!abs.startsWith(`${f.dir}${path.sep}`)) continue;
    let ok = true;
    for (let d = path.dirname(abs); d !== f.dir; d = path.dirname(d)) {
      if (kustomizationFile(d) !== undefined) {
        ok = false;
        break;
      }
    }
    if (ok)
      return (
        `applied by Flux: ${f.by} (spec.path ${f.specPath}) has kustomize-controller apply its folder's ` +
        'manifests as written (no kustomization there, no patch, prefix, namespace or substitution)'
      );
  }
  return undefined;
}
