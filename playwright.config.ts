/**
 * The conformance suite: runs the checks of tests/conformance against the configured target
 * (or the embedded reference server). Use `npm run conformance`, which resolves and validates
 * the configuration first and turns the verdict into the exit status.
 *
 * Every Playwright process of the run (this runner, global setup, the workers, the reporter)
 * reads the configuration resolved once (config/resolve.ts), never .env or a raw variable. Run
 * directly (`npm run conformance:shard`), the runner resolves it here, on its first load, and the
 * workers inherit it.
 */
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { ConfigError, suiteLimits } from './config/config.ts';
import { EMBEDDED_TARGET } from './config/embedded.ts';
import { resolveOnce, type ResolvedRun } from './config/resolve.ts';

function resolved(): ResolvedRun {
  try {
    return resolveOnce(EMBEDDED_TARGET);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`conformance: ${error.message}\n`);
    process.exit(2);
  }
}

const run = resolved();
// Set by bin/conformance.ts (run plumbing, not configuration): every report is written there
// first, then moved into the reports directory as one set (reporter/report-set.ts), so a run that
// does not finish leaves the previous set.
const staging = process.env.CONFORMANCE_REPORTS_STAGING || undefined;
// One worker per request in flight (CONFORMANCE_CONCURRENCY); the run's own time budget ends a
// check before Playwright's timeout could.
const limits = suiteLimits(run.config.politeness, run.config.writableRefs?.length ?? 1);
/** The test titles of the probes a run is limited to: "<probe id>: <title>" (tests/conformance/define.ts). */
const only =
  run.probes === null
    ? undefined
    : new RegExp(
        `(?:^|\\s)(?:${run.probes.map((id) => id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')}): `,
      );

export default defineConfig({
  testDir: './tests/conformance',
  globalSetup: './tests/conformance/global-setup.ts',
  outputDir: run.resultsDir,
  fullyParallel: true,
  forbidOnly: true,
  retries: 0,
  workers: limits.workers,
  timeout: limits.testTimeoutMs,
  ...(only ? { grep: only } : {}),
  // The conformance reporter prints one line per completed probe (what it sent, waited, found),
  // then the summary: Playwright's list reporter would say the same with less.
  reporter: [
    ['html', { outputFolder: join(staging ?? run.reportsDir, 'playwright'), open: 'never' }],
    [
      './reporter/conformance-reporter.ts',
      { outputDir: run.reportsDir, ...(staging ? { stagingDir: staging } : {}) },
    ],
  ],
  use: {
    trace: 'off',
  },
});
