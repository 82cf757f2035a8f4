/**
 * A directory the suite writes into that is full, read-only or not this user's (the reports
 * directory, Playwright's results directory, validate's output): one line naming the directory
 * and what to do, and exit 2 (reporter/disk-errors.ts, bin/write-failure.ts). Before, a read-only
 * results directory was "unexpected error: EROFS …" and a full disk "the suite did not complete
 * (playwright exited 1)".
 *
 * How each failure is made, and why that way (these tests run as root on CI, where chmod stops no
 * write):
 *   - the writing of the reports fails through an injected file writer (writeReports' `writeFile`):
 *     ENOSPC, EROFS, EACCES at will, on any machine, for the line and for what stays in place;
 *   - a directory no write reaches, root's included: /sys/kernel (sysfs refuses a new file with
 *     EACCES, or EROFS where /sys is mounted read-only, as in a container), Linux only;
 *   - a directory below a regular file, anywhere;
 *   - a full disk, really: a tmpfs of 64 KiB mounted for the test (root with CAP_SYS_ADMIN, as on
 *     this project's CI machines); skipped, saying so, where `mount` is refused: the injected
 *     writer above covers the same lines there.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ConfigError } from '../../config/error.ts';
import { createStaging, commitFiles } from '../../reporter/report-set.ts';
import { writeReports } from '../../reporter/write-reports.ts';
import { DiskError, probeWritable, reportsOutput, resultsOutput } from '../../reporter/disk-errors.ts';
import {
  emptyRecord,
  nodeTs,
  removeTemporaryDirectories,
  runCli,
  runNode,
  temporaryDirectory,
} from './cli-fixtures.ts';

test.afterAll(removeTemporaryDirectories);

/** What `fn` throws (it must throw). */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('did not throw');
}

/** What `promise` rejects with (it must reject). */
async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('did not reject');
}

/** An error as the file system gives it. */
function fsError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: failed, write`), { code });
}

/** The directory a system call will not write into, root or not (Linux), or undefined. */
function unwritableDirectory(): string | undefined {
  const dir = '/sys/kernel';
  if (process.platform !== 'linux' || !existsSync(dir)) return undefined;
  try {
    writeFileSync(join(dir, `payflow-probe-${process.pid}`), '');
  } catch {
    return dir;
  }
  return undefined;
}

test.describe('a full, read-only or forbidden directory is one line naming it', () => {
  test('the reports fail to be written (injected): the line says which disk and what to do, and the previous reports stay', async () => {
    const dir = join(temporaryDirectory('payflow-disk-'), 'reports');
    const previous = createStaging(dir);
    writeFileSync(join(previous, 'conformance.json'), 'previous');
    commitFiles(previous, dir);
    const lines: [string, string][] = [
      [
        'ENOSPC',
        `the reports could not be written: the disk holding the reports directory ${dir} is full (ENOSPC): free some space, or set --reports-dir (CONFORMANCE_REPORTS_DIR) to a directory on another disk`,
      ],
      [
        'EROFS',
        `the reports could not be written: the reports directory ${dir} is on a read-only file system (EROFS): set --reports-dir (CONFORMANCE_REPORTS_DIR) to a writable directory`,
      ],
      [
        'EACCES',
        `the reports could not be written: the reports directory ${dir} cannot be written (EACCES: permission denied): make it writable for this user, or set --reports-dir (CONFORMANCE_REPORTS_DIR) to a writable directory`,
      ],
    ];
    for (const [code, line] of lines) {
      let calls = 0;
      const error = await rejection(
        writeReports(
          { record: emptyRecord() },
          {
            outputDir: dir,
            stagingDir: createStaging(dir),
            secrets: [],
            // The page is written; the record is not.
            writeFile: (path, pieces) => {
              if (++calls > 1) throw fsError(code);
              writeFileSync(path, [...pieces].join(''));
            },
          },
        ),
      );
      expect(error, code).toBeInstanceOf(DiskError);
      expect(error.message, code).toBe(line);
      expect(readFileSync(join(dir, 'conformance.json'), 'utf8'), code).toBe('previous');
    }
    // An error that is not the disk's is not dressed up as one: each report it struck is said not
    // written, with why (tests/self/report-writers.spec.ts: the others are written).
    const other = await writeReports(
      { record: emptyRecord() },
      {
        outputDir: dir,
        secrets: [],
        writeFile: () => {
          throw fsError('EIO');
        },
      },
    );
    expect(other.unwritten.map((u) => [u.name, u.error])).toEqual(
      ['html', 'json', 'junit'].map((name) => [name, 'Error: EIO: failed, write']),
    );
    expect(other.written).toEqual([]);
  });

  test('before the first request: a directory no write reaches, and one below a file', () => {
    const root = temporaryDirectory('payflow-disk-');
    writeFileSync(join(root, 'a-file'), '');
    const below = thrown(() => probeWritable(resultsOutput(join(root, 'a-file', 'results'))));
    expect(below).toBeInstanceOf(ConfigError);
    expect(below.message).toBe(
      `Playwright's results directory ${join(root, 'a-file', 'results')} cannot be created (ENOTDIR at ${join(root, 'a-file', 'results')})`,
    );
    probeWritable(reportsOutput(join(root, 'fine')));
    expect(readdirSync(join(root, 'fine'))).toEqual([]);
    const sys = unwritableDirectory();
    test.skip(sys === undefined, 'needs /sys/kernel, which refuses a new file (Linux)');
    const refused = thrown(() => probeWritable(resultsOutput(sys!)));
    expect(refused).toBeInstanceOf(DiskError);
    expect(refused.message).toMatch(
      /^Playwright's results directory \/sys\/kernel (cannot be written \((EACCES: permission denied|EPERM: operation not permitted)\): make it writable for this user|is on a read-only file system \(EROFS\):), or set --results-dir \(CONFORMANCE_RESULTS_DIR\) to a writable directory$/,
    );
  });
});

