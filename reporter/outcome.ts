/**
 * What the conformance reporter, in Playwright's runner, tells the command that started it
 * (bin/conformance.ts, bin/merge-shards.ts) once the reports are in place: the gate's verdict, the
 * interruption the record holds, and the reports that could not be written. The command's exit
 * status comes from it rather than from reading conformance.json back, which `--report` may leave
 * unwritten. Handed over in a file the command names (OUTCOME_ENV), created by the reporter
 * exclusively, as the line of a full disk is (reporter/disk-errors.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { RecordVerdict } from './gate.ts';
import type { ConformanceRecord } from './record.ts';
import { processAlive } from '../transport/stop.ts';

/** The file a command names for the reporter to leave the run's outcome in. */
export const OUTCOME_ENV = 'CONFORMANCE_OUTCOME';

export interface RunOutcome {
  verdict: RecordVerdict;
  /** The interruption the record holds, if any. */
  interrupted?: { signal: string | null; reason: string };
  /** The one line saying which chosen reports could not be written (write-reports.ts unwrittenLine). */
  unwritten?: string;
}

/** The outcome of a run with this record, and the line of the reports it could not write. */
export function outcomeOf(record: ConformanceRecord, unwritten?: string): RunOutcome {
  return {
    verdict: record.verdict,
    ...(record.interrupted
      ? { interrupted: { signal: record.interrupted.signal, reason: record.interrupted.reason } }
      : {}),
    ...(unwritten !== undefined ? { unwritten } : {}),
  };
}

/** Where a command with the temporary base name `base` has the outcome left (beside its state directory). */
export function outcomeFile(base: string): string {
  return `${base}.outcome`;
}

/**
 * Hands `outcome` on to the command that runs this process, when one named a file for it and is
 * still there to read it (a command killed outright could not remove the file: CONFORMANCE_CLI_PID
 * names a run's). Returns whether it was handed on.
 */
export function handOnOutcome(outcome: RunOutcome, env: NodeJS.ProcessEnv = process.env): boolean {
  const file = env[OUTCOME_ENV];
  if (!file) return false;
  const command = Number(env.CONFORMANCE_CLI_PID);
  if (Number.isInteger(command) && command > 0 && !processAlive(command)) return false;
  try {
    // Exclusively: a file (or a link) already there is not this run's.
    writeFileSync(file, JSON.stringify(outcome), { flag: 'wx', mode: 0o600 });
    return true;
  } catch {
    // The command reads conformance.json instead, when it was written.
    return false;
  }
}

/** The outcome left in `file`, if any. */
export function outcomeIn(file: string): RunOutcome | undefined {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as RunOutcome | null;
    return typeof value === 'object' && value !== null && typeof value.verdict === 'string'
      ? value
      : undefined;
  } catch {
    return undefined;
  }
}
