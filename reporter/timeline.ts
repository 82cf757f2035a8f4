/**
 * The timeline of a run, for the record's `durations` and `npm run bench`: when the process
 * started, and how long after it the configuration was read, the reachability check began and
 * ended, Playwright's runner was ready, the first request left, the last one came back and the
 * record was built. Each mark is set where it happens: the CLI (bin/conformance.ts) sets the
 * first ones and hands them down in CONFORMANCE_TIMELINE; global setup adds the runner's, in the
 * runner's environment, where the conformance reporter reads them; the requests' come from the
 * exchanges. Without the CLI (a run of Playwright alone) the runner's own start is the start.
 *
 * What happens after the record is built (the reports written, the exit) cannot be in it:
 * `npm run bench` measures those from outside.
 */
import type { Env } from '../config/error.ts';

/** The environment variable holding the marks set so far (run plumbing, not configuration). */
export const TIMELINE_ENV = 'CONFORMANCE_TIMELINE';

/** The marks a process can set, in the order they happen; each is epoch milliseconds. */
export const MARKS = ['configurationRead', 'preflightStart', 'preflightEnd', 'runnerReady'] as const;
export type Mark = (typeof MARKS)[number];

/** The marks handed down: `processStart` and whichever of MARKS were set (epoch milliseconds). */
export type Marks = { processStart: number } & Partial<Record<Mark, number>>;

/** The record's `durations`: the start as a date, every other mark in milliseconds after it. */
export type Durations = { processStart: string } & Partial<
  Record<Mark | 'firstRequest' | 'lastRequest' | 'recordBuilt', number>
>;

/** The marks in `env`, or undefined when none were handed down (or they are not the CLI's). */
export function marksIn(env: Env): Marks | undefined {
  const text = env[TIMELINE_ENV];
  if (text === undefined || text === '') return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    const start = (value as { processStart?: unknown }).processStart;
    if (typeof start !== 'number' || !Number.isFinite(start)) return undefined;
    const marks: Marks = { processStart: start };
    for (const name of MARKS) {
      const at: unknown = Object.hasOwn(value, name) ? (value as Record<string, unknown>)[name] : undefined;
      if (typeof at === 'number' && Number.isFinite(at)) marks[name] = at;
    }
    return marks;
  } catch {
    return undefined;
  }
}

/** Starts this process's timeline in `env`, whatever marks it was handed. */
export function startTimeline(env: Env, processStart: number = performance.timeOrigin): void {
  env[TIMELINE_ENV] = JSON.stringify({ processStart });
}

/**
 * Sets `name` at `at` in `env`'s marks (handed down to the processes this one starts after),
 * starting them at `processStart` when none were handed down. Returns the marks.
 */
export function mark(
  env: Env,
  name: Mark,
  at: number = Date.now(),
  processStart: number = performance.timeOrigin,
): Marks {
  const marks = marksIn(env) ?? { processStart };
  marks[name] = at;
  env[TIMELINE_ENV] = JSON.stringify(marks);
  return marks;
}

/**
 * The record's `durations` from the marks, the exchanges' times (epoch milliseconds: when each
 * started and how long it took) and when the record was built.
 */
export function durationsOf(
  marks: Marks,
  exchanges: readonly { startedAt: number; durationMs: number }[],
  recordBuilt: number,
): Durations {
  const since = (at: number): number => Math.max(0, Math.round(at - marks.processStart));
  const out: Durations = { processStart: new Date(marks.processStart).toISOString() };
  for (const name of MARKS) {
    const at = marks[name];
    if (at !== undefined) out[name] = since(at);
  }
  if (exchanges.length > 0) {
    let first = Number.POSITIVE_INFINITY;
    let last = Number.NEGATIVE_INFINITY;
    for (const ex of exchanges) {
      first = Math.min(first, ex.startedAt);
      last = Math.max(last, ex.startedAt + ex.durationMs);
    }
    out.firstRequest = since(first);
    out.lastRequest = since(last);
  }
  out.recordBuilt = since(recordBuilt);
  return out;
}
