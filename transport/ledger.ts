/**
 * The ledger a run's processes share (the Playwright workers): the run's request count, the run
 * of consecutive failures, why the run stopped sending, the pause the target asked for, the
 * interruption, the rate learned from the target, who is sending now, and each session's
 * politeness report. MemoryLedger serves one process; FileLedger keeps it in the run-state
 * directory, for every process of the run. The session (transport/session.ts) reads and writes
 * it for every request.
 */
import {
  closeSync,
  existsSync,
  fstatSync,
  ftruncateSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { mergePolitenessReports, type LearnedRate, type PolitenessReport } from './limiter.ts';
import { readStop, requestStop, type Interruption } from './stop.ts';

/** The run-wide counts. `record` and `failure` return the count including the one just added. */
export interface Ledger {
  record(): number;
  count(): number;
  failure(): number;
  success(): void;
  /** Why the run stopped sending, once it did (the first reason wins). */
  stopped(): string | undefined;
  stop(reason: string): void;
  /** Until when (epoch ms) the target asked the run to send nothing (Retry-After); 0: no pause. */
  pausedUntil(): number;
  pause(until: number): void;
  /** Whether the run was interrupted, and why (the first interruption wins). */
  interrupted(): Interruption | undefined;
  interrupt(interruption: Interruption): void;
  /** The run's rate learned from the target (a 429, a RateLimit quota); undefined: none. */
  learnedRate(): LearnedRate | undefined;
  learnRate(rate: LearnedRate): void;
  /** Keeps a session's politeness report (`key` unique in the run), for the end of the run. */
  keepReport(key: string, report: PolitenessReport): void;
  /**
   * Says that this process is sending (epoch ms `now`), and returns how many processes of the run
   * sent within the last ACTIVE_WINDOW_MS, this one included: the processes a learned rate is
   * shared among, so that a worker left alone at the end of a run gets all of it.
   */
  active(now: number): number;
  /**
   * How many processes of the run may still send (epoch ms `now`): the groups of checks not yet
   * ended, each of which runs in one process at a time (a write lane, or a check on its own), as
   * the runner counts them (suite/work-groups.ts); undefined: not known, every process may. Only
   * ever falls: a check that ended does not start again.
   */
  sending(now: number): number | undefined;
  /**
   * The requests in flight the other sessions of the run had last allowed themselves (their kept
   * reports' finalConcurrency, `key` being this session's): the slots a session left alone takes
   * over. 0 when none is known.
   */
  othersInFlight(key: string): number;
}

/** A process that sent within this long counts as sharing the run's learned rate. */
export const ACTIVE_WINDOW_MS = 1000;

/**
 * Where global teardown hands the run's pace (a PolitenessReport, JSON, from the ledger) to the
 * reporter.
 */
export const PACE_ENV = 'CONFORMANCE_PACE_REPORT';

/** How often a process of a FileLedger says it is sending, and reads who else is. */
const ACTIVE_BEAT_MS = 200;

/** How often a process reads the run's learned rate from a FileLedger. */
const RATE_READ_MS = 100;

/** The file of a FileLedger's directory that says how many processes may still send (Ledger.sending). */
const SENDING_FILE = 'sending';

/** The file name prefix of the politeness reports a FileLedger keeps, one per session. */
const REPORT_PREFIX = 'politeness-';

/** The politeness reports the sessions of a run kept in `dir` (FileLedger.keepReport), by file name. */
function keptReports(dir: string): Map<string, PolitenessReport> {
  const reports = new Map<string, PolitenessReport>();
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.startsWith(REPORT_PREFIX) && n.endsWith('.json'));
  } catch {
    return reports; // The run's directory is gone.
  }
  for (const name of names) {
    try {
      reports.set(name, JSON.parse(readFileSync(join(dir, name), 'utf8')) as PolitenessReport);
    } catch {
      // A report being written as the run ends: the others still count.
    }
  }
  return reports;
}

