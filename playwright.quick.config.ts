/**
 * The quick tier of the project's own tests (npm run test:quick), for the edit loop: the unit
 * tests that start no process, no browser and no whole-suite run. The oracles against their
 * vectors, the generators, the engine and the property runner, the judge's sequences, the pace,
 * back-off, deadline and interruption logic on a fake clock, configuration, waivers and the
 * report's rendering. `npm test` runs these too, with everything else (playwright.self.config.ts).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';

export const QUICK_SPECS = [
  'oracle-vectors',
  'openapi',
  'generators-finite',
  'generators-other-operations',
  'generators-patch',
  'generators-reference',
  'engine',
  'property',
  'batch',
  'writes-settle',
  'lifecycle-headers',
  'route',
  'compare',
  'finite-lists',
  'http',
  'wire-proxy',
  'limiter',
  'politeness',
  'interrupt-units',
  'config',
  'waivers',
  'progress',
  'report-render',
  'verdict-headline',
  'traceability',
  'requirement-quotes',
  'items',
].map((name) => `${name}.spec.ts`);

// A renamed or removed file would drop out of the tier silently: say so instead.
const missing = QUICK_SPECS.filter((f) => !existsSync(join(import.meta.dirname, 'tests', 'self', f)));
if (missing.length > 0)
  throw new Error(`playwright.quick.config.ts lists missing files: ${missing.join(', ')}`);

export default defineConfig({
  testDir: './tests/self',
  testMatch: QUICK_SPECS,
  outputDir: './test-results/quick',
  fullyParallel: true,
  forbidOnly: true,
  retries: 0,
  workers: 2,
  timeout: 60_000,
  reporter: [['list']],
});
