/**
 * The independent implementation (servers/independent): unit tests over HTTP of the choices it
 * makes, then the whole conformance suite against it. It is written from interface.md alone and
 * differs from the reference server wherever the document is silent, so a MUST failure here is
 * either a bug of the implementation or a false alarm of the suite.
 */
import { expect, test } from '@playwright/test';
import {
  INDEPENDENT_ACCOUNT_FIXTURE,
  INDEPENDENT_COUNTERPARTY,
  INDEPENDENT_TOKEN,
  INDEPENDENT_WRITABLE_COUNTERPARTY,
  IndependentServer,
} from '../../servers/independent/server.ts';
import type { TargetConfig } from '../../engine/types.ts';
import { describeTripped, runSuite, SELF_TEST_RUNS, SELF_TEST_SEED } from './suite-runner.ts';

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

/** A body without responseId, the field of the service's own that differs on every response. */
function stable(body: Record<string, unknown>): Record<string, unknown> {
  const { responseId: _differs, ...rest } = body;
  return rest;
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
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    expect(missing.headers.get('content-type')).toBe('application/problem+json');

    const wrong = await fetch(cpUrl(INDEPENDENT_COUNTERPARTY), { headers: { Authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');

    for (const path of ['/no/such/path', '/api/v1/counterparties/a/b', '/api/v1/mandates']) {
      const res = await fetch(base + path, { headers: { Authorization: 'Bearer nope' } });
      expect(res.status, path).toBe(401);
    }
    const basic = await fetch(base + '/api/v1/bills', { headers: { Authorization: 'Basic dXNlcjpwYXNz' } });
    expect(basic.status).toBe(401);
    expect(basic.headers.get('www-authenticate')).toBe('Bearer');

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

  test('the readable counterparty carries every field, without lifecycle headers', async () => {
    const res = await get(INDEPENDENT_COUNTERPARTY);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('deprecation')).toBeNull();
    expect(res.headers.get('sunset')).toBeNull();
    const cp = (await res.json()) as Json;
    expect(cp.counterpartyReference).toBe(INDEPENDENT_COUNTERPARTY);
    for (const field of ['emailAddress', 'mobileNumber', 'remarks', 'createdBy', 'address']) {
      expect(cp, field).toHaveProperty(field);
    }
    expect(Object.keys(cp.address as Json).sort()).toEqual(['addressLine', 'country', 'postalCode']);
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
    expect(encoded.headers.get('content-type')).toBe('application/problem+json');
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
    expect(res.headers.get('content-type')).toBe('application/json');
    const after = (await res.json()) as Json;
    expect(after.remarks).toBe("Net-30, don't chase");
    expect(after.mobileNumber).toBe('4420794600');
    expect(after.accountHolderName).toBe(before.accountHolderName);
    expect(after.emailAddress).toBe(before.emailAddress);
    expect(after.address).toEqual(before.address);
    expect(after.createdAt).toBe(before.createdAt);
    expect(after.counterpartyReference).toBe(INDEPENDENT_WRITABLE_COUNTERPARTY);
    expect((after.updatedAt as string) >= (before.updatedAt as string)).toBe(true);
    const accounts = after.counterpartyAccounts as Json[];
    expect(accounts.slice(0, -1)).toEqual(before.counterpartyAccounts);
    expect(accounts.at(-1)).toMatchObject({
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
    expect(after.address).toEqual({ ...(before.address as Json), postalCode: 'EC1A 1BB' });
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
      expect(res.headers.get('content-type'), label).toBe('application/problem+json');
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
    expect((await call('POST', '/api/v1/direct-debit', { mandateReference: mandateRef })).status).toBe(422);

    const wrongMethod = await call('DELETE', `/api/v1/counterparties/${INDEPENDENT_COUNTERPARTY}`);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toContain('PATCH');
  });
});

test('the independent implementation passes every requirement', async () => {
  const independent = new IndependentServer();
  const baseURL = await independent.start(0);
  try {
    const target: TargetConfig = {
      baseURL,
      token: INDEPENDENT_TOKEN,
      counterpartyRef: INDEPENDENT_COUNTERPARTY,
      writableRef: INDEPENDENT_WRITABLE_COUNTERPARTY,
      seed: SELF_TEST_SEED,
      runs: SELF_TEST_RUNS,
      accountFixture: INDEPENDENT_ACCOUNT_FIXTURE,
    };
    const run = await runSuite(target);
    // No false alarm, not even a SHOULD warning: this implementation follows RFC 6750 too.
    expect(run.tripped, describeTripped(run)).toEqual([]);
  } finally {
    await independent.stop();
  }
});
