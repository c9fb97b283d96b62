import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { RollwiseInputError } from '../errors';

/**
 * How `synthesize` replaces an output folder. Everything lives beside the output, in its parent:
 *
 * - `.<out>.lock`: one synth per output folder at a time; a second waits, then fails naming the
 *   holder. A lock whose process is gone (killed) is taken over.
 * - `.<out>-tmp-<random>`: the new output, written completely before anything is swapped. Created
 *   with mkdir (not mkdtemp, which makes it 0700), so the folder gets the mode the umask gives.
 * - `.<out>.swap`: a journal written once the new output is complete, naming the new folder and
 *   where the old one goes. The swap is two renames (Linux has no atomic exchange of directories
 *   that Node exposes); a crash between them leaves no `<out>` for an instant, and the next synth,
 *   first thing under the lock, finishes the swap from the journal (or puts the old folder back).
 * - `.<out>-old-<random>`: the previous output until it is deleted.
 *
 * Failure is reported only while the old output is still in place: the output tree is checked for
 * writability before the swap, and a failure to delete the previous copy after the swap is a
 * warning (the next run deletes it).
 */

export interface SwapPaths {
  readonly outdir: string;
  readonly parent: string;
  readonly base: string;
  readonly lock: string;
  readonly journal: string;
}

export function swapPaths(outdir: string): SwapPaths {
  const parent = path.dirname(outdir);
  const base = path.basename(outdir);
  return {
    outdir,
    parent,
    base,
    lock: path.join(parent, `.${base}.lock`),
    journal: path.join(parent, `.${base}.swap`),
  };
}

/** Test hook: called at named points of the swap (a test kills the process there). @internal */
export type SwapStage = 'written' | 'between-renames' | 'swapped';
let faultHook: ((stage: SwapStage) => void) | undefined;

/** @internal for fault-injection tests only */
export function setSwapFaultHook(hook: ((stage: SwapStage) => void) | undefined): void {
  faultHook = hook;
}

export function swapFault(stage: SwapStage): void {
  faultHook?.(stage);
}

