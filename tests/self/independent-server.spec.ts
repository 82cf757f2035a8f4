/**
 * The independent implementation (servers/independent): unit tests over HTTP of the choices it
 * makes, then the whole conformance suite against it. It is written from interface.md alone and
 * differs from the reference server wherever the document is silent, so a MUST failure here is
 * either a bug of the implementation or a false alarm of the suite.
 */
import http from 'node:http';
import { gunzipSync } from 'node:zlib';
import { expect, test } from '@playwright/test';
import {
  INDEPENDENT_ACCOUNT_FIXTURE,
  INDEPENDENT_COUNTERPARTY,
  INDEPENDENT_ITEM_FIXTURES,
  INDEPENDENT_TOKEN,
  INDEPENDENT_WRITABLE_COUNTERPARTY,
  IndependentServer,
  LIFECYCLE,
} from '../../servers/independent/server.ts';
import { describeTripped, runSuite, SELF_TEST_RUNS, SELF_TEST_SEED, type SuiteRun } from './suite-runner.ts';

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;
const AUTH = { Authorization: `Bearer ${INDEPENDENT_TOKEN}` };
const JSON_AUTH = { ...AUTH, 'Content-Type': 'application/json' };
const VALID_ACCOUNT = {
  accountType: 'BANK_ACCOUNT',
  accountCategory: 'BUSINESS',
  name: 'Added account',
  ...INDEPENDENT_ACCOUNT_FIXTURE,
};

type Json = Record<string, unknown>;

let server: IndependentServer;
let base: string;

const PROBLEM = 'application/problem+json; charset=utf-8';
const REALM = 'realm="Payflow independent, sandbox and live"';

/** A value without requestId, the field of the service's own that differs on every response. */
function stable<T>(value: T): T {
  if (Array.isArray(value)) return value.map(stable) as T;
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) if (key !== 'requestId') out[key] = stable(v);
    return out as T;
  }
  return value;
}

/** The fields of an address that interface.md §2.2 lists. */
function documentedAddress(address: unknown): Json {
  const a = address as Json;
  return Object.fromEntries(
    ['addressLine', 'postalCode', 'country'].filter((k) => k in a).map((k) => [k, a[k]]),
  );
}

interface Raw {
  status: number;
  headers: http.IncomingHttpHeaders;
  /** The bytes as they came, before any content decoding. */
  bytes: Buffer;
  reusedSocket: boolean;
}

/** One request over node:http, the response read raw (no decoding, headers as sent). */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; agent?: http.Agent } = {},
): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: options.method ?? 'GET', headers: options.headers, agent: options.agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            bytes: Buffer.concat(chunks),
            reusedSocket: req.reusedSocket,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

