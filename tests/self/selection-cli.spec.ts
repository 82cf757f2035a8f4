/**
 * Choosing what runs, the stricter gate and the replay line, through `npm run conformance` end
 * to end: a finding's printed replay line, pasted into a clean shell (only PATH, HOME and
 * API_TOKEN) where the run was started, runs that probe alone with the run's seed and fails the
 * same way with that finding alone, the rest not selected, its reports below the run's and the
 * run's left as they were; without API_TOKEN it refuses to run. The
 * requirements outside a selection are "not selected" in every report; --require-exercised fails
 * the gate on what was not exercised. Selection flags with an unknown or missing value are a
 * one-line usage or configuration error (exit 2) listing the known ones: one through the CLI, the
 * rest the command's own parsing and resolution called in this process (resolveAsCli).
 *
 * The run a replay line is taken from selects two probes, not the whole suite: the line is the
 * same (every setting, the one probe, the one case), at a fraction of the cost. This one test
 * also proves what cli-config.spec.ts's replay test proved (a finding's replay command runs that
 * probe alone with the same seed and finds it again).
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { ConformanceRecord } from '../../reporter/record.ts';
import { gateReasons } from '../../reporter/gate.ts';
import { GALLERY } from '../../servers/gallery/index.ts';
import { REFERENCE_TOKEN } from '../../servers/reference.ts';
import { PROBES } from '../../probes/index.ts';
import { UsageError } from '../../bin/args.ts';
import { ConfigError } from '../../config/error.ts';
import {
  collected,
  removeTemporaryDirectories,
  resolveAsCli,
  runCli,
  targetEnv,
  temporaryDirectory,
  type CliRun,
  type ProcessRun,
} from './cli-fixtures.ts';

test.describe.configure({ mode: 'default' });
test.afterAll(() => removeTemporaryDirectories());

function record(reports: string): ConformanceRecord {
  return JSON.parse(readFileSync(join(reports, 'conformance.json'), 'utf8')) as ConformanceRecord;
}

function expectOneLineError(r: CliRun | ProcessRun, message: RegExp): void {
  expect(r.code, r.stdout + r.stderr).toBe(2);
  expect(r.stderr).toMatch(message);
  expect(r.stderr.trim().split('\n')).toHaveLength(1);
}

/** Runs a shell line with only PATH, HOME and `env` set, in `cwd`. */
async function cleanShell(line: string, env: Record<string, string>, cwd: string): Promise<ProcessRun> {
  return collected(
    spawn('bash', ['-c', line], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? cwd, ...env },
    }),
  );
}

