/**
 * `npm test`, what CI runs (.ci/run): the self-tests (playwright.self.config.ts) and, beside them,
 * the static checks (scripts/static-checks.ts: types, ESLint, Prettier, the spec), one after
 * another. The self-tests keep both cores busy but for the moments their processes start, stop
 * or wait on a server; one check at a time beside them takes those moments, where the checks
 * would take some 20 s of their own before the self-tests (npm test is to take three minutes at most).
 * At the normal priority: at a lower one, a machine kept busy by other work starved them for
 * many minutes. The self-tests' output streams as it comes; the checks' is printed after it.
 * Exit status: the self-tests' if they failed, else the first failing check's, else 0. Arguments
 * go to Playwright (`npm test -- tests/self/cli.spec.ts`).
 *
 * The self-tests start some 150 Node processes (commands, Playwright runners and workers), each
 * compiling Playwright's bundles and the suite's modules anew. On Node 22 and later, Node keeps
 * what it compiled in NODE_COMPILE_CACHE, keyed by the code itself (nothing stale can be read),
 * and every process after the first reads it instead (about a tenth of a process's start-up);
 * Node 20 ignores the variable. A cache the user set is kept. The fixtures pass the variable to
 * the processes they start with an otherwise clean environment (cli-fixtures.ts childEnv).
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { CHECKS, printChecks, runChecks } from './static-checks.ts';

const ROOT = join(import.meta.dirname, '..');
const PLAYWRIGHT = createRequire(import.meta.url).resolve('@playwright/test/cli');
/**
 * Node's compile cache for the self-tests' processes: in this clone's node_modules, which only
 * its owner writes, not in the system's temporary directory, where another user of the machine
 * could leave compiled code for these processes to run.
 */
const COMPILE_CACHE = join(ROOT, 'node_modules', '.cache', 'payflow-node-compile-cache');

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
    {
      cwd: ROOT,
      stdio: 'inherit',
      env: {
        ...process.env,
        NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? COMPILE_CACHE,
      },
    },
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
