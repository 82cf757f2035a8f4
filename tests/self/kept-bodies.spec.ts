/**
 * What a run keeps of the bodies it saw (exchange/kept.ts): whole within a budget, past it a head
 * with the whole body's length and SHA-256, past a second budget the length and hash alone; the
 * exchange itself always kept. The sender and the judge get the body whole; the log, a case's
 * result once the case is done, and exchanges.har are bounded. exchanges.har says what it cut
 * (each entry's `_truncated` and comment, the log's comment, the record's `kept`), stays within
 * what `validate` reads (exchange/har-file.ts), and `validate` leaves a cut exchange unjudged.
 * The whole run against answers of 4 MB is tests/self/hostile-cli.spec.ts's.
 */
import { createHash } from 'node:crypto';
import { expect, test } from '@playwright/test';
import { INPUT_CAPS } from '../../config/input-files.ts';
import { TrafficValidation } from '../../engine/validate.ts';
import type { Exchange } from '../../exchange/exchange.ts';
import { exchangesOfHar, harOfExchanges, parseHar, type Har } from '../../exchange/har.ts';
import { HAR_MAX_BYTES, harFileText } from '../../exchange/har-file.ts';
import {
  BodyBudget,
  KEPT_HEAD_BYTES,
  KEPT_HEADS_BYTES,
  KEPT_WHOLE_BYTES,
  keptExchange,
  releaseText,
} from '../../exchange/kept.ts';
import { ExchangeLog } from '../../exchange/log.ts';
import { formatSummary } from '../../reporter/console.ts';
import { recordErrors } from '../../reporter/record-schema.ts';
import { buildRecord } from '../../reporter/build-record.ts';

const MiB = 1024 * 1024;
const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/** A GET of a counterparty answered 200 with `text`, and a PATCH body `sent` when given. */
function exchange(id: number, text: string, sent?: string): Exchange {
  return {
    id,
    request: {
      method: sent === undefined ? 'GET' : 'PATCH',
      url: `http://127.0.0.1:9/api/v1/counterparties/ref-${id}`,
      headers: { Accept: 'application/json', Authorization: 'Bearer $API_TOKEN' },
      ...(sent !== undefined ? { body: sent } : {}),
    },
    status: 200,
    headers: { 'content-type': 'application/json' },
    text,
    body: JSON.parse(text) as unknown,
    startedAt: Date.UTC(2026, 0, 1) + id,
    durationMs: 1,
    attempts: 1,
    origin: { probe: 'a-probe' },
  };
}

/** A JSON body of `bytes` bytes: a string member padded with white space after it. */
const jsonOf = (bytes: number, c = 'a'): string => {
  const value = `{"v":"${c}"}`;
  return value + ' '.repeat(bytes - value.length);
};

test('the budget keeps bodies whole while they fit, then their head, length and SHA-256, then length and SHA-256 alone', () => {
  // A run of a conforming deployment keeps a few MiB: five bodies of 1 MiB (the largest the suite
  // sends) stay whole, far within the budget.
  expect(KEPT_WHOLE_BYTES).toBeGreaterThanOrEqual(5 * 5 * MiB);
  const budget = new BodyBudget(1 / 64); // 512 KiB whole, 256 KiB of heads
  const body = jsonOf(300 * 1024);
  expect(budget.keep(body)).toEqual({ text: body });
  const second = budget.keep(body);
  expect(second.text).toBe(body.slice(0, KEPT_HEAD_BYTES));
  expect(second.cut).toEqual({ bytes: body.length, sha256: sha256(body), kept: KEPT_HEAD_BYTES });
  // Short bodies still fit whole in what is left.
  expect(budget.keep('{}')).toEqual({ text: '{}' });
  for (let i = 0; i < (KEPT_HEADS_BYTES / 64 - KEPT_HEAD_BYTES) / KEPT_HEAD_BYTES; i++) budget.keep(body);
  expect(budget.keep(body)).toEqual({ text: '', cut: { bytes: body.length, sha256: sha256(body), kept: 0 } });
  expect(budget.cut).toBeGreaterThan(2);
});