test("a finding's replay line, pasted into a clean shell with only API_TOKEN set, runs that probe alone with the same seed and fails the same way", async () => {
  // References with a '.' are taken for valid: a property of invalid-references finds it.
  const variant = GALLERY.find((v) => v.id === 'dot-accepted')!;
  const server = variant.create();
  const baseURL = await server.start(0);
  try {
    // The probe that finds the fault and another (which passes): the replay runs the first alone.
    // A seed given, which the line carries.
    const full = await runCli(
      { ...targetEnv(baseURL, REFERENCE_TOKEN, false), CONFORMANCE_SEED: '11' },
      { args: ['--probe', 'known-counterparty', '--probe', 'invalid-references'] },
    );
    expect(full.code, full.stdout + full.stderr).toBe(1);
    const summary = full.stdout.slice(full.stdout.indexOf('[FAIL] MUST reference-invalid-400'));
    const line = /^\s+replay: (.+)$/m.exec(summary)?.[1];
    expect(line, full.stdout).toBeDefined();
    expect(line).toContain(`API_BASE_URL=${baseURL} `);
    expect(line).toContain('CONFORMANCE_SEED=11 ');
    expect(line).toContain('--probe invalid-references --case ');
    expect(line).not.toContain(REFERENCE_TOKEN);
    const whole = record(full.reports);
    const original = whole.requirements.find((q) => q.id === 'reference-invalid-400')!;

    // Pasted where the run was started (its .env now sets a seed the line overrides): the line
    // names its reports directory, below the run's, and the run's reports stay as they were.
    const where = /CONFORMANCE_REPORTS_DIR=(\S+) /.exec(line!)?.[1];
    expect(where).toBe(
      `reports/replay-invalid-references-${original.findings[0]!.path!.replaceAll(':', '-')}`,
    );
    writeFileSync(join(full.work, '.env'), 'CONFORMANCE_SEED=999\n');
    const runRecord = readFileSync(join(full.reports, 'conformance.json'), 'utf8');
    const replay = await cleanShell(line!, { API_TOKEN: REFERENCE_TOKEN }, full.work);
    expect(replay.code, replay.stdout + replay.stderr).toBe(1);
    expect(readFileSync(join(full.reports, 'conformance.json'), 'utf8')).toBe(runRecord);
    expect(replay.stdout).toContain(`Reports: ${where!}/conformance.html`);
    const first = replay.stdout.split('\n')[0] ?? '';
    expect(first).toContain('seed 11 (given)');
    expect(first).toContain('only --probe invalid-references');
    expect(replay.stdout).toMatch(/\[1\/1\] ✗ invalid-references: /);
    // That probe alone (the probes the record lists as run), with the run's seed.
    const again = record(join(full.work, where!));
    expect(again.seed).toBe(11);
    expect(again.selection?.probes).toEqual(['invalid-references']);
    expect(again.probes.map((p) => p.probe)).toEqual(['invalid-references']);
    expect(again.incomplete).toEqual([]);
    // The same finding, alone: the one case the line names.
    const broken = again.requirements.filter((q) => q.findings.length > 0);
    expect(broken.map((q) => q.id)).toEqual(['reference-invalid-400']);
    expect(broken[0]!.status).toBe('failed');
    expect(broken[0]!.findings.map((f) => f.input)).toEqual([original.findings[0]!.input]);
    expect(replay.stdout).not.toContain(REFERENCE_TOKEN);
    // What the probe does not exercise is not selected, and says why; never passed.
    const aimed = new Set<string>(PROBES.find((p) => p.id === 'invalid-references')!.requirements);
    const others = again.requirements.filter((q) => !aimed.has(q.id) && q.judged === 0);
    expect(others.length).toBeGreaterThan(5);
    for (const q of others) {
      expect(q.status, q.id).toBe('not-selected');
      expect(q.reasons.join(' '), q.id).toContain('this run was limited to --probe invalid-references');
    }
    expect(again.requirements.filter((q) => q.status === 'passed').every((q) => q.judged > 0)).toBe(true);

    // Without API_TOKEN it refuses to run against the deployment: exit 2, one line.
    const refused = await cleanShell(line!, {}, full.work);
    expect(refused.code, refused.stdout + refused.stderr).toBe(2);
    expect(refused.stderr).toMatch(/API_TOKEN is required when API_BASE_URL is set/);
  } finally {
    await server.stop();
  }
});

