/**
 * The report's picture of what a run tried, read in seconds: per operation, the statuses it
 * answered; per field of the requests (path and query parameters, the PATCH counterparty body),
 * whether a value sat at each bound and one past it, and which of its rules were broken, how
 * often, and which never; per requirement, exercised or not, and why not. Everything in it comes
 * from the record (`coverage`, `requirements`), where conformance.json has it in full.
 */
import type { BoundTried, FieldTried, RuleTried } from '../engine/fields-tried.ts';
import type { OperationCoverage } from '../engine/coverage.ts';
import { escapeHtml as esc } from './escape-html.ts';
import type { ConformanceRecord, RequirementRecord } from './record.ts';

/** The grid's own styles, added to the page's stylesheet. */
export const GRID_CSS = `
section#coverage .grid{font-size:13px}section#coverage .grid td{vertical-align:middle}
.g-chips{display:flex;flex-wrap:wrap;gap:3px 4px}
.g{display:inline-block;border:1px solid var(--line);border-radius:10px;padding:0 7px;font-size:12px;white-space:nowrap;background:#fff}
.g.s2{background:#dafbe1;border-color:#8fd19e}.g.s3{background:#ddf4ff;border-color:#80ccff}.g.s4{background:#fff8c5;border-color:#d4a72c}.g.s5{background:#ffebe9;border-color:#f5a3a9}.g.s0{background:#eaeef2}
.g.tried{background:#dafbe1;border-color:#8fd19e}.g.half{background:#fff8c5;border-color:#d4a72c}.g.never{color:#6e7781;border-style:dashed}
.g.passed{background:#dafbe1;border-color:#8fd19e}.g.failed{background:#ffebe9;border-color:var(--fail);font-weight:700}.g.warned{background:#fff8c5;border-color:var(--warn)}.g.waived{background:#f5f0ff;border-color:var(--waive)}.g.not-exercised,.g.not-selected{color:#6e7781;border-style:dashed}
a.g{text-decoration:none;color:inherit}
tr.g-in th{background:var(--bg);text-align:left}section#coverage th code,section#coverage td code{overflow-wrap:normal;word-break:normal}code.g-path{color:#57606a;font-size:12px}
ul.g-why{margin:4px 0 12px;padding-left:20px}ul.g-why li{margin:2px 0}
@media (max-width:760px){table.coverage.grid th,table.coverage.grid td{min-width:0}}
`;

/** The class of a status for its colour: s2, s3, s4, s5, or s0 for no answer. */
function statusClass(status: number): string {
  return status === 0 ? 's0' : `s${Math.floor(status / 100)}`;
}

function statusChips(o: OperationCoverage): string {
  if (o.statuses.length === 0) return '<span class="muted">not called</span>';
  return o.statuses
    .map(
      (s) =>
        `<span class="g ${statusClass(s.status)}">${s.status === 0 ? 'no answer' : esc(s.status)} ×${esc(s.count)}</span>`,
    )
    .join('');
}

