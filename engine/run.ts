/**
 * Runs probes. The way of one exchange through a run, every step a call a reader can follow:
 *
 *   probe -> ctx.http.send (transport/client.ts: sent through the session, what came back
 *   redacted) -> the client's `record` (runProbe below) -> RunContext.record: appended to the log
 *   (exchange/log.ts) and judged (engine/judge.ts: every exchange oracle, and the PATCH sequences
 *   and read pairs it completes) -> the judgements, handed to ProbeScope.recorded -> counted in
 *   the probe's outcome, a violation a finding of it, or inside one case of a property the case's
 *   (so the property shrinks on the oracles' verdicts as well as the probe's own) -> the outcome,
 *   returned -> attached to the check's test with the exchanges of the log (suite/define.ts,
 *   redacted there) -> the conformance reporter (suite/conformance-reporter.ts) -> the reports.
 *
 * The case an exchange belongs to is found through an AsyncLocalStorage (`runningCase`): cases
 * run concurrently (engine/cases.ts), each awaiting its own requests, and only the async context
 * a request is sent from says which case sent it. The same engine serves the Playwright suite
 * (one test per probe) and the self-tests (every probe against every server of the gallery), so
 * what the gallery proves is what the suite does.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { answerOf } from '../exchange/answer.ts';
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
  MovingFields,
  Probe,
  ProbeContext,
  ProbeOutcome,
  PropertyEvidence,
  TargetConfig,
} from './types.ts';

import { INTERRUPTED_REASON } from './types.ts';

export { INTERRUPTED_REASON };

/** How recent a read a write probe starts from instead of reading again may be (RunContext.knownRead). */
export const KNOWN_READ_MS = 1000;

/**
 * What the probes of one process share: the session (limits, ledger), the log of exchanges and
 * their judge, and the run's original state of the writable counterparties (engine/baseline.ts).
 */
export class RunContext {
  /** Every exchange of this process, as kept, in the order they completed. */
  readonly log: ExchangeLog;
  /** The outcome of the probe this process runs now, as it grows (suite/live-progress.ts shows it). */
  running: ProbeOutcome | undefined;
  private readonly judge: Judge;

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
  }

  /**
   * Records an exchange the suite sent: appends it to the log, which numbers it, and judges it
   * (engine/judge.ts: every exchange oracle, and any PATCH sequence or read pair it completes).
   * Returns it whole, with what the oracles found; where the judgements go is the caller's.
   */
  record(exchange: Omit<Exchange, 'id'>): { exchange: Exchange; judgements: OracleJudgement[] } {
    const recorded = this.log.append(exchange);
    const method = recorded.request.method.toUpperCase();
    // A read leaves every resource as it was (RFC 9110 §9.2.1); any other request may change any.
    if (method === 'GET') this.lastReads.set(recorded.request.url, recorded);
    else if (method !== 'HEAD') this.lastReads.clear();
    return { exchange: recorded, judgements: this.judge.judge(recorded) };
  }

  /**
   * The last read of each URL this process recorded since its last request of any other method
   * than GET or HEAD, whole (the log may keep its body in part).
   */
  private readonly lastReads = new Map<string, Exchange>();

  /**
   * The read of `url` this process recorded last, if nothing but reads (GET, HEAD) of any resource
   * was recorded after it, answered 200 with an object and within KNOWN_READ_MS of `now`: what a
   * write probe of a lane, whose probes run one after another in this process, starts from, where
   * it would read the counterparty once more before its first write (the judge takes the last read
   * before a PATCH, whichever probe sent it). A read of another resource beside it (a sequence's
   * read of the readable counterparty) changes nothing. Nothing in flight: a probe awaits every
   * request it sends.
   */
  knownRead(url: string, now: number): Exchange | undefined {
    const ex = this.lastReads.get(url);
    if (ex === undefined) return undefined;
    if (ex.status !== 200 || ex.tooDeep !== undefined || typeof ex.body !== 'object' || ex.body === null)
      return undefined;
    if (Array.isArray(ex.body) || now - (ex.startedAt + ex.durationMs) > KNOWN_READ_MS) return undefined;
    return ex;
  }

  /** What moves by itself in `ref`, as the write probes of this process learned it (SelfMoving). */
  moving(ref: string): MovingFields {
    let known = this.movingByRef.get(ref);
    if (known === undefined) this.movingByRef.set(ref, (known = { fields: new Set(), learned: false }));
    return known;
  }

  private readonly movingByRef = new Map<string, MovingFields>();

  /** The sender will not read `ref` again before its next write to it (engine/judge.ts lastRead). */
  lastRead(ref: string): OracleJudgement[] {
    return this.judge.lastRead(ref);
  }

  /** The PATCHes still waiting for a read after them, judged with what they have. */
  flush(): OracleJudgement[] {
    return this.judge.flush();
  }
}

/** One case of a property while it runs: what it sent, and the oracles' violations of it. */
interface RunningCase {
  violations: JudgedViolation[];
  /** The exchanges it sent, in the order they completed. */
  exchanges: Exchange[];
  /** The exchanges it sent: a case's judgements count for it only when they rest on its own (engine/property.ts). */
  sent: Set<Exchange>;
}

/** The case of a property whose code is running (see the header), in the async context of its requests. */
const runningCase = new AsyncLocalStorage<RunningCase>();

