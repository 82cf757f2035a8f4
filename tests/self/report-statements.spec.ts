/**
 * What the report says, against the run's record (issue 38: a true report). The sentences made
 * from structured parts are tried on every combination their parts can take, so that none reads
 * with a hole or a "(s)"; then gallery runs of each kind (read-only, write without item fixtures,
 * failing, interrupted, waived) are rendered and every statement of the page is checked against the record:
 * the probes a requirement lists are those whose exchanges were judged for it (never a skipped
 * one, never one that sent nothing, always the one that sent a finding's exchange), a probe that
 * sent nothing is shown as such with why, each finding carries its answer (status, only the header
 * fields that matter, a bounded body), and a stale or unknown waiver is said.
 */
import { expect, test } from '@playwright/test';
import { ANSWER_EXCERPT_CHARS, ANSWER_HEADERS, answerOf } from '../../exchange/answer.ts';
import { emptyOutcome } from '../../engine/run.ts';
import type { ProbeOutcome } from '../../engine/types.ts';
import { buildRecord } from '../../reporter/build-record.ts';
import { formatSummary } from '../../reporter/console.ts';
import { renderHtml } from '../../reporter/html.ts';
import { escapeXml, renderJunit } from '../../reporter/junit.ts';
import { probeState, probeStatusText } from '../../reporter/probe-state.ts';
import { provenance } from '../../reporter/provenance.ts';
import { recordErrors } from '../../reporter/record-schema.ts';
import type { ConformanceRecord } from '../../reporter/record.ts';
import {
  causeSentence,
  counted,
  findingsPhrase,
  judgedSentence,
  roleLabel,
} from '../../reporter/sentences.ts';
import { GALLERY } from '../../servers/gallery/index.ts';
import { ReferenceServer } from '../../servers/reference.ts';
import { progressLine } from '../../suite/conformance-reporter.ts';
import type { TargetConfig } from '../../engine/types.ts';
import { escapeHtml } from '../../reporter/html.ts';
import { galleryTarget, runSuite } from './suite-runner.ts';

const NOW = new Date('2026-03-15T12:00:00Z');

/** What no sentence of the report may hold: a hole, a doubled article, a "(s)", a doubled space or stop. */
function holes(text: string): string[] {
  const bad = [
    /\(s\)/,
    /\bthe the\b/i,
    /\bthe with\b/i,
    /\ban the\b/i,
    / {2}/,
    /\.\./,
    / [,.:;]/,
    /^\s|\s$/,
    /\bundefined\b/,
  ];
  return bad.filter((re) => re.test(text)).map((re) => `${re}: ${text}`);
}

