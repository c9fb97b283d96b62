import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as YAML from 'yaml';
import { rec, str } from './k8s';
import type { Kustomization } from './kustomization-read';
import {
  ContentHasher,
  ParsedRender,
  readCachedRender,
  readParsedRender,
  renderKey,
  writeCachedRender,
} from './render-cache';
import { parseManifestText, ParsedSource } from './source';
import { ParseProblem } from './types';

/**
 * Running kustomize for a scan (layout.ts): which renderer it uses (`kustomize build`, or the
 * kustomize embedded in `kubectl kustomize`), the process pool that renders the roots at once, the
 * reason in a failed render's output, and the output read back: its documents, the origin
 * annotation kustomize adds for us (buildMetadata: [originAnnotations]) and the patch that wrote a
 * field. It mirrors kustomize v5.5.0's build output (kubernetes-sigs/kustomize kustomize/v5.5.0
 * kustomize/commands/build/build.go writes m.AsYaml(); api/resmap/reswrangler.go AsYaml separates
 * the objects with "---\n") and kubectl 1.32's klog error lines, as each function's comment says.
 */

/** A program that renders a kustomization: `kustomize build <dir>` or `kubectl kustomize <dir>`. */
export interface KustomizeRenderer {
  readonly command: string;
  readonly args: readonly string[];
  /** How findings name it: `kubectl kustomize` or `kustomize build`. */
  readonly label: string;
}

/** An executable on PATH, or undefined. */
function onPath(name: string, pathVar: string | undefined): string | undefined {
  for (const dir of (pathVar ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      if (fs.statSync(p).isFile()) return p;
    } catch {
      // not here
    }
  }
  return undefined;
}

function rendererFor(bin: string): KustomizeRenderer {
  return /kubectl[^/]*$/.test(path.basename(bin))
    ? { command: bin, args: ['kustomize'], label: 'kubectl kustomize' }
    : { command: bin, args: ['build'], label: 'kustomize build' };
}

/**
 * The kustomize renderer to use: `ROLLWISE_KUSTOMIZE` (a path to kustomize or kubectl, or `off`),
 * else `kustomize` on PATH, else `kubectl` on PATH (kubectl has embedded kustomize since 1.14).
 * Undefined when none is found: each file is then linted alone, with a note.
 */
export function findKustomize(env: NodeJS.ProcessEnv = process.env): KustomizeRenderer | undefined {
  const set = env.ROLLWISE_KUSTOMIZE;
  if (set !== undefined && set !== '') return set === 'off' ? undefined : rendererFor(set);
  const bin = onPath('kustomize', env.PATH) ?? onPath('kubectl', env.PATH);
  return bin ? rendererFor(bin) : undefined;
}

const ORIGIN = 'config.kubernetes.io/origin';

/** A render's output, with its cache key when cached, or its parsed form when that was cached (render-cache.ts). */
export type Rendered = { text: string; base: string; key?: string; parsed?: ParsedRender } | { error: string };

/** What one kustomize process gave: its exit, output, or why it did not run. */
interface ProcessResult {
  readonly status?: number | null;
  readonly stdout?: string;
  readonly stderr?: string;
  readonly error?: string;
}

/**
 * A helper process that runs `command args dir` for each folder, at most `jobs` at a time, and
 * writes the results as JSON (layoutScan is synchronous, so the concurrency lives in a child).
 */
const POOL = `
const { spawn } = require('child_process');
let input = '';
process.stdin.on('data', (d) => { input += d; }).on('end', () => {
  const { command, args, dirs, jobs, timeoutMs } = JSON.parse(input);
  const out = new Array(dirs.length);
  let next = 0, running = 0;
  const finish = () => {
    if (running === 0 && next >= dirs.length) process.stdout.write(JSON.stringify(out));
    else start();
  };
  const start = () => {
    while (running < jobs && next < dirs.length) {
      const i = next++;
      running++;
      const so = [], se = [];
      let done = false;
      const p = spawn(command, [...args, dirs[i]], { stdio: ['ignore', 'pipe', 'pipe'] });
      const t = setTimeout(() => { p.kill('SIGKILL'); }, timeoutMs);
      const end = (r) => { if (done) return; done = true; clearTimeout(t); out[i] = r; running--; finish(); };
      p.stdout.on('data', (d) => so.push(d));
      p.stderr.on('data', (d) => se.push(d));
      p.on('error', (e) => end({ error: e.message }));
      p.on('close', (status, signal) => {
        const killed = signal === 'SIGKILL' ? 'ETIMEDOUT' : signal;
        if (signal) end({ error: 'spawnSync ' + command + ' ' + killed });
        else end({ status, stdout: Buffer.concat(so).toString('utf8'), stderr: Buffer.concat(se).toString('utf8') });
      });
    }
  };
  if (dirs.length === 0) finish(); else start();
});
`;

