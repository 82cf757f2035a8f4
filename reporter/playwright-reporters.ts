/**
 * Playwright's reporters for a run and a merge (playwright.config.ts, playwright.merge.config.ts):
 * Playwright's own HTML report when `--report` chooses it (reporter/writers.ts), written into the
 * staging directory of the reports, then the conformance reporter, which writes the other reports
 * and moves the whole set in. In that order: Playwright ends its reporters one after another, so
 * Playwright's report is complete when the conformance reporter moves it in.
 */
import { join } from 'node:path';
import type { ReporterDescription } from '@playwright/test';
import { MODULE_EXTENSION } from '../config/layout.ts';
import { chosenWriters, PLAYWRIGHT_REPORT_DIR } from './writers.ts';

/**
 * The reporters of a run whose reports (`run.reports` chosen: null, every one) go to
 * `run.reportsDir`, staged in `staging`.
 */
export function playwrightReporters(
  run: { reports: readonly string[] | null; reportsDir: string },
  staging: string,
): ReporterDescription[] {
  const playwrights = chosenWriters(run.reports).some((w) => w.source === 'playwright');
  const own: ReporterDescription[] = playwrights
    ? [['html', { outputFolder: join(staging, PLAYWRIGHT_REPORT_DIR), open: 'never' }]]
    : [];
  return [
    ...own,
    [`./suite/conformance-reporter${MODULE_EXTENSION}`, { outputDir: run.reportsDir, stagingDir: staging }],
  ];
}
