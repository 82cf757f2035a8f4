/**
 * The service as one system, in recorded traffic and in the judge itself: accepted PATCHes that
 * overlap in time are judged as concurrent (any serial order of them that explains what was read
 * passes), never as if serial in the order they completed; a PATCH of one counterparty must not
 * show on another. The recorded traffic is a conforming server's, its two overlapping PATCHes
 * applied in each order a front forces, recorded by a plain client (tests/self/har-recorder.ts)
 * with the whole milliseconds of a browser's or a gateway's HAR; the same traffic of a server that
 * loses one of them fails. The probes that send such traffic (probes/sequences.ts, probes/concurrent-patches.ts) are proven on the
 * gallery (servers/gallery/concurrency.ts) and pass on the conforming servers there.
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { Judge } from '../../engine/judge.ts';
import { concurrentGroups, overlapped } from '../../engine/judge-states.ts';
import { TrafficValidation } from '../../engine/validate.ts';
import type { Exchange } from '../../exchange/exchange.ts';
import { exchangesOfHar, parseHar } from '../../exchange/har.ts';
import { exchangeFrom } from '../../oracles/vectors/format.ts';
import { CONCURRENCY_VARIANTS } from '../../servers/gallery/concurrency.ts';
import { REFERENCE_TOKEN, ReferenceServer, WRITABLE_COUNTERPARTY } from '../../servers/reference.ts';
import { recordPlainHarSteps, type PlainCall } from './har-recorder.ts';

const at = (ex: Exchange, startedAt: number, durationMs: number): Exchange => ({
  ...ex,
  startedAt,
  durationMs,
});

test.describe('overlap in time', () => {
  const ex = exchangeFrom({
    request: { method: 'GET', url: 'http://127.0.0.1:9/api/v1/counterparties/A-1' },
    status: 200,
  });

  test('two exchanges overlap when one started before the other ended, beyond whole milliseconds', () => {
    // The suite's own client: fractions of a millisecond, one after the other's answer never overlaps.
    expect(overlapped(at(ex, 10.25, 5), at(ex, 15.3, 5))).toBe(false);
    expect(overlapped(at(ex, 10.25, 5), at(ex, 15.2, 5))).toBe(true);
    // A HAR of whole milliseconds: an overlap under one millisecond may be rounding.
    expect(overlapped(at(ex, 10, 5), at(ex, 14, 5))).toBe(false);
    expect(overlapped(at(ex, 10, 5), at(ex, 13, 5))).toBe(true);
  });

  test('a chain of accepted PATCHes falls into groups of those that overlapped', () => {
    const [a, b, c, d] = [at(ex, 0, 10), at(ex, 5, 10), at(ex, 20.5, 3), at(ex, 30.5, 3)];
    expect(concurrentGroups([a, b, c, d])).toEqual([[a, b], [c], [d]]);
    expect(concurrentGroups([a])).toEqual([[a]]);
  });
});

const AUTH = { Authorization: `Bearer ${REFERENCE_TOKEN}` };
const JSON_AUTH = { ...AUTH, 'Content-Type': 'application/json' };
/** A body of the reference server's counterparty, as GET and PATCH answer it. */
const URL_W = `http://127.0.0.1:9/api/v1/counterparties/${WRITABLE_COUNTERPARTY}`;

