import * as fs from 'fs';
import * as path from 'path';

/** The name of the ignore file read at the root of every scanned folder (one glob a line, `#` comments). */
export const IGNORE_FILE = '.rollwiseignore';

const EXTENSIONS = ['.yaml', '.yml', '.json'];

/**
 * A glob as `--exclude` and .rollwiseignore take it, gitignore-like: `*` and `?` stay within one
 * path segment, `**` spans segments, a trailing `/` matches folders only; a pattern without `/`
 * matches a file or folder name at any depth, one with `/` matches the path from the scan root.
 */
export class Glob {
  private readonly re: RegExp;
  public readonly dirOnly: boolean;

  constructor(public readonly pattern: string) {
    let p = pattern.trim();
    this.dirOnly = p.endsWith('/');
    if (this.dirOnly) p = p.slice(0, -1);
    const anchored = p.includes('/');
    if (p.startsWith('/')) p = p.slice(1);
    if (p.startsWith('./')) p = p.slice(2);
    let re = '';
    for (let i = 0; i < p.length; i++) {
      const ch = p[i];
      if (ch === '*' && p[i + 1] === '*') {
        const slash = p[i + 2] === '/';
        re += slash ? '(?:.*/)?' : '.*';
        i += slash ? 2 : 1;
      } else if (ch === '*') re += '[^/]*';
      else if (ch === '?') re += '[^/]';
      else re += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
    this.re = new RegExp(anchored ? `^${re}$` : `(?:^|/)${re}$`);
  }

  /** `rel` is the path from the scan root with `/` separators. */
  public matches(rel: string, isDir: boolean): boolean {
    if (this.dirOnly && !isDir) return false;
    return this.re.test(rel);
  }
}

/** Reads the globs of a .rollwiseignore (missing file: none). */
export function readIgnoreFile(dir: string): Glob[] {
  const f = path.join(dir, IGNORE_FILE);
  let text: string;
  try {
    text = fs.readFileSync(f, 'utf8');
  } catch {
    return [];
  }
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => new Glob(l));
}

/** What a folder scan found: the manifest files, the excluded ones, and the paths it could not read. */
export interface FolderScan {
  readonly files: string[];
  /** Files and folders left out by --exclude or .rollwiseignore. */
  readonly excluded: number;
  /** Paths that could not be listed or followed (permissions, a symlink loop), with the reason. */
  readonly unreadable: { path: string; reason: string }[];
}

/**
 * Files under a folder with a manifest extension, sorted; skips node_modules and dot folders, what
 * the globs exclude, and follows symlinks once (a loop is reported, not followed). A folder that
 * cannot be listed is reported and the rest is still scanned.
 */
export function scanFolder(root: string, exclude: readonly Glob[] = []): FolderScan {
  const globs = [...exclude, ...readIgnoreFile(root)];
  const files: string[] = [];
  const unreadable: { path: string; reason: string }[] = [];
  let excluded = 0;
  const seen = new Set<string>();
  const walk = (dir: string): void => {
    let real: string;
    let entries: fs.Dirent[];
    try {
      real = fs.realpathSync(dir);
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch (e) {
      unreadable.push({ path: dir, reason: (e as Error).message });
      return;
    }
    if (seen.has(real)) return; // a folder reached twice through symlinks
    seen.add(real);
    for (const e of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      let isDir = e.isDirectory();
      let isFile = e.isFile();
      if (e.isSymbolicLink()) {
        try {
          const st = fs.statSync(p);
          isDir = st.isDirectory();
          isFile = st.isFile();
        } catch (err) {
          if (EXTENSIONS.some((x) => e.name.endsWith(x))) unreadable.push({ path: p, reason: (err as Error).message });
          continue;
        }
      }
      const rel = path.relative(root, p).split(path.sep).join('/');
      if (isDir) {
        if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
        if (globs.some((g) => g.matches(rel, true))) {
          excluded++;
          continue;
        }
        walk(p);
      } else if (isFile && EXTENSIONS.some((x) => e.name.endsWith(x))) {
        if (globs.some((g) => g.matches(rel, false))) {
          excluded++;
          continue;
        }
        files.push(p);
      }
    }
  };
  walk(root);
  return { files, excluded, unreadable };
}
