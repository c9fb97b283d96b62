import * as fs from 'fs';
import * as path from 'path';
import { lintParsed, LintOptions, LintResult } from './engine';
import { factDefinition, FactName, factsFromOptions, LintFacts } from './facts';
import { formatJson, formatSarif, formatText, OutputFormat } from './format';
import { LintObject, parseManifestText } from './source';
import { FailOn, ParseProblem, SEVERITY_RANK } from './types';

/** Lints one text (multi-document YAML or JSON); `file` names it in findings. */
export function lintText(text: string, file: string, opts: LintOptions = {}): LintResult {
  const parsed = parseManifestText(text, file);
  return lintParsed(parsed.objects, parsed.problems, opts);
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
  /** Where the report goes. */
  readonly write: (s: string) => void;
  /** Where input problems go (unreadable files, nothing to lint). @default write */
  readonly writeError?: (s: string) => void;
  /** Standard input, for `-`. @default fd 0 */
  readonly readStdin?: () => string;
}

const EXTENSIONS = ['.yaml', '.yml', '.json'];

/** Files under a folder with a manifest extension, sorted, skipping node_modules and dot folders. */
export function manifestFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
      out.push(...manifestFiles(p));
    } else if (EXTENSIONS.some((x) => e.name.endsWith(x))) {
      out.push(p);
    }
  }
  return out;
}

/**
 * `rollwise lint`: reads the paths, runs every rule, writes the report and returns the exit code:
 * 0 clean (nothing open at or above `failOn`), 1 findings at or above it, 2 unusable input (no files,
 * an unreadable file, or nothing that parses as a Kubernetes object).
 */
export function runLint(opts: RunLintOptions): number {
  const err = opts.writeError ?? opts.write;
  if (!['error', 'warning', 'info', 'none'].includes(opts.failOn)) {
    err(`rollwise lint: --fail-on ${String(opts.failOn)}: expected error, warning, info or none\n`);
    return 2;
  }
  if (!['text', 'json', 'sarif'].includes(opts.format)) {
    err(`rollwise lint: --format ${String(opts.format)}: expected text, json or sarif\n`);
    return 2;
  }
  if (opts.paths.length === 0) {
    err('rollwise lint: no input: give files, folders, or - for standard input\n');
    return 2;
  }
  const inputs: { file: string; text: string }[] = [];
  for (const p of opts.paths) {
    try {
      if (p === '-') {
        inputs.push({ file: '<stdin>', text: opts.readStdin ? opts.readStdin() : fs.readFileSync(0, 'utf8') });
      } else if (fs.statSync(p).isDirectory()) {
        const files = manifestFiles(p);
        if (files.length === 0) {
          err(`rollwise lint: ${p}: no *.yaml, *.yml or *.json files in this folder\n`);
          return 2;
        }
        for (const f of files) inputs.push({ file: f, text: fs.readFileSync(f, 'utf8') });
      } else {
        inputs.push({ file: p, text: fs.readFileSync(p, 'utf8') });
      }
    } catch (e) {
      err(`rollwise lint: cannot read ${p}: ${(e as Error).message}\n`);
      return 2;
    }
  }
  const objects: LintObject[] = [];
  const problems: ParseProblem[] = [];
  for (const i of inputs) {
    const parsed = parseManifestText(i.text, i.file);
    objects.push(...parsed.objects);
    problems.push(...parsed.problems);
  }
  if (objects.length === 0) {
    const detail = problems.length ? `: ${problems.map((p) => `${p.file}:${p.line} ${p.message}`).join('; ')}` : '';
    err(`rollwise lint: no Kubernetes object could be read from ${inputs.map((i) => i.file).join(', ')}${detail}\n`);
    return 2;
  }
  const unmatched = unmatchedFacts(opts.facts ?? {}, objects);
  if (unmatched) {
    err(`rollwise lint: ${unmatched}\n`);
    return 2;
  }
  const result = lintParsed(objects, problems, { facts: opts.facts });
  const threshold = opts.failOn === 'none' ? Infinity : SEVERITY_RANK[opts.failOn];
  const failing = result.findings.some((f) => f.status === 'open' && SEVERITY_RANK[f.severity] >= threshold);
  const code = failing ? 1 : 0;
  const skips = opts.explainSkips ? result.skips : undefined;
  if (opts.format === 'json') opts.write(formatJson(result, code, skips));
  else if (opts.format === 'sarif') opts.write(formatSarif(result, skips));
  else opts.write(formatText(result, skips));
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
  const given = bad.map(([key, f]) => Object.keys(f).map((name) => `${factDefinition(name as FactName).option.split(' ')[0]} ${key}`).join(', ')).join('; ');
  const known = [...new Set(objects.map((o) => o.ref))].sort();
  const shown = known.length > 20 ? `${known.slice(0, 20).join(', ')} and ${known.length - 20} more` : known.join(', ');
  return `${given}: no object in the input has that name (a fact is matched by metadata.name, or namespace/name). Known objects: ${shown}`;
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
}

/** `rollwise lint` from parsed CLI options; a malformed fact option is unusable input (exit 2). */
export function runLintCli(paths: readonly string[], cli: LintCliOptions, write: (s: string) => void, writeError: (s: string) => void = write): number {
  let facts: LintFacts;
  try {
    facts = factsFromOptions(cli);
  } catch (e) {
    writeError(`rollwise lint: ${(e as Error).message}\n`);
    return 2;
  }
  return runLint({
    paths, format: (cli.format ?? 'text') as OutputFormat, failOn: (cli.failOn ?? 'error') as FailOn,
    explainSkips: cli.explainSkips ?? false, facts, write, writeError,
  });
}
