/**
 * The report writers on records built from made-up outcomes: the record matches its JSON
 * Schema whatever the run's result; the HTML page groups requirements by section in document
 * order, shows a failure's evidence and never lets server text become markup; junit.xml has one
 * test case per requirement, failing exactly where the gate fails; and the token redaction
 * catches a token wherever it appears, even split across chunks of output.
 */
import { expect, test } from '@playwright/test';
import type { Finding, ProbeOutcome } from '../../engine/types.ts';
import { escapeControls, escapeControlsKeepingLines } from '../../exchange/escape.ts';
import { REDACTED_TOKEN } from '../../exchange/redact.ts';
import { LINE_HELD, RedactingStream } from '../../exchange/redact-stream.ts';
import { redactText, redactValue, secretsFromEnv } from '../../exchange/redactors.ts';
import { REQUIREMENTS, type RequirementId } from '../../spec/requirements.ts';
import { escapeHtml, renderHtml } from '../../reporter/html.ts';
import { inlineMarkdown, renderQuote } from '../../reporter/finding-html.ts';
import { quotedRow } from '../../spec/quote-tables.ts';
import { quoteText } from '../../reporter/evidence-text.ts';
import { setupHints } from '../../reporter/hints.ts';
import { escapeXml, renderJunit } from '../../reporter/junit.ts';
import { recordErrors } from '../../reporter/record-schema.ts';
import { replayPrefix } from '../../reporter/replay.ts';
import { compareSections } from '../../reporter/sections.ts';
import { buildRecord } from '../../reporter/build-record.ts';
import type { ConformanceRecord } from '../../reporter/record.ts';

const TOKEN = 'tok-unit-7f3a9c1e5b';
const NOW = new Date('2026-03-15T12:00:00Z');
const ALL = REQUIREMENTS.map((r) => r.id as RequirementId);
const MARKUP = '</pre><script>alert(1)</script><img src=x onerror=alert(2)>&amp;';

function finding(
  requirement: RequirementId,
  extra: Partial<Finding> & Record<string, unknown> = {},
): Finding {
  return {
    requirement,
    message: `${requirement} broken by ${MARKUP}`,
    expected: '400 (interface.md §7)',
    judgedBy: 'reference-status',
    received: `404: {"error":"${MARKUP}","auth":"Bearer ${TOKEN}"}\u0000\u001b[31m`,
    input: 'ab',
    rule: {
      field: 'counterpartyReference',
      keyword: 'minLength',
      keeps: false,
      description: 'length 2 < minLength 3',
    },
    seed: 7,
    path: '1:0',
    request: {
      method: 'GET',
      url: 'http://127.0.0.1:9/api/v1/counterparties/ab',
      headers: { Authorization: `Bearer ${REDACTED_TOKEN}` },
    },
    curl: `curl -sS -i -X GET 'http://127.0.0.1:9/api/v1/counterparties/ab' -H "Authorization: Bearer $API_TOKEN"`,
    ...extra,
  } as Finding;
}

function outcome(
  probe: string,
  findings: Finding[],
  status: 'ran' | 'skipped' = 'ran',
  requirements: RequirementId[] = ALL,
): ProbeOutcome {
  return {
    probe,
    title: `${probe}: a behaviour`,
    requirements,
    status,
    ...(status === 'skipped' ? { skipReason: 'read-only run: set WRITABLE_COUNTERPARTY_REF' } : {}),
    findings,
    judged: status === 'ran' ? Object.fromEntries(requirements.map((id) => [id, 1])) : {},
    notApplicable: [],
    requests: 3,
    notes: ['a note'],
    durationMs: 12.5,
  };
}

