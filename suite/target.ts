/**
 * The target of a conformance run, as the configuration resolved once for the run holds it
 * (run/resolve.ts; global setup filled in the embedded server's URL and the run's shared
 * state), and the session every check of this worker sends through: the run's limits, its
 * shared request ledger and its deadline. Nothing here reads .env or a raw variable.
 *
 * The session stops sending (but for the restore) once the run is interrupted: by the CLI on
 * SIGINT or SIGTERM, by the CLI being gone (CONFORMANCE_CLI_PID, run state rather than
 * configuration), or by a signal reaching this worker. Playwright's workers ignore SIGINT and
 * SIGTERM and stop when the runner tells them to (on its own SIGINT) or when it is gone,
 * abandoning the running test: these listeners make a signal to a worker stop the run, and
 * define.ts stops it, and waits for the restore, when Playwright abandons a test whose probe is
 * still running.
 */
import { FileBaselines } from '../engine/baseline.ts';
import { RunContext } from '../engine/run.ts';
import type { TargetConfig } from '../engine/types.ts';
import { FileLedger, MemoryLedger } from '../transport/ledger.ts';
import { TargetSession } from '../transport/session.ts';
import { resolvedRun } from '../run/hand-down.ts';

export function targetFromEnv(env: Record<string, string | undefined> = process.env): TargetConfig {
  const { config, replayCase } = resolvedRun(env);
  if (config.baseURL === undefined)
    throw new Error(
      'no target URL in the resolved configuration: run through global setup (npm run conformance)',
    );
  return {
    baseURL: config.baseURL,
    token: config.token,
    counterpartyRef: config.counterpartyRef,
    writableRef: config.writableRef,
    ...(config.writableRefs ? { writableRefs: config.writableRefs } : {}),
    accountFixture: config.accountFixture,
    ...(config.accountFixtures ? { accountFixtures: config.accountFixtures } : {}),
    accountBudget: config.accountBudget,
    ...(config.itemFixtures ? { itemFixtures: config.itemFixtures } : {}),
    seed: config.seed,
    runs: config.runs,
    extraHeaders: config.extraHeaders,
    ...(replayCase ? { replayCase } : {}),
    settleMs: config.settleMs,
  };
}

let session: TargetSession | undefined;
let context: RunContext | undefined;

/** This worker's run context: its session, and the log of its exchanges with their judge. */
export function runContextFromEnv(env: Record<string, string | undefined> = process.env): RunContext {
  const target = targetFromEnv(env);
  const { state } = resolvedRun(env);
  // The writable counterparties' original state lives beside the ledger, for every process.
  context ??= new RunContext(
    sessionFromEnv(env),
    target.baseURL,
    target.settleMs,
    state ? new FileBaselines(state.dir) : undefined,
    // The workers share the run's budget of kept bodies: what they attach stays within it.
    1 / Math.max(1, state?.processes ?? 1),
  );
  return context;
}

/** This worker's session, created once: every check of the worker shares its limits and ledger. */
export function sessionFromEnv(env: Record<string, string | undefined> = process.env): TargetSession {
  if (session) return session;
  const run = resolvedRun(env);
  const supervisorPid = Number(env.CONFORMANCE_CLI_PID);
  const created = new TargetSession({
    politeness: run.config.politeness,
    ledger: run.state ? new FileLedger(run.state.dir) : new MemoryLedger(),
    processes: run.state?.processes ?? 1,
    ...(run.state && run.state.deadline > 0 ? { deadline: run.state.deadline } : {}),
    ...(Number.isInteger(supervisorPid) && supervisorPid > 0 ? { supervisorPid } : {}),
  });
  session = created;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => created.interrupt({ signal, reason: `${signal} reached a Playwright worker` }));
  }
  return created;
}
