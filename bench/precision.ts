/*
 * The lint precision harness (docs/lint-precision.md): public repositories pinned to commits
 * (test/precision/repos.json), fetched into .precision/ (ignored), linted as a new user would lint
 * them, and a blind judging packet: each sampled finding with the object it is about, the objects a
 * cross-object rule used, and the rule's documented rationale (docs/rules.md), never the rule code.
 *
 *   node lib/bench/precision.js fetch --set tuning          # git clone at the pinned commits
 *   node lib/bench/precision.js lint --set heldOut --out .precision/heldOut-run
 *   node lib/bench/precision.js score --set heldOut --out .precision/heldOut-run --verdicts verdicts.jsonl
 *
 * ROLLWISE_CORPUS_MIRROR=<folder> clones from local mirrors instead of GitHub: a bare repository at
 * <folder>/<owner>+<name>/repo, <folder>/<owner>+<name> or <folder>/<owner>/<name>.git.
 */
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { performance } from 'perf_hooks';
import * as YAML from 'yaml';
import { readTextCapped } from '../src/read-limit';
import { allRules } from '../src/rules/catalogue';
import { findKustomize, layoutScan } from '../src/rules/layout';
import { podLabels, podSpec, serviceSelects } from '../src/rules/k8s';
import { Glob, scanFolder } from '../src/rules/scan';
import { lintLayout } from '../src/rules/run-lint';
import { LintObject } from '../src/rules/source';
import { Finding } from '../src/rules/types';
import { mulberry32 } from '../src/simulate/random';

/** The package root, from bench/ (ts-node, jest) or lib/bench/ (compiled). */
const ROOT =
  [path.join(__dirname, '..'), path.join(__dirname, '..', '..')].find((d) =>
    fs.existsSync(path.join(d, 'test', 'precision', 'repos.json')),
  ) ?? path.join(__dirname, '..', '..');
const LIST = path.join(ROOT, 'test', 'precision', 'repos.json');

export interface PinnedRepo {
  readonly repo: string;
  readonly commit: string;
  /** Folders to lint, relative to the repository. @default ["."] */
  readonly paths?: readonly string[];
  /** --exclude globs. @default none */
  readonly exclude?: readonly string[];
  readonly why?: string;
}

export interface RepoList {
  readonly tuning: readonly PinnedRepo[];
  readonly heldOut: readonly PinnedRepo[];
  readonly [set: string]: unknown;
}

export function readRepoList(file = LIST): RepoList {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as RepoList;
}

function setOf(list: RepoList, name: string): readonly PinnedRepo[] {
  const set = list[name];
  if (!Array.isArray(set))
    throw new Error(
      `no set "${name}" in ${LIST} (sets: ${Object.keys(list)
        .filter((k) => Array.isArray(list[k]))
        .join(', ')})`,
    );
  return set as PinnedRepo[];
}

export function checkoutDir(set: string, repo: string, base = path.join(ROOT, '.precision')): string {
  return path.join(base, set, repo.replace('/', '+'));
}

/** Where a repository is cloned from: a local mirror when ROLLWISE_CORPUS_MIRROR is set, else GitHub. */
export function cloneSource(repo: string, mirror = process.env.ROLLWISE_CORPUS_MIRROR): string {
  if (!mirror) return `https://github.com/${repo}.git`;
  const [owner, name] = repo.split('/');
  const candidates = [
    path.join(mirror, `${owner}+${name}`, 'repo'),
    path.join(mirror, `${owner}+${name}`),
    path.join(mirror, owner, `${name}.git`),
  ];
  const found = candidates.find((c) => fs.existsSync(path.join(c, 'HEAD')) || fs.existsSync(path.join(c, '.git')));
  if (!found)
    throw new Error(`ROLLWISE_CORPUS_MIRROR=${mirror} has no mirror of ${repo} (looked at ${candidates.join(', ')})`);
  return found;
}