/** How many renders run at once: ROLLWISE_KUSTOMIZE_JOBS, else one per CPU. */
function renderJobs(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.ROLLWISE_KUSTOMIZE_JOBS);
  if (Number.isInteger(n) && n >= 1) return n;
  return Math.max(1, typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length);
}

/**
 * The environment of a kustomize process: the scan's, with Go's collector set to run less often
 * (GOGC=400, a soft cap of GOMEMLIMIT=1GiB) unless either is set already. kustomize (kubectl 1.32,
 * go1.23) spends much of a render of megabytes of CRDs collecting garbage: `kubectl kustomize` of
 * a 3 MB CRD tree took 2.3-2.5 s user CPU at the default GOGC=100 and 1.3-1.4 s at 400 (peak
 * resident 190 MB then 400-470 MB); the output is the same. GOGC is the collection target
 * percentage and GOMEMLIMIT a soft limit on the runtime's memory past which it collects anyway
 * (golang/go go1.23 src/runtime/extern.go, package runtime's "Environment Variables").
 */
export function renderEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  if (env.GOGC !== undefined || env.GOMEMLIMIT !== undefined) return env;
  return { ...env, GOGC: '400', GOMEMLIMIT: '1GiB' };
}

/**
 * Renders kustomization roots with origin annotations, each through a wrapper kustomization in a
 * temporary folder; independent roots render concurrently (renderJobs), each in its own kustomize
 * process as before, so a root's result does not depend on the others. A render whose inputs are
 * unchanged since a cached one is taken from `cacheDir` (render-cache.ts) without a process.
 */
