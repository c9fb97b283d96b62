import * as fs from 'fs';
import * as path from 'path';
import { RollwiseInputError } from '../errors';

/**
 * The output folder is rollwise's alone: a synth replaces it as a whole (swap.ts), so it may only
 * replace a folder that is absent, empty, or holds this marker as synth wrote it, together with
 * the files the marker lists (the previous synth's output) and nothing else. Anything else (a Git
 * checkout given as `-o .`, `-o src`, a home folder, an old output that has since become a Git
 * repository, a file a user added to the output, an empty or hand-made marker) is refused before a
 * byte changes, naming what was found. The marker is not part of the output's file list
 * (listFiles leaves it out), so `--check` and the equivalence with `App.synth()` are unchanged.
 */
export const OUTPUT_MARKER = '.rollwise-output';

/** The marker's first lines, exactly as synth writes them; the files follow, one a line. */
const MARKER_HEADER = [
  'This folder is written by `rollwise synth`, which replaces it as a whole on every run.',
  "Synth replaces it only while it holds the files listed below (the previous synth's output) and",
  'nothing else: a file it did not write stops it, named (docs/synth.md#the-output-folder).',
  'Keep your own files elsewhere, and do not edit this list.',
  'files:',
];

/** The text of the marker of the first version, which listed no files (never released). */
const UNLISTED_MARKER_TEXT =
  'This folder is written by `rollwise synth`, which replaces it as a whole on every run.\n' +
  'Keep no other files in it: they would be deleted. (docs/synth.md#the-output-folder)\n';

/**
 * A file name that would not survive as a plain line (or could be read as a conflict marker) is written as a JSON
 * string.
 */
function entryLine(file: string): string {
  const control = [...file].some(
    (ch) => ch.charCodeAt(0) < 0x20 || ch === '\u007f' || ch === '\u2028' || ch === '\u2029',
  );
  return control || /^["<=>|]|\s$/.test(file) ? JSON.stringify(file) : file;
}

/** The marker synth writes into its output: the header, then the files it wrote (relative, "/"-separated). */
export function outputMarkerText(files: readonly string[]): string {
  return `${[...MARKER_HEADER, ...[...files].sort().map(entryLine)].join('\n')}\n`;
}

/** Git's conflict lines: a merge of two outputs' markers is read as both sides' files. */
const CONFLICT_LINE = /^(<{7}|={7}|>{7}|\|{7})( |$)/;

/**
 * The files a marker lists, or why it is not a marker synth wrote. Tolerates CRLF line ends and
 * Git's conflict lines (a merge of two branches' outputs lists the files of both).
 */
export function readOutputMarker(text: string): { readonly files: ReadonlySet<string> } | { readonly problem: string } {
  if (text === UNLISTED_MARKER_TEXT)
    return { problem: 'was written by an earlier rollwise version, which did not ' + 'list the files it wrote' };
  if (text.trim() === '') return { problem: 'is empty, and synth never writes an empty marker' };
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < MARKER_HEADER.length; i++) {
    if (lines[i] !== MARKER_HEADER[i])
      return { problem: `does not start with the lines synth writes (line ${i + 1} ` + 'differs)' };
  }
  const files = new Set<string>();
  for (const [i, line] of lines.slice(MARKER_HEADER.length).entries()) {
    if (line === '' || CONFLICT_LINE.test(line)) continue;
    let file = line;
    if (line.startsWith('"')) {
      try {
        file = JSON.parse(line) as string;
      } catch {
        return {
          problem: 'has a line synth would not write ' + `(line ${MARKER_HEADER.length + i + 1}: ${line.slice(0, 80)})`,
        };
      }
    }
    const norm = path.posix.normalize(file);
    if (
      typeof file !== 'string' ||
      file === '' ||
      norm !== file ||
      file.startsWith('/') ||
      file === '..' ||
      file.startsWith('../')
    ) {
      return {
        problem: 'lists a path synth would not write ' + `(line ${MARKER_HEADER.length + i + 1}: ${line.slice(0, 80)})`,
      };
    }
    files.add(file);
  }
  return { files };
}

/** What an entry of a folder rollwise may not replace is, for the error. */
function describeEntry(dir: string, rel: string, kind?: string): string {
  const name = path.posix.basename(rel);
  if (name === '.git') return `${rel} (a Git repository)`;
  let st: fs.Stats | undefined;
  try {
    st = fs.lstatSync(path.join(dir, rel));
  } catch {
    st = undefined;
  }
  if (kind) return `${rel} (${kind})`;
  if (st?.isSymbolicLink()) return `${rel} (a symbolic link)`;
  if (st?.isDirectory()) return `${rel}/`;
  if (/\.(ts|tsx|js|mjs|cjs|go|py|java|rs|rb|sh)$/.test(name)) return `${rel} (source code)`;
  if (/^(package\.json|cdk8s\.yaml|tsconfig\.json|go\.mod|Makefile|README(\.md)?)$/.test(name))
    return `${rel} (a project file)`;
  return rel;
}

/** Shows at most six entries, then how many more. */
function shown(entries: readonly string[]): string {
  const first = entries.slice(0, 6);
  return `${first.join(', ')}${entries.length > first.length ? ` and ${entries.length - first.length} more` : ''}`;
}

/**
 * What the folder holds that the marker does not list: unlisted files, symbolic links, `.git`, and
 * folders that hold no listed file (named as the folder, not descended into). Empty folders hold
 * nothing to lose and pass.
 */