/** Clones each repository of the set at its pinned commit (an existing checkout at that commit is kept). */
export function fetchSet(
  set: string,
  list = readRepoList(),
  log: (s: string) => void = (s) => process.stderr.write(s),
  base?: string,
): string[] {
  const dirs: string[] = [];
  for (const r of setOf(list, set)) {
    const dir = checkoutDir(set, r.repo, base);
    dirs.push(dir);
    if (fs.existsSync(path.join(dir, '.git'))) {
      const head = execFileSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
      if (head === r.commit) {
        log(`${r.repo}: at ${r.commit.slice(0, 12)}\n`);
        continue;
      }
      fs.rmSync(dir, { recursive: true, force: true });
    }
    fs.mkdirSync(path.dirname(dir), { recursive: true });
    const src = cloneSource(r.repo);
    log(`${r.repo}: cloning ${src} at ${r.commit.slice(0, 12)}\n`);
    execFileSync('git', ['clone', '--quiet', '--no-checkout', src, dir], { stdio: ['ignore', 'ignore', 'inherit'] });
    execFileSync('git', ['-C', dir, '-c', 'advice.detachedHead=false', 'checkout', '--quiet', r.commit], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
  }
  return dirs;
}

/** One finding of a run, with what a judge needs to see. */
export interface RunFinding {
  readonly id: string;
  readonly repo: string;
  readonly finding: Finding;
  /** The YAML of the object the finding is about (as linted: rendered, where kustomize rendered it). */
  readonly objectYaml?: string;
  /** The objects the finding names (a Rollout's Service, a workload's PDB...), as YAML. */
  readonly related: readonly { ref: string; yaml: string }[];
}

export interface RunResult {
  readonly findings: RunFinding[];
  readonly files: number;
  readonly objects: number;
  readonly texts: string[];
  readonly lintMs: number;
  /** CPU time of this process during the lint (user + system); kustomize's child processes are not in it. */
  readonly lintCpuMs: number;
}

const REF = /\b([A-Z][A-Za-z]+)\/([a-z0-9][-a-z0-9.]*)(?:\/([a-z0-9][-a-z0-9.]*))?/g;

/** How many leading folders two repository-relative file names share. */
function sharedFolders(a: string, b: string): number {
  const x = path.posix.dirname(a.split(path.sep).join('/')).split('/');
  const y = path.posix.dirname(b.split(path.sep).join('/')).split('/');
  let n = 0;
  while (n < x.length && n < y.length && x[n] === y[n]) n++;
  return n;
}

/**
 * Of several objects of the name a finding gives, the one its rule looked at, as far as the name
 * and the files tell: for a Service named on a workload, one whose selector selects the
 * workload's pods (the rules name only such Services, src/rules/k8s.ts serviceSelects); then one in
 * the finding's file; then the one in the nearest folder (most leading folders shared with the
 * finding's file); then the first. Held-out set 9 showed eficode-academy/kubernetes-katas'
 * configmap-secrets/done Service/backend (selector app: backend) for a finding on
 * deployments-ingress/done's Deployment, whose pods carry run: backend and which its own folder's
 * Service/backend (run: backend) routes to; the judge, shown the other, called the finding wrong.
 */
export function pickRelated(
  f: Finding,
  cands: readonly LintObject[],
  self: LintObject | undefined,
): LintObject | undefined {
  const labels = self && podSpec(self) ? podLabels(self) : undefined;
  const selecting = (o: LintObject): boolean => o.kind === 'Service' && !!labels && serviceSelects(o.obj, labels);
  const rank = (o: LintObject): number[] => [
    selecting(o) ? 1 : 0,
    o.file === f.file ? 1 : 0,
    sharedFolders(o.file, f.file),
  ];
  let best: LintObject | undefined;
  let bestRank: number[] = [];
  for (const o of cands) {
    const r = rank(o);
    const i = r.findIndex((v, k) => v !== bestRank[k]);
    if (best === undefined || (i >= 0 && r[i] > bestRank[i])) {
      best = o;
      bestRank = r;
    }
  }
  return best;
}

/** The objects a finding's message and values name, found among the run's objects. */
function relatedObjects(f: Finding, objects: readonly LintObject[], self: LintObject | undefined): LintObject[] {
  const text = `${f.message} ${Object.values(f.values).join(' ')}`;
  const out: LintObject[] = [];
  for (const m of text.matchAll(REF)) {
    const [, kind, a, b] = m;
    const ns = b ? a : undefined;
    const name = b ?? a;
    const cands = objects.filter(
      (o) => o.kind === kind && o.name === name && (ns === undefined || o.namespace === ns) && o !== self,
    );
    // A reference without a namespace is to the finding's own (an HPA's scaleTargetRef): another
    // namespace's object of that name is shown only when none is there (set 6 showed go-demo-3/db
    // for an HPA of go-demo-5).
    const local =
      ns === undefined && f.namespace !== undefined
        ? cands.filter((o) => o.namespace === f.namespace || o.namespace === undefined)
        : cands;
    const pick = pickRelated(f, local, self) ?? pickRelated(f, cands, self);
    if (pick && !out.includes(pick)) out.push(pick);
  }
  // Names a controller finding carries in its values (a Service, an AnalysisTemplate, an HTTPRoute).
  for (const [key, kind] of [
    ['service', 'Service'],
    ['template', 'AnalysisTemplate'],
    ['route', 'HTTPRoute'],
  ] as const) {
    const v = f.values[key];
    if (typeof v !== 'string') continue;
    const pick = pickRelated(
      f,
      objects.filter((o) => o.kind === kind && o.name === v),
      self,
    );
    if (pick && !out.includes(pick)) out.push(pick);
  }
  return out.slice(0, 5);
}

/** The value at a finding's field path (`a.b[0]["x/y"].c`), or undefined where the object has none. */
export function valueAt(obj: unknown, fieldPath: string): unknown {
  let v: unknown = obj;
  for (const m of fieldPath.matchAll(/\[(\d+)\]|\["((?:[^"\\]|\\.)*)"\]|([^.[\]]+)/g)) {
    if (v === null || typeof v !== 'object') return undefined;
    const key = m[1] !== undefined ? Number(m[1]) : m[2] !== undefined ? (JSON.parse(`"${m[2]}"`) as string) : m[3];
    v = (v as Record<string | number, unknown>)[key];
  }
  return v;
}

