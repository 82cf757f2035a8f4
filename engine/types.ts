/**
 * The vocabulary of probes and their outcomes. A probe is a plain async function registered
 * under a stable id: it chooses what to send (explicit cases, generated inputs, shrinking) and
 * judges only what needs its plan ("this body breaks a rule, so it must not be accepted", "this
 * token is wrong, so it must not succeed"). Everything else about the answers it gets is judged
 * by the oracles (oracles/), which see every exchange of the run whoever sent it.
 */
import type { ExtraHeader } from '../exchange/extra-headers.ts';
import type { AnswerEvidence } from '../exchange/answer.ts';
import type { Exchange, RecordedRequest } from '../exchange/exchange.ts';
import type { AccountFixture } from '../generators/account-fixture.ts';
import type { ItemFixtures } from '../generators/item-fixtures.ts';
import type { Rule } from '../generators/labelled.ts';
import type { Violation } from '../oracles/types.ts';
import type { RequirementId } from '../spec/requirements.ts';
import type { HttpClient, TokenAnswers } from '../transport/client.ts';

/** Why a requirement or a probe was not judged in an interrupted run. */
export const INTERRUPTED_REASON = 'interrupted';

export interface TargetConfig {
  baseURL: string;
  token: string;
  counterpartyRef: string;
  writableRef: string | undefined;
  /**
   * Every writable counterparty (WRITABLE_COUNTERPARTY_REF=a,b,...), the first being `writableRef`:
   * the write probes are split across them in parallel lanes. Default: that one alone.
   */
  writableRefs?: string[];
  /** The account the deployment accepts (inner identifier fields are not shown in the document). */
  accountFixture: AccountFixture | undefined;
  /**
   * Every fixture of ACCOUNT_FIXTURE, the first being `accountFixture`: the accounts added cycle
   * through them. Default: that one alone.
   */
  accountFixtures?: AccountFixture[];
  /** The most accounts the suite may add to the writable counterparty in one run (default 40). */
  accountBudget?: number;
  /**
   * Bills, mandates and collections that exist, and bodies the deployment accepts to create and
   * update them (ITEM_FIXTURES, generators/item-fixtures.ts). Undefined: none known.
   */
  itemFixtures?: ItemFixtures;
  /** A replay of one case of one property (--case): the others of its probe are not run. */
  replayCase?: { property: string; path: string; replayPath?: string };
  seed: number;
  runs: number;
  /** Headers sent on every request besides the token: a gateway's API key, a tenant (config/headers.ts). */
  extraHeaders?: ExtraHeader[];
  /**
   * One part of a probe split across lanes (engine/lanes.ts): its properties send only the
   * first-round cases whose index is `index` modulo `count`; the other parts send the rest, each
   * to its own lane's counterparty. Undefined: every case.
   */
  part?: { index: number; count: number };
  /** How long a read may trail an accepted write (CONFORMANCE_SETTLE_MS); default 0: not at all. */
  settleMs?: number;
}

/** Another exchange a finding rests on: the read before a PATCH, the PATCH itself, ... */
export interface FindingContext {
  role?: string;
  /** Its HAR entry index, or its number in a proxy session, where it came from there. */
  harEntry?: number;
  proxied?: number;
  /** "GET http://…/api/v1/counterparties/x" */
  request: string;
  status: number;
  curl: string;
}

/** One piece of evidence that a requirement is broken. */
export interface Finding {
  requirement: RequirementId;
  /** One line: what went wrong. */
  message: string;
  expected: string;
  received: string;
  /** The oracle (or probe) that judged it. */
  judgedBy: string;
  /** The probe that sent the exchange that shows it, and what that request was for there. */
  sentBy?: string;
  role?: string;
  /** The index (from 0) of the HAR entry that shows it, in a validated HAR file. */
  harEntry?: number;
  /** The number of the proxied exchange that shows it, in a proxy session. */
  proxied?: number;
  /** The (shrunk) generated input that shows it, where the input was generated. */
  input?: unknown;
  /** The rule the input was built to keep or break. */
  rule?: Rule;
  /** Seed and path that replay the property run that found it, and the property's name. */
  seed?: number;
  path?: string;
  property?: string;
  /** The request that shows it, token redacted, and a curl command reproducing it. */
  request?: RecordedRequest;
  /** The status of the exchange that shows it (0: no answer). */
  status?: number;
  /** What that exchange answered: its status, the header fields that matter, the head of its body. */
  answer?: AnswerEvidence;
  curl?: string;
  /** The other exchanges of a sequence the finding rests on, in order. */
  context?: FindingContext[];
}

