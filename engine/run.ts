/**
 * Runs probes. Every exchange a probe sends is appended to the run's log and judged there by
 * every oracle that applies (engine/judge.ts); the judgements go to the probe that was running
 * when they were made, found through an AsyncLocalStorage scope, and inside one case of a
 * property to that case, so that the property shrinks on the oracles' verdicts as well as the
 * probe's own. The same engine serves the Playwright suite (one test per probe) and the self-tests
 * (every probe against every server of the gallery), so what the gallery proves is what the suite
 * does.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { curlCommand } from '../exchange/curl.ts';
import { escapeControlsIn } from '../exchange/escape.ts';
import type { Exchange } from '../exchange/exchange.ts';
import { ExchangeLog } from '../exchange/log.ts';
import { BodyBudget, releaseText } from '../exchange/kept.ts';
import { basePathOf } from '../exchange/route.ts';
import type { Violation } from '../oracles/types.ts';
import type { RequirementId } from '../spec/requirements.ts';
import { HttpClient, TargetUnavailable } from '../transport/client.ts';
import type { TargetSession } from '../transport/session.ts';
import { MemoryBaselines, type BaselineStore } from './baseline.ts';
import { FindingKeeper } from './finding-groups.ts';
import { Judge, type OracleJudgement } from './judge.ts';
import type {
  Finding,
  JudgedViolation,
  Probe,
  ProbeContext,
  ProbeOutcome,
  PropertyEvidence,
  TargetConfig,
} from './types.ts';

import { INTERRUPTED_REASON } from './types.ts';

export { INTERRUPTED_REASON };

/**
 * What the probes of one process share: the session (limits, ledger), the log and its judge, and
 * the run's original state of the writable counterparties (engine/baseline.ts).
 */
export class RunContext {
  readonly log: ExchangeLog;
  readonly judge: Judge;

  constructor(
    readonly session: TargetSession,
    baseURL: string,
    /** How long a read may trail an accepted write (CONFORMANCE_SETTLE_MS). */
    settleMs = 0,
    readonly baselines: BaselineStore = new MemoryBaselines(),
    /** The share of the run's budget of kept bodies this process's log keeps (exchange/kept.ts). */
    bodyShare = 1,
  ) {
    this.log = new ExchangeLog(new BodyBudget(bodyShare));
    this.judge = new Judge(undefined, basePathOf(baseURL), settleMs);
    this.log.subscribe((ex) => {
      // The case that sent it: a case's judgements count for it only when they rest on its own
      // exchanges (engine/property.ts).
      scopes.getStore()?.caseExchanges?.push(ex);
      scopes.getStore()?.caseSent?.add(ex);
      deliver(this.judge.judge(ex));
    });
  }
}

interface Scope {
  record(finding: Finding): void;
  count(requirement: RequirementId): void;
  /** Set while one case of a property runs: the oracles' violations go here. */
  caseViolations?: JudgedViolation[];
  /** Set while one case of a property runs: the exchanges it sent, in the order they completed. */
  caseExchanges?: Exchange[];
  /** Set while one case of a property runs: the exchanges it sent. */
  caseSent?: Set<Exchange>;
}

const scopes = new AsyncLocalStorage<Scope>();

/** Hands judgements to the probe (or property case) running now; outside a probe they are dropped. */
function deliver(judgements: OracleJudgement[]): void {
  const scope = scopes.getStore();
  if (!scope) return;
  for (const { oracle, judgement } of judgements) {
    scope.count(judgement.requirement);
    if (judgement.held) continue;
    const { held: _held, ...violation } = judgement;
    if (scope.caseViolations) scope.caseViolations.push({ ...violation, judgedBy: oracle });
    else scope.record(findingOf({ ...violation, judgedBy: oracle }));
  }
}

function line(ex: Exchange): string {
  return `${ex.request.method} ${ex.request.url}`;
}

