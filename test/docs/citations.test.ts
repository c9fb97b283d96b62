// cite-codemod: skip (this test holds the old citation form on purpose)
import * as fs from 'fs';
import * as path from 'path';
import { explainManifest, formatExplained } from '../../src/justify/explain';
import { headingAnchors } from '../../src/justify/runbook';
import { ENGINE_RULES, RULES, rulesMarkdown } from '../../src/rules';
import { listFiles } from '../../src/synth/diff';
import { ROOT } from '../support/compile';

/**
 * Every citation rollwise emits names a heading of the docs it ships: reasons and comments in the
 * synthesized output, runbooks, the rules catalogue, `explain` output, the docs and the README, and
 * every string in src/ (error messages and reasons that the example does not reach). A citation is
 * `docs/mechanisms.md#anchor` or `docs/mechanisms.md#a, #b`; the old "field-notes N" form (a
 * document the package does not contain) fails.
 */
const MECHANISMS = path.join(ROOT, 'docs', 'mechanisms.md');
const anchors = headingAnchors(fs.readFileSync(MECHANISMS, 'utf8'));

interface Problem {
  readonly where: string;
  readonly text: string;
}

/** The bad citations in `text`: old field-notes references and anchors that are no heading. */
export function citationProblems(text: string, where: string): Problem[] {
  const problems: Problem[] = [];
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    const at = `${where}:${i + 1}`;
    for (const m of line.matchAll(/field[- ]notes?\b[^\n]{0,40}/gi))
      problems.push({ where: at, text: `still cites the field notes: "${m[0]}"` });
    for (const m of line.matchAll(/docs\/mechanisms\.md((?:#[A-Za-z0-9_-]*)(?:,\s*#[A-Za-z0-9_-]*)*)/g)) {
      for (const a of m[1].split(/,\s*/).map((x) => x.slice(1))) {
        if (!anchors.has(a))
          problems.push({
            where: at,
            text: `cites docs/mechanisms.md#${a}, which is no heading of docs/mechanisms.md`,
          });
      }
    }
    // Markdown links into it: [text](mechanisms.md#x), [text](docs/mechanisms.md#x), and [text](#x) inside it
    for (const m of line.matchAll(/\]\((?:(?:docs\/)?mechanisms\.md)?#([^)\s]*)\)/g)) {
      const inMechanisms = where.endsWith('docs/mechanisms.md');
      if (!m[0].includes('mechanisms.md') && !inMechanisms) continue; // a link to another file's own heading
      if (!anchors.has(m[1]))
        problems.push({ where: at, text: `links to mechanisms.md#${m[1]}, which is no heading of docs/mechanisms.md` });
    }
  });
  return problems;
}

const read = (f: string) => fs.readFileSync(f, 'utf8');
const walk = (dir: string, ext: RegExp): string[] =>
  listFiles(dir)
    .filter((f) => ext.test(f))
    .map((f) => path.join(dir, f));

test('the checker finds a stale citation and an anchor that is no heading', () => {
  expect(citationProblems('ok (docs/mechanisms.md#keep-alive-race, #readiness-control-loop)', 'x')).toEqual([]);
  expect(
    citationProblems('bad (docs/mechanisms.md#keep-alive-race, #no-such-section)', 'x').map((p) => p.text),
  ).toEqual(['cites docs/mechanisms.md#no-such-section, which is no heading of docs/mechanisms.md']);
  expect(citationProblems('old (field-notes 8)', 'x')).toHaveLength(1);
  expect(citationProblems('old (Field notes section 3)', 'x')).toHaveLength(1);
  expect(
    citationProblems(
      'see [the race](mechanisms.md#keep-alive-race) and [x](mechanisms.md#nope)',
      'docs/cluster.md',
    ).map((p) => p.text),
  ).toEqual(['links to mechanisms.md#nope, which is no heading of docs/mechanisms.md']);
});

test('docs/mechanisms.md has a section for every mechanism the defaults and rules rest on', () => {
  for (const a of [
    'readiness-control-loop',
    'saw-tooth',
    'probe-failure-texts',
    'readiness-calls-a-dependency',
    'liveness-vs-readiness',
    'rollout-complete',
    'canary-analysis',
    'gitops-rollback',
    'keep-alive-race',
    'response-flags',
    'cpu-limits-and-cfs-throttling',
    'disruption-budgets',
    'leave-slowly-return-slower',
    'fixes-and-verification',
  ]) {
    expect(anchors).toContain(a);
  }
});

test('every emitted citation resolves to a heading of the shipped docs', () => {
  const texts: [string, string][] = [];
  // the synthesized example: manifests (comments, reasons annotations), runbooks, Argo CD apps
  const dist = path.join(ROOT, 'dist');
  for (const f of walk(dist, /./)) texts.push([path.relative(ROOT, f), read(f)]);
  // explain on every manifest of it
  for (const f of walk(dist, /\.ya?ml$/))
    texts.push([`explain ${path.relative(ROOT, f)}`, formatExplained(explainManifest(read(f)))]);
  // the rules catalogue, as docs/rules.md and as each rule's finding text
  texts.push(['rulesMarkdown()', rulesMarkdown()]);
  for (const r of [...RULES, ...Object.values(ENGINE_RULES)])
    texts.push([`rule ${r.id}`, `${r.mechanism} (${r.fieldNotes}) ${r.fix}`]);
  // the docs and the README the package ships, and every source file (strings the example does not reach)
  for (const f of [
    ...walk(path.join(ROOT, 'docs'), /\.md$/),
    path.join(ROOT, 'README.md'),
    ...walk(path.join(ROOT, 'src'), /\.ts$/),
  ])
    texts.push([path.relative(ROOT, f), read(f)]);

  expect(texts.filter(([w]) => w.startsWith('dist/') && w.endsWith('.runbook.md')).length).toBeGreaterThan(0);
  const cited = texts.reduce((n, [, t]) => n + (t.match(/docs\/mechanisms\.md#/g)?.length ?? 0), 0);
  expect(cited).toBeGreaterThan(100);
  const problems = texts.flatMap(([where, text]) => citationProblems(text, where));
  expect(problems.map((p) => `${p.where}: ${p.text}`)).toEqual([]);
});
