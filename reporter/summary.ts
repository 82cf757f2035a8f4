/**
 * The machine-readable record of a conformance run, built from check outcomes and the
 * requirement catalogue. Written to reports/conformance.json; the CLI's exit status and the
 * console summary are derived from it.
 */
import type { HarKept } from '../exchange/har-file.ts';
import type { PolitenessReport } from '../transport/limiter.ts';
import type { Coverage } from '../engine/coverage.ts';
import type { Finding, ProbeOutcome, RestoreRecord } from '../engine/types.ts';
import type { TrafficRecord } from '../engine/validate.ts';
import { verdicts, type SelectedRequirements, type Verdict } from '../engine/verdicts.ts';
import { escapeControlsIn } from '../exchange/escape.ts';
import { oracleFileOf } from '../oracles/described.ts';
import { probeFileOf } from '../probes/described.ts';
import { spec } from '../spec/index.ts';
import { REQUIREMENTS, type Quote } from '../spec/requirements.ts';
import { applyWaivers, gateReasons, type GateStatus, type JudgedWaiver, type RecordVerdict } from './gate.ts';
import { setupHints } from './hints.ts';
import { replayLine } from './replay.ts';
import { redactValue, secretsFromEnv } from '../exchange/redactors.ts';
import { sectionTitle } from './sections.ts';
import type { WaiverFile } from '../config/waivers.ts';
import type { Interruption } from '../transport/stop.ts';

export type { GateStatus } from './gate.ts';

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
  quotes: Quote[];
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

export { gatePassed, type RecordVerdict } from './gate.ts';

/**
 * The headline every renderer leads with (console, HTML banner, JUnit, the workflow summary):
 * a full pass, a pass that left MUST requirements unexercised (with their count and how to make
 * them count), or a failure. One wording, so no renderer says less than another.
 */
export interface Headline {
  /** pass: green; partial: amber; fail: red. */
  tone: 'pass' | 'partial' | 'fail';
  /** "Conformance PASSED, 12 of 36 MUST requirements not exercised" */
  text: string;
  /** The MUST requirements of the run's selection that nothing judged (0 unless partial). */
  unexercisedMust: number;
  /** Of how many MUST requirements the run selected. */
  selectedMust: number;
  /** For a partial pass: what it means and what to do, one sentence. */
  advice?: string;
}

export function headline(
  record: Pick<ConformanceRecord, 'verdict' | 'counts' | 'traffic' | 'requireExercised'>,
): Headline {
  const title = record.traffic ? 'Validation' : 'Conformance';
  const m = record.counts.MUST;
  const unexercisedMust = m['not-exercised'];
  const selectedMust = m.passed + m.failed + m.warned + m.waived + m['not-exercised'];
  if (record.verdict === 'fail')
    return { tone: 'fail', text: `${title} FAILED`, unexercisedMust: 0, selectedMust };
  if (record.verdict === 'pass' || unexercisedMust === 0)
    return { tone: 'pass', text: `${title} PASSED`, unexercisedMust: 0, selectedMust };
  const what = record.traffic ? 'the traffic did not exercise them' : 'this run did not exercise them';
  const advice = record.traffic
    ? `Passed only on what the traffic exercised: ${unexercisedMust} of ${selectedMust} MUST requirements were not judged (${what}), so they are not known to hold.`
    : `Passed only on what was exercised: ${unexercisedMust} of ${selectedMust} MUST requirements were not judged (${what}), so they are not known to hold; see why each was not exercised, and run with --require-exercised must to make them fail the gate.`;
  return {
    tone: 'partial',
    text: `${title} PASSED, ${unexercisedMust} of ${selectedMust} MUST requirements not exercised`,
    unexercisedMust,
    selectedMust,
    advice,
  };
}