/**
 * Where the judgements of one probe's exchanges go: counted in its outcome, a violation kept as a
 * finding of the probe (a few per cause, engine/finding-groups.ts), or inside one case of a
 * property returned with the case (ProbeScope.runCase).
 */
class ProbeScope {
  // A few findings per cause are kept, every one counted (engine/finding-groups.ts).
  private readonly keeper = new FindingKeeper();

  constructor(private readonly outcome: ProbeOutcome) {}

  addFinding(finding: Finding): void {
    if (this.keeper.keep(finding)) this.outcome.findings.push(finding);
  }

  count(requirement: RequirementId): void {
    this.outcome.judged[requirement] = (this.outcome.judged[requirement] ?? 0) + 1;
  }

  /** An exchange the probe sent, recorded and judged (RunContext.record): the case running keeps it. */
  recorded(exchange: Exchange, judgements: OracleJudgement[]): void {
    runningCase.getStore()?.exchanges.push(exchange);
    runningCase.getStore()?.sent.add(exchange);
    this.deliver(judgements);
  }

  /** Counts judgements for the probe; a violation goes to the case running, else it is a finding of the probe. */
  deliver(judgements: OracleJudgement[]): void {
    const current = runningCase.getStore();
    for (const { oracle, judgement } of judgements) {
      this.count(judgement.requirement);
      if (judgement.held) continue;
      const { held: _held, ...violation } = judgement;
      if (current) current.violations.push({ ...violation, judgedBy: oracle });
      else this.addFinding(findingOf({ ...violation, judgedBy: oracle }));
    }
  }

  /** ProbeContext.runCase: `fn` runs as the running case, and what the oracles found in it is returned with it. */
  async runCase<T>(fn: () => Promise<T>): Promise<{
    result: T;
    violations: JudgedViolation[];
    exchanges: Exchange[];
    sent: ReadonlySet<Exchange>;
  }> {
    const current: RunningCase = { violations: [], exchanges: [], sent: new Set() };
    try {
      const result = await runningCase.run(current, fn);
      return { result, ...current };
    } catch (error) {
      // A case that cannot complete (no answer, the target gone) is not shrunk on, but what
      // the oracles found in it before (a request with no answer) is still the probe's finding.
      for (const v of current.violations) this.addFinding(findingOf(v));
      throw error;
    } finally {
      // Judged, and the case is done with them: its result keeps them, not their long texts.
      for (const ex of current.exchanges) releaseText(ex);
    }
  }

  /** Says in the outcome how many findings of each cause were found beyond those kept. */
  close(): void {
    this.outcome.notes.push(...this.keeper.notes());
    const causes = this.keeper.counts();
    if (causes.length > 0) this.outcome.causes = causes;
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
    answer: answerOf(ex),
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

/** Why `probe` is not run at all: a write probe in a read-only run, or a run already interrupted. */
function skipped(probe: Probe, target: TargetConfig, run: RunContext, outcome: ProbeOutcome): boolean {
  if (probe.access === 'write' && !target.writableRef) {
    outcome.status = 'skipped';
    outcome.skipReason = 'read-only run: set WRITABLE_COUNTERPARTY_REF to let the suite send writes';
    return true;
  }
  if (run.session.interruption() !== undefined) {
    // Not a check's own choice: the verdicts name the interruption as why it was not judged.
    outcome.status = 'skipped';
    outcome.skipReason = INTERRUPTED_REASON;
    outcome.interrupted = true;
    return true;
  }
  return false;
}

/** What a probe may use of the run: its client, its judgements and findings, notes, restores. */
function probeContext(
  probe: Probe,
  target: TargetConfig,
  run: RunContext,
  scope: ProbeScope,
  outcome: ProbeOutcome,
): ProbeContext {
  const http = new HttpClient(run.session, {
    baseURL: target.baseURL,
    token: target.token,
    allowWrites: Boolean(target.writableRef),
    // Where the run records the exchange and judges it; the judgements go to this probe's scope.
    record: (sent) => {
      const { exchange, judgements } = run.record(sent);
      scope.recorded(exchange, judgements);
      return exchange;
    },
    probe: probe.id,
    ...(target.extraHeaders ? { extraHeaders: target.extraHeaders } : {}),
  });
  const guard = (id: RequirementId): void => {
    if (!probe.judges.includes(id))
      throw new Error(`probe ${probe.id} judged ${id}, which it does not declare`);
  };
  return {
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
      scope.addFinding(findingOf({ ...v, judgedBy: probe.id }));
    },
    report(v, evidence) {
      scope.addFinding(findingOf(v, evidence));
    },
    runCase: (fn) => scope.runCase(fn),
    lastRead: (ref) => scope.deliver(run.lastRead(ref)),
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
    handOn: (ref) => run.baselines.handOn(ref, probe.id),
    moving: (ref) => run.moving(ref),
    restoredTo: (ref) => run.baselines.restoredTo(ref),
    knownRead: (path) => run.knownRead(http.url(path), http.clock.now()),
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
  if (skipped(probe, target, run, outcome)) return outcome;
  const scope = new ProbeScope(outcome);
  run.running = outcome;
  const ctx = probeContext(probe, target, run, scope, outcome);
  const http = ctx.http;
  const before = { ...run.session.stats };
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
    scope.deliver(run.flush());
    run.running = undefined;
  }
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
  scope.close();
  return escapeControlsIn(outcome);
}
