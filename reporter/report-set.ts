/**
 * The reports of a run as one set: they are written into a staging directory beside the reports
 * (CONFORMANCE_REPORTS_STAGING, which bin/conformance.ts creates), and moved into place together
 * only once every one of them is written. A run that is killed, or fails before its reports are
 * complete, leaves the previous set as it was; an interrupted run that gets to write its partial
 * reports replaces the whole set, marked as interrupted. Never a mix of two runs, never nothing.
 */
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { REPORT_FILES } from './files.ts';

/** Playwright's HTML report, a directory of the set. */
export const PLAYWRIGHT_REPORT_DIR = 'playwright';

/** Every entry of the set, in the output directory. */
export const REPORT_SET: readonly string[] = [...Object.values(REPORT_FILES), PLAYWRIGHT_REPORT_DIR];

/** The prefix of staging directories in the reports directory. */
export const STAGING_PREFIX = '.staging-';

/** Creates a staging directory for a new set, inside `reportsDir` (so that a rename moves it). */
export function createStaging(reportsDir: string): string {
  mkdirSync(reportsDir, { recursive: true });
  return mkdtempSync(join(reportsDir, STAGING_PREFIX));
}

/**
 * Replaces the set in `reportsDir` by the one in `staging`, and removes `staging`. Synchronous
 * from end to end: a signal handler cannot run in the middle of it. An entry the new set lacks
 * is removed from the old one, so the result is never a mix.
 */
export function commitReports(staging: string, reportsDir: string): void {
  mkdirSync(reportsDir, { recursive: true });
  const previous = mkdtempSync(join(reportsDir, '.previous-'));
  for (const name of REPORT_SET)
    if (existsSync(join(reportsDir, name))) renameSync(join(reportsDir, name), join(previous, name));
  for (const name of REPORT_SET)
    if (existsSync(join(staging, name))) renameSync(join(staging, name), join(reportsDir, name));
  // Only once the new set is in place (a failed rename leaves the old one in .previous-*).
  rmSync(previous, { recursive: true, force: true });
  rmSync(staging, { recursive: true, force: true });
}
