#!/usr/bin/env node
// Every `kubectl kustomize` render lint performs with an empty render cache on a fetched precision set,
// one JSON line per rendered root (docs/lint-precision.md, "Timing, round 13"): the root, one cold
// render of it timed alone (as renderAll runs it: the wrapper kustomization with origin annotations,
// renderEnv), its output's size and kinds, what its kustomization tree holds, and whether the run's
// findings (repository, file, line, rule, severity, message) would differ if it were not rendered
// but read file by file as a plain aggregation is. Then `summary` groups the lines.
//   npm run -s build && node scripts/render-census.js heldOutTenth > census-10.jsonl
//   node scripts/render-census.js summary census-*.jsonl
const fs = require('fs');
const os = require('os');
const path = require('path');
const { spawnSync } = require('child_process');

const GENERATORS = ['configMapGenerator', 'secretGenerator', 'generators'];
const cpu = (r) => r.user + r.sys;

/** The kind of a rendered root, for the summary: the first that applies. */
function kindOf(r) {
  if (r.status !== 0) return 'failed render';
  const t = r.transforms;
  if (t.length === 0) return 'resources and namespace (a tree)';
  if (t.every((x) => GENERATORS.includes(x))) return 'generators only';
  if (t.includes('components')) return 'components (with patches, generators)';
  if (t.some((x) => ['namePrefix', 'nameSuffix', 'replacements', 'vars'].includes(x)))
    return 'name prefix or suffix, replacements, vars (with patches)';
  return 'patches, images, labels, annotations (with generators)';
}

function summary(files) {
  const groups = new Map();
  let total = 0;
  for (const f of files) {
    const rs = fs
      .readFileSync(f, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const big = rs.filter((r) => r.outBytes >= 500e3);
    const failed = rs.filter((r) => r.status !== 0);
    const sum = (xs) => xs.reduce((a, r) => a + cpu(r), 0).toFixed(1);
    const differ = rs.filter((r) => r.status === 0 && r.removed + r.added > 0).length;
    process.stdout.write(
      `| ${path.basename(f)} | ${rs.length} | ${sum(rs)} | ${failed.length} (${sum(failed)} s) | ` +
        `${big.length} (${sum(big)} s) | ${differ} |\n`,
    );
    for (const r of rs) {
      const k = kindOf(r);
      const g = groups.get(k) ?? groups.set(k, { n: 0, cpu: 0, big: 0, differ: 0, same: 0 }).get(k);
      g.n++;
      g.cpu += cpu(r);
      total += cpu(r);
      if (r.outBytes >= 500e3) g.big += cpu(r);
      if (r.status === 0 && r.removed + r.added > 0) g.differ++;
      else if (r.status === 0) g.same++;
    }
  }
  for (const [k, g] of [...groups].sort((a, b) => b[1].cpu - a[1].cpu))
    process.stdout.write(
      `| ${k} | ${g.n} | ${g.cpu.toFixed(1)} | ${((100 * g.cpu) / total).toFixed(0)} % | ${g.big.toFixed(1)} | ` +
        `${g.differ} / ${g.same} |\n`,
    );
}

function census(set) {
  const lib = path.join(__dirname, '..', 'lib');
  const kr = require(path.join(lib, 'src/rules/kustomization-read'));
  const kz = require(path.join(lib, 'src/rules/kustomize-render'));
  const pr = require(path.join(lib, 'bench/precision'));
  const { parseManifestText } = require(path.join(lib, 'src/rules/source'));
  // Hooks on the compiled modules' exports (layout.js reads them at each call): the roots handed to
  // renderAll, and one root at a time read as a plain aggregation instead of rendered.
  const renderAll = kz.renderAll;
  const plainAggregation = kr.plainAggregation;
  let captured = [];
  let forcePlain;
  kz.renderAll = (roots, ...rest) => {
    captured = [...roots];
    return renderAll(roots, ...rest);
  };
  kr.plainAggregation = (tree, source) => tree[0].k.dir === forcePlain || plainAggregation(tree, source);
  const key = (f) =>
    [f.repo, f.finding.file, f.finding.line, f.finding.ruleId, f.finding.severity, f.finding.message].join('\u0001');
  // a cache of its own, so the runs after the first of each repository do not start kustomize again
  process.env.ROLLWISE_KUSTOMIZE_CACHE ??= fs.mkdtempSync(path.join(os.tmpdir(), 'render-census-'));
  const renderer = kz.findKustomize();
  for (const r of pr.readRepoList()[set]) {
    const dir = pr.checkoutDir(set, r.repo);
    const real = fs.realpathSync(dir);
    forcePlain = undefined;
    const base = new Set(pr.lintCheckout(dir, r).findings.map(key));
    for (const root of captured) {
      const tree = kr.walk(root, new Map());
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'render-census-'));
      const rel = path.relative(tmp, root.dir).split(path.sep).join('/');
      fs.writeFileSync(
        path.join(tmp, 'kustomization.yaml'),
        `buildMetadata: [originAnnotations]\nresources:\n- ${JSON.stringify(rel)}\n`,
      );
      const t = spawnSync('/usr/bin/time', ['-f', '%e %U %S', renderer.command, ...renderer.args, tmp], {
        encoding: 'utf8',
        maxBuffer: 1 << 30,
        env: kz.renderEnv(),
      });
      fs.rmSync(tmp, { recursive: true, force: true });
      const errLines = t.stderr.trim().split('\n');
      const [wall, user, sys] = errLines.pop().split(' ').map(Number);
      const objects = t.status === 0 ? parseManifestText(t.stdout, 'render').objects : [];
      const kinds = {};
      for (const o of objects) kinds[o.kind] = (kinds[o.kind] ?? 0) + 1;
      forcePlain = root.dir;
      const alt = new Set(pr.lintCheckout(dir, r).findings.map(key));
      forcePlain = undefined;
      const removed = [...base].filter((k) => !alt.has(k));
      const added = [...alt].filter((k) => !base.has(k));
      const line = {
        set,
        repo: r.repo,
        root: path.relative(real, root.dir) || '.',
        wall,
        user,
        sys,
        status: t.status,
        outBytes: Buffer.byteLength(t.stdout),
        objects: objects.length,
        kinds,
        error: t.status === 0 ? undefined : errLines.filter((l) => !/^Command exited/.test(l)).pop(),
        levels: tree.length,
        files: tree.reduce((n, w) => n + w.k.files.length, 0),
        folders: tree.reduce((n, w) => n + w.k.children.length, 0),
        transforms: [...new Set(tree.flatMap((w) => w.k.transforms))],
        namespaces: tree.filter((w) => w.k.namespace).length,
        unresolved: tree.flatMap((w) => w.k.unresolved).length,
        remote: tree.flatMap((w) => w.k.remote).length,
        removed: removed.length,
        added: added.length,
        example: [...removed.slice(0, 1).map((k) => `-${k}`), ...added.slice(0, 1).map((k) => `+${k}`)].map((s) =>
          s.split('\u0001').join(' | ').slice(0, 240),
        ),
      };
      process.stdout.write(`${JSON.stringify(line)}\n`);
    }
  }
}

if (process.argv[2] === 'summary') summary(process.argv.slice(3));
else if (process.argv[2]) census(process.argv[2]);
else process.stderr.write('usage: render-census.js <set> | summary <file.jsonl>...\n');