export function buildRecord(input: {
  outcomes: ProbeOutcome[];
  incomplete: IncompleteCheck[];
  run: RecordRun;
  startedAt: Date;
  durationMs: number;
  /** The waivers of the run (default: none). */
  waivers?: WaiverFile;
  strict?: boolean;
  /**
   * The probes the run must produce an outcome for; one whose test did not even end in this run
   * (a missing shard, a filtered or interrupted run) is an incomplete probe.
   */
  expectedProbes?: readonly string[];
  /** The titles of every test that ended in this run ("<probe id>: <title>"). */
  endedTests?: readonly string[];
  /** The probes the run was limited to; undefined: every probe. */
  selectedProbes?: readonly string[];
  /** The requirements the run was limited to (config/selection.ts); undefined: every one. */
  selection?: SelectedRequirements;
  /** --require-exercised: the gate fails when a selected requirement of that level was not exercised. */
  requireExercised?: 'must' | 'all';
  /** Every setting of the run but the token, for the replay lines (run/resolve.ts). */
  settings?: Record<string, string>;
  /** "Today", for waiver expiry (default: now). */
  now?: Date;
  /** Set when the run was interrupted. */
  interrupted?: Interruption;
  /** Restores made for probes whose worker died before theirs (probes/recovery.ts). */
  recoveries?: readonly RestoreRecord[];
  /** The write probes (default: none): one without an outcome leaves an interrupted restore unknown. */
  writeProbes?: readonly string[];
  /** The interface coverage of the traffic. */
  coverage?: Coverage;
  /** The traffic validated (HAR file, proxy), when it is not a run of the suite. */
  traffic?: TrafficRecord;
  /** The pace the run kept. */
  pace?: PolitenessReport;
  /** What the traffic's HAR file kept of its bodies (recorded when it did not keep them all whole). */
  kept?: HarKept;
  /** The mode, when the configuration does not say it (validation: whether the traffic wrote). */
  mode?: 'read-only' | 'write';
}): ConformanceRecord {
  const vs = verdicts(input.outcomes, {
    interrupted: input.interrupted !== undefined,
    ...(input.selection ? { selected: input.selection } : {}),
  });
  const strict = input.strict ?? false;
  const gate = applyWaivers(vs, input.waivers?.waivers ?? [], input.now ?? new Date());
  const incomplete = [...input.incomplete];
  const ran = new Set(input.outcomes.map((o) => o.probe));
  const ended = [...(input.endedTests ?? []), ...incomplete.map((i) => i.test)];
  for (const id of input.expectedProbes ?? []) {
    if (ran.has(id) || ended.some((t) => t === id || t.startsWith(`${id}:`))) continue;
    incomplete.push({
      test: id,
      error:
        'no outcome: the probe did not run (a missing shard, a --grep filter, an interrupted run, or no test defines it)',
    });
  }
  const empty = (): Record<GateStatus, number> => ({
    passed: 0,
    failed: 0,
    warned: 0,
    waived: 0,
    'not-exercised': 0,
    'not-selected': 0,
  });
  const counts = { MUST: empty(), SHOULD: empty() };
  const requirements: RequirementRecord[] = vs.map((v) => {
    const r = REQUIREMENTS.find((x) => x.id === v.id)!;
    const g = gate.statuses.get(v.id)!;
    counts[v.level][g.status]++;
    return {
      ...v,
      status: g.status,
      section: r.section,
      group: r.group,
      groupTitle: sectionTitle(r.group),
      statement: r.statement,
      ...('rationale' in r ? { rationale: r.rationale } : {}),
      quotes: r.quotes.map((q) => ({ source: q.source, text: q.text })),
      ...(g.waiver ? { waiver: g.waiver } : {}),
    };
  });
  const reasons = gateReasons({
    requirements,
    incomplete,
    strict,
    ...(input.requireExercised ? { requireExercised: input.requireExercised } : {}),
  });
  // A gate over traffic that held nothing to judge (a client pointed elsewhere) must not pass.
  if (input.traffic && input.traffic.judged === 0)
    reasons.push(
      `the traffic held no exchange of the interface (${input.traffic.exchanges} exchange(s), none below /api/v1/): nothing was judged`,
    );
  const mode = input.mode ?? (input.run.writableRef ? 'write' : 'read-only');
  const interrupted =
    input.interrupted &&
    interruptionRecord(
      input.interrupted,
      input.outcomes,
      mode,
      input.writeProbes ?? [],
      input.recoveries ?? [],
    );
  if (interrupted) {
    const by = interrupted.signal ? ` by ${interrupted.signal}` : '';
    reasons.unshift(
      `the run was interrupted${by} (${interrupted.reason}): this report is partial, the checks after the stop were not run`,
    );
  }
  const record: ConformanceRecord = {
    tool: 'payflow-conformance',
    interfaceVersion: spec().version,
    target: {
      baseURL: input.run.baseURL ?? '',
      kind: input.run.targetKind ?? 'configured deployment',
      ...(input.run.targetReason ? { reason: input.run.targetReason } : {}),
    },
    mode,
    seed: input.run.seed ?? 0,
    runs: input.run.runs ?? 0,
    startedAt: input.startedAt.toISOString(),
    durationMs: Math.round(input.durationMs),
    verdict: reasons.length > 0 ? 'fail' : counts.MUST['not-exercised'] > 0 ? 'pass-unexercised' : 'pass',
    strict,
    ...(input.requireExercised ? { requireExercised: input.requireExercised } : {}),
    ...(input.selection
      ? { selection: { label: input.selection.label, probes: [...(input.selectedProbes ?? [])] } }
      : {}),
    ...(input.settings ? { settings: input.settings } : {}),
    gateReasons: reasons,
    hints: setupHints(input.outcomes),
    counts,
    requests: input.outcomes.reduce((n, o) => n + o.requests, 0),
    requirements,
    waivers: { file: input.waivers?.file ?? null, entries: gate.waivers },
    probes: input.outcomes.map(({ findings: _f, ...rest }) => rest),
    incomplete,
    ...(interrupted ? { interrupted } : {}),
    ...(input.coverage ? { coverage: input.coverage } : {}),
    ...(input.traffic ? { traffic: input.traffic } : {}),
    ...(input.pace ? { pace: input.pace } : {}),
    ...(input.kept && (input.kept.cut > 0 || input.kept.omitted > 0) ? { kept: input.kept } : {}),
  };
  // A server may echo the token back (in a body, a header, an error): never let it through. Nor
  // its control characters: the outcomes were escaped where they were made (engine/run.ts), and
  // this holds for outcomes from elsewhere (merged shards) and for Playwright's error texts.
  return escapeControlsIn(redactValue(record, secretsFromEnv({ API_TOKEN: input.run.token })));
}