test.describe('sentences made of parts, every combination', () => {
  test('counts, causes and findings', () => {
    for (const n of [0, 1, 2, 3, 8, 1000]) {
      expect(holes(counted(n, 'finding'))).toEqual([]);
      for (const causes of [0, 1, 2, 7]) expect(holes(findingsPhrase(n, causes))).toEqual([]);
      for (const status of [0, 200, 401, 500])
        expect(holes(causeSentence({ count: Math.max(n, 1), operation: 'getCounterparty', status }))).toEqual(
          [],
        );
    }
    expect(findingsPhrase(8, 1)).toBe('8 findings of one cause');
    expect(findingsPhrase(9, 2)).toBe('9 findings of 2 causes');
    expect(findingsPhrase(1, 1)).toBe('1 finding');
    expect(causeSentence({ count: 8, operation: 'getCounterparty', status: 500 })).toBe(
      '8 times: getCounterparty answered 500',
    );
    expect(causeSentence({ count: 1, operation: 'getCounterparty', status: 0 })).toBe(
      'Once: getCounterparty got no answer',
    );
  });

  test('who judged a requirement, on whose exchanges', () => {
    const lists = [[], ['a'], ['a', 'b'], ['a', 'b', 'c']];
    for (const judged of [0, 1, 5])
      for (const oracles of lists)
        for (const probes of lists)
          for (const traffic of [false, true]) {
            const s = judgedSentence({ judged, oracles, probes, traffic });
            expect(holes(s), s).toEqual([]);
            expect(s).toMatch(/\.$/);
            if (judged > 0 && !traffic) for (const p of probes) expect(s).toContain(p);
          }
    expect(judgedSentence({ judged: 3, oracles: ['x'], probes: ['a', 'b'] })).toBe(
      '3 judgements by oracle x on exchanges sent by probes a and b.',
    );
    expect(judgedSentence({ judged: 1, oracles: [], probes: ['a'] })).toBe(
      '1 judgement on exchanges sent by probe a (judged by that probe).',
    );
    expect(judgedSentence({ judged: 0, oracles: ['x'], probes: [] })).toBe('Not judged in this run.');
  });

  test('where a finding comes from, whatever its role', () => {
    const roles = [
      undefined,
      'PATCH',
      'read after PATCH',
      'the plain reference',
      'with the valid token under the scheme written "bearer"',
    ];
    for (const role of roles)
      for (const sentBy of [undefined, 'reads-require-authentication', 'server-error'])
        for (const where of [{}, { harEntry: 3 }, { proxied: 2 }]) {
          const s = provenance({
            requirement: 'no-server-error',
            message: 'm',
            expected: 'e',
            received: 'r',
            judgedBy: 'server-error',
            ...(role !== undefined ? { role } : {}),
            ...(sentBy !== undefined ? { sentBy } : {}),
            ...where,
          });
          expect(holes(s), s).toEqual([]);
          if (role !== undefined && sentBy !== undefined && Object.keys(where).length === 0)
            expect(s).toContain(`the exchange ${roleLabel(role)}`);
        }
    expect(
      provenance({
        requirement: 'auth-scheme-case-insensitive',
        message: 'm',
        expected: 'e',
        received: 'r',
        judgedBy: 'reads-require-authentication',
        sentBy: 'reads-require-authentication',
        role: 'with the valid token under the scheme written "bearer"',
      }),
    ).toBe(
      'judged by probe reads-require-authentication (probes/authentication.ts), on the exchange “with the valid token under the scheme written "bearer"” it sent',
    );
  });

  test('what a probe did: skipped, sent nothing (with why), could not complete, found, clean', () => {
    const base = { ...emptyOutcome('item-lifecycles', 'items', []), durationMs: 10 };
    const cases: [ProbeOutcome, string, string][] = [
      [{ ...base, status: 'skipped', skipReason: 'read-only run' }, 'skipped', 'skipped: read-only run'],
      [
        {
          ...base,
          notApplicable: [{ requirement: 'item-update-accepted', reason: 'ITEM_FIXTURES holds no bill' }],
        },
        'sent-nothing',
        'sent nothing: ITEM_FIXTURES holds no bill',
      ],
      [{ ...base, notes: ['nothing to read'] }, 'sent-nothing', 'sent nothing: nothing to read'],
      [base, 'sent-nothing', 'sent nothing: the probe gave no reason'],
      [
        { ...base, requests: 3, incomplete: 'the target stopped answering' },
        'incomplete',
        'could not complete: the target stopped answering',
      ],
      [{ ...base, requests: 3, findings: [{} as never, {} as never] }, 'found', 'ran, 2 findings'],
      [{ ...base, requests: 3 }, 'clean', 'ran, no finding'],
    ];
    for (const [o, state, text] of cases) {
      expect(probeState(o)).toBe(state);
      expect(probeStatusText(o)).toBe(text);
    }
    // The progress line: a probe that sent nothing is no ✓.
    expect(progressLine('item-lifecycles: items', cases[1]![0], undefined, 10)).toBe(
      '- item-lifecycles: sent nothing (ITEM_FIXTURES holds no bill), 0.0 s',
    );
  });

  test("an answer's evidence: the header fields that matter only, a bounded body cut on a whole character", () => {
    const a = answerOf({
      status: 401,
      headers: {
        'content-type': 'application/json',
        'www-authenticate': 'Bearer realm="payflow"',
        'set-cookie': 'session=secret',
        authorization: 'Bearer leaked',
        'x-api-key': 'k',
        sunset: 'Tue, 30 Jun 2027 00:00:00 GMT',
      },
      text: `${'é'.repeat(ANSWER_EXCERPT_CHARS - 1)}😀😀`,
    });
    expect(Object.keys(a.headers)).toEqual(['content-type', 'sunset', 'www-authenticate']);
    expect([...a.body!]).toHaveLength(ANSWER_EXCERPT_CHARS);
    expect(a.body!.endsWith('😀')).toBe(true);
    expect(a.bodyChars).toBe(ANSWER_EXCERPT_CHARS - 1 + 4);
    expect(answerOf({ status: 204, headers: {}, text: '' })).toEqual({ status: 204, headers: {} });
    expect(
      answerOf({
        status: 0,
        headers: {},
        text: '',
        failure: { kind: 'timeout', message: 'no answer in 10 s' },
      }),
    ).toEqual({ status: 0, headers: {}, failure: 'timeout: no answer in 10 s' });
  });
});

