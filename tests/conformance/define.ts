/**
 * Turns registered checks into Playwright tests: one test per check, tagged and annotated with
 * the requirements it verifies. The check's outcome is attached as JSON for the conformance
 * reporter; MUST findings fail the test, SHOULD findings are annotated as warnings.
 */
import { test as base, expect } from '@playwright/test';
import { runCheck } from '../../engine/run.ts';
import { CHECKS, checksIn } from '../../probes/index.ts';
import type { Check, Finding, TargetConfig } from '../../engine/types.ts';
import { requirement } from '../../spec/requirements.ts';
import { sessionFromEnv, targetFromEnv } from './target.ts';

export const OUTCOME_ATTACHMENT = 'conformance-outcome';
/**
 * The outcome of a check that could not complete. It is not attached as OUTCOME_ATTACHMENT, so the
 * conformance reporter lists the check as incomplete (the gate fails) instead of judging it.
 */
export const INCOMPLETE_ATTACHMENT = 'conformance-outcome-incomplete';

export const test = base.extend<{ target: TargetConfig }>({
  target: async ({}, use) => {
    await use(targetFromEnv());
  },
});

export function formatFinding(f: Finding): string {
  const r = requirement(f.requirement);
  const lines = [
    `[${r.level}] ${r.id} (${r.section}): ${f.message}`,
    `  expected: ${f.expected}`,
    `  received: ${f.received.split('\n').join('\n            ')}`,
  ];
  if (f.input !== undefined) lines.push(`  input:    ${JSON.stringify(f.input)}`);
  if (f.rule)
    lines.push(
      `  rule:     ${f.rule.field} ${f.rule.keyword} (${f.rule.keeps ? 'keeps' : 'breaks'}): ${f.rule.description}`,
    );
  if (f.seed !== undefined)
    lines.push(`  replay:   CONFORMANCE_SEED=${f.seed}${f.path ? ` (fast-check path ${f.path})` : ''}`);
  if (f.curl) lines.push(`  curl:     ${f.curl}`);
  return lines.join('\n');
}

function defineCheck(check: Check): void {
  const tags = [
    `@${check.access}`,
    ...new Set(check.requirements.map((id) => `@${requirement(id).level.toLowerCase()}`)),
  ];
  test(
    `${check.id}: ${check.title}`,
    {
      tag: tags,
      annotation: check.requirements.map((id) => ({ type: 'requirement', description: id })),
    },
    async ({ target }) => {
      const outcome = await runCheck(check, target, sessionFromEnv());
      if (outcome.incomplete !== undefined) {
        await test.info().attach(INCOMPLETE_ATTACHMENT, {
          body: JSON.stringify(outcome),
          contentType: 'application/json',
        });
        const found = outcome.findings.map(formatFinding);
        throw new Error(
          `could not complete: ${outcome.incomplete}` +
            (found.length > 0 ? `\nfound before it stopped:\n${found.join('\n\n')}` : ''),
        );
      }
      await test.info().attach(OUTCOME_ATTACHMENT, {
        body: JSON.stringify(outcome),
        contentType: 'application/json',
      });
      test.skip(outcome.status === 'skipped', outcome.skipReason);
      for (const f of outcome.findings.filter((f) => requirement(f.requirement).level === 'SHOULD')) {
        test.info().annotations.push({ type: 'warning', description: formatFinding(f) });
      }
      const must = outcome.findings.filter((f) => requirement(f.requirement).level === 'MUST');
      expect(must.length, `MUST requirement(s) broken:\n${must.map(formatFinding).join('\n\n')}\n`).toBe(0);
    },
  );
}

/** Defines one test per read check of `group`; they may run in parallel with anything. */
export function defineChecks(group: Check['group']): void {
  for (const check of checksIn(group).filter((c) => c.access === 'read')) defineCheck(check);
}

/**
 * Defines one test per write check, in order in one worker: writes share the writable
 * counterparty, and a check that reads it before and after a PATCH must not see another
 * check's PATCH in between. A failing check does not skip the ones after it.
 */
export function defineWriteChecks(): void {
  test.describe.configure({ mode: 'default' });
  for (const check of CHECKS.filter((c) => c.access === 'write')) defineCheck(check);
}