/**
 * The object a finding is about. Two kustomizations that render one file give two objects with the
 * same file and name (cloudnative-pg's config/default and config/olm-default, whose patch adds
 * `containerPort` to the webhooks): the one that has the finding's field is shown to the judge, else
 * the first (held-out set 5 showed the other render's copy, without the field).
 */
export function findingObject(f: Finding, objects: readonly LintObject[]): LintObject | undefined {
  const same = objects.filter((o) => o.file === f.file && o.ref === f.object);
  return same.find((o) => f.path !== '' && valueAt(o.obj, f.path) !== undefined) ?? same[0];
}

/** Lints one checkout's folders the way `rollwise lint <folders>` does (kustomize as found on PATH). */
export function lintCheckout(dir: string, r: PinnedRepo, opts: { kustomize?: boolean } = {}): RunResult {
  const globs = (r.exclude ?? []).map((g) => new Glob(g));
  const inputs: { file: string; text: string }[] = [];
  for (const p of r.paths ?? ['.']) {
    const abs = path.join(dir, p);
    if (!fs.existsSync(abs)) continue;
    for (const f of scanFolder(abs, globs).files) {
      try {
        inputs.push({ file: path.relative(dir, f), text: readTextCapped(f) });
      } catch {
        // unreadable: rollwise lint reports it as RW000; not a judged finding
      }
    }
  }
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const cwd = process.cwd();
  process.chdir(dir); // file names relative to the repository, as in a CI run at its root
  let layout;
  let result;
  try {
    // The root as the files now resolve (after the chdir, through any symlink in `dir`): a relative
    // `dir` (.precision/...) would point inside itself, and a symlinked one would not prefix the
    // files' real paths, so Argo CD source paths and kustomizations above a file were never found.
    layout = layoutScan(inputs, {
      kustomize: opts.kustomize === false ? null : findKustomize(),
      repoRoot: process.cwd(),
    });
    result = lintLayout(layout, layout.problems);
  } finally {
    process.chdir(cwd);
  }
  const lintMs = performance.now() - t0;
  const c1 = process.cpuUsage(c0);
  const lintCpuMs = (c1.user + c1.system) / 1000;
  const findings = result.findings
    .filter((f) => f.status === 'open')
    .map((f, i): RunFinding => {
      const self = findingObject(f, layout.objects);
      return {
        id: `${r.repo.replace('/', '+')}#${i + 1}`,
        repo: r.repo,
        finding: f,
        ...(self ? { objectYaml: YAML.stringify(self.obj, { version: '1.1' }) } : {}),
        related: relatedObjects(f, layout.objects, self).map((o) => ({
          ref: o.ref,
          yaml: YAML.stringify(o.obj, { version: '1.1' }),
        })),
      };
    });
  return {
    findings,
    files: inputs.length,
    objects: result.objects,
    texts: inputs.map((i) => i.text),
    lintMs,
    lintCpuMs,
  };
}

