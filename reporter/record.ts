/**
 * The record of a run (or of a validation): its types. reports/conformance.json is this record as
 * JSON (its schema: reporter/conformance-record.schema.json); every report and the console
 * summary render it, and the gate's verdict is one of its fields. Built by build-record.ts.
 */
import type { Durations } from './timeline.ts';
import type { HarKept } from '../exchange/har-file.ts';
import type { PolitenessReport } from '../transport/limiter.ts';
import type { Coverage } from '../engine/coverage.ts';
import type { ProbeOutcome } from '../engine/types.ts';
import type { TrafficRecord } from '../engine/validate.ts';
import type { Verdict } from '../engine/verdicts.ts';
import type { QuotedRow } from '../spec/quote-tables.ts';
import type { Quote } from '../spec/requirements.ts';
import type { GateStatus, JudgedWaiver, RecordVerdict } from './gate.ts';
import type { Interruption } from '../transport/stop.ts';

export type { GateStatus, RecordVerdict } from './gate.ts';

export interface IncompleteCheck {
  test: string;
  error: string;
}

/** What an interrupted run did before it stopped, and what it put back. */
export interface InterruptionRecord extends Interruption {
  /**
   * The restore of the writable counterparty's details sent after the stop: restored, failed,
   * none needed (no check was changing them when the run stopped, or a read-only run), or
   * unknown (a write check ended without an outcome, so whether it restored is not known).
   */
  restore: {
    status: 'restored' | 'failed' | 'none-needed' | 'unknown';
    /** One line each: what was restored, or why not. */
    details: string[];
  };
}

/** A quote as the record holds it: a row of a table of interface.md with its table's header, cell by cell. */
export interface RecordQuote extends Quote {
  table?: QuotedRow;
}

export interface RequirementRecord extends Omit<Verdict, 'status'> {
  /** The verdict after waivers: a failed or warned requirement under an active waiver is waived. */
  status: GateStatus;
  /** Where the rule comes from, e.g. "interface.md §4.1; RFC 8259 §11". */
  section: string;
  /** The section of interface.md it is grouped under, e.g. "4.1", and that section's heading. */
  group: string;
  groupTitle: string;
  statement: string;
  rationale?: string;
  /**
   * The words the rule rests on, quoted from interface.md or an RFC (at least one, the most
   * direct first), each with its source, e.g. "interface.md §7" or "RFC 9110 §15.5.2".
   */
  quotes: RecordQuote[];
  /** The waiver naming this requirement, whatever its status. */
  waiver?: JudgedWaiver;
}

export interface ConformanceRecord {
  tool: 'payflow-conformance';
  interfaceVersion: string;
  target: { baseURL: string; kind: string; reason?: string };
  mode: 'read-only' | 'write';
  seed: number;
  runs: number;
  startedAt: string;
  durationMs: number;
  /**
   * The gate's verdict. pass: no MUST requirement failed (waived ones aside), no SHOULD
   * requirement warned in strict mode, every check completed, and every selected MUST requirement
   * was exercised. pass-unexercised: the gate passed (exit status 0) but some selected MUST
   * requirements were not exercised, so the run shows less than a full pass
   * (`counts.MUST['not-exercised']` says how many; --require-exercised must fails the gate on
   * them). fail: the gate failed.
   */
  verdict: RecordVerdict;
  /** Strict mode: SHOULD warnings fail the gate too. */
  strict: boolean;
  /** --require-exercised: selected requirements of that level that were not exercised fail the gate. */
  requireExercised?: 'must' | 'all';
  /** What the run was limited to (--probe, --requirement, --operation, --level, --grep). */
  selection?: { label: string; probes: string[] };
  /**
   * Every setting of the run but the token, as the environment assignments a replay line carries
   * (reporter/replay.ts).
   */
  settings?: Record<string, string>;
  /**
   * The command that starts this copy of the suite from the directory the run was started from
   * (config/command.ts), which the replay lines begin with.
   */
  command?: string;
  /** Why the gate failed, one line each (empty when it passed). */
  gateReasons: string[];
  /**
   * What the answers say about the setup rather than the deployment, one line each: no request
   * sent with API_TOKEN succeeded and most were answered 401 or 403 (reporter/hints.ts).
   */
  hints: string[];
  counts: Record<'MUST' | 'SHOULD', Record<GateStatus, number>>;
  requests: number;
  requirements: RequirementRecord[];
  /** The waiver file of the run (null: none) and every waiver in it, judged. */
  waivers: { file: string | null; entries: JudgedWaiver[] };
  probes: Omit<ProbeOutcome, 'findings'>[];
  incomplete: IncompleteCheck[];
  /**
   * Present when the run was interrupted (SIGINT or SIGTERM, the CLI gone): the report is
   * partial, and says what was restored.
   */
  interrupted?: InterruptionRecord;
  /**
   * The restore of the writable counterparties' details at the end of a write run that was not
   * interrupted: the write checks hand their changes on to one another, and global teardown puts
   * the run's original back once (engine/baseline.ts). Housekeeping: it does not weigh on the
   * verdict. Absent when nothing was left changed, or in a run of one process.
   */
  restore?: { status: 'restored' | 'failed'; details: string[] };
  /**
   * Interface coverage: per operation, how many exchanges called it (each judged by every
   * exchange oracle that applies); with `judged` per requirement.
   */
  coverage?: Coverage;
  /** Present when the record judges traffic the suite did not send: a HAR file or a proxy session. */
  traffic?: TrafficRecord;
  /**
   * The pace the run kept (transport/limiter.ts, every worker's summed): the effective rate, the
   * most requests in flight, and every back-off with why.
   */
  pace?: PolitenessReport;
  /**
   * Present when exchanges.har did not keep every body whole (exchange/kept.ts, exchange/har-file.ts):
   * the bodies written as their head, length and SHA-256, and the exchanges left out.
   */
  kept?: HarKept;
  /**
   * The timeline of a run of the suite (reporter/timeline.ts): when its process started, and the
   * milliseconds after it of each step known when the record was built. Absent for validation
   * and merges.
   */
  durations?: Durations;
}

/**
 * The run a record is of, typed, as the configuration resolved it (run/resolve.ts) and global
 * setup completed it (the embedded server's URL, the kind of target); for traffic the suite did
 * not send, its source.
 */
export interface RecordRun {
  /** The target's base URL, or the traffic's source. */
  baseURL?: string;
  /** What the target is (default: a configured deployment). */
  targetKind?: string;
  /** Why this target: the setting that named it, or that none was given (config/target.ts). */
  targetReason?: string;
  /** The token: redacted wherever the record would hold it. */
  token?: string;
  /** The writable counterparty: a run with one is in write mode. */
  writableRef?: string;
  seed?: number;
  runs?: number;
}
