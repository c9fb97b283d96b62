import * as fs from 'fs';
import * as path from 'path';
import { arr, rec, str } from './k8s';
import { KUSTOMIZATION_FILES } from './kustomization-files';
import { ObjectScope, ownScope } from './scope';
import { LintObject } from './source';

/**
 * Argo CD Applications of a scan (layout.ts): the folders they sync become one application for
 * the objects in them, with the destination's namespace, and a folder Argo CD syncs as a plain
 * directory is applied as written. It mirrors how Argo CD picks a source's type (argoproj/argo-cd
 * v3.5.1 util/app/discovery/discovery.go Discover and AppType; reposerver/repository/repository.go
 * GetAppSourceType), as isPlainDirectorySource says.
 */

/**
 * Argo CD Applications of the scan whose source path is a folder of this repository: the objects
 * they sync are one application, and objects without a namespace land in the destination's.
 * A directory source includes subfolders only with `directory.recurse` (Argo CD's default is not to).
 */
export function applyArgoCd(
  objects: readonly LintObject[],
  scopes: Map<LintObject, ObjectScope>,
  repoRoot: string,
): void {
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
