/**
 * The configuration resolved once for a run (run/resolve.ts), handed down to every Playwright
 * process of the run (the runner, global setup, the workers, the reporter) as one JSON value in
 * CONFORMANCE_RESOLVED_CONFIG, in place of every variable it was resolved from: the processes read
 * that value and nothing else.
 */
import type { EmbeddedTarget } from '../config/config.ts';
import type { Env } from '../config/error.ts';
import { invocationDirectory, isConfigVariable } from '../config/sources.ts';
import { resolveRun, type ResolvedRun } from './resolve.ts';

/**
 * The URL of the embedded reference server the CLI started beside Playwright's runner (run
 * plumbing, not configuration): global setup uses it rather than starting one of its own.
 */
export const EMBEDDED_SERVER_VARIABLE = 'CONFORMANCE_EMBEDDED_SERVER';

/** The environment variable holding the resolved configuration (JSON) for the Playwright processes. */
export const RESOLVED_VARIABLE = 'CONFORMANCE_RESOLVED_CONFIG';

export function encodeRun(run: ResolvedRun): string {
  return JSON.stringify(run);
}

/** The resolved configuration handed down in `env`, or undefined if there is none. */
export function decodeRun(env: Env = process.env): ResolvedRun | undefined {
  const text = env[RESOLVED_VARIABLE];
  if (text === undefined || text === '') return undefined;
  let run: ResolvedRun;
  try {
    run = JSON.parse(text) as ResolvedRun;
  } catch {
    throw new Error(`${RESOLVED_VARIABLE} does not hold a resolved configuration (not JSON)`);
  }
  if (
    typeof run !== 'object' ||
    run === null ||
    typeof run.dir !== 'string' ||
    typeof run.config !== 'object'
  )
    throw new Error(`${RESOLVED_VARIABLE} does not hold a resolved configuration`);
  return run;
}

/** The resolved configuration of this process; it must have been handed down. */
export function resolvedRun(env: Env = process.env): ResolvedRun {
  const run = decodeRun(env);
  if (run === undefined)
    throw new Error(`${RESOLVED_VARIABLE} is not set: run the suite through npm run conformance`);
  return run;
}

/** Hands `run` down to this process's children (global setup, workers, the reporter). */
export function handDown(run: ResolvedRun, env: NodeJS.ProcessEnv = process.env): void {
  env[RESOLVED_VARIABLE] = encodeRun(run);
}

/**
 * The environment of a Playwright process: `env` without any configuration variable, with the
 * resolved configuration.
 */
export function playwrightEnv(run: ResolvedRun, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const name of Object.keys(out)) if (isConfigVariable(name)) delete out[name];
  out[RESOLVED_VARIABLE] = encodeRun(run);
  return out;
}

/**
 * For the Playwright configuration: the configuration handed down (by the CLI, or by the first
 * load of the configuration in this run), or, when there is none (`npm run conformance:shard`
 * runs Playwright directly), the configuration resolved here, once, and handed down.
 */
export function resolveOnce(embedded: EmbeddedTarget, env: NodeJS.ProcessEnv = process.env): ResolvedRun {
  const given = decodeRun(env);
  if (given !== undefined) return given;
  const run = resolveRun(env, invocationDirectory(env), embedded, { choosesTarget: true });
  for (const name of Object.keys(env)) if (isConfigVariable(name)) delete env[name];
  handDown(run, env);
  return run;
}