/** What the findings of one cause share. */
export interface Cause {
  requirement: RequirementId;
  /** The operationId called, or "<METHOD> (no operation)" / "<METHOD> outside the interface". */
  operation: string;
  /** The status answered (0: no answer). */
  status: number;
  /** The received text with its strings and numbers left out. */
  shape: string;
}

/** A cause as a probe counted it. */
export interface CauseCount extends Cause {
  /** Every finding of the cause in the probe, kept or not. */
  count: number;
  /** The distinct inputs (or requests, where the input was not generated), at most MAX_INPUTS_PER_CAUSE (engine/finding-groups.ts). */
  inputs: string[];
  /** Distinct inputs beyond those listed. */
  moreInputs: number;
}

/** A restore of what a probe changed (the writable counterparty's details), and how it went. */
export interface RestoreRecord {
  /** The counterparty reference. */
  counterparty: string;
  /** The fields put back. */
  fields: string[];
  status: 'restored' | 'failed';
  /** One line: what was restored, or why it could not be. */
  detail: string;
  /** Sent after the run was interrupted (housekeeping). */
  afterInterrupt: boolean;
}

export interface ProbeOutcome {
  probe: string;
  title: string;
  /** The requirements the probe aims to exercise (its own and the oracles' it sends for). */
  requirements: RequirementId[];
  status: 'ran' | 'skipped';
  skipReason?: string;
  findings: Finding[];
  /** How many judgements (held or violated) each requirement got while the probe ran. */
  judged: Partial<Record<RequirementId, number>>;
  /** Why a requirement the probe aims at could not be judged (no ACCOUNT_FIXTURE, ...). */
  notApplicable: { requirement: RequirementId; reason: string }[];
  requests: number;
  /** How the requests the probe sent with the configured token were answered (401, 403). */
  tokenAnswers?: TokenAnswers;
  notes: string[];
  durationMs: number;
  /** Requests sent again after a 429 or 503 (counted in `requests` too). */
  retries?: number;
  /** Time the probe's requests spent waiting for the target's permission (Retry-After, a rate). */
  waitedMs?: number;
  /**
   * Set when the probe could not complete: one line saying why (the target unreachable or
   * rate-limited, the run's request or time budget spent, or an error). Findings recorded before
   * are kept.
   */
  incomplete?: string;
  /** Set when the probe stopped (or was not run) because the run was interrupted. */
  interrupted?: boolean;
  /** The restores the probe sent, if any. */
  restores?: RestoreRecord[];
  /**
   * Every finding counted by cause (engine/finding-groups.ts), the ones not kept included: the
   * verdicts group the findings with these counts and inputs.
   */
  causes?: CauseCount[];
}

/** A violation with the oracle or probe that judged it. */
export interface JudgedViolation extends Violation {
  judgedBy: string;
}

/** What a property adds to a finding: the input and how to replay it. */
export interface PropertyEvidence {
  input: unknown;
  rule: Rule;
  seed: number;
  path?: string;
  name: string;
}

