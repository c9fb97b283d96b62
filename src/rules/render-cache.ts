import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import * as YAML from 'yaml';
import { KUSTOMIZATION_FILES, REMOTE } from './kustomization-files';
import { ParseProblem } from './types';

/**
 * A cache of kustomize renders on disk, keyed by the content of everything the render can read, so
 * that a CI re-run over unchanged kustomizations starts no kustomize process.
 *
 * What a render of a kustomization folder can read (kustomize v5.5.0, the default load restrictor
 * `LoadRestrictionsRootOnly`): files "in or below" the folder of the kustomization that names them
 * (api/internal/loader/loadrestrictions.go RestrictionRootOnly, applied by FileLoader.Load in
 * api/internal/loader/fileloader.go), and other folders named by an entry (resources, components,
 * transformers, generators, validators), each read by a new loader rooted at that folder
 * (FileLoader.New) under the same rule. So the key is the hash of every file below the root's folder
 * and below every folder a kustomization of the closure names, followed entry by entry: each string
 * of a kustomization that names an existing path relative to its folder adds that path (a folder,
 * or a file outside the hashed folders), and one that names nothing is recorded as missing, so a
 * path that appears later changes the key. `.git` folders are not hashed (kustomize reads them only
 * for remote `?ref=` resources, and those are not cached). Not cached: a tree with any string that
 * names a remote location (its content is on the network), and renders that did not finish (a
 * timeout or a process that failed to start). The renderer is part of the key by its resolved path,
 * size and modification time.
 */

/** What one kustomize process gave, as it is cached. */
export interface CachedRender {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The wrapper folder the render ran in: the origin annotations are paths relative to it. */
  readonly base: string;
}

const VERSION = 'rollwise-render-cache-1';

/**
 * The cache folder: ROLLWISE_KUSTOMIZE_CACHE (a folder, or `off`), else
 * `$XDG_CACHE_HOME/rollwise/kustomize`, else `~/.cache/rollwise/kustomize` (the XDG Base Directory
 * default). Undefined when it is off or the environment has no HOME.
 */
export function renderCacheDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const set = env.ROLLWISE_KUSTOMIZE_CACHE;
  if (set === 'off') return undefined;
  if (set !== undefined && set !== '') return path.resolve(set);
  const xdg = env.XDG_CACHE_HOME;
  if (xdg !== undefined && path.isAbsolute(xdg)) return path.join(xdg, 'rollwise', 'kustomize');
  // HOME of the environment given (runLint's env), not os.homedir(): an environment without a home
  // (a test's { PATH }) caches nothing.
  const home = env.HOME;
  return home !== undefined && path.isAbsolute(home) ? path.join(home, '.cache', 'rollwise', 'kustomize') : undefined;
}

/** Thrown by ContentHasher past its budget: the render is not cached (its inputs are too big to key). */
class HashBudgetExceeded extends Error {}

/**
 * What one scan may read to key its renders: kustomize inputs are kilobytes to a few megabytes of
 * YAML; a tree over these bounds is rendered every time rather than hashed without end.
 */
export const HASH_BUDGET = { bytes: 256 * 1024 * 1024, entries: 100_000 };

/** Hashes of files and folders, shared by the keys of one scan (many roots share folders). */
export class ContentHasher {
  private readonly files = new Map<string, string>();
  private readonly dirs = new Map<string, string>();
  private bytes = 0;
  private entries = 0;

  constructor(private readonly budget: { readonly bytes: number; readonly entries: number } = HASH_BUDGET) {}

  private spend(bytes: number, entries: number): void {
    this.bytes += bytes;
    this.entries += entries;
    if (this.bytes > this.budget.bytes || this.entries > this.budget.entries) throw new HashBudgetExceeded();
  }

