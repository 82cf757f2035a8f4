/**
 * The console summary of a run or a validation: the headline, one line per requirement that did
 * not pass with a few causes and inputs each, the waivers that need attention, why the gate failed,
 * where the reports are (and which chosen ones could not be written), and the headline again as
 * the last line (what a CI log shows last). It renders the typed record (build-record.ts builds
 * it), as the HTML and JUnit renderers do.
 */
import { keptComment } from '../exchange/har-file.ts';
import type { Coverage } from '../engine/coverage.ts';
import type { GateStatus } from './gate.ts';
import { replayLine, runReplayLine } from './replay.ts';
import { headline, type Headline } from './headline.ts';
import { paceLine } from './pace.ts';
import { answerLine, bodyLine } from './evidence-text.ts';
import { provenance } from './provenance.ts';
import { causeSentence } from './sentences.ts';
import type { ConformanceRecord, InterruptionRecord, RequirementRecord } from './record.ts';
import type { UnwrittenReport } from './write-reports.ts';
import { RECORD_FILE, REPORT_WRITERS } from './writers.ts';

const MARK: Record<GateStatus, string> = {
  passed: 'pass',
  failed: 'FAIL',
  warned: 'warn',
  waived: 'WAIV',
  'not-exercised': 'n/e ',
  'not-selected': 'n/s ',
};

/** One line on an interrupted run: by what, and what was restored. */
export function interruptionLine(i: InterruptionRecord): string {
  const restore =
    i.restore.status === 'restored'
      ? 'restored'
      : i.restore.status === 'failed'
        ? 'RESTORE FAILED'
        : i.restore.status === 'unknown'
          ? 'restore unknown'
          : 'nothing to restore';
  return `INTERRUPTED${i.signal ? ` by ${i.signal}` : ''} (${i.reason}): partial report; ${restore}: ${i.restore.details.join('; ')}`;
}

/** Causes shown per requirement in the console, and inputs per cause; the reports hold them all. */
const MAX_GROUPS_SHOWN = 3;
const MAX_INPUTS_SHOWN = 5;

/** The report files a summary points to, by default: every one, in the default reports directory. */
export const DEFAULT_REPORT_PATHS: readonly string[] = REPORT_WRITERS.flatMap((w) =>
  w.files.map((f) => `reports/${f}`),
);

/**
 * The console summary: the verdict, then one line per requirement that did not pass, the
 * waivers that need attention, why the gate failed, and where the reports are.
 */
