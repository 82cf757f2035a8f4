/**
 * reports/conformance.html: one self-contained page rendered from the conformance record (no
 * script, no network): the verdict, then each broken requirement with its evidence first
 * (finding-html.ts: the words it rests on, each cause counted, expected against received, the
 * answer, the curl and replay lines), so that the first is on the first screen; then the summary
 * (why the gate failed, waivers that waive nothing, the counts), the run, the waivers, and every
 * requirement grouped by the section of interface.md it comes from, each with the words of the
 * document (or RFC) it rests on, quoted. Every text is escaped: findings carry what the server sent.
 */
import { keptComment } from '../exchange/har-file.ts';
import { escapeHtml } from './escape-html.ts';
import { GRID_CSS, renderCoverageGrid } from './coverage-grid.ts';
import { STALE_WAIVER_STATUSES, type GateStatus } from './gate.ts';
import { FINDING_CSS, renderCause, renderQuotes } from './finding-html.ts';
import { probeStatusText } from './probe-state.ts';
import { runReplayLine } from './replay.ts';
import { bySection } from './sections.ts';
import { headline } from './headline.ts';
import { paceLine } from './pace.ts';
import type { ConformanceRecord, RequirementRecord } from './record.ts';
import { findingsPhrase, judgedSentence } from './sentences.ts';

export { escapeHtml };

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

function anchor(prefix: string, id: string): string {
  return `${prefix}-${id.replace(/[^A-Za-z0-9_-]/g, '_')}`;
}

function badge(status: GateStatus): string {
  return `<span class="badge ${status}">${esc(STATUS_LABEL[status])}</span>`;
}

