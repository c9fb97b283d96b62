/**
 * File-system errors of a synth as the user needs them: the file, what went wrong in words, and
 * the fix; no stack (a worker thread's stack names rollwise's internals, not the user's problem).
 */
export class FileSystemError extends Error {
  constructor(
    message: string,
    public readonly code: string | undefined,
    public readonly file: string,
  ) {
    super(message);
    this.name = 'FileSystemError';
  }
}

const CAUSES: Record<string, [why: string, fix: string]> = {
  ENOSPC: ['the disk is full', 'free space on the disk that holds the output (df -h shows it), then synth again'],
  EDQUOT: [
    'the disk quota of this user is used up',
    'free space within the quota, or synthesize to another disk ' + '(--out)',
  ],
  EFBIG: [
    "the file is larger than this process may write (the file-size limit, `ulimit -f`, or the file system's " +
      'maximum)',
    'raise the limit (ulimit -f unlimited) or write to another file system',
  ],
  EACCES: [
    'permission denied',
    'make the output folder and its parent writable for this user, or synthesize ' + 'elsewhere (--out)',
  ],
  EPERM: [
    'the operation is not permitted',
    'make the output folder and its parent writable for this user, or ' + 'synthesize elsewhere (--out)',
  ],
  EROFS: ['the file system is read-only', 'synthesize to a writable folder (--out)'],
  EMFILE: ['this process has too many open files', 'raise the limit (ulimit -n) and synth again'],
  ENFILE: ['the system has too many open files', 'close other programs or raise the system limit, then synth again'],
  ENAMETOOLONG: ['the path is too long for the file system', 'use a shorter output folder or chart paths'],
  ENOTDIR: [
    'a part of the path is a file, not a folder',
    'remove or rename that file, or synthesize elsewhere (--out)',
  ],
  EISDIR: ['a folder is in the way of the file', 'remove that folder, or synthesize elsewhere (--out)'],
  EIO: ['the disk reported an input/output error', 'check the disk (dmesg), then synth again'],
};

/** The error for `e` raised while `doing` (e.g. "writing") `file`; the previous output stays as it was. */
export function fileSystemError(e: unknown, file: string, doing: string): FileSystemError {
  const code = (e as NodeJS.ErrnoException)?.code;
  const [why, fix] = (code && CAUSES[code]) ?? [
    (e as Error)?.message ?? String(e),
    'check the path and the disk, then synth ' + 'again',
  ];
  return new FileSystemError(
    `rollwise synth: ${doing} ${file} failed: ${why}${code ? ` (${code})` : ''}. The previous output is unchanged. ` +
      `Fix: ${fix}.`,
    code,
    file,
  );
}
