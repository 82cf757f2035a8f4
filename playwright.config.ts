/**
 * The conformance suite: runs the checks of tests/conformance against the configured target
 * (or the embedded reference server). Use `npm run conformance`, which validates the
 * configuration first and turns the verdict into the exit status.
 */
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { loadEnvFile, suiteLimits } from './config/config.ts';

const reports = process.env.CONFORMANCE_REPORTS_DIR || 'reports';
// Set by bin/conformance.ts: every report is written there first, then moved into `reports` as
// one set (reporter/report-set.ts), so a run that does not finish leaves the previous set.
const staging = process.env.CONFORMANCE_REPORTS_STAGING || undefined;
loadEnvFile();
// One worker per request in flight (CONFORMANCE_CONCURRENCY); the run's own time budget ends a
// check before Playwright's timeout could.
const limits = suiteLimits(process.env);

export default defineConfig({
  testDir: './tests/conformance',
  globalSetup: './tests/conformance/global-setup.ts',
  outputDir: process.env.CONFORMANCE_RESULTS_DIR || './test-results/conformance',
  fullyParallel: true,
  forbidOnly: true,
  retries: 0,
  workers: limits.workers,
  timeout: limits.testTimeoutMs,
  reporter: [
    ['list'],
    ['html', { outputFolder: join(staging ?? reports, 'playwright'), open: 'never' }],
    [
      './reporter/conformance-reporter.ts',
      { outputDir: reports, ...(staging ? { stagingDir: staging } : {}) },
    ],
  ],
  use: {
    trace: 'off',
  },
});