  /** The hash of a file's bytes, or of its absence. */
  file(abs: string): string {
    let h = this.files.get(abs);
    if (h === undefined) {
      let bytes: Buffer | undefined;
      try {
        // Regular files only, their size spent before they are read (a device or a FIFO is not).
        const st = fs.statSync(abs);
        if (st.isFile()) {
          this.spend(st.size, 1);
          bytes = fs.readFileSync(abs);
        }
      } catch (e) {
        if (e instanceof HashBudgetExceeded) throw e;
      }
      h = bytes === undefined ? 'unreadable' : createHash('sha256').update(bytes).digest('hex');
      this.files.set(abs, h);
    }
    return h;
  }

  /** The hash of a folder: every entry's name, type and content, recursively (not `.git`). */
  dir(abs: string, depth = 0): string {
    let h = this.dirs.get(abs);
    if (h !== undefined) return h;
    const hash = createHash('sha256');
    let entries: fs.Dirent[] = [];
    try {
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      hash.update('unreadable');
    }
    this.spend(0, entries.length);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const p = path.join(abs, e.name);
      if (e.isDirectory()) {
        if (e.name === '.git') continue;
        hash.update(`d ${e.name} ${depth < 64 ? this.dir(p, depth + 1) : 'deep'}\n`);
      } else if (e.isSymbolicLink()) {
        // Where the link points is part of the key; a link to a file also hashes the file's bytes.
        let target = '';
        try {
          target = fs.readlinkSync(p);
        } catch {
          target = 'unreadable';
        }
        let isFile = false;
        try {
          isFile = fs.statSync(p).isFile();
        } catch {
          isFile = false;
        }
        hash.update(`l ${e.name} ${target} ${isFile ? this.file(p) : ''}\n`);
      } else if (e.isFile()) {
        hash.update(`f ${e.name} ${this.file(p)}\n`);
      }
    }
    h = hash.digest('hex');
    this.dirs.set(abs, h);
    return h;
  }
}

/** Every string value of a parsed YAML value. */
function strings(v: unknown, out: string[]): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v !== null && typeof v === 'object')
    for (const x of Object.values(v as Record<string, unknown>)) strings(x, out);
  return out;
}

/** The renderer's identity: its resolved path, size and modification time. */
function rendererId(command: string, args: readonly string[], env: NodeJS.ProcessEnv): string | undefined {
  let bin = command;
  if (!command.includes(path.sep)) {
    bin =
      (env.PATH ?? '')
        .split(path.delimiter)
        .filter((d) => d !== '')
        .map((d) => path.join(d, command))
        .find((p) => fs.existsSync(p)) ?? '';
  }
  try {
    const real = fs.realpathSync(bin);
    const st = fs.statSync(real);
    return `${real} ${st.size} ${st.mtimeMs} ${args.join(' ')}`;
  } catch {
    return undefined;
  }
}

/**
 * The key of a render of `rootDir` (absolute) by `command args`, or undefined when the render must
 * not be cached: a remote location in the tree, an unknown renderer, a folder named outside
 * `within` (the repository, when known) or above a kustomization that has a kustomization of its
 * own, or inputs over the hasher's budget.
 *
 * Every one-line string of a kustomization is tried as a path, so values that are not paths are
 * tried too: an Ingress patch's `path: /` names the filesystem's root, which a loader never reads as
 * a resource folder without a kustomization in it (kustomize v5.5.0 api/internal/target/
 * kusttarget.go: a folder resource is a kustomization). A folder above the kustomization without a
 * kustomization file is therefore recorded by name, not hashed.
 */
export function renderKey(
  rootDir: string,
  command: string,
  args: readonly string[],
  hasher: ContentHasher,
  env: NodeJS.ProcessEnv = process.env,
  within?: string,
): string | undefined {
  try {
    return renderKeyOrThrow(
      rootDir,
      command,
      args,
      hasher,
      env,
      within === undefined ? undefined : path.resolve(within),
    );
  } catch (e) {
    if (e instanceof HashBudgetExceeded) return undefined;
    throw e;
  }
}

