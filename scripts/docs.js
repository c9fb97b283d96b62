#!/usr/bin/env node
// Regenerates the README sections that are generated from code (npm run docs; run after npm run build).
const fs = require('fs');
const path = require('path');
const { syncReadme } = require('../lib/src/docs/readme');

const file = path.join(__dirname, '..', 'README.md');
const before = fs.readFileSync(file, 'utf8');
const after = syncReadme(before);
if (after !== before) fs.writeFileSync(file, after);
process.stdout.write(after === before ? 'README.md is up to date\n' : 'README.md regenerated\n');