/** A small seeded generator (the simulator's mulberry32), so a packet can be drawn again. */
export const seeded = mulberry32;

export function sample<T>(items: readonly T[], n: number, rand: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy.slice(0, n);
}

/** The judging protocol, as the judge reads it at the top of the packet. */
export const PROTOCOL = [
  'You judge findings of a Kubernetes manifest linter, one at a time. For each item you see the finding',
  '(rule id, severity, message), the YAML of the object it is about, the related objects the rule looked at,',
  "and the rule's documented rationale. You do not see the rule's code or the repository it came from.",
  '',
  'Give one verdict per item:',
  '- `real`: a real problem, worth failing a build (for an error) or flagging (for a warning or info) at',
  '  that severity;',
  '- `noise`: technically true, but not worth it at that severity (a team would turn it off);',
  '- `wrong`: the finding is false (the problem is not there, or the rationale does not apply).',
  'An info finding is `real` when the information is correct and useful (it says what it could not check, or',
  'a deliberate choice, accurately). Judge from what is shown; write one line of reason.',
  '',
  'Answer as JSON lines: {"id": "<item id>", "verdict": "real|noise|wrong", "reason": "..."}',
].join('\n');

function rationale(ruleId: string): string {
  const r = allRules().find((x) => x.id === ruleId);
  if (!r) return '';
  return [
    `**${r.id}** (${r.severity} by default): ${r.title}.`,
    '',
    `Why: ${r.mechanism} (${r.fieldNotes})`,
    '',
    `Fix: ${r.fix}`,
    ...(r.upstream ? ['', `Upstream: ${r.upstream}`] : []),
  ].join('\n');
}

