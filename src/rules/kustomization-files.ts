import * as fs from 'fs';
import * as path from 'path';

/**
 * The names kustomize looks for in a folder (kustomize v5.5.0 api/konfig/general.go
 * RecognizedKustomizationFileNames), in its order.
 */
export const KUSTOMIZATION_FILES = ['kustomization.yaml', 'kustomization.yml', 'Kustomization'];

/** An entry kustomize fetches from elsewhere: a URL, a git host path, an ssh remote or a `?ref=`. */
export const REMOTE = /:\/\/|^github\.com\/|^gitlab\.com\/|^git@|\?ref=/;

/** The kustomization file of a folder, or undefined. */
export function kustomizationFile(dir: string): string | undefined {
  for (const n of KUSTOMIZATION_FILES) {
    const f = path.join(dir, n);
    try {
      if (fs.statSync(f).isFile()) return f;
    } catch {
      // not here
    }
  }
  return undefined;
}
