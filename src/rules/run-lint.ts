import * as fs from 'fs';
import * as path from 'path';
import { lintParsed, LintOptions, LintResult } from './engine';
import { factDefinition, FactName, factsFromOptions, LintFacts } from './facts';
import {
  describeSkippedFiles,
  formatJson,
  formatSarif,
  formatSarifFailure,
  formatText,
  OutputFormat,
  ScanSummary,
} from './format';
import { Glob, IGNORE_FILE, scanFolder } from './scan';
import { findKustomize, Layout, layoutScan } from './layout';
import { renderCacheDir } from './render-cache';
import { LintObject, parseManifestText } from './source';
import { FailOn, ParseProblem, SEVERITY_RANK } from './types';
import { readTextCapped } from '../read-limit';
import { withClusterFindings } from './cluster-rules';
import { gateOnAppliedAsWritten } from './applied-gate';

/** Lints one text (multi-document YAML or JSON); `file` names it in findings. */
export function lintText(text: string, file: string, opts: LintOptions = {}): LintResult {
  const parsed = parseManifestText(text, file);
  return lintParsed(parsed.objects, parsed.problems, opts);
}

/**
 * What `rollwise lint` reports on a scanned layout: the composition rules, then the cluster's own
 * validation as a separate stage (cluster-rules.ts), then the one gate on the error level: an error
 * only on a file shown to be applied as it is written (applied-gate.ts). The precision harness
 * (bench/precision.ts) calls this too, so the findings it samples are the ones a user sees.
 */
export function lintLayout(
  layout: Layout,
  problems: readonly ParseProblem[],
  opts: Pick<LintOptions, 'facts' | 'simulate'> = {},
): LintResult {
  const result = withClusterFindings(
    lintParsed(layout.objects, problems, { ...opts, scopes: layout.scopes, notes: layout.notes }),
    layout.objects,
    undefined,
    layout.scopes,
  );
  return gateOnAppliedAsWritten(result, { scopes: layout.scopes, files: layout.appliedFiles });
}

export interface RunLintOptions {
  /** Files and folders (folders are searched for *.yaml, *.yml, *.json); `-` reads standard input. */
  readonly paths: readonly string[];
  readonly format: OutputFormat;
  /** Exit 1 when an open finding is at or above this severity. */
  readonly failOn: FailOn;
  /**
   * List the rules that were skipped for lack of a fact (text: after the findings; JSON: `skips`;
   * SARIF: tool execution notifications).
   * @default false
   */
  readonly explainSkips?: boolean;
  /** Facts by object name (see factsFromOptions). @default - annotations only */
  readonly facts?: LintFacts;
  /**
   * Globs of files and folders to leave out of folder scans (gitignore-like; see Glob), added to
   * each scanned folder's .rollwiseignore.
   * @default - none
   */
  readonly exclude?: readonly string[];
  /**
   * Run the simulated drain at peak for workloads that declare their capacity (RW109).
   * @default true
   */
  readonly simulate?: boolean;
  /**
   * Lint kustomizations as kustomize renders them (with `kustomize` or `kubectl` found on PATH, or
   * ROLLWISE_KUSTOMIZE); false lints each file alone, with a note.
   * @default true
   */
  readonly kustomize?: boolean;
  /** The environment the kustomize lookup reads (PATH, ROLLWISE_KUSTOMIZE). @default process.env */
  readonly env?: NodeJS.ProcessEnv;
  /** Where the report goes. */
  readonly write: (s: string) => void;
  /** Where input problems go (unreadable files, nothing to lint). @default write */
  readonly writeError?: (s: string) => void;
  /** Standard input, for `-`. @default fd 0 */
  readonly readStdin?: () => string;
}

/** Files under a folder with a manifest extension, sorted, skipping node_modules and dot folders. */
export function manifestFiles(dir: string): string[] {
  return scanFolder(dir).files;
}

