import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Worker } from 'worker_threads';
import { fileSystemError } from './fs-errors';

/**
 * Serializes and writes chart files on worker threads while the main thread keeps turning charts
 * into JSON. Measured (bench/synth.ts): serialization allocates heavily, and on the main thread,
 * beside a construct tree of thousands of services, every major garbage collection walks that
 * whole tree, so the time per chart grows with the estate; in a worker it does not, and it uses
 * the machine's other cores. Synchronous for the caller: `finish()` blocks (Atomics.wait) until
 * every file is written or a worker failed.
 */
export class SerializerPool {
  /**
   * A pool of `size` workers, or undefined where the compiled worker is not available (running
   * from TypeScript sources, e.g. under jest): callers then serialize on the main thread.
   */
  public static create(size: number = defaultPoolSize()): SerializerPool | undefined {
    const script = path.join(__dirname, 'serialize-worker.js');
    if (!fs.existsSync(script) || size < 1) return undefined;
    return new SerializerPool(script, size);
  }

  private readonly state = new SharedArrayBuffer(8);
  private readonly counters = new Int32Array(this.state);
  private readonly errorText = new SharedArrayBuffer(16 * 1024);
  private readonly workers: Worker[];
  private submitted = 0;

  private constructor(script: string, size: number) {
    this.workers = Array.from({ length: size }, () => {
      const w = new Worker(script, { workerData: { state: this.state, errorText: this.errorText } });
      w.unref();
      return w;
    });
  }

  /**
   * Queues one file: `objects` serialized (with comments when asked) and written to `file`. Waits
   * while more than MAX_IN_FLIGHT files are queued, so queued objects never pile up in memory when
   * the main thread produces faster than the workers write.
   */
  public submit(file: string, objects: unknown[], comments: boolean): void {
    this.waitUntil((done) => this.submitted - done <= MAX_IN_FLIGHT);
    this.workers[this.submitted++ % this.workers.length].postMessage({ file, objects, comments });
  }

  /** Waits until every queued file is written; throws the first worker error. Always stops the workers. */
  public finish(): void {
    try {
      this.waitUntil((done) => done >= this.submitted);
    } finally {
      this.abort();
    }
  }

  /** Stops the workers without waiting (the synth failed elsewhere; the output folder is discarded). */
  public abort(): void {
    for (const w of this.workers) void w.terminate();
  }

  /** Blocks until `ready(filesDone)` holds; throws a worker's error, or after 120 s without progress. */
  private waitUntil(ready: (done: number) => boolean): void {
    let lastDone = -1;
    let idleSince = Date.now();
    for (;;) {
      if (Atomics.load(this.counters, 1) !== 0) throw this.workerError();
      const done = Atomics.load(this.counters, 0);
      if (ready(done)) return;
      if (done !== lastDone) {
        lastDone = done;
        idleSince = Date.now();
      } else if (Date.now() - idleSince > 120_000) {
        throw new Error(
          `serializing the output stalled: ${done}/${this.submitted} files written and no progress for 120 s (a ` +
            'worker died?)',
        );
      }
      Atomics.wait(this.counters, 0, done, 1000);
    }
  }

  /** The worker's failure as the main thread reports it: the file, the cause and the fix (fs-errors.ts). */
  private workerError(): Error {
    let e: { code?: string; message?: string; file?: string };
    try {
      e = JSON.parse(this.error()) as typeof e;
    } catch {
      return new Error(`serializing the output failed: ${this.error()}`);
    }
    const err = Object.assign(new Error(e.message ?? 'unknown'), { code: e.code });
    return e.code
      ? fileSystemError(err, this.relative(e.file ?? '?'), 'writing')
      : new Error(`serializing ${this.relative(e.file ?? '?')} failed: ${e.message}`);
  }

  /** A worker's file relative to the temporary output folder (what the user recognizes). */
  private relative(file: string): string {
    return file.replace(/^.*\/\.[^/]+-tmp-[0-9a-f]{12}\//, '');
  }

  private error(): string {
    const bytes = new Uint8Array(this.errorText);
    const end = bytes.indexOf(0);
    return new TextDecoder().decode(bytes.slice(0, end < 0 ? bytes.length : end));
  }
}

/** Files queued to the workers at most: enough to keep them busy, few enough to bound memory. */
const MAX_IN_FLIGHT = 32;

/**
 * One worker per core beyond the main thread's, at least one. At most four: each worker holds a
 * heap of its own, and the main thread's toJson has to keep them fed; only the one-worker case
 * (this 2-core machine) has been measured.
 */
function defaultPoolSize(): number {
  const cores = typeof os.availableParallelism === 'function' ? os.availableParallelism() : os.cpus().length;
  return Math.min(4, Math.max(1, cores - 1));
}
