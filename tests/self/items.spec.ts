/**
 * ITEM_FIXTURES (generators/item-fixtures.ts) and what probes/items.ts reads of the answers: the
 * parser and its one-line errors, placeholders, the configuration (embedded default, empty means
 * none, a file, the replay line), how a created item's reference is found, when a mandate reads
 * as active, and the document's framing. Then the two probes against the reference server, and
 * against variants whose fault is a matter of reading: a Location elsewhere, a pending mandate.
 */
import { BILL_DOCUMENTS } from '../../generators/documents.ts';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { parseConfig } from '../../config/config.ts';
import { EMBEDDED_TARGET } from '../../config/embedded.ts';
import type { Exchange } from '../../exchange/exchange.ts';
import {
  fillPlaceholders,
  itemFixturesJson,
  parseItemFixtures,
  type ItemFixtures,
} from '../../generators/item-fixtures.ts';
import { createdReference, documentRequest, readsActive } from '../../probes/items.ts';
import { resolveRun } from '../../run/resolve.ts';
import { ReferenceServer, type RequestContext } from '../../servers/reference.ts';
import { describeTripped, galleryTarget, runSuite } from './suite-runner.ts';

const ITEMS = [
  'item-known-readable',
  'item-create-accepted',
  'item-update-accepted',
  'bill-document-accepted',
  'mandate-cancel',
];

test.describe('parsing ITEM_FIXTURES', () => {
  test('every part is optional; what is given is kept', () => {
    expect(parseItemFixtures('{}')).toEqual({});
    const all = parseItemFixtures(
      JSON.stringify({
        read: { bill: 'B-1', mandate: 'M-1', collection: 'C-1' },
        create: { bill: { a: 1 }, mandate: { b: 2 }, directDebit: { c: 3 } },
        updateBill: { openAmount: 1 },
        document: 'multipart:file',
      }),
    );
    expect(all).toEqual({
      read: { bill: 'B-1', mandate: 'M-1', collection: 'C-1' },
      create: { bill: { a: 1 }, mandate: { b: 2 }, directDebit: { c: 3 } },
      updateBill: { openAmount: 1 },
      document: { kind: 'multipart', field: 'file' },
    });
    expect(parseItemFixtures('{"document":"raw"}').document).toEqual({ kind: 'raw' });
    // Written back as it was read (the replay line carries it).
    expect(parseItemFixtures(itemFixturesJson(all))).toEqual(all);
  });

  for (const [text, message] of [
    ['not json', /not valid JSON/],
    ['[]', /must be a JSON object/],
    ['{"reed":{}}', /has no field "reed"/],
    ['{"read":{"invoice":"x"}}', /read has no field "invoice"/],
    ['{"read":{"bill":"a/b"}}', /read.bill must be the reference/],
    ['{"read":{"bill":""}}', /read.bill must be the reference/],
    ['{"create":{"bill":{}}}', /create.bill must be a non-empty JSON object/],
    ['{"create":{"bill":[1]}}', /create.bill must be a non-empty JSON object/],
    ['{"updateBill":"x"}', /updateBill must be a non-empty JSON object/],
    ['{"document":"multipart:"}', /document must be "raw"/],
    ['{"document":"multipart:a b"}', /document must be "raw"/],
  ] as const) {
    test(`refuses ${text} in one line`, () => {
      expect(() => parseItemFixtures(text)).toThrow(message);
    });
  }

  test('placeholders are filled in every string, at every depth; an unknown one is left', () => {
    expect(
      fillPlaceholders(
        { id: 'x-{{unique}}', list: ['{{mandateReference}}', 3], inner: { keep: '{{other}}', n: null } },
        { unique: 'u1', mandateReference: 'M-9' },
      ),
    ).toEqual({ id: 'x-u1', list: ['M-9', 3], inner: { keep: '{{other}}', n: null } });
  });
});

