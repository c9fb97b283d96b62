import * as fs from 'fs';

/**
 * The most bytes `rollwise lint`, `simulate` and `explain` read from one input (a manifest, a
 * scenario, standard input): 32 MiB. One service's synthesized file, comments included, is 81 KB
 * (dist/prod/checkout-api.k8s.yaml), so one input holds about 400 services' manifests; the cap is
 * per file, so a folder of any size is fine. Parsing YAML takes several times the text in memory,
 * which is what the cap protects. Set ROLLWISE_MAX_INPUT_BYTES to change it. `/dev/zero` or an
 * endless pipe stops at the cap.
 */
export const DEFAULT_MAX_INPUT_BYTES = 32 * 1024 * 1024;

/** The cap in force: ROLLWISE_MAX_INPUT_BYTES when it is a positive whole number, else the default. */
export function maxInputBytes(): number {
  const raw = process.env.ROLLWISE_MAX_INPUT_BYTES;
  if (raw === undefined || raw === '') return DEFAULT_MAX_INPUT_BYTES;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0)
    throw new InputTooLargeError(
      `ROLLWISE_MAX_INPUT_BYTES = ${raw}: must be a whole number of bytes above 0 (e.g. ${DEFAULT_MAX_INPUT_BYTES}).`,
    );
  return n;
}

export class InputTooLargeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InputTooLargeError';
  }
}

/**
 * Reads a file (or a file descriptor, e.g. 0 for standard input) as UTF-8, refusing more than
 * `max` bytes with a message naming the file, the cap and how to raise it. Reads in chunks, so a
 * device or pipe that never ends is stopped at the cap instead of filling memory.
 */
export function readTextCapped(
  file: string | number,
  name: string = String(file),
  max: number = maxInputBytes(),
): string {
  const fd = typeof file === 'number' ? file : fs.openSync(file, 'r');
  try {
    const st = fs.fstatSync(fd);
    if (st.isFile() && st.size > max) throw tooLarge(name, `${st.size} bytes`, max);
    const chunks: Buffer[] = [];
    let total = 0;
    // A regular file: a buffer of its size (plus one byte, to see it end or grow; at least 64 KiB,
    // for files that report size 0, such as /proc files); else 1 MiB
    // chunks. Not zero-filled (only the bytes read are copied out): a folder scan reads thousands
    // of small files, and a zero-filled 1 MiB buffer for each was most of lint's time reading them.
    const buf = Buffer.allocUnsafe(Math.min(st.isFile() ? Math.max(st.size + 1, 64 * 1024) : 1024 * 1024, max + 1));
    for (;;) {
      let n: number;
      try {
        n = fs.readSync(fd, buf, 0, buf.length, null);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EAGAIN') continue;
        if ((e as NodeJS.ErrnoException).code === 'EOF') break;
        throw e;
      }
      if (n === 0) break;
      total += n;
      if (total > max) throw tooLarge(name, `more than ${max} bytes`, max);
      chunks.push(Buffer.from(buf.subarray(0, n)));
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    if (typeof file !== 'number') fs.closeSync(fd);
  }
}

function tooLarge(name: string, size: string, max: number): InputTooLargeError {
  return new InputTooLargeError(
    `${name} is ${size}, above the input cap of ${max} bytes (${Math.round(max / 1024 / 1024)} MiB): no manifest or ` +
      'scenario is that large, so this is likely the wrong file (a device, a log, a binary). To read it anyway, set ' +
      'ROLLWISE_MAX_INPUT_BYTES=<bytes>.',
  );
}