/** Runs the whole suite against a server of the gallery (or the reference) and builds its record. */
async function galleryRecord(
  variant: string | undefined,
  target: (t: TargetConfig) => TargetConfig,
  extra: Partial<Parameters<typeof buildRecord>[0]> = {},
): Promise<ConformanceRecord> {
  const server = variant ? GALLERY.find((v) => v.id === variant)!.create() : new ReferenceServer();
  const url = await server.start(0);
  try {
    const t = target(galleryTarget(url));
    const run = await runSuite(t);
    return buildRecord({
      outcomes: run.outcomes,
      incomplete: [],
      run: {
        baseURL: url,
        token: t.token,
        seed: t.seed,
        runs: t.runs,
        ...(t.writableRef ? { writableRef: t.writableRef } : {}),
      },
      startedAt: NOW,
      durationMs: 1000,
      now: NOW,
      ...extra,
    });
  } finally {
    await server.stop();
  }
}

const readOnly = (t: TargetConfig): TargetConfig => ({ ...t, writableRef: undefined });
const withoutItems = (t: TargetConfig): TargetConfig => {
  const { itemFixtures: _i, ...rest } = t;
  return rest;
};

/** The text of an HTML fragment, tags dropped and entities read. */
function text(html: string): string {
  return html
    .replace(/<[^>]+>/g, ' ')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** Every statement of the page about probes, findings and answers, checked against the record. */
function checkStatements(record: ConformanceRecord): void {
  expect(recordErrors(record)).toEqual([]);
  const html = renderHtml(record);
  const byId = new Map(record.probes.map((p) => [p.probe, p]));
  for (const r of record.requirements) {
    const senders = new Set(r.findings.map((f) => f.sentBy ?? f.probe));
    for (const p of r.probes) {
      const o = byId.get(p)!;
      expect(o, `${r.id}: ${p} is a probe of the run`).toBeDefined();
      expect(o.status, `${r.id}: ${p} was not skipped`).toBe('ran');
      expect(o.requests, `${r.id}: ${p} sent something`).toBeGreaterThan(0);
      expect(
        (o.judged[r.id] ?? 0) > 0 || senders.has(p),
        `${r.id}: ${p} judged it or sent a finding's exchange`,
      ).toBe(true);
    }
    for (const s of senders) expect(r.probes, `${r.id}: the sender of a finding is listed`).toContain(s);
    for (const o of record.probes)
      if ((o.judged[r.id] ?? 0) > 0 && o.requests > 0)
        expect(r.probes, `${r.id}: ${o.probe} judged it`).toContain(o.probe);
    // The page says the same, in its words.
    const start = html.indexOf(`id="req-${r.id}"`);
    const meta = html.slice(
      html.indexOf('<p class="meta">', start),
      html.indexOf('</p>', html.indexOf('<p class="meta">', start)),
    );
    expect(meta).toContain(
      escapeHtml(
        judgedSentence({
          judged: r.judged,
          oracles: r.oracles,
          probes: r.probes,
          traffic: record.traffic !== undefined,
        }),
      ),
    );
    for (const f of r.findings) {
      expect(f.answer, `${r.id}: a finding carries its answer`).toBeDefined();
      expect(f.answer!.status).toBe(f.status);
      for (const h of Object.keys(f.answer!.headers))
        expect(ANSWER_HEADERS as readonly string[]).toContain(h);
      expect([...(f.answer!.body ?? '')].length).toBeLessThanOrEqual(ANSWER_EXCERPT_CHARS);
    }
  }
  // Each probe's row says what it did; one that sent nothing is never shown as a clean run.
  for (const o of record.probes) {
    const row = html.slice(html.indexOf(`<tr><td><code>${escapeHtml(o.probe)}</code></td>`));
    const status = text(row.slice(0, row.indexOf('</tr>'))).replace(/\s+/g, ' ');
    if (o.status === 'ran' && o.requests === 0 && o.incomplete === undefined)
      expect(status).toContain('sent nothing: ');
    if (o.status === 'skipped') expect(status).toContain('skipped: ');
  }
  // The sentences the report makes (not the words it quotes, nor what the server sent): no hole.
  const made = [
    ...html.matchAll(
      /<(?:span class="why"|h4 class="cause"|p class="provenance"|p class="meta")>(.*?)<\/(?:span|h4|p)>/g,
    ),
  ].map((m) => text(m[1]!));
  expect(made.length).toBeGreaterThan(0);
  for (const line of made) expect(holes(line), line).toEqual([]);
}

test.describe('the report of gallery runs, statement by statement', () => {
  test.describe.configure({ timeout: 120_000 });

  test('a read-only run of the reference: no skipped write probe is named as judging anything', async () => {
    const record = await galleryRecord(undefined, readOnly);
    expect(record.mode).toBe('read-only');
    checkStatements(record);
    const skipped = record.probes.filter((p) => p.status === 'skipped').map((p) => p.probe);
    expect(skipped).toContain('patch-valid-details');
    for (const r of record.requirements) for (const p of skipped) expect(r.probes).not.toContain(p);
  });

  test('a write run without item fixtures: the probe that sent nothing says why', async () => {
    const record = await galleryRecord(undefined, withoutItems);
    expect(record.mode).toBe('write');
    checkStatements(record);
    const silent = record.probes.filter((p) => p.status === 'ran' && p.requests === 0);
    expect(silent.map((p) => p.probe)).toContain('item-lifecycles');
    const html = renderHtml(record);
    expect(html).toContain(
      `sent nothing: ${escapeHtml(silent.find((p) => p.probe === 'item-lifecycles')!.notApplicable[0]!.reason)}`,
    );
  });

  test('a failing read-only run: the probe that sent the failing exchange is listed, with the answer, and the causes are counted in words', async () => {
    const record = await galleryRecord('credentials-scheme-case-sensitive', readOnly);
    checkStatements(record);
    const r = record.requirements.find((x) => x.id === 'auth-scheme-case-insensitive')!;
    expect(r.status).toBe('warned');
    expect(r.probes).toEqual(['reads-require-authentication']);
    const f = r.findings[0]!;
    expect(f.answer?.status).toBe(401);
    expect(f.answer?.headers['www-authenticate']).toMatch(/^Bearer/);
    const html = renderHtml(record);
    expect(html).toContain(
      escapeHtml(
        findingsPhrase(
          r.groups.reduce((n, g) => n + g.count, 0),
          r.groups.length,
        ),
      ),
    );
    expect(html).not.toContain('finding(s)');
    expect(formatSummary(record)).toContain(`answer HTTP 401; content-type: `);
    // junit.xml carries the same parts: the cause counted in words, the answer and its body.
    const xml = renderJunit(record);
    expect(xml).toContain(escapeXml(`${causeSentence(r.groups[0]!)}. `));
    expect(xml).toContain('answer:   HTTP 401; content-type: ');
    expect(xml).toContain('body:     {');
  });

  test('an interrupted run: what ran before the stop is listed, nothing after it', async () => {
    const server = GALLERY.find((v) => v.id === 'credentials-scheme-case-sensitive')!.create();
    const url = await server.start(0);
    let record: ConformanceRecord;
    try {
      const t = readOnly(galleryTarget(url));
      const run = await runSuite(t);
      // The stop came halfway: the probes after it have no outcome.
      const before = run.outcomes.slice(0, Math.floor(run.outcomes.length / 2));
      record = buildRecord({
        outcomes: before,
        incomplete: [],
        run: { baseURL: url, token: t.token, seed: t.seed, runs: t.runs },
        startedAt: NOW,
        durationMs: 1000,
        now: NOW,
        interrupted: { signal: 'SIGINT', reason: 'Ctrl-C' },
        expectedProbes: run.outcomes.map((o) => o.probe),
      });
    } finally {
      await server.stop();
    }
    checkStatements(record);
    const ran = new Set(record.probes.map((p) => p.probe));
    for (const r of record.requirements) for (const p of r.probes) expect(ran.has(p)).toBe(true);
    expect(renderHtml(record)).toContain('<section id="interrupted">');
  });

  test('a waived run: the waived requirement, a stale waiver and one naming no requirement, each said', async () => {
    const waivers = {
      file: 'w.yaml',
      waivers: [
        {
          requirement: 'auth-scheme-case-insensitive',
          reason: 'gateway fix planned',
          expires: '2026-12-31',
          line: 2,
        },
        { requirement: 'counterparty-json', reason: 'was broken once', expires: '2026-12-31', line: 5 },
        { requirement: 'auth-bearer-case', reason: 'a retired id', expires: '2026-12-31', line: 8 },
      ],
    };
    const record = await galleryRecord('credentials-scheme-case-sensitive', readOnly, {
      waivers,
      strict: true,
    });
    checkStatements(record);
    expect(record.requirements.find((x) => x.id === 'auth-scheme-case-insensitive')!.status).toBe('waived');
    expect(record.waivers.entries.map((w) => w.status)).toEqual(['applied', 'stale', 'unknown']);
    expect(record.verdict).toBe('fail');
    expect(record.gateReasons.join('\n')).toContain('2 waiver(s) that waive nothing, in strict mode');
    const html = renderHtml(record);
    expect(html).toContain('<strong>Waivers that waive nothing</strong>');
    expect(formatSummary(record)).toContain('[unknown waiver] line 8, auth-bearer-case');
  });
});