function renderRequirement(record: ConformanceRecord, r: RequirementRecord): string {
  const open = r.status === 'failed' || r.status === 'warned' ? ' open' : '';
  const parts: string[] = [];
  parts.push(`<details class="req ${r.status}" id="${anchor('req', r.id)}"${open}>`);
  const groups = r.groups ?? [];
  const note =
    r.status === 'not-exercised' || r.status === 'not-selected'
      ? `<span class="why">${esc(r.reasons.join('; '))}</span>`
      : r.status === 'waived' && r.waiver
        ? `<span class="why">waived until ${esc(r.waiver.expires)}: ${esc(r.waiver.reason)}</span>`
        : r.findings.length > 0
          ? `<span class="why">${esc(findingsPhrase(findingCount(r), groups.length))}${r.waiver?.status === 'expired' ? `; its waiver expired on ${esc(r.waiver.expires)}` : ''}</span>`
          : '';
  parts.push(
    `<summary>${badge(r.status)} <span class="level ${r.level}">${esc(r.level)}</span> <code class="id">${esc(r.id)}</code> <span class="statement">${esc(r.statement)}</span> ${note}</summary>`,
  );
  parts.push(`<div class="body">`);
  // Evidence first (reporter/finding-html.ts): the words it rests on, then each cause with its
  // count and a representative finding; who judged it and why it is read so come after.
  parts.push(renderQuotes(r.quotes));
  groups.forEach((g, gi) => parts.push(renderCause(record, r.findings, g, gi)));
  parts.push(
    `<p class="meta">Source: ${esc(r.section)} · level ${esc(r.level)} · ${esc(judgedSentence({ judged: r.judged, oracles: r.oracles, probes: r.probes, traffic: record.traffic !== undefined }))}</p>`,
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

function renderWaivers(record: ConformanceRecord): string {
  if (record.waivers.file === null) return '';
  const rows = record.waivers.entries.map(
    (w) =>
      `<tr class="${w.status}"><td>${esc(w.line)}</td><td>${w.status === 'unknown' ? `<code>${esc(w.requirement)}</code>` : `<a href="#${anchor('req', w.requirement)}"><code>${esc(w.requirement)}</code></a>`}</td><td><span class="wstatus ${w.status}">${esc(w.status)}</span></td><td>${esc(w.expires)}</td><td>${esc(w.reason)}</td><td>${esc(w.note)}</td></tr>`,
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

/** How many findings a probe had: counted by cause, or those the record kept. */
function findingsOf(record: ConformanceRecord, o: ConformanceRecord['probes'][number]): number {
  const counted = (o.causes ?? []).reduce((n, c) => n + c.count, 0);
  const kept = record.requirements.reduce(
    (n, r) => n + r.findings.filter((f) => f.probe === o.probe).length,
    0,
  );
  return Math.max(counted, kept);
}

function renderProbes(record: ConformanceRecord): string {
  const rows = record.probes.map(
    (c) =>
      `<tr><td><code>${esc(c.probe)}</code></td><td>${esc(c.title)}</td><td>${esc(probeStatusText({ ...c, findings: findingsOf(record, c) }))}</td><td>${esc(c.requests)}</td><td>${esc(c.retries ?? 0)}</td><td>${esc(((c.waitedMs ?? 0) / 1000).toFixed(2))} s</td><td>${esc((c.durationMs / 1000).toFixed(2))} s</td><td>${c.notes.map((n) => esc(n)).join('<br>')}</td></tr>`,
  );
  return `<section id="probes"><h2>Probes</h2><table class="checks"><thead><tr><th>Probe</th><th>What it sends</th><th>Status</th><th>Requests</th><th>Retries</th><th>Waited</th><th>Time</th><th>Notes</th></tr></thead><tbody>${rows.join('')}</tbody></table></section>`;
}

/*
 * On any screen from a phone's 390 px up the page never scrolls sideways: text breaks where a word
 * is longer than its line, a wide table scrolls inside its own box with its words whole, and the
 * counts table's six status words, side by side wider than a phone, stand upright there. A header
 * cell never breaks a word. tests/self/report-screens.spec.ts measures both.
 */
const CSS = `
:root{--pass:#1a7f37;--partial:#9a6700;--fail:#cf222e;--warn:#9a6700;--waive:#6f42c1;--skip:#6e7781;--bg:#f6f8fa;--line:#d0d7de}
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1f2328;background:#fff;overflow-wrap:break-word}
main{max-width:1100px;margin:0 auto;padding:0 20px 40px}
code,pre{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{background:var(--bg);border:1px solid var(--line);border-radius:6px;padding:8px 10px;white-space:pre-wrap;word-break:break-all;margin:4px 0 10px}
header.verdict{color:#fff;padding:14px 20px;margin:0 0 8px}
header.verdict.pass{background:var(--pass)}header.verdict.partial{background:var(--partial)}header.verdict.fail{background:var(--fail)}
header.verdict p.advice{font-weight:600;opacity:1}
header.verdict h1{margin:0;font-size:28px;max-width:1100px;margin:0 auto}
header.verdict p{margin:4px auto 0;max-width:1100px;opacity:.95}
h2{border-bottom:1px solid var(--line);padding-bottom:4px;margin-top:28px}section#findings>h2{margin-top:12px}
h4{margin:6px 0;font-size:14px;font-weight:600;overflow-wrap:anywhere}h5{margin:8px 0 2px;font-size:13px;text-transform:uppercase;letter-spacing:.03em;color:#57606a}
dl.run{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:2px 16px;margin:0 0 12px}dl.run dt{color:#57606a}dl.run dd{margin:0;min-width:0;overflow-wrap:anywhere}
table{border-collapse:collapse;margin:8px 0 12px}th,td{border:1px solid var(--line);padding:4px 10px;text-align:left;vertical-align:top}
table.counts td{text-align:right;min-width:64px;font-weight:600}table.counts td.zero{color:#8c959f;font-weight:400}
table.counts th,table.counts td{overflow-wrap:normal;word-break:normal;hyphens:none}table.counts th[scope=row]{white-space:nowrap}
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
th,td{overflow-wrap:anywhere}th{overflow-wrap:normal;word-break:normal}table.checks{width:100%}code{overflow-wrap:anywhere}nav.toc ul{columns:2;margin:4px 0}
@media (max-width:760px){.evidence{grid-template-columns:1fr}nav.toc ul{columns:1}main{padding:0 12px 32px}header.verdict{padding:14px 12px}header.verdict h1{font-size:24px}
th,td{padding:3px 5px}table.counts td{min-width:0}
table.counts,table.checks,table.waivers,table.coverage{display:block;overflow-x:auto;max-width:100%}
table.checks th,table.checks td,table.waivers th,table.waivers td,table.coverage th,table.coverage td{overflow-wrap:normal;min-width:6em}}
@media (max-width:520px){table.counts thead th{writing-mode:vertical-rl;transform:rotate(180deg);white-space:nowrap;text-align:left;vertical-align:top;padding:6px 3px}table.counts td{min-width:2.2em}}
`;

/** What an interrupted run says first: that the report is partial, and what was restored. */
function renderInterrupted(record: ConformanceRecord): string {
  const i = record.interrupted;
  if (!i) return '';
  return `<section id="interrupted"><h2>Interrupted${i.signal ? ` by ${esc(i.signal)}` : ''}</h2><p>${esc(i.reason)}. This report is partial: the checks after the stop were not run, and the requirements they would have judged are not exercised ("interrupted").</p><p><strong>Restore of the writable counterparty's details:</strong> ${esc(i.restore.status)}</p><ul class="reasons">${i.restore.details.map((d) => `<li>${esc(d)}</li>`).join('')}</ul></section>`;
}

/** The restore, at the end of a write run, of the writable counterparties' original details. */
function renderRestore(record: ConformanceRecord): string {
  const r = record.restore;
  if (!r) return '';
  return `<section id="restore"><h2>Writable counterparty restored</h2><p><strong>Restore of its original details at the end of the run:</strong> ${esc(r.status)}</p><ul class="reasons">${r.details.map((d) => `<li>${esc(d)}</li>`).join('')}</ul></section>`;
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
  // What the answers say about the setup (the token refused) explains every finding: first.
  for (const hint of record.hints) body.push(`<p class="hint"><strong>Hint:</strong> ${esc(hint)}</p>`);
  // The broken requirements with their evidence before anything else, so that the first
  // finding's evidence, its curl and replay lines are on the first screen; their sections
  // below link to them, and the summary after lists them all.
  const brokenIds = new Set(broken.map((r) => r.id));
  if (broken.length > 0)
    body.push(
      `<section id="findings"><h2>Findings</h2>${broken.map((r) => renderRequirement(record, r)).join('\n')}</section>`,
    );
  body.push('<section id="summary"><h2>Summary</h2>');
  if (record.gateReasons.length > 0)
    body.push(
      `<p><strong>The gate failed:</strong></p><ul class="reasons">${record.gateReasons.map((r) => `<li>${esc(r)}</li>`).join('')}</ul>`,
    );
  else
    body.push(
      `<p><strong>The gate passed:</strong> no MUST requirement failed${record.strict ? ' and no SHOULD requirement warned' : ''}${record.counts.MUST.waived + record.counts.SHOULD.waived > 0 ? ' (waived deviations aside)' : ''}.</p>`,
    );
  const stale = record.waivers.entries.filter((w) => STALE_WAIVER_STATUSES.includes(w.status));
  if (stale.length > 0)
    body.push(
      `<p class="waiver stale"><strong>Waivers that waive nothing</strong>${record.strict ? ' (they fail the gate in strict mode)' : ' (with --strict they fail the gate)'}:</p><ul class="reasons">${stale.map((w) => `<li>line ${esc(w.line)}, <code>${esc(w.requirement)}</code>: ${esc(w.note)}</li>`).join('')}</ul>`,
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
  body.push(renderCoverageGrid(record));
  body.push(renderProbes(record));
  body.push(renderPace(record));
  body.push(renderRestore(record));
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
<style>${CSS}${GRID_CSS}${FINDING_CSS}</style>
</head>
<body>
${body.join('\n')}
</body>
</html>
`;
}
