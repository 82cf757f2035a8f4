/**
 * What `npm run conformance` does about SIGINT and SIGTERM, and the temporary files of a run.
 *
 * The CLI creates the run's state directory (a `payflow-run-*` directory in the OS temp dir,
 * shared by Playwright's processes: the request ledger and the run-wide stop state of
 * transport/stop.ts) and a staging directory for the new reports (reporter/report-set.ts), and
 * runs Playwright in a process group of its own, so that a signal to the terminal's foreground
 * group (Ctrl-C) reaches the CLI alone: Playwright's own SIGINT handling would abandon the running
 * check at once, before the restore in its finally, and a SIGTERM would kill its runner outright.
 *
 *   - The first SIGINT or SIGTERM records the stop in the state directory. Every process of the
 *     run reads it before each request: nothing more is sent, but the restore of the writable
 *     counterparty's details; the checks not yet run are skipped; Playwright ends its run, and
 *     writes a partial report that says it was interrupted and what was restored. Then the temp
 *     files are removed and the CLI exits 128 + the signal's number: 130 (SIGINT), 143 (SIGTERM).
 *   - A second signal kills Playwright's process group and exits at once (same statuses),
 *     without the restore; the previous reports are left as they were. Signals within a second
 *     of the first are the same stop, not a second one: one Ctrl-C on `npm run conformance`
 *     reaches the CLI up to three times (the terminal signals the whole group, npm forwards it to
 *     tsx, and tsx relays it to this process when it does not see it handled in time).
 *     Playwright's runner ignores repeats within a second for the same reason.
 *   - If the CLI itself is killed outright, the workers find it gone before their next request and
 *     stop the same way (CONFORMANCE_CLI_PID).
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { RECORD_FILE } from '../reporter/writers.ts';
import { OUTCOME_ENV, outcomeFile, outcomeIn, type RunOutcome } from '../reporter/outcome.ts';
import {
  commitFiles,
  createStaging,
  REPORTS_STAGING_ENV,
  RESULTS_STAGING_ENV,
} from '../reporter/report-set.ts';
import { requestStop } from '../transport/stop.ts';
import { asDiskError, DiskError, resultsOutput, WRITE_FAILURE_ENV } from '../reporter/disk-errors.ts';
import { runOutputs, writeFailureAfter, writeFailureFile } from './write-failure.ts';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
/** Signals this soon after the first are repeats of it (see above), not a second signal. */
export const SIGNAL_REPEAT_MS = 1000;
type StopSignal = (typeof SIGNALS)[number];

/** The exit status of a run ended by `signal`: 128 + its number (130 SIGINT, 143 SIGTERM). */
export function signalStatus(signal: StopSignal): number {
  return 128 + constants.signals[signal];
}

/**
 * What a signal does, given when the first one came (undefined: none yet) and whether Playwright
 * is still running: the first stop, a repeat of it (within SIGNAL_REPEAT_MS), or exit at once
 * (a second signal, or nothing left to stop). Pure, so that it is tested on a fake clock.
 */
export function signalAction(
  firstAt: number | undefined,
  now: number,
  childRunning: boolean,
): 'stop' | 'repeat' | 'exit' {
  if (firstAt !== undefined && now - firstAt < SIGNAL_REPEAT_MS) return 'repeat';
  if (firstAt === undefined && childRunning) return 'stop';
  return 'exit';
}

function say(line: string): void {
  process.stderr.write(`conformance: ${line}\n`);
}

export class RunGuard {
  /** The run's state directory (CONFORMANCE_RUN_STATE). */
  readonly stateDir: string;
  /** Where the new reports are written before they replace the previous set. */
  readonly stagingDir: string;
  /** Playwright's output directory, moved into the results directory file by file when it ends. */
  readonly resultsStaging: string;
  private child: ChildProcess | undefined;
  private childEnded = false;
  private signal: StopSignal | undefined;
  private signalledAt = 0;
  /** What a signal does before Playwright is started (the reachability check): see stopsBeforeStart. */
  private beforeStart: ((signal: StopSignal) => void | Promise<void>) | undefined;
  /** Set while the partial report of a run stopped before the start is being written. */
  private writingPartial = false;
  private readonly onSignal = (signal: StopSignal): void => this.handle(signal);