export function renderAll(
  roots: readonly Kustomization[],
  r: KustomizeRenderer,
  timeoutSeconds: number,
  cacheDir: string | undefined,
  repoRoot: string,
): Map<string, Rendered> {
  const out = new Map<string, Rendered>();
  if (roots.length === 0) return out;
  const hasher = new ContentHasher();
  const keys = new Map<string, string>();
  const done = new Map<string, ProcessResult & { base: string; parsed?: ParsedRender }>();
  if (cacheDir !== undefined) {
    for (const root of roots) {
      const key = renderKey(root.dir, r.command, r.args, hasher, process.env, repoRoot);
      if (key === undefined) continue;
      keys.set(root.dir, key);
      const parsed = readParsedRender(cacheDir, key); // stored only for a render that succeeded
      const hit = parsed ? { status: 0, ...parsed } : readCachedRender(cacheDir, key);
      if (hit) done.set(root.dir, hit);
    }
  }
  const todo = roots.filter((root) => !done.has(root.dir));
  const tmps = todo.map((root) => {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'rollwise-kustomize-'));
    const rel = path.relative(tmp, root.dir).split(path.sep).join('/');
    fs.writeFileSync(
      path.join(tmp, 'kustomization.yaml'),
      `buildMetadata: [originAnnotations]\nresources:\n- ${JSON.stringify(rel)}\n`,
    );
    return tmp;
  });
  try {
    const jobs = Math.min(renderJobs(), todo.length);
    let results: ProcessResult[] | undefined;
    if (jobs > 1) {
      const res = spawnSync(process.execPath, ['-e', POOL], {
        input: JSON.stringify({ command: r.command, args: r.args, dirs: tmps, jobs, timeoutMs: timeoutSeconds * 1000 }),
        encoding: 'utf8',
        maxBuffer: 2 * 1024 * 1024 * 1024,
        env: renderEnv(),
      });
      try {
        if (res.status === 0) results = JSON.parse(res.stdout) as ProcessResult[];
      } catch {
        results = undefined; // the helper failed: render one by one below
      }
    }
    results ??= tmps.map((tmp) => {
      const res = spawnSync(r.command, [...r.args, tmp], {
        encoding: 'utf8',
        timeout: timeoutSeconds * 1000,
        maxBuffer: 256 * 1024 * 1024,
        env: renderEnv(),
      });
      return res.error ? { error: res.error.message } : { status: res.status, stdout: res.stdout, stderr: res.stderr };
    });
    todo.forEach((root, i) => {
      const res = results![i];
      done.set(root.dir, { ...res, base: tmps[i] });
      const key = keys.get(root.dir);
      // A render that did not finish (timeout, no process) may succeed next time: not cached.
      if (cacheDir !== undefined && key !== undefined && res.error === undefined) {
        writeCachedRender(cacheDir, key, {
          status: res.status ?? null,
          stdout: res.stdout ?? '',
          stderr: res.stderr ?? '',
          base: tmps[i],
        });
      }
    });
    for (const root of roots) {
      const res = done.get(root.dir)!;
      if (res.error !== undefined) out.set(root.dir, { error: res.error });
      else if (res.status !== 0)
        out.set(root.dir, { error: renderError(res.stderr || res.stdout || `exit ${res.status}`, root.dir) });
      else out.set(root.dir, { text: res.stdout ?? '', base: res.base, key: keys.get(root.dir), parsed: res.parsed });
    }
    return out;
  } finally {
    for (const tmp of tmps) fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/** The reason in kustomize's (or kubectl's) error output, without its deprecation warnings and log prefix. */
function renderError(out: string, rootDir: string): string {
  const lines = out
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('# Warning'));
  const at0 = lines.findIndex((l) => /err=|^Error:/.test(l));
  let line = lines[at0] ?? lines[lines.length - 1] ?? out.trim();
  // klog's multi-line value (k8s.io/klog/v2 textlogger, as kubectl 1.32 logs "command failed"):
  // `E1203 16:03:50.253262 11304 run.go:72] "command failed" err=<`, the error's lines, then `>`.
  // The header's time and process id would make the same failure a different message every run.
  if (at0 >= 0 && /err=<$/.test(line)) {
    const end = lines.indexOf('>', at0 + 1);
    line = lines.slice(at0 + 1, end < 0 ? undefined : end).join(' ');
  }
  line = line.replace(/^[IWEF]\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ [^\]]*\] /, '');
  const quoted = /err="(.*)"\s*$/.exec(line);
  let text = (quoted ? quoted[1].replace(/\\"/g, '"') : line.replace(/^Error:\s*/, '')).replace(/\s+/g, ' ');
  // Drop the layer our wrapper kustomization adds ("accumulating resources from '../<tmp>...").
  const inner = `recursed accumulation of path '${rootDir}': `;
  const at = text.indexOf(inner);
  if (at >= 0) text = text.slice(at + inner.length);
  // Paths as the user typed them: relative to the working directory.
  text = text.split(`${process.cwd()}${path.sep}`).join('');
  return text.length > 400 ? `...${text.slice(-400)}` : text;
}

/**
 * kustomize's output read one document at a time: it writes each object as one document after a
 * `---` line of its own (kustomize v5.5.0 kustomize/commands/build/build.go writes
 * `m.AsYaml()`, and api/resmap/reswrangler.go AsYaml joins the objects' YAML with "---\n"), and the objects' YAML is
 * go-yaml's, where every line of a value is indented
 * under its key, so a line that is exactly `---` only separates documents. Reading each on its own
 * gives the same objects as reading the whole text, but a document the fast reader leaves to the
 * `yaml` package no longer sends the whole output there, and a document that several roots render
 * alike (a base's CRDs under each overlay, their origin annotations included) is parsed once per
 * scan (`memo`, by its text). Each use gets its own copy of the objects: the caller edits them.
 * The problems' lines are the output's lines.
 */
export function parseRendered(
  text: string,
  file: string,
  memo: Map<string, ParsedSource>,
): { objects: { obj: Record<string, unknown>; kind: string; name: string }[]; problems: ParseProblem[] } {
  const objects: { obj: Record<string, unknown>; kind: string; name: string }[] = [];
  const problems: ParseProblem[] = [];
  // Documents are cut out of the text by offset (no split of megabytes into lines and join back):
  // `start` is the offset of the current document, which ends before the newline that precedes a
  // line that is exactly `---` (or at the end of the text).
  let start = 0;
  const flush = (end: number): void => {
    const doc = text.slice(start, end);
    let p = memo.get(doc);
    if (p === undefined) {
      p = parseManifestText(doc, file);
      memo.set(doc, p);
    }
    for (const o of p.objects) objects.push({ obj: structuredClone(o.obj), kind: o.kind, name: o.name });
    if (p.problems.length === 0) return;
    // Lines before the document: counted only when a problem needs them.
    let before = 0;
    for (let i = text.indexOf('\n'); i >= 0 && i < start; i = text.indexOf('\n', i + 1)) before++;
    for (const x of p.problems) problems.push({ ...x, file, line: x.line > 0 ? x.line + before : x.line });
  };
  for (let at = text.indexOf('---'); at >= 0; at = text.indexOf('---', at + 1)) {
    const end = at + 3;
    if ((at !== 0 && text[at - 1] !== '\n') || (end !== text.length && text[end] !== '\n')) continue;
    flush(at === start ? start : at - 1);
    start = Math.min(end + 1, text.length);
  }
  flush(text.length);
  return { objects, problems };
}

/** Whether a parsed object has a value at a JSON pointer (`/webhooks/0/clientConfig/service/port`). */
export function hasPointer(obj: unknown, pointer: string): boolean {
  let v: unknown = obj;
  for (const raw of pointer.split('/').slice(1)) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(v) && /^\d+$/.test(seg)) v = v[Number(seg)];
    else if (v !== null && typeof v === 'object' && !Array.isArray(v) && Object.prototype.hasOwnProperty.call(v, seg))
      v = (v as Record<string, unknown>)[seg];
    else return false;
    if (v === undefined) return false;
  }
  return true;
}

