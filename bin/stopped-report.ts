/**
 * The partial report of a run of the command stopped before the suite started (bin/conformance.ts):
 * kept apart, and loaded only when a signal comes during the start-up reachability check, because
 * building and writing a report loads the verdicts, the oracles and the renderers, which a run
 * otherwise never needs in the command's own process (Playwright's reporter writes the report).
 */
import { harOfExchanges } from '../exchange/har.ts';
import { buildRecord } from '../reporter/build-record.ts';
import { displayPath, loadWaivers, NO_WAIVERS } from '../config/waivers.ts';
import { unwrittenLine, writeReports } from '../reporter/write-reports.ts';
import { chosenWriters } from '../reporter/writers.ts';
import { PROBE_CATALOG } from '../probes/described.ts';
import type { SecretInput } from '../exchange/redactors.ts';
import type { ResolvedRun } from '../run/resolve.ts';
import { spec } from '../spec/index.ts';

/**
 * The partial report of a run stopped by `signal` before the suite started (during the start-up
 * reachability check): nothing of the suite was sent, every requirement is not exercised
 * ('interrupted'), nothing needed restoring. The reports chosen are written (Playwright's own
 * aside: Playwright never ran); one that could not be written is said on stderr.
 */
export async function writeStoppedReport(
  run: ResolvedRun,
  staging: string,
  signal: string,
  startedAt: Date,
  secrets: readonly SecretInput[],
): Promise<void> {
  const { config } = run;
  const waivers = loadWaivers({ CONFORMANCE_WAIVERS: run.waivers ?? NO_WAIVERS }, run.dir);
  const record = buildRecord({
    outcomes: [],
    incomplete: [],
    run: {
      baseURL: config.baseURL,
      token: config.token,
      writableRef: config.writableRef,
      seed: config.seed,
      runs: config.runs,
    },
    startedAt,
    durationMs: Date.now() - startedAt.getTime(),
    waivers: { ...waivers, file: waivers.file && displayPath(waivers.file, run.dir) },
    strict: run.strict,
    expectedProbes: run.probes ?? PROBE_CATALOG.map((p) => p.id),
    ...(run.probes ? { selectedProbes: run.probes } : {}),
    ...(run.selection ? { selection: run.selection } : {}),
    ...(run.requireExercised ? { requireExercised: run.requireExercised } : {}),
    settings: run.settings,
    interrupted: {
      signal,
      reason: `${signal} during the start-up reachability check, before any request of the suite`,
    },
    writeProbes: [],
  });
  const { unwritten } = await writeReports(
    { record, har: emptyHar() },
    { outputDir: run.reportsDir, stagingDir: staging, secrets, writers: chosenWriters(run.reports) },
  );
  if (unwritten.length > 0) process.stderr.write(`conformance: ${unwrittenLine(unwritten)}\n`);
}

/** The traffic of a run that sent nothing, as HAR. */
function emptyHar(): string {
  return `${JSON.stringify(harOfExchanges([], spec().version), null, 1)}\n`;
}