  constructor(
    reportsDir: string,
    private readonly resultsDir: string,
    /** Milliseconds, monotonic: when signals came (injected for the self-tests). */
    private readonly now: () => number = () => performance.now(),
  ) {
    this.stateDir = mkdtempSync(join(tmpdir(), 'payflow-run-'));
    this.stagingDir = createStaging(reportsDir);
    this.resultsStaging = createStaging(resultsDir, "Playwright's results directory");
    for (const signal of SIGNALS) process.on(signal, this.onSignal);
    // However the CLI ends (an unexpected error included), its temporary files go, and a
    // Playwright still running is told to stop: SIGTERM, which its workers turn into a stop of
    // the run (suite/target.ts), restoring what the running check changed.
    process.on('exit', () => {
      if (this.child?.pid !== undefined && !this.childEnded) {
        try {
          process.kill(-this.child.pid, 'SIGTERM');
        } catch {
          // Already gone.
        }
      }
      this.removeTemporaryFiles();
    });
  }

  /** The environment that ties Playwright's processes to this run and to this CLI. */
  env(): Record<string, string> {
    return {
      CONFORMANCE_RUN_STATE: this.stateDir,
      CONFORMANCE_CLI_PID: String(process.pid),
      [WRITE_FAILURE_ENV]: writeFailureFile(this.stateDir),
      [OUTCOME_ENV]: outcomeFile(this.stateDir),
      [REPORTS_STAGING_ENV]: this.stagingDir,
      [RESULTS_STAGING_ENV]: this.resultsStaging,
    };
  }

  /**
   * Until Playwright is started, a signal ends the run at once like every other interruption:
   * `writePartial` writes the partial report (nothing of the suite was sent, nothing needs
   * restoring), the temporary files go, the lock with the process, and the exit status is 130/143.
   * `writePartial` may return a promise (the CLI loads what writes a report only then); until it
   * settles, the run goes no further (stoppedBeforeStart) and a second signal exits at once.
   */
  stopsBeforeStart(writePartial: (signal: StopSignal) => void | Promise<void>): void {
    this.beforeStart = writePartial;
  }

  /** Whether a signal stopped the run before Playwright was started: it must not be started. */
  get stoppedBeforeStart(): boolean {
    return this.writingPartial;
  }

  /** Playwright's runner, spawned detached: its pid is its process group's. */
  watch(child: ChildProcess): void {
    this.beforeStart = undefined;
    this.child = child;
    child.once('exit', () => (this.childEnded = true));
  }