/** One packet item: what the judge sees (no repository, no file). */
export function packetItem(f: RunFinding, n: number): { id: string; markdown: string; json: Record<string, unknown> } {
  const id = `item-${String(n).padStart(3, '0')}`;
  const fence = (y: string): string => `\`\`\`yaml\n${y.trimEnd()}\n\`\`\``;
  const md = [
    `## ${id}`,
    '',
    `**Finding:** ${f.finding.ruleId}, severity **${f.finding.severity}**, on ${f.finding.object}${f.finding.path ? ` at \`${f.finding.path}\`` : ''}`,
    '',
    `> ${f.finding.message}`,
    '',
    '**Object:**',
    '',
    f.objectYaml ? fence(f.objectYaml) : '(not an object: the finding is about the document or file as a whole)',
    '',
    ...(f.related.length
      ? ['**Related objects:**', '', ...f.related.flatMap((r) => [`${r.ref}:`, '', fence(r.yaml), ''])]
      : []),
    '**Rule rationale (docs/rules.md):**',
    '',
    rationale(f.finding.ruleId),
    '',
  ].join('\n');
  return {
    id,
    markdown: md,
    json: {
      id,
      ruleId: f.finding.ruleId,
      severity: f.finding.severity,
      object: f.finding.object,
      path: f.finding.path,
      message: f.finding.message,
      objectYaml: f.objectYaml ?? null,
      related: f.related,
      rationale: rationale(f.finding.ruleId),
    },
  };
}

function arg(argv: readonly string[], name: string, def?: string): string | undefined {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 ? argv[i + 1] : def;
}

/** Counts of findings per rule and severity, as a markdown table. */
function countTable(findings: readonly RunFinding[]): string {
  const counts = new Map<string, number>();
  for (const f of findings) {
    const k = `${f.finding.ruleId}\u0000${f.finding.severity}`;
    counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  const rows = [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([k, n]) => `| ${k.split('\u0000')[0]} | ${k.split('\u0000')[1]} | ${n} |`);
  return ['| rule | severity | findings |', '|---|---|---:|', ...rows].join('\n');
}

/** `lint`: lints every repository of the set and writes the findings, the blind packet and its key. */
export function lintSet(
  set: string,
  out: string,
  opts: { sample: number; errors: number; seed: number; list?: RepoList; base?: string },
): string {
  const list = opts.list ?? readRepoList();
  const repos = setOf(list, set);
  if (repos.length === 0)
    throw new Error(`the set "${set}" in ${LIST} is empty: add repositories with pinned commits first`);
  fs.mkdirSync(out, { recursive: true });
  const all: RunFinding[] = [];
  const perRepo: string[] = [];
  let files = 0;
  let objects = 0;
  let lintMs = 0;
  let parseMs = 0;
  let lintCpuMs = 0;
  let parseCpuMs = 0;
  for (const r of repos) {
    const dir = checkoutDir(set, r.repo, opts.base);
    if (!fs.existsSync(dir))
      throw new Error(`${dir} is missing: run \`node lib/bench/precision.js fetch --set ${set}\` first`);
    const res = lintCheckout(dir, r);
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    for (const t of res.texts) {
      try {
        for (const d of YAML.parseAllDocuments(t, { version: '1.1', logLevel: 'error' })) d.toJS();
      } catch {
        // the parse baseline only times parsing
      }
    }
    parseMs += performance.now() - t0;
    const c1 = process.cpuUsage(c0);
    parseCpuMs += (c1.user + c1.system) / 1000;
    lintCpuMs += res.lintCpuMs;
    all.push(...res.findings);
    files += res.files;
    objects += res.objects;
    lintMs += res.lintMs;
    const c = (s: string) => res.findings.filter((f) => f.finding.severity === s).length;
    perRepo.push(
      `| ${r.repo} | \`${r.commit.slice(0, 12)}\` | ${res.files} | ${res.objects} | ${c('error')} | ${c('warning')} | ${c('info')} |`,
    );
  }
  fs.writeFileSync(path.join(out, 'findings.jsonl'), all.map((f) => JSON.stringify(f)).join('\n') + '\n');
  const rand = seeded(opts.seed);
  const errors = sample(
    all.filter((f) => f.finding.severity === 'error'),
    opts.errors,
    rand,
  );
  const any = sample(all, opts.sample, rand);
  const picked = [...new Set([...errors, ...any])];
  const order = sample(picked, picked.length, rand); // the judge sees no grouping by rule or repository
  const items = order.map((f, i) => ({ f, ...packetItem(f, i + 1) }));
  fs.writeFileSync(
    path.join(out, 'packet.md'),
    [`# Judging packet (${items.length} findings)`, '', PROTOCOL, '', ...items.map((i) => i.markdown)].join('\n'),
  );
  fs.writeFileSync(path.join(out, 'packet.jsonl'), items.map((i) => JSON.stringify(i.json)).join('\n') + '\n');
  fs.writeFileSync(
    path.join(out, 'key.jsonl'),
    items
      .map((i) =>
        JSON.stringify({
          id: i.id,
          finding: i.f.id,
          repo: i.f.repo,
          file: i.f.finding.file,
          line: i.f.finding.line,
          ruleId: i.f.finding.ruleId,
          severity: i.f.finding.severity,
          inErrorSample: errors.includes(i.f),
          inAllSample: any.includes(i.f),
        }),
      )
      .join('\n') + '\n',
  );
  const summary = [
    `# ${set}: ${repos.length} repositories, ${files} files, ${objects} objects, ${all.length} open findings`,
    '',
    `Lint (layout, kustomize renders and rules) ${lintMs.toFixed(0)} ms; yaml parseAllDocuments + toJS of the same files ${parseMs.toFixed(0)} ms (${(lintMs / Math.max(parseMs, 1)).toFixed(2)}x, one run, kustomize: ${findKustomize()?.label ?? 'not found'}). CPU of this process: lint ${lintCpuMs.toFixed(0)} ms, parse ${parseCpuMs.toFixed(0)} ms (${(lintCpuMs / Math.max(parseCpuMs, 1)).toFixed(2)}x); kustomize's child processes are not in it (time the whole command, e.g. /usr/bin/time, for them).`,
    '',
    '| repository | commit | files | objects | errors | warnings | info |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...perRepo,
    '',
    countTable(all),
    '',
    `Packet: ${items.length} items (${errors.length} errors drawn from ${all.filter((f) => f.finding.severity === 'error').length}, ${any.length} findings drawn from all ${all.length}; seed ${opts.seed}).`,
    '',
  ].join('\n');
  fs.writeFileSync(path.join(out, 'summary.md'), summary);
  return summary;
}

