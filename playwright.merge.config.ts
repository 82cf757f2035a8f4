/**
 * Merges the blob reports of a sharded conformance run (npx playwright test --shard=i/n
 * --reporter=blob) into the same reports a single run writes. Use `npm run conformance:merge`,
 * which validates the configuration first and turns the verdict into the exit status.
 */
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';

const reports = process.env.CONFORMANCE_REPORTS_DIR || 'reports';
// Set by bin/merge-shards.ts: the reports are written there, then replace the previous set whole.
const staging = process.env.CONFORMANCE_REPORTS_STAGING || undefined;

export default defineConfig({
  testDir: './tests/conformance',
  reporter: [
    ['html', { outputFolder: join(staging ?? reports, 'playwright'), open: 'never' }],
    [
      './reporter/conformance-reporter.ts',
      { outputDir: reports, ...(staging ? { stagingDir: staging } : {}) },
    ],
  ],
});
