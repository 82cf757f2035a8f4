/**
 * Runs checks and turns their findings into requirement verdicts. The same engine serves the
 * Playwright suite (one test per check) and the gallery self-test (every check against every
 * faulty server), so what the gallery proves is what the suite does.
 */
import { REQUIREMENTS, requirement, type RequirementId } from '../spec/requirements.ts';
import {
  HttpClient,
  TargetUnavailable,
  curlCommand,
  describeResponse,
  redact,
  type Exchange,
} from '../transport/client.ts';
import type { TargetSession } from '../transport/session.ts';
import type { Check, CheckContext, CheckOutcome, Finding, TargetConfig } from './types.ts';

/** At most this many findings are kept per requirement and check; the rest are counted. */
export const MAX_FINDINGS_PER_REQUIREMENT = 5;

/** Why a check stopped, in one line (a TargetUnavailable says it; other errors are named). */
export function incompleteReason(error: unknown): string {
  if (error instanceof TargetUnavailable) return error.message;
  if (!(error instanceof Error)) return String(error).split('\n')[0]!;
  const text = error.name === 'Error' ? error.message : `${error.name}: ${error.message}`;
  return text.split('\n')[0]!;
}

/**
 * Runs one check against the target through `session` (shared by the checks of a run). A check
 * that cannot complete (the target unreachable or rate-limited, a budget spent, an error) is
 * returned with `incomplete` set and the findings it recorded before: it never throws.
 */
export async function runCheck(
  check: Check,
  target: TargetConfig,
  session: TargetSession,
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
  const http = new HttpClient(session, {
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
  const before = { ...session.stats };
  try {
    await check.run(ctx);
  } catch (error) {
    outcome.incomplete = redact(incompleteReason(error), target.token);
    if (error instanceof TargetUnavailable && error.request) {
      outcome.notes.push(`could not complete at: ${curlCommand(error.request)}`);
    }
  } finally {
    outcome.requests = http.requestCount;
    outcome.durationMs = performance.now() - started;
    const retries = session.stats.retries - before.retries;
    if (retries > 0) {
      const waited = (session.stats.waitedMs - before.waitedMs) / 1000;
      outcome.notes.push(`${retries} request(s) retried after a 429/503, ${waited.toFixed(1)} s waited`);
    }
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
    // A check that could not complete judged nothing it did not find broken before it stopped.
    const incomplete = covering.filter((o) => o.incomplete !== undefined);
    const ran = covering.filter((o) => o.status === 'ran' && o.incomplete === undefined);
    // Every check covers no-server-error, but only one that sent a request judged it.
    const applicable = ran.filter(
      (o) =>
        !o.notApplicable.some((n) => n.requirement === id) && (id !== 'no-server-error' || o.requests > 0),
    );
    const reasons = [
      ...new Set([
        ...covering.filter((o) => o.status === 'skipped').map((o) => o.skipReason ?? 'skipped'),
        ...ran.flatMap((o) => o.notApplicable.filter((n) => n.requirement === id).map((n) => n.reason)),
      ]),
    ];
    const unfinished = incomplete.map((o) => `${o.check} could not complete: ${o.incomplete}`);
    let status: VerdictStatus;
    if (findings.length > 0) status = requirement(id).level === 'MUST' ? 'failed' : 'warned';
    else if (applicable.length > 0) status = 'passed';
    else if (covering.length > incomplete.length) status = 'skipped';
    else status = 'not-run';
    return {
      id,
      level: r.level,
      status,
      reasons: status === 'skipped' ? [...reasons, ...unfinished] : status === 'not-run' ? unfinished : [],
      findings,
      checks: covering.map((o) => o.check),
    };
  });
}
