/**
 * The installable command, as a user gets it: the tarball `npm pack` makes is installed into an
 * empty directory (dependencies from the npm registry, or npm's cache), and `npx
 * payflow-conformance` works there with no clone: --help of the command and of `run`, a run
 * against the embedded reference server (exit 0, reports in that directory's reports/), and
 * `validate` of that run's exchanges.har (exit 0). Nothing is written into the installed package.
 *
 * Slow (an install and a whole run) and it needs the registry unless npm's cache holds every
 * dependency; its directories are its own temporary ones and the embedded server takes a free
 * port, so it runs beside the other self-tests.
 */
import { readFileSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, test } from '@playwright/test';
import type { ConformanceRecord } from '../../reporter/summary.ts';
import { removeTemporaryDirectories, temporaryDirectory, type ProcessRun } from './cli-fixtures.ts';
import { installedApp, runWithPath } from './pack-fixtures.ts';

test.afterAll(removeTemporaryDirectories);

/** Every file below `dir` with its size and modification time, relative to `dir`. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      const s = statSync(path);
      if (s.isDirectory()) walk(path);
      else out.push(`${relative(dir, path)} ${s.size} ${s.mtimeMs}`);
    }
  };
  walk(dir);
  return out.sort();
}

test('the packed tarball installs into an empty directory, and npx payflow-conformance runs and validates there', async () => {
  test.setTimeout(600_000);
  // Packed and installed once for the specs that need it (tests/self/pack-fixtures.ts).
  const { installed, timings: setup } = await installedApp();
  const timings = [...setup];
  const step = async (what: string, command: string, args: string[], cwd: string): Promise<ProcessRun> => {
    const r = await runWithPath(command, args, cwd);
    timings.push(`${what} ${(r.ms / 1000).toFixed(1)} s`);
    expect(r.code, `${what}: ${r.stdout}\n${r.stderr}`).toBe(0);
    return r;
  };
  // A directory of the user's own, the package's node_modules linked into it: the runs write
  // there, and the installed package stays as it was.
  const app = temporaryDirectory('payflow-app-');
  symlinkSync(join(installed, '..'), join(app, 'node_modules'), 'dir');
  const before = snapshot(installed);

  const help = await step('--help', 'npx', ['payflow-conformance', '--help'], app);
  expect(help.stdout).toContain('usage: payflow-conformance <command>');
  for (const command of ['run', 'validate', 'merge'])
    expect(help.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
  const runHelp = await step('run --help', 'npx', ['payflow-conformance', 'run', '--help'], app);
  expect(runHelp.stdout).toContain('usage: payflow-conformance run');
  expect(runHelp.stdout).toMatch(/--base-url <url>\s+API_BASE_URL/);
  expect(runHelp.stdout).toContain('never from a flag');

  // Settings as flags, from the installed command; the reports go to the directory it ran in.
  const suite = await step(
    'run (embedded server)',
    'npx',
    ['payflow-conformance', 'run', '--seed', '7', '--runs', '10'],
    app,
  );
  expect(suite.stdout).toContain('Conformance PASSED');
  const record = JSON.parse(
    readFileSync(join(app, 'reports', 'conformance.json'), 'utf8'),
  ) as ConformanceRecord;
  expect(record.verdict).toBe('pass');
  expect(record.seed).toBe(7);
  expect(statSync(join(app, 'test-results')).isDirectory()).toBe(true);

  const validate = await step(
    'validate',
    'npx',
    ['payflow-conformance', 'validate', 'reports/exchanges.har', '--reports-dir', 'validated'],
    app,
  );
  expect(validate.stdout).toContain('Reports: validated/conformance.html');
  const validated = JSON.parse(
    readFileSync(join(app, 'validated', 'conformance.json'), 'utf8'),
  ) as ConformanceRecord;
  // The HAR holds the traffic, not the probes' own judgements: what only a probe judges is not
  // exercised, and the verdict says so.
  expect(validated.verdict).toBe('pass-unexercised');
  expect(validated.traffic?.kind).toBe('har');

  // Nothing of the runs went into the installed package: no reports, no test-results.
  expect(snapshot(installed)).toEqual(before);
  console.log(`pack test: ${timings.join(', ')}`);
});