  private handle(signal: StopSignal): void {
    const now = this.now();
    const action = signalAction(
      this.signal === undefined ? undefined : this.signalledAt,
      now,
      this.child !== undefined && !this.childEnded,
    );
    if (action === 'repeat') return;
    if (this.writingPartial) {
      // A second signal while the partial report of a stop before the start is written.
      say(`${signal} again: stopped at once; the previous reports are left as they were`);
      this.removeTemporaryFiles();
      process.exit(signalStatus(signal));
    }
    if (this.signal === undefined && this.beforeStart !== undefined) {
      this.signal = signal;
      this.writingPartial = true;
      say(
        `${signal}: stopping before the suite started (during the start-up reachability check): no request of the suite was sent`,
      );
      const written = (): void =>
        say(
          `interrupted by ${signal}: the partial report is in the reports directory; nothing needed restoring`,
        );
      const notWritten = (error: unknown): void =>
        say(
          `interrupted by ${signal}: the partial report could not be written (${(error as Error).message}); the previous reports are left as they were`,
        );
      const end = (): never => {
        this.removeTemporaryFiles();
        process.exit(signalStatus(signal));
      };
      let pending: void | Promise<void> = undefined;
      try {
        pending = this.beforeStart(signal);
      } catch (error) {
        notWritten(error);
        end();
      }
      if (pending instanceof Promise) {
        pending.then(written, notWritten).finally(end);
        return;
      }
      written();
      end();
    }
    if (action === 'stop') {
      this.signal = signal;
      this.signalledAt = now;
      requestStop(this.stateDir, { signal, reason: `${signal} received by the CLI` });
      say(
        `${signal}: stopping: no new requests; restoring the writable counterparty's details and writing a partial report (${signal} again to stop at once)`,
      );
      return;
    }
    if (this.child?.pid !== undefined && !this.childEnded) {
      say(
        `${signal} again: killed the suite (process group ${this.child.pid}) without restoring; the previous reports are left as they were`,
      );
      try {
        process.kill(-this.child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
      this.childEnded = true;
    }
    this.removeTemporaryFiles();
    process.exit(signalStatus(signal));
  }

  private removeTemporaryFiles(): void {
    rmSync(this.stateDir, { recursive: true, force: true });
    rmSync(writeFailureFile(this.stateDir), { force: true });
    rmSync(outcomeFile(this.stateDir), { force: true });
    rmSync(this.stagingDir, { recursive: true, force: true });
    rmSync(this.resultsStaging, { recursive: true, force: true });
  }

  /**
   * Moves what Playwright wrote into the results directory, file by file (reporter/report-set.ts).
   * A full or read-only disk is the line it returns; another error is said, and the run goes on.
   */
  private commitResults(): string | undefined {
    if (!existsSync(this.resultsStaging)) return undefined;
    try {
      commitFiles(this.resultsStaging, this.resultsDir, { what: "Playwright's results directory" });
    } catch (error) {
      const out = resultsOutput(this.resultsDir);
      const disk = asDiskError(error, out, `${out.holds} could not be moved in`);
      if (disk instanceof DiskError) return disk.message;
      say(`Playwright's results were not moved into ${this.resultsDir}: ${(error as Error).message}`);
    }
    return undefined;
  }

  /**
   * Set by finish(): the line of a directory of the run that is full, read-only or not this
   * user's, when that is why the reports (or Playwright's results) were not written (exit 2).
   */
  writeFailure: string | undefined;

  /** Set by finish(): what the reporter handed on (the gate's verdict, reports not written), if it did. */
  outcome: RunOutcome | undefined;

  /**
   * After Playwright ended: removes the temporary files; exits 130/143 if the run was
   * interrupted by a signal, to this process or to Playwright's alone (its runner records it in
   * the partial report). Returns whether a new set of reports was written (the staging directory
   * is gone once its reports replaced the previous set); sets writeFailure when a full or
   * read-only directory is why not.
   */
  finish(reportsDir: string): boolean {
    this.childEnded = true;
    const written = !existsSync(this.stagingDir);
    const resultsFailure = this.commitResults();
    // Before the staging directories go: on a full disk, they hold what space was left.
    this.writeFailure = written
      ? resultsFailure
      : writeFailureAfter(writeFailureFile(this.stateDir), runOutputs(reportsDir, this.resultsDir));
    this.outcome = written ? outcomeIn(outcomeFile(this.stateDir)) : undefined;
    this.removeTemporaryFiles();
    const recorded = !written
      ? undefined
      : this.outcome !== undefined
        ? this.outcome.interrupted
        : recordedInterruption(reportsDir);
    const signal = this.signal ?? SIGNALS.find((s) => s === recorded?.signal);
    if (recorded !== undefined || this.signal !== undefined) {
      say(
        !written
          ? `interrupted by ${this.signal}: no report was written; the previous reports are left as they were`
          : recorded !== undefined
            ? `interrupted${signal ? ` by ${signal}` : ''} (${recorded.reason}): the partial report in ${reportsDir} says what ran and what was restored`
            : `${this.signal} came as the run ended: its report in ${reportsDir} is complete`,
      );
    }
    if (signal !== undefined) process.exit(signalStatus(signal));
    return written;
  }
}

/** The interruption the run's record holds, if any, when the reporter handed on no outcome. */
function recordedInterruption(reportsDir: string): { signal: string | null; reason: string } | undefined {
  try {
    const record = JSON.parse(readFileSync(join(reportsDir, RECORD_FILE), 'utf8')) as {
      interrupted?: { signal: string | null; reason: string };
    };
    return record.interrupted;
  } catch {
    return undefined;
  }
}