function record(overrides: Partial<Parameters<typeof buildRecord>[0]> = {}): ConformanceRecord {
  return buildRecord({
    outcomes: [
      outcome('c-main', [
        finding('reference-invalid-400', { futureField: { shape: 'unknown', html: MARKUP } }),
        finding('timestamp-format'),
        finding('sunset-document-format'),
      ]),
    ],
    incomplete: [],
    run: {
      baseURL: 'http://127.0.0.1:9',
      token: TOKEN,
      seed: 7,
      runs: 10,
      targetKind: 'configured deployment',
    },
    startedAt: NOW,
    durationMs: 2500,
    now: NOW,
    waivers: {
      file: 'conformance-waivers.yaml',
      waivers: [
        { requirement: 'timestamp-format', reason: `known ${MARKUP}`, expires: '2026-12-31', line: 2 },
        { requirement: 'counterparty-json', reason: 'gone', expires: '2027-01-01', line: 6 },
      ],
    },
    ...overrides,
  });
}

test.describe('the record', () => {
  test('matches its JSON Schema for a failing, a passing, a strict and an incomplete run', () => {
    const failing = record();
    expect(failing.verdict).toBe('fail');
    expect(recordErrors(failing)).toEqual([]);
    const passing = record({ outcomes: [outcome('c-main', [])] });
    expect(passing.verdict).toBe('pass');
    expect(recordErrors(passing)).toEqual([]);
    expect(recordErrors(record({ strict: true }))).toEqual([]);
    const incomplete = record({ incomplete: [{ test: 'c-x: title', error: 'did not complete (timedOut)' }] });
    expect(recordErrors(incomplete)).toEqual([]);
    const skipped = record({ outcomes: [outcome('c-write', [], 'skipped')] });
    expect(skipped.requirements.every((r) => r.status === 'not-exercised')).toBe(true);
    expect(recordErrors(skipped)).toEqual([]);
  });

  test('the schema rejects what the record must never be', () => {
    const good = record();
    const broken: [string, (r: ConformanceRecord) => void][] = [
      ['an unknown status', (r) => ((r.requirements[0] as { status: string }).status = 'maybe')],
      ['a passing verdict with reasons', (r) => (r.verdict = 'pass')],
      [
        'a failed requirement without findings',
        (r) => (r.requirements.find((x) => x.status === 'failed')!.findings = []),
      ],
      ['a waiver without an expiry', (r) => delete (r.waivers.entries[0] as { expires?: string }).expires],
      ['an unknown top-level field', (r) => Object.assign(r, { token: 'x' })],
      ['a requirement without quotes', (r) => (r.requirements[0]!.quotes = [])],
      ['a requirement missing its quotes', (r) => delete (r.requirements[0] as { quotes?: unknown }).quotes],
      ['a quote without text', (r) => delete (r.requirements[0]!.quotes[0] as { text?: string }).text],
      ['a quote with an unknown source', (r) => (r.requirements[0]!.quotes[0]!.source = 'somewhere')],
    ];
    for (const [name, mutate] of broken) {
      const copy = structuredClone(good);
      mutate(copy);
      expect(recordErrors(copy), name).not.toEqual([]);
    }
  });

  test('carries the quotes of every requirement, in catalogue order', () => {
    const r = record();
    expect(r.requirements.map((x) => [x.id, x.quotes])).toEqual(
      REQUIREMENTS.map((x) => [
        x.id,
        x.quotes.map((q) => ({ ...q, ...(quotedRow(q) ? { table: quotedRow(q) } : {}) })),
      ]),
    );
    // A row of a table carries its table's header, cell by cell.
    const timestamps = r.requirements.find((x) => x.id === 'timestamp-format')!.quotes[0]!;
    expect(timestamps.table?.header).toEqual(['Field', 'Type', 'Required', 'Constraints']);
    expect(timestamps.table?.row.slice(0, 3)).toEqual(['createdAt', 'string', 'yes']);
  });

  test('holds no token, even one the server echoed back', () => {
    const text = JSON.stringify(record());
    expect(text).not.toContain(TOKEN);
    expect(text).toContain(`Bearer ${REDACTED_TOKEN}`);
  });
});

