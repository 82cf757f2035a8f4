/**
 * The files a user names, read only once they are known to be what they claim, and the
 * directories the suite writes into, created a bounded number of steps at a time:
 *
 *   - an input (a .env, an ACCOUNT_FIXTURE file, a waiver file, a HAR file) must be a regular
 *     file: a FIFO would block the read forever, a device (/dev/zero) never ends, a directory
 *     has no text. Each is refused by name before a byte is read, and it is opened non-blocking,
 *     so that one swapped in between the look and the open cannot block either;
 *   - no input is read past its cap (INPUT_CAPS): a file that grows, or one whose size the
 *     system does not know (/proc), is read to the cap and one byte more, and refused;
 *   - a directory is created one level at a time, from the deepest one that exists: a path that
 *     cannot be created (below /proc, below a file) is an error naming why, where Node's
 *     recursive mkdir can retry forever.
 *
 * Every error is an InputFileError with one line; what it quotes of the path is escaped as the
 * console escapes text from the target (exchange/escape.ts). The callers turn it into their own
 * error kind (a configuration error, a malformed HAR file).
 */
import {
  closeSync,
  constants,
  fstatSync,
  mkdirSync,
  openSync,
  readSync,
  statSync,
  type Stats,
} from 'node:fs';
import { dirname, resolve } from 'node:path';
import { escapeControls } from '../exchange/escape.ts';
import { HAR_MAX_BYTES } from '../exchange/har-file.ts';

const MiB = 1024 * 1024;

/** The largest file of each kind the suite reads (stated in docs/reports-and-gate.md). */
export const INPUT_CAPS = {
  /** A .env file: a few hundred bytes in practice. */
  env: MiB,
  /** An ACCOUNT_FIXTURE file: a list of accounts. */
  fixture: MiB,
  /** A waiver file. */
  waivers: MiB,
  /**
   * A HAR file: a run of the suite writes a few MiB, and never more than this (exchange/har-file.ts
   * writes within it); a browser session can write more.
   */
  har: HAR_MAX_BYTES,
} as const;

/** A file or directory that cannot be used, in one line. */
export class InputFileError extends Error {
  override readonly name = 'InputFileError';
  constructor(
    message: string,
    /** The system's error code, when there was one (ENOENT, EACCES, ...). */
    readonly code?: string,
  ) {
    super(message);
  }
}

/** A path as an error line shows it: its control characters as visible escapes. */
export function shownPath(path: string): string {
  return escapeControls(path);
}

/** What a file is, in words (a directory found where a file was named, or the reverse). */
export function kindOf(stats: Stats): string {
  if (stats.isFile()) return 'a regular file';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isDirectory()) return 'a directory';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

function sizeText(bytes: number): string {
  return bytes >= MiB && bytes % MiB === 0 ? `${bytes / MiB} MiB` : `${bytes} bytes`;
}

function codeOf(error: unknown): string {
  return (error as { code?: string }).code ?? 'unreadable';
}

/**
 * The bytes of the regular file at `path`, at most `maxBytes` of them. `what` names it in an
 * error ("the .env file", "ACCOUNT_FIXTURE"). Throws an InputFileError when it does not exist
 * or cannot be read (with the system's code), is not a regular file, or holds more than the cap.
 */
export function readInputFile(path: string, what: string, maxBytes: number): Buffer {
  const shown = `${what} ${shownPath(path)}`;
  const notRegular = (stats: Stats): InputFileError =>
    new InputFileError(`${shown} is ${kindOf(stats)}, not a regular file`, 'ENOTREG');
  const tooLarge = (): InputFileError =>
    new InputFileError(
      `${shown} is larger than the ${sizeText(maxBytes)} the suite reads of such a file`,
      'EFBIG',
    );
  let stats: Stats;
  try {
    stats = statSync(path);
  } catch (error) {
    throw new InputFileError(`${shown} cannot be read (${codeOf(error)})`, codeOf(error));
  }
  if (!stats.isFile()) throw notRegular(stats);
  if (stats.size > maxBytes) throw tooLarge();
  let fd: number;
  try {
    // Non-blocking: a FIFO swapped in after the look above opens at once, and is refused below.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK | (constants.O_NOCTTY ?? 0));
  } catch (error) {
    throw new InputFileError(`${shown} cannot be read (${codeOf(error)})`, codeOf(error));
  }
  try {
    const opened = fstatSync(fd);
    if (!opened.isFile()) throw notRegular(opened);
    // To the cap and one byte more: a file whose size the system does not report (/proc) or
    // that grows meanwhile still ends here.
    let buffer = Buffer.alloc(Math.min(maxBytes, Math.max(opened.size, 64 * 1024)) + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > maxBytes) throw tooLarge();
        const grown = Buffer.alloc(Math.min(maxBytes + 1, buffer.length * 2));
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const n = readSync(fd, buffer, length, buffer.length - length, null);
      if (n === 0) break;
      length += n;
    }
    if (length > maxBytes) throw tooLarge();
    return buffer.subarray(0, length);
  } catch (error) {
    if (error instanceof InputFileError) throw error;
    throw new InputFileError(`${shown} cannot be read (${codeOf(error)})`, codeOf(error));
  } finally {
    closeSync(fd);
  }
}

/** Whether `path` names an existing entry of any kind (a dangling symbolic link does not). */
export function entryExists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The most directories one call creates: deeper than any path a user names. */
const MAX_CREATED = 64;

/**
 * Makes sure `dir` is a directory, creating it and its missing parents one level at a time.
 * `what` names it in an error ("the reports directory"). Throws an InputFileError, naming the
 * level that failed and why, when a level exists but is no directory or cannot be created.
 */
export function ensureDirectory(dir: string, what: string): void {
  const target = resolve(dir);
  const missing: string[] = [];
  let at = target;
  for (;;) {
    let stats: Stats | undefined;
    try {
      stats = statSync(at);
    } catch (error) {
      if (codeOf(error) !== 'ENOENT')
        throw new InputFileError(
          `${what} ${shownPath(target)} cannot be created (${codeOf(error)} at ${shownPath(at)})`,
          codeOf(error),
        );
    }
    if (stats !== undefined) {
      if (!stats.isDirectory())
        throw new InputFileError(
          `${what} ${shownPath(target)} cannot be created: ${shownPath(at)} is ${kindOf(stats)}`,
          'ENOTDIR',
        );
      break;
    }
    missing.push(at);
    const parent = dirname(at);
    if (parent === at || missing.length > MAX_CREATED)
      throw new InputFileError(
        `${what} ${shownPath(target)} cannot be created (more than ${MAX_CREATED} missing levels)`,
        'ENOENT',
      );
    at = parent;
  }
  for (const level of missing.reverse()) {
    try {
      mkdirSync(level);
    } catch (error) {
      // Created meanwhile by another process: as good.
      if (codeOf(error) === 'EEXIST' && statSync(level).isDirectory()) continue;
      throw new InputFileError(
        `${what} ${shownPath(target)} cannot be created (${codeOf(error)} at ${shownPath(level)})`,
        codeOf(error),
      );
    }
  }
}
