/**
 * The target of a conformance run, as the configuration resolved once for the run holds it
 * (config/resolve.ts; global setup filled in the embedded server's URL and the run's shared
 * state), and the session every check of this worker sends through: the run's limits, its
 * shared request ledger and its deadline. Nothing here reads .env or a raw variable.
 */
import { RunContext } from '../../engine/run.ts';
import type { TargetConfig } from '../../engine/types.ts';
import { FileLedger, MemoryLedger, TargetSession } from '../../transport/session.ts';
import { resolvedRun } from '../../config/resolve.ts';

export function targetFromEnv(env: Record<string, string | undefined> = process.env): TargetConfig {
  const { config } = resolvedRun(env);
  if (config.baseURL === undefined)
    throw new Error(
      'no target URL in the resolved configuration: run through global setup (npm run conformance)',
    );
  return {
    baseURL: config.baseURL,
    token: config.token,
    counterpartyRef: config.counterpartyRef,
    writableRef: config.writableRef,
    accountFixture: config.accountFixture,
    accountBudget: config.accountBudget,
    seed: config.seed,
    runs: config.runs,
  };
}

let session: TargetSession | undefined;
let context: RunContext | undefined;

/** This worker's run context: its session, and the log of its exchanges with their judge. */
export function runContextFromEnv(env: Record<string, string | undefined> = process.env): RunContext {
  context ??= new RunContext(sessionFromEnv(env), targetFromEnv(env).baseURL);
  return context;
}

/** This worker's session, created once: every check of the worker shares its limits and ledger. */
export function sessionFromEnv(env: Record<string, string | undefined> = process.env): TargetSession {
  if (session) return session;
  const run = resolvedRun(env);
  session = new TargetSession({
    politeness: run.config.politeness,
    ledger: run.state ? new FileLedger(run.state.dir) : new MemoryLedger(),
    processes: run.state?.processes ?? 1,
    ...(run.state && run.state.deadline > 0 ? { deadline: run.state.deadline } : {}),
  });
  return session;
}