/** Traffic the suite did not send: a HAR entry or a proxied exchange. */
const foreign = (ex: Exchange): boolean =>
  ex.origin.harEntry !== undefined || ex.origin.proxied !== undefined;

/** A finding from a violation: the exchange's request, its curl command, who sent it, the context. */
export function findingOf(v: JudgedViolation, evidence?: PropertyEvidence): Finding {
  const ex = v.exchange;
  return {
    requirement: v.requirement,
    message: evidence ? `${evidence.name}: ${v.message}` : v.message,
    expected: v.expected,
    received: v.received,
    judgedBy: v.judgedBy,
    ...(ex.origin.probe !== undefined ? { sentBy: ex.origin.probe } : {}),
    ...(ex.origin.role !== undefined ? { role: ex.origin.role } : {}),
    ...(ex.origin.harEntry !== undefined ? { harEntry: ex.origin.harEntry } : {}),
    ...(ex.origin.proxied !== undefined ? { proxied: ex.origin.proxied } : {}),
    ...(evidence
      ? {
          input: evidence.input,
          rule: evidence.rule,
          seed: evidence.seed,
          ...(evidence.path !== undefined ? { path: evidence.path, property: evidence.name } : {}),
        }
      : {}),
    request: ex.request,
    status: ex.status,
    curl: curlCommand(ex.request, { foreign: foreign(ex) }),
    ...(v.context && v.context.length > 0
      ? {
          context: v.context.map((c) => ({
            ...(c.origin.role !== undefined ? { role: c.origin.role } : {}),
            ...(c.origin.harEntry !== undefined ? { harEntry: c.origin.harEntry } : {}),
            ...(c.origin.proxied !== undefined ? { proxied: c.origin.proxied } : {}),
            request: line(c),
            status: c.status,
            curl: curlCommand(c.request, { foreign: foreign(c) }),
          })),
        }
      : {}),
  };
}

/** Why a probe stopped, in one line (a TargetUnavailable says it; other errors are named). */
export function incompleteReason(error: unknown): string {
  if (error instanceof TargetUnavailable) return error.message;
  if (!(error instanceof Error)) return String(error).split('\n')[0]!;
  const text = error.name === 'Error' ? error.message : `${error.name}: ${error.message}`;
  return text.split('\n')[0]!;
}

/** An outcome that has judged nothing yet: of a probe, or of traffic the suite did not send. */
export function emptyOutcome(
  probe: string,
  title: string,
  requirements: readonly RequirementId[],
): ProbeOutcome {
  return {
    probe,
    title,
    requirements: [...requirements],
    status: 'ran',
    findings: [],
    judged: {},
    notApplicable: [],
    requests: 0,
    notes: [],
    durationMs: 0,
  };
}

/**
 * Runs one probe against the target. A probe that cannot complete (the target unreachable or
 * rate-limited, a budget spent, an error) is returned with `incomplete` set and what was judged
 * before: it never throws. The outcome is where the target's text becomes the suite's words (a
 * finding's message and evidence, a note, why the probe stopped): every string of it leaves
 * here with its control characters escaped (exchange/escape.ts), before it reaches Playwright's
 * output, the attachments, the reports or the console.
 */
