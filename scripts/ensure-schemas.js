#!/usr/bin/env node
// Before the tests: make sure the pinned schemas are reachable ($ROLLWISE_SCHEMA_DIR, ../shared or
// .schemas/); on a fresh clone without them, fetch them once (npm run fetch:schemas).
const fs = require('fs');
const path = require('path');
const { execFileSync } = require('child_process');

const root = path.resolve(__dirname, '..');
const dirs = [process.env.ROLLWISE_SCHEMA_DIR, path.resolve(root, '..', 'shared'), path.join(root, '.schemas')].filter(Boolean);
const found = dirs.find((d) => fs.existsSync(path.join(d, 'schemas', 'k8s-v1.28.0-definitions.json')));
if (!found) {
  process.stdout.write(`no pinned schemas in ${dirs.join(', ')}; fetching them into .schemas/\n`);
  execFileSync(process.execPath, [path.join(__dirname, 'fetch-schemas.js')], { stdio: 'inherit' });
}
