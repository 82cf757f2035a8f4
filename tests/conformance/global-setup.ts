/**
 * Resolves the configuration once for the whole run: starts the embedded reference server when
 * no API_BASE_URL is configured, and fixes the seed (and the account fixture) so every worker
 * generates the same inputs. It also fixes the run's limits for every worker (politeness, a
 * deadline, a request ledger shared by the workers), prints them, and at the end prints how many
 * requests the run sent.
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
import { FileLedger } from '../../transport/session.ts';
import { INTERRUPTED_ENV, readStop, requestStop } from '../../transport/stop.ts';
import { describePoliteness, loadEnvFile, parseConfig, politenessEnv } from '../../config/config.ts';
import { EMBEDDED_TARGET } from '../../config/embedded.ts';
import { ReferenceServer } from '../../servers/reference.ts';

export default async function globalSetup(fullConfig: FullConfig): Promise<() => Promise<void>> {
  loadEnvFile();
  const config = parseConfig(process.env, EMBEDDED_TARGET);
  let server: ReferenceServer | undefined;
  if (config.baseURL === undefined) {
    server = new ReferenceServer({ token: config.token });
    process.env.API_BASE_URL = await server.start(0);
    process.env.API_TOKEN = config.token;
    process.env.COUNTERPARTY_REF = config.counterpartyRef;
    process.env.CONFORMANCE_TARGET_KIND = 'embedded reference server';
  } else {
    process.env.CONFORMANCE_TARGET_KIND = 'configured deployment';
  }
  process.env.CONFORMANCE_SEED = String(config.seed);
  process.env.CONFORMANCE_RUNS = String(config.runs);
  process.env.CONFORMANCE_ACCOUNT_BUDGET = String(config.accountBudget);
  if (config.writableRef === undefined) delete process.env.WRITABLE_COUNTERPARTY_REF;
  else process.env.WRITABLE_COUNTERPARTY_REF = config.writableRef;
  if (config.accountFixture === undefined) delete process.env.ACCOUNT_FIXTURE;
  else process.env.ACCOUNT_FIXTURE = JSON.stringify(config.accountFixture);
  // The limits of the kind of target, fixed for the workers (which see API_BASE_URL set).
  const politeness = config.politeness;
  Object.assign(process.env, politenessEnv(politeness));
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
  process.env.CONFORMANCE_DEADLINE = String(Date.now() + politeness.runTimeoutMs);
  process.env.CONFORMANCE_PROCESSES = String(Math.max(1, fullConfig.workers));
  console.log(`Limits: ${describePoliteness(politeness)}`);
  return async () => {
    process.off('SIGTERM', onTerm);
    const sent = Math.min(FileLedger.count(state), politeness.maxRequests);
    console.log(`Requests sent: ${sent} (at most ${politeness.maxRequests}, CONFORMANCE_MAX_REQUESTS)`);
    const interruption = readStop(state);
    if (interruption) process.env[INTERRUPTED_ENV] = JSON.stringify(interruption);
    rmSync(state, { recursive: true, force: true });
    await server?.stop();
  };
}