test.describe('setup hints', () => {
  const answers = (
    answered: number,
    succeeded: number,
    unauthorized: number,
    forbidden = 0,
  ): Pick<ProbeOutcome, 'tokenAnswers'> => ({
    tokenAnswers: { answered, succeeded, unauthorized, forbidden },
  });

  test('no request sent with the token succeeded and most were refused: the token is named, in the record, the page and junit.xml', () => {
    expect(setupHints([answers(3, 0, 3), answers(2, 0, 2), {}])).toEqual([
      'every request sent with API_TOKEN (5) was answered 401: API_TOKEN looks wrong or expired',
    ]);
    // A raw slash is answered 404 by the router before the token is looked at.
    expect(setupHints([answers(10, 0, 8), answers(4, 0, 0)])).toEqual([
      'no request sent with API_TOKEN succeeded, and 8 of 14 were answered 401: API_TOKEN looks wrong or expired',
    ]);
    expect(setupHints([answers(2, 0, 0, 2)])[0]).toMatch(/answered 403: API_TOKEN is refused/);
    expect(setupHints([answers(2, 0, 1, 1)])[0]).toMatch(/answered 401 or 403: API_TOKEN looks wrong/);
    const refused = {
      ...outcome('c-main', []),
      tokenAnswers: { answered: 4, succeeded: 0, unauthorized: 4, forbidden: 0 },
    };
    const r = record({ outcomes: [refused] });
    expect(recordErrors(r)).toEqual([]);
    expect(r.hints).toEqual(setupHints([refused]));
    expect(renderHtml(r)).toContain(`<p class="hint"><strong>Hint:</strong> ${r.hints[0]}</p>`);
    expect(renderJunit(r)).toContain(`<property name="hint" value="${r.hints[0]}"/>`);
  });

  test('a request with the token succeeded, few were refused, or none was answered: no hint', () => {
    expect(setupHints([answers(5, 1, 4)])).toEqual([]);
    expect(setupHints([answers(5, 0, 2)])).toEqual([]);
    expect(setupHints([answers(5, 0, 0)])).toEqual([]);
    expect(setupHints([answers(0, 0, 0)])).toEqual([]);
    expect(setupHints([])).toEqual([]);
    expect(record().hints).toEqual([]);
  });
});

