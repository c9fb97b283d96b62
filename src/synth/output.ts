import { App } from 'cdk8s';
import { Construct } from 'constructs';

/**
 * Extra files a construct adds to the synthesized output (e.g. a Markdown runbook), and warnings
 * it wants the user to see at synth time. Both are kept per App and read by `synthesize`.
 */
interface AppOutput {
  readonly files: Map<string, string>;
  readonly warnings: string[];
}

const outputs = new WeakMap<Construct, AppOutput>();

function of(scope: Construct): AppOutput {
  const root = scope.node.root;
  let o = outputs.get(root);
  if (!o) {
    o = { files: new Map(), warnings: [] };
    outputs.set(root, o);
  }
  return o;
}

/** Adds a file (path relative to the output folder) to the app's output. */
export function addOutputFile(scope: Construct, relPath: string, content: string): void {
  const files = of(scope).files;
  if (files.has(relPath)) throw new Error(`two constructs write the output file ${relPath}`);
  files.set(relPath, content);
}

/** Records a warning printed by `rollwise synth` (the synth still succeeds). */
export function addSynthWarning(scope: Construct, text: string): void {
  of(scope).warnings.push(`${scope.node.path}: ${text}`);
}

export function outputFilesOf(app: App): ReadonlyMap<string, string> {
  return of(app).files;
}

export function warningsOf(app: App): readonly string[] {
  return of(app).warnings;
}