/**
 * Which part of a rendered tree writes a field its object's file lacks: the first patch file of
 * the tree whose text has the field's key (`containerPort:` in a strategic-merge patch, `/containerPort`
 * in a JSON 6902 one), else the first kustomization of the tree whose own text has it (an inline
 * patch). Read as text: kustomize applies patches by target, and which one wrote a field is not in
 * its output (the origin annotation names only the resource's file).
 */
export function patchAdding(
  tree: readonly { k: Kustomization }[],
  pointer: string,
  shown: (abs: string) => string,
): string | undefined {
  const key = pointer
    .split('/')
    .slice(1)
    .reverse()
    .find((s) => !/^\d+$/.test(s) && s !== '-')
    ?.replace(/~1/g, '/')
    .replace(/~0/g, '~');
  if (key === undefined) return undefined;
  const esc = key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const re = new RegExp(`(^|[\\s{,"'/-])${esc}("|'|)\\s*:|/${esc}(["'\\s]|$)`, 'm');
  const text = (f: string): string => {
    try {
      return fs.readFileSync(f, 'utf8');
    } catch {
      return '';
    }
  };
  for (const w of tree) for (const f of w.k.patchFiles) if (re.test(text(f))) return shown(f);
  for (const w of tree)
    if (
      w.k.transforms.length > 0 &&
      re.test(
        text(w.k.file)
          .split('\n')
          .filter((l) => !/^\s*#/.test(l))
          .join('\n'),
      )
    )
      return `a patch in ${shown(w.k.file)}`;
  return undefined;
}

/**
 * Removes the origin annotation kustomize added for us (and an annotations map it alone made), and
 * gives its path. `paths` holds the annotations read in this scan: the objects of one file (a
 * bundle of CRDs) share one annotation, under every root that renders them.
 */
export function takeOrigin(obj: Record<string, unknown>, paths: Map<string, string | undefined>): string | undefined {
  const meta = rec(obj.metadata);
  const ann = rec(meta?.annotations);
  const origin = str(ann?.[ORIGIN]);
  if (ann && origin !== undefined) {
    delete ann[ORIGIN];
    if (Object.keys(ann).length === 0) delete meta!.annotations;
  }
  if (!origin) return undefined;
  if (!paths.has(origin)) paths.set(origin, str(rec(YAML.parse(origin))?.path));
  return paths.get(origin);
}
