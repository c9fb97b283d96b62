import * as fs from 'fs';
import * as path from 'path';

/** The repository root (the folder with rollwise's package.json), from source or compiled code. */
function packageRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

/**
 * Where to look for the pinned schemas, in order: $ROLLWISE_SCHEMA_DIR, ../shared beside the
 * repository, then .schemas/ beside the package and in the current folder (written by `rollwise
 * schemas fetch`). Each holds crds/ and schemas/.
 */
export function schemaDirCandidates(): string[] {
  const root = packageRoot();
  // An installed package lives in the user's node_modules: the project's own .schemas/ (the
  // folder the synth runs in) is looked at too.
  return [
    process.env.ROLLWISE_SCHEMA_DIR,
    path.resolve(root, '..', 'shared'),
    path.join(root, '.schemas'),
    path.join(process.cwd(), '.schemas'),
  ]
    .filter((d): d is string => !!d)
    .filter((d, i, all) => all.indexOf(d) === i);
}

/** How to get the pinned schemas, in a project that installed rollwise as in its repository. */
export const SCHEMA_FIX =
  'run `npx rollwise schemas fetch` in the project (it downloads the pinned files into ' +
  '.schemas/ there and needs network; offline: --from <a .schemas/ folder fetched elsewhere>), or set ' +
  'ROLLWISE_SCHEMA_DIR to a folder with the pinned crds/ and schemas/';

export function locateSchemaDir(): string {
  for (const dir of schemaDirCandidates()) {
    if (fs.existsSync(path.join(dir, 'schemas', 'k8s-v1.28.0-definitions.json'))) return dir;
  }
  throw new Error(`no pinned schemas found (looked in ${schemaDirCandidates().join(', ')}): ${SCHEMA_FIX}`);
}
