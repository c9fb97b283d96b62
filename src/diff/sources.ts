import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { listFiles } from '../synth/diff';
import { InputTooLargeError, maxInputBytes, readTextCapped } from '../read-limit';

/**
 * One side of a diff: a folder on disk, or the output folder as committed at a Git revision.
 * Paths are relative to the folder and "/"-separated.
 */
export type DiffSide =
  | { readonly type: 'folder'; readonly dir: string; readonly label: string }
  | {
      readonly type: 'git';
      readonly repo: string;
      readonly rev: string;
      readonly commit: string;
      readonly dir: string;
      readonly label: string;
    };

/** A file that differs between the two sides. */
export interface ChangedFile {
  readonly path: string;
  readonly change: 'added' | 'removed' | 'modified';
}

/** Thrown for arguments that name neither a folder nor a revision; the CLI exits 2 with it. */
export class DiffInputError extends Error {}

function git(repo: string, args: string[], input?: string): Buffer {
  return execFileSync('git', ['-C', repo, ...args], { input, maxBuffer: 1 << 30, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** The top of the Git work tree that holds `dir`, or undefined outside a repository. */
export function gitTopLevel(dir: string): string | undefined {
  try {
    return git(dir, ['rev-parse', '--show-toplevel']).toString().trim();
  } catch {
    return undefined;
  }
}

function resolveCommit(repo: string, rev: string): string | undefined {
  try {
    return (
      git(repo, ['rev-parse', '--verify', '--quiet', `${rev}^{commit}`])
        .toString()
        .trim() || undefined
    );
  } catch {
    return undefined;
  }
}

/**
 * The revision `rollwise diff` compares against when none is given: the merge base of HEAD and
 * the branch a pull request targets (origin/HEAD, then origin/main, main, origin/master, master).
 */
export function defaultBaseRevision(repo: string): string {
  for (const candidate of ['origin/HEAD', 'origin/main', 'main', 'origin/master', 'master']) {
    if (!resolveCommit(repo, candidate)) continue;
    try {
      return git(repo, ['merge-base', 'HEAD', candidate]).toString().trim();
    } catch {
      // unrelated histories: try the next candidate
    }
  }
  throw new DiffInputError(
    'no base revision to compare with: none of origin/HEAD, origin/main, main, origin/master, master exists. Name ' +
      'one: rollwise diff <revision>',
  );
}

/**
 * Reads an argument as a folder (when one exists at that path) or else as a Git revision of
 * `outDir` (e.g. `origin/main`, `HEAD~1`, a commit hash) in the repository around the current folder.
 */
export function resolveSide(arg: string, outDir: string, cwd = process.cwd()): DiffSide {
  const asPath = path.resolve(cwd, arg);
  if (fs.existsSync(asPath) && fs.statSync(asPath).isDirectory()) return { type: 'folder', dir: asPath, label: arg };
  const repo = gitTopLevel(cwd);
  if (!repo)
    throw new DiffInputError(
      `"${arg}" is not a folder, and ${cwd} is not inside a Git repository, so it cannot be a revision either: give ` +
        'two output folders, or run inside the repository',
    );
  const commit = resolveCommit(repo, arg);
  if (!commit)
    throw new DiffInputError(
      `"${arg}" is neither a folder nor a Git revision (git rev-parse found no commit): give an output folder, a ` +
        'branch, a tag or a commit',
    );
  const dir = path.relative(repo, path.resolve(cwd, outDir)).split(path.sep).join('/');
  return { type: 'git', repo, rev: arg, commit, dir, label: `${dir}@${arg}` };
}

/** The working tree's output folder as a side (the default new side). */
export function workingTreeSide(outDir: string, cwd = process.cwd()): DiffSide {
  const dir = path.resolve(cwd, outDir);
  if (!fs.existsSync(dir))
    throw new DiffInputError(
      `${outDir}/ does not exist in ${cwd}: run the synth first, or name the output folder with --dir`,
    );
  return { type: 'folder', dir, label: `${outDir} (working tree)` };
}

/** Every file on a side (names only; nothing is read). */
export function listSide(side: DiffSide): string[] {
  if (side.type === 'folder') return listFiles(side.dir);
  const prefix = side.dir ? `${side.dir}/` : '';
  const out = git(side.repo, [
    'ls-tree',
    '-r',
    '-z',
    '--name-only',
    '--full-tree',
    side.commit,
    '--',
    side.dir || '.',
  ]).toString();
  return out
    .split('\0')
    .filter(Boolean)
    .map((p) => p.slice(prefix.length))
    .sort();
}

/** The Git work-tree folder a folder side stands for, when it is `dir` of the same repository. */
function sameWorkTreeDir(side: DiffSide, other: DiffSide & { type: 'git' }): boolean {
  return side.type === 'folder' && path.resolve(other.repo, other.dir) === path.resolve(side.dir);
}

/**
 * The files that differ. Git sides are compared by Git (tree objects, and the index's stat cache
 * for the working tree), so unchanged files are never read: the work grows with the changed files,
 * not the estate. Two plain folders are compared byte by byte (read, not parsed).
 */
export function changedFiles(oldSide: DiffSide, newSide: DiffSide): ChangedFile[] {
  if (
    oldSide.type === 'git' &&
    newSide.type === 'git' &&
    oldSide.repo === newSide.repo &&
    oldSide.dir === newSide.dir
  ) {
    return parseNameStatus(
      git(oldSide.repo, [
        'diff',
        '--no-renames',
        '--name-status',
        '-z',
        oldSide.commit,
        newSide.commit,
        '--',
        oldSide.dir || '.',
      ]).toString(),
      oldSide.dir,
    );
  }
  if (oldSide.type === 'git' && sameWorkTreeDir(newSide, oldSide)) {
    const tracked = parseNameStatus(
      git(oldSide.repo, [
        'diff',
        '--no-renames',
        '--name-status',
        '-z',
        oldSide.commit,
        '--',
        oldSide.dir || '.',
      ]).toString(),
      oldSide.dir,
    );
    const untracked = git(oldSide.repo, ['ls-files', '--others', '--exclude-standard', '-z', '--', oldSide.dir || '.'])
      .toString()
      .split('\0')
      .filter(Boolean)
      .map((p) => ({ path: stripDir(p, oldSide.dir), change: 'added' as const }));
    return [...tracked, ...untracked].sort((a, b) => a.path.localeCompare(b.path));
  }
  const a = new Set(listSide(oldSide));
  const b = new Set(listSide(newSide));
  const out: ChangedFile[] = [];
  const both = [...a].filter((f) => b.has(f));
  const oldText = readFiles(oldSide, both);
  const newText = readFiles(newSide, both);
  for (const f of both) if (oldText.get(f) !== newText.get(f)) out.push({ path: f, change: 'modified' });
  for (const f of a) if (!b.has(f)) out.push({ path: f, change: 'removed' });
  for (const f of b) if (!a.has(f)) out.push({ path: f, change: 'added' });
  return out.sort((x, y) => x.path.localeCompare(y.path));
}

function stripDir(p: string, dir: string): string {
  return dir && p.startsWith(`${dir}/`) ? p.slice(dir.length + 1) : p;
}

function parseNameStatus(out: string, dir: string): ChangedFile[] {
  const parts = out.split('\0').filter(Boolean);
  const files: ChangedFile[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const status = parts[i][0];
    const change = status === 'A' ? 'added' : status === 'D' ? 'removed' : 'modified';
    files.push({ path: stripDir(parts[i + 1], dir), change });
  }
  return files;
}

/** The texts of `files` on a side (absent files are missing from the map); one `git cat-file` for a revision. */
export function readFiles(side: DiffSide, files: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  if (files.length === 0) return out;
  if (side.type === 'folder') {
    for (const f of files) {
      const p = path.join(side.dir, f);
      if (fs.existsSync(p)) out.set(f, readTextCapped(p));
    }
    return out;
  }
  const prefix = side.dir ? `${side.dir}/` : '';
  const input = files.map((f) => `${side.commit}:${prefix}${f}\n`).join('');
  const buf = git(side.repo, ['cat-file', '--batch'], input);
  // Output per object: "<sha> blob <size>\n<size bytes>\n", or "<name> missing\n".
  let pos = 0;
  for (const f of files) {
    const nl = buf.indexOf(0x0a, pos);
    const header = buf.subarray(pos, nl).toString();
    pos = nl + 1;
    const m = /^[0-9a-f]+ blob (\d+)$/.exec(header);
    if (!m) continue;
    const size = Number(m[1]);
    const max = maxInputBytes();
    if (size > max)
      throw new InputTooLargeError(
        `${side.commit}:${prefix}${f} is ${size} bytes, above the input cap of ${max} bytes: no committed manifest is ` +
          `that large, so this is likely not rollwise's output. To read it anyway, set ` +
          'ROLLWISE_MAX_INPUT_BYTES=<bytes>.',
      );
    out.set(f, buf.subarray(pos, pos + size).toString('utf8'));
    pos += size + 1;
  }
  return out;
}
