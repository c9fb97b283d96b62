#!/usr/bin/env node
// Lists the import cycles among the TypeScript files under a folder (default src/): every strongly
// connected component of the relative-import graph, `import type` and re-exports included, with
// its two-file cycles. `node scripts/import-cycles.js [folder]`; exits 1 when there is a cycle.
const fs = require('fs');
const path = require('path');

const root = process.argv[2] || 'src';
const files = [];
(function walk(dir) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) files.push(p);
  }
})(root);
const known = new Set(files);

const graph = new Map();
const spec =
  /(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)|require\(\s*['"](\.[^'"]+)['"]\s*\)/g;
for (const f of files) {
  const deps = new Set();
  for (const m of fs.readFileSync(f, 'utf8').matchAll(spec)) {
    const target = path.normalize(path.join(path.dirname(f), m[1] || m[2] || m[3]));
    const hit = [`${target}.ts`, path.join(target, 'index.ts'), target.replace(/\.js$/, '.ts')].find((c) =>
      known.has(c),
    );
    if (hit) deps.add(hit);
  }
  graph.set(f, [...deps]);
}

// Tarjan's strongly connected components.
let next = 0;
const stack = [];
const onStack = new Set();
const index = new Map();
const low = new Map();
const components = [];
function visit(v) {
  index.set(v, next);
  low.set(v, next);
  next++;
  stack.push(v);
  onStack.add(v);
  for (const w of graph.get(v)) {
    if (!index.has(w)) {
      visit(w);
      low.set(v, Math.min(low.get(v), low.get(w)));
    } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
  }
  if (low.get(v) === index.get(v)) {
    const c = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      c.push(w);
    } while (w !== v);
    if (c.length > 1) components.push(c.sort());
  }
}
for (const f of files) if (!index.has(f)) visit(f);

for (const c of components) {
  console.log(`cycle of ${c.length} files: ${c.join(' ')}`);
  const inCycle = new Set(c);
  for (const a of c)
    for (const b of graph.get(a))
      if (inCycle.has(b) && a < b && graph.get(b).includes(a)) console.log(`  ${a} <-> ${b}`);
}
console.log(`${components.length} import cycle(s) among ${files.length} files under ${root}`);
process.exitCode = components.length > 0 ? 1 : 0;