function unlisted(outdir: string, files: ReadonlySet<string>): string[] {
  const dirs = new Set<string>();
  for (const f of files) for (let d = path.posix.dirname(f); d !== '.'; d = path.posix.dirname(d)) dirs.add(d);
  const out: string[] = [];
  const walk = (rel: string): void => {
    for (const e of fs
      .readdirSync(path.join(outdir, rel), { withFileTypes: true })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (r === OUTPUT_MARKER) continue;
      if (e.name === '.git') out.push(describeEntry(outdir, r));
      else if (e.isSymbolicLink()) out.push(describeEntry(outdir, r, 'a symbolic link'));
      else if (e.isDirectory()) {
        if (dirs.has(r)) walk(r);
        else if (fs.readdirSync(path.join(outdir, r)).length > 0) out.push(describeEntry(outdir, r));
      } else if (!e.isFile()) out.push(describeEntry(outdir, r, 'not a regular file'));
      else if (!files.has(r)) out.push(describeEntry(outdir, r));
      if (out.length > 50) return;
    }
  };
  walk('');
  return out;
}

/**
 * Refuses (throws a RollwiseInputError naming the folder and what is in it) unless `outdir` is
 * absent, an empty folder, or a folder holding rollwise's marker as synth wrote it and only the
 * files it lists. Reads only.
 */
export function assertOwnedOutput(outdir: string, input = 'outdir'): void {
  let st: fs.Stats;
  try {
    st = fs.lstatSync(outdir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new RollwiseInputError(
      input,
      outdir,
      `cannot be inspected (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}), so rollwise cannot tell ` +
        'whether it is its own output; nothing was changed.',
      'give an output folder this user can read, e.g. dist.',
    );
  }
  if (st.isSymbolicLink()) {
    throw new RollwiseInputError(
      input,
      outdir,
      'is a symbolic link: synth replaces its output folder by renaming, which would replace the link, not the ' +
        'folder it points to; nothing was changed.',
      'give the real folder (e.g. dist), not a link to it.',
    );
  }
  if (!st.isDirectory()) {
    throw new RollwiseInputError(
      input,
      outdir,
      'is a file, not a folder; synth would replace it with its output. Nothing was changed.',
      'give a folder for the output, e.g. dist.',
    );
  }
  const entries = fs.readdirSync(outdir);
  if (entries.length === 0) return;
  const marker = path.join(outdir, OUTPUT_MARKER);
  const markerIsFile = entries.includes(OUTPUT_MARKER) && fs.lstatSync(marker).isFile();
  if (!markerIsFile) {
    throw new RollwiseInputError(
      input,
      outdir,
      `is not empty and holds no ${OUTPUT_MARKER} marker of an earlier rollwise synth, so it is not rollwise's ` +
        `output: it holds ${shown(entries.sort().map((e) => describeEntry(outdir, e)))}. Synth replaces its output ` +
        'folder as a whole, which would delete all of that; nothing was changed.',
      'synthesize into a folder of its own (the default is dist). If this folder is the output of a rollwise version ' +
        'before the marker, delete it (it is regenerated, and Git has the committed copy) and synth again.',
    );
  }
  let text: string;
  try {
    text = fs.readFileSync(marker, 'utf8');
  } catch (e) {
    throw new RollwiseInputError(
      input,
      outdir,
      `holds a ${OUTPUT_MARKER} marker that cannot be read ` +
        `(${(e as NodeJS.ErrnoException).code ?? (e as Error).message}), so rollwise cannot tell which files are its ` +
        'own; nothing was changed.',
      `make ${marker} readable, or delete the folder if it is only rollwise's output, and synth again.`,
    );
  }
  const read = readOutputMarker(text);
  if ('problem' in read) {
    const others = entries
      .filter((e) => e !== OUTPUT_MARKER)
      .sort()
      .map((e) => describeEntry(outdir, e));
    throw new RollwiseInputError(
      input,
      outdir,
      `holds a ${OUTPUT_MARKER} that is not the marker rollwise synth writes: it ${read.problem}. Only that marker ` +
        'lists the files synth wrote, and without the list synth cannot tell its files from ' +
        `others${others.length ? ` (the folder holds ${shown(others)})` : ''}; replacing the folder could delete ` +
        `files that are not rollwise's, so nothing was changed.`,
      'if the folder holds only rollwise output, delete it (it is regenerated, and Git has the committed copy) and ' +
        'synth again; otherwise synthesize into a folder of its own (the default is dist).',
    );
  }
  const extra = unlisted(outdir, read.files);
  if (extra.length > 0) {
    const git = extra.some((e) => e.endsWith('(a Git repository)'));
    throw new RollwiseInputError(
      input,
      outdir,
      `holds ${extra.length === 1 ? 'a file' : 'files'} the previous rollwise synth did not write ` +
        `(its ${OUTPUT_MARKER} marker lists the files it wrote, and not these): ${shown(extra)}. Synth replaces its ` +
        `output folder as a whole, which would delete ${extra.length === 1 ? 'it' : 'them'}; nothing was changed.`,
      git
        ? 'this folder has become a project of its own (it holds .git): synthesize into another folder (-o / ' +
            'outdir), or move the project out.'
        : `move ${extra.length === 1 ? 'it' : 'them'} out of the output folder (it holds only what synth writes), or ` +
            `delete ${extra.length === 1 ? 'it' : 'them'} ` +
            `if ${extra.length === 1 ? 'it is a stale copy' : 'they are stale copies'} of rollwise output, and synth ` +
            'again.',
    );
  }
}

/** Writes the marker, listing `files` (the output's files, from listFiles), into a new output folder. */
export function writeOutputMarker(dir: string, files: readonly string[]): void {
  fs.writeFileSync(path.join(dir, OUTPUT_MARKER), outputMarkerText(files));
}
