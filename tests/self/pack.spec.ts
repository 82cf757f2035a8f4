/**
 * The installable command, as a user gets it: the tarball `npm pack` makes (prepack compiles it)
 * is installed into an empty directory (dependencies from the npm registry, or npm's cache), and
 * `npx payflow-conformance` works there with no clone: `serve`, a read-only run against it over
 * HTTP set up and started as serve printed it (exit 0, its last lines counting the MUST
 * requirements it did not exercise), `validate` of that run's exchanges.har as serve printed it
 * (exit 0), and a finding's replay line as the run printed it (npx, its reports below the run's).
 * Nothing is written into the installed package.
 * With other Node binaries named (PAYFLOW_TEST_NODES), the installed command serves and runs
 * under each.
 *
 * The run is of three probes, not the whole suite: every compiled check is loaded all the same
 * (Playwright collects every spec file before it filters), and what the installed package could
 * lack (a module, a data file a probe reads, the reporter's schema) shows on a read, a property
 * probe and a write probe the read-only run skips. The installed command's run against the
 * embedded server, writing, is distribution.spec.ts's (the Action's run step); its --help, and
 * that of `run`, are cli-flags.spec.ts's (the clone's command and runUsage).
 *
 * Slow (an install) and it needs the registry unless npm's cache holds every dependency; its
 * directories are its own temporary ones and the servers take free ports, so it runs beside the
 * other self-tests.
 */
import { readFileSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import module from 'node:module';
import { join, relative } from 'node:path';
import { expect, test } from '@playwright/test';
import type { ConformanceRecord } from '../../reporter/record.ts';
import { removeTemporaryDirectories, temporaryDirectory } from './cli-fixtures.ts';
import { REFERENCE_COUNTERPARTY, REFERENCE_TOKEN } from '../../servers/reference.ts';
import { GALLERY } from '../../servers/gallery/index.ts';
import { installedApp, runWithPath, timedSteps } from './pack-fixtures.ts';
import { bannerSetup, startServe } from './serve-fixtures.ts';

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

test('the packed tarball installs into an empty directory, and npx payflow-conformance runs, serves, and validates there', async () => {
  test.setTimeout(600_000);
  // Packed and installed once for the specs that need it (tests/self/pack-fixtures.ts).
  const { installed, timings: setup } = await installedApp();
  const timings = [...setup];
  const step = timedSteps(timings);
  // A directory of the user's own, the package's node_modules linked into it: the runs write
  // there, and the installed package stays as it was.
  const app = temporaryDirectory('payflow-app-');
  symlinkSync(join(installed, '..'), join(app, 'node_modules'), 'dir');
  const before = snapshot(installed);

  // serve, as the installed bin, and a read-only run against it over HTTP, as serve printed it
  // (npx, from the user's directory), narrowed by flags to two reads (one of generated inputs)
  // and a write probe, which a read-only run cannot exercise. One worker (--concurrency 1): the
  // run proves the installed command, not what two workers share.
  const started = performance.now();
  const served = await startServe(
    join(app, 'node_modules', '.bin', 'payflow-conformance'),
    ['serve', '--port', '0'],
    app,
  );
  timings.push(`serve ${((performance.now() - started) / 1000).toFixed(1)} s`);
  try {
    const setup = bannerSetup(served.banner);
    expect(setup.readOnly).toMatch(/^npx payflow-conformance run +# a read-only run$/);
    expect(setup.write).toMatch(/^npx payflow-conformance run +# a write run$/);
    expect(setup.validate).toBe('npx payflow-conformance validate reports/exchanges.har');
    const readOnlySetup = setup.exports.filter(
      (e) => !/^export (?:WRITABLE_COUNTERPARTY_REF|ACCOUNT_FIXTURE)=/.test(e),
    );
    const narrowed = [
      '--seed 7 --runs 10 --concurrency 1',
      '--probe known-counterparty --probe invalid-references --probe patch-valid-details',
    ].join(' ');
    // Node's compile cache of the installed command: in the user's cache directory.
    const cache = [`unset NODE_COMPILE_CACHE`, `export XDG_CACHE_HOME='${join(app, 'cache')}'`];
    const readOnly = await step(
      'run (read-only, against serve, as printed)',
      'bash',
      ['-c', [...cache, ...readOnlySetup, `${setup.readOnly.replace(/ +#.*$/, '')} ${narrowed}`].join('\n')],
      app,
    );
    expect(readOnly.stdout).toContain(`target ${served.url} (API_BASE_URL from the environment), read-only,`);
    const against = JSON.parse(
      readFileSync(join(app, 'reports', 'conformance.json'), 'utf8'),
    ) as ConformanceRecord;
    // A read-only run leaves MUST requirements unexercised, and its verdict says so.
    expect(against.verdict).toBe('pass-unexercised');
    // Its last lines count the MUST requirements a read-only run could not exercise.
    const must = /MUST: \d+ passed, 0 failed, (\d+) not exercised/.exec(readOnly.stdout);
    expect(must, readOnly.stdout).not.toBeNull();
    expect(Number(must![1])).toBeGreaterThan(0);

    // Node 22.1 and later: the command and its Playwright processes compiled into that cache.
    if (typeof (module as { enableCompileCache?: unknown }).enableCompileCache === 'function')
      expect(readdirSync(join(app, 'cache', 'payflow-conformance', 'node-compile-cache'))).not.toEqual([]);

    // The validation serve printed, as printed.
    const validate = await step('validate (as printed)', 'bash', ['-c', setup.validate], app);
    expect(validate.stdout).toContain('Reports: reports/conformance.html');
    const validated = JSON.parse(
      readFileSync(join(app, 'reports', 'conformance.json'), 'utf8'),
    ) as ConformanceRecord;
    // The HAR holds the traffic, not the probes' own judgements: what only a probe judges is not
    // exercised, and the verdict says so.
    expect(validated.verdict).toBe('pass-unexercised');
    expect(validated.traffic?.kind).toBe('har');
  } finally {
    const stopped = await served.stop('SIGINT');
    expect(stopped.code, stopped.stderr).toBe(0);
  }

  // A finding's replay line, printed by the installed command and pasted where it was printed:
  // it starts with npx, runs that probe and case again, and writes below the run's reports.
  const faulty = GALLERY.find((v) => v.id === 'dot-accepted')!.create();
  const faultyURL = await faulty.start(0);
  try {
    const failing = await runWithPath(
      'npx',
      ['payflow-conformance', 'run', '--seed', '11', '--runs', '10', '--concurrency', '1'].concat([
        '--probe',
        'invalid-references',
        '--reports-dir',
        'faulty',
      ]),
      app,
      { API_BASE_URL: faultyURL, API_TOKEN: REFERENCE_TOKEN, COUNTERPARTY_REF: REFERENCE_COUNTERPARTY },
    );
    expect(failing.code, failing.stdout + failing.stderr).toBe(1);
    const line = /^\s+replay: (.+)$/m.exec(failing.stdout)?.[1];
    expect(line, failing.stdout).toMatch(/ npx payflow-conformance run --probe invalid-references --case /);
    const where = /CONFORMANCE_REPORTS_DIR=(\S+) /.exec(line!)?.[1];
    expect(where).toMatch(/^faulty\/replay-invalid-references-/);
    const replay = await runWithPath('bash', ['-c', line!], app, { API_TOKEN: REFERENCE_TOKEN });
    timings.push(`replay ${(replay.ms / 1000).toFixed(1)} s`);
    expect(replay.code, replay.stdout + replay.stderr).toBe(1);
    expect(replay.stdout).toContain(`Reports: ${where!}/conformance.html`);
    const again = JSON.parse(
      readFileSync(join(app, where!, 'conformance.json'), 'utf8'),
    ) as ConformanceRecord;
    expect(again.requirements.find((q) => q.id === 'reference-invalid-400')?.status).toBe('failed');
  } finally {
    await faulty.stop();
  }

  // Nothing of the runs went into the installed package: no reports, no test-results.
  expect(snapshot(installed)).toEqual(before);
  console.log(`pack test: ${timings.join(', ')}`);
});

/**
 * The Node binaries besides this one the installed command is tried under (PAYFLOW_TEST_NODES,
 * separated by ':'): .ci/run installs the current LTS lines' (22, 24) from the npm registry.
 */
const OTHER_NODES = (process.env.PAYFLOW_TEST_NODES ?? '').split(':').filter((n) => n !== '');

test.describe('under the other supported Node versions', () => {
  test.skip(OTHER_NODES.length === 0, 'no other Node binary given (PAYFLOW_TEST_NODES; .ci/run sets it)');
  for (const node of OTHER_NODES)
    test(`the installed command serves and runs read-only under ${node}`, async () => {
      test.setTimeout(600_000);
      const { installed } = await installedApp();
      const bin = join(installed, 'dist', 'bin', 'cli.js');
      const app = temporaryDirectory('payflow-app-');
      const version = await runWithPath(node, ['--version'], app);
      expect(version.code).toBe(0);
      const help = await runWithPath(node, [bin, '--help'], app);
      expect(help.code, help.stderr).toBe(0);
      const served = await startServe(node, [bin, 'serve', '--port', '0'], app);
      try {
        const run = await runWithPath(
          node,
          [
            bin,
            'run',
            '--seed',
            '7',
            '--runs',
            '5',
            '--probe',
            'known-counterparty',
            '--probe',
            'invalid-references',
          ],
          app,
          { API_BASE_URL: served.url, API_TOKEN: served.token, COUNTERPARTY_REF: REFERENCE_COUNTERPARTY },
        );
        expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
        expect(run.stdout).toContain('Conformance PASSED');
      } finally {
        expect((await served.stop()).code).toBe(0);
      }
      console.log(`pack test: Node ${version.stdout.trim()} served and ran read-only`);
    });
});
