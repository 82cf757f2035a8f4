/**
 * The protocol between a check of the suite (suite/define.ts, in a worker) and the conformance
 * reporter (suite/conformance-reporter.ts, in the runner, or in a merge of shard reports): what a
 * check attaches to its test, written once for both sides. The reporter reads nothing else of a
 * test, so it works the same on merged shard reports (npx playwright merge-reports).
 *
 * Each attachment is JSON, redacted with the run's secrets before it leaves the worker, since
 * Playwright's own report embeds every attachment.
 */
import type { TestInfo } from '@playwright/test';
import type { TestResult } from '@playwright/test/reporter';
import type { ProbeOutcome } from '../engine/types.ts';
import type { Exchange } from '../exchange/exchange.ts';
import { redactText, type SecretInput } from '../exchange/redactors.ts';

/** The outcome of a check that completed: the reporter judges it. */
export const OUTCOME_ATTACHMENT = 'conformance-outcome';
/**
 * The outcome of a check that could not complete. It is not attached as OUTCOME_ATTACHMENT, so the
 * reporter counts its findings but lists the check as incomplete (the gate fails).
 */
export const INCOMPLETE_ATTACHMENT = 'conformance-outcome-incomplete';
/** The exchanges a check sent (JSON array of Exchange), for the run's exchanges.har and its coverage. */
export const EXCHANGES_ATTACHMENT = 'conformance-exchanges';

/** What a check handed over, as the reporter reads it from the test's result. */
export interface CheckAttachments {
  /** The exchanges it sent, if it attached them. */
  exchanges?: Exchange[];
  /** Its outcome, and whether it completed (else it carries `incomplete`). */
  outcome?: { value: ProbeOutcome; complete: boolean };
}

async function attachJson(
  info: TestInfo,
  name: string,
  value: unknown,
  secrets: SecretInput[],
): Promise<void> {
  await info.attach(name, {
    body: redactText(JSON.stringify(value), secrets),
    contentType: 'application/json',
  });
}

/** Attaches what a check sent (one check at a time per worker: the slice of its log it added). */
export function attachExchanges(
  info: TestInfo,
  exchanges: readonly Exchange[],
  secrets: SecretInput[],
): Promise<void> {
  return attachJson(info, EXCHANGES_ATTACHMENT, exchanges, secrets);
}

/** Attaches a check's outcome: as incomplete when it carries `incomplete`, else as complete. */
export function attachOutcome(info: TestInfo, outcome: ProbeOutcome, secrets: SecretInput[]): Promise<void> {
  return attachJson(
    info,
    outcome.incomplete !== undefined ? INCOMPLETE_ATTACHMENT : OUTCOME_ATTACHMENT,
    outcome,
    secrets,
  );
}

/** What a test's result carries of the protocol; a complete outcome wins over an incomplete one. */
export function readAttachments(result: Pick<TestResult, 'attachments'>): CheckAttachments {
  const body = (name: string): string | undefined =>
    result.attachments.find((a) => a.name === name && a.body)?.body?.toString('utf8');
  const sent = body(EXCHANGES_ATTACHMENT);
  const complete = body(OUTCOME_ATTACHMENT);
  const partial = body(INCOMPLETE_ATTACHMENT);
  const outcome = complete ?? partial;
  return {
    ...(sent !== undefined ? { exchanges: JSON.parse(sent) as Exchange[] } : {}),
    ...(outcome !== undefined
      ? { outcome: { value: JSON.parse(outcome) as ProbeOutcome, complete: complete !== undefined } }
      : {}),
  };
}