export async function runProbe(probe: Probe, target: TargetConfig, run: RunContext): Promise<ProbeOutcome> {
  const started = performance.now();
  const outcome = emptyOutcome(probe.id, probe.title, probe.requirements);
  if (probe.access === 'write' && !target.writableRef) {
    outcome.status = 'skipped';
    outcome.skipReason = 'read-only run: set WRITABLE_COUNTERPARTY_REF to let the suite send writes';
    return outcome;
  }
  if (run.session.interruption() !== undefined) {
    // Not a check's own choice: the verdicts name the interruption as why it was not judged.
    outcome.status = 'skipped';
    outcome.skipReason = INTERRUPTED_REASON;
    outcome.interrupted = true;
    return outcome;
  }
  // A few findings per cause are kept, every one counted (engine/finding-groups.ts).
  const keeper = new FindingKeeper();
  const scope: Scope = {
    record(finding) {
      if (keeper.keep(finding)) outcome.findings.push(finding);
    },
    count(requirement) {
      outcome.judged[requirement] = (outcome.judged[requirement] ?? 0) + 1;
    },
  };
  const http = new HttpClient(run.session, {
    baseURL: target.baseURL,
    token: target.token,
    allowWrites: Boolean(target.writableRef),
    log: run.log,
    probe: probe.id,
    ...(target.extraHeaders ? { extraHeaders: target.extraHeaders } : {}),
  });
  const guard = (id: RequirementId): void => {
    if (!probe.judges.includes(id))
      throw new Error(`probe ${probe.id} judged ${id}, which it does not declare`);
  };
  const ctx: ProbeContext = {
    probe,
    target,
    http,
    held(id) {
      guard(id);
      scope.count(id);
    },
    fail(v: Violation) {
      guard(v.requirement);
      scope.count(v.requirement);
      scope.record(findingOf({ ...v, judgedBy: probe.id }));
    },
    report(v, evidence) {
      scope.record(findingOf(v, evidence));
    },
    async runCase(fn) {
      const violations: JudgedViolation[] = [];
      const exchanges: Exchange[] = [];
      const sent = new Set<Exchange>();
      const caseScope: Scope = {
        ...scope,
        caseViolations: violations,
        caseExchanges: exchanges,
        caseSent: sent,
      };
      try {
        const result = await scopes.run(caseScope, fn);
        return { result, violations, exchanges, sent };
      } catch (error) {
        // A case that cannot complete (no answer, the target gone) is not shrunk on, but what
        // the oracles found in it before (a request with no answer) is still the probe's finding.
        for (const v of violations) scope.record(findingOf(v));
        throw error;
      } finally {
        // Judged, and the case is done with them: its result keeps them, not their long texts.
        for (const ex of exchanges) releaseText(ex);
      }
    },
    lastRead: (ref) => deliver(run.judge.lastRead(ref)),
    notApplicable(id, reason) {
      if (!outcome.notApplicable.some((n) => n.requirement === id))
        outcome.notApplicable.push({ requirement: id, reason });
    },
    note: (text) => outcome.notes.push(text),
    restored(record) {
      (outcome.restores ??= []).push(record);
      outcome.notes.push(record.detail);
    },
    original: (ref, current) => run.baselines.capture(ref, current, probe.id),
  };
  const before = { ...run.session.stats };
  await scopes.run(scope, async () => {
    try {
      await probe.run(ctx);
    } catch (error) {
      outcome.incomplete = incompleteReason(error);
      if (error instanceof TargetUnavailable && error.kind === 'interrupted') outcome.interrupted = true;
      if (error instanceof TargetUnavailable && error.request) {
        outcome.notes.push(`could not complete at: ${curlCommand(error.request)}`);
      }
    } finally {
      // Its restore is done (or could not be): it no longer writes the counterparty.
      run.baselines.release(probe.id);
      // A PATCH whose read after never came is judged on what it has.
      deliver(run.judge.flush());
    }
  });
  outcome.requests = http.requestCount;
  outcome.tokenAnswers = http.tokenAnswers;
  outcome.durationMs = performance.now() - started;
  const retries = run.session.stats.retries - before.retries;
  const waitedMs = run.session.stats.waitedMs - before.waitedMs;
  outcome.retries = retries;
  outcome.waitedMs = Math.round(waitedMs);
  if (retries > 0) {
    outcome.notes.push(
      `${retries} request(s) retried after a 429/503, ${(waitedMs / 1000).toFixed(1)} s waited`,
    );
  }
  outcome.notes.push(...keeper.notes());
  const causes = keeper.counts();
  if (causes.length > 0) outcome.causes = causes;
  return escapeControlsIn(outcome);
}
