import * as fs from 'fs';
import * as path from 'path';
import { App } from 'cdk8s';
import { diffDirs, listFiles, summarizeDrift } from './diff';
import { SynthLayout } from './layout';
import { warningsOf } from './output';
import { progressWanted, terminalProgress } from './progress';
import { planApp, RenderOptions } from './render';
import { SerializerPool } from './parallel';
import { serializeObjects } from './serialize';

export { diffDirs, listFiles } from './diff';

export interface SynthOptions {
  /** Where the output goes (e.g. "dist"). */
  readonly outdir: string;
  /**
   * Compare with the existing output instead of writing it.
   * @default false
   */
  readonly check?: boolean;
  /**
   * Justification comments above the decided values.
   * @default true
   */
  readonly comments?: boolean;
  /**
   * Where each chart's file goes.
   * @default SynthLayout.declared(): declared paths (environments), else the `cdk8s synth` names
   */
  readonly layout?: SynthLayout;
  /**
   * Progress callback, called after each chart.
   * @default "synthesized N/M charts" on stderr when stderr is a terminal and CI is not "true"; else none
   */
  readonly progress?: (done: number, total: number) => void;
}

export interface SynthResult {
  /** Output files, relative to outdir, sorted. */
  readonly files: string[];
  /** Under `check`: files that differ, are missing or are extra (empty when in sync). */
  readonly drift: string[];
  /**
   * Under `check` with changed files: for each (up to 5) an excerpt of the differing lines with
   * line numbers, unified-diff style (see `summarizeDrift`; `drift` has the file lists).
   * Otherwise "".
   */
  readonly diff: string;
  /** Warnings the constructs recorded (see addSynthWarning). */
  readonly warnings: readonly string[];
}

/**
 * Synthesizes an app built by `build(outdir)` into `opts.outdir`, with justification comments, in
 * time linear in the number of charts (`renderApp`). The output is written to a temporary sibling
 * folder and swapped in only when everything succeeded (building the app, validation,
 * serialization, writing), so a failed synth leaves the previous output untouched. The same app
 * gives the same bytes: no timestamps, charts in dependency order, files sorted.
 */
export function synthesize(build: (outdir: string) => App, opts: SynthOptions): SynthResult {
  const outdir = path.resolve(opts.outdir);
  fs.mkdirSync(path.dirname(outdir), { recursive: true });
  const tmp = fs.mkdtempSync(path.join(path.dirname(outdir), `.${path.basename(outdir)}-tmp-`));
  try {
    const app = build(tmp);
    const progress = opts.progress ?? (progressWanted() ? terminalProgress() : undefined);
    writeApp(app, tmp, { comments: opts.comments, layout: opts.layout, onChart: progress });
    const files = listFiles(tmp);
    const warnings = warningsOf(app);
    if (opts.check) {
      return { files, drift: diffDirs(tmp, outdir), diff: summarizeDrift(tmp, outdir, { fileLists: false, labels: { committed: `committed in ${opts.outdir}`, synthesized: 'synthesized from the code' } }), warnings };
    }
    swapIn(tmp, outdir);
    return { files, drift: [], diff: '', warnings };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Writes an app's output into `dir` (not atomic; `synthesize` wraps it). Returns the paths written.
 */
export function writeApp(app: App, dir: string, opts: RenderOptions & { readonly parallel?: boolean } = {}): string[] {
  const comments = opts.comments ?? true;
  const pool = (opts.parallel ?? app.charts.length >= PARALLEL_FROM_CHARTS) ? SerializerPool.create() : undefined;
  const made = new Set<string>();
  const paths: string[] = [];
  try {
    for (const f of planApp(app, opts)) {
      const target = path.join(dir, f.path);
      paths.push(f.path);
      if (pool && 'objects' in f) {
        pool.submit(target, f.objects, comments);
        continue;
      }
      const folder = path.dirname(target);
      if (!made.has(folder)) {
        fs.mkdirSync(folder, { recursive: true });
        made.add(folder);
      }
      fs.writeFileSync(target, 'content' in f ? f.content : serializeObjects(f.objects, comments));
    }
  } catch (e) {
    pool?.abort();
    throw e;
  }
  pool?.finish();
  return paths;
}

/**
 * From this many charts on, files are serialized on worker threads (parallel.ts). Measured here:
 * starting a worker and writing its first file takes 76-109 ms, and serializing one chart of the
 * canary set about 3 ms (bench/synth.ts floor: 2.9 s per 1,000), so below about 64 charts the
 * worker's start-up costs more than handing it the serialization saves.
 */
const PARALLEL_FROM_CHARTS = 64;

function swapIn(tmp: string, outdir: string): void {
  const old = `${tmp}-old`;
  if (fs.existsSync(outdir)) fs.renameSync(outdir, old);
  fs.renameSync(tmp, outdir);
  fs.rmSync(old, { recursive: true, force: true });
}