test.describe('selection flags', () => {
  const unknown: [string, string[], RegExp][] = [
    [
      'requirement',
      ['--requirement', 'no-such-req'],
      /unknown requirement 'no-such-req'.*known requirements: .*reference-invalid-400/,
    ],
    [
      'operation',
      ['--operation', 'GET /nowhere'],
      /unknown operation 'GET \/nowhere'.*known operations: getCounterparty/,
    ],
    ['level', ['--level=may'], /unknown level 'may' \(--level\); known levels: must, should/],
    [
      'grep',
      ['--grep', 'no probe has this title'],
      /no probe matches the selection --grep no probe has this title/,
    ],
    ['value', ['--requirement'], /--requirement needs a value/],
    ['gate', ['--require-exercised', 'most'], /must be must or all, got 'most'/],
    [
      'probe for --case',
      ['--case', 'invalid reference@1:0'],
      /--case replays one case of one probe: give the --probe <id>/,
    ],
  ];
  // Through the CLI for a missing value (exit 2, one line: a UsageError of the parser, the route
  // of every usage error of `run`); the rest are the same parsing (bin/conformance.ts
  // parseRunArgs, the command's flags: the selection's, bin/selection-flags.ts, and
  // --require-exercised, config/flags.ts) and resolution (run/resolve.ts) called directly, each a
  // fraction of a CLI process's cost. A ConfigError of the resolution is exit 2 with its one line
  // through the CLI in cli-config.spec.ts ("an empty query in API_BASE_URL").
  for (const [name, args, message] of unknown) {
    if (name === 'value') {
      test(`an unknown or missing ${name}: exit 2, one line`, async () => {
        expectOneLineError(await runCli({}, { args }), message);
      });
      continue;
    }
    test(`an unknown or missing ${name}: a one-line usage or configuration error`, async () => {
      let error: unknown;
      try {
        await resolveAsCli(args, {}, temporaryDirectory('payflow-selection-'));
      } catch (e) {
        error = e;
      }
      expect(error instanceof UsageError || error instanceof ConfigError, String(error)).toBe(true);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain('\n');
    });
  }

  test('--grep runs the probes it matches; the rest is not selected in the console, JSON, JUnit and HTML', async () => {
    const r = await runCli({}, { args: ['--grep', '^routing\\.spec'] });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout.split('\n')[0]).toContain('only --grep ^routing\\.spec (probes collections-routed)');
    const rec = record(r.reports);
    expect(rec.selection).toEqual({ label: '--grep ^routing\\.spec', probes: ['collections-routed'] });
    expect(rec.probes.map((p) => p.probe)).toEqual(['collections-routed']);
    const outside = rec.requirements.filter((q) => q.status === 'not-selected');
    expect(outside.length).toBeGreaterThan(10);
    for (const q of outside) {
      expect(q.judged, q.id).toBe(0);
      expect(q.reasons, q.id).toEqual(['not selected: this run was limited to --grep ^routing\\.spec']);
    }
    expect(rec.requirements.find((q) => q.id === 'collection-routed')!.status).toBe('passed');
    expect(rec.counts.MUST['not-selected'] + rec.counts.SHOULD['not-selected']).toBe(outside.length);
    expect(r.stdout).toMatch(new RegExp(`Selection: .*; ${outside.length} requirement\\(s\\) not selected`));
    expect(r.stdout).toMatch(/\d+ not selected \| SHOULD/);
    const junit = readFileSync(join(r.reports, 'junit.xml'), 'utf8');
    expect(junit).toContain(
      '<skipped message="not selected: this run was limited to --grep ^routing\\.spec"/>',
    );
    const html = readFileSync(join(r.reports, 'conformance.html'), 'utf8');
    expect(html).toContain('<span class="badge not-selected">not selected</span>');
  });

  test('--require-exercised must fails the gate on a selected MUST requirement not exercised, with its reasons', async () => {
    const readOnly = { WRITABLE_COUNTERPARTY_REF: '' };
    const args = ['--embedded', '--requirement', 'patch-unknown-not-created'];
    const strict = await runCli({ ...readOnly, CONFORMANCE_REQUIRE_EXERCISED: 'must' }, { args });
    expect(strict.code, strict.stdout + strict.stderr).toBe(1);
    const rec = record(strict.reports);
    expect(rec.requireExercised).toBe('must');
    expect(rec.gateReasons).toEqual([
      expect.stringMatching(
        /^1 MUST requirement\(s\) not exercised \(--require-exercised must\): patch-unknown-not-created \(read-only run: set WRITABLE_COUNTERPARTY_REF/,
      ),
    ]);
    expect(strict.stdout).toContain('Gate: 1 MUST requirement(s) not exercised (--require-exercised must)');
    // The same verdicts without it pass the gate: the reasons the record's verdict comes from
    // (reporter/gate.ts gateReasons, which the reporter calls), none. A run through the CLI that
    // passes with selected MUST requirements not exercised is cli-config.spec.ts's run started
    // in another directory (read-only, a write probe selected, exit 0).
    expect(
      gateReasons({ requirements: rec.requirements, incomplete: rec.incomplete, strict: rec.strict }),
    ).toEqual([]);
  });
});
