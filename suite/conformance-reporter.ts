/**
 * A Playwright reporter that folds each check's outcome (attached to its test as JSON) into
 * requirement verdicts, applies the waivers and strict mode of the gate, writes the reports the
 * run chose (reporter/writers.ts, `--report`) and prints the summary. It reads only
 * attachments (suite/attachments.ts), so it works the same on merged shard reports (npx
 * playwright merge-reports). What the reports make of the traffic (its coverage, the entries of
 * exchanges.har) is made as each check ends, while the others run (reporter/traffic-digest.ts):
 * the end of a run is left the record and the files.
 *
 * Its configuration is the run's, resolved once (run/resolve.ts): the waiver file, strict
 * mode, the token (redacted wherever it would appear), the probes the run is limited to, and the
 * target, mode and seed as global setup (or bin/merge-shards.ts) completed them.
 *
 * With a staging directory (CONFORMANCE_REPORTS_STAGING, set by bin/conformance.ts), the reports
 * are written there, Playwright's HTML report too, and moved into the output directory as one
 * set (reporter/report-set.ts). An interrupted run (transport/stop.ts, or Playwright's own
 * SIGINT) gets a partial record that says so and what was restored. The command that started the
 * run is told the gate's verdict and the reports that could not be written (reporter/outcome.ts);
 * run without it, a report that could not be written fails Playwright's run.
 */
import { resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import type {
  FullConfig,
  FullResult,
  Reporter,
  Suite,
  TestCase,
  TestResult,
} from '@playwright/test/reporter';
import { resolvedRun } from '../run/hand-down.ts';
import type { ProbeOutcome, RestoreRecord } from '../engine/types.ts';
import type { Exchange } from '../exchange/exchange.ts';
import { spec } from '../spec/index.ts';
import { basePathOf } from '../exchange/route.ts';
import { PROBE_CATALOG } from '../probes/described.ts';
import { interruptionFromEnv, requestStop, type Interruption } from '../transport/stop.ts';
import { END_EXCHANGES_ENV, END_RESTORE_ENV, RECOVERY_ENV } from '../engine/baseline.ts';
import type { PolitenessReport } from '../transport/limiter.ts';
import { FileLedger, PACE_ENV } from '../transport/ledger.ts';
import { headerSecrets } from '../exchange/extra-headers.ts';
import { redactText, secretsFromEnv } from '../exchange/redactors.ts';
import { buildRecord } from '../reporter/build-record.ts';
import type { IncompleteCheck, RecordRun } from '../reporter/record.ts';
import { formatSummary, summaryColour } from '../reporter/console.ts';
import { displayPath, loadWaivers, NO_WAIVERS, type WaiverFile } from '../config/waivers.ts';
import { unwrittenLine, writeReports, type WrittenReports } from '../reporter/write-reports.ts';
import { chosenWriters } from '../reporter/writers.ts';
import { handOnOutcome, outcomeOf } from '../reporter/outcome.ts';
import { DiskError, handOnWriteFailure } from '../reporter/disk-errors.ts';
import { probeState, whyNothingSent } from '../reporter/probe-state.ts';
import { readAttachments } from './attachments.ts';
import { commandPrefix } from '../config/command.ts';
import { LiveLine } from '../reporter/live.ts';
import { LIVE_INTERVAL_MS, liveTerminal, readProgress } from './live-progress.ts';
import { durationsOf, marksIn } from '../reporter/timeline.ts';
import { TrafficDigest, type DigestSettings } from '../reporter/traffic-digest.ts';
import { SendingGroups } from './work-groups.ts';

/** The exchanges of every check in the order they completed (the order of a check's log breaks ties). */
export function inCompletionOrder(lists: readonly (readonly Exchange[])[]): Exchange[] {
  return lists
    .flatMap((list, l) => list.map((ex, i) => ({ ex, l, i })))
    .sort(
      (a, b) =>
        a.ex.startedAt + a.ex.durationMs - (b.ex.startedAt + b.ex.durationMs) || a.l - b.l || a.i - b.i,
    )
    .map(({ ex }) => ex);
}

/**
 * One line per completed probe, for a person following a long run: how it ended, what it sent,
 * what it waited, how long it took, and what it found.
 */
export function progressLine(
  title: string,
  outcome: ProbeOutcome | undefined,
  incomplete: string | undefined,
  durationMs: number,
): string {
  const id = title.split(':')[0] ?? title;
  const time = `${(durationMs / 1000).toFixed(1)} s`;
  if (outcome === undefined) return `! ${id}: ${incomplete ?? 'no outcome'} (${time})`;
  if (outcome.status === 'skipped') return `- ${id}: skipped (${outcome.skipReason ?? 'no reason given'})`;
  // A probe that sent nothing judged nothing: not a pass, and the line says why.
  if (probeState(outcome, incomplete) === 'sent-nothing')
    return `- ${id}: sent nothing (${whyNothingSent(outcome)}), ${time}`;
  const waits =
    (outcome.retries ?? 0) > 0 || (outcome.waitedMs ?? 0) > 0
      ? `, ${outcome.retries ?? 0} retried, ${((outcome.waitedMs ?? 0) / 1000).toFixed(1)} s waited`
      : '';
  const found = outcome.findings.length > 0 ? `, ${outcome.findings.length} finding(s)` : '';
  const mark = incomplete !== undefined ? '!' : outcome.findings.length > 0 ? '✗' : '✓';
  const tail = incomplete !== undefined ? `: ${incomplete}` : '';
  return `${mark} ${id}: ${outcome.requests} request(s)${waits}, ${time}${found}${tail}`;
}

/**
 * What the traffic's reports depend on, as the run's configuration says it once global setup
 * completed it (the embedded server's URL): the target's base path, and the secrets redacted.
 */
function digestSettings(): DigestSettings {
  const { config } = resolvedRun();
  return {
    basePath: basePathOf(config.baseURL ?? ''),
    secrets: [...secretsFromEnv({ API_TOKEN: config.token }), ...headerSecrets(config.extraHeaders)],
  };
}

export interface ConformanceReporterOptions {
  /** Where the reports go (default: reports). */
  outputDir?: string;
  /**
   * Where they are written first, with Playwright's HTML report (its outputFolder must be
   * `<stagingDir>/playwright`), to be moved into outputDir together once all are written.
   */
  stagingDir?: string;
}

export default class ConformanceReporter implements Reporter {
  private readonly outcomes = new Map<string, ProbeOutcome>();
  private readonly incomplete = new Map<string, IncompleteCheck>();
  private readonly endedTests = new Set<string>();
  /** The checks' exchanges, and what the reports make of them, made as each check ends. */
  private readonly traffic = new TrafficDigest();
  private startedAt = new Date();
  private readonly outputDir: string;
  private readonly stagingDir: string | undefined;
  private interruption: Interruption | undefined;
  private readonly waivers: WaiverFile;
  private readonly strict: boolean;
  private total = 0;
  private ended = 0;
  /** The groups of checks not yet ended: they bound the processes that may still send. */
  private groups: SendingGroups | undefined;
  /** On a terminal, the line that shows the probes running long (reporter/live.ts). */
  private live: { line: LiveLine; timer: NodeJS.Timeout } | undefined;

  constructor(options: ConformanceReporterOptions = {}) {
    this.outputDir = resolve(options.outputDir ?? 'reports');
    this.stagingDir = options.stagingDir ? resolve(options.stagingDir) : undefined;
    // The waiver file was validated when the configuration was resolved; read it again here.
    const run = resolvedRun();
    this.waivers = loadWaivers({ CONFORMANCE_WAIVERS: run.waivers ?? NO_WAIVERS }, run.dir);
    this.strict = run.strict;
  }

  onBegin(_config: FullConfig, suite: Suite): void {
    this.startedAt = new Date();
    this.total = suite.allTests().length;
    this.groups = new SendingGroups(suite.allTests());
    const terminal = liveTerminal();
    if (terminal.tty) {
      const line = new LiveLine({
        tty: true,
        columns: terminal.columns,
        write: (text) => process.stdout.write(text),
        now: Date.now,
        read: () => readProgress(process.env.CONFORMANCE_RUN_STATE),
      });
      const timer = setInterval(() => line.tick(), LIVE_INTERVAL_MS);
      timer.unref();
      this.live = { line, timer };
    }
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    // A worker that died (SIGKILL, the kernel's OOM killer) is an interruption: the run stops
    // sending, and global teardown restores what its probe was writing (probes/recovery.ts).
    const died = result.errors
      .map((e) => e.message ?? '')
      .map((m) => /worker process exited unexpectedly \(code=([^,]*), signal=([^)]*)\)/i.exec(m))
      .find((m) => m !== null);
    const state = process.env.CONFORMANCE_RUN_STATE;
    if (died && state)
      requestStop(state, {
        signal: null,
        reason: `a Playwright worker died (${died[2] !== 'null' ? died[2] : `exit code ${died[1]}`}) while running ${test.title.split(':')[0]}`,
      });
    // Read while the run-state directory exists (global teardown removes it).
    this.interruption ??= interruptionFromEnv(process.env);
    this.endedTests.add(test.title);
    // Fewer groups left than processes: each process left may send a larger share (transport/session.ts).
    const left = this.groups?.end(test);
    if (left !== undefined && left >= 1 && state) FileLedger.keepSending(state, left);
    const { exchanges, outcome: handed } = readAttachments(result);
    if (exchanges) this.traffic.add(test.id, exchanges, digestSettings());
    if (handed?.complete) {
      this.outcomes.set(test.id, handed.value);
      this.incomplete.delete(test.id);
    } else if (handed) {
      // What the check found before it stopped still counts; the check itself is incomplete.
      const outcome = handed.value;
      this.outcomes.set(test.id, outcome);
      this.incomplete.set(test.id, {
        test: test.title,
        error: `could not complete: ${outcome.incomplete ?? 'unknown'}`,
      });
    } else if (result.status !== 'passed' && result.status !== 'skipped') {
      // Playwright's own text: its colours are dropped (what came from the target was escaped in the outcome).
      const message = stripVTControlCharacters(result.error?.message ?? result.status);
      const error = message.split('\n')[0] ?? result.status;
      this.incomplete.set(test.id, {
        test: test.title,
        error: `did not complete (${result.status}): ${error}`,
      });
    }
    this.ended++;
    // The last check: what is left of the traffic is digested at once, while the workers exit.
    if (this.ended === this.total) this.traffic.finishing();
    const line = progressLine(
      test.title,
      this.outcomes.get(test.id),
      this.incomplete.get(test.id)?.error,
      result.duration,
    );
    // The target's text in it was escaped when the outcome was made (engine/run.ts); the token
    // is redacted like everything this reporter prints.
    const run = resolvedRun();
    const secrets = [
      ...secretsFromEnv({ API_TOKEN: run.config.token }),
      ...headerSecrets(run.config.extraHeaders),
    ];
    this.live?.line.clear();
    process.stdout.write(
      `${redactText(`  [${String(this.ended).padStart(String(this.total).length)}/${this.total}] ${line}`, secrets)}\n`,
    );
  }

  async onEnd(result: FullResult): Promise<{ status: FullResult['status'] } | undefined> {
    if (this.live) {
      clearInterval(this.live.timer);
      this.live.line.clear();
    }
    // As global setup completed it (the embedded server's URL, the kind of target).
    const run = resolvedRun();
    const recordRun: RecordRun = {
      baseURL: run.config.baseURL,
      targetKind: run.targetKind,
      ...(run.target ? { targetReason: run.target.why } : {}),
      token: run.config.token,
      writableRef: run.config.writableRef,
      seed: run.config.seed,
      runs: run.config.runs,
    };
    this.interruption ??= interruptionFromEnv(process.env);
    // Playwright's runner ends 'interrupted' on SIGINT; it may have stopped the workers before a
    // worker's own listener recorded the signal.
    if (result.status === 'interrupted')
      this.interruption = {
        signal: this.interruption?.signal ?? 'SIGINT',
        reason: this.interruption?.reason ?? 'Playwright was interrupted',
      };
    // What the restores at the run's end sent (global teardown, which ran before this): the HAR
    // lists every request the run sent.
    const endText = process.env[END_EXCHANGES_ENV];
    const housekeeping = endText ? (JSON.parse(endText) as Exchange[]) : [];
    if (housekeeping.length > 0) this.traffic.add(END_EXCHANGES_ENV, housekeeping, digestSettings());
    const exchanges = inCompletionOrder(this.traffic.exchangeLists());
    // Handed over by global teardown, which ran before this (suite/global-setup.ts).
    const paceText = process.env[PACE_ENV];
    const pace = paceText ? (JSON.parse(paceText) as PolitenessReport) : undefined;
    // The same way: restores of probes whose worker died before theirs.
    const recoveryText = process.env[RECOVERY_ENV];
    const recoveries = recoveryText ? (JSON.parse(recoveryText) as RestoreRecord[]) : [];
    // And the restore, at the end of a run not stopped, of what the write probes handed on.
    const endRestoreText = process.env[END_RESTORE_ENV];
    const endRestores = endRestoreText ? (JSON.parse(endRestoreText) as RestoreRecord[]) : [];
    // Global teardown may have found a dead writer no test end reported.
    this.interruption ??= interruptionFromEnv(process.env);
    // Within the run's budget of kept bodies and the size validate reads (exchange/har-file.ts);
    // the entries and the coverage were made as the checks ended (reporter/traffic-digest.ts).
    const { har, harRedactedWith, coverage } = await this.traffic.traffic(
      exchanges,
      spec().version,
      digestSettings(),
    );
    // Set by the CLI and global setup (reporter/timeline.ts); none in a merge of shards.
    const marks = marksIn(process.env);
    const record = buildRecord({
      outcomes: [...this.outcomes.values()],
      incomplete: [...this.incomplete.values()],
      run: recordRun,
      // In a merged report, the start of the earliest shard.
      startedAt: result.startTime ?? this.startedAt,
      durationMs: result.duration,
      waivers: {
        ...this.waivers,
        file: this.waivers.file && displayPath(this.waivers.file, run.dir),
      },
      strict: this.strict,
      expectedProbes: run.probes ?? PROBE_CATALOG.map((p) => p.id),
      ...(run.probes ? { selectedProbes: run.probes } : {}),
      ...(run.selection ? { selection: run.selection } : {}),
      ...(run.requireExercised ? { requireExercised: run.requireExercised } : {}),
      // Resolved before global setup: an embedded target stays empty, which replays on a fresh one.
      ...(run.settings ? { settings: run.settings } : {}),
      command: commandPrefix(run.dir),
      endedTests: [...this.endedTests],
      ...(this.interruption ? { interrupted: this.interruption, recoveries } : { endRestores }),
      housekeepingRequests: housekeeping.length,
      writeProbes: PROBE_CATALOG.filter((p) => p.access === 'write').map((p) => p.id),
      coverage,
      ...(pace ? { pace } : {}),
      kept: har.kept,
      ...(marks ? { durations: durationsOf(marks, exchanges, Date.now()) } : {}),
    });
    const secrets = [
      ...secretsFromEnv({ API_TOKEN: run.config.token }),
      ...headerSecrets(run.config.extraHeaders),
    ];
    let reports: WrittenReports;
    try {
      reports = await writeReports(
        { record, har: har.text, harRedactedWith },
        {
          outputDir: this.outputDir,
          ...(this.stagingDir ? { stagingDir: this.stagingDir, playwright: true } : {}),
          secrets,
          writers: chosenWriters(run.reports),
        },
      );
    } catch (error) {
      // A full or read-only disk: one line, said by the command (reporter/disk-errors.ts).
      if (!(error instanceof DiskError)) throw error;
      handOnWriteFailure(error);
      return undefined;
    }
    console.log(
      redactText(
        formatSummary(
          record,
          reports.written.map((p) => displayPath(p, run.dir)),
          {
            colour: summaryColour(process.env, process.stdout.isTTY === true),
            unwritten: reports.unwritten,
          },
        ),
        secrets,
      ),
    );
    const unwritten = reports.unwritten.length > 0 ? unwrittenLine(reports.unwritten) : undefined;
    if (!handOnOutcome(outcomeOf(record, unwritten)) && unwritten !== undefined)
      process.stderr.write(`conformance: ${unwritten}\n`);
    return unwritten !== undefined ? { status: 'failed' } : undefined;
  }

  printsToStdio(): boolean {
    return true;
  }
}
