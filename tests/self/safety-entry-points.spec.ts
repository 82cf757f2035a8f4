/**
 * One resolution of the configuration for every entry point, so that read-only means read-only
 * whichever route started the run (config/sources.ts invocationDirectory, action.yml):
 *   - the Action's own run step (taken from action.yml, run by bash as GitHub runs it) with
 *     `writable-counterparty-ref: ''` in a workspace whose .env names a writable counterparty:
 *     an empty input is an empty variable, a read-only run;
 *   - the installed package behind a user's own npm script, run from a subdirectory whose .env
 *     sets WRITABLE_COUNTERPARTY_REF empty, under a project root whose .env names one: the .env
 *     of the directory the user ran from is read, and the first line says which.
 * Each is run against a proxy on 127.0.0.1 that counts the writes reaching the reference server
 * behind it, with a read probe and a probe that writes when the run may, on one worker. A control
 * run that does write, the installed command run from the project root (whose .env names the
 * writable counterparty), shows the count sees the writes of these probes.
 *
 * What was traded for time (issue 20): one control run for the two routes, not one each. Both
 * tests run in one worker, in order, against the same proxy with the same probes, and the npm
 * script's control run shows that proxy counts those probes' writes, the point of a control here.
 * (That the Action's run step hands every input to the command as its flag, an empty one too, is
 * distribution.spec.ts's.)
 */
import { spawn } from 'node:child_process';
import { mkdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import {
  REFERENCE_COUNTERPARTY,
  REFERENCE_TOKEN,
  ReferenceServer,
  WRITABLE_COUNTERPARTY,
} from '../../servers/reference.ts';
import { actionRunStep } from './action-fixtures.ts';
import {
  collected,
  recordingProxy,
  removeTemporaryDirectories,
  temporaryDirectory,
  type ProcessRun,
} from './cli-fixtures.ts';
import { installedApp, runWithPath } from './pack-fixtures.ts';

test.afterAll(removeTemporaryDirectories);
// One worker, in order: the second test's control run is the first's too (see above).
test.describe.configure({ mode: 'default' });

/**
 * Two probes: one that reads, one that writes when the run may (PATCHes to invalid references);
 * one request in flight, so one worker process (each loads the whole suite).
 */
const PROBES = '--probe known-counterparty --probe patch-invalid-references --concurrency 1';

let reference: ReferenceServer;
let target: Awaited<ReturnType<typeof recordingProxy>>;

test.beforeAll(async () => {
  reference = new ReferenceServer();
  target = await recordingProxy(await reference.start(0));
});

test.afterAll(async () => {
  await target.close();
  await reference.stop();
});

/** The writes that reached the target since `from` (an index into its request list). */
function writesSince(from: number): string[] {
  return target.requests
    .slice(from)
    .filter((r) => r.method !== 'GET')
    .map((r) => `${r.method} ${r.url}`);
}

/** The line the command starts its run with. */
function firstLine(r: ProcessRun): string {
  return r.stdout.split('\n').find((l) => l.startsWith('payflow-conformance: interface')) ?? '';
}

/** Runs `command` as a child; its status and output once it has ended. */
function run(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<ProcessRun> {
  return collected(spawn(command, args, { cwd, env }));
}

test('the Action with an empty writable-counterparty-ref, in a workspace whose .env names one: a read-only run, no write sent', async () => {
  test.setTimeout(600_000); // the first to ask may pack and install (tests/self/pack-fixtures.ts)
  const workspace = temporaryDirectory('payflow-workspace-');
  writeFileSync(join(workspace, '.env'), `WRITABLE_COUNTERPARTY_REF=${WRITABLE_COUNTERPARTY}\n`);
  const inputs = {
    'base-url': target.url,
    'counterparty-ref': REFERENCE_COUNTERPARTY,
    'writable-counterparty-ref': '',
    runs: '3',
    args: `${PROBES} --rps 0`,
  };
  const callerEnv = { API_TOKEN: REFERENCE_TOKEN };
  const { installed } = await installedApp();
  const step = actionRunStep(inputs, workspace, installed, callerEnv);
  const from = target.requests.length;
  const readOnly = await run(step.command, step.args, workspace, step.env);
  expect(readOnly.code, readOnly.stdout + readOnly.stderr).toBe(0);
  expect(firstLine(readOnly)).toContain(`target ${target.url} (API_BASE_URL from --base-url), read-only,`);
  expect(firstLine(readOnly)).toContain(`.env read: ${join(realpathSync(workspace), '.env')}`);
  expect(writesSince(from)).toEqual([]);
  expect(target.requests.length).toBeGreaterThan(from);
  // That the count sees these probes' writes: the next test's control run.
});

test("the installed command behind a user's npm script, run from a subdirectory whose .env sets WRITABLE_COUNTERPARTY_REF empty: that .env is read, no write sent", async () => {
  test.setTimeout(600_000);
  // Packed and installed once for the specs that need it (tests/self/pack-fixtures.ts).
  const { installed } = await installedApp();
  const project = realpathSync(temporaryDirectory('payflow-user-project-'));
  symlinkSync(join(installed, '..'), join(project, 'node_modules'), 'dir');
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({
      name: 'user-project',
      private: true,
      scripts: { gate: `payflow-conformance run ${PROBES} --runs 3 --rps 0` },
    }),
  );
  const settings = [
    `API_BASE_URL=${target.url}`,
    `API_TOKEN=${REFERENCE_TOKEN}`,
    `COUNTERPARTY_REF=${REFERENCE_COUNTERPARTY}`,
  ].join('\n');
  writeFileSync(join(project, '.env'), `${settings}\nWRITABLE_COUNTERPARTY_REF=${WRITABLE_COUNTERPARTY}\n`);
  const sub = join(project, 'checks');
  mkdirSync(sub);
  writeFileSync(join(sub, '.env'), `${settings}\nWRITABLE_COUNTERPARTY_REF=\n`);

  // npm runs the script in the project's root; the user ran it from checks/.
  const from = target.requests.length;
  const fromSub = await runWithPath('npm', ['run', '--silent', 'gate'], sub);
  expect(fromSub.code, fromSub.stdout + fromSub.stderr).toBe(0);
  expect(firstLine(fromSub)).toContain(
    `target ${target.url} (API_BASE_URL from ${join(sub, '.env')}), read-only,`,
  );
  expect(firstLine(fromSub)).toContain(`.env read: ${join(sub, '.env')}`);
  expect(writesSince(from)).toEqual([]);
  expect(target.requests.length).toBeGreaterThan(from);

  // The control: run from the project's root, its .env names the writable counterparty.
  const before = target.requests.length;
  const fromRoot = await runWithPath('npm', ['run', '--silent', 'gate'], project);
  expect(fromRoot.code, fromRoot.stdout + fromRoot.stderr).toBe(0);
  expect(firstLine(fromRoot)).toContain(`write mode on ${WRITABLE_COUNTERPARTY}`);
  expect(firstLine(fromRoot)).toContain(`.env read: ${join(project, '.env')}`);
  expect(writesSince(before).length).toBeGreaterThan(0);
});
