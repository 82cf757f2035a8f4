/**
 * The run-wide stop state of an interrupted run: a file in the run-state directory (the
 * `payflow-run-*` directory every process of a run shares, CONFORMANCE_RUN_STATE) that says the
 * run was interrupted and why. The CLI writes it when it gets SIGINT or SIGTERM; a worker writes
 * it when a signal reaches it, when Playwright abandons the test whose probe is still sending, or
 * when it finds the CLI that started the run gone. Every process reads it before each request
 * (transport/session.ts): once it exists, nothing more is sent but the housekeeping that puts the
 * writable counterparty back.
 */
import { existsSync, linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Why a run was interrupted. */
export interface Interruption {
  /** The signal that interrupted it (SIGINT, SIGTERM), or null when no signal did (the CLI vanished). */
  signal: string | null;
  /** One line: who stopped the run and why. */
  reason: string;
}

/** The name of the stop file in the run-state directory. */
export const INTERRUPT_FILE = 'interrupted';

/**
 * Records the interruption in `dir`, unless one is recorded already (the first one stands).
 * False when it could not be written (the directory is gone: the run has ended).
 */
export function requestStop(dir: string, interruption: Interruption): boolean {
  // Written aside, then linked into place: a reader sees the whole file or none, and link fails
  // when another process recorded its interruption first.
  const draft = join(dir, `${INTERRUPT_FILE}.${process.pid}.${Date.now()}`);
  try {
    writeFileSync(draft, JSON.stringify(interruption));
    linkSync(draft, join(dir, INTERRUPT_FILE));
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EEXIST';
  } finally {
    rmSync(draft, { force: true });
  }
}

/** The interruption recorded in `dir`, if any. */
export function readStop(dir: string): Interruption | undefined {
  const file = join(dir, INTERRUPT_FILE);
  if (!existsSync(file)) return undefined;
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<Interruption>;
    return { signal: parsed.signal ?? null, reason: parsed.reason ?? 'interrupted' };
  } catch {
    return { signal: null, reason: 'interrupted' };
  }
}

/**
 * Whether the process `pid` is still running. A process that has exited but is not yet reaped
 * by its parent (a zombie: tsx reaps bin/conformance.ts when it gets to it) still answers
 * kill(pid, 0), so where /proc shows its state, a zombie counts as gone.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists, under another user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return true; // No /proc here (or it went meanwhile: the next look says so).
  }
  // "pid (comm) state ...": comm may hold spaces and parentheses, so the state follows the last ')'.
  return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}

/**
 * The interruption as the environment carries it from global teardown (which removes the
 * run-state directory) to the conformance reporter in the same process.
 */
export const INTERRUPTED_ENV = 'CONFORMANCE_INTERRUPTED';

export function interruptionFromEnv(env: Record<string, string | undefined>): Interruption | undefined {
  const fromDir = env.CONFORMANCE_RUN_STATE ? readStop(env.CONFORMANCE_RUN_STATE) : undefined;
  if (fromDir) return fromDir;
  const text = env[INTERRUPTED_ENV];
  if (!text) return undefined;
  try {
    const parsed = JSON.parse(text) as Partial<Interruption>;
    return { signal: parsed.signal ?? null, reason: parsed.reason ?? 'interrupted' };
  } catch {
    return undefined;
  }
}
