/**
 * Merges the blob reports of a sharded conformance run (npx playwright test --shard=i/n
 * --reporter=blob) into the same reports a single run writes. Use `npm run conformance:merge`,
 * which resolves and validates the configuration first (config/resolve.ts) and turns the
 * verdict into the exit status.
 */
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { EMBEDDED_TARGET } from './config/embedded.ts';
import { resolveOnce } from './config/resolve.ts';

const run = resolveOnce(EMBEDDED_TARGET);
// Set by bin/merge-shards.ts: the reports are written there, then replace the previous set whole.
const staging = process.env.CONFORMANCE_REPORTS_STAGING || undefined;

export default defineConfig({
  testDir: './tests/conformance',
  reporter: [
    ['html', { outputFolder: join(staging ?? run.reportsDir, 'playwright'), open: 'never' }],
    [
      './reporter/conformance-reporter.ts',
      { outputDir: run.reportsDir, ...(staging ? { stagingDir: staging } : {}) },
    ],
  ],
});
