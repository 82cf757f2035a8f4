/**
 * `npm run conformance` interrupted in the middle of patch-valid-details, the probe that writes
 * generated values into the writable counterparty's details. The server holds the probe's first
 * PATCH until the CLI says it is stopping, so the signal lands at the same point every time, and
 * everything that arrives after the stop is known to have been sent after it.
 *
 * SIGINT or SIGTERM, to the CLI's process group (Ctrl-C in a terminal) or to the CLI alone: the
 * only request after the stop is the restore, the details are the originals again, the partial
 * report replaces the previous set and says it was interrupted and what was restored, no temp
 * dir is left, and the status is 130 or 143. A second signal stops at once, kills every child and
 * leaves the previous reports as they were. A CLI killed outright (SIGKILL) cannot do any of
 * that itself: its workers find it gone before their next request, and restore. Playwright run
 * without the CLI (conformance:shard) and signalled as a group stops the same way.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { commitFiles, createStaging, MANIFEST } from '../../reporter/report-set.ts';
import { SIGNAL_REPEAT_MS } from '../../bin/interrupt.ts';
import { recordErrors } from '../../reporter/record-schema.ts';
import type { ConformanceRecord } from '../../reporter/summary.ts';
import { processAlive } from '../../transport/stop.ts';
import { WRITABLE_COUNTERPARTY } from '../../servers/reference.ts';
import { counterpartyPath } from '../../exchange/paths.ts';
import { removeTemporaryDirectories } from './cli-fixtures.ts';
import {
  childrenOf,
  groupAlive,
  had,
  holdingTarget,
  playwrightUnder,
  restorable,
  startCli,
  type HoldingTarget,
  type LoggedRequest,
} from './interrupt-fixtures.ts';

test.describe.configure({ mode: 'serial' });
test.afterAll(() => removeTemporaryDirectories());

const PREVIOUS = 'previous run';
const REPORT_ENTRIES = [
  'conformance.json',
  'conformance.html',
  'junit.xml',
  join('playwright', 'index.html'),
];

/** A complete set of reports of an earlier run, each saying so, written as the suite writes them. */
function previousReports(work: string): void {
  const staging = createStaging(join(work, 'reports'));
  mkdirSync(join(staging, 'playwright'), { recursive: true });
  for (const entry of REPORT_ENTRIES) writeFileSync(join(staging, entry), PREVIOUS);
  commitFiles(staging, join(work, 'reports'));
}

/** The temp dirs of runs left in `tmp`, and the staging leftovers in `reports` (its manifest is no leftover). */
function leftovers(tmp: string, reports: string): string[] {
  return [
    ...readdirSync(tmp).filter((n) => n.startsWith('payflow-run-')),
    ...(existsSync(reports) ? readdirSync(reports).filter((n) => n.startsWith('.') && n !== MANIFEST) : []),
  ];
}

/** The restore PATCH: the original details, nothing else. */
function expectOnlyTheRestore(after: LoggedRequest[], original: Record<string, unknown>): void {
  expect(
    after.map((r) => `${r.method} ${r.path}`),
    'requests after the stop',
  ).toEqual([`PATCH ${counterpartyPath(WRITABLE_COUNTERPARTY)}`]);
  const body = JSON.parse(after[0]!.body) as { counterpartyDetails: Record<string, unknown> };
  expect(body.counterpartyDetails).toEqual(original);
}

let target: HoldingTarget;
test.beforeEach(async () => {
  target = await holdingTarget();
});
test.afterEach(async () => {
  await target.close();
});

const CASES: { signal: 'SIGINT' | 'SIGTERM'; to: 'group' | 'cli'; status: number }[] = [
  { signal: 'SIGINT', to: 'group', status: 130 },
  { signal: 'SIGTERM', to: 'group', status: 143 },
  { signal: 'SIGINT', to: 'cli', status: 130 },
  { signal: 'SIGTERM', to: 'cli', status: 143 },
];

for (const { signal, to, status } of CASES) {
  test(`${signal} to the ${to === 'group' ? "CLI's process group" : 'CLI alone'} mid-patch-valid-details: restore, partial report, exit ${status}`, async () => {
    const original = await target.details();
    const cli = startCli(target.url, { detached: to === 'group', setup: previousReports });
    await target.firstPatch;
    const playwright = playwrightUnder(cli.pid);
    if (existsSync('/proc/self')) expect(playwright, 'the Playwright runner').toBeDefined();
    // The details are about to be overwritten by generated values: stop now.
    process.kill(to === 'group' ? -cli.pid : cli.pid, signal);
    await cli.waitForStderr(new RegExp(`${signal}: stopping`));
    const stop = target.log.length;
    target.release();
    const { code } = await cli.exited;
    const output = cli.stdout() + cli.stderr();
    expect(code, output).toBe(status);
    // No child outlives the CLI: it waited for Playwright and its workers.
    if (playwright !== undefined) expect(groupAlive(playwright), 'Playwright left running').toBe(false);

    expectOnlyTheRestore(target.log.slice(stop), original);
    expect(restorable(await target.details(), original)).toEqual(had(original));
    expect(leftovers(cli.tmp, cli.reports)).toEqual([]);

    // The partial report replaced the previous one whole, and says what happened.
    for (const entry of REPORT_ENTRIES)
      expect(readFileSync(join(cli.reports, entry), 'utf8'), entry).not.toBe(PREVIOUS);
    const record = JSON.parse(
      readFileSync(join(cli.reports, 'conformance.json'), 'utf8'),
    ) as ConformanceRecord;
    expect(recordErrors(record)).toEqual([]);
    expect(record.interrupted?.signal).toBe(signal);
    expect(record.interrupted?.restore.status).toBe('restored');
    expect(record.interrupted?.restore.details.join(' ')).toContain(WRITABLE_COUNTERPARTY);
    expect(record.verdict).toBe('fail');
    // Nothing was judged wrong on the way; what the stop left unjudged says so.
    expect(record.requirements.filter((r) => r.status === 'failed').map((r) => r.id)).toEqual([]);
    const unjudged = record.requirements.filter((r) => r.status === 'not-exercised');
    expect(unjudged.length).toBeGreaterThan(0);
    for (const r of unjudged) expect(r.reasons[0], r.id).toBe('interrupted');
    expect(readFileSync(join(cli.reports, 'conformance.html'), 'utf8')).toContain(`Interrupted by ${signal}`);
    expect(readFileSync(join(cli.reports, 'junit.xml'), 'utf8')).toContain('name="interrupted"');
    expect(cli.stdout()).toContain(`INTERRUPTED by ${signal}`);
  });
}

