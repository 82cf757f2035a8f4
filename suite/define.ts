/**
 * Turns registered probes into Playwright tests: one test per probe, tagged and annotated with
 * the requirements it aims at. The probe's outcome (its findings, and those of the oracles on
 * the exchanges it sent) is attached as JSON for the conformance reporter; MUST findings fail
 * the test, SHOULD findings are annotated as warnings.
 *
 * The tests are defined from the probes' catalog (probes/described.ts); what runs a probe (its
 * implementation, the engine, the session) is loaded by the test, in the worker. So Playwright's
 * runner, which loads every spec file to list the tests, loads none of it, but for
 * the write lanes of a run with several writable counterparties, which the probes' cost models
 * place (engine/lanes.ts).
 */
import { test as base, expect } from '@playwright/test';
import { assignLanes, laneRefs, laneTarget, type Lane } from '../engine/lanes.ts';
import type { Finding, Probe, ProbeOutcome, TargetConfig } from '../engine/types.ts';
import { PROBE_CATALOG, testTags, testTitle, type ProbeEntry } from '../probes/described.ts';
import { resolvedRun } from '../run/hand-down.ts';
import { headerSecrets } from '../exchange/extra-headers.ts';
import { redactText, type SecretInput } from '../exchange/redactors.ts';
import { replayLine } from '../reporter/replay.ts';
import { commandPrefix } from '../config/command.ts';
import { keepProgress } from './live-progress.ts';
import { provenance } from '../reporter/provenance.ts';
import { requirement } from '../spec/requirements.ts';
import { attachExchanges, attachOutcome } from './attachments.ts';

/** What runs the probes, loaded in the worker by the first test (and the fixtures) that need it. */
async function runtime(): Promise<{
  runProbe: typeof import('../engine/run.ts').runProbe;
  implementation: (id: string) => Probe;
  target: typeof import('./target.ts');
}> {
  const [run, probes, target] = await Promise.all([
    import('../engine/run.ts'),
    import('../probes/index.ts'),
    import('./target.ts'),
  ]);
  return {
    runProbe: run.runProbe,
    implementation: (id) => {
      const p = probes.probe(id);
      if (p === undefined)
        throw new Error(`probe ${id} is in probes/catalog.ts but not registered: run npm run catalogs`);
      return p;
    },
    target,
  };
}

/** The probe this worker is running, until it returns. */
let running: Promise<ProbeOutcome> | undefined;

export const test = base.extend<{ target: TargetConfig; settleProbe: void }>({
  target: async ({}, use) => {
    await use((await runtime()).target.targetFromEnv());
  },
  // Playwright abandons a running test when its runner is interrupted (SIGINT) or gone, or the
  // test times out: the test function is left running while the worker tears down and exits,
  // which would cut a probe off before the restore in its finally. So a probe still running at
  // teardown stops the run (nothing more is sent but the restore) and is waited for.
  settleProbe: [
    async ({}, use) => {
      await use();
      if (running === undefined) return;
      (await runtime()).target
        .sessionFromEnv()
        .interrupt({ signal: null, reason: 'Playwright stopped a check while it was running' });
      await running;
    },
    { auto: true },
  ],
});

/**
 * A finding as Playwright's output shows it: with the roles of the exchanges it rests on, the
 * curl command, and the replay line of the one probe (and case) that sent it.
 */
export function formatFinding(f: Finding, probe?: string): string {
  const r = requirement(f.requirement);
  const lines = [
    `[${r.level}] ${r.id} (${r.section}): ${f.message}`,
    `  ${provenance(f)}`,
    `  expected: ${f.expected}`,
    `  received: ${f.received.split('\n').join('\n            ')}`,
  ];
  if (f.input !== undefined) lines.push(`  input:    ${JSON.stringify(f.input)}`);
  if (f.rule)
    lines.push(
      `  rule:     ${f.rule.field} ${f.rule.keyword} (${f.rule.keeps ? 'keeps' : 'breaks'}): ${f.rule.description}`,
    );
  for (const c of f.context ?? [])
    lines.push(`  ${`${c.role ?? 'exchange'}:`.padEnd(9)} ${c.request} -> ${c.status || 'no answer'}`);
  if (f.curl) lines.push(`  curl:     ${f.curl}   (API_TOKEN must be set)`);
  const run = resolvedRun();
  const replay = replayLine(
    { seed: run.config.seed, settings: run.settings, command: commandPrefix(run.dir) },
    { ...f, ...(probe ? { probe } : {}) },
  );
  if (replay) lines.push(`  replay:   ${replay}`);
  return lines.join('\n');
}

/** The run's secrets, as every report redacts them (exchange/redactors.ts). */
function attachmentSecrets(target: TargetConfig): SecretInput[] {
  return [target.token, ...headerSecrets(target.extraHeaders ?? [])];
}

/** A probe of the catalog, and for a write probe of a run with several lanes, its implementation. */
type Defined = ProbeEntry | Probe;

