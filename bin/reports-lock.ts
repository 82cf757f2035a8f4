/**
 * One run per reports directory. A run takes the directory before its first request: it creates
 * it if need be and writes a lock file holding its pid there, which also proves the directory
 * writable. A second run using the same directory meanwhile is refused (exit 2); a lock left by a
 * run that no longer exists (its pid is not alive) is taken over. The lock goes when the process
 * exits.
 */
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config/error.ts';
import { ensureDirectory, shownPath } from '../config/input-files.ts';
import { asDiskError, DiskError, reportsOutput } from '../reporter/disk-errors.ts';

export const LOCK_FILE = '.conformance.lock';

function code(error: unknown): string {
  return (error as { code?: string }).code ?? 'unknown error';
}

/** Whether a process with this pid exists (one of another user counts). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return code(error) === 'EPERM';
  }
}

function holder(lock: string): number | undefined {
  try {
    const pid = Number(readFileSync(lock, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function modified(path: string): number {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Takes `dir` for this process, or throws a ConfigError (one line) when it cannot be written or
 * another live run holds it.
 */
export function lockReportsDir(dir: string): void {
  const unwritable = (error: unknown): ConfigError => {
    // Full, read-only, not allowed: the line that says which and what to do.
    const disk = asDiskError(error, reportsOutput(dir));
    if (disk instanceof DiskError) return disk;
    return new ConfigError(
      `the reports directory ${shownPath(dir)} cannot be written (${code(error)}); set CONFORMANCE_REPORTS_DIR to a writable directory`,
    );
  };
  try {
    // One level at a time: a path that cannot be made (below /proc) fails, where a recursive mkdir retries forever.
    ensureDirectory(dir, 'the reports directory');
  } catch (error) {
    throw unwritable(error);
  }
  const lock = join(dir, LOCK_FILE);
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number | undefined;
    try {
      fd = openSync(lock, 'wx');
    } catch (error) {
      if (code(error) !== 'EEXIST') throw unwritable(error);
    }
    if (fd !== undefined) {
      try {
        writeSync(fd, `${process.pid}\n`);
      } catch (error) {
        // Created, but not written (a full disk): an empty lock would hold the directory for
        // the next run's ten seconds.
        closeSync(fd);
        rmSync(lock, { force: true });
        throw unwritable(error);
      }
      closeSync(fd);
      process.on('exit', () => {
        if (holder(lock) === process.pid) rmSync(lock, { force: true });
      });
      return;
    }
    const pid = holder(lock);
    // No pid yet: a run is writing it this very moment, unless the file is old.
    if (pid === undefined && Date.now() - modified(lock) < 10_000) {
      throw new ConfigError(
        `another run is starting in the reports directory ${dir}; wait for it to end, or set CONFORMANCE_REPORTS_DIR to another directory`,
      );
    }
    if (pid !== undefined && pid !== process.pid && isAlive(pid)) {
      throw new ConfigError(
        `another run (pid ${pid}) is using the reports directory ${dir}; wait for it to end, or set CONFORMANCE_REPORTS_DIR to another directory`,
      );
    }
    // Left by a run that no longer exists (or unreadable, half written): taken over.
    try {
      rmSync(lock, { force: true });
    } catch (error) {
      throw unwritable(error);
    }
  }
  throw new ConfigError(
    `another run took the reports directory ${dir} at the same time; set CONFORMANCE_REPORTS_DIR to another directory`,
  );
}