const hasKustomization = (dir: string): boolean => KUSTOMIZATION_FILES.some((n) => fs.existsSync(path.join(dir, n)));
const inside = (f: string, dir: string): boolean =>
  f === dir || f.startsWith(dir.endsWith(path.sep) ? dir : `${dir}${path.sep}`);

function renderKeyOrThrow(
  rootDir: string,
  command: string,
  args: readonly string[],
  hasher: ContentHasher,
  env: NodeJS.ProcessEnv,
  within: string | undefined,
): string | undefined {
  const renderer = rendererId(command, args, env);
  if (renderer === undefined) return undefined;
  const hash = createHash('sha256').update(`${VERSION}\n${renderer}\n${rootDir}\n`);
  const dirs: string[] = [rootDir];
  const seen = new Set<string>(dirs);
  const extraFiles = new Set<string>();
  const missing = new Set<string>();
  const above = new Set<string>();
  for (let i = 0; i < dirs.length; i++) {
    const dir = dirs[i];
    const kf = KUSTOMIZATION_FILES.map((n) => path.join(dir, n)).find((f) => fs.existsSync(f));
    if (kf === undefined) continue;
    let doc: unknown;
    try {
      doc = YAML.parse(fs.readFileSync(kf, 'utf8'), { uniqueKeys: false });
    } catch {
      continue; // kustomize fails on it; the file's bytes are in the folder's hash
    }
    for (const s of strings(doc, [])) {
      // A line break: an inline patch or a value, never a path kustomize loads (nor a URL it fetches).
      if (s === '' || s.includes('\n') || s.length > 4096) continue;
      if (REMOTE.test(s)) return undefined;
      const abs = path.resolve(dir, s);
      let st: fs.Stats | undefined;
      try {
        st = fs.statSync(abs);
      } catch {
        missing.add(abs);
        continue;
      }
      if (st.isDirectory()) {
        if (abs !== dir && inside(dir, abs)) {
          // A folder above this kustomization (`/`, `..`): not a resource folder unless it holds a
          // kustomization; hashing it would read everything below it.
          if (hasKustomization(abs)) return undefined;
          above.add(abs);
          continue;
        }
        if (within !== undefined && !inside(abs, within)) return undefined;
        if (!seen.has(abs)) {
          seen.add(abs);
          dirs.push(abs);
        }
      } else if (within !== undefined && !inside(abs, within)) {
        return undefined;
      } else {
        extraFiles.add(abs);
      }
    }
  }
  const sorted = [...dirs].sort();
  const under = (f: string): boolean => sorted.some((d) => f.startsWith(`${d}${path.sep}`));
  for (const d of sorted) hash.update(`dir ${d} ${hasher.dir(d)}\n`);
  for (const f of [...extraFiles].filter((x) => !under(x)).sort()) hash.update(`file ${f} ${hasher.file(f)}\n`);
  for (const m of [...missing].sort()) hash.update(`missing ${m}\n`);
  for (const a of [...above].sort()) hash.update(`above ${a}\n`);
  return hash.digest('hex');
}

/** A cached render, or undefined (absent, unreadable or of another shape). */
export function readCachedRender(cacheDir: string, key: string): CachedRender | undefined {
  try {
    const v = JSON.parse(fs.readFileSync(path.join(cacheDir, `${key}.json`), 'utf8')) as Partial<CachedRender>;
    if (
      (typeof v.status === 'number' || v.status === null) &&
      typeof v.stdout === 'string' &&
      typeof v.stderr === 'string' &&
      typeof v.base === 'string'
    ) {
      return { status: v.status, stdout: v.stdout, stderr: v.stderr, base: v.base };
    }
  } catch {
    // absent or unreadable: render
  }
  return undefined;
}

/**
 * Stores a render (written to a temporary file and renamed, so a reader never sees half of it). A cache that cannot be
 * written is skipped.
 */
