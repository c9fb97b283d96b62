import * as fs from 'fs';
import * as path from 'path';
import { App, Chart } from 'cdk8s';
import { diffDirs, listFiles, summarizeDrift } from './diff';
import { SynthLayout } from './layout';
import { warningsOf } from './output';
import { progressWanted, terminalProgress } from './progress';
import { planApp, RenderOptions } from './render';
import { SerializerPool } from './parallel';
import { serializeObjects } from './serialize';
import * as YAML from 'yaml';
import { SchemaValidator } from '../schemas/validator';
import { KubernetesVersion } from '../decisions/kubernetes-version';
import { appKubernetesVersion } from './render-checks';
import { acquireLock, afterSwap, assertReplaceable, makeTempDir, recover, swapFault, swapIn, swapPaths } from './swap';
import { assertOwnedOutput, writeOutputMarker } from './ownership';
import { fileSystemError } from './fs-errors';

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
  /**
   * How long to wait for another synth writing the same output folder before failing.
   * @default 120 (seconds)
   */
  readonly lockWaitSeconds?: number;
  /**
   * Validate every synthesized object against the pinned schemas (src/schemas/) before the swap;
   * an invalid object fails the synth, naming file, object and field. Costs about 8 s once (loading
   * and compiling the schemas, measured here) plus about 1 ms per service.
   * @default false
   */
  readonly validateSchemas?: boolean;
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
 * serialization, writing), so a failed synth leaves the previous output untouched. One synth per
 * output folder at a time (a lock), and a crash mid-swap is repaired by the next run (swap.ts). The same app
 * gives the same bytes: no timestamps, charts in dependency order, files sorted.
 */