test('a head ends on a whole character, and a base64 head on a whole group', () => {
  const budget = new BodyBudget(0);
  // 'é' is two bytes: the head of an odd number of bytes leaves the split one out.
  const spent = new BodyBudget(1 / 2048); // 16 KiB whole, 8 KiB of heads
  spent.keep('x'.repeat(16 * 1024));
  const text = `x${'é'.repeat(10_000)}`;
  const kept = spent.keep(text);
  expect(kept.cut?.kept).toBe(8 * 1024 - 1);
  expect(kept.text).toBe(`x${'é'.repeat(4095)}`);
  const b64 = Buffer.alloc(30_000, 7).toString('base64');
  const spentB64 = new BodyBudget(1 / 2048);
  spentB64.keep('x'.repeat(16 * 1024));
  const head = spentB64.keep(b64, true).text;
  expect(head.length % 4).toBe(0);
  expect(b64.startsWith(head)).toBe(true);
  expect(budget.keep('')).toEqual({ text: '' });
});

test('the log keeps exchanges within its budget; whoever appends one (the run, which judges it) gets it whole', () => {
  const log = new ExchangeLog(new BodyBudget(1 / 64));
  const big = jsonOf(400 * 1024);
  const first = log.append(exchange(0, big));
  const second = log.append(exchange(0, big, big));
  expect(first.text).toBe(big);
  expect(second.text).toBe(big);
  expect(second.body).toEqual({ v: 'a' });
  const [a, b] = log.all;
  // Whole, in a copy of its own (the sender's text may be released); then cut, value dropped.
  expect(a).not.toBe(first);
  expect(a!.text).toBe(big);
  expect(b!.textCut).toMatchObject({ bytes: big.length, sha256: sha256(big) });
  expect(b!.body).toBeUndefined();
  expect(b!.request.bodyCut).toMatchObject({ bytes: big.length, kept: KEPT_HEAD_BYTES });
  expect(log.cut).toBe(2);
  // A short exchange is kept as it is.
  const small = log.append(exchange(0, '{}'));
  expect(log.all[2]).toBe(small);
});

test("a case's exchange, once done, keeps its head and its value: sequences judged later still compare values", () => {
  const big = jsonOf(100 * 1024);
  const ex = exchange(1, big);
  releaseText(ex);
  expect(ex.text).toBe(big.slice(0, KEPT_HEAD_BYTES));
  expect(ex.textCut).toEqual({ bytes: big.length, sha256: sha256(big), kept: KEPT_HEAD_BYTES });
  expect(ex.body).toEqual({ v: 'a' });
  const short = exchange(2, '{"v":1}');
  releaseText(short);
  expect(short.textCut).toBeUndefined();
  // A record's copy is not touched.
  const live = exchange(3, big);
  const kept = keptExchange(live, new BodyBudget());
  releaseText(live);
  expect(kept.text).toBe(big);
});