test('through the command: a results directory no write reaches is exit 2 and one line, before any request', async () => {
  const sys = unwritableDirectory();
  test.skip(sys === undefined, 'needs /sys/kernel, which refuses a new file (Linux)');
  const run = await runCli({}, { args: ['--probe', 'known-counterparty', '--results-dir', sys!] });
  expect(run.code, run.stdout + run.stderr).toBe(2);
  expect(run.stderr).toMatch(
    /^conformance: Playwright's results directory \/sys\/kernel (cannot be written|is on a read-only file system) \(E[A-Z]+[^)]*\): .*set --results-dir \(CONFORMANCE_RESULTS_DIR\) to a writable directory\n$/,
  );
  expect(run.stdout).not.toContain('payflow-conformance: interface');
});

/** Mounts a tmpfs of `size` on `dir`; false where mounting is not allowed (not root, a container). */
function mountSmallDisk(dir: string, size: string): boolean {
  mkdirSync(dir, { recursive: true });
  return spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]).status === 0;
}

function unmount(dir: string): void {
  if (spawnSync('umount', [dir]).status !== 0) spawnSync('umount', ['-l', dir]);
}

/** Fills the disk holding `dir` to the last byte. */
function fill(dir: string): void {
  const chunk = Buffer.alloc(4096);
  for (let i = 0; ; i++) {
    try {
      writeFileSync(join(dir, 'filler'), chunk, { flag: 'a' });
    } catch {
      return;
    }
    if (i > 100_000) throw new Error(`${dir} does not fill up`);
  }
}

test('a full disk, really (a 64 KiB tmpfs): full before the run, filled by the reports, and under validate', async () => {
  test.setTimeout(120_000);
  const work = temporaryDirectory('payflow-disk-full-');
  const disk = join(work, 'disk');
  test.skip(
    !mountSmallDisk(disk, '64k'),
    'mounting a tmpfs needs root with CAP_SYS_ADMIN; the injected writer tests the same lines',
  );
  try {
    const full = (when: string): RegExp =>
      new RegExp(
        `^(?:conformance|validate): ${when}the disk holding the reports directory ${disk} is full \\(ENOSPC\\): free some space, or set --reports-dir \\(CONFORMANCE_REPORTS_DIR\\) to a directory on another disk\\n$`,
      );
    const args = ['--probe', 'known-counterparty', '--reports-dir', disk];
    // The reports of a run do not fit: the line once Playwright has ended, nothing of the run left.
    const filled = await runCli({}, { args });
    expect(filled.code, filled.stdout + filled.stderr).toBe(2);
    expect(filled.stdout).toContain('known-counterparty');
    expect(filled.stderr).toMatch(full('the reports could not be written: '));
    expect(readdirSync(disk)).toEqual([]);

    // Nor do a validation's.
    const har = join(work, 'empty.har');
    writeFileSync(
      har,
      JSON.stringify({ log: { version: '1.2', creator: { name: 't', version: '1' }, entries: [] } }),
    );
    const validated = await runNode(nodeTs('bin/validate.ts', har, '--reports-dir', disk), {}, work);
    expect(validated.code, validated.stdout + validated.stderr).toBe(2);
    expect(validated.stderr).toMatch(full('the reports could not be written: '));
    expect(readdirSync(disk)).toEqual([]);

    // Full before the run: said before the first request.
    fill(disk);
    const before = await runCli({}, { args });
    expect(before.code, before.stdout + before.stderr).toBe(2);
    expect(before.stderr).toMatch(full(''));
    expect(before.stdout).not.toContain('payflow-conformance: interface');
    expect(readdirSync(disk)).toEqual(['filler']);
  } finally {
    unmount(disk);
  }
});
