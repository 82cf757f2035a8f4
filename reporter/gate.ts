/**
 * The release gate: which requirement verdicts fail a run, after waivers and strict mode.
 *   - a failed MUST requirement fails the gate, unless an unexpired waiver names it (waived);
 *   - a warned SHOULD requirement fails the gate only in strict mode, unless waived;
 *   - a check that did not complete always fails the gate;
 *   - with --require-exercised must (or all), a selected MUST requirement (or any selected one)
 *     that was not exercised fails the gate, with its reasons; one not selected is not required;
 *   - an interrupted run fails the gate (its report is partial), and so does traffic that held no
 *     exchange of the interface (nothing was judged).
 * Waivers are also judged, so the file is kept clean: applied, expired (the failure counts
 * again), stale (the requirement passed: remove the waiver, whatever its date), unused (the
 * requirement was not exercised in this run) or unknown (it names no requirement of the
 * catalogue). In strict mode a stale or unknown waiver fails the gate, as a stale entry of an
 * allowlist does: a waiver that waives nothing hides the next deviation of its requirement.
 */
import type { Verdict, VerdictStatus } from '../engine/verdicts.ts';
import type { Waiver } from '../config/waivers.ts';

export type GateStatus = VerdictStatus | 'waived';

/** The gate's verdict, qualified when MUST requirements were left unexercised. */
export type RecordVerdict = 'pass' | 'pass-unexercised' | 'fail';

/**
 * Whether a record's gate passed: a qualified pass is a pass (exit status 0). Here rather than
 * with the record (reporter/build-record.ts), so that a command reading a record's verdict loads
 * none of what builds one.
 */
export function gatePassed(record: { verdict: RecordVerdict }): boolean {
  return record.verdict !== 'fail';
}

export type WaiverStatus = 'applied' | 'expired' | 'stale' | 'unused' | 'unknown';

/** The waiver statuses that fail the gate in strict mode: the waiver waives nothing. */
export const STALE_WAIVER_STATUSES: readonly WaiverStatus[] = ['stale', 'unknown'];

export interface JudgedWaiver extends Waiver {
  status: WaiverStatus;
  /** One line: what the status means for this waiver. */
  note: string;
}

/** The UTC calendar day of `now`, YYYY-MM-DD. */
export function utcDay(now: Date): string {
  return now.toISOString().slice(0, 10);
}

/** A waiver applies through its expiry day (UTC) and has expired from the day after. */
export function isExpired(waiver: Pick<Waiver, 'expires'>, now: Date): boolean {
  return waiver.expires < utcDay(now);
}

export interface GateResult {
  /** The status of each requirement after waivers, by id. */
  statuses: Map<string, { status: GateStatus; waiver?: JudgedWaiver }>;
  waivers: JudgedWaiver[];
}

/** Applies the waivers to the verdicts and judges each waiver. */
export function applyWaivers(
  verdicts: readonly Verdict[],
  waivers: readonly Waiver[],
  now: Date,
): GateResult {
  const byId = new Map(waivers.map((w) => [w.requirement, w]));
  const judged = new Map<string, JudgedWaiver>();
  for (const w of waivers) {
    const v = verdicts.find((x) => x.id === w.requirement);
    const broken = v?.status === 'failed' || v?.status === 'warned';
    let status: WaiverStatus;
    let note: string;
    if (v === undefined) {
      status = 'unknown';
      note = `${w.requirement} is no requirement of the catalogue (spec/requirements.ts): correct the id or remove the waiver`;
    } else if (v.status === 'passed') {
      status = 'stale';
      note = `${w.requirement} passed in this run: remove the waiver`;
    } else if (isExpired(w, now)) {
      status = 'expired';
      note = broken
        ? `expired on ${w.expires}: the ${v.status === 'failed' ? 'failure' : 'warning'} counts again; fix it, or renew the waiver with a reason`
        : `expired on ${w.expires}: remove it from the waiver file`;
    } else if (broken) {
      status = 'applied';
      note = `waives the ${v.status === 'failed' ? 'failure' : 'warning'} until ${w.expires}`;
    } else {
      status = 'unused';
      note = `${w.requirement} was not judged in this run (${v.status}), so the waiver was not needed`;
    }
    judged.set(w.requirement, { ...w, status, note });
  }
  const statuses = new Map<string, { status: GateStatus; waiver?: JudgedWaiver }>();
  for (const v of verdicts) {
    const waiver = byId.has(v.id) ? judged.get(v.id) : undefined;
    statuses.set(v.id, {
      status: waiver?.status === 'applied' ? 'waived' : v.status,
      ...(waiver ? { waiver } : {}),
    });
  }
  return { statuses, waivers: waivers.map((w) => judged.get(w.requirement)!) };
}

