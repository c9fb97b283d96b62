import * as fs from 'fs';
import * as path from 'path';
import { OUTPUT_MARKER } from './ownership';

export interface DriftSummaryOptions {
  /**
   * Changed files shown with an excerpt; the rest are only listed.
   * @default 5
   */
  readonly maxFiles?: number;
  /**
   * Lines shown per side of a changed region ("-" committed, "+" synthesized).
   * @default 8
   */
  readonly maxLines?: number;
  /**
   * Unchanged lines shown before and after a changed region.
   * @default 2
   */
  readonly context?: number;
  /**
   * How the two folders are named in the excerpt headers.
   * @default { committed: 'committed', synthesized: 'synthesized' }
   */
  readonly labels?: { readonly committed: string; readonly synthesized: string };
  /**
   * Start with the lists of changed, missing and extra files (leave out when the caller prints
   * them itself, e.g. from `SynthResult.drift`).
   * @default true
   */
  readonly fileLists?: boolean;
}

/**
 * How `actual` differs from `expected`: files only in expected (missing), only in actual (extra), and with other bytes
 * (changed).
 */
export function compareDirs(
  expected: string,
  actual: string,
): { missing: string[]; extra: string[]; changed: string[] } {
  const a = new Set(listFiles(expected));
  const b = new Set(listFiles(actual));
  return {
    missing: [...a].filter((f) => !b.has(f)),
    extra: [...b].filter((f) => !a.has(f)),
    changed: [...a].filter(
      (f) => b.has(f) && !fs.readFileSync(path.join(expected, f)).equals(fs.readFileSync(path.join(actual, f))),
    ),
  };
}

/** Files that differ between two folders: "changed x", "missing x" (only in expected), "extra x", sorted. */
export function diffDirs(expected: string, actual: string): string[] {
  const { missing, extra, changed } = compareDirs(expected, actual);
  return [
    ...changed.map((f) => `changed ${f}`),
    ...missing.map((f) => `missing ${f}`),
    ...extra.map((f) => `extra ${f}`),
  ].sort();
}

/**
 * A readable summary of how a committed output folder differs from a freshly synthesized one:
 * the missing, extra and changed files, and for each changed file (up to `maxFiles`) a
 * unified-diff-like excerpt of the region between the first and the last differing line, with
 * line numbers. Returns "" when the folders hold the same files with the same bytes.
 */
export function summarizeDrift(synthesizedDir: string, committedDir: string, opts: DriftSummaryOptions = {}): string {
  const maxFiles = opts.maxFiles ?? 5;
  const { missing, extra, changed } = compareDirs(synthesizedDir, committedDir);
  if (missing.length + extra.length + changed.length === 0) return '';
  const out: string[] = [];
  const list = (title: string, files: string[]) => {
    if (files.length) out.push(`${title} (${files.length}):`, ...files.map((f) => `  ${f}`));
  };
  if (opts.fileLists ?? true) {
    list('changed', changed);
    list('not committed yet (the code produces them)', missing);
    list('committed but no longer produced', extra);
  }
  for (const f of changed.slice(0, maxFiles)) {
    if (out.length) out.push('');
    out.push(
      excerpt(
        f,
        fs.readFileSync(path.join(committedDir, f), 'utf8'),
        fs.readFileSync(path.join(synthesizedDir, f), 'utf8'),
        opts,
      ),
    );
  }
  if (changed.length > maxFiles) out.push('', `(${changed.length - maxFiles} more changed file(s) not shown)`);
  return out.length ? `${out.join('\n')}\n` : '';
}

/**
 * One hunk covering everything between the first and the last differing line of two texts
 * (common prefix and suffix trimmed), with line numbers on both sides.
 */
export function diffExcerpt(
  name: string,
  committed: string,
  synthesized: string,
  opts: DriftSummaryOptions = {},
): string {
  return excerpt(name, committed, synthesized, opts);
}

function excerpt(name: string, before: string, after: string, opts: DriftSummaryOptions): string {
  const maxLines = opts.maxLines ?? 8;
  const context = opts.context ?? 2;
  const labels = opts.labels ?? { committed: 'committed', synthesized: 'synthesized' };
  const a = before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const ctxStart = Math.max(0, start - context);
  const width = String(Math.max(endA, endB) + context).length;
  const num = (n: number) => String(n + 1).padStart(width);
  const lines = [
    `--- ${name} (${labels.committed})`,
    `+++ ${name} (${labels.synthesized})`,
    `@@ -${start + 1},${endA - start} +${start + 1},${endB - start} @@ first difference at line ${start + 1}`,
  ];
  for (let i = ctxStart; i < start; i++) lines.push(`${num(i)}   ${a[i]}`);
  const side = (sign: string, src: string[], from: number, to: number) => {
    for (let i = from; i < Math.min(to, from + maxLines); i++) lines.push(`${num(i)} ${sign} ${src[i]}`);
    if (to - from > maxLines) lines.push(`${' '.repeat(width)} ${sign} ... ${to - from - maxLines} more line(s)`);
  };
  side('-', a, start, endA);
  side('+', b, start, endB);
  for (let i = endB; i < Math.min(b.length, endB + context); i++) lines.push(`${num(i)}   ${b[i]}`);
  return lines.join('\n');
}

/** Files under a folder, relative and "/"-separated, sorted; [] when the folder does not exist. */
export function listFiles(dir: string, base = ''): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(dir, base), { withFileTypes: true })) {
    if (base === '' && e.name === OUTPUT_MARKER) continue; // rollwise's marker, not output (ownership.ts)
    const rel = base ? `${base}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...listFiles(dir, rel));
    else out.push(rel);
  }
  return out.sort();
}

/**
 * A short description of a list of output files: all names when there are at most `max`, else
 * the count per top-level folder ("1500 in dev/, 1500 in prod/").
 */
export function describeFiles(files: readonly string[], max = 10): string {
  if (files.length <= max) return files.join(', ');
  const per = new Map<string, number>();
  for (const f of files) {
    const i = f.indexOf('/');
    const folder = i < 0 ? '.' : `${f.slice(0, i)}/`;
    per.set(folder, (per.get(folder) ?? 0) + 1);
  }
  return [...per]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([folder, n]) => `${n} ` + `in ${folder === '.' ? 'the top folder' : folder}`)
    .join(', ');
}
