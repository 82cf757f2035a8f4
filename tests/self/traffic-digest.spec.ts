/**
 * What a run's reports make of its traffic is made as each check ends (reporter/traffic-digest.ts),
 * not once the run has ended, and is byte for byte what the whole traffic gives at once:
 *   - the checks' exchanges are digested (their coverage counted, their HAR entry rendered and
 *     redacted) after onTestEnd hands them over, queued: handing them over returns at once; and
 *     only while a core is to spare (reporter/spare-cpu.ts: the machine's idle time and the
 *     reporter's own over a window), else once the run's last check has ended;
 *   - exchanges.har as written is the file harFileText makes of every exchange, redacted piece by
 *     piece as write-reports.ts redacts it, whatever order the checks end in, with secrets in
 *     every form a target may echo, URLs with userinfo, and short tokens that count only as
 *     credentials, in bodies, URLs and headers; and the coverage is coverageOf every exchange;
 *   - past the budget of kept bodies an entry is rendered from the body as kept, not from the
 *     whole one digested; a check handed twice counts once; other secrets at the end than
 *     during the run redact with the end's;
 *   - a HAR text redacted with other secrets than the reports' is searched again when written.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { coverageOf } from '../../engine/coverage.ts';
import type { Exchange } from '../../exchange/exchange.ts';
import { harFileText } from '../../exchange/har-file.ts';
import { KEPT_WHOLE_BYTES } from '../../exchange/kept.ts';
import type { SecretInput } from '../../exchange/redactors.ts';
import { spareCpu, WINDOW_MS, type CpuTimes } from '../../reporter/spare-cpu.ts';
import { TrafficDigest, type DigestPace, type DigestSettings } from '../../reporter/traffic-digest.ts';
import { writeReports } from '../../reporter/write-reports.ts';
import { writerNamed, type ReportContent } from '../../reporter/writers.ts';
import { removeTemporaryDirectories, temporaryDirectory } from './cli-fixtures.ts';
import { echoForms } from './leak-forms.ts';

test.afterAll(removeTemporaryDirectories);

const TOKEN = 'tok/SECRET+3d9f1c2b7a5e4f60/x';
const SHORT = 'Acme';
const API_KEY = {
  value: 'key.Live_9f8e=7d6c5b4a',
  shownAs: '$CONFORMANCE_SECRET_HEADER_X_API_KEY',
  everywhere: true,
};
const BASE = 'http://127.0.0.1:9/base';

/** An exchange answered with `text`, sent by `probe` at `at` (ms after a fixed start). */
function exchange(
  probe: string,
  at: number,
  text: string,
  request: Partial<Exchange['request']> = {},
): Exchange {
  return {
    id: at,
    request: {
      method: 'GET',
      url: `${BASE}/api/v1/counterparties/ref-${at}`,
      headers: { Accept: 'application/json', Authorization: 'Bearer $API_TOKEN' },
      ...request,
    },
    status: 200,
    headers: { 'content-type': 'application/json', 'x-echo': `${SHORT}` },
    text,
    body: undefined,
    startedAt: Date.UTC(2026, 10, 28) + at,
    durationMs: 3,
    attempts: 1,
    origin: { probe },
  };
}