test.describe('the configuration', () => {
  test('the embedded server has a default; empty asks for none; a deployment has none unless given', () => {
    expect(parseConfig({}, EMBEDDED_TARGET).itemFixtures).toEqual(EMBEDDED_TARGET.itemFixtures);
    expect(parseConfig({ ITEM_FIXTURES: '' }, EMBEDDED_TARGET).itemFixtures).toBeUndefined();
    const remote = { API_BASE_URL: 'http://127.0.0.1:1', API_TOKEN: 't0ken', COUNTERPARTY_REF: 'ACME-1' };
    expect(parseConfig(remote, EMBEDDED_TARGET).itemFixtures).toBeUndefined();
    expect(
      parseConfig({ ...remote, ITEM_FIXTURES: '{"read":{"bill":"B"}}' }, EMBEDDED_TARGET).itemFixtures,
    ).toEqual({
      read: { bill: 'B' },
    });
  });

  test('a file relative to the directory run from; an unreadable one or bad JSON is one line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'payflow-items-'));
    try {
      writeFileSync(join(dir, 'items.json'), '{"read":{"mandate":"M-1"}}');
      const remote = { API_BASE_URL: 'http://127.0.0.1:1', API_TOKEN: 't0ken', COUNTERPARTY_REF: 'ACME-1' };
      expect(
        parseConfig({ ...remote, ITEM_FIXTURES: 'items.json' }, EMBEDDED_TARGET, dir).itemFixtures,
      ).toEqual({
        read: { mandate: 'M-1' },
      });
      expect(() => parseConfig({ ...remote, ITEM_FIXTURES: 'missing.json' }, EMBEDDED_TARGET, dir)).toThrow(
        /^ITEM_FIXTURES: cannot read the file 'missing.json' \(ENOENT\)/,
      );
      expect(() => parseConfig({ ...remote, ITEM_FIXTURES: '{"read":1}' }, EMBEDDED_TARGET, dir)).toThrow(
        /ITEM_FIXTURES: read must be an object/,
      );
      expect(() => parseConfig({ ...remote, ITEM_FIXTURES: dir }, EMBEDDED_TARGET, dir)).toThrow(
        /ITEM_FIXTURES/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('the replay line carries what a deployment was given, and nothing for the embedded default', () => {
    const dir = mkdtempSync(join(tmpdir(), 'payflow-items-'));
    try {
      const given = '{"read":{"bill":"B-1"},"document":"multipart:file"}';
      const remote = resolveRun(
        {
          API_BASE_URL: 'http://127.0.0.1:1',
          API_TOKEN: 't0ken',
          COUNTERPARTY_REF: 'ACME-1',
          ITEM_FIXTURES: given,
        },
        dir,
        EMBEDDED_TARGET,
      );
      expect(JSON.parse(remote.settings.ITEM_FIXTURES!)).toEqual(JSON.parse(given));
      const embedded = resolveRun({}, dir, EMBEDDED_TARGET);
      expect(embedded.settings.ITEM_FIXTURES).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function answer(url: string, status: number, headers: Record<string, string>, body: unknown): Exchange {
  return {
    request: { method: 'POST', url, headers: {} },
    status,
    headers,
    text: JSON.stringify(body),
    body,
    startedAt: 0,
    durationMs: 1,
  } as Exchange;
}

test.describe('reading the answers', () => {
  const base = 'http://127.0.0.1:9/gw/api/v1/mandates';
  test('a created reference: the Location below the collection first, then the field, then the body sent', () => {
    expect(
      createdReference(answer(base, 201, { location: '/gw/api/v1/mandates/M-7' }, {}), 'mandate', {}),
    ).toBe('M-7');
    expect(
      createdReference(answer(base, 201, { location: 'http://x/api/v1/mandates/M%2D8' }, {}), 'mandate', {}),
    ).toBe('M-8');
    // A Location elsewhere (a status monitor) names nothing; the body does.
    expect(
      createdReference(
        answer(base, 202, { location: '/api/v1/jobs/17' }, { mandateReference: 'M-9' }),
        'mandate',
        {},
      ),
    ).toBe('M-9');
    expect(createdReference(answer(base, 201, {}, { id: 1 }), 'mandate', { mandateReference: 'M-10' })).toBe(
      'M-10',
    );
    expect(createdReference(answer(base, 201, {}, { id: 1 }), 'mandate', {})).toBeUndefined();
    expect(
      createdReference(
        answer('http://x/api/v1/bills', 201, {}, { uniqueReferenceIdentifier: 'B-1' }),
        'bill',
        {},
      ),
    ).toBe('B-1');
  });

  test('a mandate reads as active when a state or status field holds ACTIVE, in any case, at any depth', () => {
    expect(readsActive({ status: 'ACTIVE' })).toBe(true);
    expect(readsActive({ mandate: { mandateState: 'active' } })).toBe(true);
    expect(readsActive({ status: 'PENDING', counterparty: { name: 'ACTIVE' } })).toBe(false);
    expect(readsActive({ status: 'CANCELLED' })).toBe(false);
    expect(readsActive(null)).toBe(false);
  });

  test('a document as the body, or as a part of a form; an image as bytes either way', () => {
    const raw = documentRequest('/api/v1/bills/B/document', { kind: 'raw' }, 'b');
    expect(raw.headers).toEqual({ 'Content-Type': 'application/pdf' });
    expect(String(raw.rawBody).startsWith('%PDF-')).toBe(true);
    const form = documentRequest('/api/v1/bills/B/document', { kind: 'multipart', field: 'file' }, 'xyz');
    expect(form.headers).toEqual({ 'Content-Type': 'multipart/form-data; boundary=xyz' });
    expect(typeof form.rawBody).toBe('string');
    expect(form.rawBody).toContain(
      '--xyz\r\nContent-Disposition: form-data; name="file"; filename="conformance.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-',
    );
    expect(String(form.rawBody).endsWith('\r\n--xyz--\r\n')).toBe(true);
    const png = BILL_DOCUMENTS.find((d) => d.kind === 'PNG')!;
    const rawPng = documentRequest('/api/v1/bills/B/document', { kind: 'raw' }, 'b', png);
    expect(rawPng.headers).toEqual({ 'Content-Type': 'image/png' });
    expect(Buffer.from(rawPng.rawBody as Uint8Array)).toEqual(Buffer.from(png.content as Uint8Array));
    const formPng = documentRequest('/api/v1/bills/B/document', { kind: 'multipart', field: 'f' }, 'q', png);
    const body = Buffer.from(formPng.rawBody as Uint8Array);
    const head =
      '--q\r\nContent-Disposition: form-data; name="f"; filename="conformance.png"\r\nContent-Type: image/png\r\n\r\n';
    expect(body.subarray(0, head.length).toString('latin1')).toBe(head);
    expect(body.subarray(head.length, head.length + 8)).toEqual(
      Buffer.from(png.content as Uint8Array).subarray(0, 8),
    );
    expect(body.subarray(-9).toString('latin1')).toBe('\r\n--q--\r\n');
  });
});

async function run(server: ReferenceServer, itemFixtures?: ItemFixtures) {
  const url = await server.start(0);
  try {
    const target = galleryTarget(url);
    return await runSuite(itemFixtures === undefined ? target : { ...target, itemFixtures }, {
      probes: ['known-items', 'item-lifecycles'],
    });
  } finally {
    await server.stop();
  }
}

test.describe('the probes', () => {
  test('against the reference server: every item requirement judged and passed', async () => {
    const r = await run(new ReferenceServer());
    expect(r.tripped, describeTripped(r)).toEqual([]);
    for (const id of ITEMS) expect(r.verdicts.find((v) => v.id === id)?.status, id).toBe('passed');
  });

  test('without ITEM_FIXTURES nothing is sent, and each requirement says why it was not exercised', async () => {
    const r = await run(new ReferenceServer(), {});
    expect(r.exchanges).toEqual([]);
    for (const id of ITEMS) {
      const v = r.verdicts.find((x) => x.id === id)!;
      expect(v.status, id).toBe('not-exercised');
      expect(v.reasons.join(' '), id).toContain('ITEM_FIXTURES');
    }
  });

  test('a mandate that starts pending is neither cancelled nor judged, and no collection is started against it', async () => {
    const pending = new (class extends ReferenceServer {
      protected override async createMandate(ctx: RequestContext): Promise<void> {
        await super.createMandate(ctx);
        for (const m of this.mandates.values())
          if (m.status === 'ACTIVE' && m.createdAt !== '2025-03-01T10:00:00Z') m.status = 'PENDING';
      }
    })();
    const r = await run(pending);
    expect(r.tripped, describeTripped(r)).toEqual([]);
    expect(r.verdicts.find((v) => v.id === 'mandate-cancel')?.status).toBe('not-exercised');
    expect(r.exchanges.some((e) => e.request.method === 'DELETE')).toBe(false);
    expect(r.exchanges.some((e) => e.request.url.endsWith('/api/v1/direct-debit'))).toBe(false);
  });
});
