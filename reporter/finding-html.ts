/**
 * A failing requirement's evidence in the HTML report, evidence first: the words it rests on
 * (a table row shown under its table's header), then each cause with its count, and for the
 * finding that represents it what was expected against what was received, the answer (status,
 * the header fields that matter, the head of its body), the curl and replay lines; who judged
 * it, the input and the request after. Every text is escaped: findings carry what the server sent.
 */
import type { AnswerEvidence } from '../exchange/answer.ts';
import type { Finding } from '../engine/types.ts';
import type { FindingGroup } from '../engine/verdicts.ts';
import { escapeHtml as esc } from './escape-html.ts';
import { provenance } from './provenance.ts';
import type { ConformanceRecord, RecordQuote } from './record.ts';
import { replayLine } from './replay.ts';
import { causeSentence, counted, roleLabel } from './sentences.ts';

/** Finding fields rendered in their own place; any other field is listed generically. */
const KNOWN_FIELDS = new Set([
  'requirement',
  'probe',
  'judgedBy',
  'sentBy',
  'role',
  'status',
  'answer',
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

function json(value: unknown): string {
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** Markdown's inline code (`x`) as <code>, the rest escaped: how interface.md reads. */
export function inlineMarkdown(text: string): string {
  return text
    .split(/(`[^`]+`)/)
    .map((part) =>
      part.length > 2 && part.startsWith('`') && part.endsWith('`')
        ? `<code>${esc(part.slice(1, -1))}</code>`
        : esc(part),
    )
    .join('');
}

/** One quote: a table row as its table's header and that row, any other words as a block quote. */
export function renderQuote(q: RecordQuote): string {
  const words = q.table
    ? `<table class="quoted-row"><thead><tr>${q.table.header.map((h) => `<th scope="col">${inlineMarkdown(h)}</th>`).join('')}</tr></thead><tbody><tr>${q.table.row.map((c) => `<td>${inlineMarkdown(c)}</td>`).join('')}</tr></tbody></table>`
    : `<blockquote>${inlineMarkdown(q.text)}</blockquote>`;
  return `<figure class="quote">${words}<figcaption>${esc(q.source)}</figcaption></figure>`;
}

/** The words a requirement rests on: the first (the most direct) shown, the others folded below it. */
export function renderQuotes(quotes: readonly RecordQuote[]): string {
  const [first, ...rest] = quotes;
  if (!first) return '';
  return (
    renderQuote(first) +
    (rest.length > 0
      ? `<details class="quotes"><summary>${esc(counted(rest.length, 'more passage'))} it rests on</summary>${rest.map(renderQuote).join('\n')}</details>`
      : '')
  );
}

/** The answer a finding rests on, as one block: status, the header fields that matter, the head of its body. */
export function renderAnswer(a: AnswerEvidence): string {
  const status = a.status > 0 ? `HTTP ${a.status}` : `no answer${a.failure ? ` (${a.failure})` : ''}`;
  const headers = Object.entries(a.headers).map(([k, v]) => `${k}: ${v}`);
  const body =
    a.body === undefined
      ? a.status > 0
        ? '\n\n(no body)'
        : ''
      : `\n\n${a.body}${a.bodyChars !== undefined ? `\n… (the first ${[...a.body].length} of ${a.bodyChars} characters)` : ''}`;
  return `<div class="answer"><h5>The answer</h5><pre class="answer">${esc([status, ...headers].join('\n') + body)}</pre></div>`;
}

/** The rule an input keeps or breaks; a record from elsewhere (a merged shard) may hold any value. */
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
  return `<details class="request"><summary>Request sent${role ? ` (${esc(roleLabel(role))})` : ''}</summary><pre>${esc(head.join('\n') + body)}</pre></details>`;
}

/** One finding, its evidence first: expected and received, the answer, the curl and replay lines. */
export function renderFinding(
  record: ConformanceRecord,
  f: Finding & { probe?: string },
  index: number,
): string {
  const parts: string[] = [];
  parts.push(`<div class="finding">`);
  parts.push(`<h4><span class="n">${index + 1}</span> ${esc(f.message)}</h4>`);
  // Expected, then what was received and the answer beside it; the curl and replay lines under
  // what was expected, so that at 1280 px all of it is on the first screen (FINDING_CSS).
  parts.push(`<div class="evidence">`);
  parts.push(`<div class="expected"><h5>Expected</h5><pre class="expected">${esc(f.expected)}</pre></div>`);
  parts.push(
    `<div class="received"><h5>Received</h5><pre class="received">${esc(f.received)}</pre>${f.answer ? renderAnswer(f.answer) : ''}</div>`,
  );
  const replay = replayLine(record, f);
  if (f.curl || replay) {
    parts.push(`<div class="reproduce">`);
    if (f.curl)
      parts.push(
        `<h5>Reproduce (paste into a shell with <code>API_TOKEN</code> set)</h5><pre class="curl">${esc(f.curl)}</pre>`,
      );
    if (replay)
      parts.push(
        `<p class="replay">Replay: <code>${esc(replay)}</code>${f.path ? ` (fast-check path <code>${esc(f.path)}</code>)` : ''}</p>`,
      );
    parts.push(`</div>`);
  }
  parts.push(`</div>`);
  parts.push(`<p class="provenance">${esc(provenance(f))}</p>`);
  if (f.input !== undefined)
    parts.push(`<h5>Input (shrunk)</h5><pre class="input">${esc(json(f.input))}</pre>`);
  if (f.rule !== undefined) parts.push(`<h5>Rule</h5><p class="rule">${esc(ruleText(f.rule))}</p>`);
  const extra = Object.entries(f).filter(([k, v]) => !KNOWN_FIELDS.has(k) && v !== undefined);
  if (extra.length > 0) {
    parts.push(`<dl class="extra">`);
    for (const [k, v] of extra)
      parts.push(`<dt>${esc(k)}</dt><dd><pre>${esc(typeof v === 'string' ? v : json(v))}</pre></dd>`);
    parts.push(`</dl>`);
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

/** One cause of a requirement's findings: how often, on what, a representative, the inputs, the others folded. */
export function renderCause(
  record: ConformanceRecord,
  findings: readonly (Finding & { probe?: string })[],
  g: FindingGroup,
  index: number,
): string {
  const parts: string[] = [`<div class="cause">`];
  parts.push(`<h4 class="cause">${esc(causeSentence(g))}</h4>`);
  parts.push(renderFinding(record, findings[g.representative]!, index));
  parts.push(`<p class="shape">What this cause received, in shape: <code>${esc(g.shape)}</code></p>`);
  const distinct = g.inputs.length + g.moreInputs;
  if (distinct > 1)
    parts.push(
      `<h5>${esc(distinct)} distinct inputs</h5><ul class="inputs">${g.inputs.map((input) => `<li><code>${esc(input)}</code></li>`).join('')}${g.moreInputs > 0 ? `<li>… ${esc(g.moreInputs)} more</li>` : ''}</ul>`,
    );
  if (g.others.length > 0)
    parts.push(
      `<details class="others"><summary>${esc(counted(g.others.length, 'other finding'))} of this cause kept, with their evidence</summary>${g.others.map((i, k) => renderFinding(record, findings[i]!, k + 1)).join('\n')}</details>`,
    );
  parts.push(`</div>`);
  return parts.join('\n');
}

/** The style of the evidence above (the page's own style is in html.ts). */
export const FINDING_CSS = `
table.quoted-row{margin:0;font-size:14px;max-width:100%}table.quoted-row th{background:#eef1f4;font-weight:600}
pre.answer{max-height:11em;overflow:auto}
details.quotes>summary{cursor:pointer;color:#57606a;font-size:13px}
.finding pre.curl{max-height:8.5em;overflow:auto}
.evidence{grid-template-rows:auto 1fr}.evidence>div.received{grid-column:2;grid-row:1/span 2}.evidence>div.expected,.evidence>div.reproduce{grid-column:1}
p.replay{margin:4px 0;font-size:13px}
@media (max-width:760px){table.quoted-row{display:block;overflow-x:auto}.evidence>div.received,.evidence>div.expected,.evidence>div.reproduce{grid-column:1;grid-row:auto}}
`;