export function formatSummary(
  record: ConformanceRecord,
  reports: readonly string[] = DEFAULT_REPORT_PATHS,
  options: { colour?: boolean; unwritten?: readonly UnwrittenReport[] } = {},
): string {
  const lines: string[] = [];
  const head = headline(record);
  const paint = (text: string): string =>
    options.colour ? `${TONE_COLOUR[head.tone]}${text}\u001b[0m` : text;
  const c = record.counts;
  const waived = (n: number): string => (n > 0 ? `, ${n} waived` : '');
  // Counts of a record written before the status existed read as none.
  const notSelected = (n: number | undefined): string => (n ? `, ${n} not selected` : '');
  lines.push('');
  const t = record.traffic;
  if (t) {
    const what = t.kind === 'har' ? `HAR file ${t.source}` : `proxy ${t.source}`;
    lines.push(
      `${paint(head.text)}${head.tone === 'partial' ? ':' : ' for'} ${what}, interface ${record.interfaceVersion}${record.strict ? ', strict: SHOULD warnings fail the gate' : ''}`,
    );
    lines.push(
      `  ${t.exchanges} exchange(s): ${t.judged} judged, ${t.outside.count} outside the interface (not judged)${t.overCap ? `, ${t.overCap} over the body cap (not judged)` : ''}${t.cut ? `, ${t.cut} with a body recorded only as its head (not judged)` : ''}`,
    );
  } else
    lines.push(
      `${paint(head.text)}${head.tone === 'partial' ? ':' : ' against'} ${record.target.baseURL || '(no base URL)'} (${record.target.kind}), interface ${record.interfaceVersion}, ${record.mode} run${record.strict ? ', strict: SHOULD warnings fail the gate' : ''}`,
    );
  lines.push(
    `  MUST: ${c.MUST.passed} passed, ${c.MUST.failed} failed${waived(c.MUST.waived)}, ${c.MUST['not-exercised']} not exercised${notSelected(c.MUST['not-selected'])} | SHOULD: ${c.SHOULD.passed} passed, ${c.SHOULD.warned} warned${waived(c.SHOULD.waived)}, ${c.SHOULD['not-exercised']} not exercised${notSelected(c.SHOULD['not-selected'])} | ${record.requests} requests, ${(record.durationMs / 1000).toFixed(1)} s`,
  );
  // The report that lists everything the console leaves out: the record, else the page.
  const jsonReport =
    reports.find((r) => r.endsWith('.json')) ??
    reports.find((r) => r.endsWith('.html')) ??
    `reports/${RECORD_FILE}`;
  if (record.selection) {
    const outside = record.requirements.filter((v) => v.status === 'not-selected').map((v) => v.id);
    lines.push(
      `  Selection: ${record.selection.label} (probes ${record.selection.probes.join(', ')}); ${outside.length} requirement(s) not selected${outside.length > 0 ? ` (${jsonReport} lists them)` : ''}`,
    );
  }
  if (record.interrupted) lines.push(`  ${interruptionLine(record.interrupted)}`);
  if (record.restore)
    lines.push(
      `  Writable counterparty ${record.restore.status === 'restored' ? 'restored' : 'NOT restored'} at the end of the run: ${record.restore.details.join('; ')}`,
    );
  // A passing validation lists what the traffic did not exercise in one line: the traffic covers
  // what its client happened to call, and the reports list each requirement with its reason.
  const briefUnexercised = t !== undefined && record.verdict !== 'fail';
  const unexercisedIds = record.requirements.filter((v) => v.status === 'not-exercised').map((v) => v.id);
  if (briefUnexercised && unexercisedIds.length > 0)
    lines.push(
      `  Not exercised by the traffic: ${unexercisedIds.length} requirement(s) (${jsonReport} gives each with its reason)`,
    );
  for (const v of record.requirements) {
    if (v.status === 'passed' || v.status === 'not-selected') continue;
    if (briefUnexercised && v.status === 'not-exercised') continue;
    let why = '';
    if (v.status === 'not-exercised') why = ` (not exercised: ${v.reasons.join('; ')})`;
    else if (v.status === 'waived' && v.waiver)
      why = ` (waived until ${v.waiver.expires}: ${v.waiver.reason})`;
    else if (v.waiver?.status === 'expired') why = ` (its waiver expired on ${v.waiver.expires})`;
    lines.push(`  [${MARK[v.status]}] ${v.level} ${v.id} (${v.section}): ${v.statement}${why}`);
    if (v.status === 'waived') continue;
    lines.push(...causeLines(record, v, jsonReport));
  }
  for (const i of record.incomplete) lines.push(`  [ERR ] ${i.test}: ${i.error}`);
  const entries = record.waivers.entries;
  if (record.waivers.file !== null) {
    const n = (status: string): number => entries.filter((w) => w.status === status).length;
    lines.push(
      `  Waivers (${record.waivers.file}): ${n('applied')} applied, ${n('expired')} expired, ${n('stale')} stale, ${n('unused')} unused${n('unknown') > 0 ? `, ${n('unknown')} naming no requirement` : ''}${!record.strict && n('stale') + n('unknown') > 0 ? ' (--strict fails the gate on stale ones)' : ''}`,
    );
    for (const w of entries) {
      if (w.status === 'applied') continue;
      lines.push(`  [${w.status} waiver] line ${w.line}, ${w.requirement}: ${w.note}`);
    }
  }
  // Just above the gate's reasons: the likely cause of all of them.
  for (const hint of record.hints) lines.push(`  Hint: ${hint}`);
  for (const reason of record.gateReasons) lines.push(`  Gate: ${reason}`);
  if (record.coverage) lines.push(`  Coverage: ${coverageLine(record.coverage)}`);
  if (record.pace && record.pace.requests > 0) lines.push(`  Pace: ${paceLine(record.pace)}`);
  const kept = record.kept && keptComment(record.kept);
  if (kept) lines.push(`  Kept in exchanges.har: ${kept}`);
  if (!t) lines.push(`  Seed ${record.seed}: replay the run with ${runReplayLine(record)}`);
  lines.push(`  Reports: ${reports.length > 0 ? reports.join(', ') : 'none'}`);
  for (const u of options.unwritten ?? [])
    lines.push(`  Not written: the ${u.name} report (${u.files.join(', ')}): ${u.error}`);
  // The last line repeats the headline: it is what a CI log shows last.
  lines.push(`${paint(`Verdict: ${head.text}`)}${head.advice ? `. ${head.advice}` : ''}`);
  return lines.join('\n');
}

