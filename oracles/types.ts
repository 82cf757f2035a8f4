/**
 * The vocabulary of oracles. An oracle is a pure function of one exchange, or of a sequence of
 * exchanges on the same counterparty (a PATCH with its reads, two reads, an answer without the
 * representation with the latest that had it), that returns a judgement for each of its requirements it
 * could judge: held, or violated with evidence. It knows nothing of how the exchanges were
 * produced (the suite, a HAR file, a proxy) and imports no probe and no transport.
 */
import type { Exchange } from '../exchange/exchange.ts';
import type { RouteMatch } from '../exchange/route.ts';
import type { RequirementId } from '../spec/requirements.ts';

/** Evidence that a requirement is broken by an exchange. */
export interface Violation {
  requirement: RequirementId;
  /** The exchange that shows it (for a sequence, the one that contradicts the others). */
  exchange: Exchange;
  /** One line: what went wrong. */
  message: string;
  expected: string;
  received: string;
  /** Other exchanges of a sequence the violation rests on (the read before a PATCH, ...). */
  context?: Exchange[];
}

export type Judgement = { requirement: RequirementId; held: true } | ({ held: false } & Violation);

/** An exchange and where it goes in the interface. */
export interface Routed {
  exchange: Exchange;
  /** undefined: no operation of the interface (see `inInterface`). */
  route: RouteMatch | undefined;
  /** The URL is below the interface's /api/v1/ prefix, whether or not an operation matches. */
  inInterface: boolean;
  /** The path of the base URL ('' or '/gateway'), for oracles that model the request (oracles/modelled.ts). */
  basePath?: string;
}

interface OracleBase {
  /** Stable id, kebab-case, naming the rule family, e.g. 'counterparty-response'. */
  id: string;
  /** The requirements it judges. */
  requirements: readonly RequirementId[];
  /**
   * For each requirement: what it is judged on, as a reason a run may have given it nothing to
   * judge, e.g. "no answer carried a Sunset header".
   */
  unexercised: Partial<Record<RequirementId, string>>;
}

/** Judges one exchange at a time. */
export interface ExchangeOracle extends OracleBase {
  kind: 'exchange';
  judge(routed: Routed): Judgement[];
}

/**
 * A PATCH of one counterparty with the state before it and the read after it (engine/judge.ts):
 * before, the last successful read since any earlier PATCH, or the answer of the accepted PATCH
 * just before it when a later read confirmed that answer; after, the read that settles it (within
 * the settle window, CONFORMANCE_SETTLE_MS). Either may be missing.
 */
export interface PatchSequence {
  reference: string;
  before: Exchange | undefined;
  patch: Exchange;
  after: Exchange | undefined;
  /**
   * The other refused PATCHes of the same counterparty sent between the same two reads (a batch
   * sent together); absent when the PATCH was alone between them.
   */
  batch?: Exchange[];
  /**
   * The other accepted PATCHes of the same counterparty that overlapped this one in time (sent by
   * concurrent clients): the deployment may have applied them in either order, so `before` is the
   * state before all of them, and what they sent may show in this one's answer. Absent when it
   * overlapped none. In a group, `after` is given to one of them only, which the group is judged
   * on as a whole (oracles/patch-concurrent.ts).
   */
  concurrent?: Exchange[];
}

/** Judges a PATCH with the reads around it. */
export interface PatchOracle extends OracleBase {
  kind: 'patch';
  judge(sequence: PatchSequence): Judgement[];
}

/** Two successful answers carrying the same counterparty: the first seen, and a later one. */
export interface AnswerPair {
  reference: string;
  first: Exchange;
  later: Exchange;
  /**
   * The accepted PATCHes of other counterparties that ran between the two answers (ended after
   * the first started, started before the later ended): what they sent must not show here
   * (oracles/write-isolation.ts). Absent: none.
   */
  others?: Exchange[];
}

/** Judges what must not change between two answers about the same counterparty. */
export interface PairOracle extends OracleBase {
  kind: 'pair';
  judge(pair: AnswerPair): Judgement[];
}

/**
 * An answer about a counterparty that carries no representation of it (an answer to HEAD, a
 * 304), with the latest answer before it that did: a successful read, or an accepted PATCH's
 * answer (engine/judge.ts). Handed only where no replica may still trail that answer (outside
 * the settle window of a PATCH) and no PATCH since went unanswered.
 */
export interface MetadataAnswer {
  reference: string;
  latest: Exchange;
  exchange: Exchange;
}

/** Judges what an answer without the representation says of it, against the latest that had it. */
export interface MetadataOracle extends OracleBase {
  kind: 'metadata';
  judge(answer: MetadataAnswer): Judgement[];
}

export type Oracle = ExchangeOracle | PatchOracle | PairOracle | MetadataOracle;

/** Builds judgements: `held(id)` and `violated({...})`. */
export const held = (requirement: RequirementId): Judgement => ({ requirement, held: true });
export const violated = (v: Violation): Judgement => ({ ...v, held: false });