test.describe('conformance.html', () => {
  const html = renderHtml(record());

  test('is one page with no script, no external resource and a policy forbidding both', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).not.toMatch(/<(script|img|link|iframe|object|embed)\b/i);
    expect(html).not.toMatch(/(href|src)="(https?:)?\/\//i);
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`);
  });

  test('escapes every server-controlled text and drops control characters', () => {
    expect(html).toContain(escapeHtml(MARKUP));
    expect(escapeHtml(`<a href="x">'&'</a>\u0000`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;\ufffd',
    );
    expect(html).not.toContain('\u0000');
    expect(html).not.toContain('\u001b');
  });

  test('shows the verdict, the counts, and each failure with its section, level, evidence and curl', () => {
    expect(html).toContain('<h1 id="verdict">Conformance FAILED</h1>');
    expect(html).toContain('1 MUST requirement(s) failed: reference-invalid-400');
    const failure = html.slice(html.indexOf('id="req-reference-invalid-400"'));
    expect(failure).toMatch(/^id="req-reference-invalid-400" open>/);
    for (const part of [
      'FAILED',
      'MUST',
      'interface.md §4.1, §7',
      '<h5>Expected</h5><pre class="expected">400 (interface.md §7)</pre>',
      '<h5>Input (shrunk)</h5><pre class="input">&quot;ab&quot;</pre>',
      'the input breaks counterpartyReference minLength: length 2 &lt; minLength 3',
      // The replay line of the finding: the one probe that sent it, from the repository.
      `CONFORMANCE_SEED=7 CONFORMANCE_REPORTS_DIR=reports/replay-c-main ${replayPrefix()} --probe c-main`,
      `<pre class="curl">curl -sS -i -X GET &#39;http://127.0.0.1:9/api/v1/counterparties/ab&#39; -H &quot;Authorization: Bearer $API_TOKEN&quot;</pre>`,
      '<dt>futureField</dt>',
    ])
      expect(failure).toContain(part);
  });

  test("shows each requirement's quotes under its statement, with their sources, a table row under its table's header", () => {
    for (const r of record().requirements) {
      const start = html.indexOf(`id="req-${r.id}"`);
      const block = html.slice(start, html.indexOf('<p class="meta">', start) + 16);
      const statement = block.indexOf('<span class="statement">');
      expect(statement, r.id).toBeGreaterThan(0);
      let after = statement;
      for (const q of r.quotes) {
        const figure = renderQuote(q);
        expect(figure).toContain(`<figcaption>${escapeHtml(q.source)}</figcaption>`);
        // No raw markdown row: "| a | b |" reads as its table's header and the row.
        if (q.table) expect(figure).not.toContain(escapeHtml(q.text));
        const at = block.indexOf(figure, after);
        expect(at, `${r.id}: ${q.text}`).toBeGreaterThan(after);
        after = at;
      }
      expect(block.indexOf('<p class="meta">'), r.id).toBeGreaterThan(after);
    }
    expect(
      renderQuote({
        source: 'interface.md §2.1',
        text: '| createdAt | string | yes | UTC `Z` |',
        table: {
          header: ['Field', 'Type', 'Required', 'Constraints'],
          row: ['createdAt', 'string', 'yes', 'UTC `Z`'],
        },
      }),
    ).toBe(
      '<figure class="quote"><table class="quoted-row"><thead><tr><th scope="col">Field</th><th scope="col">Type</th><th scope="col">Required</th><th scope="col">Constraints</th></tr></thead><tbody><tr><td>createdAt</td><td>string</td><td>yes</td><td>UTC <code>Z</code></td></tr></tbody></table><figcaption>interface.md §2.1</figcaption></figure>',
    );
    // Quote text is escaped like every other text of the page.
    const hostile = record();
    hostile.requirements[0]!.quotes = [{ source: `RFC 1 §1 ${MARKUP}`, text: MARKUP }];
    const page = renderHtml(hostile);
    expect(page).toContain(`<blockquote>${inlineMarkdown(MARKUP)}</blockquote>`);
    expect(inlineMarkdown(MARKUP)).not.toMatch(/<(?!code>|\/code>)/);
    expect(page).not.toMatch(/<(script|img)\b/i);
  });

  test('groups requirements by section of interface.md in document order, with waivers and skip reasons', () => {
    const order = [...html.matchAll(/<section class="group" id="sec-([^"]+)">/g)].map((m) => m[1]!);
    expect(order.length).toBeGreaterThan(3);
    expect([...order].sort((a, b) => compareSections(a.replace('_', '.'), b.replace('_', '.')))).toEqual(
      order,
    );
    expect(compareSections('2.3', '10')).toBeLessThan(0);
    expect(compareSections('4.1', '4')).toBeGreaterThan(0);
    expect(html).toContain('<span class="wstatus applied">applied</span>');
    expect(html).toContain('<span class="wstatus stale">stale</span>');
    const skipped = renderHtml(record({ outcomes: [outcome('c-write', [], 'skipped')] }));
    expect(skipped).toContain('read-only run: set WRITABLE_COUNTERPARTY_REF');
    // Nothing was judged: the gate passes, and the headline says what that pass is worth.
    const must = REQUIREMENTS.filter((r) => r.level === 'MUST').length;
    expect(skipped).toContain(
      `<h1 id="verdict">Conformance PASSED, ${must} of ${must} MUST requirements not exercised</h1>`,
    );
  });
});

