/**
 * The project's own tests (npm test): unit tests of the generators, checks and reporter, the
 * reference server, the clean run, the gallery of faulty servers and the CLI end to end.
 *
 * The files whose tests spend much of their time waiting on real time (servers that hang or ask
 * for a pause, signals sent a moment apart, a rate limit waited out) are a project of their own,
 * listed first, so that Playwright starts them first: npm test runs the static checks beside the
 * self-tests in their first minute (scripts/test.ts), and the checks take the CPU those tests
 * leave idle. Run later, beside tests that keep both cores busy, that idle time was lost: some 30
 * core-seconds of a run.
 */
import { defineConfig } from '@playwright/test';

/** The files that wait on real time most (measured: idle CPU while each ran). */
const WAITING = /[\\/](hostile|hostile-cli|interrupt|politeness-gallery|property)\.spec\.ts$/;
const COVERAGE = /gallery-coverage\.spec\.ts$/;

export default defineConfig({
  testDir: './tests/self',
  outputDir: './test-results/self',
  globalSetup: './tests/self/global-setup.ts',
  fullyParallel: true,
  forbidOnly: true,
  retries: 0,
  workers: 2,
  timeout: 120_000,
  reporter: [['list']],
  projects: [
    { name: 'waiting', testMatch: WAITING },
    { name: 'self', testIgnore: [COVERAGE, WAITING] },
    // What the gallery's runs recorded, faulty and hostile: after both.
    { name: 'gallery-coverage', testMatch: COVERAGE, dependencies: ['waiting', 'self'] },
  ],
});