/**
 * The causes of a requirement that did not pass, one group of findings each (engine/finding-groups.ts):
 * its count, a representative with its evidence, curl and replay lines, and the distinct inputs;
 * `full` is the report that holds what is left out.
 */
function causeLines(record: ConformanceRecord, v: RequirementRecord, full: string): string[] {
  const lines: string[] = [];
  const groups = v.groups ?? [];
  for (const g of groups.slice(0, MAX_GROUPS_SHOWN)) {
    const f = v.findings[g.representative]!;
    lines.push(`         ${causeSentence(g)}. ${f.message}`);
    lines.push(`           ${provenance(f)}`);
    lines.push(`           expected ${f.expected}`);
    lines.push(`           received ${f.received.split('\n')[0]}`);
    if (f.answer) {
      lines.push(`           answer ${answerLine(f.answer)}`);
      const body = bodyLine(f.answer, 160);
      if (body !== undefined) lines.push(`           body ${body}`);
    }
    if (f.input !== undefined) lines.push(`           input ${JSON.stringify(f.input)}`);
    if (f.rule) lines.push(`           rule ${f.rule.field} ${f.rule.keyword}: ${f.rule.description}`);
    for (const c of f.context ?? []) {
      lines.push(`           ${c.role ?? 'exchange'}: ${c.request} -> ${c.status || 'no answer'}`);
      // A write the finding rests on (the PATCH before the read judged): its curl too, so what
      // the console shows can be sent again, the input's body included.
      if (!c.request.startsWith('GET ')) lines.push(`             curl: ${c.curl}`);
    }
    if (f.curl) lines.push(`           curl (API_TOKEN must be set): ${f.curl}`);
    const replay = replayLine(record, f);
    if (replay) lines.push(`           replay: ${replay}`);
    const distinct = g.inputs.length + g.moreInputs;
    if (distinct > 1) {
      const shown = g.inputs.slice(0, MAX_INPUTS_SHOWN);
      lines.push(
        `           ${distinct} distinct inputs: ${shown.join(', ')}${distinct > shown.length ? `, … ${distinct - shown.length} more in ${full}` : ''}`,
      );
    }
  }
  if (groups.length > MAX_GROUPS_SHOWN)
    lines.push(`         … ${groups.length - MAX_GROUPS_SHOWN} more cause(s) in ${full}`);
  return lines;
}

/** The headline's colour on a terminal: green, amber (yellow), red; bold. */
const TONE_COLOUR: Record<Headline['tone'], string> = {
  pass: '\u001b[1;32m',
  partial: '\u001b[1;33m',
  fail: '\u001b[1;31m',
};

/** Whether the console summary may be coloured: a terminal or FORCE_COLOR, and no NO_COLOR. */
export function summaryColour(env: NodeJS.ProcessEnv, isTTY: boolean): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return isTTY;
}

/** "9 of 14 operations exercised; not: createX, deleteY" */
export function coverageLine(c: Coverage): string {
  const hit = c.operations.filter((o) => o.exchanges > 0);
  const missed = c.operations.filter((o) => o.exchanges === 0).map((o) => o.operationId);
  return `${hit.length} of ${c.operations.length} operations exercised${missed.length > 0 ? `; none for ${missed.join(', ')}` : ''}`;
}