test.describe('junit.xml', () => {
  test('has one test case per requirement, failing exactly where the gate fails', () => {
    const r = record();
    const xml = renderJunit(r);
    expect(xml.match(/<testcase /g)).toHaveLength(REQUIREMENTS.length);
    expect(xml.match(/<failure /g)).toHaveLength(1);
    expect(xml).toMatch(
      /<testsuites name="payflow-conformance" tests="\d+" failures="1" errors="0" skipped="1"/,
    );
    expect(xml).toContain('<skipped message="waived until 2026-12-31: known &lt;/pre&gt;');
    expect(xml).toContain('WARNING (SHOULD, does not fail the gate outside strict mode)');
    // The failure message ends with the first quote of the requirement; its text starts with all.
    const [first, ...others] = r.requirements.find((x) => x.id === 'reference-invalid-400')!.quotes;
    expect(xml).toContain(`${escapeXml(` — ${first!.source}: "${quoteText(first!)}"`)}" type="MUST">`);
    expect(xml).toContain(`type="MUST">${escapeXml(`rests on ${first!.source}: "${quoteText(first!)}"\n`)}`);
    for (const q of others) expect(xml).toContain(escapeXml(`rests on ${q.source}: "${quoteText(q)}"`));
    const strict = renderJunit(record({ strict: true }));
    expect(strict.match(/<failure /g)).toHaveLength(2);
    expect(strict).toContain('type="SHOULD"');
    const should = r.requirements.find((x) => x.id === 'sunset-document-format')!.quotes[0]!;
    expect(strict).toContain(`${escapeXml(` — ${should.source}: "${quoteText(should)}"`)}" type="SHOULD">`);
    expect(xml).not.toContain(TOKEN);
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
    expect(escapeXml('a<b & "c" \'d\'\u0001')).toBe('a&lt;b &amp; &quot;c&quot; &apos;d&apos;\ufffd');
  });

  test('lists a check that did not complete as an error', () => {
    const xml = renderJunit(
      record({ incomplete: [{ test: 'c-x: title', error: 'did not complete (timedOut)' }] }),
    );
    expect(xml).toContain('<error message="did not complete (timedOut)" type="incomplete">');
    expect(xml).toMatch(/errors="1"/);
  });
});

test.describe('redaction', () => {
  test('replaces the token in text and in every string of a value, keys included', () => {
    expect(redactText(`a ${TOKEN} b ${TOKEN}`, [TOKEN])).toBe('a $API_TOKEN b $API_TOKEN');
    expect(redactValue({ [TOKEN]: [`x${TOKEN}`, 1, null, { y: TOKEN }] }, [TOKEN])).toEqual({
      $API_TOKEN: ['x$API_TOKEN', 1, null, { y: '$API_TOKEN' }],
    });
    expect(secretsFromEnv({ API_TOKEN: TOKEN })).toEqual([TOKEN]);
    expect(secretsFromEnv({ API_TOKEN: ' Acme ' })).toEqual(['Acme']);
    expect(secretsFromEnv({ API_TOKEN: '' })).toEqual([]);
    expect(secretsFromEnv({})).toEqual([]);
  });

  test('a short token is replaced only where it stands as the token, never inside data', () => {
    const text = '{"name":"Acme Ltd","echo":"Authorization: Bearer Acme","other":"bearer\tAcme."}';
    expect(redactText(text, ['Acme'])).toBe(
      '{"name":"Acme Ltd","echo":"Authorization: Bearer $API_TOKEN","other":"bearer\t$API_TOKEN."}',
    );
    // Another token that begins like it is not it.
    expect(redactText('Bearer Acme2, Bearer Acme-x, Bearer Acme_, Bearer Acme.x', ['Acme'])).toBe(
      'Bearer Acme2, Bearer Acme-x, Bearer Acme_, Bearer Acme.x',
    );
    expect(redactValue({ name: 'Acme Ltd', auth: 'Bearer Acme' }, ['Acme'])).toEqual({
      name: 'Acme Ltd',
      auth: 'Bearer $API_TOKEN',
    });
    // The same text with a realistic token: every occurrence goes, inside words too.
    expect(redactText(`x${TOKEN}y ${TOKEN}`, [TOKEN])).toBe('x$API_TOKENy $API_TOKEN');
  });

  test('a stream redacts whole lines: a token split across chunks is caught; of a line longer than LINE_HELD, only a possible start of it is held back', () => {
    let out = '';
    const stream = new RedactingStream([TOKEN], (t) => (out += t));
    const text = `line 1\nAuthorization: Bearer ${TOKEN}\nline 3 tok-\n`;
    for (let i = 0; i < text.length; i += 5) stream.push(text.slice(i, i + 5));
    stream.end();
    expect(out).toBe(text.split(TOKEN).join('$API_TOKEN'));
    let partial = '';
    const held = new RedactingStream([TOKEN], (t) => (partial += t));
    held.push('progress 10% tok-un');
    expect(partial).toBe('');
    held.push('related.\nnext');
    expect(partial).toBe('progress 10% tok-unrelated.\n');
    // A line longer than LINE_HELD goes out as it comes, but for what may start the token.
    const long = 'x'.repeat(LINE_HELD);
    let written = '';
    const longLine = new RedactingStream([TOKEN], (t) => (written += t));
    longLine.push(`${long} progress 10% tok-un`);
    expect(written).toBe(`${long} progress 10% `);
    longLine.push('related.');
    expect(written).toBe(`${long} progress 10% tok-unrelated.`);
    longLine.push(` and ${TOKEN.slice(0, 6)}`);
    longLine.push(`${TOKEN.slice(6)}\n`);
    expect(written).toBe(`${long} progress 10% tok-unrelated. and $API_TOKEN\n`);
  });

  test('a stream catches `Bearer <short token>` split across chunks and leaves the data', () => {
    const text = 'Acme Ltd: you sent Authorization: Bearer  Acme\nBearer Acme Ltd\nBearer Acmex\n';
    for (const size of [1, 2, 3, 5, 7]) {
      let out = '';
      const stream = new RedactingStream(['Acme'], (t) => (out += t));
      for (let i = 0; i < text.length; i += size) stream.push(text.slice(i, i + size));
      stream.end();
      expect(out, `chunks of ${size}`).toBe(
        'Acme Ltd: you sent Authorization: Bearer  $API_TOKEN\nBearer $API_TOKEN Ltd\nBearer Acmex\n',
      );
    }
    let partial = '';
    const held = new RedactingStream(['Acme'], (t) => (partial += t));
    held.push(`${'x'.repeat(LINE_HELD)} progress Acme 10% Bear`);
    expect(partial).toBe(`${'x'.repeat(LINE_HELD)} progress Acme 10% `);
    held.push('ing up');
    expect(partial).toBe(`${'x'.repeat(LINE_HELD)} progress Acme 10% Bearing up`);
  });
});