test.describe('the judge', () => {
  const cp = (fields: Record<string, unknown>): Record<string, unknown> => ({
    counterpartyReference: WRITABLE_COUNTERPARTY,
    state: 'ACTIVE',
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    accountHolderName: 'Writable Ltd',
    remarks: 'before',
    emailAddress: 'before@example.org',
    ...fields,
  });
  const get = (json: unknown, t: number): Exchange =>
    at(exchangeFrom({ request: { method: 'GET', url: URL_W, headers: AUTH }, status: 200, json }), t, 2.5);
  const patch = (sent: unknown, json: unknown, t: number, d: number): Exchange =>
    at(
      exchangeFrom({
        request: { method: 'PATCH', url: URL_W, headers: JSON_AUTH, json: sent },
        status: 200,
        json,
      }),
      t,
      d,
    );
  const verdicts = (log: Exchange[]): Record<string, boolean> => {
    const judge = new Judge();
    const out: Record<string, boolean> = {};
    for (const j of [...log.flatMap((e) => judge.judge(e)), ...judge.flush()].map((x) => x.judgement))
      out[j.requirement] = (out[j.requirement] ?? true) && j.held;
    return out;
  };
  const A = { counterpartyDetails: { remarks: 'alpha' } };
  const B = { counterpartyDetails: { emailAddress: 'bravo@example.org' } };

  test('two PATCHes that overlapped, applied in the other order than they completed: no finding', () => {
    // B was applied first (its answer lacks A's change), A last; A's answer completed first.
    const log = [
      get(cp({}), 0),
      patch(A, cp({ remarks: 'alpha', emailAddress: 'bravo@example.org' }), 10.25, 6),
      patch(B, cp({ emailAddress: 'bravo@example.org' }), 10.5, 7),
      get(cp({ remarks: 'alpha', emailAddress: 'bravo@example.org' }), 30.25),
    ];
    const v = verdicts(log);
    expect(v['patch-concurrent-serializable']).toBe(true);
    expect(Object.entries(v).filter(([, held]) => !held)).toEqual([]);
  });

  test('the same exchanges one after the other are judged in order: the later one lost a change', () => {
    const log = [
      get(cp({}), 0),
      patch(A, cp({ remarks: 'alpha', emailAddress: 'bravo@example.org' }), 10.25, 6),
      patch(B, cp({ emailAddress: 'bravo@example.org' }), 20.5, 7),
      get(cp({ emailAddress: 'bravo@example.org' }), 30.25),
    ];
    const v = verdicts(log);
    expect(v['patch-concurrent-serializable']).toBeUndefined();
    expect(v['patch-unsent-fields-unchanged']).toBe(false);
  });

  test('two PATCHes that overlapped, one change lost: patch-concurrent-serializable', () => {
    const log = [
      get(cp({}), 0),
      patch(A, cp({ remarks: 'alpha' }), 10.25, 6),
      patch(B, cp({ emailAddress: 'bravo@example.org' }), 10.5, 7),
      get(cp({ emailAddress: 'bravo@example.org' }), 30.25),
    ];
    expect(verdicts(log)['patch-concurrent-serializable']).toBe(false);
  });

  test('two PATCHes that overlapped, the read after shows neither: patch-persisted, not a lost update', () => {
    const log = [
      get(cp({}), 0),
      patch(A, cp({ remarks: 'alpha' }), 10.25, 6),
      patch(B, cp({ emailAddress: 'bravo@example.org' }), 10.5, 7),
      get(cp({}), 30.25),
    ];
    const v = verdicts(log);
    expect(v['patch-persisted']).toBe(false);
    expect(v['patch-concurrent-serializable']).toBeUndefined();
  });

  test('fields seen to move, then two overlapping PATCHes of them: each judged on both fields, no finding', () => {
    // Two reads with no PATCH between disagree on both fields (another client, or a replica):
    // they move by themselves, and are left out of the comparisons, but not the fields the group
    // sent: A's comparison keeps B's field, which its answer need not show, but the read does.
    const moved = [get(cp({}), 0), get(cp({ remarks: 'other', emailAddress: 'other@example.org' }), 5)];
    const both = cp({ remarks: 'alpha', emailAddress: 'bravo@example.org' });
    const fine = [
      ...moved,
      patch(A, cp({ remarks: 'alpha', emailAddress: 'other@example.org' }), 10.25, 6),
      patch(B, both, 10.5, 7),
      get(both, 30.25),
    ];
    const v = verdicts(fine);
    expect(v['patch-concurrent-serializable']).toBe(true);
    expect(Object.entries(v).filter(([, held]) => !held)).toEqual([]);
    // B's change lost: still found, on the fields the group sent.
    const lost = [
      ...fine.slice(0, 4),
      get(cp({ remarks: 'alpha', emailAddress: 'other@example.org' }), 30.25),
    ];
    expect(verdicts(lost)['patch-concurrent-serializable']).toBe(false);
  });

  test('an accepted PATCH that breaks a MUST rule in a group: the group is not judged whole', () => {
    const invalid = { counterpartyDetails: { emailAddress: 'bravo@example.org', unknownField: 1 } };
    const log = [
      get(cp({}), 0),
      patch(A, cp({ remarks: 'alpha' }), 10.25, 6),
      patch(invalid, cp({ emailAddress: 'bravo@example.org' }), 10.5, 7),
      get(cp({ emailAddress: 'bravo@example.org' }), 30.25),
    ];
    expect(verdicts(log)['patch-concurrent-serializable']).toBeUndefined();
  });

  const refusedPatch = (sent: unknown, t: number): Exchange =>
    at(
      exchangeFrom({
        request: { method: 'PATCH', url: URL_W, headers: JSON_AUTH, json: sent },
        status: 400,
        json: { error: { code: 'VALIDATION_ERROR', message: 'invalid' } },
      }),
      t,
      2,
    );
  // Valid details beside an invalid account: the whole PATCH must be refused.
  const R = { counterpartyDetails: { remarks: 'refused' }, counterpartyAccounts: [{ name: 'x' }] };

  test('a refused PATCH between an accepted one and the read, whose change the read shows: blamed on the refused one only', () => {
    const log = [
      get(cp({}), 0),
      patch(A, cp({ remarks: 'alpha' }), 10.25, 6),
      refusedPatch(R, 20.25),
      get(cp({ remarks: 'refused' }), 30.25),
    ];
    const v = verdicts(log);
    expect(v['patch-rejected-unchanged']).toBe(false);
    expect(v['patch-persisted']).toBe(true);
    // Without the refused PATCH the same read contradicts the accepted one.
    const alone = verdicts([log[0]!, log[1]!, log[3]!]);
    expect(alone['patch-persisted']).toBe(false);
  });

  test('a refused PATCH whose change shows late, in the answer of the next accepted PATCH: not blamed on that one', () => {
    const log = [
      get(cp({}), 0),
      patch(A, cp({ remarks: 'alpha' }), 10.25, 6),
      refusedPatch(R, 20.25),
      patch(B, cp({ remarks: 'refused', emailAddress: 'bravo@example.org' }), 30.25, 5),
      get(cp({ remarks: 'refused', emailAddress: 'bravo@example.org' }), 40.25),
    ];
    expect(verdicts(log)['patch-unsent-fields-unchanged']).toBe(true);
    // A change to a value nobody sent is still the accepted PATCH's.
    const other = [...log];
    other[3] = patch(B, cp({ remarks: 'nobody', emailAddress: 'bravo@example.org' }), 30.25, 5);
    other[4] = get(cp({ remarks: 'nobody', emailAddress: 'bravo@example.org' }), 40.25);
    expect(verdicts(other)['patch-unsent-fields-unchanged']).toBe(false);
  });

  test('a PATCH of one counterparty showing on another read before and after it: patch-other-counterparty-unchanged', () => {
    const other = 'http://127.0.0.1:9/api/v1/counterparties/ACME-Supplies_0001';
    const read = (remarks: string, t: number): Exchange =>
      at(
        exchangeFrom({
          request: { method: 'GET', url: other, headers: AUTH },
          status: 200,
          json: { ...cp({ remarks }), counterpartyReference: 'ACME-Supplies_0001' },
        }),
        t,
        2.5,
      );
    const leaked = [read('untouched', 0), patch(A, cp({ remarks: 'alpha' }), 10.25, 5), read('alpha', 20.25)];
    expect(verdicts(leaked)['patch-other-counterparty-unchanged']).toBe(false);
    const kept = [
      read('untouched', 0),
      patch(A, cp({ remarks: 'alpha' }), 10.25, 5),
      read('untouched', 20.25),
    ];
    expect(verdicts(kept)['patch-other-counterparty-unchanged']).toBe(true);
  });
});