/** A ledger for one process (the gallery, the benchmark). */
export class MemoryLedger implements Ledger {
  private requests = 0;
  private failures = 0;
  private reason: string | undefined;
  private until = 0;
  private interruption: Interruption | undefined;
  private rate: LearnedRate | undefined;
  learnedRate(): LearnedRate | undefined {
    return this.rate;
  }
  learnRate(rate: LearnedRate): void {
    this.rate = rate;
  }
  active(): number {
    return 1;
  }
  sending(): number | undefined {
    return undefined;
  }
  othersInFlight(): number {
    return 0;
  }
  keepReport(): void {
    // One process: the session's own report is all there is.
  }
  record(): number {
    return ++this.requests;
  }
  interrupted(): Interruption | undefined {
    return this.interruption;
  }
  interrupt(interruption: Interruption): void {
    this.interruption ??= interruption;
  }
  pausedUntil(): number {
    return this.until;
  }
  pause(until: number): void {
    this.until = Math.max(this.until, until);
  }
  count(): number {
    return this.requests;
  }
  failure(): number {
    return ++this.failures;
  }
  success(): void {
    this.failures = 0;
  }
  stopped(): string | undefined {
    return this.reason;
  }
  stop(reason: string): void {
    this.reason ??= reason;
  }
}

/**
 * A ledger in a directory shared by the processes of a run. Counts are file sizes: one byte is
 * appended (O_APPEND, atomic) per request or failure, so no lock is needed; the stop reason is a
 * file created once. It survives a Playwright worker being replaced after a failed test.
 */
export class FileLedger implements Ledger {
  private readonly requestsFd: number;
  private readonly failuresFd: number;
  private readonly stopFile: string;
  private readonly pauseFile: string;
  private readonly rateFile: string;
  private reason: string | undefined;
  private interruption: Interruption | undefined;
  private rate: { value: LearnedRate | undefined; readAt: number } = { value: undefined, readAt: -Infinity };
  private beat = { at: -Infinity, active: 1 };
  private left: { at: number; sending: number | undefined } = { at: -Infinity, sending: undefined };

  constructor(readonly dir: string) {
    this.requestsFd = openSync(join(dir, 'requests'), 'a');
    this.failuresFd = openSync(join(dir, 'failures'), 'a');
    this.stopFile = join(dir, 'stopped');
    this.pauseFile = join(dir, 'paused-until');
    this.rateFile = join(dir, 'learned-rate');
  }

  /**
   * The politeness of a run whose processes kept their reports in `dir`, summed: the effective
   * rate over the run's sending time, the requests in flight reached (added up, within the run's
   * cap `cap`), every back-off.
   */
  static politenessReport(dir: string, cap?: number): PolitenessReport | undefined {
    const reports = [...keptReports(dir).values()];
    return reports.length ? mergePolitenessReports(reports, cap) : undefined;
  }

