/**
 * The embedded reference server conforms: seeded counterparties validate against the spec,
 * GET and PATCH answer as interface.md §4.1, §4.2 and §7 say (and as the server documents its
 * choices where the document is silent), every operation requires the bearer token, and the
 * twelve other operations answer without server errors. Also a smoke test of the gallery.
 */
import { expect, test } from '@playwright/test';
import { spec } from '../../spec/index.ts';
import { isRequirementId } from '../../spec/requirements.ts';
import { GALLERY } from '../../servers/gallery/index.ts';
import { SEED_ITEM_REFS, seedItems } from '../../servers/reference/seed.ts';
import {
  DEPRECATION_HEADER,
  MINIMAL_COUNTERPARTY,
  REFERENCE_COUNTERPARTY,
  REFERENCE_TOKEN,
  ReferenceServer,
  SUNSET_HEADER,
  WRITABLE_COUNTERPARTY,
  type Counterparty,
  type ReferenceOptions,
} from '../../servers/reference.ts';

const AUTH = { Authorization: `Bearer ${REFERENCE_TOKEN}` };
const JSON_HEADERS = { ...AUTH, 'Content-Type': 'application/json' };
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

interface Reply {
  status: number;
  headers: Headers;
  body: unknown;
}

async function call(base: string, method: string, path: string, init: RequestInit = {}): Promise<Reply> {
  const res = await fetch(base + path, { method, ...init });
  const text = await res.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, body };
}

const cpPath = (ref: string): string => `/api/v1/counterparties/${encodeURIComponent(ref)}`;

async function withServer<T>(options: ReferenceOptions, fn: (base: string) => Promise<T>): Promise<T> {
  const server = new ReferenceServer(options);
  const base = await server.start(0);
  try {
    return await fn(base);
  } finally {
    await server.stop();
  }
}

