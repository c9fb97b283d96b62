import { DiffFailOn, diffOutputs, failures, DiffReport } from './compare';
import { DiffFormat, formatDiffJson, formatDiffMarkdown, formatDiffText } from './format';
import { defaultBaseRevision, DiffInputError, gitTopLevel, resolveSide, workingTreeSide } from './sources';

export interface RunDiffOptions {
  /**
   * Zero, one or two sides: folders or Git revisions. None: the merge base with the target branch vs the working tree;
   * one: it vs the working tree.
   */
  readonly sides: readonly string[];
  /** The output folder, for revisions and the working tree. @default dist */
  readonly dir?: string;
  /** @default text */
  readonly format?: string;
  /** Comma-separated: error, warning, info, override, none. @default error */
  readonly failOn?: string;
  readonly cwd?: string;
  readonly write: (s: string) => void;
  readonly writeError: (s: string) => void;
}

const FAIL_ON = ['error', 'warning', 'info', 'override', 'none'];

/**
 * `rollwise diff`: exit 0 when nothing named by --fail-on is introduced, 1 when something is (a new
 * finding at or above a severity, a new or changed override), 2 for unusable input.
 */
export function runDiff(opts: RunDiffOptions): number {
  const format = (opts.format ?? 'text') as DiffFormat;
  if (!['text', 'json', 'markdown'].includes(format)) {
    opts.writeError(`rollwise diff: --format ${format}: expected text, json or markdown\n`);
    return 2;
  }
  const failOnList = (opts.failOn ?? 'error')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = failOnList.filter((s) => !FAIL_ON.includes(s));
  if (bad.length || failOnList.length === 0) {
    opts.writeError(
      `rollwise diff: --fail-on ${opts.failOn}: expected a comma-separated list of ${FAIL_ON.join(', ')}\n`,
    );
    return 2;
  }
  if (opts.sides.length > 2) {
    opts.writeError(
      `rollwise diff: at most two sides (old and new), got ${opts.sides.length}: ${opts.sides.join(' ')}\n`,
    );
    return 2;
  }
  const dir = opts.dir ?? 'dist';
  const cwd = opts.cwd ?? process.cwd();
  let report: DiffReport;
  try {
    const oldArg = opts.sides[0] ?? defaultBase(cwd);
    const oldSide = resolveSide(oldArg, dir, cwd);
    const newSide = opts.sides[1] !== undefined ? resolveSide(opts.sides[1], dir, cwd) : workingTreeSide(dir, cwd);
    report = diffOutputs(oldSide, newSide);
  } catch (e) {
    if (e instanceof DiffInputError) {
      opts.writeError(`rollwise diff: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
  const failOn = failOnList.filter((s): s is DiffFailOn => s !== 'none');
  const failing = failures(report, failOn);
  const code = failing.length ? 1 : 0;
  if (format === 'json') opts.write(formatDiffJson(report, code, failing));
  else if (format === 'markdown') opts.write(formatDiffMarkdown(report, failing));
  else {
    opts.write(formatDiffText(report));
    if (failing.length)
      opts.write(`\nfails --fail-on ${opts.failOn ?? 'error'}:\n${failing.map((f) => `  ${f}`).join('\n')}\n`);
  }
  return code;
}

function defaultBase(cwd: string): string {
  const repo = gitTopLevel(cwd);
  if (!repo)
    throw new DiffInputError(
      `${cwd} is not inside a Git repository: give the two output folders to compare (rollwise diff <old> <new>)`,
    );
  return defaultBaseRevision(repo);
}