function renderOperations(operations: readonly OperationCoverage[]): string {
  const rows = operations.map(
    (o) =>
      `<tr><td><code>${esc(o.operationId)}</code><br><code class="g-path">${esc(o.method)} ${esc(o.path).replace(/\//g, '/<wbr>')}</code></td><td>${esc(o.exchanges)}</td><td><div class="g-chips">${statusChips(o)}</div></td></tr>`,
  );
  return `<table class="coverage grid"><caption>Statuses seen, per operation</caption><thead><tr><th scope="col">Operation</th><th scope="col">Exchanges</th><th scope="col">Statuses seen</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** A bound: at it and one past it, both tried, one of them, or neither. */
function boundChip(b: BoundTried): string {
  const tone = b.at > 0 && b.past > 0 ? 'tried' : b.at > 0 || b.past > 0 ? 'half' : 'never';
  return `<span class="g ${tone}">${esc(b.keyword)} ${esc(b.limit)}: at ${esc(b.at)} · past ${esc(b.past)}</span>`;
}

/** A rule of the field: broken how often, or never. */
function ruleChip(r: RuleTried): string {
  return r.broken > 0
    ? `<span class="g tried" title="${esc(r.rule)}">${esc(r.class)} ×${esc(r.broken)}</span>`
    : `<span class="g never" title="${esc(r.rule)}: never broken">${esc(r.class)}</span>`;
}

/** A field's dotted name, which may wrap after a dot but never inside a name. */
function fieldName(field: string): string {
  return esc(field).replace(/\./g, '.<wbr>');
}

const WHERE_TITLE: Record<FieldTried['in'], string> = {
  path: 'Path parameters',
  query: 'Query parameters',
  body: 'The PATCH counterparty body',
};

function renderFields(fields: readonly FieldTried[]): string {
  const rows: string[] = [];
  for (const where of ['path', 'query', 'body'] as const) {
    const these = fields.filter((f) => f.in === where);
    if (these.length === 0) continue;
    rows.push(`<tr class="g-in"><th colspan="4" scope="rowgroup">${esc(WHERE_TITLE[where])}</th></tr>`);
    for (const f of these)
      rows.push(
        `<tr><th scope="row"><code>${fieldName(f.field)}</code></th><td>${esc(f.sent)}</td><td><div class="g-chips">${f.bounds.map(boundChip).join('') || '<span class="muted">none</span>'}</div></td><td><div class="g-chips">${f.rules.map(ruleChip).join('')}</div></td></tr>`,
      );
  }
  return `<table class="coverage grid"><caption>Fields: the bounds tried (a value at the bound, and one past it) and the rules broken, how often; dashed: never broken</caption><thead><tr><th scope="col">Field</th><th scope="col">Sent</th><th scope="col">Bounds</th><th scope="col">Rules broken</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

function anchor(id: string): string {
  return `req-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

/** One chip per requirement, then why those not exercised were not, one line per reason. */
function renderRequirements(requirements: readonly RequirementRecord[]): string {
  const exercised = requirements.filter((r) => r.judged > 0).length;
  const chips = requirements
    .map(
      (r) =>
        `<a class="g ${esc(r.status)}" href="#${anchor(r.id)}" title="${esc(r.level)}, ${esc(r.status)}, ${esc(r.judged)} judgement(s)">${esc(r.id)}</a>`,
    )
    .join('');
  const byReason = new Map<string, string[]>();
  for (const r of requirements) {
    if (r.status !== 'not-exercised' && r.status !== 'not-selected') continue;
    const why = r.reasons.join('; ') || 'no reason recorded';
    byReason.set(why, [...(byReason.get(why) ?? []), r.id]);
  }
  const why = [...byReason].map(
    ([reason, ids]) =>
      `<li>${esc(reason)}: ${ids.map((id) => `<a href="#${anchor(id)}"><code>${esc(id)}</code></a>`).join(', ')}</li>`,
  );
  return `<h3>Requirements: ${esc(exercised)} of ${esc(requirements.length)} exercised</h3><div class="g-chips">${chips}</div>${
    why.length > 0
      ? `<p><strong>Not exercised, and why:</strong></p><ul class="g-why">${why.join('')}</ul>`
      : ''
  }`;
}

/** The section: the statuses per operation, the fields, the requirements. */
export function renderCoverageGrid(record: ConformanceRecord): string {
  const c = record.coverage;
  if (!c) return '';
  const called = c.operations.filter((o) => o.exchanges > 0).length;
  const fields = c.fields ?? [];
  const tried = fields.filter((f) => f.rules.some((r) => r.broken > 0)).length;
  return `<section id="coverage"><h2>Interface coverage: what was tried</h2><p>${esc(called)} of ${esc(c.operations.length)} operations called; ${esc(tried)} of ${esc(fields.length)} fields sent breaking one of their rules; ${esc(c.unmatched)} exchange(s) below /api/v1/ called no operation (judged); ${esc(c.outside)} outside the interface (not judged).</p>${renderOperations(c.operations)}${fields.length > 0 ? renderFields(fields) : ''}${renderRequirements(record.requirements)}</section>`;
}