test.describe('escaping what the target sent', () => {
  test('every control, format and separator character becomes a visible escape, and nothing else changes', () => {
    expect(
      escapeControls('\x1b[2J\x07\r\n\t\x00\x7f\u0085\u009b\u202e\u2066\u200b\u00ad\ufeff\u2028\u2029'),
    ).toBe('\\x1b[2J\\x07\\r\\n\\t\\x00\\x7f\\x85\\x9b\\u202e\\u2066\\u200b\\xad\\ufeff\\u2028\\u2029');
    expect(escapeControls('\u{e0041}\ud800')).toBe('\\u{e0041}\\ud800');
    const plain = "Müller & Søn, 中文, ١٢٣, 😀, a\u00a0b, C:\\path, O'Neill";
    expect(escapeControls(plain)).toBe(plain);
    // Idempotent: an escaped text (or a JSON body's own escapes) reads as it is.
    const once = escapeControls('\x1b]0;title\x07');
    expect(escapeControls(once)).toBe(once);
    expect(escapeControlsKeepingLines('line 1\n\tline 2\r\x1b[1A')).toBe('line 1\n\tline 2\\r\\x1b[1A');
  });

  test('the record carries no raw control character, whatever a finding quoted', () => {
    const r = record();
    const text = JSON.stringify(r);
    expect(text).not.toMatch(/\\u001b|\\u0000/);
    const received = r.requirements.flatMap((q) => q.findings.map((f) => f.received));
    expect(received.length).toBeGreaterThan(0);
    for (const line of received) {
      expect(line).not.toMatch(/[\p{Cc}\p{Cf}]/u);
      expect(line.endsWith('\\x00\\x1b[31m')).toBe(true);
    }
  });
});