export function synthesize(build: (outdir: string) => App, opts: SynthOptions): SynthResult {
  const outdir = path.resolve(opts.outdir);
  // The output folder is rollwise's alone (ownership.ts): refused before anything is created.
  if (!opts.check) assertOwnedOutput(outdir);
  fs.mkdirSync(path.dirname(outdir), { recursive: true });
  const paths = swapPaths(outdir);
  const release = acquireLock(paths, opts.lockWaitSeconds ?? 120);
  try {
    // before anything else: finish or undo a swap a crash interrupted, delete what killed synths left
    const recovered = recover(paths);
    if (!opts.check) {
      assertOwnedOutput(outdir); // again under the lock: the folder may have changed while waiting
      assertReplaceable(paths);
    }
    const tmp = makeTempDir(paths);
    try {
      const app = build(tmp);
      const progress = opts.progress ?? (progressWanted() ? terminalProgress() : undefined);
      // Only the charts' manifests go to the API server; extra files (runbooks, Backstage's
      // catalog-info.yaml, which Backstage validates) are no Kubernetes objects.
      const manifests: string[] = [];
      writeApp(app, tmp, {
        comments: opts.comments,
        layout: opts.layout,
        onChart: progress,
        onManifest: (f) => manifests.push(f),
      });
      const files = listFiles(tmp);
      writeOutputMarker(tmp, files);
      swapFault('written');
      if (opts.validateSchemas) assertSchemaValid(tmp, manifests, appKubernetesVersion(app));
      const warnings = [...recovered, ...warningsOf(app)];
      if (opts.check) {
        return {
          files,
          drift: diffDirs(tmp, outdir),
          diff: summarizeDrift(tmp, outdir, {
            fileLists: false,
            labels: { committed: `committed in ${opts.outdir}`, synthesized: 'synthesized from the code' },
          }),
          warnings,
        };
      }
      try {
        warnings.push(...swapIn(paths, tmp));
      } catch (e) {
        throw fileSystemError(e, outdir, 'swapping the new output in as');
      }
      afterSwap(outdir);
      swapFault('swapped');
      return { files, drift: [], diff: '', warnings };
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  } finally {
    release();
  }
}

/**
 * Every manifest file (`files`: the charts' output) in `dir` against the pinned schemas; throws listing the invalid
 * objects.
 */
function assertSchemaValid(dir: string, files: readonly string[], version: KubernetesVersion): void {
  const validator = SchemaValidator.load(undefined, version);
  const problems: string[] = [];
  for (const f of files.filter((x) => /\.(ya?ml|json)$/.test(x))) {
    for (const doc of YAML.parseAllDocuments(fs.readFileSync(path.join(dir, f), 'utf8'), { version: '1.1' })) {
      const o = doc.toJS() as { kind?: string; metadata?: { name?: string } } | null;
      if (!o || typeof o !== 'object') continue;
      for (const e of validator.validate(o)) problems.push(`${f}: ${o.kind ?? '?'}/${o.metadata?.name ?? '?'} ${e}`);
    }
  }
  if (problems.length > 0) {
    throw new Error(
      `rollwise synth: ${problems.length} schema violation(s) in the synthesized objects (the API server would ` +
        `reject them); the previous output is unchanged:\n${problems
          .slice(0, 50)
          .map((p) => `  ${p}`)
          .join('\n')}`,
    );
  }
}

/**
 * Writes an app's output into `dir` (not atomic; `synthesize` wraps it). Returns the paths written;
 * `onManifest` hears the charts' manifest files among them (not the extra files).
 */
export function writeApp(
  app: App,
  dir: string,
  opts: RenderOptions & { readonly parallel?: boolean; readonly onManifest?: (path: string) => void } = {},
): string[] {
  const comments = opts.comments ?? true;
  const pool = (opts.parallel ?? chartCount(app) >= PARALLEL_FROM_CHARTS) ? SerializerPool.create() : undefined;
  const made = new Set<string>();
  const paths: string[] = [];
  try {
    for (const f of planApp(app, opts)) {
      const target = path.join(dir, f.path);
      paths.push(f.path);
      if ('objects' in f) opts.onManifest?.(f.path);
      if (pool && 'objects' in f) {
        pool.submit(target, f.objects, comments);
        continue;
      }
      const folder = path.dirname(target);
      const text = 'content' in f ? f.content : serializeObjects(f.objects, comments);
      try {
        if (!made.has(folder)) {
          fs.mkdirSync(folder, { recursive: true });
          made.add(folder);
        }
        fs.writeFileSync(target, text);
      } catch (e) {
        throw fileSystemError(e, f.path, 'writing');
      }
    }
  } catch (e) {
    pool?.abort();
    throw e;
  }
  pool?.finish();
  return paths;
}

/**
 * How many charts the app has: the length of `app.charts` without its cost. cdk8s' getter builds
 * a DependencyGraph of the whole construct tree and sorts it to return the charts in order
 * (cdk8s-team/cdk8s-core src/app.ts `get charts()`, src/dependency.ts; read in the installed
 * cdk8s 2.70.106, lib/app.js and lib/dependency.js, and at the repository's HEAD 6e6c8be5, the
 * mirror holding no 2.70 tag): a vertex per construct of `node.findAll()` (keyed by its path,
 * unique among siblings), every vertex reached from the roots when there is no cycle. Only the
 * count is wanted here, and it is the number of Chart constructs in the tree. Measured at 1,000
 * services, in one process: 391 ms of CPU for the getter's first call, 92 ms for this count
 * (docs/performance.md). A dependency cycle, which the getter threw on before planApp, now
 * throws in planApp ("Dependency cycle detected: ...", its dependencyOrder), after the
 * constructs' validation, as App.synth() orders them.
 */
function chartCount(app: App): number {
  let n = 0;
  for (const c of app.node.findAll()) if (c instanceof Chart) n++;
  return n;
}

/**
 * From this many charts on, files are serialized on worker threads (parallel.ts). Measured here:
 * starting a worker and writing its first file takes 76-109 ms, and serializing one chart of the
 * canary set took about 3 ms with the yaml package (bench/synth.ts floor: 2.9 s per 1,000), so
 * below about 64 charts the worker's start-up costs more than handing it the serialization saves.
 * With yaml-writer.ts a chart takes 0.6-2 ms; at 1,000 services the worker and the main thread
 * measured the same CPU time (writeApp, 3 interleaved rounds: 8.0/9.2/9.7 s with the worker,
 * 7.8/9.6/9.0 s without), and the worker still overlaps the writes with the checks, so it stays.
 */
const PARALLEL_FROM_CHARTS = 64;
