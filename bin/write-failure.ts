/**
 * What `run` and `merge` do about a directory they write into that is full, read-only or not this
 * user's to write (reporter/disk-errors.ts): look at each before the first request, and, when
 * Playwright ended without moving its reports in, find out whether that is why: the line the
 * runner left (WRITE_FAILURE_ENV), else a second look at each directory, before the partial files
 * of the run are removed (on a full disk they hold what space was left).
 */
import {
  DiskError,
  probeWritable,
  reportsOutput,
  resultsOutput,
  writeFailureIn,
  type OutputDirectory,
} from '../reporter/disk-errors.ts';

/** The directories of a run: the reports, and Playwright's results when there are any. */
export function runOutputs(reportsDir: string, resultsDir?: string): OutputDirectory[] {
  return [reportsOutput(reportsDir), ...(resultsDir !== undefined ? [resultsOutput(resultsDir)] : [])];
}

/** Before the first request: each directory takes a small file, or a DiskError (a ConfigError) says why not. */
export function checkWritable(outputs: readonly OutputDirectory[]): void {
  for (const out of outputs) probeWritable(out);
}

/**
 * Where the runner leaves the line of a failed write: beside `base` (the run's state directory,
 * made by mkdtemp, so the name is the command's alone), created by the runner only when a write
 * failed, and then exclusively (reporter/disk-errors.ts). Not inside the state directory, which
 * global teardown removes before the reporter writes the reports; not a directory made in
 * advance, which a command killed outright could not remove.
 */
export function writeFailureFile(base: string): string {
  return `${base}.write-failure`;
}

/**
 * Why Playwright ended without its reports, when a directory is the cause: the line the runner
 * left in `file`, else the line of the first directory that does not take a small file now.
 */
export function writeFailureAfter(
  file: string | undefined,
  outputs: readonly OutputDirectory[],
): string | undefined {
  const left = file !== undefined ? writeFailureIn(file) : undefined;
  if (left !== undefined) return left;
  for (const out of outputs) {
    try {
      probeWritable(out, `${out.holds} could not be written`);
    } catch (error) {
      if (error instanceof DiskError) return error.message;
    }
  }
  return undefined;
}
