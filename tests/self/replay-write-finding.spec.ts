/**
 * A write finding shows the exchange that failed, and its replay reproduces that exchange: the
 * CLI against a gallery variant whose fault shows only on the read after an accepted PATCH (the
 * suite confirms several PATCHes with one read, so the judgement comes while a later case runs).
 * The finding's input is the body its request sent and its curl sends; its replay line, pasted into
 * a clean shell with only API_TOKEN set, fails the same requirement with the same input and body.
 * Both runs wait for an accepted PATCH to show 400 ms rather than 2 s (CONFORMANCE_SETTLE_MS,
 * which the replay line carries): this server never shows it, so the wait was most of the time.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { Finding } from '../../engine/types.ts';
import type { ConformanceRecord } from '../../reporter/record.ts';
import { GALLERY } from '../../servers/gallery/index.ts';
import { REFERENCE_TOKEN } from '../../servers/reference.ts';
import { collected, removeTemporaryDirectories, runCli, targetEnv, type ProcessRun } from './cli-fixtures.ts';

test.afterAll(() => removeTemporaryDirectories());

function record(reports: string): ConformanceRecord {
  return JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as ConformanceRecord;
}

/** Runs a shell line with only PATH, HOME and `env` set, in `cwd`. */
function cleanShell(line: string, env: Record<string, string>, cwd: string): Promise<ProcessRun> {
  return collected(
    spawn('bash', ['-c', line], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? cwd, ...env },
    }),
  );
}

/**
 * The finding of a property case, which represents its group: its input is the body of the PATCH
 * it rests on (the request judged, or the PATCH before the read judged), and what that PATCH's
 * curl sends.
 */
function caseFinding(rec: ConformanceRecord, requirement: string): { finding: Finding; body: string } {
  const req = rec.requirements.find((r) => r.id === requirement);
  expect(req?.status, requirement).toBe('failed');
  const f = req!.findings[req!.groups![0]!.representative]!;
  expect(f.path, `${requirement}: the first group is represented by a property case`).toBeDefined();
  expect(f.input).toBeDefined();
  const patch =
    f.request?.method === 'PATCH'
      ? { body: f.request.body!, curl: f.curl! }
      : (() => {
          const c = (f.context ?? []).find((x) => x.request.startsWith('PATCH '));
          expect(c, 'the PATCH the finding rests on').toBeDefined();
          const body = /--data-binary '(.*)'$/.exec(c!.curl)?.[1]?.replaceAll("'\\''", "'");
          expect(body, c!.curl).toBeDefined();
          return { body: body!, curl: c!.curl };
        })();
  expect(JSON.parse(patch.body)).toEqual(f.input);
  return { finding: f, body: patch.body };
}

const REQUIREMENT = 'patch-persisted';

test("a write finding's input, request, curl and replay are one exchange's", async () => {
  test.setTimeout(240_000);
  const variant = GALLERY.find((v) => v.id === 'patch-not-persisted')!;
  expect(variant.trips).toContain(REQUIREMENT);
  const server = variant.create();
  const baseURL = await server.start(0);
  try {
    // A read that does not show an accepted PATCH is read again for CONFORMANCE_SETTLE_MS before
    // it is judged (2 s by default, in the run and in its replay, whose line carries the setting):
    // this server never shows it, so a fifth of that proves the same in a fifth of the wait.
    const full = await runCli(
      { ...targetEnv(baseURL, REFERENCE_TOKEN, true), CONFORMANCE_SETTLE_MS: '400' },
      { args: ['--probe', 'patch-valid-details'] },
    );
    expect(full.code, full.stdout + full.stderr).toBe(1);
    const { finding: first, body } = caseFinding(record(full.reports), REQUIREMENT);
    const summary = full.stdout.slice(full.stdout.indexOf(`[FAIL] MUST ${REQUIREMENT}`));
    const line = /^\s+replay: (.+)$/m.exec(summary)?.[1];
    expect(line, full.stdout).toBeDefined();
    expect(line).toContain(`--probe patch-valid-details --case '${first.property}@${first.path}'`);
    expect(line).toContain('CONFORMANCE_SETTLE_MS=400 ');
    // The console shows the same input the curl sends.
    expect(summary).toContain(`input ${JSON.stringify(first.input)}`);

    // Pasted where the run was started; its reports go where the line says, below the run's.
    const replay = await cleanShell(line!, { API_TOKEN: REFERENCE_TOKEN }, full.work);
    expect(replay.code, replay.stdout + replay.stderr).toBe(1);
    const where = /CONFORMANCE_REPORTS_DIR=(\S+) /.exec(line!)?.[1];
    expect(where).toMatch(/^reports\/replay-patch-valid-details-/);
    const again = caseFinding(record(join(full.work, where!)), REQUIREMENT);
    expect(again.finding.input).toEqual(first.input);
    expect(again.body).toBe(body);
    expect(again.finding.path).toBe(first.path);
  } finally {
    await server.stop();
  }
});
