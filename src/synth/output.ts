import { App, Chart } from 'cdk8s';
import { Construct } from 'constructs';

/**
 * An extra file a construct adds to the synthesized output (e.g. a Markdown runbook). The path is
 * relative to the output folder of the chart the construct is in: with the flat layout that is the
 * output folder itself, with an environment layout it is the environment's folder (`dist/<env>/`).
 */
export interface OutputFile {
  /** Path relative to the chart's output folder, e.g. "checkout-api.runbook.md". */
  readonly relPath: string;
  readonly content: string;
  /** The construct that added the file (its chart decides the folder). */
  readonly scope: Construct;
}

/**
 * Extra files and warnings are kept per App and read by `synthesize`.
 */
interface AppOutput {
  readonly files: OutputFile[];
  /** "<chart path>\0<relPath>": one construct per chart and path. */
  readonly keys: Set<string>;
  readonly warnings: string[];
}

const outputs = new WeakMap<Construct, AppOutput>();

function of(scope: Construct): AppOutput {
  const root = scope.node.root;
  let o = outputs.get(root);
  if (!o) {
    o = { files: [], keys: new Set(), warnings: [] };
    outputs.set(root, o);
  }
  return o;
}

/** The chart a construct belongs to, or undefined for constructs outside any chart. */
export function chartOf(scope: Construct): Chart | undefined {
  for (let c: Construct | undefined = scope; c; c = c.node.scope as Construct | undefined) {
    if (Chart.isChart(c)) return c;
  }
  return undefined;
}

/**
 * Adds a file to the app's output. `relPath` is relative to the output folder of the scope's chart
 * (see OutputFile). Two constructs of one chart writing the same path is an error here; two charts
 * whose files land on the same output path is an error at synth time.
 */
export function addOutputFile(scope: Construct, relPath: string, content: string): void {
  const o = of(scope);
  const key = `${chartOf(scope)?.node.path ?? ''}\0${relPath}`;
  if (o.keys.has(key)) throw new Error(`two constructs write the output file ${relPath}`);
  o.keys.add(key);
  o.files.push({ relPath, content, scope });
}

/**
 * Records a warning printed by `rollwise synth` (the synth still succeeds), after the construct
 * path it is about; a warning about the whole app (the root, whose path is empty) starts with its
 * own subject instead of an empty one.
 */
export function addSynthWarning(scope: Construct, text: string): void {
  of(scope).warnings.push(scope.node.path === '' ? text : `${scope.node.path}: ${text}`);
}

/** Every extra file, in the order the constructs added them. */
export function outputFileEntriesOf(app: App): readonly OutputFile[] {
  return of(app).files;
}

/**
 * The extra files by path relative to their chart's folder. When charts in different folders add
 * the same relative path, this map holds the first; `outputFileEntriesOf` has them all.
 */
export function outputFilesOf(app: App): ReadonlyMap<string, string> {
  const map = new Map<string, string>();
  for (const f of of(app).files) if (!map.has(f.relPath)) map.set(f.relPath, f.content);
  return map;
}

/** Replaces the content of every extra file with `fn(content, relPath)` (e.g. absolute citations). */
export function mapOutputFiles(app: App, fn: (content: string, relPath: string) => string): void {
  const files = of(app).files;
  for (let i = 0; i < files.length; i++) files[i] = { ...files[i], content: fn(files[i].content, files[i].relPath) };
}

export function warningsOf(app: App): readonly string[] {
  return of(app).warnings;
}
