/**
 * npm run mutation: runs StrykerJS (mutation/stryker.config.json; arguments after `--` go to
 * `stryker run`, such as `--mutate servers/reference.ts:100-200` or `--concurrency 1`), records the
 * commit, the start and the wall time in reports/mutation/run.json, then checks the triage
 * (mutation/check.ts) and keeps the figures in mutation/score.json (committed: the README and
 * npm run bench quote it). Exit status: Stryker's when it failed, else the check's (1: a mutant the
 * suite did not detect has no triage entry, a killed-now entry's mutant survives, or the score
 * over non-equivalent mutants is under 90 %).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { ROOT, RUN_RECORD, type RunRecord } from './check.ts';
import { suiteFingerprint } from './runner.ts';

function git(args: string[]): string {
  const r = spawnSync('git', args, { cwd: ROOT, encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : '';
}

const args = process.argv.slice(2);

// Stryker's incremental mode reuses a "no coverage" result whenever the mutated code is unchanged,
// even when the suite changed and now reaches that code. The one test's name carries the suite's
// fingerprint (mutation/runner.ts): when it differs from the last run's, every result is stale,
// so the run is forced whole.
const incremental = join(ROOT, 'reports', 'mutation', 'stryker-incremental.json');
if (existsSync(incremental) && !args.includes('--force')) {
  const names = Object.values(
    (
      JSON.parse(readFileSync(incremental, 'utf8')) as {
        testFiles?: Record<string, { tests: { name: string }[] }>;
      }
    ).testFiles ?? {},
  ).flatMap((f) => f.tests.map((t) => t.name));
  const fingerprint = suiteFingerprint(ROOT);
  if (!names.some((n) => n.endsWith(`@ ${fingerprint}`))) {
    console.log(
      `npm run mutation: the suite changed since the last run (now ${fingerprint}): every mutant is run again (--force)`,
    );
    args.push('--force');
  }
}
const stryker = join(
  dirname(createRequire(import.meta.url).resolve('@stryker-mutator/core/package.json')),
  'bin',
  'stryker.js',
);
// The commit the mutants faced: taken before the run, which may take a while to finish.
const commit = git(['rev-parse', 'HEAD']) || 'unknown';
const dirty = git(['status', '--porcelain', '--', '.', ':!reports']) !== '';
const startedAt = new Date();
const started = performance.now();
const result = spawnSync(process.execPath, [stryker, 'run', 'mutation/stryker.config.json', ...args], {
  cwd: ROOT,
  stdio: 'inherit',
});
const record: RunRecord = {
  commit,
  dirty,
  startedAt: startedAt.toISOString(),
  wallMs: Math.round(performance.now() - started),
  args,
  exitCode: result.status,
};
mkdirSync(dirname(RUN_RECORD), { recursive: true });
writeFileSync(RUN_RECORD, `${JSON.stringify(record, null, 2)}\n`);
console.log(
  `\nnpm run mutation: ${(record.wallMs / 60000).toFixed(1)} min wall; triage check (npm run mutation:triage):`,
);
if (result.status !== 0) process.exit(result.status ?? 1);
const check = spawnSync(
  process.execPath,
  ['--import', 'tsx', join(ROOT, 'mutation', 'check.ts'), '--record'],
  {
    cwd: ROOT,
    stdio: 'inherit',
  },
);
process.exit(check.status ?? 1);