/** Why the gate fails (empty: it passes). */
export function gateReasons(input: {
  requirements: readonly {
    id: string;
    level: 'MUST' | 'SHOULD';
    status: GateStatus;
    reasons: readonly string[];
  }[];
  incomplete: readonly { test: string }[];
  strict: boolean;
  requireExercised?: 'must' | 'all';
  /** The traffic judged, when the record is of traffic the suite did not send. */
  traffic?: { exchanges: number; judged: number };
  /** Set when the run was interrupted. */
  interrupted?: { signal: string | null; reason: string };
  /** The waivers of the run, judged: in strict mode a stale or unknown one fails the gate. */
  waivers?: readonly JudgedWaiver[];
}): string[] {
  const reasons: string[] = [];
  if (input.interrupted) {
    const by = input.interrupted.signal ? ` by ${input.interrupted.signal}` : '';
    reasons.push(
      `the run was interrupted${by} (${input.interrupted.reason}): this report is partial, the checks after the stop were not run`,
    );
  }
  const failed = input.requirements.filter((r) => r.status === 'failed');
  if (failed.length > 0)
    reasons.push(`${failed.length} MUST requirement(s) failed: ${failed.map((r) => r.id).join(', ')}`);
  const warned = input.requirements.filter((r) => r.status === 'warned');
  if (input.strict && warned.length > 0)
    reasons.push(
      `${warned.length} SHOULD requirement(s) warned in strict mode: ${warned.map((r) => r.id).join(', ')}`,
    );
  const stale = (input.waivers ?? []).filter((w) => STALE_WAIVER_STATUSES.includes(w.status));
  if (input.strict && stale.length > 0)
    reasons.push(
      `${stale.length} waiver(s) that waive nothing, in strict mode: ${stale.map((w) => `line ${w.line}, ${w.requirement} (${w.status === 'stale' ? 'it passed' : 'no such requirement'})`).join('; ')}`,
    );
  const required = input.requireExercised;
  const unexercised = input.requirements.filter(
    (r) =>
      r.status === 'not-exercised' && (required === 'all' || (required === 'must' && r.level === 'MUST')),
  );
  if (unexercised.length > 0)
    reasons.push(
      `${unexercised.length} ${required === 'must' ? 'MUST ' : ''}requirement(s) not exercised (--require-exercised ${required}): ${unexercised.map((r) => `${r.id} (${r.reasons.join('; ')})`).join(', ')}`,
    );
  if (input.incomplete.length > 0)
    reasons.push(
      `${input.incomplete.length} check(s) did not complete: ${input.incomplete.map((i) => i.test).join(', ')}`,
    );
  // A gate over traffic that held nothing to judge (a client pointed elsewhere) must not pass.
  if (input.traffic && input.traffic.judged === 0)
    reasons.push(
      `the traffic held no exchange of the interface (${input.traffic.exchanges} exchange(s), none below /api/v1/): nothing was judged`,
    );
  return reasons;
}

/**
 * The gate's verdict from its reasons (gateReasons): a failure when there is any, else a pass,
 * qualified when selected MUST requirements were not exercised.
 */
export function recordVerdict(reasons: readonly string[], mustNotExercised: number): RecordVerdict {
  if (reasons.length > 0) return 'fail';
  return mustNotExercised > 0 ? 'pass-unexercised' : 'pass';
}
