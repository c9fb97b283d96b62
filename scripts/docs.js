#!/usr/bin/env node
// Regenerates the docs generated from code (npm run docs, which builds first): the README's
// generated sections (the keep-alive table) and docs/rules.md (the lint rule catalogue).
const fs = require('fs');
const path = require('path');
const { syncReadme } = require('../lib/src/docs/readme');
const { rulesMarkdown } = require('../lib/src/rules/docs');

const root = path.join(__dirname, '..');
function update(rel, compute) {
  const file = path.join(root, rel);
  const before = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const after = compute(before);
  if (after !== before) fs.writeFileSync(file, after);
  process.stdout.write(`${rel}: ${after === before ? 'up to date' : 'regenerated'}\n`);
}
update('README.md', syncReadme);
update('docs/rules.md', () => rulesMarkdown());
