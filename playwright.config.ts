/**
 * The conformance suite: runs the checks of tests/conformance against the configured target
 * (or the embedded reference server). Use `npm run conformance`, which resolves and validates
 * the configuration first and turns the verdict into the exit status.
 *
 * Every Playwright process of the run (this runner, global setup, the workers, the reporter)
 * reads the configuration resolved once (run/resolve.ts), never .env or a raw variable. Run
 * directly (`npm run conformance:shard`), the runner resolves it here, on its first load, and the
 * workers inherit it.
 */
import { defineConfig } from '@playwright/test';
import { suiteLimits } from './config/config.ts';
import { ConfigError } from './config/error.ts';
import { EMBEDDED_TARGET } from './config/embedded.ts';
import type { ResolvedRun } from './run/resolve.ts';
import { resolveOnce } from './run/hand-down.ts';
import { escapeControls } from './exchange/escape.ts';
import { InputFileError } from './config/input-files.ts';
import { MODULE_EXTENSION } from './config/layout.ts';
import {
  checkOwnPaths,
  REPORTS_STAGING_ENV,
  RESULTS_PATHS,
  RESULTS_STAGING_ENV,
  stagingFromEnv,
} from './reporter/report-set.ts';
import { chosenWriters, reportPaths, RUN_SOURCES } from './reporter/writers.ts';
import { playwrightReporters } from './reporter/playwright-reporters.ts';

/**
 * The run's configuration, and where its reports and Playwright's results are written first: set
 * by bin/conformance.ts (run plumbing, not configuration), or, run without it, made here on the
 * runner's first load, once the directories were found to hold nothing of the user's the run
 * would replace. Every file is moved in from there (reporter/report-set.ts), so a run that does
 * not finish leaves the previous reports, and nothing the suite did not write is deleted.
 */
function resolved(): { run: ResolvedRun; staging: string; resultsStaging: string } {
  try {
    const run = resolveOnce(EMBEDDED_TARGET);
    if (!process.env[REPORTS_STAGING_ENV])
      checkOwnPaths(
        run.reportsDir,
        reportPaths(chosenWriters(run.reports), RUN_SOURCES),
        'the reports directory',
      );
    if (!process.env[RESULTS_STAGING_ENV])
      checkOwnPaths(run.resultsDir, RESULTS_PATHS, "Playwright's results directory");
    return {
      run,
      staging: stagingFromEnv(REPORTS_STAGING_ENV, run.reportsDir, 'the reports directory', 'drop'),
      resultsStaging: stagingFromEnv(
        RESULTS_STAGING_ENV,
        run.resultsDir,
        "Playwright's results directory",
        'commit',
      ),
    };
  } catch (error) {
    if (!(error instanceof ConfigError) && !(error instanceof InputFileError)) throw error;
    process.stderr.write(`conformance: ${escapeControls(error.message)}\n`);
    process.exit(2);
  }
}

const { run, staging, resultsStaging } = resolved();
// One worker per request in flight (CONFORMANCE_CONCURRENCY); the run's own time budget ends a
// check before Playwright's timeout could.
const limits = suiteLimits(run.config.politeness, run.config.writableRefs?.length ?? 1);
/** The test titles of the probes a run is limited to: "<probe id>: <title>" (suite/define.ts). */
const only =
  run.probes === null
    ? undefined
    : new RegExp(
        `(?:^|\\s)(?:${run.probes.map((id) => id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')}): `,
      );

export default defineConfig({
  testDir: './tests/conformance',
  // The suite's own modules as they run: TypeScript in a clone, the compiled JavaScript installed.
  globalSetup: `./suite/global-setup${MODULE_EXTENSION}`,
  outputDir: resultsStaging,
  fullyParallel: true,
  forbidOnly: true,
  retries: 0,
  workers: limits.workers,
  timeout: limits.testTimeoutMs,
  ...(only ? { grep: only } : {}),
  // The conformance reporter prints one line per completed probe (what it sent, waited, found),
  // then the summary: Playwright's list reporter would say the same with less.
  reporter: playwrightReporters(run, staging),
  use: {
    trace: 'off',
  },
  // One project. The lanes of the writable counterparties are its first test groups: their probes
  // run one after another and are the long pole of a write run, so they must start at once, not
  // after every read. Playwright queues a project's groups file by file in name order, and the
  // lanes' file sorts first (config/layout.ts WRITES_SPEC_NAME). A project of their own started
  // them first too, but a worker serves one project: when a lane ended before the reads (the
  // embedded server), Playwright started a new worker for the reads left, a second of start-up
  // on the run's critical path, and in a read-only run the lanes' skips held a worker of their own.
});
