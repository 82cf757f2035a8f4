/**
 * Completes the configuration resolved once for the run (run/resolve.ts) before the workers
 * start: when no API_BASE_URL is configured, puts the URL of the embedded reference server in the
 * configuration (the server the CLI started, else one started here), and fixes the run's shared state (a request ledger shared by the
 * workers, a deadline, the worker count), handed down with the rest. It prints the run's limits,
 * and at the end how many requests the run sent; in a clone it then compiles what runs a probe
 * for the next run's workers (suite/worker-modules.ts).
 *
 * The run-state directory (a `payflow-run-*` directory in the OS temp dir) holds the ledger and
 * the run-wide stop state (transport/stop.ts). bin/conformance.ts creates it, so that it can stop
 * the run on a signal, and passes it in CONFORMANCE_RUN_STATE; run without the CLI, it is created
 * here. Either way it is removed at the end, once the interruption, if any, is handed on to the
 * conformance reporter.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FullConfig } from '@playwright/test';
import {
  deadWriters,
  END_EXCHANGES_ENV,
  END_RESTORE_ENV,
  handedOn,
  RECOVERY_ENV,
} from '../engine/baseline.ts';
import { FileLedger, PACE_ENV } from '../transport/ledger.ts';
import { describePoliteness } from '../config/config.ts';
import { EMBEDDED_SERVER_VARIABLE, handDown, resolvedRun } from '../run/hand-down.ts';
import { INTERRUPTED_ENV, readStop, requestStop } from '../transport/stop.ts';
import { mark } from '../reporter/timeline.ts';
import { CODE_ROOT, COMPILED } from '../config/layout.ts';
import { compileWorkerModules, sourcesDigest } from './worker-modules.ts';
import type { ReferenceServer } from '../servers/reference.ts';

export default async function globalSetup(fullConfig: FullConfig): Promise<() => Promise<void>> {
  mark(process.env, 'runnerReady');
  const run = resolvedRun();
  const config = { ...run.config };
  let server: ReferenceServer | undefined;
  let targetKind = 'configured deployment';
  const started = process.env[EMBEDDED_SERVER_VARIABLE];
  if (config.baseURL === undefined && started) {
    // The CLI started it while this runner loaded (bin/conformance.ts), and stops it.
    config.baseURL = started;
    targetKind = 'embedded reference server';
  } else if (config.baseURL === undefined) {
    // Loaded only for the embedded server: a run against a deployment needs none of it here.
    const { ReferenceServer } = await import('../servers/reference.ts');
    server = new ReferenceServer({ token: config.token });
    config.baseURL = await server.start(0);
    targetKind = 'embedded reference server';
  }
  const politeness = config.politeness;
  // A write run restores its writable counterparties at its end, here (engine/baseline.ts): what
  // sends the restore loads while the workers run, not after them. A read-only run loads none of it.
  const restoring =
    config.writableRef === undefined
      ? undefined
      : Promise.all([import('../transport/session.ts'), import('../probes/recovery.ts')]);
  restoring?.catch(() => {});
  const given = process.env.CONFORMANCE_RUN_STATE;
  const state = given && existsSync(given) ? given : mkdtempSync(join(tmpdir(), 'payflow-run-'));
  if (process.env.CONFORMANCE_CLI_PID) {
    // The CLI reads this process's output; if it is gone, the run still ends (its workers stop
    // sending, and restore) rather than dying on a write to a closed pipe.
    for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
  }
  process.env.CONFORMANCE_RUN_STATE = state;
  // Playwright's runner handles SIGINT (it stops its workers and ends the run 'interrupted', with
  // its reports and this teardown) but dies at once on SIGTERM, leaving no report and this
  // directory behind. A SIGTERM that reaches it (a run without the CLI, or a signal to its
  // process group) is recorded, then handled as SIGINT.
  const onTerm = (): void => {
    requestStop(state, { signal: 'SIGTERM', reason: 'SIGTERM reached the Playwright runner' });
    process.kill(process.pid, 'SIGINT');
  };
  process.on('SIGTERM', onTerm);
  handDown({
    ...run,
    config,
    targetKind,
    state: {
      dir: state,
      deadline: Date.now() + politeness.runTimeoutMs,
      processes: Math.max(1, fullConfig.workers),
    },
  });
  const workers = Math.max(1, fullConfig.workers);
  console.log(
    `Limits: ${describePoliteness(politeness)}; ${workers} worker process${workers === 1 ? '' : 'es'}`,
  );
  return async () => {
    process.off('SIGTERM', onTerm);
    // A write probe whose worker died before its restore (SIGKILL, the OOM killer): the run is
    // interrupted, and the counterparty's details are put back to the run's original. Then what
    // the write probes handed on (engine/baseline.ts): the run's original, restored once. What
    // sends the restores was loaded during a write run (else it loads now).
    if (deadWriters(state).length > 0 || handedOn(state).length > 0) {
      const [
        { TargetSession },
        {
          recoverDeadWriters,
          restoreHandedOn,
          ExchangeLog,
          BodyBudget,
          END_BODY_SHARE,
          endExchangesText,
          restoreLine,
        },
      ] = await (restoring ??
        Promise.all([import('../transport/session.ts'), import('../probes/recovery.ts')]));
      const recovery = new TargetSession({ politeness, ledger: new FileLedger(state), processes: 1 });
      const target = { baseURL: config.baseURL!, token: config.token, extraHeaders: config.extraHeaders };
      // Handed on in the environment: small whatever the target answers (END_BODY_SHARE).
      const log = new ExchangeLog(new BodyBudget(END_BODY_SHARE));
      try {
        const recovered = await recoverDeadWriters(state, target, recovery, log);
        const interrupted = readStop(state) !== undefined;
        const restored = await restoreHandedOn(state, target, recovery, interrupted, log);
        // After a stop, every restore is the housekeeping the interruption reports; else the run's
        // end restore goes to the record on its own.
        const afterStop = [...recovered, ...(interrupted ? restored : [])];
        if (afterStop.length > 0) process.env[RECOVERY_ENV] = JSON.stringify(afterStop);
        if (!interrupted && restored.length > 0) process.env[END_RESTORE_ENV] = JSON.stringify(restored);
        // What they sent, for exchanges.har: the run's traffic, all of it.
        if (log.size > 0) process.env[END_EXCHANGES_ENV] = endExchangesText(log.all, target);
        // A shard (Playwright's blob reporter, not the conformance reporter) has no report of its
        // own, and no blob carries what happens after its last test: the restore is said here.
        if (!conformanceReporter(fullConfig))
          for (const r of [...recovered, ...restored]) console.log(restoreLine(r, target));
      } finally {
        recovery.close();
      }
    }
    const sent = Math.min(FileLedger.count(state), politeness.maxRequests);
    console.log(`Requests sent: ${sent} (at most ${politeness.maxRequests}, CONFORMANCE_MAX_REQUESTS)`);
    const interruption = readStop(state);
    if (interruption) process.env[INTERRUPTED_ENV] = JSON.stringify(interruption);
    // The pace the run kept (every worker's, summed), for the reporter's onEnd, which comes after.
    const pace = FileLedger.politenessReport(state, politeness.concurrency);
    if (pace) process.env[PACE_ENV] = JSON.stringify(pace);
    rmSync(state, { recursive: true, force: true });
    await server?.stop();
    // In a clone: what runs a probe, compiled into Playwright's cache for the next run's workers;
    // not while an interrupted run is ending.
    if (!COMPILED && interruption === undefined)
      await compileWorkerModules(
        () => Promise.all([import('../engine/run.ts'), import('../probes/index.ts'), import('./target.ts')]),
        sourcesDigest(CODE_ROOT),
      );
  };
}

/** Whether the run has the conformance reporter (a shard's blob-only run has not). */
function conformanceReporter(config: FullConfig): boolean {
  return config.reporter.some(([name]) => /[\\/]conformance-reporter\.[cm]?[jt]s$/.test(name));
}
