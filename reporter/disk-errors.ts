/**
 * A directory the suite writes into (the reports directory, Playwright's results directory, the
 * output of `validate`) that is full, read-only or not this user's to write: one line naming the
 * directory and what to do, and exit 2, instead of "unexpected error: EROFS …" or "the suite did
 * not complete (playwright exited 1)".
 *
 * Checked before the first request by writing a small file there (probeWritable), and handled
 * when it happens later: the writing of the reports throws a DiskError with the same line. The
 * reports are written in Playwright's runner, not in the command's process, so the runner hands
 * the line to the command through a file the command names (WRITE_FAILURE_ENV), and the command
 * exits 2 with it (bin/write-failure.ts, which also looks again at the directories when the
 * runner could not say why it ended without its reports).
 */
import { closeSync, fsyncSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config/error.ts';
import { ensureDirectory, InputFileError, shownPath } from '../config/input-files.ts';
import { escapeControls } from '../exchange/escape.ts';

/** The system's error codes this module says in words: the disk, not the suite, is at fault. */
const FULL = new Set(['ENOSPC', 'EDQUOT']);
const READ_ONLY = new Set(['EROFS']);
const NOT_ALLOWED = new Set(['EACCES', 'EPERM']);

/** A directory the suite writes into, and the setting that chooses it. */
export interface OutputDirectory {
  dir: string;
  /** "the reports directory" */
  what: string;
  /** "--reports-dir (CONFORMANCE_REPORTS_DIR)" */
  setting: string;
  /** What the suite writes there: "the reports" */
  holds: string;
}

/** The reports directory (of a run, a merge or a validation). */
export function reportsOutput(dir: string): OutputDirectory {
  return {
    dir,
    what: 'the reports directory',
    setting: '--reports-dir (CONFORMANCE_REPORTS_DIR)',
    holds: 'the reports',
  };
}

/** Playwright's results directory of a run. */
export function resultsOutput(dir: string): OutputDirectory {
  return {
    dir,
    what: "Playwright's results directory",
    setting: '--results-dir (CONFORMANCE_RESULTS_DIR)',
    holds: "Playwright's results",
  };
}

/** The directory cannot be written: full, read-only, or not allowed. */
export class DiskError extends ConfigError {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** The code of an error that is the disk's (full, read-only, not allowed), or undefined. */
export function diskCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  return FULL.has(code) || READ_ONLY.has(code) || NOT_ALLOWED.has(code) ? code : undefined;
}

/** The one line for `code` in `out`; `when` says what could not be done ("the reports could not be written"). */
export function diskLine(out: OutputDirectory, code: string, when?: string): string {
  const dir = `${out.what} ${shownPath(out.dir)}`;
  const prefix = when !== undefined ? `${when}: ` : '';
  if (FULL.has(code))
    return `${prefix}the disk holding ${dir} is full (${code}): free some space, or set ${out.setting} to a directory on another disk`;
  if (READ_ONLY.has(code))
    return `${prefix}${dir} is on a read-only file system (${code}): set ${out.setting} to a writable directory`;
  const words = code === 'EPERM' ? 'operation not permitted' : 'permission denied';
  return `${prefix}${dir} cannot be written (${code}: ${words}): make it writable for this user, or set ${out.setting} to a writable directory`;
}

/** `error` as a DiskError for `out` when it is the disk's; else `error` itself. */
export function asDiskError(error: unknown, out: OutputDirectory, when?: string): unknown {
  if (error instanceof DiskError) return error;
  const code = diskCode(error);
  return code === undefined ? error : new DiskError(diskLine(out, code, when), code);
}

/** How much the probe writes: a small file, as a report's first block would be. */
const PROBE_BYTES = 4096;

/**
 * Makes sure `out` exists and takes a small file (written, flushed to the disk, removed): a
 * DiskError with its line when it is full, read-only or not allowed, a ConfigError when it cannot
 * be a directory (below a file, below /proc). `when` starts the line (see diskLine).
 */
export function probeWritable(out: OutputDirectory, when?: string): void {
  try {
    ensureDirectory(out.dir, out.what);
  } catch (error) {
    if (!(error instanceof InputFileError)) throw error;
    const code = diskCode(error);
    throw code !== undefined
      ? new DiskError(diskLine(out, code, when), code)
      : new ConfigError(error.message);
  }
  const probe = join(out.dir, `.conformance-probe-${process.pid}`);
  let fd: number | undefined;
  try {
    fd = openSync(probe, 'w');
    writeSync(fd, Buffer.alloc(PROBE_BYTES, 0x20));
    // Where the file system allocates blocks late, a full disk may show only here.
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
  } catch (error) {
    const disk = asDiskError(error, out, when);
    if (disk instanceof DiskError) throw disk;
    const code = (error as { code?: string }).code ?? String(error);
    throw new ConfigError(
      `${out.what} ${shownPath(out.dir)} cannot be written (${code}); set ${out.setting} to a writable directory`,
    );
  } finally {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // The error that brought it here is the one to tell.
      }
    }
    rmSync(probe, { force: true });
  }
}

/**
 * The file a command names for Playwright's runner to leave the line of a write that failed in
 * (bin/conformance.ts, bin/merge-shards.ts): the command, not the runner, says it and exits 2.
 */
export const WRITE_FAILURE_ENV = 'CONFORMANCE_WRITE_FAILURE';

/**
 * Hands the line of `error` on to the command that runs this process (WRITE_FAILURE_ENV), or, run
 * without one, says it on stderr.
 */
export function handOnWriteFailure(error: DiskError, env: NodeJS.ProcessEnv = process.env): void {
  const file = env[WRITE_FAILURE_ENV];
  if (file) {
    try {
      // Exclusively: a file (or a link) already there is not this run's.
      writeFileSync(file, error.message, { flag: 'wx', mode: 0o600 });
      return;
    } catch {
      // That disk may be full too: said here instead.
    }
  }
  process.stderr.write(`conformance: ${escapeControls(error.message)}\n`);
}

/** The line Playwright's runner left in `file`, if any. */
export function writeFailureIn(file: string): string | undefined {
  try {
    const line = readFileSync(file, 'utf8');
    return line === '' ? undefined : line;
  } catch {
    return undefined;
  }
}
