/**
 * The live progress of a run on a terminal (reporter/live.ts), carried from the Playwright
 * workers, where probes run, to the reporter, which prints: each worker keeps the progress of its
 * running probe (requests sent, findings so far) in a file of the run-state directory, rewritten
 * twice a second, and the reporter reads them as often. Files, as the ledger beside them: the
 * workers and the reporter are separate processes, and Playwright's own channels from a worker
 * (its output, its steps) would write every update into Playwright's report as well.
 * Only when the run's output is a terminal (LIVE_PROGRESS_ENV): otherwise nothing is written.
 */
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunContext } from '../engine/run.ts';
import { LIVE_PROGRESS_ENV, type ProbeProgress } from '../reporter/live.ts';
import { processAlive } from '../transport/stop.ts';

const PREFIX = 'live-';

/** How often a worker writes its progress, and the reporter reads it. */
export const LIVE_INTERVAL_MS = 500;

/** Whether the run's output is a terminal, and its width (LIVE_PROGRESS_ENV). */
export function liveTerminal(env: Record<string, string | undefined> = process.env): {
  tty: boolean;
  columns: number;
} {
  const value = env[LIVE_PROGRESS_ENV];
  return { tty: value !== undefined && value !== '', columns: Number(value) || 0 };
}

/** The time a worker's progress is kept by: the real one, or a test's fake clock. */
export interface ProgressClock {
  now(): number;
  /** Calls `fn` every `ms` until the returned function is called. */
  every(fn: () => void, ms: number): () => void;
}

const REAL_CLOCK: ProgressClock = {
  now: Date.now,
  every: (fn, ms) => {
    const timer = setInterval(fn, ms);
    // The worker's progress never holds the worker open.
    timer.unref();
    return () => clearInterval(timer);
  },
};

/**
 * Keeps the progress of `probe`, which `run` runs now, in the run-state directory `dir` until the
 * returned function is called; nothing when the output is no terminal or there is no directory.
 */
export function keepProgress(
  dir: string | undefined,
  probe: string,
  run: Pick<RunContext, 'log' | 'running'>,
  env: Record<string, string | undefined> = process.env,
  clock: ProgressClock = REAL_CLOCK,
): () => void {
  if (dir === undefined || !liveTerminal(env).tty) return () => {};
  const file = join(dir, `${PREFIX}${process.pid}.json`);
  const startedAt = clock.now();
  const first = run.log.size;
  const write = (): void => {
    const progress: ProbeProgress = {
      probe,
      startedAt,
      requests: run.log.size - first,
      findings: run.running?.findings.length ?? 0,
    };
    // Written whole, then renamed over: a reader never sees half of it.
    try {
      writeFileSync(`${file}.tmp`, JSON.stringify(progress));
      renameSync(`${file}.tmp`, file);
    } catch {
      // The run-state directory gone (the run ending): there is nothing left to show.
    }
  };
  write();
  const stop = clock.every(write, LIVE_INTERVAL_MS);
  return () => {
    stop();
    rmSync(file, { force: true });
  };
}

/**
 * The progress of the probes running now, as the workers keep it in `dir`; the file of a worker
 * that is gone (killed mid-probe, it removed nothing) is not a probe running.
 */
export function readProgress(
  dir: string | undefined,
  alive: (pid: number) => boolean = processAlive,
): ProbeProgress[] {
  if (dir === undefined) return [];
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.startsWith(PREFIX) && n.endsWith('.json'));
  } catch {
    return [];
  }
  const out: ProbeProgress[] = [];
  for (const name of names) {
    if (!alive(Number(name.slice(PREFIX.length, -'.json'.length)))) continue;
    try {
      out.push(JSON.parse(readFileSync(join(dir, name), 'utf8')) as ProbeProgress);
    } catch {
      // Removed as its probe ended, between the listing and the read.
    }
  }
  return out;
}
