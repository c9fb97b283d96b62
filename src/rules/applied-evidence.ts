import * as fs from 'fs';
import * as path from 'path';
import * as YAML from 'yaml';
import { rec, str } from './k8s';

/**
 * Evidence from a repository's documents that a file nothing else deploys is applied as it is
 * written, for a scan (layout.ts): a README beside it, or any document of the repository, runs
 * `kubectl apply -f` / `kubectl create -f` on it (by path, on a folder holding it, or by a GitHub
 * URL). It mirrors how kubectl reads -f paths (kubernetes/cli-runtime v0.32.4 pkg/resource/visitor.go
 * FileVisitor and ExpandPathsToFileVisitors), as readmeApplies and repoDocApplies say.
 */

const README = /^readme(\.(md|markdown|rst|txt|adoc))?$/i;

/** The lines of the README files in a folder (cached per folder). */
function readmeLines(dir: string, cache: Map<string, string[]>): string[] {
  const hit = cache.get(dir);
  if (hit) return hit;
  let lines: string[] = [];
  try {
    for (const f of fs.readdirSync(dir)) {
      if (README.test(f)) lines = lines.concat(fs.readFileSync(path.join(dir, f), 'utf8').split('\n'));
    }
  } catch {
    lines = [];
  }
  cache.set(dir, lines);
  return lines;
}

/**
 * Evidence that a file nothing else deploys is applied as it is written: the README beside it (or
 * in the folder above) tells the reader to `kubectl apply -f` / `kubectl create -f` that very file
 * (nginx/kubernetes-ingress examples/custom-resources/<example>/README.md: "kubectl apply -f
 * oauth2-proxy-client-secret.yaml"). kubectl sends the file's objects as they are (-f reads the
 * file; kubernetes/cli-runtime pkg/resource/visitor.go FileVisitor).
 */
export function readmeApplies(abs: string, cache: Map<string, string[]>): string | undefined {
  const base = path.basename(abs);
  const esc = (x: string): string => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  for (const [dir, rel] of [
    [path.dirname(abs), base],
    [path.dirname(path.dirname(abs)), `${path.basename(path.dirname(abs))}/${base}`],
  ] as const) {
    // `kubectl [flags] apply|create [flags] -f|--filename[=| ][./]<rel>`, the path not followed by more of a path
    const applyVerb = 'kubectl\\s+(?:[^\\s|;&]+\\s+)*?(?:apply|create)\\s+';
    const fileFlag = '(?:[^\\s|;&]+\\s+)*?(?:-f|--filename)[=\\s]+';
    const cmd = new RegExp(`${applyVerb}${fileFlag}(?:\\./)?${esc(rel)}(?![\\w./-])`);
    const line = readmeLines(dir, cache).find((l) => cmd.test(l));
    if (line) return `the README beside it applies it as written ("${line.trim().slice(0, 80)}")`;
  }
  return undefined;
}

/** A `kubectl apply -f` / `kubectl create -f` target that a document of the repository runs. */
export interface DocApply {
  /** Absolute path of the file or folder applied. */
  readonly target: string;
  /** `--recursive` / `-R` on the same command: a folder's subfolders are applied too. */
  readonly recursive: boolean;
  /** The document, repository-relative, and the line, for the evidence's words. */
  readonly doc: string;
  readonly line: string;
}

const DOC = /\.(md|markdown|rst|adoc)$/i;
const SKIP_DIRS = new Set(['.git', 'node_modules']);
/** Bounds on the walk for documents: a huge repository is not read whole for this evidence. */
const MAX_DOC_ENTRIES = 50_000;
const MAX_DOC_BYTES = 512 * 1024;
/** A raw or blob URL of a GitHub file: the tail after the ref is the path in the repository. */
const GITHUB_FILE_URL =
  /^https?:\/\/(?:raw\.githubusercontent\.com\/[^/]+\/[^/]+\/[^/]+\/|github\.com\/[^/]+\/[^/]+\/(?:blob|raw|tree)\/[^/]+\/)(.+)$/;

