/** Where progress goes: a writable stream with an optional TTY flag (process.stderr). */
export interface ProgressStream {
  readonly isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * Whether to show progress: only on an interactive terminal and never in CI (CI=true, as GitHub
 * Actions, GitLab CI and most runners set it), so logs stay quiet.
 */
export function progressWanted(stream: ProgressStream = process.stderr, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && env.CI !== 'true' && env.CI !== '1';
}

export interface TerminalProgressOptions {
  /**
   * Milliseconds between two updates; the first update also waits this long, so short runs print nothing.
   * @default 250
   */
  readonly intervalMs?: number;
  /**
   * The clock (for tests).
   * @default Date.now
   */
  readonly now?: () => number;
}

/**
 * A progress callback for `synthesize` that rewrites one line ("synthesized 1200/3000 charts") on
 * the stream, at most every `intervalMs`, and ends the line when the last chart is done.
 */
export function terminalProgress(
  stream: ProgressStream = process.stderr,
  opts: TerminalProgressOptions = {},
): (done: number, total: number) => void {
  const interval = opts.intervalMs ?? 250;
  const now = opts.now ?? Date.now;
  const start = now();
  let last = start;
  let shown = false;
  return (done, total) => {
    const t = now();
    const finished = done >= total;
    if (finished ? !shown : t - last < interval) return;
    last = t;
    shown = true;
    stream.write(
      `\rsynthesized ${done}/${total} charts${finished ? ` in ${((t - start) / 1000).toFixed(1)} s\n` : ''}`,
    );
  };
}
