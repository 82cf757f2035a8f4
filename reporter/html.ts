/**
 * reports/conformance.html: one self-contained page rendered from the conformance record (no
 * script, no network): the verdict and its counts, the waivers, then every requirement grouped
 * by the section of interface.md it comes from, each with the words of the document (or RFC)
 * it rests on, quoted. A failure shows what was expected against what was received, the
 * shrunk input and the rule it keeps or breaks, and a curl command that reproduces it. Every
 * text is escaped: findings carry what the server sent.
 */
import { keptComment } from '../exchange/har-file.ts';
import type { Finding } from '../engine/types.ts';
import type { GateStatus } from './gate.ts';
import { replayLine, runReplayLine } from './replay.ts';
import { bySection } from './sections.ts';
import { headline } from './headline.ts';
import { paceLine } from './pace.ts';
import { provenance } from './provenance.ts';
import type { ConformanceRecord, RequirementRecord } from './record.ts';

/** Escapes text for HTML element content and attribute values; drops control characters. */
export function escapeHtml(value: unknown): string {
  return (
    String(value)
      // eslint-disable-next-line no-control-regex -- matching control characters is the point
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '\ufffd')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&#39;')
  );
}

const esc = escapeHtml;

const STATUS_LABEL: Record<GateStatus, string> = {
  passed: 'passed',
  failed: 'FAILED',
  warned: 'warned',
  waived: 'waived',
  'not-exercised': 'not exercised',
  'not-selected': 'not selected',
};

const STATUS_ORDER: GateStatus[] = ['passed', 'failed', 'warned', 'waived', 'not-exercised', 'not-selected'];

/** Finding fields rendered in their own place; any other field is listed generically. */
const KNOWN_FIELDS = new Set([
  'requirement',
  'probe',
  'judgedBy',
  'sentBy',
  'role',
  'status',
  'context',
  'message',
  'expected',
  'received',
  'input',
  'rule',
  'seed',
  'path',
  'property',
  'request',
  'curl',
]);