async function patch(
  base: string,
  ref: string,
  body: unknown,
  headers: Record<string, string> = JSON_HEADERS,
): Promise<Reply> {
  return call(base, 'PATCH', cpPath(ref), {
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const ACCOUNT = {
  accountType: 'BANK_ACCOUNT',
  accountCategory: 'PERSONAL',
  name: 'New EUR account',
  accountIdentifier: { type: 'IBAN', value: 'DE89370400440532013000' },
  country: 'DE',
  currency: 'EUR',
};

let server: ReferenceServer;
let base: string;

test.beforeAll(async () => {
  server = new ReferenceServer();
  base = await server.start(0);
});

test.afterAll(async () => {
  await server.stop();
});

test.describe('seed data and GET', () => {
  test('every seeded counterparty validates against the spec Counterparty schema', async () => {
    for (const ref of [REFERENCE_COUNTERPARTY, MINIMAL_COUNTERPARTY, WRITABLE_COUNTERPARTY]) {
      const r = await call(base, 'GET', cpPath(ref), { headers: AUTH });
      expect(r.status, ref).toBe(200);
      expect(spec().errors('Counterparty', r.body), ref).toEqual([]);
      expect((r.body as Counterparty).counterpartyReference).toBe(ref);
    }
  });

  test('the reference counterparty has every optional field and several account shapes', async () => {
    const cp = (await call(base, 'GET', cpPath(REFERENCE_COUNTERPARTY), { headers: AUTH }))
      .body as Counterparty;
    const optional = Object.keys(spec().schema('Counterparty').properties ?? {}).filter(
      (k) => !(spec().schema('Counterparty').required ?? []).includes(k),
    );
    for (const field of optional) expect(cp[field], field).toBeDefined();
    expect(cp.remarks).toMatch(/'/);
    expect(cp.remarks).toMatch(/,/);
    expect(cp.createdBy).toBe('API');
    expect(Object.keys(cp.address ?? {}).sort()).toEqual(['addressLine', 'country', 'postalCode']);
    const accounts = cp.counterpartyAccounts ?? [];
    expect(accounts.length).toBeGreaterThanOrEqual(3);
    const gbp = accounts.find((a) => a.currency === 'GBP')!;
    expect(gbp.branchIdentifier).toEqual({ type: 'SORT', value: '401276' });
    expect(gbp.verificationStatus).toBe('VERIFIED');
    expect(gbp.lastVerifiedAt).toMatch(TIMESTAMP);
    const usd = accounts.find((a) => a.currency === 'USD')!;
    expect(usd.branchIdentifier).toEqual({ type: 'ROUTING', value: '021000021' });
    expect(usd.verificationStatus).toBe('UNVERIFIED');
    const eur = accounts.find((a) => a.currency === 'EUR')!;
    expect(eur).toMatchObject({ country: 'DE', state: 'INACTIVE', verificationStatus: 'FAILED' });
    expect(eur.branchIdentifier).toBeUndefined();
  });

  test('the minimal counterparty has only the required fields', async () => {
    const cp = (await call(base, 'GET', cpPath(MINIMAL_COUNTERPARTY), { headers: AUTH }))
      .body as Counterparty;
    expect(Object.keys(cp).sort()).toEqual([...(spec().schema('Counterparty').required ?? [])].sort());
  });

  test('GET of a known counterparty: JSON media type and lifecycle headers', async () => {
    const r = await call(base, 'GET', cpPath(REFERENCE_COUNTERPARTY), { headers: AUTH });
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.headers.get('deprecation')).toBe(DEPRECATION_HEADER);
    expect(r.headers.get('sunset')).toBe(SUNSET_HEADER);
    expect(spec().errors('header:Sunset', r.headers.get('sunset'))).toEqual([]);
  });

  test('deprecationHeaders: false sends neither lifecycle header', async () => {
    await withServer({ deprecationHeaders: false }, async (b) => {
      const r = await call(b, 'GET', cpPath(REFERENCE_COUNTERPARTY), { headers: AUTH });
      expect(r.status).toBe(200);
      expect(r.headers.get('deprecation')).toBeNull();
      expect(r.headers.get('sunset')).toBeNull();
    });
  });

  const cases: [string, string, number][] = [
    ['unknown valid reference', cpPath('unknown-ref_123'), 404],
    ['length 3', cpPath('abc'), 404],
    ['length 90', cpPath('x'.repeat(90)), 404],
    ['length 2', cpPath('ab'), 400],
    ['length 1', cpPath('a'), 400],
    ['length 91', cpPath('y'.repeat(91)), 400],
    ['length 256', cpPath('z'.repeat(256)), 400],
    ['space', cpPath('ab cd'), 400],
    ['dot (sent raw)', '/api/v1/counterparties/ab.cd', 400],
    ['tilde (sent raw)', '/api/v1/counterparties/ab~cd', 400],
    ['non-ASCII letter', cpPath('abécd'), 400],
    ['percent sign', cpPath('ab%cd'), 400],
    ['encoded slash %2F', '/api/v1/counterparties/abc%2Fdef', 400],
    ['encoded slash splitting the known reference', cpPath('ACME-Supp/lies_0001'), 400],
    ['raw slash', '/api/v1/counterparties/abc/def', 404],
    ['raw slash, three segments', '/api/v1/counterparties/x_y/z-9/w', 404],
    ['raw slash splitting the known reference', '/api/v1/counterparties/ACME-Supp/lies_0001', 404],
    ['malformed percent-encoding', '/api/v1/counterparties/abc%zzdef', 400],
    ['truncated percent-encoding', '/api/v1/counterparties/abc%2', 400],
    ['empty reference (trailing slash)', '/api/v1/counterparties/', 404],
    ['no reference', '/api/v1/counterparties', 404],
    ['unknown path', '/api/v2/counterparties/abc', 404],
    ['root', '/', 404],
  ];
  for (const [name, path, status] of cases) {
    test(`GET ${name} → ${status}`, async () => {
      const r = await call(base, 'GET', path, { headers: AUTH });
      expect(r.status, path).toBe(status);
      if (status !== 200)
        expect(r.body).toMatchObject({ error: { code: expect.any(String), message: expect.any(String) } });
    });
  }

  test('a query string does not change the route', async () => {
    const r = await call(base, 'GET', `${cpPath(REFERENCE_COUNTERPARTY)}?x=1`, { headers: AUTH });
    expect(r.status).toBe(200);
  });
});

test.describe('authentication and methods', () => {
  function probePath(template: string): string {
    const values: Record<string, string> = {
      counterpartyReference: WRITABLE_COUNTERPARTY,
      uniqueReferenceIdentifier: 'conformance-probe-bill',
      mandateReference: 'conformance-probe-mandate',
      collectionReference: 'conformance-probe-collection',
    };
    return template.replace(/\{([^}]+)\}/g, (_, name: string) => values[name]!);
  }

  test('every operation of the document answers 401 with a Bearer challenge without or with a wrong token', async () => {
    const ops = spec().operations();
    expect(ops).toHaveLength(14);
    const attempts: [Record<string, string>, string][] = [
      [{}, 'Bearer realm="payflow"'],
      [{ Authorization: 'Bearer wrong-token' }, 'Bearer realm="payflow", error="invalid_token"'],
      [
        { Authorization: `Basic ${Buffer.from('u:p').toString('base64')}` },
        'Bearer realm="payflow", error="invalid_token"',
      ],
      [{ Authorization: 'Bearer' }, 'Bearer realm="payflow", error="invalid_token"'],
      [{ Authorization: `Bearer ${REFERENCE_TOKEN}x` }, 'Bearer realm="payflow", error="invalid_token"'],
    ];
    for (const op of ops) {
      for (const [headers, challenge] of attempts) {
        const body = op.method === 'GET' || op.method === 'DELETE' ? undefined : '{}';
        const r = await call(base, op.method, probePath(op.path), {
          headers: { ...headers, 'Content-Type': 'application/json' },
          body,
        });
        expect(r.status, `${op.method} ${op.path} ${JSON.stringify(headers)}`).toBe(401);
        expect(r.headers.get('www-authenticate')).toBe(challenge);
      }
    }
  });

  test('the scheme name is case-insensitive', async () => {
    const r = await call(base, 'GET', cpPath(REFERENCE_COUNTERPARTY), {
      headers: { Authorization: `bearer ${REFERENCE_TOKEN}` },
    });
    expect(r.status).toBe(200);
  });

  test('authentication comes before validation and method checks on a routed path', async () => {
    expect((await call(base, 'GET', cpPath('a'))).status).toBe(401);
    expect((await call(base, 'PUT', cpPath(REFERENCE_COUNTERPARTY))).status).toBe(401);
    // A path that matches no route is 404 without authentication.
    expect((await call(base, 'GET', '/api/v1/nothing')).status).toBe(404);
  });

  test('a known path with an unlisted method is 405 with Allow', async () => {
    const put = await call(base, 'PUT', cpPath(REFERENCE_COUNTERPARTY), { headers: AUTH });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, PATCH, HEAD');
    const del = await call(base, 'DELETE', '/api/v1/bills', { headers: AUTH });
    expect(del.status).toBe(405);
    expect(del.headers.get('allow')).toBe('GET, POST, HEAD');
    const post = await call(base, 'POST', '/api/v1/direct-debit/abc', { headers: AUTH });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});

test.describe('HEAD and conditional requests (RFC 9110 §9.3.2, §13)', () => {
  test('HEAD is GET without content; the ETag is strong and follows the counterparty', async () => {
    await withServer({}, async (b) => {
      const get = await call(b, 'GET', cpPath(REFERENCE_COUNTERPARTY), { headers: AUTH });
      const head = await call(b, 'HEAD', cpPath(REFERENCE_COUNTERPARTY), { headers: AUTH });
      expect(head.status).toBe(200);
      expect(head.body).toBeUndefined();
      const tag = get.headers.get('etag')!;
      expect(tag).toMatch(/^"[^"]+"$/);
      expect(head.headers.get('etag')).toBe(tag);
      expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
      const patched = await patch(b, WRITABLE_COUNTERPARTY, { counterpartyDetails: { remarks: 'tagged' } });
      const before = (await call(b, 'GET', cpPath(WRITABLE_COUNTERPARTY), { headers: AUTH })).headers.get(
        'etag',
      );
      expect(patched.headers.get('etag')).toBe(before);
      const again = await patch(b, WRITABLE_COUNTERPARTY, { counterpartyDetails: { remarks: 'retagged' } });
      expect(again.headers.get('etag')).not.toBe(before);
    });
  });

  test('If-None-Match of the current tag is 304 with the ETag; of another tag 200', async () => {
    await withServer({}, async (b) => {
      const tag = (await call(b, 'GET', cpPath(REFERENCE_COUNTERPARTY), { headers: AUTH })).headers.get(
        'etag',
      )!;
      const same = await call(b, 'GET', cpPath(REFERENCE_COUNTERPARTY), {
        headers: { ...AUTH, 'If-None-Match': `"other", W/${tag}` },
      });
      expect(same.status).toBe(304);
      expect(same.body).toBeUndefined();
      expect(same.headers.get('etag')).toBe(tag);
      const other = await call(b, 'GET', cpPath(REFERENCE_COUNTERPARTY), {
        headers: { ...AUTH, 'If-None-Match': '"other"' },
      });
      expect(other.status).toBe(200);
    });
  });

  test('a PATCH whose If-Match is stale, or whose If-None-Match is current, is 412 and changes nothing', async () => {
    await withServer({}, async (b) => {
      const read = await call(b, 'GET', cpPath(WRITABLE_COUNTERPARTY), { headers: AUTH });
      const tag = read.headers.get('etag')!;
      const conditions: Record<string, string>[] = [
        { 'If-Match': '"stale"' },
        { 'If-Match': `W/${tag}` },
        { 'If-None-Match': tag },
      ];
      for (const condition of conditions) {
        const r = await call(b, 'PATCH', cpPath(WRITABLE_COUNTERPARTY), {
          headers: { ...JSON_HEADERS, ...condition },
          body: JSON.stringify({ counterpartyDetails: { remarks: 'lost' } }),
        });
        expect(r.status, JSON.stringify(condition)).toBe(412);
      }
      expect((await call(b, 'GET', cpPath(WRITABLE_COUNTERPARTY), { headers: AUTH })).body).toEqual(
        read.body,
      );
      const applied = await call(b, 'PATCH', cpPath(WRITABLE_COUNTERPARTY), {
        headers: { ...JSON_HEADERS, 'If-Match': tag },
        body: JSON.stringify({ counterpartyDetails: { remarks: 'kept' } }),
      });
      expect(applied.status).toBe(200);
    });
  });
});

test.describe('PATCH', () => {
  const clock =
    (iso: string): (() => Date) =>
    () =>
      new Date(iso);

  test('counterpartyDetails are merged; fields not sent are unchanged; a sent address replaces the address', async () => {
    await withServer({ now: clock('2026-01-15T10:20:30.456Z') }, async (b) => {
      const before = (await call(b, 'GET', cpPath(REFERENCE_COUNTERPARTY), { headers: AUTH }))
        .body as Counterparty;
      const r = await patch(b, REFERENCE_COUNTERPARTY, {
        counterpartyDetails: { remarks: 'Changed remark', address: { country: 'DE' } },
      });
      expect(r.status).toBe(200);
      expect(r.headers.get('deprecation')).toBe(DEPRECATION_HEADER);
      expect(r.headers.get('sunset')).toBe(SUNSET_HEADER);
      expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const after = r.body as Counterparty;
      expect(spec().errors('Counterparty', after)).toEqual([]);
      expect(after).toEqual({
        ...before,
        remarks: 'Changed remark',
        address: { country: 'DE' },
        updatedAt: '2026-01-15T10:20:30Z',
      });
      const reread = await call(b, 'GET', cpPath(REFERENCE_COUNTERPARTY), { headers: AUTH });
      expect(reread.body).toEqual(after);
    });
  });

  test('counterpartyAccounts are appended as ACTIVE, UNVERIFIED accounts stamped now', async () => {
    await withServer({ now: clock('2026-02-01T00:00:00Z') }, async (b) => {
      const r = await patch(b, WRITABLE_COUNTERPARTY, {
        counterpartyAccounts: [
          // Fields the client may not set are ignored.
          {
            ...ACCOUNT,
            state: 'INACTIVE',
            verificationStatus: 'VERIFIED',
            createdAt: '2000-01-01T00:00:00Z',
          },
          { ...ACCOUNT, accountCategory: 'BUSINESS', name: 'Second new account' },
        ],
      });
      expect(r.status).toBe(200);
      const cp = r.body as Counterparty;
      expect(spec().errors('Counterparty', cp)).toEqual([]);
      const accounts = cp.counterpartyAccounts ?? [];
      expect(accounts).toHaveLength(3);
      for (const added of accounts.slice(1)) {
        expect(added).toMatchObject({
          state: 'ACTIVE',
          verificationStatus: 'UNVERIFIED',
          createdAt: '2026-02-01T00:00:00Z',
          updatedAt: '2026-02-01T00:00:00Z',
        });
        expect(added.lastVerifiedAt).toBeUndefined();
      }
      expect(accounts[2]!.name).toBe('Second new account');
      expect(cp.updatedAt).toBe('2026-02-01T00:00:00Z');
      expect(cp.createdAt).toBe('2024-05-06T07:08:09Z');
    });
  });

  test('updatedAt never goes back, even when the clock does', async () => {
    await withServer({ now: clock('2001-01-01T00:00:00Z') }, async (b) => {
      const r = await patch(b, WRITABLE_COUNTERPARTY, { counterpartyDetails: { mobileNumber: '12345' } });
      expect(r.status).toBe(200);
      expect((r.body as Counterparty).updatedAt).toBe('2024-05-06T07:08:09Z');
    });
  });

  test('rejected patches store nothing', async () => {
    await withServer({}, async (b) => {
      const before = (await call(b, 'GET', cpPath(WRITABLE_COUNTERPARTY), { headers: AUTH })).body;
      const rejected: [string, unknown, number, Record<string, string>?][] = [
        [
          'valid details with an invalid account',
          {
            counterpartyDetails: { remarks: 'Would change' },
            counterpartyAccounts: [{ ...ACCOUNT, currency: 'INR' }],
          },
          400,
        ],
        ['an account country the list lacks', { counterpartyAccounts: [{ ...ACCOUNT, country: 'ZZ' }] }, 400],
        [
          'the reference in the details',
          { counterpartyDetails: { counterpartyReference: 'other-ref' } },
          400,
        ],
        ['createdBy in the details', { counterpartyDetails: { createdBy: 'someone' } }, 400],
        ['an empty body object', {}, 400],
        ['empty counterpartyDetails', { counterpartyDetails: {} }, 400],
        ['empty counterpartyAccounts', { counterpartyAccounts: [] }, 400],
        ['an unknown property', { counterpartyDetails: { remarks: 'Fine' }, extra: 1 }, 400],
        ['an account without country', { counterpartyAccounts: [{ ...ACCOUNT, country: undefined }] }, 400],
        ['malformed JSON', '{"counterpartyDetails":', 400],
        ['an empty body', '', 400],
        ['a JSON array', [], 400],
        [
          'text/plain',
          { counterpartyDetails: { remarks: 'Fine' } },
          415,
          { ...AUTH, 'Content-Type': 'text/plain' },
        ],
        ['no Content-Type', { counterpartyDetails: { remarks: 'Fine' } }, 415, AUTH],
      ];
      for (const [name, body, status, headers] of rejected) {
        const r = await patch(b, WRITABLE_COUNTERPARTY, body, headers ?? JSON_HEADERS);
        expect(r.status, name).toBe(status);
        const now = (await call(b, 'GET', cpPath(WRITABLE_COUNTERPARTY), { headers: AUTH })).body;
        expect(now, name).toEqual(before);
      }
    });
  });

  test('PATCH accepts a +json media type', async () => {
    await withServer({}, async (b) => {
      const r = await patch(
        b,
        WRITABLE_COUNTERPARTY,
        { counterpartyDetails: { accountHolderName: 'Renamed Ltd' } },
        { ...AUTH, 'Content-Type': 'application/merge-patch+json' },
      );
      expect(r.status).toBe(200);
      expect((r.body as Counterparty).accountHolderName).toBe('Renamed Ltd');
    });
  });

  test('an unknown counterparty is 404 and nothing is created; an invalid reference is 400', async () => {
    await withServer({}, async (b) => {
      const r = await patch(b, 'no-such-counterparty', { counterpartyDetails: { remarks: 'Hello' } });
      expect(r.status).toBe(404);
      expect((await call(b, 'GET', cpPath('no-such-counterparty'), { headers: AUTH })).status).toBe(404);
      expect((await patch(b, 'ab', { counterpartyDetails: { remarks: 'Hello' } })).status).toBe(400);
      const body = JSON.stringify({ counterpartyDetails: { remarks: 'Hello' } });
      const encoded = await call(b, 'PATCH', '/api/v1/counterparties/abc%2Fdef', {
        headers: JSON_HEADERS,
        body,
      });
      expect(encoded.status).toBe(400);
      const raw = await call(b, 'PATCH', '/api/v1/counterparties/abc/def', { headers: JSON_HEADERS, body });
      expect(raw.status).toBe(404);
    });
  });

  test('a response never aliases stored state', async () => {
    class Peeking extends ReferenceServer {
      peek(ref: string): Record<string, unknown> {
        return this.present(this.lookup(ref)!);
      }
    }
    const peeking = new Peeking();
    const b = await peeking.start(0);
    try {
      const copy = peeking.peek(REFERENCE_COUNTERPARTY) as Counterparty;
      copy.accountHolderName = 'Mutated';
      copy.counterpartyAccounts![0]!.accountIdentifier.value = 'mutated';
      delete copy.address;
      const r = await call(b, 'GET', cpPath(REFERENCE_COUNTERPARTY), { headers: AUTH });
      expect(spec().errors('Counterparty', r.body)).toEqual([]);
      expect((r.body as Counterparty).accountHolderName).toBe('ACME Supplies Ltd');
      expect((r.body as Counterparty).address).toBeDefined();
      expect((r.body as Counterparty).counterpartyAccounts![0]!.accountIdentifier.value).toBe('31926819');
    } finally {
      await peeking.stop();
    }
  });
});

test.describe('the other twelve operations', () => {
  test('the lists answer 200 with the seeded bill, mandate and collection (ITEM_FIXTURES of the embedded run)', async () => {
    const items = seedItems();
    expect((await call(base, 'GET', '/api/v1/bills', { headers: AUTH })).body).toEqual({
      bills: items.bills,
      paginationDetails: { page: 0, pageSize: 20, totalElements: 1 },
    });
    expect((await call(base, 'GET', '/api/v1/mandates', { headers: AUTH })).body).toEqual({
      mandates: items.mandates,
    });
    expect((await call(base, 'GET', '/api/v1/direct-debit?cursor=abc', { headers: AUTH })).body).toEqual({
      collections: items.collections,
      nextCursor: null,
    });
    for (const [path, ref] of [
      ['bills', SEED_ITEM_REFS.bill],
      ['mandates', SEED_ITEM_REFS.mandate],
      ['direct-debit', SEED_ITEM_REFS.collection],
    ])
      expect((await call(base, 'GET', `/api/v1/${path}/${ref}`, { headers: AUTH })).status, ref).toBe(200);
  });

  test('the bill list ignores its query: every documented filter value and page 0 are 200', async () => {
    for (const q of [
      'status=OPEN',
      'status=PROCESSING&counterpartyReference=abc',
      'page=0&pageSize=0',
      'status=anything&page=x',
    ]) {
      expect((await call(base, 'GET', `/api/v1/bills?${q}`, { headers: AUTH })).status, q).toBe(200);
    }
  });

  test('a body over 1 MiB is 413, and a JSON scalar 400, on POST bills, mandates and direct debits', async () => {
    const large = 'x'.repeat(1024 * 1024 + 1);
    for (const [method, path] of [
      ['POST', '/api/v1/bills'],
      ['POST', '/api/v1/mandates'],
      ['POST', '/api/v1/direct-debit'],
    ]) {
      expect((await call(base, method!, path!, { headers: JSON_HEADERS, body: large })).status).toBe(413);
      for (const body of ['null', 'true', '0', '"a bill"']) {
        expect((await call(base, method!, path!, { headers: JSON_HEADERS, body })).status, body).toBe(400);
      }
    }
  });

  test('single resources that were never created are 404; invalid mandate and collection references are 400', async () => {
    const cases: [string, string, number, string?][] = [
      ['GET', '/api/v1/bills/conformance-probe-bill', 404],
      ['PATCH', '/api/v1/bills/conformance-probe-bill', 404, '{"status":"PAID"}'],
      ['POST', '/api/v1/bills/conformance-probe-bill/document', 404, '{}'],
      ['GET', '/api/v1/mandates/conformance-probe-mandate', 404],
      ['DELETE', '/api/v1/mandates/conformance-probe-mandate', 404],
      ['GET', '/api/v1/direct-debit/conformance-probe-collection', 404],
      ['GET', '/api/v1/mandates/bad_reference', 400],
      ['DELETE', '/api/v1/mandates/bad_reference', 400],
      ['GET', '/api/v1/direct-debit/bad_reference', 400],
      ['GET', '/api/v1/direct-debit/bad%20ref', 400],
    ];
    for (const [method, path, status, body] of cases) {
      const r = await call(base, method, path, { headers: JSON_HEADERS, body });
      expect(r.status, `${method} ${path}`).toBe(status);
    }
  });

  test('creation takes a non-empty JSON object and keeps the resource', async () => {
    await withServer({}, async (b) => {
      for (const path of ['/api/v1/bills', '/api/v1/mandates', '/api/v1/direct-debit']) {
        for (const [body, headers] of [
          [undefined, JSON_HEADERS],
          ['', JSON_HEADERS],
          ['not json', JSON_HEADERS],
          ['[1]', JSON_HEADERS],
          ['{}', JSON_HEADERS],
          ['{"amount":1}', { ...AUTH, 'Content-Type': 'text/plain' }],
        ] as const) {
          expect((await call(b, 'POST', path, { headers, body })).status, `${path} ${body}`).toBe(400);
        }
      }
      const bill = await call(b, 'POST', '/api/v1/bills', { headers: JSON_HEADERS, body: '{"amount":100}' });
      expect(bill.status).toBe(201);
      const billRef = (bill.body as { uniqueReferenceIdentifier: string }).uniqueReferenceIdentifier;
      expect((await call(b, 'GET', `/api/v1/bills/${billRef}`, { headers: AUTH })).body).toMatchObject({
        amount: 100,
      });
      const listed = (await call(b, 'GET', '/api/v1/bills', { headers: AUTH })).body as { bills: unknown[] };
      // The seeded bill, then the one created.
      expect(listed.bills).toHaveLength(2);
      expect(listed.bills[1]).toMatchObject({ uniqueReferenceIdentifier: billRef });
      const updated = await call(b, 'PATCH', `/api/v1/bills/${billRef}`, {
        headers: JSON_HEADERS,
        body: '{"amount":50}',
      });
      expect(updated.body).toMatchObject({ amount: 50, uniqueReferenceIdentifier: billRef });
      const doc = `/api/v1/bills/${billRef}/document`;
      expect((await call(b, 'POST', doc, { headers: JSON_HEADERS, body: '{}' })).status).toBe(415);
      expect(
        (await call(b, 'POST', doc, { headers: { ...AUTH, 'Content-Type': 'application/pdf' } })).status,
      ).toBe(400);
      const upload = await call(b, 'POST', doc, {
        headers: { ...AUTH, 'Content-Type': 'application/pdf' },
        body: '%PDF-1.4 test',
      });
      expect(upload.status).toBe(201);

      const mandate = await call(b, 'POST', '/api/v1/mandates', {
        headers: JSON_HEADERS,
        body: '{"currency":"EUR"}',
      });
      expect(mandate.status).toBe(201);
      const mandateRef = (mandate.body as { mandateReference: string }).mandateReference;
      expect(spec().errors('MandateReference', mandateRef)).toEqual([]);
      expect((await call(b, 'GET', `/api/v1/mandates/${mandateRef}`, { headers: AUTH })).status).toBe(200);
      const cancelled = await call(b, 'DELETE', `/api/v1/mandates/${mandateRef}`, { headers: AUTH });
      expect(cancelled.body).toMatchObject({ status: 'CANCELLED' });
      expect((await call(b, 'DELETE', `/api/v1/mandates/${mandateRef}`, { headers: AUTH })).status).toBe(409);

      const collection = await call(b, 'POST', '/api/v1/direct-debit', {
        headers: JSON_HEADERS,
        body: '{"amount":5}',
      });
      expect(collection.status).toBe(201);
      const collectionRef = (collection.body as { collectionReference: string }).collectionReference;
      expect(spec().errors('CollectionReference', collectionRef)).toEqual([]);
      expect((await call(b, 'GET', `/api/v1/direct-debit/${collectionRef}`, { headers: AUTH })).status).toBe(
        200,
      );
      const list = (await call(b, 'GET', '/api/v1/direct-debit', { headers: AUTH })).body as {
        collections: unknown[];
      };
      // The seeded collection, then the one created.
      expect(list.collections).toHaveLength(2);
      expect(list.collections[1]).toMatchObject({ collectionReference: collectionRef });
    });
  });
});

test('every gallery variant starts and answers; ids unique, faults and trips filled with catalogue ids', async () => {
  expect(GALLERY.length).toBeGreaterThanOrEqual(28);
  expect(new Set(GALLERY.map((v) => v.id)).size).toBe(GALLERY.length);
  for (const variant of GALLERY) {
    expect(variant.id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(variant.fault.trim(), variant.id).not.toBe('');
    expect(variant.trips.length, variant.id).toBeGreaterThan(0);
    for (const id of variant.trips) expect(isRequirementId(id), `${variant.id}: ${id}`).toBe(true);
    expect(new Set(variant.trips).size, variant.id).toBe(variant.trips.length);
    const faulty = variant.create();
    expect(faulty).toBeInstanceOf(ReferenceServer);
    const b = await faulty.start(0);
    try {
      const r = await call(b, 'GET', cpPath(REFERENCE_COUNTERPARTY), { headers: AUTH });
      expect(r.status, variant.id).toBeGreaterThanOrEqual(200);
    } finally {
      await faulty.stop();
    }
  }
});
