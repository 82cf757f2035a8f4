/**
 * Runs checks and turns their findings into requirement verdicts. The same engine serves the
 * Playwright suite (one test per check) and the gallery self-test (every check against every
 * faulty server), so what the gallery proves is what the suite does.
 */
import type { APIRequestContext } from '@playwright/test';
import { REQUIREMENTS, requirement, type RequirementId } from '../spec/requirements.ts';
import { HttpClient, curlCommand, describeResponse, type Exchange } from './http.ts';
import type { Check, CheckContext, CheckOutcome, Finding, TargetConfig } from './types.ts';

/** At most this many findings are kept per requirement and check; the rest are counted. */
export const MAX_FINDINGS_PER_REQUIREMENT = 5;

export async function runCheck(
  check: Check,
  target: TargetConfig,
  api: APIRequestContext,
): Promise<CheckOutcome> {
  const started = performance.now();
  const outcome: CheckOutcome = {
    check: check.id,
    title: check.title,
    requirements: [...check.requirements],
    status: 'ran',
    findings: [],
    notApplicable: [],
    requests: 0,
    notes: [],
    durationMs: 0,
  };
  if (check.access === 'write' && !target.writableRef) {
    outcome.status = 'skipped';
    outcome.skipReason = 'read-only run: set WRITABLE_COUNTERPARTY_REF to let the suite send writes';
    return outcome;
  }
  const counts = new Map<RequirementId, number>();
  const record = (finding: Finding): void => {
    const n = (counts.get(finding.requirement) ?? 0) + 1;
    counts.set(finding.requirement, n);
    if (n <= MAX_FINDINGS_PER_REQUIREMENT) outcome.findings.push(finding);
  };
  const withRequest = (ex: Exchange, finding: Omit<Finding, 'request' | 'curl'>): Finding => ({
    ...finding,
    request: ex.request,
    curl: curlCommand(ex.request),
  });
  const http = new HttpClient(api, {
    baseURL: target.baseURL,
    token: target.token,
    allowWrites: Boolean(target.writableRef),
    onExchange: (ex) => {
      if (ex.status >= 500) {
        record(
          withRequest(ex, {
            requirement: 'no-server-error',
            message: `${ex.request.method} ${new URL(ex.request.url).pathname} was answered ${ex.status}`,
            expected: 'any status below 500',
            received: describeResponse(ex),
          }),
        );
      }
    },
  });
  const allowed = new Set<RequirementId>([...check.requirements, 'no-server-error']);
  const guard = (id: RequirementId): void => {
    if (!allowed.has(id)) throw new Error(`check ${check.id} reported ${id}, which it does not declare`);
  };
  const ctx: CheckContext = {
    target,
    http,
    fail: (finding) => {
      guard(finding.requirement);
      record(finding);
    },
    failOn: (ex, finding) => {
      guard(finding.requirement);
      record(withRequest(ex, finding));
    },
    notApplicable: (id, reason) => {
      guard(id);
      if (!outcome.notApplicable.some((n) => n.requirement === id))
        outcome.notApplicable.push({ requirement: id, reason });
    },
    note: (text) => outcome.notes.push(text),
  };
  try {
    await check.run(ctx);
  } finally {
    outcome.requests = http.requestCount;
    outcome.durationMs = performance.now() - started;
    for (const [id, n] of counts) {
      if (n > MAX_FINDINGS_PER_REQUIREMENT) {
        outcome.notes.push(`${id}: ${n - MAX_FINDINGS_PER_REQUIREMENT} more finding(s) not kept`);
      }
    }
  }
  return outcome;
}

export type VerdictStatus = 'passed' | 'failed' | 'warned' | 'skipped' | 'not-run';

export interface Verdict {
  id: RequirementId;
  level: 'MUST' | 'SHOULD';
  status: VerdictStatus;
  /** Why skipped (read-only run, not applicable to this target). */
  reasons: string[];
  findings: (Finding & { check: string })[];
  checks: string[];
}

/** Folds check outcomes into one verdict per requirement of the catalogue. */
export function verdicts(outcomes: CheckOutcome[]): Verdict[] {
  return REQUIREMENTS.map((r) => {
    const id = r.id as RequirementId;
    const covering = outcomes.filter((o) => o.requirements.includes(id) || id === 'no-server-error');
    const findings = covering.flatMap((o) =>
      o.findings.filter((f) => f.requirement === id).map((f) => ({ ...f, check: o.check })),
    );
    const ran = covering.filter((o) => o.status === 'ran');
    const applicable = ran.filter((o) => !o.notApplicable.some((n) => n.requirement === id));
    const reasons = [
      ...new Set([
        ...covering.filter((o) => o.status === 'skipped').map((o) => o.skipReason ?? 'skipped'),
        ...ran.flatMap((o) => o.notApplicable.filter((n) => n.requirement === id).map((n) => n.reason)),
      ]),
    ];
    let status: VerdictStatus;
    if (findings.length > 0) status = requirement(id).level === 'MUST' ? 'failed' : 'warned';
    else if (applicable.length > 0) status = 'passed';
    else if (covering.length > 0) status = 'skipped';
    else status = 'not-run';
    return {
      id,
      level: r.level,
      status,
      reasons: status === 'skipped' ? reasons : [],
      findings,
      checks: covering.map((o) => o.check),
    };
  });
}
