/**
 * Runs every check of the suite in-process against a server, through the same engine the
 * Playwright suite uses, and returns the requirement verdicts.
 */
import { request } from '@playwright/test';
import { runCheck, verdicts, type Verdict } from '../../checks/engine.ts';
import { CHECKS } from '../../checks/index.ts';
import type { CheckOutcome, TargetConfig } from '../../checks/types.ts';

/** Fixed seed and case count of the self-tests: deterministic, and fast enough for npm test. */
export const SELF_TEST_SEED = 20261122;
export const SELF_TEST_RUNS = 30;

export interface SuiteRun {
  outcomes: CheckOutcome[];
  verdicts: Verdict[];
  /** Requirements reported failed (MUST) or warned (SHOULD). */
  tripped: string[];
  /** Checks that reported at least one finding. */
  trippedChecks: string[];
}

export async function runSuite(target: TargetConfig): Promise<SuiteRun> {
  const api = await request.newContext();
  try {
    const outcomes: CheckOutcome[] = [];
    for (const check of CHECKS) outcomes.push(await runCheck(check, target, api));
    const vs = verdicts(outcomes);
    return {
      outcomes,
      verdicts: vs,
      tripped: vs
        .filter((v) => v.status === 'failed' || v.status === 'warned')
        .map((v) => v.id)
        .sort(),
      trippedChecks: outcomes.filter((o) => o.findings.length > 0).map((o) => o.check),
    };
  } finally {
    await api.dispose();
  }
}

export function describeTripped(run: SuiteRun): string {
  return run.verdicts
    .filter((v) => v.findings.length > 0)
    .map((v) => `${v.id}: ${v.findings[0]!.message} | received ${v.findings[0]!.received.split('\n')[0]}`)
    .join('\n');
}
