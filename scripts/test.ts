/**
 * `npm test`, what CI runs (.ci/run): the self-tests (playwright.self.config.ts) and, beside them,
 * the static checks (scripts/static-checks.ts: types, ESLint, Prettier, the spec), one after
 * another. The self-tests keep both cores busy but for the moments their processes start, stop
 * or wait on a server; one check at a time beside them takes those moments, where the checks
 * took some 20 s of their own before the self-tests (issue 20: npm test within three minutes).
 * At the normal priority: at a lower one, a machine kept busy by other work starved them for
 * many minutes. The self-tests' output streams as it comes; the checks' is printed after it.
 * Exit status: the self-tests' if they failed, else the first failing check's, else 0. Arguments
 * go to Playwright (`npm test -- tests/self/cli.spec.ts`).
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { CHECKS, printChecks, runChecks } from './static-checks.ts';

const ROOT = join(import.meta.dirname, '..');
const PLAYWRIGHT = createRequire(import.meta.url).resolve('@playwright/test/cli');

const checks = runChecks(Object.keys(CHECKS), { sequential: true });
const selfTests = new Promise<number>((resolve) => {
  const child = spawn(
    process.execPath,
    [
      PLAYWRIGHT,
      'test',
      '--config',
      join(ROOT, 'playwright.self.config.ts'),
      '--forbid-only',
      ...process.argv.slice(2),
    ],
    { cwd: ROOT, stdio: 'inherit' },
  );
  const forward = (signal: NodeJS.Signals): void => void child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  child.on('close', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
});

const [code, results] = await Promise.all([selfTests, checks]);
printChecks(results);
const failed = results.find((r) => r.code !== 0);
process.stdout.write(
  `\nnpm test: self-tests ${code === 0 ? 'passed' : `FAILED (exit ${code})`}; static checks ${
    failed
      ? `FAILED (${results
          .filter((r) => r.code !== 0)
          .map((r) => r.name)
          .join(', ')})`
      : 'passed'
  }\n`,
);
process.exit(code !== 0 ? code : failed ? failed.code : 0);