export interface ProbeContext {
  readonly probe: Probe;
  target: TargetConfig;
  http: HttpClient;
  /** A judgement of the probe's own that holds (the requirement was exercised). */
  held(requirement: RequirementId): void;
  /** A judgement of the probe's own that is violated. */
  fail(violation: Violation): void;
  /** Records a violation found by a property, with its shrunk input and replay (or of a case). */
  report(violation: JudgedViolation, evidence?: PropertyEvidence): void;
  /**
   * Runs one case of a property: the violations the oracles find while it runs are returned (so
   * the property can shrink on them) instead of being recorded, with the exchanges it sent, in
   * the order they completed (`exchanges`, so a violation can be traced to the request it rests
   * on) and as a set (`sent`): a violation judged now may rest on an exchange an earlier case sent
   * (a PATCH whose read after came in this case), and counts for that case, not this one.
   */
  runCase<T>(fn: () => Promise<T>): Promise<{
    result: T;
    violations: JudgedViolation[];
    exchanges: Exchange[];
    sent?: ReadonlySet<Exchange>;
  }>;
  /**
   * Says the probe will not read counterparty `ref` again before its next write to it: a PATCH
   * whose read after came within the settle window without showing it, and which no later read
   * will confirm, is judged now with that read (engine/judge.ts lastRead), so its judgements go to
   * the case running rather than to the case that writes next.
   */
  lastRead(ref: string): void;
  /** Marks a requirement the probe aims at as not applicable to this target, with the reason. */
  notApplicable(requirement: RequirementId, reason: string): void;
  note(text: string): void;
  /** Records a restore of what the probe changed (it goes to the report, interrupted or not). */
  restored(record: RestoreRecord): void;
  /**
   * The state to restore `ref` to: the run's original (the first write probe's read before the
   * run's first PATCH of it, engine/baseline.ts), whatever `current` (this probe's read before
   * its first PATCH) shows. Marks the probe as writing `ref` until it ends.
   */
  original(ref: string, current: Record<string, unknown>): Record<string, unknown>;
  /**
   * The probe ends with `ref` changed and leaves its restore to the end of the run (global
   * teardown restores the run's original once: engine/baseline.ts): true when the run keeps it
   * for then; false when the probe must restore now (a run of one process).
   */
  handOn(ref: string): boolean;
  /** `ref` is back at the run's original: the end of the run need not restore it. */
  restoredTo(ref: string): void;
  /**
   * What this process has learned of `ref`'s fields that move by themselves (write-lane.ts
   * SelfMoving), shared by the write probes of its lane one after another.
   */
  moving(ref: string): MovingFields;
  /**
   * The read of `path` this process recorded last, when it is the last exchange it recorded, a
   * 200 with an object and recent (engine/run.ts knownRead): the state a write probe starts from
   * without reading again. Undefined otherwise.
   */
  knownRead(path: string): Exchange | undefined;
}

/** Fields of a counterparty seen to change between two reads with no write between. */
export interface MovingFields {
  fields: Set<string>;
  /** Whether two reads with no write between were compared at all (the set may be empty). */
  learned: boolean;
}

export interface Probe {
  /** Stable id naming what it sends, e.g. 'known-counterparty'. */
  id: string;
  /** One line: what it sends and what it expects. */
  title: string;
  /** The requirements it aims to exercise: its own judgements, and the oracles' it sends for. */
  requirements: RequirementId[];
  /** The requirements it judges itself (a subset of `requirements`); the engine refuses others. */
  judges: RequirementId[];
  /**
   * The operations it sends requests to, as spec/openapi.yaml names them (operationId):
   * --operation selects by them, and tests/self/selection.spec.ts holds them against what the
   * probe sends to the reference server.
   */
  operations: readonly string[];
  /**
   * The part of the interface it checks, which names the spec file of the suite a read probe
   * runs in (<group>.spec.ts; the write probes run in the write lanes): probes/index.ts derives
   * the spec file, and --grep matches it.
   */
  group: string;
  /** 'write' probes send PATCH/POST/DELETE and only run with WRITABLE_COUNTERPARTY_REF. */
  access: 'read' | 'write';
  /**
   * For a write probe: true when it never sends to the writable counterparty (only to invented
   * references, which a conforming deployment refuses). It then runs beside anything, not in a
   * lane of the writable counterparties (engine/lanes.ts).
   */
  elsewhere?: boolean;
  /**
   * For a write probe whose cases are accepted PATCHes in order on one counterparty (the long
   * pole of a remote run): with several lanes, it is split into one part per lane, each sending
   * its share of the cases to its lane's counterparty (TargetConfig.part).
   */
  splitAcrossLanes?: boolean;
  /**
   * For a write probe of the lanes, its cost model: the round trips it makes one after another,
   * roughly (one per accepted case, two per batch of refused cases), by which engine/lanes.ts
   * places it. A write probe that declares none counts as a few dozen requests, most of them not
   * on the writable counterparty.
   */
  roundTrips?(target: TargetConfig): number;
  run(ctx: ProbeContext): Promise<void>;
}