test('exchanges.har: the same text as before when nothing is cut; a cut body says so and is read back as cut, never as the body', () => {
  const whole = [exchange(1, '{"a":1}'), exchange(2, jsonOf(2000), '{"b":2}')];
  expect(harFileText(whole, '1.3.0')).toEqual({
    text: `${JSON.stringify(harOfExchanges(whole, '1.3.0'), null, 1)}\n`,
    kept: { entries: 2, cut: 0, omitted: 0 },
  });
  expect(harFileText([], '1.3.0').text).toBe(`${JSON.stringify(harOfExchanges([], '1.3.0'), null, 1)}\n`);
  const log = new ExchangeLog(new BodyBudget(1 / 64));
  const big = jsonOf(400 * 1024, 'b');
  log.append(exchange(9, '{"small":true}'));
  for (let i = 0; i < 3; i++) log.append(exchange(i, big, big));
  const file = harFileText(log.all, '1.3.0');
  expect(file.kept).toEqual({ entries: 4, cut: 5, omitted: 0 });
  const har = JSON.parse(file.text) as Har;
  expect(har.log.comment).toContain(
    '5 bodies past the 32 MiB kept whole written as their first 16 KiB at most',
  );
  const entry = har.log.entries[3]!;
  expect(entry.response.content).toMatchObject({ size: big.length, _truncated: { sha256: sha256(big) } });
  expect(entry.response.content.comment).toMatch(
    /^the first 16384 of 409600 bytes kept .*; SHA-256 [0-9a-f]{64}$/,
  );
  expect(entry.request.postData?._truncated).toMatchObject({ bytes: big.length, kept: KEPT_HEAD_BYTES });
  expect(entry.request.bodySize).toBe(big.length);
  const back = exchangesOfHar(parseHar(file.text, 'x.har'), 'x.har');
  const last = back.find((ex) => ex.request.url.endsWith('/ref-2'))!;
  expect(last.textCut).toMatchObject({ bytes: big.length });
  expect(last.body).toBeUndefined();
  expect(last.request.bodyCut).toMatchObject({ bytes: big.length });
  // validate counts them, says why, and judges only the whole one.
  const validation = new TrafficValidation('har', 'x.har');
  for (const ex of back) validation.add(ex);
  const { traffic, outcome } = validation.finish();
  expect(traffic).toMatchObject({ exchanges: 4, judged: 1, cut: 3 });
  expect(outcome.notes.join('\n')).toContain('3 exchange(s) not judged: a body recorded only as its head');
});

test('exchanges.har stays within what validate reads: near the cap, entries lose their bodies, then are left out and counted', () => {
  expect(INPUT_CAPS.har).toBe(HAR_MAX_BYTES);
  const big = jsonOf(40 * 1024);
  const exchanges = Array.from({ length: 40 }, (_, i) => exchange(i + 1, big));
  // A cap of 600 KiB: 64 KiB of it is the frame's; the entries' bodies (40 KiB each) fit a dozen.
  const file = harFileText(exchanges, '1.3.0', { capBytes: 600 * 1024 });
  expect(Buffer.byteLength(file.text)).toBeLessThanOrEqual(600 * 1024);
  expect(file.kept.entries + file.kept.omitted).toBe(40);
  expect(file.kept.cut).toBeGreaterThan(0);
  const har = JSON.parse(file.text) as Har;
  const lastWhole = har.log.entries.findIndex((e) => e.response.content._truncated !== undefined);
  expect(lastWhole).toBeGreaterThan(5);
  expect(har.log.entries[lastWhole]!.response.content).toMatchObject({ text: '', _truncated: { kept: 0 } });
  const tiny = harFileText(exchanges, '1.3.0', { capBytes: 64 * 1024 + 3000 });
  expect(tiny.kept.omitted).toBeGreaterThan(0);
  expect((JSON.parse(tiny.text) as Har).log.comment).toMatch(
    /\d+ exchange\(s\) left out: the file reached the 256 MiB validate reads/,
  );
});

test('the record and the summary say what exchanges.har kept, in the schema of conformance.json', () => {
  const kept = { entries: 794, cut: 778, omitted: 0 };
  const record = buildRecord({
    outcomes: [],
    incomplete: [],
    run: { baseURL: 'http://127.0.0.1:9' },
    startedAt: new Date(0),
    durationMs: 1,
    kept,
  });
  expect(record.kept).toEqual(kept);
  expect(recordErrors(record)).toEqual([]);
  expect(formatSummary(record, [], { colour: false })).toContain(
    'Kept in exchanges.har: 778 bodies past the 32 MiB kept whole written as their first 16 KiB at most, with length and SHA-256 (_truncated)',
  );
  const whole = buildRecord({
    outcomes: [],
    incomplete: [],
    run: {},
    startedAt: new Date(0),
    durationMs: 1,
    kept: { entries: 3, cut: 0, omitted: 0 },
  });
  expect(whole.kept).toBeUndefined();
});