test('a second signal (a second after the first) stops at once: every child killed, the previous reports left, exit 130', async () => {
  const cli = startCli(target.url, { detached: true, setup: previousReports });
  await target.firstPatch;
  process.kill(-cli.pid, 'SIGINT');
  await cli.waitForStderr(/SIGINT: stopping/);
  // The CLI took the first stop before it said so: waiting SIGNAL_REPEAT_MS from here makes the
  // next signal a second one however busy the machine is. (A repeat within SIGNAL_REPEAT_MS is
  // the same stop: that decision is tested on a fake clock in interrupt-units.spec.ts.)
  await new Promise((resolve) => setTimeout(resolve, SIGNAL_REPEAT_MS + 100));
  expect(cli.stderr()).not.toMatch(/killed the suite/);
  process.kill(-cli.pid, 'SIGINT');
  // The held PATCH is still held: only a kill of the suite lets the CLI exit before release().
  const { code } = await cli.exited;
  expect(code, cli.stdout() + cli.stderr()).toBe(130);
  const group = /killed the suite \(process group (\d+)\)/.exec(cli.stderr());
  expect(group, cli.stderr()).not.toBeNull();
  await expect.poll(() => groupAlive(Number(group![1])), { timeout: 10_000 }).toBe(false);
  const sent = target.log.length;
  target.release();
  // Nobody is left to send anything.
  expect(target.log.length).toBe(sent);
  for (const entry of REPORT_ENTRIES)
    expect(readFileSync(join(cli.reports, entry), 'utf8'), entry).toBe(PREVIOUS);
  expect(leftovers(cli.tmp, cli.reports)).toEqual([]);
});

test('a CLI killed outright: its workers find it gone before their next request, and restore', async () => {
  const original = await target.details();
  const cli = startCli(target.url, { detached: true });
  await target.firstPatch;
  const inner = childrenOf(cli.pid);
  test.skip(inner === undefined, 'needs /proc to find the processes');
  // bin/conformance.ts (node --import tsx, one process) runs Playwright in a process group of its own.
  const conformance = cli.pid;
  const [playwright] = inner!;
  expect(playwright, 'the Playwright runner').toBeDefined();
  process.kill(conformance!, 'SIGKILL');
  await expect.poll(() => processAlive(conformance!)).toBe(false);
  const stop = target.log.length;
  target.release();
  await cli.exited;
  await expect.poll(() => groupAlive(playwright!), { timeout: 60_000 }).toBe(false);
  expectOnlyTheRestore(target.log.slice(stop), original);
  expect(restorable(await target.details(), original)).toEqual(had(original));
  // Playwright finished the run on its own: the partial report is in place, the temp dirs gone.
  const record = JSON.parse(readFileSync(join(cli.reports, 'conformance.json'), 'utf8')) as ConformanceRecord;
  expect(record.interrupted).toMatchObject({ signal: null, restore: { status: 'restored' } });
  expect(record.interrupted?.reason).toMatch(/the CLI that started the run \(pid \d+\) is gone/);
  // A killed CLI cannot remove its reports-directory lock; the next run takes the stale lock over
  // (bin/reports-lock.ts, proven in cli-config.spec.ts).
  expect(leftovers(cli.tmp, cli.reports)).toEqual(['.conformance.lock']);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  test(`Playwright run directly (conformance:shard), ${signal} to its group: its workers stop, restore, and report`, async () => {
    // Playwright's runner abandons the running test on SIGINT (and dies on SIGTERM, which global
    // setup turns into SIGINT), and its workers ignore both: the workers' own listeners stop the
    // run, and the abandoned probe is waited for.
    const original = await target.details();
    const run = startCli(target.url, { detached: true, playwright: true });
    await target.firstPatch;
    process.kill(-run.pid, signal);
    await expect
      .poll(() =>
        readdirSync(run.tmp).some(
          (n) => n.startsWith('payflow-run-') && existsSync(join(run.tmp, n, 'interrupted')),
        ),
      )
      .toBe(true);
    const stop = target.log.length;
    target.release();
    await run.exited;
    expectOnlyTheRestore(target.log.slice(stop), original);
    expect(restorable(await target.details(), original)).toEqual(had(original));
    const record = JSON.parse(
      readFileSync(join(run.reports, 'conformance.json'), 'utf8'),
    ) as ConformanceRecord;
    expect(record.interrupted).toMatchObject({ signal, restore: { status: 'restored' } });
    expect(leftovers(run.tmp, run.reports)).toEqual([]);
  });
}