export function writeCachedRender(cacheDir: string, key: string, value: CachedRender): void {
  try {
    fs.mkdirSync(cacheDir, { recursive: true });
    const tmp = path.join(cacheDir, `.${key}.${process.pid}.tmp`);
    fs.writeFileSync(tmp, JSON.stringify(value));
    fs.renameSync(tmp, path.join(cacheDir, `${key}.json`));
  } catch {
    // read-only home, full disk: the lint is the same, only slower next time
  }
}

/** One object of a render's output as lint reads it (layout.ts parseRendered): the object, its kind and name. */
export interface RenderedObject {
  readonly obj: Record<string, unknown>;
  readonly kind: string;
  readonly name: string;
}

/**
 * What lint takes from one successful render's output: its objects (origin annotations still on,
 * in output order) and its parse problems (lines of the output, without the file name, which the
 * scan gives). Findings on rendered objects take their lines from the origin files (layout.ts
 * twinOf), not from the output, so the output's own line maps are not needed.
 */
export interface ParsedRender {
  readonly objects: RenderedObject[];
  readonly problems: Omit<ParseProblem, 'file'>[];
}

const PARSED_VERSION = 'rollwise-parsed-render-1';

/** The folder holding rollwise's package.json, from source (src/rules) or compiled code (lib/src/rules). */
function packageRoot(): string {
  let dir = __dirname;
  while (!fs.existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

let parserIdMemo: string | undefined;

/**
 * The identity of the code that turns a render's output into a ParsedRender: rollwise's version
 * (package.json), the `yaml` package's version (the reader of what fast-yaml.ts leaves to it), and
 * the bytes of every file of the running rules folder (this module's folder: source.ts's
 * parseManifestText, fast-yaml.ts, layout.ts's parseRendered and types.ts live there, as .ts under
 * the tests and .js when built). Why that is complete: parseManifestText imports only `yaml`,
 * './fast-yaml', './types' and '../justify/annotations', and the last is used only for line
 * lookups, which a ParsedRender does not hold; parseRendered is in layout.ts. So a change of any
 * code the stored objects and problems came from changes the id (and a release bump always does).
 */
export function parserId(): string {
  if (parserIdMemo !== undefined) return parserIdMemo;
  const hash = createHash('sha256').update(`${PARSED_VERSION}\n`);
  const version = (file: string): string => {
    try {
      return String((JSON.parse(fs.readFileSync(file, 'utf8')) as { version?: unknown }).version);
    } catch {
      return 'unknown';
    }
  };
  hash.update(`rollwise ${version(path.join(packageRoot(), 'package.json'))}\n`);
  let yamlPackage = 'unknown';
  try {
    // node_modules/yaml/dist/index.js -> node_modules/yaml/package.json
    yamlPackage = path.join(path.dirname(path.dirname(require.resolve('yaml'))), 'package.json');
  } catch {
    // not resolvable from here: the id still has the rules' code
  }
  hash.update(`yaml ${version(yamlPackage)}\n`);
  for (const e of fs.readdirSync(__dirname, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!e.isFile()) continue;
    hash
      .update(`${e.name} `)
      .update(fs.readFileSync(path.join(__dirname, e.name)))
      .update('\n');
  }
  parserIdMemo = hash.digest('hex');
  return parserIdMemo;
}

/**
 * Whether a parsed value comes back the same through JSON: null, booleans, strings, finite numbers
 * other than -0, arrays and plain objects of them, no `__proto__` key. What the readers give is
 * (YAML 1.1 `.inf` and `.nan` are numbers JSON cannot hold; a timestamp is a Date): anything else
 * is not stored, and that render is parsed on every run as before.
 */
function jsonSafe(v: unknown, depth = 0): boolean {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return true;
  if (typeof v === 'number') return Number.isFinite(v) && !Object.is(v, -0);
  if (typeof v !== 'object' || depth > 1000) return false;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) if (!(i in v) || !jsonSafe(v[i], depth + 1)) return false;
    return true;
  }
  // A plain object of any realm (structuredClone's copies under jest's vm context are of another
  // realm's Object.prototype): its prototype is null or has none above it, and it is no Date or Map.
  const proto = Object.getPrototypeOf(v) as object | null;
  if (proto !== null && Object.getPrototypeOf(proto) !== null) return false;
  if (Object.prototype.toString.call(v) !== '[object Object]') return false;
  for (const k of Object.keys(v)) {
    if (k === '__proto__' || !jsonSafe((v as Record<string, unknown>)[k], depth + 1)) return false;
  }
  return Object.getOwnPropertySymbols(v).length === 0;
}

