#!/usr/bin/env node
// Downloads the pinned CRDs and the Kubernetes 1.28 and 1.33 definitions into .schemas/ (git-ignored),
// for a fresh clone that has no ../shared folder. Usage: npm run fetch:schemas [-- <dir>]
const fs = require('fs');
const path = require('path');
const pinned = require('./pinned');

async function main() {
  const dir = path.resolve(process.argv[2] || path.join(__dirname, '..', '.schemas'));
  for (const { file, url } of pinned) {
    const res = await fetch(url);
    if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
    const target = path.join(dir, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    fs.writeFileSync(`${target}.tmp`, Buffer.from(await res.arrayBuffer()));
    fs.renameSync(`${target}.tmp`, target);
    process.stdout.write(`fetched ${file}\n`);
  }
  process.stdout.write(`schemas in ${dir}; rollwise finds them there (or set ROLLWISE_SCHEMA_DIR)\n`);
}
main().catch((err) => { process.stderr.write(`fetch:schemas failed: ${err.message}\n`); process.exit(1); });
