import * as fs from 'fs';
import * as path from 'path';
import { RollwiseInputError } from '../errors';

/**
 * The output folder is rollwise's alone: a synth replaces it as a whole (swap.ts), so it may only
 * replace a folder that is absent, empty, or holds this marker, which every synth writes into its
 * output. Anything else (a Git checkout given as `-o .`, `-o src`, a home folder) is refused
 * before a byte changes, naming what was found. The marker is not part of the output's file list
 * (listFiles leaves it out), so `--check` and the equivalence with `App.synth()` are unchanged.
 */
export const OUTPUT_MARKER = '.rollwise-output';

export const OUTPUT_MARKER_TEXT = 'This folder is written by `rollwise synth`, which replaces it as a whole on every run.\n'
  + 'Keep no other files in it: they would be deleted. (docs/synth.md#the-output-folder)\n';

/** What an entry of a folder rollwise may not replace is, for the error. */
function describeEntry(dir: string, name: string): string {
  if (name === '.git') return '.git (a Git repository)';
  let st: fs.Stats | undefined;
  try {
    st = fs.lstatSync(path.join(dir, name));
  } catch {
    st = undefined;
  }
  if (st?.isDirectory()) return `${name}/`;
  if (/\.(ts|tsx|js|mjs|cjs|go|py|java|rs|rb|sh)$/.test(name)) return `${name} (source code)`;
  if (/^(package\.json|cdk8s\.yaml|tsconfig\.json|go\.mod|Makefile|README(\.md)?)$/.test(name)) return `${name} (a project file)`;
  return name;
}

/**
 * Refuses (throws a RollwiseInputError naming the folder and what is in it) unless `outdir` is
 * absent, an empty folder, or a folder holding rollwise's marker. Reads only.
 */
export function assertOwnedOutput(outdir: string, input = 'outdir'): void {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(outdir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new RollwiseInputError(input, outdir, `cannot be inspected (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}), so rollwise cannot tell whether it is its own output; nothing was changed.`, 'give an output folder this user can read, e.g. dist.');
  }
  if (st.isSymbolicLink()) {
    throw new RollwiseInputError(input, outdir, 'is a symbolic link: synth replaces its output folder by renaming, which would replace the link, not the folder it points to; nothing was changed.', 'give the real folder (e.g. dist), not a link to it.');
  }
  if (!st.isDirectory()) {
    throw new RollwiseInputError(input, outdir, 'is a file, not a folder; synth would replace it with its output. Nothing was changed.', 'give a folder for the output, e.g. dist.');
  }
  const entries = fs.readdirSync(outdir);
  if (entries.length === 0) return;
  const marker = path.join(outdir, OUTPUT_MARKER);
  if (entries.includes(OUTPUT_MARKER) && fs.lstatSync(marker).isFile()) return;
  const shown = entries.sort().slice(0, 6).map((e) => describeEntry(outdir, e));
  const more = entries.length > shown.length ? ` and ${entries.length - shown.length} more` : '';
  throw new RollwiseInputError(input, outdir,
    `is not empty and holds no ${OUTPUT_MARKER} marker of an earlier rollwise synth, so it is not rollwise's output: it holds ${shown.join(', ')}${more}. Synth replaces its output folder as a whole, which would delete all of that; nothing was changed.`,
    'synthesize into a folder of its own (the default is dist). If this folder is the output of a rollwise version before the marker, delete it (it is regenerated, and Git has the committed copy) and synth again.');
}

/** Writes the marker into a new output folder. */
export function writeOutputMarker(dir: string): void {
  fs.writeFileSync(path.join(dir, OUTPUT_MARKER), OUTPUT_MARKER_TEXT);
}