/** The interruption with the restore sent after it, summed up from the probes' restores. */
function interruptionRecord(
  interruption: Interruption,
  outcomes: readonly ProbeOutcome[],
  mode: 'read-only' | 'write',
  writeProbes: readonly string[],
  recoveries: readonly RestoreRecord[],
): InterruptionRecord {
  const base = { signal: interruption.signal, reason: interruption.reason };
  const after: RestoreRecord[] = [
    ...outcomes.flatMap((o) => o.restores ?? []).filter((r) => r.afterInterrupt),
    ...recoveries,
  ];
  if (after.length > 0) {
    const status = after.every((r) => r.status === 'restored') ? 'restored' : 'failed';
    return { ...base, restore: { status, details: after.map((r) => r.detail) } };
  }
  if (mode === 'read-only')
    return { ...base, restore: { status: 'none-needed', details: ['read-only run: nothing was written'] } };
  const ended = new Set(outcomes.map((o) => o.probe));
  const unknown = writeProbes.filter((p) => !ended.has(p));
  if (unknown.length > 0)
    return {
      ...base,
      restore: {
        status: 'unknown',
        details: [
          `${unknown.join(', ')} ended without an outcome: whether the writable counterparty's details were put back is not known; compare them with an earlier report`,
        ],
      },
    };
  return {
    ...base,
    restore: {
      status: 'none-needed',
      details: ["no check was changing the writable counterparty's details when the run stopped"],
    },
  };
}

/** "oracle x (oracles/x.ts)" or "probe y (probes/z.ts)": one hop from a report line to the code. */
export function judgeName(id: string): string {
  const oracle = oracleFileOf(id);
  if (oracle) return `oracle ${id} (${oracle})`;
  const probe = probeFileOf(id);
  return probe ? `probe ${id} (${probe})` : id;
}

/** Who judged a finding and who sent the exchange it rests on, in one line. */
export function provenance(f: Finding & { probe?: string }): string {
  if (f.harEntry !== undefined)
    return `judged by ${judgeName(f.judgedBy)}, on HAR entry ${f.harEntry} (log.entries[${f.harEntry}])`;
  if (f.proxied !== undefined) return `judged by ${judgeName(f.judgedBy)}, on proxied exchange ${f.proxied}`;
  const sent = f.sentBy ?? f.probe;
  return `judged by ${judgeName(f.judgedBy)}${sent ? `, on ${f.role ? `the ${f.role} ` : 'an exchange '}sent by ${judgeName(sent)}` : ''}`;
}

/** The command that runs again the one probe (and case) of a finding: reporter/replay.ts. */
export const replayCommand = replayLine;

/** One line on the pace a run kept: its effective rate, what was in flight, and the back-offs. */
export function paceLine(pace: PolitenessReport): string {
  const kind = pace.adaptive ? 'adaptive' : 'fixed limits';
  const backoffs = pace.backoffs.length;
  const reasons = [...new Set(pace.backoffs.map((b) => b.reason))].join(', ');
  return (
    `${pace.effectiveRps.toFixed(1)} requests/s while sending (${kind}), at most ${pace.maxInFlight} in flight; ` +
    (backoffs === 0 ? 'no back-off' : `${backoffs} back-off(s) (${reasons}): see the report`)
  );
}
