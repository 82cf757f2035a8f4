/**
 * Merges the blob reports of a sharded conformance run (npx playwright test --shard=i/n
 * --reporter=blob) into the same reports a single run writes. Use `npm run conformance:merge`,
 * which resolves and validates the configuration first (run/resolve.ts) and turns the
 * verdict into the exit status.
 */
import { defineConfig } from '@playwright/test';
import { EMBEDDED_TARGET } from './config/embedded.ts';
import { resolveOnce } from './run/hand-down.ts';
import { REPORTS_STAGING_ENV, stagingFromEnv } from './reporter/report-set.ts';
import { playwrightReporters } from './reporter/playwright-reporters.ts';

const run = resolveOnce(EMBEDDED_TARGET);
// Set by bin/merge-shards.ts: the reports are written there, then moved in file by file
// (reporter/report-set.ts); made here when Playwright's merge-reports is run without it.
const staging = stagingFromEnv(REPORTS_STAGING_ENV, run.reportsDir, 'the reports directory', 'drop');

export default defineConfig({
  testDir: './tests/conformance',
  reporter: playwrightReporters(run, staging),
});
