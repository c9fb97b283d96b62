/**
 * A serialization worker (see parallel.ts): turns chart objects into YAML, with the justification
 * comments, and writes the file. Runs in its own thread with a small heap of its own, so its many
 * short-lived allocations do not make the main thread's garbage collector walk the whole construct
 * tree again and again.
 */
import * as fs from 'fs';
import * as path from 'path';
import { parentPort, workerData } from 'worker_threads';
import { serializeObjects } from './serialize';

interface Job {
  readonly file: string;
  readonly objects: unknown[];
  readonly comments: boolean;
}
const { state, errorText } = workerData as { state: SharedArrayBuffer; errorText: SharedArrayBuffer };
const counters = new Int32Array(state); // [0] files done, [1] error flag
const made = new Set<string>();

function fail(e: unknown, file: string): void {
  // the code and the file, for the main thread's message (fs-errors.ts); no stack
  const bytes = new TextEncoder().encode(
    JSON.stringify({
      code: (e as NodeJS.ErrnoException)?.code,
      message: e instanceof Error ? e.message : String(e),
      file,
    }),
  );
  new Uint8Array(errorText).set(bytes.subarray(0, errorText.byteLength - 1));
  Atomics.store(counters, 1, 1);
  Atomics.notify(counters, 0);
}

parentPort?.on('message', (job: Job) => {
  try {
    const dir = path.dirname(job.file);
    if (!made.has(dir)) {
      fs.mkdirSync(dir, { recursive: true });
      made.add(dir);
    }
    fs.writeFileSync(job.file, serializeObjects(job.objects, job.comments));
    Atomics.add(counters, 0, 1);
    Atomics.notify(counters, 0);
  } catch (e) {
    fail(e, job.file);
  }
});