const parsedFile = (cacheDir: string, key: string): string =>
  path.join(cacheDir, `${key}.parsed-${parserId().slice(0, 24)}.json`);

/**
 * The parsed form of a cached successful render, stored beside it (writeParsedRender), or undefined
 * (absent, unreadable, another parser, another shape). It is read with JSON.parse instead of
 * parsing the output's YAML again. Its key is the render's key (everything the render can read and
 * the renderer: renderKey) and parserId() (the code that parsed it), both stored in the file and
 * compared in full, so a changed input, renderer or rollwise never reuses it.
 */
export function readParsedRender(
  cacheDir: string,
  key: string,
): { readonly base: string; readonly parsed: ParsedRender } | undefined {
  try {
    const v = JSON.parse(fs.readFileSync(parsedFile(cacheDir, key), 'utf8')) as {
      version?: unknown;
      key?: unknown;
      parser?: unknown;
      base?: unknown;
      objects?: unknown;
      problems?: unknown;
    };
    if (v.version !== PARSED_VERSION || v.key !== key || v.parser !== parserId() || typeof v.base !== 'string')
      return undefined;
    if (!Array.isArray(v.objects) || !Array.isArray(v.problems)) return undefined;
    const objects = v.objects as unknown[];
    const problems = v.problems as unknown[];
    const isRecord = (x: unknown): x is Record<string, unknown> =>
      x !== null && typeof x === 'object' && !Array.isArray(x);
    for (const o of objects)
      if (!isRecord(o) || !isRecord(o.obj) || typeof o.kind !== 'string' || typeof o.name !== 'string')
        return undefined;
    for (const p of problems)
      if (!isRecord(p) || typeof p.line !== 'number' || typeof p.message !== 'string') return undefined;
    return {
      base: v.base,
      parsed: { objects: objects as RenderedObject[], problems: problems as Omit<ParseProblem, 'file'>[] },
    };
  } catch {
    return undefined; // absent or unreadable: parse the output
  }
}

/**
 * Stores the parsed form of a successful render whose output is cached under `key` (base: the
 * wrapper folder its origin annotations are relative to). Call it before anything edits the objects.
 * Not stored when a value would not come back the same through JSON (jsonSafe), or when the cache
 * cannot be written.
 */
export function writeParsedRender(
  cacheDir: string,
  key: string,
  base: string,
  parsed: { readonly objects: readonly RenderedObject[]; readonly problems: readonly ParseProblem[] },
): void {
  // The file name is the scan's (the root's kustomization as shown): given back by the reader's caller.
  const problems = parsed.problems.map((p) => {
    const { file, ...rest } = p;
    void file;
    return rest;
  });
  if (!parsed.objects.every((o) => jsonSafe(o.obj)) || !jsonSafe(problems)) return;
  try {
    fs.mkdirSync(cacheDir, { recursive: true });
    const file = parsedFile(cacheDir, key);
    const tmp = path.join(cacheDir, `.${path.basename(file)}.${process.pid}.tmp`);
    fs.writeFileSync(
      tmp,
      JSON.stringify({
        version: PARSED_VERSION,
        key,
        parser: parserId(),
        base,
        objects: parsed.objects,
        problems,
      }),
    );
    fs.renameSync(tmp, file);
  } catch {
    // read-only home, full disk: the lint is the same, only slower next time
  }
}