function anchor(prefix: string, id: string): string {
  return `${prefix}-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

function badge(status: GateStatus): string {
  return `<span class="badge ${status}">${esc(STATUS_LABEL[status])}</span>`;
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

function ruleText(rule: unknown): string {
  if (rule !== null && typeof rule === 'object' && 'description' in rule) {
    const r = rule as { field?: unknown; keyword?: unknown; keeps?: unknown; description?: unknown };
    const verb = r.keeps === true ? 'keeps' : r.keeps === false ? 'breaks' : 'exercises';
    return `the input ${verb} ${String(r.field ?? '')} ${String(r.keyword ?? '')}: ${String(r.description)}`;
  }
  return json(rule);
}

function renderRequest(request: NonNullable<Finding['request']>, role: string | undefined): string {
  const head = [`${request.method} ${request.url}`];
  for (const [name, value] of Object.entries(request.headers ?? {})) head.push(`${name}: ${value}`);
  const body =
    request.body === undefined
      ? ''
      : request.bodyEncoding === 'base64'
        ? `\n\n(${Buffer.byteLength(request.body, 'base64')} bytes that are not text; the curl command sends them)`
        : `\n\n${request.body}`;
  return `<details class="request"><summary>Request sent${role ? ` (the ${esc(role)})` : ''}</summary><pre>${esc(head.join('\n') + body)}</pre></details>`;
}

function renderFinding(record: ConformanceRecord, f: Finding & { probe?: string }, index: number): string {
  const parts: string[] = [];
  parts.push(`<div class="finding">`);
  parts.push(`<h4><span class="n">${index + 1}</span> ${esc(f.message)}</h4>`);
  parts.push(`<p class="provenance">${esc(provenance(f))}</p>`);
  parts.push(`<div class="evidence">`);
  parts.push(`<div><h5>Expected</h5><pre class="expected">${esc(f.expected)}</pre></div>`);
  parts.push(`<div><h5>Received</h5><pre class="received">${esc(f.received)}</pre></div>`);
  parts.push(`</div>`);
  if (f.input !== undefined)
    parts.push(`<h5>Input (shrunk)</h5><pre class="input">${esc(json(f.input))}</pre>`);
  if (f.rule !== undefined) parts.push(`<h5>Rule</h5><p class="rule">${esc(ruleText(f.rule))}</p>`);
  const replay = replayLine(record, f);
  if (replay)
    parts.push(
      `<p class="replay">Replay: <code>${esc(replay)}</code>${f.path ? ` (fast-check path <code>${esc(f.path)}</code>)` : ''}</p>`,
    );
  const extra = Object.entries(f).filter(([k, v]) => !KNOWN_FIELDS.has(k) && v !== undefined);
  if (extra.length > 0) {
    parts.push(`<dl class="extra">`);
    for (const [k, v] of extra)
      parts.push(`<dt>${esc(k)}</dt><dd><pre>${esc(typeof v === 'string' ? v : json(v))}</pre></dd>`);
    parts.push(`</dl>`);
  }
  if (f.curl) {
    parts.push(`<h5>Reproduce (paste into a shell with <code>API_TOKEN</code> set)</h5>`);
    parts.push(`<pre class="curl">${esc(f.curl)}</pre>`);
  }
  if (f.request) parts.push(renderRequest(f.request, f.role));
  if (f.context && f.context.length > 0) {
    parts.push(`<h5>The exchanges it rests on</h5><ol class="context">`);
    for (const c of f.context)
      parts.push(
        `<li>${esc(c.role ?? 'exchange')}: <code>${esc(c.request)}</code> → ${esc(c.status || 'no answer')}<pre class="curl">${esc(c.curl)}</pre></li>`,
      );
    parts.push(`</ol>`);
  }
  parts.push(`</div>`);
  return parts.join('\n');
}

/** The words a requirement rests on: one quotation each, with its source. */
function renderQuotes(quotes: RequirementRecord['quotes']): string {
  return quotes
    .map(
      (q) =>
        `<figure class="quote"><blockquote>${esc(q.text)}</blockquote><figcaption>${esc(q.source)}</figcaption></figure>`,
    )
    .join('\n');
}

function renderRequirement(record: ConformanceRecord, r: RequirementRecord): string {
  const open = r.status === 'failed' || r.status === 'warned' ? ' open' : '';
  const parts: string[] = [];
  parts.push(`<details class="req ${r.status}" id="${anchor('req', r.id)}"${open}>`);
  const note =
    r.status === 'not-exercised' || r.status === 'not-selected'
      ? `<span class="why">${esc(r.reasons.join('; '))}</span>`
      : r.status === 'waived' && r.waiver
        ? `<span class="why">waived until ${esc(r.waiver.expires)}: ${esc(r.waiver.reason)}</span>`
        : r.findings.length > 0
          ? `<span class="why">${findingCount(r)} finding(s)${r.waiver?.status === 'expired' ? `; its waiver expired on ${esc(r.waiver.expires)}` : ''}</span>`
          : '';
  parts.push(
    `<summary>${badge(r.status)} <span class="level ${r.level}">${esc(r.level)}</span> <code class="id">${esc(r.id)}</code> <span class="statement">${esc(r.statement)}</span> ${note}</summary>`,
  );
  parts.push(`<div class="body">`);
  parts.push(renderQuotes(r.quotes));
  parts.push(
    `<p class="meta">Source: ${esc(r.section)} · level ${esc(r.level)} · judged by ${[...r.oracles.map((o) => `oracle <code>${esc(o)}</code>`), ...r.probes.map((p) => `probe <code>${esc(p)}</code>`)].join(', ') || 'nothing in this run'} · ${esc(r.judged)} judgement(s)</p>`,
  );
  if (r.rationale) parts.push(`<p class="rationale">${esc(r.rationale)}</p>`);
  if (r.waiver) {
    parts.push(
      `<p class="waiver ${r.waiver.status}">Waiver (line ${esc(r.waiver.line)}, ${esc(r.waiver.status)}): ${esc(r.waiver.reason)}, expires ${esc(r.waiver.expires)}. ${esc(r.waiver.note)}</p>`,
    );
  }
  if (r.status === 'not-exercised' && r.reasons.length > 0)
    parts.push(`<p class="reason">Not exercised: ${esc(r.reasons.join('; '))}</p>`);
  if (r.status === 'not-selected')
    parts.push(`<p class="reason">Not selected: ${esc(r.reasons.join('; '))}</p>`);
  // One cause per group (engine/finding-groups.ts): its count, a representative, the inputs,
  // and the other findings kept, folded.
  (r.groups ?? []).forEach((g, gi) => {
    parts.push(`<div class="cause">`);
    parts.push(
      `<h4 class="cause">${esc(g.count)} finding(s) on <code>${esc(g.operation)}</code>, answered ${esc(g.status || 'nothing')}</h4><p class="shape">Received, in shape: <code>${esc(g.shape)}</code></p>`,
    );
    parts.push(renderFinding(record, r.findings[g.representative]!, gi));
    const distinct = g.inputs.length + g.moreInputs;
    if (distinct > 1)
      parts.push(
        `<h5>${esc(distinct)} distinct inputs</h5><ul class="inputs">${g.inputs.map((input) => `<li><code>${esc(input)}</code></li>`).join('')}${g.moreInputs > 0 ? `<li>… ${esc(g.moreInputs)} more</li>` : ''}</ul>`,
      );
    if (g.others.length > 0)
      parts.push(
        `<details class="others"><summary>The other ${g.others.length} finding(s) of this cause kept, with their evidence</summary>${g.others.map((i, k) => renderFinding(record, r.findings[i]!, k + 1)).join('\n')}</details>`,
      );
    parts.push(`</div>`);
  });
  parts.push(`</div></details>`);
  return parts.join('\n');
}

function renderCounts(record: ConformanceRecord): string {
  const rows = (['MUST', 'SHOULD'] as const).map((level) => {
    const c = record.counts[level];
    const cells = STATUS_ORDER.map((s) => `<td class="${c[s] > 0 ? s : 'zero'}">${c[s]}</td>`).join('');
    return `<tr><th scope="row">${level}</th>${cells}</tr>`;
  });
  const head = STATUS_ORDER.map((s) => `<th scope="col">${esc(STATUS_LABEL[s])}</th>`).join('');
  return `<table class="counts"><caption>Requirements by level and status</caption><thead><tr><th></th>${head}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The traffic a validation judged (HAR file, proxy): what was judged and what was outside. */
function renderTraffic(record: ConformanceRecord): string {
  const t = record.traffic;
  if (!t) return '';
  const what = t.kind === 'har' ? `HAR file ${t.source}` : `validating proxy ${t.source}`;
  const outside =
    t.outside.count > 0
      ? `<details><summary>${t.outside.count} exchange(s) outside the interface, not judged${t.outside.requests.length < t.outside.count ? ` (the first ${t.outside.requests.length} listed)` : ''}</summary><ul>${t.outside.requests.map((r) => `<li><code>${esc(r)}</code></li>`).join('')}</ul></details>`
      : '';
  return `<section id="traffic"><h2>Traffic judged</h2><p>${esc(what)}: ${t.exchanges} exchange(s), ${t.judged} judged, ${t.outside.count} outside the interface${t.overCap ? `, ${t.overCap} over the body cap (not judged)` : ''}${t.cut ? `, ${t.cut} with a body recorded only as its head (not judged)` : ''}. Requirements only a probe's plan judges are not exercised in validation.</p>${outside}</section>`;
}

/** Interface coverage: exchanges per operation, and judgements per requirement. */
function renderCoverage(record: ConformanceRecord): string {
  const c = record.coverage;
  if (!c) return '';
  const ops = c.operations
    .map(
      (o) =>
        `<tr class="${o.exchanges > 0 ? 'passed' : 'not-exercised'}"><td><code>${esc(o.operationId)}</code></td><td><code>${esc(o.method)} ${esc(o.path)}</code></td><td>${o.exchanges}</td><td>${o.answered}</td></tr>`,
    )
    .join('');
  const reqs = record.requirements
    .map(
      (r) =>
        `<tr class="${r.judged > 0 ? 'passed' : 'not-exercised'}"><td><a href="#${anchor('req', r.id)}"><code>${esc(r.id)}</code></a></td><td>${esc(r.level)}</td><td>${r.judged}</td></tr>`,
    )
    .join('');
  const hit = c.operations.filter((o) => o.exchanges > 0).length;
  return `<section id="coverage"><h2>Interface coverage</h2><p>${hit} of ${c.operations.length} operations exercised; ${c.unmatched} exchange(s) below /api/v1/ called no operation (judged); ${c.outside} outside the interface (not judged).</p><table class="coverage"><caption>Exchanges per operation</caption><thead><tr><th scope="col">Operation</th><th scope="col">Method and path</th><th scope="col">Exchanges</th><th scope="col">Answered</th></tr></thead><tbody>${ops}</tbody></table><details><summary>Judgements per requirement</summary><table class="coverage"><thead><tr><th scope="col">Requirement</th><th scope="col">Level</th><th scope="col">Judgements</th></tr></thead><tbody>${reqs}</tbody></table></details></section>`;
}

function renderWaivers(record: ConformanceRecord): string {
  if (record.waivers.file === null) return '';
  const rows = record.waivers.entries.map(
    (w) =>
      `<tr class="${w.status}"><td>${esc(w.line)}</td><td><a href="#${anchor('req', w.requirement)}"><code>${esc(w.requirement)}</code></a></td><td><span class="wstatus ${w.status}">${esc(w.status)}</span></td><td>${esc(w.expires)}</td><td>${esc(w.reason)}</td><td>${esc(w.note)}</td></tr>`,
  );
  return `<section id="waivers"><h2>Waivers</h2><p>From <code>${esc(record.waivers.file)}</code>.</p>${
    rows.length > 0
      ? `<table class="waivers"><thead><tr><th>Line</th><th>Requirement</th><th>Status</th><th>Expires</th><th>Reason</th><th>Note</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
      : '<p>The file lists no waivers.</p>'
  }</section>`;
}

/** The pace the run kept: its rate, what was in flight, and every back-off with why. */
function renderPace(record: ConformanceRecord): string {
  const pace = record.pace;
  if (!pace || pace.requests === 0) return '';
  const start = pace.firstSentAt;
  const rows = pace.backoffs.map(
    (b) =>
      `<tr><td>${esc(((b.at - start) / 1000).toFixed(1))} s</td><td>${esc(b.reason)}</td><td>${esc(b.detail)}</td><td>${esc(b.concurrency)}</td><td>${esc(b.rps === undefined ? 'no limit' : `${b.rps.toFixed(1)}/s`)}</td><td>${esc(b.pausedUntil ? `${((b.pausedUntil - b.at) / 1000).toFixed(1)} s` : '')}</td></tr>`,
  );
  return `<section id="pace"><h2>Pace</h2><p>${esc(paceLine(pace))}. ${esc(pace.requests)} requests between the first sent and the last answered (${esc(((pace.lastDoneAt - pace.firstSentAt) / 1000).toFixed(1))} s).</p>${
    rows.length > 0
      ? `<table class="checks"><thead><tr><th>After</th><th>Why</th><th>What the target did</th><th>In flight after (per worker)</th><th>Rate after</th><th>Pause</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
      : ''
  }</section>`;
}

function renderProbes(record: ConformanceRecord): string {
  const rows = record.probes.map(
    (c) =>
      `<tr><td><code>${esc(c.probe)}</code></td><td>${esc(c.title)}</td><td>${esc(c.status === 'skipped' ? `skipped: ${c.skipReason ?? ''}` : c.status)}</td><td>${esc(c.requests)}</td><td>${esc(c.retries ?? 0)}</td><td>${esc(((c.waitedMs ?? 0) / 1000).toFixed(2))} s</td><td>${esc((c.durationMs / 1000).toFixed(2))} s</td><td>${c.notes.map((n) => esc(n)).join('<br>')}</td></tr>`,
  );
  return `<section id="probes"><h2>Probes</h2><table class="checks"><thead><tr><th>Probe</th><th>What it sends</th><th>Status</th><th>Requests</th><th>Retries</th><th>Waited</th><th>Time</th><th>Notes</th></tr></thead><tbody>${rows.join('')}</tbody></table></section>`;
}

const CSS = `
:root{--pass:#1a7f37;--partial:#9a6700;--fail:#cf222e;--warn:#9a6700;--waive:#6f42c1;--skip:#6e7781;--bg:#f6f8fa;--line:#d0d7de}
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1f2328;background:#fff}
main{max-width:1100px;margin:0 auto;padding:0 20px 40px}
code,pre{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:8px 10px;white-space:pre-wrap;word-break:break-all;margin:4px 0 10px}
header.verdict{color:#fff;padding:18px 20px;margin:0 0 16px}
header.verdict.pass{background:var(--pass)}header.verdict.partial{background:var(--partial)}header.verdict.fail{background:var(--fail)}
header.verdict p.advice{font-weight:600;opacity:1}
header.verdict h1{margin:0;font-size:28px;max-width:1100px;margin:0 auto}
header.verdict p{margin:4px auto 0;max-width:1100px;opacity:.95}
h2{border-bottom:1px solid var(--line);padding-bottom:4px;margin-top:28px}
h4{margin:6px 0;font-size:14px;font-weight:600;overflow-wrap:anywhere}h5{margin:8px 0 2px;font-size:13px;text-transform:uppercase;letter-spacing:.03em;color:#57606a}
dl.run{display:grid;grid-template-columns:max-content 1fr;gap:2px 16px;margin:0 0 12px}dl.run dt{color:#57606a}dl.run dd{margin:0}
table{border-collapse:collapse;margin:8px 0 12px}th,td{border:1px solid var(--line);padding:4px 10px;text-align:left;vertical-align:top}
table.counts td{text-align:right;min-width:64px;font-weight:600}table.counts td.zero{color:#8c959f;font-weight:400}
caption{text-align:left;font-weight:600;padding-bottom:4px}
td.passed{color:var(--pass)}td.failed{color:var(--fail)}td.warned{color:var(--warn)}td.waived{color:var(--waive)}td.not-exercised,td.not-selected{color:var(--skip)}
.badge{display:inline-block;min-width:64px;text-align:center;border-radius:12px;padding:0 8px;font-size:12px;font-weight:700;color:#fff}
.badge.passed{background:var(--pass)}.badge.failed{background:var(--fail)}.badge.warned{background:var(--warn)}.badge.waived{background:var(--waive)}.badge.not-exercised{background:var(--skip)}.badge.not-selected{background:#afb8c1}
.level{font-size:12px;font-weight:700;border:1px solid currentColor;border-radius:4px;padding:0 4px}.level.MUST{color:var(--fail)}.level.SHOULD{color:var(--warn)}
details.req{border:1px solid var(--line);border-left-width:5px;border-radius:6px;margin:6px 0;background:#fff}
details.req.passed{border-left-color:var(--pass)}details.req.failed{border-left-color:var(--fail)}details.req.warned{border-left-color:var(--warn)}details.req.waived{border-left-color:var(--waive)}details.req.not-exercised,details.req.not-selected{border-left-color:var(--skip)}
details.req>summary{cursor:pointer;padding:6px 10px}
details.req .body{padding:0 12px 8px}
.why{color:#57606a;font-size:13px}.muted,.meta{color:#57606a;font-size:13px}
.finding{border-top:1px dashed var(--line);padding-top:6px;margin-top:6px}
div.cause{border-top:1px solid var(--line);margin-top:8px}h4.cause{margin-top:8px}p.shape{margin:2px 0;color:#57606a;font-size:13px;overflow-wrap:anywhere}
.finding .n{display:inline-block;background:#1f2328;color:#fff;border-radius:10px;min-width:20px;text-align:center;font-size:12px}
.evidence{display:grid;grid-template-columns:1fr 1fr;gap:12px}
pre.expected{border-color:#8fd19e;background:#f0fff4}pre.received{border-color:#f5a3a9;background:#fff5f5}
pre.curl{user-select:all;background:#1f2328;color:#e6edf3;border-color:#1f2328}
.hint{padding:8px 12px;border-radius:6px;background:#fff8c5;border:1px solid #d4a72c}
.waiver{padding:6px 10px;border-radius:6px;background:#f5f0ff}.waiver.expired{background:#fff5f5}
.wstatus{font-weight:700}table.waivers td:nth-child(4){white-space:nowrap}.wstatus.expired{color:var(--fail)}.wstatus.stale,.wstatus.unused{color:var(--warn)}.wstatus.applied{color:var(--waive)}
figure.quote{margin:6px 0 8px;padding:4px 10px;border-left:3px solid #8c959f;background:var(--bg);border-radius:0 6px 6px 0}
figure.quote blockquote{margin:0;overflow-wrap:anywhere}figure.quote figcaption{color:#57606a;font-size:12px;margin-top:2px}
ul.reasons{margin:4px 0 12px}p.moved{margin:6px 0;padding:4px 10px}
th,td{overflow-wrap:anywhere}table.checks{width:100%}code{overflow-wrap:anywhere}nav.toc ul{columns:2;margin:4px 0}
@media (max-width:760px){.evidence{grid-template-columns:1fr}nav.toc ul{columns:1}}
`;

/** What an interrupted run says first: that the report is partial, and what was restored. */
function renderInterrupted(record: ConformanceRecord): string {
  const i = record.interrupted;
  if (!i) return '';
  return `<section id="interrupted"><h2>Interrupted${i.signal ? ` by ${esc(i.signal)}` : ''}</h2><p>${esc(i.reason)}. This report is partial: the checks after the stop were not run, and the requirements they would have judged are not exercised ("interrupted").</p><p><strong>Restore of the writable counterparty's details:</strong> ${esc(i.restore.status)}</p><ul class="reasons">${i.restore.details.map((d) => `<li>${esc(d)}</li>`).join('')}</ul></section>`;
}

/** A requirement's findings, counted as its groups count them (kept or not). */
function findingCount(r: RequirementRecord): number {
  const counted = (r.groups ?? []).reduce((n, g) => n + g.count, 0);
  return Math.max(counted, r.findings.length);
}

/** What exchanges.har kept of the bodies, when not all of them whole. */
function keptRow(record: ConformanceRecord): [string, string][] {
  const kept = record.kept && keptComment(record.kept);
  return kept ? [['Kept in exchanges.har', kept]] : [];
}

/** The run's details, as rows of the page's "The run" section: the traffic's or the target's. */
function runRows(record: ConformanceRecord): [string, string][] {
  const t = record.traffic;
  return t
    ? [
        ['Traffic', `${t.kind === 'har' ? 'HAR file' : 'validating proxy'} ${t.source}`],
        ['Interface', `version ${record.interfaceVersion}`],
        ['Gate', record.strict ? 'strict (SHOULD warnings fail the gate)' : 'MUST failures fail the gate'],
        ['Started', record.startedAt],
        ['Duration', `${(record.durationMs / 1000).toFixed(1)} s, ${record.requests} exchanges`],
        ['Waiver file', record.waivers.file ?? 'none'],
        ...keptRow(record),
      ]
    : [
        [
          'Target',
          `${record.target.baseURL || '(no base URL)'} (${record.target.kind}${record.target.reason ? `: ${record.target.reason}` : ''})`,
        ],
        ['Interface', `version ${record.interfaceVersion}`],
        ['Mode', `${record.mode} run${record.strict ? ', strict (SHOULD warnings fail the gate)' : ''}`],
        ['Seed', `${record.seed} (replay: ${runReplayLine(record)})`],
        ...(record.selection ? ([['Selection', record.selection.label]] as [string, string][]) : []),
        ...(record.requireExercised
          ? ([
              [
                'Required',
                `every selected ${record.requireExercised === 'must' ? 'MUST ' : ''}requirement exercised (--require-exercised ${record.requireExercised})`,
              ],
            ] as [string, string][])
          : []),
        ['Cases per property', String(record.runs)],
        ['Started', record.startedAt],
        ['Duration', `${(record.durationMs / 1000).toFixed(1)} s, ${record.requests} requests`],
        ['Waiver file', record.waivers.file ?? 'none'],
        ...keptRow(record),
      ];
}

/** The whole page. */
export function renderHtml(record: ConformanceRecord): string {
  const head = headline(record);
  const groups = bySection(record.requirements);
  const broken = record.requirements.filter((r) => r.status === 'failed' || r.status === 'warned');
  const t = record.traffic;
  const run = runRows(record);
  const body: string[] = [];
  body.push(
    `<header class="verdict ${head.tone}"><h1 id="verdict">${esc(head.text)}</h1>${head.advice ? `<p class="advice">${esc(head.advice)}</p>` : ''}<p>${t ? `${esc(t.kind === 'har' ? 'HAR file' : 'proxy')} ${esc(t.source)} · interface ${esc(record.interfaceVersion)}${record.strict ? ' · strict' : ''}` : `${esc(record.target.baseURL || record.target.kind)} · interface ${esc(record.interfaceVersion)} · ${esc(record.mode)} run${record.strict ? ' · strict' : ''} · seed ${esc(record.seed)}`}</p></header>`,
  );
  body.push('<main>');
  body.push(renderInterrupted(record));
  body.push('<section id="summary"><h2>Summary</h2>');
  for (const hint of record.hints) body.push(`<p class="hint"><strong>Hint:</strong> ${esc(hint)}</p>`);
  if (record.gateReasons.length > 0)
    body.push(
      `<p><strong>The gate failed:</strong></p><ul class="reasons">${record.gateReasons.map((r) => `<li>${esc(r)}</li>`).join('')}</ul>`,
    );
  else
    body.push(
      `<p><strong>The gate passed:</strong> no MUST requirement failed${record.strict ? ' and no SHOULD requirement warned' : ''}${record.counts.MUST.waived + record.counts.SHOULD.waived > 0 ? ' (waived deviations aside)' : ''}.</p>`,
    );
  body.push(renderCounts(record));
  if (broken.length > 0)
    body.push(
      `<p><strong>Broken requirements:</strong></p><ul class="reasons">${broken.map((r) => `<li><a href="#${anchor('req', r.id)}"><code>${esc(r.id)}</code></a> (${esc(r.level)}, §${esc(r.group)}): ${esc(r.statement)}</li>`).join('')}</ul>`,
    );
  body.push('</section>');
  if (record.incomplete.length > 0)
    body.push(
      `<section id="incomplete"><h2>Checks that did not complete</h2><ul>${record.incomplete.map((i) => `<li><code>${esc(i.test)}</code>: ${esc(i.error)}</li>`).join('')}</ul></section>`,
    );
  // The broken requirements with their evidence first, so the first finding is on the first
  // screen; their sections below link to them.
  const brokenIds = new Set(broken.map((r) => r.id));
  if (broken.length > 0)
    body.push(
      `<section id="findings"><h2>Findings</h2>${broken.map((r) => renderRequirement(record, r)).join('\n')}</section>`,
    );
  // The run's details (the banner names the target and the seed) after the evidence.
  body.push(
    `<section id="run"><h2>The run</h2><dl class="run">${run.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join('')}</dl></section>`,
  );
  body.push(renderTraffic(record));
  body.push(renderWaivers(record));
  body.push(
    `<nav class="toc"><h2>Requirements by section of interface.md</h2><ul>${groups
      .map(([group, reqs]) => {
        const tally = STATUS_ORDER.map((s) => [s, reqs.filter((r) => r.status === s).length] as const)
          .filter(([, n]) => n > 0)
          .map(([s, n]) => `${n} ${STATUS_LABEL[s]}`)
          .join(', ');
        return `<li><a href="#${anchor('sec', group)}">${esc(reqs[0]!.groupTitle)}</a>: ${esc(tally)}</li>`;
      })
      .join('')}</ul></nav>`,
  );
  for (const [group, reqs] of groups) {
    body.push(`<section class="group" id="${anchor('sec', group)}"><h2>${esc(reqs[0]!.groupTitle)}</h2>`);
    for (const r of reqs)
      body.push(
        brokenIds.has(r.id)
          ? `<p class="moved"><span class="badge ${r.status}">${esc(STATUS_LABEL[r.status])}</span> <span class="level ${esc(r.level)}">${esc(r.level)}</span> <a href="#${anchor('req', r.id)}"><code>${esc(r.id)}</code></a>: ${esc(r.statement)} (its findings are above)</p>`
          : renderRequirement(record, r),
      );
    body.push('</section>');
  }
  // Coverage after the requirements: the first evidence is not pushed below a table of counts.
  body.push(renderCoverage(record));
  body.push(renderProbes(record));
  body.push(renderPace(record));
  body.push(
    `<p class="muted">Written by ${esc(record.tool)}; the machine-readable record is conformance.json beside this page.</p>`,
  );
  body.push('</main>');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>${esc(head.text)}: ${esc(record.target.baseURL || record.target.kind)}</title>
<style>${CSS}</style>
</head>
<body>
${body.join('\n')}
</body>
</html>
`;
}
