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
 * repository, then .schemas/ (written by `npm run fetch:schemas`). Each holds crds/ and schemas/.
 */
export function schemaDirCandidates(): string[] {
  const root = packageRoot();
  // An installed package lives in the user's node_modules: the project's own .schemas/ (the
  // folder the synth runs in) is looked at too.
  return [process.env.ROLLWISE_SCHEMA_DIR, path.resolve(root, '..', 'shared'), path.join(root, '.schemas'), path.join(process.cwd(), '.schemas')]
    .filter((d): d is string => !!d).filter((d, i, all) => all.indexOf(d) === i);
}

export function locateSchemaDir(): string {
  for (const dir of schemaDirCandidates()) {
    if (fs.existsSync(path.join(dir, 'schemas', 'k8s-v1.28.0-definitions.json'))) return dir;
  }
  // `npm run fetch:schemas` exists only in rollwise's own repository, not in a project that installed it
  const installed = packageRoot().split(path.sep).includes('node_modules');
  const fix = installed
    ? 'set ROLLWISE_SCHEMA_DIR to a folder with the pinned crds/ and schemas/ (the pinned versions are listed in node_modules/rollwise/README.md, Schemas), or put them in .schemas/ in this project'
    : 'set ROLLWISE_SCHEMA_DIR or run `npm run fetch:schemas`';
  throw new Error(`no pinned schemas found (looked in ${schemaDirCandidates().join(', ')}): ${fix}`);
}