/** `score`: reads verdicts ({"id", "verdict"} lines) against the key and gives the figures per rule. */
export function score(out: string, verdictsFile: string): string {
  const key = fs
    .readFileSync(path.join(out, 'key.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map(
      (l) =>
        JSON.parse(l) as { id: string; ruleId: string; severity: string; inErrorSample: boolean; inAllSample: boolean },
    );
  const verdicts = new Map(
    fs
      .readFileSync(verdictsFile, 'utf8')
      .trim()
      .split('\n')
      .filter((l) => l.trim())
      .map((l) => {
        const v = JSON.parse(l) as { id: string; verdict: string };
        if (!['real', 'noise', 'wrong'].includes(v.verdict))
          throw new Error(`${v.id}: verdict "${v.verdict}" is not real, noise or wrong`);
        return [v.id, v.verdict] as const;
      }),
  );
  const missing = key.filter((k) => !verdicts.has(k.id)).map((k) => k.id);
  if (missing.length) throw new Error(`no verdict for ${missing.length} item(s): ${missing.slice(0, 10).join(', ')}`);
  const tally = (rows: typeof key) => {
    const n = rows.length;
    const c = (v: string) => rows.filter((r) => verdicts.get(r.id) === v).length;
    const pct = (x: number) => (n ? `${((100 * x) / n).toFixed(0)} %` : '-');
    return {
      n,
      real: c('real'),
      noise: c('noise'),
      wrong: c('wrong'),
      line: `${n} judged: ${c('real')} real (${pct(c('real'))}), ${c('noise')} noise (${pct(c('noise'))}), ${c('wrong')} wrong (${pct(c('wrong'))})`,
    };
  };
  const errors = tally(key.filter((k) => k.inErrorSample));
  const all = tally(key.filter((k) => k.inAllSample));
  const rules = [...new Set(key.map((k) => `${k.ruleId}\u0000${k.severity}`))].sort();
  return [
    `- error-level findings (sample of errors): ${errors.line}`,
    `- all findings (uniform sample): ${all.line}`,
    '',
    '| rule | severity | judged | real | noise | wrong |',
    '|---|---|---:|---:|---:|---:|',
    ...rules.map((r) => {
      const [id, sev] = r.split('\u0000');
      const t = tally(key.filter((k) => k.ruleId === id && k.severity === sev));
      return `| ${id} | ${sev} | ${t.n} | ${t.real} | ${t.noise} | ${t.wrong} |`;
    }),
    '',
  ].join('\n');
}

if (require.main === module) {
  const [cmd, ...argv] = process.argv.slice(2);
  const set = arg(argv, 'set', 'tuning')!;
  const out = arg(argv, 'out', path.join(ROOT, '.precision', `${set}-run`))!;
  try {
    if (cmd === 'fetch') fetchSet(set);
    else if (cmd === 'lint')
      process.stdout.write(
        lintSet(set, out, {
          sample: Number(arg(argv, 'sample', '60')),
          errors: Number(arg(argv, 'errors', '40')),
          seed: Number(arg(argv, 'seed', '21')),
        }),
      );
    else if (cmd === 'score')
      process.stdout.write(score(out, arg(argv, 'verdicts', path.join(out, 'verdicts.jsonl'))!));
    else
      throw new Error(
        'usage: precision.js fetch|lint|score [--set tuning|heldOut] [--out dir] [--sample 60] [--errors 40] [--seed 21] [--verdicts file]',
      );
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    process.exitCode = 2;
  }
}