/** The nearest folder at or above `from` that holds a .git entry (the repository root), or undefined. */
function repositoryRoot(from: string): string | undefined {
  let dir = path.resolve(from);
  try {
    if (!fs.statSync(dir).isDirectory()) dir = path.dirname(dir);
  } catch {
    return undefined;
  }
  for (;;) {
    if (fs.existsSync(path.join(dir, '.git'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) return undefined;
    dir = up;
  }
}

/**
 * `rollwise lint`: reads the paths, runs every rule, writes the report and returns the exit code:
 * 0 clean (nothing open at or above `failOn`), 1 findings at or above it, 2 unusable input (no files,
 * a named path that does not exist, or nothing that parses as a Kubernetes object). A file found in
 * a folder that cannot be read is reported (RW000) and the rest is still linted. With
 * `--format sarif` an exit 2 still writes a valid SARIF log whose invocation carries the problem.
 */
export function runLint(opts: RunLintOptions): number {
  const err = opts.writeError ?? opts.write;
  const sarifBase = repositoryRoot(opts.paths.find((p) => p !== '-') ?? process.cwd()) ?? process.cwd();
  const unusable = (message: string): number => {
    err(`rollwise lint: ${message}\n`);
    if (opts.format === 'sarif') opts.write(formatSarifFailure(message, sarifBase));
    else if (opts.format === 'json')
      opts.write(`${JSON.stringify({ tool: 'rollwise', exitCode: 2, error: message }, null, 2)}\n`);
    return 2;
  };
  if (!['error', 'warning', 'info', 'none'].includes(opts.failOn))
    return unusable(`--fail-on ${String(opts.failOn)}: expected error, warning, info or none`);
  if (!['text', 'json', 'sarif'].includes(opts.format)) {
    err(`rollwise lint: --format ${String(opts.format)}: expected text, json or sarif\n`);
    return 2;
  }
  if (opts.paths.length === 0) return unusable('no input: give files, folders, or - for standard input');
  let globs: Glob[];
  try {
    globs = (opts.exclude ?? []).map((g) => new Glob(g));
  } catch (e) {
    return unusable(`--exclude: ${(e as Error).message}`);
  }
  const inputs: { file: string; text: string }[] = [];
  const problems: ParseProblem[] = [];
  const scan: ScanSummary = { files: 0, excluded: 0, templates: 0, notManifests: 0, unreadable: 0 };
  const unreadable = (file: string, reason: string): void => {
    scan.unreadable++;
    problems.push({
      file,
      line: 0,
      message:
        `the file cannot be read (${reason}), so it was not checked; fix it, or ` +
        `leave it out with --exclude or ${IGNORE_FILE}`,
    });
  };
  for (const p of opts.paths) {
    if (p === '-') {
      inputs.push({ file: '<stdin>', text: opts.readStdin ? opts.readStdin() : readTextCapped(0, '<stdin>') });
      continue;
    }
    let isDir: boolean;
    try {
      isDir = fs.statSync(p).isDirectory();
    } catch (e) {
      return unusable(`cannot read ${p}: ${(e as Error).message}`);
    }
    const files = isDir ? scanFolder(p, globs) : { files: [p], excluded: 0, unreadable: [] };
    if (isDir && files.files.length === 0 && files.unreadable.length === 0)
      return unusable(
        `${p}: no *.yaml, *.yml or *.json files in this folder${files.excluded ? ` (${files.excluded} excluded)` : ''}`,
      );
    scan.excluded += files.excluded;
    for (const u of files.unreadable) unreadable(u.path, u.reason);
    for (const f of files.files) {
      try {
        // At most the input cap (src/read-limit.ts): /dev/zero or a huge file is named, not read whole.
        inputs.push({ file: f, text: readTextCapped(f) });
      } catch (e) {
        if (!isDir) return unusable(`cannot read ${f}: ${(e as Error).message}`);
        unreadable(f, (e as Error).message);
      }
    }
  }
  // Kustomizations rendered where kustomize is installed, namespace defaults, Argo CD Applications:
  // where each object is deployed, so that cross-object rules only look at its own application.
  const layout = layoutScan(inputs, {
    kustomize: opts.kustomize === false ? null : (findKustomize(opts.env ?? process.env) ?? null),
    renderCache: renderCacheDir(opts.env ?? process.env) ?? null,
    repoRoot: sarifBase,
  });
  const objects: LintObject[] = layout.objects;
  problems.push(...layout.problems);
  for (const i of inputs) {
    scan.files++;
    const parsed = layout.parsed.get(i.file)!;
    if (parsed.template) scan.templates++;
    else if (parsed.objects.length === 0 && parsed.problems.length === 0 && parsed.notManifests > 0)
      scan.notManifests++;
  }
  if (objects.length === 0) {
    const detail = problems.length ? `: ${problems.map((p) => `${p.file}:${p.line} ${p.message}`).join('; ')}` : '';
    const skipped = scan.templates + scan.notManifests ? ` (${describeSkippedFiles(scan)})` : '';
    return unusable(
      'no Kubernetes object could be read ' +
        `from ${inputs.map((i) => i.file).join(', ') || opts.paths.join(', ')}${skipped}${detail}`,
    );
  }
  const unmatched = unmatchedFacts(opts.facts ?? {}, objects);
  if (unmatched) {
    err(`rollwise lint: ${unmatched}\n`);
    return 2;
  }
  const result = lintLayout(layout, problems, { facts: opts.facts, simulate: opts.simulate ?? true });
  const threshold = opts.failOn === 'none' ? Infinity : SEVERITY_RANK[opts.failOn];
  const failing = result.findings.some((f) => f.status === 'open' && SEVERITY_RANK[f.severity] >= threshold);
  const code = failing ? 1 : 0;
  const skips = opts.explainSkips ? result.skips : undefined;
  if (opts.format === 'json') opts.write(formatJson(result, code, skips, scan));
  else if (opts.format === 'sarif') opts.write(formatSarif(result, skips, sarifBase, scan));
  else opts.write(formatText(result, skips, scan));
  return code;
}

/**
 * A fact given for a name that no object has would silently apply to nothing (and the rules that
 * need it would be skipped): say which, and name the objects there are. Undefined when all match.
 */
function unmatchedFacts(facts: LintFacts, objects: readonly LintObject[]): string | undefined {
  const names = new Set<string>();
  for (const o of objects) {
    names.add(o.name);
    if (o.namespace) names.add(`${o.namespace}/${o.name}`);
  }
  const bad = Object.entries(facts).filter(([key]) => !names.has(key));
  if (bad.length === 0) return undefined;
  const given = bad
    .map(([key, f]) =>
      Object.keys(f)
        .map((name) => `${factDefinition(name as FactName).option.split(' ')[0]} ${key}`)
        .join(', '),
    )
    .join('; ');
  const known = [...new Set(objects.map((o) => o.ref))].sort();
  const shown = known.length > 20 ? `${known.slice(0, 20).join(', ')} and ${known.length - 20} more` : known.join(', ');
  return (
    `${given}: no object in the input has that name (a fact is matched by metadata.name, or namespace/name). ` +
    `Known objects: ${shown}`
  );
}

/** The options of `rollwise lint` as commander parses them (see the README). */
export interface LintCliOptions {
  format?: string;
  failOn?: string;
  explainSkips?: boolean;
  p99?: string[];
  keepalive?: string[];
  peakRps?: string[];
  saturationRps?: string[];
  callsDependency?: string[];
  exclude?: string[];
  simulate?: boolean;
  kustomize?: boolean;
}

/** `rollwise lint` from parsed CLI options; a malformed fact option is unusable input (exit 2). */
export function runLintCli(
  paths: readonly string[],
  cli: LintCliOptions,
  write: (s: string) => void,
  writeError: (s: string) => void = write,
): number {
  let facts: LintFacts;
  try {
    facts = factsFromOptions(cli);
  } catch (e) {
    writeError(`rollwise lint: ${(e as Error).message}\n`);
    if (cli.format === 'sarif') write(formatSarifFailure((e as Error).message));
    return 2;
  }
  return runLint({
    paths,
    format: (cli.format ?? 'text') as OutputFormat,
    failOn: (cli.failOn ?? 'error') as FailOn,
    explainSkips: cli.explainSkips ?? false,
    facts,
    write,
    writeError,
    exclude: cli.exclude,
    simulate: cli.simulate ?? true,
    kustomize: cli.kustomize ?? true,
  });
}