function sleepMs(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface LockHolder {
  readonly pid: number;
  readonly host: string;
  readonly started: string;
}

function readHolder(file: string): LockHolder | undefined {
  try {
    const h = JSON.parse(fs.readFileSync(file, 'utf8')) as LockHolder;
    return typeof h.pid === 'number' ? h : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes the output folder's lock, waiting up to `waitSeconds` for another synth to finish. Returns
 * the release function. A lock left by a process that no longer runs on this host is taken over.
 */
export function acquireLock(p: SwapPaths, waitSeconds: number): () => void {
  const deadline = Date.now() + waitSeconds * 1000;
  const me: LockHolder = { pid: process.pid, host: os.hostname(), started: new Date().toISOString() };
  for (;;) {
    try {
      fs.writeFileSync(p.lock, JSON.stringify(me), { flag: 'wx' });
      return () => {
        if (readHolder(p.lock)?.pid === me.pid) fs.rmSync(p.lock, { force: true });
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const holder = readHolder(p.lock);
    if (holder === undefined) {
      // written but not yet filled in by its owner, or garbage: give a writer a moment, then take over
      const st = fs.statSync(p.lock, { throwIfNoEntry: false });
      if (st && Date.now() - st.mtimeMs > 2000) fs.rmSync(p.lock, { force: true });
    } else if (holder.host === me.host && !alive(holder.pid)) {
      fs.rmSync(p.lock, { force: true });
      continue;
    }
    if (Date.now() >= deadline) {
      throw new Error(
        `rollwise synth: ${p.outdir} is being written by another synth ` +
          `(${holder ? `pid ${holder.pid} on ${holder.host}, since ${holder.started}` : 'unknown process'}); ` +
          `waited ${waitSeconds} s. Wait for it to finish, or, if no synth is running, delete ${p.lock}.`,
      );
    }
    sleepMs(50);
  }
}

interface Journal {
  readonly next: string;
  readonly old: string;
}

/**
 * Whether `file` is one of synth's own folders beside the output: exactly our names (12 hex digits), so a sibling
 * output such as "dist-tmp" keeps its folders.
 */
function isOurs(p: SwapPaths, file: unknown, kind: 'tmp' | 'old'): boolean {
  if (typeof file !== 'string' || path.dirname(file) !== p.parent) return false;
  const e = path.basename(file);
  return (
    e.length === p.base.length + 18 &&
    e.startsWith(`.${p.base}-${kind}-`) &&
    /^[0-9a-f]{12}$/.test(e.slice(p.base.length + 6))
  );
}

/**
 * Run first, under the lock: finishes or undoes a swap a crash interrupted, and deletes the temporary
 * and old folders killed synths left. Returns what it did (for the synth's warnings).
 */
export function recover(p: SwapPaths): string[] {
  const notes: string[] = [];
  let journal: Journal | undefined;
  let text: string | undefined;
  try {
    text = fs.readFileSync(p.journal, 'utf8');
  } catch {
    text = undefined;
  }
  if (text !== undefined && text !== '') {
    try {
      journal = JSON.parse(text) as Journal;
    } catch {
      journal = undefined;
    }
    // A journal names only synth's own folders beside the output (makeTempDir, swapIn). A file of
    // that name that is anything else was not written by synth: nothing is moved for it, and it is
    // not deleted or overwritten either (an empty one is a journal a crash cut short).
    if (!journal || typeof journal !== 'object' || !(isOurs(p, journal.next, 'tmp') && isOurs(p, journal.old, 'old'))) {
      throw new RollwiseInputError(
        'outdir',
        p.outdir,
        `has beside it ${p.journal}, which is not a swap journal rollwise synth wrote (a journal names only synth's ` +
          `own .${p.base}-tmp-* and .${p.base}-old-* folders); synth keeps its journal under that name, so it would ` +
          'overwrite and delete the file. Nothing was changed.',
        `move ${p.journal} away (or delete it if it is not yours), or synthesize into another folder.`,
      );
    }
  }
  if (text === '') fs.rmSync(p.journal, { force: true });
  if (journal && !fs.existsSync(p.outdir)) {
    if (journal.next && fs.existsSync(journal.next)) {
      fs.renameSync(journal.next, p.outdir);
      notes.push(
        `recovered ${p.outdir}: a previous synth was interrupted between its two renames; its complete output is now ` +
          'in place',
      );
    } else if (journal.old && fs.existsSync(journal.old)) {
      fs.renameSync(journal.old, p.outdir);
      notes.push(
        `recovered ${p.outdir}: a previous synth was interrupted during its swap; the output before it is back in ` +
          'place',
      );
    }
  }
  if (journal) fs.rmSync(p.journal, { force: true });
  const ours = (e: string) => isOurs(p, path.join(p.parent, e), 'tmp') || isOurs(p, path.join(p.parent, e), 'old');
  let entries: string[] = [];
  try {
    entries = fs.readdirSync(p.parent);
  } catch {
    entries = [];
  }
  for (const e of entries) {
    if (!ours(e)) continue;
    try {
      fs.rmSync(path.join(p.parent, e), { recursive: true, force: true });
      notes.push(`removed ${path.join(p.parent, e)}, left by an interrupted synth`);
    } catch (err) {
      notes.push(`could not remove ${path.join(p.parent, e)}, left by an interrupted synth: ${(err as Error).message}`);
    }
  }
  return notes;
}

/** Creates the new output folder beside the output, with the mode the umask gives (unlike mkdtemp's 0700). */
export function makeTempDir(p: SwapPaths): string {
  for (;;) {
    const dir = path.join(p.parent, `.${p.base}-tmp-${randomBytes(6).toString('hex')}`);
    try {
      fs.mkdirSync(dir, { mode: 0o777 });
      return dir;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
}

/**
 * Refuses (before anything is swapped) when the existing output could not be replaced and deleted:
 * a folder in it that this process cannot write. Names the folder.
 */
export function assertReplaceable(p: SwapPaths): void {
  if (!fs.existsSync(p.outdir)) return;
  const stack = [p.outdir];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    try {
      fs.accessSync(dir, fs.constants.W_OK);
    } catch {
      throw new Error(
        `rollwise synth: ${dir} is read-only, so the previous output could not be replaced and deleted; nothing was ` +
          `changed. Fix: make it writable (chmod -R u+w ${p.outdir}) or synthesize into another folder (--out).`,
      );
    }
    for (const e of fs.readdirSync(dir, { withFileTypes: true }))
      if (e.isDirectory()) stack.push(path.join(dir, e.name));
  }
}

/**
 * Swaps the complete folder `next` in as the output. Returns warnings (the old copy could not be
 * deleted); throws only while the old output is in place.
 */
export function swapIn(p: SwapPaths, next: string): string[] {
  const old = path.join(p.parent, `.${p.base}-old-${randomBytes(6).toString('hex')}`);
  const fd = fs.openSync(p.journal, 'w');
  try {
    fs.writeSync(fd, JSON.stringify({ next, old } satisfies Journal));
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  const hadOutput = fs.existsSync(p.outdir);
  try {
    if (hadOutput) fs.renameSync(p.outdir, old);
  } catch (e) {
    fs.rmSync(p.journal, { force: true });
    throw e;
  }
  swapFault('between-renames');
  try {
    fs.renameSync(next, p.outdir);
  } catch (e) {
    if (hadOutput) fs.renameSync(old, p.outdir);
    fs.rmSync(p.journal, { force: true });
    throw e;
  }
  fs.rmSync(p.journal, { force: true });
  if (!hadOutput) return [];
  try {
    fs.rmSync(old, { recursive: true, force: true });
    return [];
  } catch (e) {
    return [
      `the new output is in place, but the previous copy ${old} could not be deleted ` +
        `(${(e as Error).message}); the next synth deletes it`,
    ];
  }
}

/**
 * Signals. Synth is synchronous, and Node runs a JavaScript signal listener only when the event
 * loop turns again, which is after the synth, swap included. So no listener is installed while the
 * output is written: an interrupt (SIGINT, SIGTERM, SIGHUP) before the swap ends the process at
 * once by the signal's default action (exit 130 / 143), the previous output stays in place, and
 * the next synth deletes the temporary folder (recover). Once the new output is swapped in,
 * `afterSwap` installs a listener until the event loop turns, so an interrupt that arrives after
 * the swap says that the new output is complete and in place, then ends the process by the signal.
 */
const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
const listeners = new Map<NodeJS.Signals, () => void>();
let swappedInto: string | undefined;

export function afterSwap(outdir: string): void {
  swappedInto = outdir;
  for (const sig of SIGNALS) {
    if (listeners.has(sig)) continue;
    const onSignal = (): void => {
      process.stderr.write(
        `rollwise synth: interrupted by ${sig} after the swap: ${swappedInto ?? 'the output'} holds the complete new ` +
          `output (nothing to undo).\n`,
      );
      process.off(sig, onSignal);
      listeners.delete(sig);
      if (process.listenerCount(sig) === 0) process.kill(process.pid, sig);
    };
    listeners.set(sig, onSignal);
    process.on(sig, onSignal);
  }
  // Signal events are delivered in the event loop's poll phase, before setImmediate callbacks:
  // one that arrived during the rest of the synth still finds the listener.
  setImmediate(() => {
    for (const [sig, fn] of listeners) process.off(sig, fn);
    listeners.clear();
    swappedInto = undefined;
  });
}
