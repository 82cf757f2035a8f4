/**
 * The timeline of one run of the CLI, as `npm run bench` prints it: the record's `durations`
 * (reporter/timeline.ts), each step from when the benchmark spawned the command, with what only
 * the outside sees: the last report file written (its modification time) and the exit.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Durations } from '../reporter/timeline.ts';

/** The steps in the order they happen, as the row names them. */
const STEPS: readonly [keyof Durations, string][] = [
  ['configurationRead', 'configuration read'],
  ['preflightStart', 'preflight start'],
  ['preflightEnd', 'preflight end'],
  ['runnerReady', 'runner ready'],
  ['firstRequest', 'first request'],
  ['lastRequest', 'last request'],
  ['recordBuilt', 'record built'],
];

/** The latest modification time of the files in `dir` and its folders (epoch ms), if any. */
function lastWritten(dir: string): number | undefined {
  let last: number | undefined;
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
      if (!entry.isFile()) continue;
      const at = statSync(join(entry.parentPath, entry.name)).mtimeMs;
      last = Math.max(last ?? at, at);
    }
  } catch {
    return undefined;
  }
  return last;
}

/** The steps of a run in seconds after its spawn, as one line; undefined without `durations`. */
export function timelineText(
  durations: Durations | undefined,
  run: { spawnedAt: number; endedAt: number },
  reportsDir: string,
): string | undefined {
  if (durations === undefined) return undefined;
  const origin = Date.parse(durations.processStart);
  const at = (epoch: number): string => `${((epoch - run.spawnedAt) / 1000).toFixed(2)} s`;
  const parts = [`process start ${at(origin)}`];
  for (const [key, name] of STEPS) {
    const ms = durations[key];
    if (typeof ms === 'number') parts.push(`${name} ${at(origin + ms)}`);
  }
  const written = lastWritten(reportsDir);
  if (written !== undefined) parts.push(`reports written ${at(written)}`);
  parts.push(`exit ${at(run.endedAt)}`);
  return parts.join(', ');
}