function defineProbe(probe: Defined, lane?: Lane): void {
  const part = lane?.parts?.get(probe as Probe);
  test(
    testTitle(probe, part && { ...part, ref: lane!.ref }),
    {
      tag: testTags(probe),
      annotation: probe.requirements.map((id) => ({ type: 'requirement', description: id })),
    },
    async ({ target }) => {
      const { runProbe, implementation, target: fromEnv } = await runtime();
      const impl = 'run' in probe ? probe : implementation(probe.id);
      const run = fromEnv.runContextFromEnv();
      const first = run.log.size;
      // On a terminal, what it has done so far, for the reporter's live line (suite/live-progress.ts).
      const stopProgress = keepProgress(resolvedRun().state?.dir, probe.id, run);
      running = runProbe(impl, lane ? laneTarget(target, lane, impl) : target, run);
      const outcome = await running.finally(() => {
        running = undefined;
        stopProgress();
      });
      // What a probe that stopped early left going ends first: then the check ends, and its
      // process's slots may go to another (transport/session.ts quiet, Ledger.sending).
      await fromEnv.sessionFromEnv().quiet();
      // What leaves for Playwright (the attachments, the error, the annotations) is redacted here,
      // as it leaves the worker: Playwright's own report and output hold every one of them.
      const secrets = attachmentSecrets(target);
      const shown = (f: Finding): string => redactText(formatFinding(f, probe.id), secrets);
      // What it sent, for the run's exchanges.har and coverage (one check at a time per worker).
      await attachExchanges(test.info(), run.log.all.slice(first), secrets);
      // An incomplete outcome is attached as such (suite/attachments.ts): its findings count, the check does not.
      await attachOutcome(test.info(), outcome, secrets);
      if (outcome.incomplete !== undefined) {
        const found = outcome.findings.map(shown);
        throw new Error(
          redactText(`could not complete: ${outcome.incomplete}`, secrets) +
            (found.length > 0 ? `\nfound before it stopped:\n${found.join('\n\n')}` : ''),
        );
      }
      test.skip(outcome.status === 'skipped', outcome.skipReason);
      for (const f of outcome.findings.filter((f) => requirement(f.requirement).level === 'SHOULD')) {
        test.info().annotations.push({ type: 'warning', description: shown(f) });
      }
      const must = outcome.findings.filter((f) => requirement(f.requirement).level === 'MUST');
      expect(must.length, `MUST requirement(s) broken:\n${must.map(shown).join('\n\n')}\n`).toBe(0);
    },
  );
}

/**
 * Defines one test per write probe that never sends to the writable counterparty (only to
 * invented references): they may run in parallel with anything, as reads do.
 */
export function defineElsewhereWriteProbes(): void {
  for (const probe of PROBE_CATALOG.filter((p) => p.access === 'write' && p.elsewhere)) defineProbe(probe);
}

/** Defines one test per read probe of `group`; they may run in parallel with anything. */
export function defineProbes(group: string): void {
  const probes = PROBE_CATALOG.filter((p) => p.access === 'read' && p.group === group);
  if (probes.length === 0) throw new Error(`no read probe has the group '${group}' (probes/catalog.ts)`);
  for (const probe of probes) defineProbe(probe);
}

/**
 * The writable counterparties the write probes share, a lane each (engine/lanes.ts), as the
 * target of the run has them (suite/target.ts targetFromEnv); undefined before the run is
 * resolved (a listing of the tests without a run).
 */
function writableRefs(): readonly string[] | undefined {
  let config;
  try {
    config = resolvedRun().config;
  } catch {
    return undefined;
  }
  if (config.baseURL === undefined) return undefined;
  return laneRefs(config);
}

/**
 * Defines one test per write probe, in order in one worker: writes share the writable
 * counterparty, and a PATCH judged with the reads around it must not see another probe's PATCH
 * in between. A failing probe does not skip the ones after it. With several writable
 * counterparties, one group per lane, each in order in a worker of its own, the groups in
 * parallel; each probe writes to its lane's counterparty. Only then are the probes loaded here,
 * for their cost models (`await` it: the spec file waits at its top level).
 */
export async function defineWriteProbes(): Promise<void> {
  const refs = writableRefs();
  if (refs === undefined || refs.length <= 1) {
    test.describe.configure({ mode: 'default' });
    for (const probe of PROBE_CATALOG.filter((p) => p.access === 'write' && !p.elsewhere)) defineProbe(probe);
    return;
  }
  const [{ PROBES }, { targetFromEnv }] = await Promise.all([
    import('../probes/index.ts'),
    import('./target.ts'),
  ]);
  const lanes = assignLanes(
    PROBES.filter((p) => p.access === 'write' && !p.elsewhere),
    targetFromEnv(),
  );
  test.describe.configure({ mode: 'parallel' });
  lanes.forEach((lane, i) => {
    test.describe(`lane ${i + 1} (${lane.ref})`, () => {
      test.describe.configure({ mode: 'default' });
      for (const probe of lane.probes) defineProbe(probe, lane);
    });
  });
}