test.describe('independent server over HTTP', () => {
  test.beforeEach(async () => {
    server = new IndependentServer();
    base = await server.start(0);
  });
  test.afterEach(async () => {
    await server.stop();
  });

  const cpUrl = (ref: string): string => `${base}/api/v1/counterparties/${ref}`;
  const get = (ref: string): Promise<Response> => fetch(cpUrl(ref), { headers: AUTH });
  const patch = (
    ref: string,
    body: unknown,
    headers: Record<string, string> = JSON_AUTH,
  ): Promise<Response> =>
    fetch(cpUrl(ref), {
      method: 'PATCH',
      headers,
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  function expectTimestamps(cp: Json): void {
    expect(cp.createdAt).toMatch(TIMESTAMP);
    expect(cp.updatedAt).toMatch(TIMESTAMP);
    for (const account of cp.counterpartyAccounts as Json[]) {
      expect(account.createdAt).toMatch(TIMESTAMP);
      expect(account.updatedAt).toMatch(TIMESTAMP);
      if ('lastVerifiedAt' in account) expect(account.lastVerifiedAt).toMatch(TIMESTAMP);
    }
  }

  test('starts on 127.0.0.1 with a free port', () => {
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  test('authentication is checked first, on every path', async () => {
    const missing = await fetch(cpUrl(INDEPENDENT_COUNTERPARTY));
    expect(missing.status).toBe(401);
    // No error code without credentials (RFC 6750 §3.1); a quoted realm holding commas.
    expect(missing.headers.get('www-authenticate')).toBe(
      `Bearer ${REALM}, scope="counterparties bills mandates direct-debit"`,
    );
    expect(missing.headers.get('content-type')).toBe(PROBLEM);

    const wrong = await fetch(cpUrl(INDEPENDENT_COUNTERPARTY), { headers: { Authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe(
      `Bearer ${REALM}, error="invalid_token", error_description="The access token is malformed, expired, or revoked"`,
    );

    for (const path of ['/no/such/path', '/api/v1/counterparties/a/b', '/api/v1/mandates']) {
      const res = await fetch(base + path, { headers: { Authorization: 'Bearer nope' } });
      expect(res.status, path).toBe(401);
    }
    const basic = await fetch(base + '/api/v1/bills', { headers: { Authorization: 'Basic dXNlcjpwYXNz' } });
    expect(basic.status).toBe(401);
    expect(basic.headers.get('www-authenticate')).not.toContain('error=');

    // Bearer credentials that are not one b64token: invalid_request, 400 (RFC 6750 §3.1).
    for (const authorization of ['Bearer', 'Bearer two tokens', 'Bearer a,b']) {
      const malformed = await fetch(cpUrl(INDEPENDENT_COUNTERPARTY), {
        headers: { Authorization: authorization },
      });
      expect(malformed.status, authorization).toBe(400);
      expect(malformed.headers.get('www-authenticate'), authorization).toContain('error="invalid_request"');
    }

    const lower = await fetch(cpUrl(INDEPENDENT_COUNTERPARTY), {
      headers: { Authorization: `bearer ${INDEPENDENT_TOKEN}` },
    });
    expect(lower.status).toBe(200);
  });

  test('a custom token replaces the default one', async () => {
    const custom = new IndependentServer({ token: 'another-token' });
    const url = await custom.start(0);
    try {
      const withDefault = await fetch(`${url}/api/v1/counterparties/${INDEPENDENT_COUNTERPARTY}`, {
        headers: AUTH,
      });
      expect(withDefault.status).toBe(401);
      const withCustom = await fetch(`${url}/api/v1/counterparties/${INDEPENDENT_COUNTERPARTY}`, {
        headers: { Authorization: 'Bearer another-token' },
      });
      expect(withCustom.status).toBe(200);
    } finally {
      await custom.stop();
    }
  });

  test('the readable counterparty carries every field, and fields of its own', async () => {
    const res = await get(INDEPENDENT_COUNTERPARTY);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const cp = (await res.json()) as Json;
    expect(cp.counterpartyReference).toBe(INDEPENDENT_COUNTERPARTY);
    for (const field of ['emailAddress', 'mobileNumber', 'remarks', 'createdBy', 'address']) {
      expect(cp, field).toHaveProperty(field);
    }
    expect(Object.keys(documentedAddress(cp.address)).sort()).toEqual([
      'addressLine',
      'country',
      'postalCode',
    ]);
    // Fields the document does not list, in the counterparty, the address and every account.
    expect(cp).toMatchObject({
      _links: { self: { href: `/api/v1/counterparties/${INDEPENDENT_COUNTERPARTY}` } },
      etag: res.headers.get('etag'),
      metadata: { tradingName: 'Harbour Fréight Logistics — Hâvre 港' },
      requestId: res.headers.get('x-request-id'),
    });
    expect(cp.address).toMatchObject({ formatted: expect.any(String), requestId: cp.requestId });
    for (const account of cp.counterpartyAccounts as Json[]) {
      expect(account).toMatchObject({
        accountId: expect.stringMatching(/^acc_/),
        etag: expect.stringMatching(/^W\/"/),
        _links: { counterparty: { href: expect.any(String) } },
        requestId: cp.requestId,
      });
    }
    const accounts = cp.counterpartyAccounts as Json[];
    expect(accounts.length).toBeGreaterThanOrEqual(3);
    const branches = accounts.map((a) => [(a.branchIdentifier as Json | undefined)?.type, a.currency]);
    expect(branches).toContainEqual(['SORT', 'GBP']);
    expect(branches).toContainEqual(['ROUTING', 'USD']);
    expectTimestamps(cp);
  });

  test('references: 400 for a pattern or length violation, 404 for a slash, never a counterparty for %2F', async () => {
    for (const bad of ['ab', 'x'.repeat(91), 'has%20space', 'dot.ted', '%C3%A9t%C3%A9', 'bad%ZZ']) {
      expect((await get(bad)).status, bad).toBe(400);
    }
    expect((await get('x'.repeat(90))).status).toBe(404);
    for (const slashed of [
      'IND/Vendor_000417',
      `${INDEPENDENT_COUNTERPARTY}/`,
      `a/${INDEPENDENT_COUNTERPARTY}`,
    ]) {
      expect((await get(slashed)).status, slashed).toBe(404);
    }
    const encoded = await get('IND%2FVendor_000417');
    expect(encoded.status).toBe(400);
    expect(encoded.headers.get('content-type')).toBe(PROBLEM);
    const escaped = await get(INDEPENDENT_COUNTERPARTY.replace('-', '%2D'));
    expect(escaped.status).toBe(200);
  });

  test('an unknown counterparty is 404 for GET and for PATCH, whatever the body', async () => {
    const res = await get('no-such-counterparty');
    expect(res.status).toBe(404);
    expect(((await res.json()) as Json).status).toBe(404);
    expect(
      (await patch('no-such-counterparty', { counterpartyDetails: { remarks: 'ok then' } })).status,
    ).toBe(404);
    expect((await patch('no-such-counterparty', '{not json')).status).toBe(404);
    expect((await patch('no-such-counterparty', { bogus: 1 })).status).toBe(404);
    expect((await get('no-such-counterparty')).status).toBe(404);
  });

  test('a valid PATCH merges details, appends accounts, and persists', async () => {
    const before = (await (await get(INDEPENDENT_WRITABLE_COUNTERPARTY)).json()) as Json;
    const res = await patch(INDEPENDENT_WRITABLE_COUNTERPARTY, {
      counterpartyDetails: { remarks: "Net-30, don't chase", mobileNumber: '4420794600' },
      counterpartyAccounts: [VALID_ACCOUNT],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json;charset=UTF-8');
    expect(res.headers.get('content-location')).toBe(
      `/api/v1/counterparties/${INDEPENDENT_WRITABLE_COUNTERPARTY}`,
    );
    const after = (await res.json()) as Json;
    expect(after.remarks).toBe("Net-30, don't chase");
    expect(after.mobileNumber).toBe('4420794600');
    expect(after.accountHolderName).toBe(before.accountHolderName);
    expect(after.emailAddress).toBe(before.emailAddress);
    expect(stable(after.address)).toEqual(stable(before.address));
    expect(after.createdAt).toBe(before.createdAt);
    expect(after.counterpartyReference).toBe(INDEPENDENT_WRITABLE_COUNTERPARTY);
    expect((after.updatedAt as string) >= (before.updatedAt as string)).toBe(true);
    // Newest first: the added account leads, the others follow in their order.
    const accounts = after.counterpartyAccounts as Json[];
    expect(stable(accounts.slice(1))).toEqual(stable(before.counterpartyAccounts));
    expect(accounts[0]).toMatchObject({
      state: 'ACTIVE',
      verificationStatus: 'UNVERIFIED',
      accountIdentifier: INDEPENDENT_ACCOUNT_FIXTURE.accountIdentifier,
      country: 'NL',
      currency: 'EUR',
    });
    expectTimestamps(after);
    expect(stable(await (await get(INDEPENDENT_WRITABLE_COUNTERPARTY)).json())).toEqual(stable(after));
  });

  test('a partial address is merged field by field', async () => {
    const before = (await (await get(INDEPENDENT_WRITABLE_COUNTERPARTY)).json()) as Json;
    const res = await patch(INDEPENDENT_WRITABLE_COUNTERPARTY, {
      counterpartyDetails: { address: { postalCode: 'EC1A 1BB' } },
    });
    expect(res.status).toBe(200);
    const after = (await res.json()) as Json;
    expect(documentedAddress(after.address)).toEqual({
      ...documentedAddress(before.address),
      postalCode: 'EC1A 1BB',
    });
  });

  test('an invalid PATCH is 422 problem+json and changes nothing', async () => {
    const before = await (await get(INDEPENDENT_WRITABLE_COUNTERPARTY)).json();
    const invalid: unknown[] = [
      {},
      [],
      'null',
      '{"counterpartyDetails":',
      { counterpartyDetails: {} },
      { counterpartyAccounts: [] },
      { counterpartyDetails: { remarks: 'ok remark' }, extra: true },
      { counterpartyDetails: { counterpartyReference: 'new-ref-123' } },
      { counterpartyDetails: { createdBy: 'API' } },
      { counterpartyDetails: { accountHolderName: 'Fine Name', nickname: 'x' } },
      { counterpartyDetails: { emailAddress: 'not-an-email' } },
      { counterpartyDetails: { emailAddress: 'a@b' } },
      { counterpartyDetails: { mobileNumber: '+4412345' } },
      { counterpartyDetails: { remarks: 'question mark?' } },
      { counterpartyDetails: { remarks: 'no trailing ' } },
      { counterpartyDetails: { address: { country: 'UK' } } },
      { counterpartyDetails: { address: { postalCode: '' } } },
      { counterpartyDetails: { address: { addressLine: 'semi;colon' } } },
      { counterpartyDetails: { address: { street: 'x' } } },
      {
        counterpartyDetails: { accountHolderName: 'Fine Name' },
        counterpartyAccounts: [{ ...VALID_ACCOUNT, country: 'ZZ' }],
      },
      { counterpartyAccounts: [{ ...VALID_ACCOUNT, country: 'nl' }] },
      { counterpartyAccounts: [{ ...VALID_ACCOUNT, currency: 'CHF' }] },
      { counterpartyAccounts: [{ ...VALID_ACCOUNT, accountType: 'WALLET' }] },
      { counterpartyAccounts: [{ ...VALID_ACCOUNT, name: 'x!' }] },
      { counterpartyAccounts: [{ ...VALID_ACCOUNT, accountIdentifier: { iban: 'NL91ABNA0417164300' } }] },
      {
        counterpartyAccounts: [
          { ...VALID_ACCOUNT, accountIdentifier: { scheme: 'IBAN', number: 'NL91ABNA0417164301' } },
        ],
      },
      { counterpartyAccounts: [{ ...VALID_ACCOUNT, branchIdentifier: { type: 'SORT', code: '601613' } }] },
      { counterpartyAccounts: [VALID_ACCOUNT, { ...VALID_ACCOUNT, accountCategory: 'CORPORATE' }] },
    ];
    for (const body of invalid) {
      const res = await patch(INDEPENDENT_WRITABLE_COUNTERPARTY, body);
      const label = typeof body === 'string' ? body : JSON.stringify(body);
      expect(res.status, label).toBe(422);
      expect(res.headers.get('content-type'), label).toBe(PROBLEM);
      const problem = (await res.json()) as Json;
      expect(problem, label).toMatchObject({
        status: 422,
        title: expect.any(String),
        type: expect.any(String),
      });
      expect((problem.errors as unknown[]).length, label).toBeGreaterThan(0);
    }
    const wrongType = await patch(
      INDEPENDENT_WRITABLE_COUNTERPARTY,
      { counterpartyDetails: { remarks: 'fine' } },
      {
        ...AUTH,
        'Content-Type': 'text/plain',
      },
    );
    expect(wrongType.status).toBe(415);
    expect(wrongType.headers.get('accept-patch')).toBe('application/json');
    expect(stable(await (await get(INDEPENDENT_WRITABLE_COUNTERPARTY)).json())).toEqual(stable(before));
  });

  test('accepted e-mail addresses, boundaries and branch identifiers', async () => {
    const ok = [
      { counterpartyDetails: { emailAddress: 'a@b.co' } },
      { counterpartyDetails: { emailAddress: "o'hara+tag.x@mail.example-domain.org" } },
      { counterpartyDetails: { mobileNumber: '12345', accountHolderName: 'A-_' } },
      { counterpartyDetails: { remarks: "a.b   c,d 'e' -" } },
      {
        counterpartyDetails: { address: { addressLine: "Flat 2/B, O'Neill St. #4 (rear)?!", country: 'GB' } },
      },
      {
        counterpartyAccounts: [
          {
            ...VALID_ACCOUNT,
            accountIdentifier: { scheme: 'ACCOUNT_NUMBER', number: '12345678' },
            branchIdentifier: { type: 'ROUTING', code: '021000021' },
            country: 'US',
            currency: 'USD',
          },
        ],
      },
    ];
    for (const body of ok) {
      const res = await patch(INDEPENDENT_WRITABLE_COUNTERPARTY, body);
      expect(res.status, JSON.stringify(body)).toBe(200);
      expectTimestamps((await res.json()) as Json);
    }
  });

  test('the other operations of section 4.3 are routed', async () => {
    const call = (method: string, path: string, body?: unknown) =>
      fetch(base + path, {
        method,
        headers: body === undefined ? AUTH : JSON_AUTH,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    for (const path of ['/api/v1/bills', '/api/v1/mandates', '/api/v1/direct-debit']) {
      expect((await call('GET', path)).status, path).toBe(200);
      expect((await call('POST', path, {})).status, path).toBe(422);
    }
    for (const path of ['/api/v1/bills/nope', '/api/v1/mandates/nope', '/api/v1/direct-debit/nope']) {
      expect((await call('GET', path)).status, path).toBe(404);
    }
    expect((await call('PATCH', '/api/v1/bills/nope', { status: 'PAID' })).status).toBe(404);
    expect((await call('POST', '/api/v1/bills/nope/document', { file: 'x' })).status).toBe(404);
    expect((await call('DELETE', '/api/v1/mandates/nope')).status).toBe(404);

    const bill = await call('POST', '/api/v1/bills', { amount: 10, currencyCode: 'EUR' });
    expect(bill.status).toBe(201);
    const billId = ((await bill.json()) as Json).uniqueReferenceIdentifier as string;
    expect((await call('GET', `/api/v1/bills/${billId}`)).status).toBe(200);
    expect((await call('PATCH', `/api/v1/bills/${billId}`, { status: 'PROCESSING' })).status).toBe(422);

    const mandate = await call('POST', '/api/v1/mandates', { mode: 'CORE', currency: 'EUR' });
    expect(mandate.status).toBe(201);
    const mandateRef = ((await mandate.json()) as Json).mandateReference as string;
    const collection = await call('POST', '/api/v1/direct-debit', {
      mandateReference: mandateRef,
      amount: 5,
    });
    expect(collection.status).toBe(201);
    const cancelled = await call('DELETE', `/api/v1/mandates/${mandateRef}`);
    expect(cancelled.status).toBe(200);
    expect(((await cancelled.json()) as Json).status).toBe('CANCELLED');
    expect((await call('DELETE', `/api/v1/mandates/${mandateRef}`)).status).toBe(409);
    // A reference to something inactive or unknown in a creation: 409.
    expect((await call('POST', '/api/v1/direct-debit', { mandateReference: mandateRef })).status).toBe(409);
    expect((await call('POST', '/api/v1/direct-debit', { mandateReference: 'MND-none' })).status).toBe(409);
    expect((await call('POST', '/api/v1/bills', { counterpartyReference: 'no-such-cp' })).status).toBe(409);
    expect((await call('POST', '/api/v1/mandates', { counterpartyReference: 'no-such-cp' })).status).toBe(
      409,
    );
    // A mandate or collection reference breaking its 1.3.0 pattern names nothing: 404, not 400.
    expect((await call('GET', '/api/v1/mandates/has_underscore')).status).toBe(404);
    expect((await call('GET', '/api/v1/direct-debit/dot.ted')).status).toBe(404);
    expect((await call('GET', `/api/v1/bills/${'b'.repeat(101)}`)).status).toBe(404);

    const wrongMethod = await call('DELETE', `/api/v1/counterparties/${INDEPENDENT_COUNTERPARTY}`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('OPTIONS, GET, PATCH, HEAD');
  });

  test('the bill list query: named statuses, valid references, pages from 0; other values 400; bad item references 404', async () => {
    const status = async (path: string) => (await fetch(base + path, { headers: AUTH })).status;
    for (const q of [
      'status=PROCESSING',
      'status=POST&counterpartyReference=abc',
      'page=0&pageSize=0',
      'pageSize=500',
    ]) {
      expect(await status(`/api/v1/bills?${q}`), q).toBe(200);
    }
    for (const q of ['status=DRAFT', 'counterpartyReference=ab', 'pageSize=501', 'page=-1', 'page=x']) {
      expect(await status(`/api/v1/bills?${q}`), q).toBe(400);
    }
    const empty = (await (await fetch(base + '/api/v1/bills?pageSize=0', { headers: AUTH })).json()) as Json;
    expect(empty.bills).toEqual([]);
    expect(await status('/api/v1/mandates/no_such')).toBe(404);
    expect(await status('/api/v1/direct-debit/no.such')).toBe(404);
    expect(await status(`/api/v1/bills/${'b'.repeat(101)}`)).toBe(404);
  });

  test('lists: bills by due date, mandates and collections newest first', async () => {
    const call = (method: string, path: string, body?: unknown) =>
      fetch(base + path, {
        method,
        headers: body === undefined ? AUTH : JSON_AUTH,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    for (const [id, dueDate] of [
      ['BILL-Z', '2024-05-01'],
      ['BILL-A', '2026-01-01'],
      ['BILL-M', '2024-05-01'],
    ]) {
      expect((await call('POST', '/api/v1/bills', { uniqueReferenceIdentifier: id, dueDate })).status).toBe(
        201,
      );
    }
    expect((await call('POST', '/api/v1/bills', { uniqueReferenceIdentifier: 'BILL-NODUE' })).status).toBe(
      201,
    );
    const bills = (await (await call('GET', '/api/v1/bills')).json()) as Json;
    expect((bills.bills as Json[]).map((b) => b.uniqueReferenceIdentifier)).toEqual([
      'BILL-M',
      'BILL-Z',
      'BILL-2024-0001',
      'BILL-A',
      'BILL-NODUE',
    ]);
    const paged = await call('GET', '/api/v1/bills?page=1&pageSize=2');
    expect(paged.headers.get('link')).toContain('</api/v1/bills?page=2&pageSize=2>; rel="next"');
    expect(paged.headers.get('link')).toContain('</api/v1/bills?page=0&pageSize=2>; rel="prev"');

    const created: string[] = [];
    for (let i = 0; i < 2; i++) {
      const m = await call('POST', '/api/v1/mandates', { mode: 'CORE' });
      created.push(((await m.json()) as Json).mandateReference as string);
    }
    const mandates = (await (await call('GET', '/api/v1/mandates')).json()) as Json;
    expect((mandates.mandates as Json[]).map((m) => m.mandateReference)).toEqual([
      ...created.reverse(),
      'MND-0001',
    ]);
    const first = await call('POST', '/api/v1/direct-debit', { mandateReference: 'MND-0001', amount: 1 });
    const second = await call('POST', '/api/v1/direct-debit', { mandateReference: 'MND-0001', amount: 2 });
    const refs = [first, second].map(async (r) => ((await r.json()) as Json).collectionReference);
    const collections = (await (await call('GET', '/api/v1/direct-debit')).json()) as Json;
    expect((collections.items as Json[]).map((c) => c.collectionReference)).toEqual(
      (await Promise.all(refs)).reverse(),
    );
  });

  test('JSON text: pretty-printed, keys sorted, non-ASCII escaped, a final newline, no BOM', async () => {
    const res = await raw(cpUrl(INDEPENDENT_COUNTERPARTY), { headers: AUTH });
    const text = res.bytes.toString('utf8');
    expect(res.bytes[0]).toBe(0x7b); // '{', no byte order mark
    expect(text.endsWith('}\n')).toBe(true);
    expect(text).toContain('\n  "accountHolderName": ');
    expect(text).toContain('"tradingName": "Harbour Fr\\u00e9ight Logistics \\u2014 H\\u00e2vre \\u6e2f"');
    expect([...text].every((c) => c.charCodeAt(0) < 0x80)).toBe(true);
    const keys = Object.keys(JSON.parse(text) as Json);
    expect(keys).toEqual([...keys].sort());
    expect(keys[0]).toBe('_links');
    const problem = await raw(`${base}/api/v1/counterparties/%C3%A9t%C3%A9`, { headers: AUTH });
    expect(problem.status).toBe(400);
    expect(problem.bytes.toString('utf8')).toMatch(/^\{\n\t"detail": /);
    expect(problem.bytes.toString('utf8')).toContain('\\u00e9t\\u00e9');
  });

  test('headers of its own on every response: request id, rate limits, timing, caching, Date', async () => {
    const a = await get(INDEPENDENT_COUNTERPARTY);
    const b = await get(INDEPENDENT_COUNTERPARTY);
    const idA = a.headers.get('x-request-id');
    expect(idA).toMatch(/^[0-9a-f-]{36}$/);
    expect(b.headers.get('x-request-id')).not.toBe(idA);
    expect(((await a.json()) as Json).requestId).toBe(idA);
    expect(((await b.json()) as Json).requestId).toBe(b.headers.get('x-request-id'));
    expect(a.headers.get('etag')).toMatch(/^W\/"[A-Za-z0-9_-]+"$/);
    expect(b.headers.get('etag')).toBe(a.headers.get('etag'));
    expect(a.headers.get('cache-control')).toBe('private, no-cache');
    expect(a.headers.get('vary')).toBe('Accept-Encoding, Authorization');
    expect(a.headers.get('ratelimit-policy')).toBe('"burst";q=100000;w=60');
    expect(a.headers.get('ratelimit')).toMatch(/^"burst";r=\d{5};t=\d+$/);
    expect(a.headers.get('server-timing')).toMatch(/^app;dur=\d+\.\d{3};desc="request handling"/);
    expect(a.headers.get('link')).toContain(
      `</api/v1/counterparties/${INDEPENDENT_COUNTERPARTY}>; rel="self"`,
    );
    expect(Number.isNaN(Date.parse(a.headers.get('date') ?? ''))).toBe(false);
    const problem = await get('ab');
    expect(problem.headers.get('cache-control')).toBe('no-store');
    expect(problem.headers.get('x-request-id')).toBe(((await problem.json()) as Json).requestId);
  });

  test('gzip only when Accept-Encoding accepts it; large bodies chunked; connections kept alive', async () => {
    const url = cpUrl(INDEPENDENT_COUNTERPARTY);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const plain = await raw(url, { headers: AUTH, agent });
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers['transfer-encoding']).toBe('chunked');
      expect(plain.headers['content-length']).toBeUndefined();
      expect(plain.headers['connection']).toBe('keep-alive');
      expect(plain.headers['keep-alive']).toBe('timeout=65');

      const zipped = await raw(url, { headers: { ...AUTH, 'Accept-Encoding': 'br;q=0.9, gzip' }, agent });
      expect(zipped.reusedSocket).toBe(true);
      expect(zipped.headers['content-encoding']).toBe('gzip');
      expect(stable(JSON.parse(gunzipSync(zipped.bytes).toString('utf8')))).toEqual(
        stable(JSON.parse(plain.bytes.toString('utf8'))),
      );
      for (const refused of ['gzip;q=0', 'identity', 'br']) {
        const res = await raw(url, { headers: { ...AUTH, 'Accept-Encoding': refused }, agent });
        expect(res.headers['content-encoding'], refused).toBeUndefined();
      }
      const small = await raw(`${base}/api/v1/mandates/MND-0001`, { headers: AUTH, agent });
      expect(small.headers['transfer-encoding']).toBeUndefined();
      expect(Number(small.headers['content-length'])).toBe(small.bytes.length);
    } finally {
      agent.destroy();
    }
  });

  test('conditional requests: 304 for a matching If-None-Match, 412 for If-Match', async () => {
    const first = await get(INDEPENDENT_COUNTERPARTY);
    const tag = first.headers.get('etag')!;
    const notModified = await fetch(cpUrl(INDEPENDENT_COUNTERPARTY), {
      headers: { ...AUTH, 'If-None-Match': `"other", ${tag}` },
    });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe(tag);
    const modified = await fetch(cpUrl(INDEPENDENT_COUNTERPARTY), {
      headers: { ...AUTH, 'If-None-Match': '"other"' },
    });
    expect(modified.status).toBe(200);
    // A weak tag never matches If-Match (strong comparison): nothing is changed.
    const guarded = await patch(
      INDEPENDENT_WRITABLE_COUNTERPARTY,
      { counterpartyDetails: { remarks: 'guarded' } },
      { ...JSON_AUTH, 'If-Match': tag },
    );
    expect(guarded.status).toBe(412);
    const any = await patch(
      INDEPENDENT_WRITABLE_COUNTERPARTY,
      { counterpartyDetails: { remarks: 'any state' } },
      { ...JSON_AUTH, 'If-Match': '*' },
    );
    expect(any.status).toBe(200);
    expect(((await any.json()) as Json).remarks).toBe('any state');
    // The collection exists, so "create only if nothing is there" fails on a POST.
    const create = await fetch(`${base}/api/v1/bills`, {
      method: 'POST',
      headers: { ...JSON_AUTH, 'If-None-Match': '*' },
      body: JSON.stringify({ dueDate: '2030-01-01' }),
    });
    expect(create.status).toBe(412);
    expect(
      ((await (await fetch(`${base}/api/v1/bills`, { headers: AUTH })).json()) as Json).bills,
    ).toHaveLength(1);
  });

  test('HEAD and OPTIONS', async () => {
    const head = await raw(cpUrl(INDEPENDENT_COUNTERPARTY), { method: 'HEAD', headers: AUTH });
    expect(head.status).toBe(200);
    expect(head.bytes.length).toBe(0);
    expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
    const options = await fetch(cpUrl(INDEPENDENT_COUNTERPARTY), { method: 'OPTIONS', headers: AUTH });
    expect(options.status).toBe(204);
    expect(options.headers.get('allow')).toBe('OPTIONS, GET, PATCH, HEAD');
    expect(options.headers.get('accept-patch')).toBe('application/json');
  });

  test('lifecycle headers on every operation: Deprecation @epoch, Sunset a later date-time, Link', async () => {
    const probes: [string, string, string][] = [
      ['GET', `/api/v1/counterparties/${INDEPENDENT_COUNTERPARTY}`, 'counterparties'],
      ['GET', '/api/v1/counterparties/ab', 'counterparties'],
      ['GET', '/api/v1/bills', 'bills'],
      ['GET', '/api/v1/bills/BILL-2024-0001', 'bills'],
      ['GET', '/api/v1/mandates', 'mandates'],
      ['DELETE', '/api/v1/mandates/nope', 'mandates'],
      ['GET', '/api/v1/direct-debit', 'direct-debit'],
    ];
    for (const [method, path, group] of probes) {
      const res = await fetch(base + path, { method, headers: AUTH });
      const deprecation = res.headers.get('deprecation')!;
      const sunset = res.headers.get('sunset')!;
      expect(deprecation, path).toMatch(/^@\d+$/);
      expect(sunset, path).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
      expect(Date.parse(sunset), path).toBeGreaterThanOrEqual(Number(deprecation.slice(1)) * 1000);
      expect(res.headers.get('link'), path).toContain(`/${group}-v1>; rel="deprecation"`);
      expect(res.headers.get('link'), path).toContain(`/${group}-v1>; rel="sunset"`);
      expect(deprecation).toBe(LIFECYCLE[group as keyof typeof LIFECYCLE].deprecation);
    }
    // Even without credentials, on a known route; not on a path that is no operation.
    expect((await fetch(base + '/api/v1/bills')).headers.get('deprecation')).not.toBeNull();
    expect((await fetch(base + '/no/such/path', { headers: AUTH })).headers.get('deprecation')).toBeNull();
  });
});

async function runAgainst(options: ConstructorParameters<typeof IndependentServer>[0]): Promise<SuiteRun> {
  const independent = new IndependentServer(options);
  const baseURL = await independent.start(0);
  try {
    return await runSuite({
      baseURL,
      token: INDEPENDENT_TOKEN,
      counterpartyRef: INDEPENDENT_COUNTERPARTY,
      writableRef: INDEPENDENT_WRITABLE_COUNTERPARTY,
      seed: SELF_TEST_SEED,
      runs: SELF_TEST_RUNS,
      accountFixture: INDEPENDENT_ACCOUNT_FIXTURE,
      itemFixtures: INDEPENDENT_ITEM_FIXTURES,
    });
  } finally {
    await independent.stop();
  }
}

test('the independent implementation, with every choice it makes, passes every requirement', async () => {
  const run = await runAgainst({});
  // No false alarm, not even a SHOULD warning: this implementation follows RFC 6750 too.
  expect(run.tripped, describeTripped(run)).toEqual([]);
  expect(run.incomplete).toEqual([]);
  // Its address carries fields of its own: the restore sends back only the documented ones.
  const notes = run.outcomes.flatMap((o) => o.notes);
  expect(notes.filter((n) => n.includes('could not restore'))).toEqual([]);
  expect(notes.filter((n) => n.startsWith('restored the original')).length).toBeGreaterThan(0);
});
