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
import { REPORT_FILES } from '../reporter/files.ts';
import { createStaging } from '../reporter/report-set.ts';
import { requestStop } from '../transport/stop.ts';

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
  private child: ChildProcess | undefined;
  private childEnded = false;
  private signal: StopSignal | undefined;
  private signalledAt = 0;
  private readonly onSignal = (signal: StopSignal): void => this.handle(signal);

  constructor(
    reportsDir: string,
    /** Milliseconds, monotonic: when signals came (injected for the self-tests). */
    private readonly now: () => number = () => performance.now(),
  ) {
    this.stateDir = mkdtempSync(join(tmpdir(), 'payflow-run-'));
    this.stagingDir = createStaging(reportsDir);
    for (const signal of SIGNALS) process.on(signal, this.onSignal);
    // However the CLI ends (an unexpected error included), its temporary files go, and a
    // Playwright still running is told to stop: SIGTERM, which its workers turn into a stop of
    // the run (tests/conformance/target.ts), restoring what the running check changed.
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
      CONFORMANCE_REPORTS_STAGING: this.stagingDir,
    };
  }

  /** Playwright's runner, spawned detached: its pid is its process group's. */
  watch(child: ChildProcess): void {
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
    rmSync(this.stagingDir, { recursive: true, force: true });
  }

  /**
   * After Playwright ended: removes the temporary files; exits 130/143 if the run was
   * interrupted. Returns whether a new set of reports was written (the staging directory is
   * gone once its reports replaced the previous set).
   */
  finish(reportsDir: string): boolean {
    this.childEnded = true;
    const written = !existsSync(this.stagingDir);
    this.removeTemporaryFiles();
    if (this.signal !== undefined) {
      let partial = false;
      try {
        partial = 'interrupted' in JSON.parse(readFileSync(join(reportsDir, REPORT_FILES.json), 'utf8'));
      } catch {
        // No record: said below.
      }
      say(
        !written
          ? `interrupted by ${this.signal}: no report was written; the previous reports are left as they were`
          : partial
            ? `interrupted by ${this.signal}: the partial report in ${reportsDir} says what ran and what was restored`
            : `${this.signal} came as the run ended: its report in ${reportsDir} is complete`,
      );
      process.exit(signalStatus(this.signal));
    }
    return written;
  }
}
