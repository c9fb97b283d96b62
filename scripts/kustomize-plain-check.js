#!/usr/bin/env node
// Checks rollwise's file-by-file reading of kustomizations against `kubectl kustomize` on fetched
// precision sets (docs/lint-precision.md, Timing): for every kustomization root the layout read file
// by file without a note (plain resources, or a tree that only gathers such kustomizations), it
// renders the root with kubectl and compares the objects, both parsed the same way.
//   npx tsc -p . && node scripts/kustomize-plain-check.js heldOut [heldOutFirst ...]
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');
const { layoutScan, findKustomize } = require('../lib/src/rules/layout');
const { scanFolder } = require('../lib/src/rules/scan');
const { parseManifestText } = require('../lib/src/rules/source');
const { stableJson } = require('../lib/src/rules/k8s');

const root = path.join(__dirname, '..');
const list = JSON.parse(fs.readFileSync(path.join(root, 'test', 'precision', 'repos.json'), 'utf8'));
let compared = 0,
  same = 0,
  trees = 0,
  treesSame = 0;
for (const set of process.argv.slice(2)) {
  for (const { repo } of list[set]) {
    const dir = path.join(root, '.precision', set, repo.replace('/', '+'));
    const inputs = scanFolder(dir).files.map((f) => ({ file: f, text: fs.readFileSync(f, 'utf8') }));
    const layout = layoutScan(inputs, { kustomize: findKustomize(), repoRoot: dir });
    const noted = new Set(layout.notes.map((n) => path.resolve(path.dirname(n.file))));
    const groups = new Map();
    for (const o of layout.objects) {
      const s = layout.scopes.get(o);
      if (!s || s.renderedBy) continue;
      for (const b of s.builds)
        if (b.startsWith('k:')) (groups.get(b.slice(2)) ?? groups.set(b.slice(2), []).get(b.slice(2))).push(o);
    }
    for (const [kdir, objs] of groups) {
      if (noted.has(path.resolve(kdir))) continue; // not rendered for a reason the note gives
      const kf = ['kustomization.yaml', 'kustomization.yml', 'Kustomization']
        .map((n) => path.join(kdir, n))
        .find((f) => fs.existsSync(f));
      if (/^namespace:/m.test(fs.readFileSync(kf, 'utf8'))) continue; // a namespace is a scope default here, not compared
      const tree = objs.some((o) => path.dirname(path.resolve(o.file)) !== path.resolve(kdir));
      compared++;
      if (tree) trees++;
      const r = spawnSync('kubectl', ['kustomize', kdir], { encoding: 'utf8', maxBuffer: 1 << 30 });
      const k =
        r.status === 0
          ? parseManifestText(r.stdout, 'kubectl')
              .objects.map((o) => stableJson(o.obj))
              .sort()
          : undefined;
      const m = objs.map((o) => stableJson(o.obj)).sort();
      if (k && JSON.stringify(k) === JSON.stringify(m)) {
        same++;
        if (tree) treesSame++;
        continue;
      }
      process.stdout.write(
        `${path.relative(root, kdir)}: ${k ? `kubectl ${k.length} objects, rollwise ${m.length}` : `kubectl failed: ${r.stderr.trim().split('\n').pop().slice(0, 200)}`}\n`,
      );
    }
  }
}
process.stdout.write(
  `compared ${compared}, identical ${same}; trees gathering other kustomizations ${trees}, identical ${treesSame}\n`,
);