  /** Read at most every RATE_READ_MS: a learned rate changes rarely, and every request asks. */
  learnedRate(): LearnedRate | undefined {
    const now = performance.now();
    if (now - this.rate.readAt < RATE_READ_MS) return this.rate.value;
    let value: LearnedRate | undefined;
    try {
      value = JSON.parse(readFileSync(this.rateFile, 'utf8')) as LearnedRate;
    } catch {
      value = undefined;
    }
    this.rate = { value, readAt: now };
    return value;
  }
  learnRate(rate: LearnedRate): void {
    // Written whole and renamed over: a reader sees the old rate or the new, never half of one.
    const temporary = `${this.rateFile}.${process.pid}`;
    writeFileSync(temporary, JSON.stringify(rate));
    renameSync(temporary, this.rateFile);
    this.rate = { value: rate, readAt: performance.now() };
  }
  /**
   * Each process keeps a file `active-<pid>` holding when it last sent, written and read at most
   * every ACTIVE_BEAT_MS (a learned rate is slow: at 40 requests/s a beat is every 8th request).
   */
  active(now: number): number {
    if (now - this.beat.at < ACTIVE_BEAT_MS) return this.beat.active;
    let active = 1;
    try {
      writeFileSync(join(this.dir, `active-${process.pid}`), String(now));
      for (const name of readdirSync(this.dir)) {
        if (!name.startsWith('active-') || name === `active-${process.pid}`) continue;
        const at = Number(readFileSync(join(this.dir, name), 'utf8'));
        if (now - at < ACTIVE_WINDOW_MS) active++;
      }
    } catch {
      // The run's directory is gone, or a file was being written: this beat counts this process.
    }
    this.beat = { at: now, active };
    return active;
  }
  /**
   * Written by the runner's reporter as groups of checks end (FileLedger.keepSending), read at most
   * every ACTIVE_BEAT_MS: a share that grows a beat late costs a beat of the larger share, no more.
   */
  sending(now: number): number | undefined {
    if (now - this.left.at < ACTIVE_BEAT_MS) return this.left.sending;
    let sending = this.left.sending;
    try {
      const n = Number(readFileSync(join(this.dir, SENDING_FILE), 'utf8'));
      if (Number.isInteger(n) && n >= 1) sending = sending === undefined ? n : Math.min(sending, n);
    } catch {
      // Not written yet (every process may send), or the run's directory is gone.
    }
    this.left = { at: now, sending };
    return sending;
  }
  /** Says that at most `n` processes of the run whose state is in `dir` may still send (Ledger.sending). */
  static keepSending(dir: string, n: number): void {
    const file = join(dir, SENDING_FILE);
    // Written whole and renamed over: a reader sees the old count or the new, never half of one.
    const temporary = `${file}.${process.pid}`;
    try {
      writeFileSync(temporary, String(n));
      renameSync(temporary, file);
    } catch {
      // The run's directory is gone (the run ended): nobody is left to read it.
    }
  }
  othersInFlight(key: string): number {
    let n = 0;
    for (const [name, report] of keptReports(this.dir)) {
      if (name !== `${REPORT_PREFIX}${key}.json` && Number.isFinite(report.finalConcurrency))
        n += Math.max(0, report.finalConcurrency);
    }
    return n;
  }
  keepReport(key: string, report: PolitenessReport): void {
    try {
      writeFileSync(join(this.dir, `${REPORT_PREFIX}${key}.json`), JSON.stringify(report));
    } catch {
      // The run's directory is gone (the run ended): nothing left to report to.
    }
  }

  /** The requests a run recorded in `dir` (for the end of the run). */
  static count(dir: string): number {
    try {
      return readFileSync(join(dir, 'requests')).length;
    } catch {
      return 0;
    }
  }

  record(): number {
    writeSync(this.requestsFd, '.');
    return fstatSync(this.requestsFd).size;
  }
  count(): number {
    return fstatSync(this.requestsFd).size;
  }
  failure(): number {
    writeSync(this.failuresFd, '.');
    return fstatSync(this.failuresFd).size;
  }
  success(): void {
    if (fstatSync(this.failuresFd).size > 0) ftruncateSync(this.failuresFd, 0);
  }
  stopped(): string | undefined {
    if (this.reason === undefined && existsSync(this.stopFile))
      this.reason = readFileSync(this.stopFile, 'utf8');
    return this.reason;
  }
  stop(reason: string): void {
    try {
      writeFileSync(this.stopFile, reason, { flag: 'wx' });
    } catch {
      // Another process stopped the run first; its reason stands.
    }
  }
  pausedUntil(): number {
    if (!existsSync(this.pauseFile)) return 0;
    try {
      return Number(readFileSync(this.pauseFile, 'utf8')) || 0;
    } catch {
      return 0;
    }
  }
  pause(until: number): void {
    if (until > this.pausedUntil()) writeFileSync(this.pauseFile, String(until));
  }
  interrupted(): Interruption | undefined {
    this.interruption ??= readStop(this.dir);
    return this.interruption;
  }
  interrupt(interruption: Interruption): void {
    requestStop(this.dir, interruption);
    this.interruption ??= readStop(this.dir) ?? interruption;
  }
  close(): void {
    closeSync(this.requestsFd);
    closeSync(this.failuresFd);
  }
}
