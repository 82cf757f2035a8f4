/**
 * The commands the suite prints start as they run from where the user is (config/command.ts):
 * `npx payflow-conformance` from an installed package, `node bin/payflow-conformance.mjs` (or
 * that script's absolute path) from a clone, where no `payflow-conformance` is on PATH; and a
 * replay writes its reports below the run's (reporter/replay.ts). Run as printed: in a clone here
 * (serve's next steps, and the curl of a finding), in the installed package in pack.spec.ts, a
 * finding's replay line in selection-cli.spec.ts and replay-write-finding.spec.ts.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { ConformanceRecord } from '../../reporter/record.ts';
import { collected, projectCopy, removeTemporaryDirectories, ROOT, runCli } from './cli-fixtures.ts';
import { bannerSetup, startServe } from './serve-fixtures.ts';
import { commandPrefix, isInstalled, pathFrom } from '../../config/command.ts';
import { replayReportsDir, runReplayLine } from '../../reporter/replay.ts';

test.describe('the command a printed line starts with', () => {
  const clone = { packageRoot: '/home/me/payflow', script: '/home/me/payflow/bin/payflow-conformance.mjs' };
  const installed = {
    packageRoot: '/home/me/app/node_modules/payflow-conformance',
    script: '/home/me/app/node_modules/payflow-conformance/dist/bin/cli.js',
  };

  test('installed (below a node_modules): npx payflow-conformance, from any directory', () => {
    expect(isInstalled(installed.packageRoot)).toBe(true);
    expect(isInstalled('/usr/lib/node_modules/payflow-conformance')).toBe(true);
    for (const from of ['/home/me/app', '/home/me/app/ci', '/tmp'])
      expect(commandPrefix(from, installed)).toBe('npx payflow-conformance');
  });

  test('a clone: its script through node, relative from inside the clone, absolute from outside', () => {
    expect(isInstalled(clone.packageRoot)).toBe(false);
    // A directory merely named like one is not a node_modules.
    expect(isInstalled('/home/me/node_modules_old/payflow')).toBe(false);
    expect(commandPrefix('/home/me/payflow', clone)).toBe('node bin/payflow-conformance.mjs');
    expect(commandPrefix('/home/me/payflow/bin', clone)).toBe('node payflow-conformance.mjs');
    expect(commandPrefix('/home/me/other', clone)).toBe('node /home/me/payflow/bin/payflow-conformance.mjs');
    expect(commandPrefix('/home/me', clone)).toBe('node payflow/bin/payflow-conformance.mjs');
    // A path with a space or a quote is one word of the shell line.
    const spaced = {
      packageRoot: "/home/me/it's here",
      script: "/home/me/it's here/bin/payflow-conformance.mjs",
    };
    expect(commandPrefix('/tmp', spaced)).toBe(`node '/home/me/it'\\''s here/bin/payflow-conformance.mjs'`);
  });

  test('pathFrom: below the directory relative, elsewhere absolute', () => {
    expect(pathFrom('/w', '/w/reports')).toBe('reports');
    expect(pathFrom('/w', '/w')).toBe('.');
    expect(pathFrom('/w', '/out/reports')).toBe('/out/reports');
    expect(pathFrom('/w/a', '/w/ab')).toBe('/w/ab');
  });
});

test.describe('where a replay writes its reports', () => {
  test('below the run reports directory, named after what it replays; a record without one: reports/', () => {
    expect(replayReportsDir('reports', 'invalid-references-18-0')).toBe(
      'reports/replay-invalid-references-18-0',
    );
    expect(replayReportsDir('/out/r/', 'seed-7')).toBe('/out/r/replay-seed-7');
    expect(replayReportsDir(undefined, 'known-counterparty')).toBe('reports/replay-known-counterparty');
    // A case path's separators and anything unusual become one dash.
    expect(replayReportsDir('reports', 'p-1:0:2')).toBe('reports/replay-p-1-0-2');
  });

  test("the run's replay line: its settings, its seed, its reports beside the run's, the record's command", () => {
    const line = runReplayLine({
      seed: 7,
      settings: { API_BASE_URL: 'http://127.0.0.1:9', CONFORMANCE_SEED: '7', CONFORMANCE_REPORTS_DIR: 'out' },
      command: 'npx payflow-conformance',
    });
    expect(line).toBe(
      'API_BASE_URL=http://127.0.0.1:9 CONFORMANCE_SEED=7 CONFORMANCE_REPORTS_DIR=out/replay-seed-7 npx payflow-conformance run',
    );
    // A record of an older run, without settings: its seed, this copy's command from here.
    expect(runReplayLine({ seed: 3 })).toBe(
      `CONFORMANCE_SEED=3 CONFORMANCE_REPORTS_DIR=reports/replay-seed-3 ${commandPrefix(process.cwd())} run`,
    );
    expect(commandPrefix(join(process.cwd()))).toBe('node bin/payflow-conformance.mjs');
  });
});

test.describe('run as printed, in a clone', () => {
  test.afterAll(removeTemporaryDirectories);

  test("serve's next steps: the write run they set up exercises every MUST requirement, and its HAR validates", async () => {
    test.setTimeout(300_000);
    // A copy of the clone (a project root of its own): the user is at its root, where the
    // clone's command is bin/payflow-conformance.mjs; there is no payflow-conformance on PATH.
    const project = projectCopy();
    const served = await startServe(
      process.execPath,
      [join('bin', 'payflow-conformance.mjs'), 'serve', '--port', '0'],
      project,
    );
    try {
      const setup = bannerSetup(served.banner);
      expect(setup.readOnly).toMatch(/^node bin\/payflow-conformance\.mjs run +# a read-only run$/);
      expect(setup.write).toMatch(/^node bin\/payflow-conformance\.mjs run +# a write run$/);
      expect(setup.validate).toBe('node bin/payflow-conformance.mjs validate reports/exchanges.har');
      expect(setup.exports.map((e) => /^export (\w+)=/.exec(e)?.[1])).toEqual([
        'API_BASE_URL',
        'API_TOKEN',
        'COUNTERPARTY_REF',
        'ITEM_FIXTURES',
        'WRITABLE_COUNTERPARTY_REF',
        'ACCOUNT_FIXTURE',
      ]);
      // Every line as printed, one after another in one shell; a fixed seed and fewer cases per
      // property than the default, from the environment, to keep it short.
      const shell = (script: string) =>
        collected(
          spawn('bash', ['-c', script], {
            cwd: project,
            env: {
              PATH: process.env.PATH ?? '',
              HOME: process.env.HOME ?? project,
              CONFORMANCE_SEED: '7',
              CONFORMANCE_RUNS: '10',
            },
          }),
        );
      const write = await shell([...setup.exports, setup.write].join('\n'));
      expect(write.code, write.stdout + write.stderr).toBe(0);
      // Its output is no terminal: no live progress line, nothing rewritten in place.
      expect(write.stdout).not.toContain('\r');
      expect(write.stdout).not.toContain('\x1b[2K');
      expect(write.stdout.split('\n')[0]).toContain(
        `target ${served.url} (API_BASE_URL from the environment), write mode`,
      );
      const record = JSON.parse(
        readFileSync(join(project, 'reports', 'conformance.json'), 'utf8'),
      ) as ConformanceRecord;
      const unexercised = record.requirements
        .filter((q) => q.status === 'not-exercised')
        .map((q) => `${q.level} ${q.id}: ${q.reasons.join('; ')}`);
      expect(unexercised.filter((q) => q.startsWith('MUST'))).toEqual([]);
      // Nothing left out for want of a fixture, whatever its level.
      expect(unexercised.filter((q) => /FIXTURE/.test(q))).toEqual([]);
      expect(record.verdict).toBe('pass');

      const validate = await shell(setup.validate);
      expect(validate.code, validate.stdout + validate.stderr).toBe(0);
    } finally {
      const stopped = await served.stop('SIGINT');
      expect(stopped.code, stopped.stderr).toBe(0);
    }
  });

  test("an embedded run's replay line, pasted where the run was started, runs it again beside its reports", async () => {
    test.setTimeout(180_000);
    const run = await runCli({}, { args: ['--probe', 'known-counterparty'] });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const line = /^ {2}Seed 7: replay the run with (.+)$/m.exec(run.stdout)?.[1];
    expect(line, run.stdout).toBeDefined();
    // The embedded server by name, the run's settings, this clone's command, reports beside.
    expect(line).toContain('API_BASE_URL= CONFORMANCE_EMBEDDED=1 ');
    expect(line).toContain(' CONFORMANCE_REPORTS_DIR=reports/replay-seed-7 ');
    expect(line).toMatch(
      new RegExp(` node ${join(ROOT, 'bin', 'payflow-conformance.mjs').replace(/[.]/g, '\\.')} run$`),
    );
    const before = readFileSync(join(run.reports, 'conformance.json'), 'utf8');
    // As printed, narrowed to the run's one probe by a flag after it (a selection is not carried):
    // the whole suite again would prove nothing more of the line.
    const again = await collected(
      spawn('bash', ['-c', `${line!} --probe known-counterparty`], {
        cwd: run.work,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? run.work },
      }),
    );
    expect(again.code, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toContain('target embedded reference server (asked for by CONFORMANCE_EMBEDDED=1');
    expect(again.stdout).toContain('Reports: reports/replay-seed-7/conformance.html');
    expect(readFileSync(join(run.reports, 'conformance.json'), 'utf8')).toBe(before);
    const replayed = JSON.parse(
      readFileSync(join(run.reports, 'replay-seed-7', 'conformance.json'), 'utf8'),
    ) as ConformanceRecord;
    expect(replayed.seed).toBe(7);
  });
});
