/**
 * The project's own tests (npm test): unit tests of the generators, checks and reporter, the
 * reference server, the clean run, the gallery of faulty servers and the CLI end to end.
 */
import { defineConfig } from '@playwright/test';

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
    { name: 'self', testIgnore: /gallery-coverage\.spec\.ts/ },
    { name: 'gallery-coverage', testMatch: /gallery-coverage\.spec\.ts/, dependencies: ['self'] },
  ],
});
