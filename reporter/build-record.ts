/**
 * Builds the record of a run or a validation (reporter/record.ts) from the checks' outcomes and
 * the requirement catalogue: each requirement's verdict after waivers, the gate's reasons and
 * verdict (reporter/gate.ts), what an interruption left and restored, with every secret redacted
 * and every control character escaped.
 */
import type { Durations } from './timeline.ts';
import type { HarKept } from '../exchange/har-file.ts';
import type { PolitenessReport } from '../transport/limiter.ts';
import type { Coverage } from '../engine/coverage.ts';
import type { ProbeOutcome, RestoreRecord } from '../engine/types.ts';
import type { TrafficRecord } from '../engine/validate.ts';
import { verdicts, type SelectedRequirements, type Verdict } from '../engine/verdicts.ts';
import { escapeControlsIn } from '../exchange/escape.ts';
import { spec } from '../spec/index.ts';
import { quotedRow } from '../spec/quote-tables.ts';
import { REQUIREMENTS } from '../spec/requirements.ts';
import { applyWaivers, gateReasons, recordVerdict, type GateResult, type GateStatus } from './gate.ts';
import { setupHints } from './hints.ts';
import { redactValue, secretsFromEnv } from '../exchange/redactors.ts';
import { sectionTitle } from './sections.ts';
import type {
  ConformanceRecord,
  IncompleteCheck,
  InterruptionRecord,
  RecordRun,
  RequirementRecord,
} from './record.ts';
import type { WaiverFile } from '../config/waivers.ts';
import type { Interruption } from '../transport/stop.ts';

/** What a record is built from. */
export interface RecordInput {
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
  /** The command that starts the suite from the run's directory, for the replay lines (config/command.ts). */
  command?: string;
  /** "Today", for waiver expiry (default: now). */
  now?: Date;
  /** Set when the run was interrupted. */
  interrupted?: Interruption;
  /** Restores made for probes whose worker died before theirs (probes/recovery.ts). */
  recoveries?: readonly RestoreRecord[];
  /** The restore, at the end of a run not interrupted, of what the write probes handed on. */
  endRestores?: readonly RestoreRecord[];
  /** Requests sent outside every check (the restores at the run's end): counted in `requests`. */
  housekeepingRequests?: number;
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
  /** The run's timeline (reporter/timeline.ts), for a run of the suite. */
  durations?: Durations;
  /** The mode, when the configuration does not say it (validation: whether the traffic wrote). */
  mode?: 'read-only' | 'write';
}

export function buildRecord(input: RecordInput): ConformanceRecord {
  const vs = verdicts(input.outcomes, {
    interrupted: input.interrupted !== undefined,
    ...(input.selection ? { selected: input.selection } : {}),
  });
  const strict = input.strict ?? false;
  const gate = applyWaivers(vs, input.waivers?.waivers ?? [], input.now ?? new Date());
  const incomplete = incompleteChecks(input);
  const { requirements, counts } = requirementRecords(vs, gate);
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
  const reasons = gateReasons({
    requirements,
    incomplete,
    strict,
    waivers: gate.waivers,
    ...(input.requireExercised ? { requireExercised: input.requireExercised } : {}),
    ...(input.traffic ? { traffic: input.traffic } : {}),
    ...(interrupted ? { interrupted } : {}),
  });
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
    verdict: recordVerdict(reasons, counts.MUST['not-exercised']),
    strict,
    ...(input.requireExercised ? { requireExercised: input.requireExercised } : {}),
    ...(input.selection
      ? { selection: { label: input.selection.label, probes: [...(input.selectedProbes ?? [])] } }
      : {}),
    ...(input.settings ? { settings: input.settings } : {}),
    ...(input.command ? { command: input.command } : {}),
    gateReasons: reasons,
    hints: setupHints(input.outcomes),
    counts,
    requests: input.outcomes.reduce((n, o) => n + o.requests, input.housekeepingRequests ?? 0),
    requirements,
    waivers: { file: input.waivers?.file ?? null, entries: gate.waivers },
    probes: input.outcomes.map(({ findings: _f, ...rest }) => rest),
    incomplete,
    ...(interrupted ? { interrupted } : {}),
    ...(!interrupted && input.endRestores && input.endRestores.length > 0
      ? {
          restore: {
            status: input.endRestores.every((r) => r.status === 'restored') ? 'restored' : 'failed',
            details: input.endRestores.map((r) => r.detail),
          },
        }
      : {}),
    ...(input.coverage ? { coverage: input.coverage } : {}),
    ...(input.traffic ? { traffic: input.traffic } : {}),
    ...(input.pace ? { pace: input.pace } : {}),
    ...(input.durations ? { durations: input.durations } : {}),
    ...(input.kept && (input.kept.cut > 0 || input.kept.omitted > 0) ? { kept: input.kept } : {}),
  };
  // A server may echo the token back (in a body, a header, an error): never let it through. Nor
  // its control characters: the outcomes were escaped where they were made (engine/run.ts), and
  // this holds for outcomes from elsewhere (merged shards) and for Playwright's error texts.
  return escapeControlsIn(redactValue(record, secretsFromEnv({ API_TOKEN: input.run.token })));
}

/**
 * The checks that did not complete: those the run reported, and every expected probe whose test
 * did not even end in this run.
 */
function incompleteChecks(
  input: Pick<RecordInput, 'outcomes' | 'incomplete' | 'expectedProbes' | 'endedTests'>,
): IncompleteCheck[] {
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
  return incomplete;
}

/** Each requirement's verdict after waivers, with its words from the catalogue, and the counts by level and status. */
function requirementRecords(
  vs: readonly Verdict[],
  gate: GateResult,
): { requirements: RequirementRecord[]; counts: ConformanceRecord['counts'] } {
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
      quotes: r.quotes.map((q) => {
        const table = quotedRow(q);
        return { source: q.source, text: q.text, ...(table ? { table } : {}) };
      }),
      ...(g.waiver ? { waiver: g.waiver } : {}),
    };
  });
  return { requirements, counts };
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
