// Where the pinned schemas live: $ROLLWISE_SCHEMA_DIR, then ../shared beside the repository,
// then .schemas/ (written by `npm run fetch:schemas`). Shared by the scripts and src/schemas.
const fs = require('fs');
const path = require('path');

const root = path.resolve(__dirname, '..');
function candidates() {
  return [process.env.ROLLWISE_SCHEMA_DIR, path.resolve(root, '..', 'shared'), path.join(root, '.schemas')].filter(Boolean);
}
function locateSchemaDir() {
  for (const dir of candidates()) {
    if (fs.existsSync(path.join(dir, 'schemas', 'k8s-v1.28.0-definitions.json'))) return dir;
  }
  throw new Error(`no pinned schemas found (looked in ${candidates().join(', ')}): set ROLLWISE_SCHEMA_DIR or run \`npm run fetch:schemas\``);
}
module.exports = { locateSchemaDir, candidates };
