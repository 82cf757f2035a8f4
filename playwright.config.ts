/**
 * The conformance suite: runs the checks of tests/conformance against the configured target
 * (or the embedded reference server). Use `npm run conformance`, which validates the
 * configuration first and turns the verdict into the exit status.
 */
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';

const reports = process.env.CONFORMANCE_REPORTS_DIR || 'reports';

export default defineConfig({
  testDir: './tests/conformance',
  globalSetup: './tests/conformance/global-setup.ts',
  outputDir: process.env.CONFORMANCE_RESULTS_DIR || './test-results/conformance',
  fullyParallel: true,
  forbidOnly: true,
  retries: 0,
  workers: 2,
  timeout: 300_000,
  reporter: [
    ['list'],
    ['html', { outputFolder: join(reports, 'playwright'), open: 'never' }],
    ['./reporter/conformance-reporter.ts', { outputFile: join(reports, 'conformance.json') }],
  ],
  use: {
    trace: 'off',
  },
});
