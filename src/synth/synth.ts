import * as fs from 'fs';
import * as path from 'path';
import { App } from 'cdk8s';
import { commentYamlText } from '../justify/comments';
import { outputFilesOf, warningsOf } from './output';

export interface SynthOptions {
  /** Where the output goes (e.g. "dist"). */
  readonly outdir: string;
  /** Compare with the existing output instead of writing it. */
  readonly check?: boolean;
}

export interface SynthResult {
  /** Output files, relative to outdir, sorted. */
  readonly files: string[];
  /** Under `check`: files that differ, are missing or are extra (empty when in sync). */
  readonly drift: string[];
  /** Warnings the constructs recorded (see addSynthWarning). */
  readonly warnings: readonly string[];
}

/**
 * Synthesizes an app built by `build(outdir)` into `opts.outdir`, with justification comments.
 * The output is written to a temporary sibling folder and swapped in only when everything
 * succeeded, so a failed synth leaves the previous output untouched.
 */
export function synthesize(build: (outdir: string) => App, opts: SynthOptions): SynthResult {
  const outdir = path.resolve(opts.outdir);
  const tmp = fs.mkdtempSync(path.join(path.dirname(outdir), `.${path.basename(outdir)}-tmp-`));
  try {
    const app = build(tmp);
    app.synth();
    for (const f of listFiles(tmp)) {
      if (!f.endsWith('.yaml')) continue;
      const p = path.join(tmp, f);
      fs.writeFileSync(p, commentYamlText(fs.readFileSync(p, 'utf8')));
    }
    for (const [rel, content] of outputFilesOf(app)) {
      fs.mkdirSync(path.dirname(path.join(tmp, rel)), { recursive: true });
      fs.writeFileSync(path.join(tmp, rel), content);
    }
    const files = listFiles(tmp);
    const warnings = warningsOf(app);
    if (opts.check) return { files, drift: diffDirs(tmp, outdir), warnings };
    swapIn(tmp, outdir);
    return { files, drift: [], warnings };
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

function swapIn(tmp: string, outdir: string): void {
  const old = `${tmp}-old`;
  if (fs.existsSync(outdir)) fs.renameSync(outdir, old);
  fs.renameSync(tmp, outdir);
  fs.rmSync(old, { recursive: true, force: true });
}

export function listFiles(dir: string, base = ''): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(dir, base), { withFileTypes: true })) {
    const rel = path.join(base, e.name);
    if (e.isDirectory()) out.push(...listFiles(dir, rel));
    else out.push(rel);
  }
  return out.sort();
}

/** Files that differ between two folders: "changed x", "missing x" (only in expected), "extra x". */
export function diffDirs(expected: string, actual: string): string[] {
  const a = new Set(listFiles(expected));
  const b = new Set(listFiles(actual));
  const drift: string[] = [];
  for (const f of a) {
    if (!b.has(f)) drift.push(`missing ${f}`);
    else if (!fs.readFileSync(path.join(expected, f)).equals(fs.readFileSync(path.join(actual, f)))) drift.push(`changed ${f}`);
  }
  for (const f of b) if (!a.has(f)) drift.push(`extra ${f}`);
  return drift.sort();
}
