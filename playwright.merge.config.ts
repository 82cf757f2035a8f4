/**
 * Merges the blob reports of a sharded conformance run (npx playwright test --shard=i/n
 * --reporter=blob) into the same reports a single run writes. Use `npm run conformance:merge`,
 * which validates the configuration first and turns the verdict into the exit status.
 */
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';

const reports = process.env.CONFORMANCE_REPORTS_DIR || 'reports';

export default defineConfig({
  testDir: './tests/conformance',
  reporter: [
    ['html', { outputFolder: join(reports, 'playwright'), open: 'never' }],
    ['./reporter/conformance-reporter.ts', { outputDir: reports }],
  ],
});