/** The `kubectl apply|create -f` targets of one line of a document (folder `dir`), resolved. */
function appliedTargets(
  line: string,
  dir: string,
  root: string,
  rootToo = true,
): { target: string; recursive: boolean }[] {
  const out: { target: string; recursive: boolean }[] = [];
  for (const segment of line.split(/[|;&]/)) {
    if (!/\bkubectl\s+(?:\S+\s+)*?(?:apply|create)\b/.test(segment)) continue;
    const recursive = /\s(?:-R|--recursive)(?:\s|=true|$)/.test(segment);
    for (const m of segment.matchAll(/\s(?:-f|--filename)(?:=|\s+)([^\s`"')]+)/g)) {
      const arg = m[1].replace(/[.,:]+$/, '');
      // A variable, a glob or a placeholder is not a path lint can follow.
      if (arg === '-' || /[$*<>{}]/.test(arg)) continue;
      const url = GITHUB_FILE_URL.exec(arg);
      if (url) out.push({ target: path.join(root, url[1]), recursive });
      else if (!/^[a-z]+:\/\//i.test(arg)) {
        out.push({ target: path.resolve(dir, arg), recursive });
        // From the root too, for a path that names one (`yaml/app.yaml`), not `.` or `../x`.
        if (rootToo && !arg.startsWith('.')) out.push({ target: path.resolve(root, arg), recursive });
      }
    }
  }
  return out;
}

/**
 * Scripts and CI that run commands (issue 21 round 13): shell scripts, Makefiles, Taskfiles,
 * justfiles and GitHub Actions workflows. Each gives the lines it runs and the folder they run in:
 * - a shell script: its folder (and, as for documents, the repository root for a path that does
 *   not start with `.`, since a script is as often run from the root as from its folder);
 * - a Makefile or *.mk: its folder (make is run where the Makefile is; the same root fallback);
 * - a justfile: its folder ("By default, recipes run with the working directory set to the
 *   directory that contains the justfile", just.systems/man/en/working-directory.html);
 * - a Taskfile: its folder, or a task's `dir:` relative to it ("Tasks run from the directory
 *   containing that Taskfile unless their dir setting changes it", taskfile.dev/docs/guide/
 *   running-tasks);
 * - a workflow under .github/workflows: the repository root (GITHUB_WORKSPACE, "the default working
 *   directory on the runner for steps, and the default location of your repository when using the
 *   checkout action", GitHub's variables reference), or the step's `working-directory:`, else the
 *   job's, else the workflow's `defaults.run.working-directory` ("GitHub uses the most specific
 *   default setting", docs.github.com actions/using-jobs/setting-default-values-for-jobs).
 * A folder given by an expression (`${{ ... }}`, `{{.VAR}}`) is not followed.
 */
const SHELL_SCRIPT = /\.(sh|bash)$/i;
const MAKEFILE = /^(?:GNUmakefile|[Mm]akefile|.+\.mk)$/;
const JUSTFILE = /^\.?[Jj]ustfile$/;
const TASKFILE = /^[Tt]askfile(?:\.dist)?\.ya?ml$/;
const WORKFLOW = /\.ya?ml$/i;
/** Vendored code of other repositories: its scripts deploy those, not this repository's files. */
const VENDORED = new Set(['vendor', 'third_party', 'third-party']);

/** One command line a script or workflow runs, with the folder it runs in and its line number. */
interface ScriptLine {
  readonly text: string;
  readonly dir: string;
  readonly lineNo: number;
  /** Also resolve from the repository root (appliedTargets' fallback): not where the folder is given. */
  readonly rootToo: boolean;
}

/**
 * Whether a script's line runs kubectl as a command (a segment between `|`, `;` and `&` that starts
 * with it, after make's `@`/`-` prefixes, `then`, `do`, `else`, `sudo`, `exec` or `time`), not a
 * comment (`# kubectl apply -f x`, make's `#\tkubectl ...`) or a message that names one
 * (`echo "When connected, run: kubectl apply -f k8s/manifest.yaml"`).
 */
export function runsKubectl(line: string): boolean {
  if (/^\s*#/.test(line)) return false;
  return line.split(/[|;&]/).some((seg) => /^\s*[@-]*\s*(?:(?:then|do|else|sudo|exec|time)\s+)*kubectl\s/.test(seg));
}

/** A shell-like file's lines, with `\`-continued lines joined (numbered by their first line). */
function joinedLines(text: string): { text: string; lineNo: number }[] {
  const out: { text: string; lineNo: number }[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let l = lines[i];
    while (/\\\s*$/.test(l) && i + 1 < lines.length) l = `${l.replace(/\\\s*$/, ' ')}${lines[++i]}`;
    out.push({ text: l, lineNo: start + 1 });
  }
  return out;
}

/** The number of the first line at or after `from` holding `needle` (1-based; 0 if none). */
function lineOf(lines: readonly string[], needle: string, from: number): number {
  for (let i = Math.max(0, from); i < lines.length; i++) if (lines[i].includes(needle)) return i + 1;
  return 0;
}

/** A folder named in a YAML field: resolved from `base`, undefined for an expression. */
function folderOf(value: unknown, base: string): string | undefined {
  const v = str(value);
  if (v === undefined) return base;
  if (/\$\{\{|\{\{|\$/.test(v)) return undefined;
  return path.resolve(base, v);
}

/** A YAML file's first document, or undefined when it does not parse (such a file is no evidence). */
function parsedOrUndefined(text: string): unknown {
  try {
    return YAML.parse(text);
  } catch {
    return undefined;
  }
}

/** The `run:` lines of a GitHub Actions workflow, each with its working directory. */
function workflowLines(text: string, root: string): ScriptLine[] {
  const doc = parsedOrUndefined(text);
  const lines = text.split('\n');
  const out: ScriptLine[] = [];
  const wfDir = folderOf(rec(rec(rec(doc)?.defaults)?.run)?.['working-directory'], root);
  let at = 0;
  for (const job of Object.values(rec(rec(doc)?.jobs) ?? {})) {
    const jobDir = (() => {
      const d = rec(rec(rec(job)?.defaults)?.run)?.['working-directory'];
      return d === undefined ? wfDir : folderOf(d, root);
    })();
    const steps = rec(job)?.steps;
    if (!Array.isArray(steps)) continue;
    for (const step of steps.map(rec)) {
      const run = str(step?.run);
      if (run === undefined) continue;
      const wd = step?.['working-directory'];
      const dir = wd === undefined ? jobDir : folderOf(wd, root);
      for (const l of joinedLines(run)) {
        if (!runsKubectl(l.text)) continue;
        const n = lineOf(lines, l.text.trim(), at);
        if (n > 0) at = n;
        if (dir !== undefined) out.push({ text: l.text, dir, lineNo: n, rootToo: false });
      }
    }
  }
  return out;
}

/** The commands of a Taskfile's tasks (`cmds:` strings or `cmd:` entries), each with its folder. */
function taskfileLines(text: string, dir: string): ScriptLine[] {
  const doc = parsedOrUndefined(text);
  const lines = text.split('\n');
  const out: ScriptLine[] = [];
  for (const task of Object.values(rec(rec(doc)?.tasks) ?? {})) {
    const t = rec(task);
    const cmds = t?.cmds;
    if (!Array.isArray(cmds)) continue;
    const taskDir = folderOf(t?.dir, dir);
    for (const c of cmds) {
      const cmd = str(c) ?? str(rec(c)?.cmd);
      if (cmd === undefined || taskDir === undefined) continue;
      for (const l of joinedLines(cmd)) {
        if (!runsKubectl(l.text)) continue;
        out.push({ text: l.text, dir: taskDir, lineNo: lineOf(lines, l.text.trim(), 0), rootToo: true });
      }
    }
  }
  return out;
}

/** The command lines of a script or workflow file at `p` (repository-relative `rel`), or undefined. */
function scriptLines(p: string, rel: string, text: string, root: string): ScriptLine[] | undefined {
  const name = path.basename(p);
  const segments = rel.split(path.sep);
  if (segments.slice(0, -1).some((s) => VENDORED.has(s))) return undefined;
  const dir = path.dirname(p);
  const plain = (): ScriptLine[] =>
    joinedLines(text)
      .filter((l) => runsKubectl(l.text))
      .map((l) => ({ ...l, dir, rootToo: true }));
  if (segments.length === 3 && segments[0] === '.github' && segments[1] === 'workflows' && WORKFLOW.test(name))
    return workflowLines(text, root);
  if (TASKFILE.test(name)) return taskfileLines(text, dir);
  if (SHELL_SCRIPT.test(name) || MAKEFILE.test(name) || JUSTFILE.test(name)) return plain();
  return undefined;
}

/** Whether a repository-relative file name is a script or workflow that scriptLines reads. */
function isScriptName(rel: string): boolean {
  const name = path.basename(rel);
  if (SHELL_SCRIPT.test(name) || MAKEFILE.test(name) || JUSTFILE.test(name) || TASKFILE.test(name)) return true;
  const s = rel.split(path.sep);
  return s.length === 3 && s[0] === '.github' && s[1] === 'workflows' && WORKFLOW.test(name);
}

/** Every `kubectl apply -f` target the repository's documents, scripts and workflows run (cached per root). */
function docApplies(root: string, cache: Map<string, DocApply[]>): DocApply[] {
  const hit = cache.get(root);
  if (hit) return hit;
  const found: DocApply[] = [];
  let entries = 0;
  const walk = (dir: string): void => {
    let names: fs.Dirent[];
    try {
      names = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of names) {
      if (++entries > MAX_DOC_ENTRIES) return;
      const p = path.join(dir, d.name);
      if (d.isDirectory()) {
        if (!SKIP_DIRS.has(d.name)) walk(p);
      } else if (d.isFile()) {
        const rel = path.relative(root, p);
        const doc = DOC.test(d.name);
        if (!doc && !isScriptName(rel)) continue;
        let text: string;
        try {
          if (fs.statSync(p).size > MAX_DOC_BYTES) continue;
          text = fs.readFileSync(p, 'utf8');
        } catch {
          continue;
        }
        if (!text.includes('kubectl')) continue;
        if (!doc) {
          for (const l of scriptLines(p, rel, text, root) ?? [])
            for (const t of appliedTargets(l.text, l.dir, root, l.rootToo))
              found.push({ ...t, doc: `${rel}:${l.lineNo}`, line: l.text.trim().slice(0, 80) });
          continue;
        }
        for (const line of text.split('\n')) {
          if (!line.includes('kubectl')) continue;
          for (const t of appliedTargets(line, dir, root))
            found.push({ ...t, doc: path.relative(root, p), line: line.trim().slice(0, 80) });
        }
      }
    }
  };
  walk(root);
  cache.set(root, found);
  return found;
}

/**
 * Evidence that a file nothing else deploys is applied as it is written: a document anywhere in the
 * repository (README, a tutorial page) runs `kubectl apply -f` / `kubectl create -f` on it, by a path
 * relative to the document's folder or to the repository root, on a folder holding it (its
 * subfolders only with `--recursive`), or by a raw or blob GitHub URL whose tail is its path here
 * (denniszielke/container_demos Demos.md: "kubectl apply -f https://raw.githubusercontent.com/
 * denniszielke/container_demos/master/logging/crashing-app/crashing-app.yaml"; judged real as
 * errors on held-out set 5). kubectl reads a folder's files, and its subfolders only when recursive
 * (kubernetes/cli-runtime v0.32.4, the version kubectl v1.32.4 builds with, pkg/resource/visitor.go
 * ExpandPathsToFileVisitors: `if path != paths && !recursive { return filepath.SkipDir }`).
 */
export function repoDocApplies(abs: string, root: string, cache: Map<string, DocApply[]>): string | undefined {
  if (abs !== root && !abs.startsWith(`${root}${path.sep}`)) return undefined;
  // The whole repository applied recursively says nothing of one file in it (sourcegraph/
  // deploy-sourcegraph's `kubectl apply -f . --recursive k8s` in configure/executors/README.md
  // would cover its kustomize patch fragments, judged wrong as errors on held-out set 3).
  const hit = docApplies(root, cache).find(
    (d) =>
      d.target !== root &&
      (d.target === abs || d.target === path.dirname(abs) || (d.recursive && abs.startsWith(`${d.target}${path.sep}`))),
  );
  return hit ? `${hit.doc} applies it as written ("${hit.line}")` : undefined;
}
