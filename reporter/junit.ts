/**
 * reports/junit.xml for CI systems: one test case per requirement of the catalogue, one test
 * suite per section of interface.md. A test case fails exactly when its requirement fails the
 * gate (a failed MUST; a warned SHOULD in strict mode); its message ends with the first quote
 * of the requirement (the words it rests on) and its text starts with all of them. Warnings
 * outside strict mode pass with the evidence in system-out; waived, skipped and not-run
 * requirements are skipped with the reason. Checks that did not complete are errors in a suite
 * of their own. Every suite carries the run's headline (reporter/headline.ts) in its
 * properties (verdict, verdict.headline, verdict.advice, must.notExercised) and its system-out,
 * so a pass that left MUST requirements unexercised says so with the count.
 */
import { answerLine, bodyLine, quoteText } from './evidence-text.ts';
import { replayLine } from './replay.ts';
import { causeSentence, roleLabel } from './sentences.ts';
import { bySection } from './sections.ts';
import { headline } from './headline.ts';
import type { ConformanceRecord, RequirementRecord } from './record.ts';

/** Escapes text for XML content and attributes; drops characters XML 1.0 cannot hold. */
export function escapeXml(value: unknown): string {
  return (
    String(value)
      // eslint-disable-next-line no-control-regex -- matching control characters is the point
      .replace(/[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu, '\ufffd')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
  );
}

const x = escapeXml;

/**
 * The evidence of a requirement's findings, one cause at a time (engine/finding-groups.ts): the
 * count, the representative finding, the roles of the exchanges it rests on, its curl and replay
 * lines, and the distinct inputs.
 */
function evidence(record: ConformanceRecord, r: RequirementRecord): string {
  return (r.groups ?? [])
    .map((g) => {
      const f = r.findings[g.representative]!;
      const lines = [
        `${causeSentence(g)}. ${f.message}`,
        `  expected: ${f.expected}`,
        `  received: ${f.received}`,
      ];
      if (f.answer) {
        lines.push(`  answer:   ${answerLine(f.answer)}`);
        const body = bodyLine(f.answer);
        if (body !== undefined) lines.push(`  body:     ${body}`);
      }
      if (f.role) lines.push(`  exchange: ${roleLabel(f.role)}`);
      if (f.harEntry !== undefined)
        lines.push(`  entry:    HAR entry ${f.harEntry} (log.entries[${f.harEntry}])`);
      if (f.proxied !== undefined) lines.push(`  exchange: proxied exchange ${f.proxied}`);
      if (f.input !== undefined) lines.push(`  input:    ${JSON.stringify(f.input)}`);
      if (f.rule)
        lines.push(
          `  rule:     ${f.rule.field} ${f.rule.keyword} (${f.rule.keeps ? 'keeps' : 'breaks'}): ${f.rule.description}`,
        );
      for (const c of f.context ?? [])
        lines.push(`  ${`${c.role ?? 'exchange'}:`.padEnd(9)} ${c.request} -> ${c.status || 'no answer'}`);
      if (f.curl) lines.push(`  curl:     ${f.curl}   (API_TOKEN must be set)`);
      const replay = replayLine(record, f);
      if (replay) lines.push(`  replay:   ${replay}`);
      const distinct = g.inputs.length + g.moreInputs;
      if (distinct > 1)
        lines.push(
          `  inputs:   ${distinct} distinct: ${g.inputs.join(', ')}${g.moreInputs > 0 ? `, … ${g.moreInputs} more` : ''}`,
        );
      return lines.join('\n');
    })
    .join('\n\n');
}

/** The first quote of a requirement, to end a failure message: ` — source: "text"`. */
function rule(r: RequirementRecord): string {
  const q = r.quotes[0];
  return q ? ` — ${q.source}: "${quoteText(q)}"` : '';
}

/** Every quote of a requirement, one line each, to head a failure's text. */
function restsOn(r: RequirementRecord): string {
  return (
    r.quotes.map((q) => `rests on ${q.source}: "${quoteText(q)}"\n`).join('') + (r.quotes.length ? '\n' : '')
  );
}

function testCase(record: ConformanceRecord, r: RequirementRecord, seconds: number): string {
  const strict = record.strict;
  const open = `<testcase classname="${x(`interface.md §${r.group}`)}" name="${x(`[${r.level}] ${r.id}: ${r.statement}`)}" time="${seconds.toFixed(3)}">`;
  const close = '</testcase>';
  const first = r.findings[0]?.message ?? '';
  switch (r.status) {
    case 'failed':
      return `${open}<failure message="${x(`${r.id} (${r.section}): ${first}${rule(r)}`)}" type="MUST">${x(restsOn(r) + evidence(record, r))}</failure>${close}`;
    case 'warned':
      return strict
        ? `${open}<failure message="${x(`${r.id} (${r.section}), strict mode: ${first}${rule(r)}`)}" type="SHOULD">${x(restsOn(r) + evidence(record, r))}</failure>${close}`
        : `${open}<system-out>${x(`WARNING (SHOULD, does not fail the gate outside strict mode)\n${evidence(record, r)}`)}</system-out>${close}`;
    case 'waived':
      return `${open}<skipped message="${x(`waived until ${r.waiver?.expires ?? '?'}: ${r.waiver?.reason ?? ''}`)}"/><system-out>${x(evidence(record, r))}</system-out>${close}`;
    case 'not-exercised':
      return `${open}<skipped message="${x(`not exercised: ${r.reasons.join('; ')}`)}"/>${close}`;
    case 'not-selected':
      return `${open}<skipped message="${x(r.reasons.join('; '))}"/>${close}`;
    default:
      return `${open}${close}`;
  }
}

/** The JUnit XML document. */
export function renderJunit(record: ConformanceRecord): string {
  const duration = new Map(record.probes.map((p) => [p.probe, p.durationMs / 1000]));
  const seconds = (r: RequirementRecord): number => r.probes.reduce((s, p) => s + (duration.get(p) ?? 0), 0);
  const fails = (r: RequirementRecord): boolean =>
    r.status === 'failed' || (record.strict && r.status === 'warned');
  const skips = (r: RequirementRecord): boolean =>
    r.status === 'waived' || r.status === 'not-exercised' || r.status === 'not-selected';
  const suites: string[] = [];
  const head = headline(record);
  // Every suite carries the headline (a CI view may show any one suite's output first): a pass
  // that left MUST requirements unexercised says so, with the count, where the skipped count is.
  const verdictOut = `<system-out>${x([head.text, ...(head.advice ? [head.advice] : [])].join('\n'))}</system-out>`;
  const properties = [
    ['target', record.target.baseURL],
    ['target.kind', record.target.kind],
    ...(record.target.reason ? ([['target.reason', record.target.reason]] as const) : []),
    ['interfaceVersion', record.interfaceVersion],
    ['mode', record.mode],
    ['seed', String(record.seed)],
    ['runs', String(record.runs)],
    ['strict', String(record.strict)],
    ...(record.selection ? [['selection', record.selection.label]] : []),
    ...(record.requireExercised ? [['requireExercised', record.requireExercised]] : []),
    ['verdict', record.verdict],
    ['verdict.headline', head.text],
    ...(head.advice ? [['verdict.advice', head.advice]] : []),
    ['must.notExercised', String(record.counts.MUST['not-exercised'])],
    ...record.hints.map((h) => ['hint', h]),
    ...(record.interrupted
      ? [
          ['interrupted', `${record.interrupted.signal ?? 'no signal'}: ${record.interrupted.reason}`],
          [
            'interrupted.restore',
            `${record.interrupted.restore.status}: ${record.interrupted.restore.details.join('; ')}`,
          ],
        ]
      : []),
  ]
    .map(([k, v]) => `<property name="${x(k)}" value="${x(v)}"/>`)
    .join('');
  for (const [group, reqs] of bySection(record.requirements)) {
    const cases = reqs.map((r) => testCase(record, r, seconds(r)));
    suites.push(
      `<testsuite name="${x(reqs[0]!.groupTitle)}" tests="${reqs.length}" failures="${reqs.filter(fails).length}" errors="0" skipped="${reqs.filter(skips).length}" time="${reqs.reduce((s, r) => s + seconds(r), 0).toFixed(3)}" timestamp="${x(record.startedAt)}" id="${x(group)}"><properties>${properties}</properties>${cases.join('')}${verdictOut}</testsuite>`,
    );
  }
  if (record.incomplete.length > 0) {
    const cases = record.incomplete.map(
      (i) =>
        `<testcase classname="probes" name="${x(i.test)}" time="0"><error message="${x(i.error.split('\n')[0])}" type="incomplete">${x(i.error)}</error></testcase>`,
    );
    suites.push(
      `<testsuite name="Probes that did not complete" tests="${cases.length}" failures="0" errors="${cases.length}" skipped="0" time="0" timestamp="${x(record.startedAt)}">${cases.join('')}</testsuite>`,
    );
  }
  const all = record.requirements;
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="payflow-conformance" tests="${all.length + record.incomplete.length}" failures="${all.filter(fails).length}" errors="${record.incomplete.length}" skipped="${all.filter(skips).length}" time="${(record.durationMs / 1000).toFixed(3)}">
${suites.join('\n')}
</testsuites>
`;
}