/** The traffic of three checks: every echo form of the secrets, in bodies, URLs and headers. */
function traffic(): Exchange[][] {
  const forms = [...Object.values(echoForms(TOKEN)), ...Object.values(echoForms(API_KEY.value))];
  const a = forms.map((form, i) =>
    exchange('echoes', 10 * i, JSON.stringify({ remarks: `seen ${form} here`, n: i })),
  );
  const b = [
    exchange('userinfo', 5, JSON.stringify({ next: 'https://svc-user:hunter2-pass@example.com/x' }), {
      url: `${BASE}/api/v1/counterparties/ref?back=${encodeURIComponent('http://u:p@h/')}`,
    }),
    exchange('short', 15, JSON.stringify({ challenge: `Bearer ${SHORT}`, name: `${SHORT} Ltd` }), {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${SHORT}`, 'content-type': 'application/json' },
      body: JSON.stringify({ counterpartyDetails: { remarks: `token ${TOKEN}` } }),
    }),
    exchange('short', 25, '{"unicode":"\\u0074ok\\/SECRET"}\n{"two":"lines"}'),
  ];
  const c = Array.from({ length: 70 }, (_, i) =>
    exchange('many', 7 + 10 * i, JSON.stringify({ page: i, pad: 'x'.repeat(i * 13) }), {
      url: `${BASE}/api/v1/bills?page=${i}&pageSize=${i % 3}`,
    }),
  );
  return [a, b, c];
}

const SETTINGS: DigestSettings = { basePath: '/base', secrets: [TOKEN, SHORT, API_KEY] };
/** A machine with a core to spare all along. */
const SPARE: DigestPace = { spare: () => true };

/** Every exchange in the order it completed. */
const inOrder = (lists: readonly (readonly Exchange[])[]): Exchange[] =>
  lists.flat().sort((x, y) => x.startedAt + x.durationMs - (y.startedAt + y.durationMs));

/** exchanges.har as writeReports writes `content` with `secrets`. */
async function written(content: ReportContent, secrets: readonly SecretInput[]): Promise<string> {
  const dir = temporaryDirectory('payflow-traffic-digest-');
  const result = await writeReports(content, { outputDir: dir, secrets, writers: [writerNamed('har')] });
  expect(result.unwritten).toEqual([]);
  return readFileSync(join(dir, 'exchanges.har'), 'utf8');
}

/** The file as it was written before the digest: harFileText's, redacted as it was written. */
const wholeAtOnce = (all: readonly Exchange[], secrets: readonly SecretInput[]): Promise<string> =>
  written({ record: undefined as never, har: harFileText(all, '1.3.0').text }, secrets);

/** The file and coverage as the reporter now makes them. */
async function digested(
  digest: TrafficDigest,
  all: readonly Exchange[],
  settings: DigestSettings = SETTINGS,
): Promise<{ text: string; coverage: unknown }> {
  const made = await digest.traffic(all, '1.3.0', settings);
  const text = await written(
    { record: undefined as never, har: made.har.text, harRedactedWith: made.harRedactedWith },
    settings.secrets,
  );
  return { text, coverage: made.coverage };
}

test('each check is digested after it is handed over, not when the run ends', async () => {
  const digest = new TrafficDigest(SPARE);
  const lists = traffic();
  lists.forEach((list, i) => digest.add(`test-${i}`, list, SETTINGS));
  // Queued: handing a check over does no work in onTestEnd itself.
  expect(digest.digested).toBe(0);
  await digest.settled();
  expect(digest.digested).toBe(lists.flat().length);
});

test('with no core to spare, nothing is digested until the last check has ended; then everything', async () => {
  let asked = 0;
  const digest = new TrafficDigest({
    spare: () => (asked++, false),
    wait: () => new Promise((resolve) => setImmediate(resolve)),
  });
  const lists = traffic();
  lists.forEach((list, i) => digest.add(`test-${i}`, list, SETTINGS));
  // The first check's digest loads the coverage counter first (a dynamic import: as long as the
  // machine takes), then asks for a core at every turn: until it has asked a few times.
  await expect.poll(() => asked, { timeout: 60_000 }).toBeGreaterThan(10);
  expect(digest.digested).toBe(0);
  digest.finishing();
  await digest.settled();
  expect(digest.digested).toBe(lists.flat().length);
});

test("a core is to spare when, over a window, the idle time and the reporter's own make a whole core", () => {
  let at = 0;
  let times: CpuTimes = { idleMs: 0, ownMs: 0 };
  const spare = spareCpu(
    () => times,
    () => at,
  );
  /** `ms` pass, in which the cores stand idle `idle` ms in all and the reporter works `own` ms. */
  const pass = (ms: number, idle: number, own = 0): boolean => {
    at += ms;
    times = { idleMs: times.idleMs + idle, ownMs: times.ownMs + own };
    return spare();
  };
  // Two idle cores before the first question say nothing of the run: the first window starts there.
  expect(pass(10 * WINDOW_MS, 20 * WINDOW_MS)).toBe(false);
  // Two cores busy over a window: 20 ms idle in 100 ms.
  expect(pass(WINDOW_MS, 20)).toBe(false);
  // One core idle.
  expect(pass(WINDOW_MS, WINDOW_MS)).toBe(true);
  // Within the next window the answer holds, whatever the counters say.
  expect(pass(WINDOW_MS / 2, 0)).toBe(true);
  // The reporter's own work is what it would give up: half a core idle over the window since the
  // last reading, and half a core its own.
  expect(pass(WINDOW_MS / 2, WINDOW_MS / 2, WINDOW_MS / 2)).toBe(true);
  // Half a core idle and nothing of its own: not a core to spare.
  expect(pass(WINDOW_MS, WINDOW_MS / 2)).toBe(false);
});

test('exchanges.har and the coverage are byte for byte those of the whole traffic at once, whatever order the checks end in', async () => {
  const lists = traffic();
  const all = inOrder(lists);
  const before = await wholeAtOnce(all, SETTINGS.secrets);
  // The file holds none of the secrets, and the redaction did find them: the test means something.
  expect(before).not.toContain(TOKEN);
  expect(before).not.toContain('3d9f1c2b7a5e4f60');
  expect(before).not.toContain('hunter2');
  expect(before).toContain('$API_TOKEN');
  expect(before).toContain('$REDACTED');
  expect(before).toContain('Acme Ltd');
  for (const order of [
    [0, 1, 2],
    [2, 0, 1],
    [1, 2, 0],
  ]) {
    const digest = new TrafficDigest(SPARE);
    for (const i of order) digest.add(`test-${i}`, lists[i]!, SETTINGS);
    const after = await digested(digest, all);
    expect(after.text).toBe(before);
    expect(after.coverage).toEqual(coverageOf(all, SETTINGS.basePath));
  }
});

test('past the budget of kept bodies, an entry is the kept body, not the whole one digested', async () => {
  const big = JSON.stringify({ pad: 'b'.repeat(KEPT_WHOLE_BYTES / 2) });
  const lists = [[exchange('big', 1, big)], [exchange('big', 2, big)]];
  const all = inOrder(lists);
  const digest = new TrafficDigest(SPARE);
  lists.forEach((list, i) => digest.add(`test-${i}`, list, SETTINGS));
  const after = await digested(digest, all);
  expect(after.text).toBe(await wholeAtOnce(all, SETTINGS.secrets));
  expect(after.text).toContain('_truncated');
});

test('a check handed twice counts once, and secrets other than the ones digested with are redacted with the end ones', async () => {
  const lists = traffic();
  const twice = new TrafficDigest(SPARE);
  lists.forEach((list, i) => twice.add(`test-${i}`, list, SETTINGS));
  twice.add('test-2', lists[2]!.slice(0, 10), SETTINGS);
  const kept = inOrder([lists[0]!, lists[1]!, lists[2]!.slice(0, 10)]);
  const counted = await digested(twice, kept);
  expect(counted.coverage).toEqual(coverageOf(kept, SETTINGS.basePath));
  expect(counted.text).toBe(await wholeAtOnce(kept, SETTINGS.secrets));

  const changed = new TrafficDigest(SPARE);
  lists.forEach((list, i) => changed.add(`test-${i}`, list, { basePath: '', secrets: [] }));
  const all = inOrder(lists);
  const after = await digested(changed, all);
  expect(after.text).toBe(await wholeAtOnce(all, SETTINGS.secrets));
  expect(after.coverage).toEqual(coverageOf(all, SETTINGS.basePath));
});

test('a HAR text redacted with other secrets than the reports are written with is redacted again', async () => {
  const text = `{"log":{"comment":"Bearer ${TOKEN}"}}\n`;
  const again = await written({ record: undefined as never, har: text, harRedactedWith: [] }, [TOKEN]);
  expect(again).not.toContain(TOKEN);
  expect(again).toContain('$API_TOKEN');
  // The same secrets: written as it is, not searched a second time.
  const same = await written({ record: undefined as never, har: text, harRedactedWith: [TOKEN] }, [TOKEN]);
  expect(same).toBe(text);
});
