/**
 * Completes the configuration resolved once for the run (config/resolve.ts) before the workers
 * start: starts the embedded reference server when no API_BASE_URL is configured and puts its
 * URL in the configuration, and fixes the run's shared state (a request ledger shared by the
 * workers, a deadline, the worker count), handed down with the rest. It prints the run's limits,
 * and at the end how many requests the run sent.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FullConfig } from '@playwright/test';
import { FileLedger } from '../../transport/session.ts';
import { describePoliteness } from '../../config/config.ts';
import { handDown, resolvedRun } from '../../config/resolve.ts';
import { ReferenceServer } from '../../servers/reference.ts';

export default async function globalSetup(fullConfig: FullConfig): Promise<() => Promise<void>> {
  const run = resolvedRun();
  const config = { ...run.config };
  let server: ReferenceServer | undefined;
  let targetKind = 'configured deployment';
  if (config.baseURL === undefined) {
    server = new ReferenceServer({ token: config.token });
    config.baseURL = await server.start(0);
    targetKind = 'embedded reference server';
  }
  const politeness = config.politeness;
  const state = mkdtempSync(join(tmpdir(), 'payflow-run-'));
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
  console.log(`Limits: ${describePoliteness(politeness)}`);
  return async () => {
    const sent = Math.min(FileLedger.count(state), politeness.maxRequests);
    console.log(`Requests sent: ${sent} (at most ${politeness.maxRequests}, CONFORMANCE_MAX_REQUESTS)`);
    rmSync(state, { recursive: true, force: true });
    await server?.stop();
  };
}
