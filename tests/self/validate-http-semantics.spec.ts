/**
 * `validate` judges the HTTP semantics a deployment advertises in recorded traffic, with the
 * oracles that judge the suite's own (RFC 9110 §9.3.2, §13, §15.4.5): a HAR file, as a recorder
 * that keeps what came after a HEAD's header section writes it, holding a HEAD answered with
 * content and a 304 to the entity tag the counterparty had before a PATCH fails with exactly
 * those findings, on the entries that show them; the same session answered as RFC 9110 requires
 * passes them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { removeTemporaryDirectories, temporaryDirectory, validateInProcess } from './cli-fixtures.ts';

test.afterAll(() => removeTemporaryDirectories());

const ORIGIN = 'https://payflow.example.test';
const CP_URL = `${ORIGIN}/api/v1/counterparties/ACME-Supplies_0001`;
const BEFORE = {
  counterpartyReference: 'ACME-Supplies_0001',
  state: 'ACTIVE',
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-02T00:00:00Z',
  accountHolderName: 'Acme Supplies',
  remarks: 'before',
};
const AFTER = { ...BEFORE, remarks: 'after', updatedAt: '2026-01-03T00:00:00Z' };

interface Entry {
  method: string;
  url?: string;
  requestHeaders?: Record<string, string>;
  body?: unknown;
  status: number;
  headers?: Record<string, string>;
  /** The content that came, as text. */
  content?: string;
}

const HTTP_SEMANTICS = [
  'head-no-content',
  'head-headers-as-get',
  'not-modified-condition-false',
  'if-none-match-current-not-modified',
  'strong-etag-changes',
  'patch-preconditions',
] as const;

/** A HAR 1.2 file of these exchanges, one second apart. */
function har(entries: Entry[]): unknown {
  const start = Date.parse('2026-11-28T09:00:00.000Z');
  return {
    log: {
      version: '1.2',
      creator: { name: 'a recording proxy', version: '1' },
      entries: entries.map((e, i) => {
        const requestHeaders: Record<string, string> = {
          Authorization: 'Bearer recorded-token',
          ...e.requestHeaders,
        };
        const body = e.body === undefined ? undefined : JSON.stringify(e.body);
        if (body !== undefined) requestHeaders['Content-Type'] = 'application/json';
        const content = e.content ?? '';
        const headers: Record<string, string> = {
          ...(content === '' ? {} : { 'Content-Type': 'application/json' }),
          ...e.headers,
        };
        return {
          startedDateTime: new Date(start + i * 1000).toISOString(),
          time: 5,
          request: {
            method: e.method,
            url: e.url ?? CP_URL,
            httpVersion: 'HTTP/1.1',
            cookies: [],
            headers: Object.entries(requestHeaders).map(([name, value]) => ({ name, value })),
            queryString: [],
            ...(body !== undefined ? { postData: { mimeType: 'application/json', text: body } } : {}),
            headersSize: -1,
            bodySize: body === undefined ? 0 : Buffer.byteLength(body),
          },
          response: {
            status: e.status,
            statusText: '',
            httpVersion: 'HTTP/1.1',
            cookies: [],
            headers: Object.entries(headers).map(([name, value]) => ({ name, value })),
            content: {
              size: Buffer.byteLength(content),
              mimeType: headers['Content-Type'] ?? 'x-unknown',
              text: content,
            },
            redirectURL: '',
            headersSize: -1,
            bodySize: Buffer.byteLength(content),
          },
          cache: {},
          timings: { send: 0, wait: 5, receive: 0 },
        };
      }),
    },
  };
}

/** A session: a read, a HEAD, a PATCH, a revalidation with the tag from before it, and one with the current tag. */
function session(faulty: boolean): Entry[] {
  const json = (v: unknown): string => JSON.stringify(v);
  return [
    { method: 'GET', status: 200, headers: { ETag: '"v1"' }, content: json(BEFORE) },
    // A HEAD: the header fields of GET, and (faulty) the counterparty after them.
    {
      method: 'HEAD',
      status: 200,
      headers: { ETag: '"v1"', 'Content-Type': 'application/json' },
      content: faulty ? json(BEFORE) : '',
    },
    {
      method: 'PATCH',
      body: { counterpartyDetails: { remarks: 'after' } },
      status: 200,
      headers: { ETag: '"v2"' },
      content: json(AFTER),
    },
    // The tag from before the PATCH: the counterparty changed, so 200 with it (faulty: 304).
    faulty
      ? { method: 'GET', requestHeaders: { 'If-None-Match': '"v1"' }, status: 304, headers: { ETag: '"v1"' } }
      : {
          method: 'GET',
          requestHeaders: { 'If-None-Match': '"v1"' },
          status: 200,
          headers: { ETag: '"v2"' },
          content: json(AFTER),
        },
    { method: 'GET', requestHeaders: { 'If-None-Match': '"v2"' }, status: 304, headers: { ETag: '"v2"' } },
  ];
}

async function validated(entries: Entry[]) {
  const dir = temporaryDirectory('payflow-validate-http-');
  const file = join(dir, 'recorded.har');
  writeFileSync(file, JSON.stringify(har(entries)));
  const v = await validateInProcess([file], {}, dir);
  const requirements = v.record!.requirements.filter((r) =>
    (HTTP_SEMANTICS as readonly string[]).includes(r.id),
  );
  return {
    status: Object.fromEntries(requirements.map((r) => [r.id, r.status])),
    entries: Object.fromEntries(
      requirements.map((r) => [r.id, [...new Set(r.findings.map((f) => f.harEntry))].sort()]),
    ),
  };
}

test('a HEAD answered with content and a 304 to the tag from before a PATCH fail, on the entries that show them', async () => {
  const { status, entries } = await validated(session(true));
  expect(status).toEqual({
    'head-no-content': 'failed',
    'head-headers-as-get': 'passed',
    'not-modified-condition-false': 'failed',
    'if-none-match-current-not-modified': 'not-exercised',
    'strong-etag-changes': 'passed',
    'patch-preconditions': 'not-exercised',
  });
  expect(entries['head-no-content']).toEqual([1]);
  expect(entries['not-modified-condition-false']).toEqual([3]);
});

test('the same session answered as RFC 9110 requires passes', async () => {
  const { status } = await validated(session(false));
  expect(status).toEqual({
    'head-no-content': 'passed',
    'head-headers-as-get': 'passed',
    'not-modified-condition-false': 'passed',
    'if-none-match-current-not-modified': 'passed',
    'strong-etag-changes': 'passed',
    'patch-preconditions': 'not-exercised',
  });
});