/**
 * A front before a server that holds the first PATCH of the writable counterparty until a second
 * arrives, then forwards them to the server in the order `order` names (0: the first to arrive)
 * one after another, answering each client as its answer comes; anything else goes straight on.
 * With `order` undefined, both are forwarded at once.
 */
const HOLD_MS = 20;

async function sequencingFront(
  upstream: string,
  order: [number, number] | undefined,
): Promise<{ url: string; close: () => Promise<void> }> {
  const held: { req: IncomingMessage; res: ServerResponse; body: Buffer }[] = [];
  const HOLD = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, HOLD_MS));
  const forward = (req: IncomingMessage, res: ServerResponse, body: Buffer): Promise<void> =>
    new Promise((resolve) => {
      const out = request(new URL(req.url!, upstream), { method: req.method, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
        up.on('end', resolve);
      });
      out.end(body);
    });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.method !== 'PATCH') return void forward(req, res, body);
      held.push({ req, res, body });
      if (held.length < 2) return;
      const pair = held.splice(0, 2);
      // Both are held a while: their exchanges overlap by more than a HAR's whole milliseconds
      // can blur, however late a loaded machine lets the client note the second one's start.
      void HOLD().then(() => release(pair));
    });
  });
  const release = (pair: { req: IncomingMessage; res: ServerResponse; body: Buffer }[]): void => {
    if (order === undefined) for (const p of pair) void forward(p.req, p.res, p.body);
    else
      void (async () => {
        for (const i of order) await forward(pair[i]!.req, pair[i]!.res, pair[i]!.body);
      })();
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const PATH_W = `/api/v1/counterparties/${WRITABLE_COUNTERPARTY}`;
const patchCall = (details: Record<string, unknown>): PlainCall => ({
  method: 'PATCH',
  path: PATH_W,
  headers: JSON_AUTH,
  body: JSON.stringify({ counterpartyDetails: details }),
});

/** A read, two PATCHes at once through the front, a read: as a HAR, judged as `validate` judges it. */
async function judgedSession(
  server: ReferenceServer,
  order: [number, number] | undefined,
): Promise<string[]> {
  const upstream = await server.start(0);
  const front = await sequencingFront(upstream, order);
  try {
    const text = await recordPlainHarSteps(front.url, [
      { method: 'GET', path: PATH_W, headers: AUTH },
      [patchCall({ remarks: 'first of two' }), patchCall({ emailAddress: 'second@example.org' })],
      { method: 'GET', path: PATH_W, headers: AUTH },
    ]);
    const validation = new TrafficValidation('har', 'recorded.har');
    for (const ex of exchangesOfHar(parseHar(text, 'recorded.har'), 'recorded.har')) validation.add(ex);
    const { outcome } = validation.finish();
    expect(
      outcome.judged['patch-concurrent-serializable'],
      'the pair was judged as concurrent',
    ).toBeGreaterThan(0);
    return [...new Set(outcome.findings.map((f) => f.requirement))].sort();
  } finally {
    await front.close();
    await server.stop();
  }
}

test.describe('recorded traffic with two PATCHes in flight at once', () => {
  test('a conforming server, applying them in either order: validate finds nothing', async () => {
    expect(await judgedSession(new ReferenceServer(), [0, 1])).toEqual([]);
    expect(await judgedSession(new ReferenceServer(), [1, 0])).toEqual([]);
  });

  test('a server that loses one of them: patch-concurrent-serializable', async () => {
    const lost = CONCURRENCY_VARIANTS.find((v) => v.id === 'patch-lost-update')!;
    expect(await judgedSession(lost.create(), undefined)).toEqual(['patch-concurrent-serializable']);
  });
});
