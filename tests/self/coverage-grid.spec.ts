/**
 * The picture of what was tried (engine/fields-tried.ts, engine/coverage.ts, reporter/coverage-grid.ts).
 *
 * The counts, on explicit requests: a value at a bound and one past it are counted as such for a
 * path parameter, a query parameter and a field of the PATCH body; every rule a request breaks
 * is counted on its field, once a request; the rules never broken are listed with 0; a body kept
 * only in part is not read; every field rule has a class of its own.
 *
 * The grid against known runs' records (the whole suite against a faulty server of the gallery,
 * tests/self/gallery-report.ts), rendered in Chromium: every operation's statuses as the record
 * has them, every field's bounds and rules, one chip per requirement with its status, and every
 * requirement not exercised listed with its reason; the record valid against its schema. A
 * read-only run's picture says that no rule of the body was tried.
 */
import { existsSync } from 'node:fs';
import { chromium, expect, test, type Browser, type Page } from '@playwright/test';
import { coverageOf } from '../../engine/coverage.ts';
import { classOfRule, FieldsCounter, fieldSpecs, type FieldTried } from '../../engine/fields-tried.ts';
import type { Exchange, RecordedRequest } from '../../exchange/exchange.ts';
import { renderHtml } from '../../reporter/html.ts';
import { recordErrors } from '../../reporter/record-schema.ts';
import type { ConformanceRecord } from '../../reporter/record.ts';
import { galleryRecord } from './gallery-report.ts';

// One worker, one run of the suite against the gallery server for every test of the file.
test.describe.configure({ mode: 'default' });

const BASE = 'http://127.0.0.1:9/api/v1';
const AUTH = { Authorization: 'Bearer $API_TOKEN' };

function get(path: string): Pick<Exchange, 'request' | 'status'> {
  return { request: { method: 'GET', url: `${BASE}${path}`, headers: AUTH }, status: 200 };
}

function patch(body: unknown, extra: Partial<RecordedRequest> = {}): Pick<Exchange, 'request' | 'status'> {
  return {
    request: {
      method: 'PATCH',
      url: `${BASE}/counterparties/ACME-0001`,
      headers: { ...AUTH, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      ...extra,
    },
    status: 400,
  };
}

function fieldsOf(exchanges: Pick<Exchange, 'request' | 'status'>[]): FieldTried[] {
  const counter = new FieldsCounter();
  for (const ex of exchanges) counter.add(ex);
  return counter.fields();
}

function field(fields: FieldTried[], where: FieldTried['in'], name: string): FieldTried {
  const f = fields.find((x) => x.in === where && x.field === name);
  if (!f) throw new Error(`no field ${where} ${name}`);
  return f;
}

function bound(f: FieldTried, keyword: string): { at: number; past: number } {
  const b = f.bounds.find((x) => x.keyword === keyword);
  if (!b) throw new Error(`no bound ${keyword} on ${f.field}`);
  return { at: b.at, past: b.past };
}

function broken(f: FieldTried, cls: string): number | undefined {
  return f.rules.find((r) => r.class === cls)?.broken;
}

test.describe('what the requests tried of each field', () => {
  test('a path parameter: at and one past each length bound, and the rules broken', () => {
    const fields = fieldsOf([
      get('/counterparties/abc'), // at minLength 3
      get('/counterparties/ab'), // one past it: breaks the length rule
      get(`/counterparties/${'a'.repeat(90)}`), // at maxLength 90
      get(`/counterparties/${'a'.repeat(91)}`), // one past it
      get(`/counterparties/${'a'.repeat(95)}`), // beyond: neither at nor one past
      get('/counterparties/a.b.c'), // pattern
    ]);
    const ref = field(fields, 'path', 'counterpartyReference');
    expect(ref.sent).toBe(6);
    expect(bound(ref, 'minLength')).toEqual({ at: 1, past: 1 });
    expect(bound(ref, 'maxLength')).toEqual({ at: 1, past: 1 });
    expect(broken(ref, 'length')).toBe(3);
    expect(broken(ref, 'pattern')).toBe(1);
    expect(broken(ref, 'no-slash')).toBe(0);
    expect(ref.operations).toEqual(expect.arrayContaining(['getCounterparty', 'patchCounterparty']));
  });

  test('a query parameter: its minimum, read from the text of the query', () => {
    const fields = fieldsOf([get('/bills?page=0&pageSize=10'), get('/bills?page=-1'), get('/bills?page=x')]);
    const page = field(fields, 'query', 'page');
    expect(page.sent).toBe(3);
    expect(bound(page, 'minimum')).toEqual({ at: 1, past: 1 });
    expect(broken(page, 'minimum')).toBe(1);
    expect(broken(page, 'integer')).toBe(1);
    expect(bound(field(fields, 'query', 'pageSize'), 'minimum')).toEqual({ at: 0, past: 0 });
  });

  test('the PATCH body: its fields at and past their bounds, each rule broken counted once a request', () => {
    const fields = fieldsOf([
      patch({ counterpartyDetails: { remarks: 'r'.repeat(90) } }),
      patch({ counterpartyDetails: { remarks: 'r'.repeat(91) } }),
      patch({ counterpartyDetails: { remarks: 'trailing ', counterpartyReference: 'ACME-0002' } }),
      patch({ counterpartyAccounts: [] }),
      patch({}),
    ]);
    const remarks = field(fields, 'body', 'counterpartyDetails.remarks');
    expect(remarks.sent).toBe(3);
    expect(bound(remarks, 'maxLength')).toEqual({ at: 1, past: 1 });
    expect(broken(remarks, 'length')).toBe(1);
    expect(broken(remarks, 'pattern')).toBe(1);
    expect(broken(remarks, 'type')).toBe(0);
    // A property the document forbids is seen where its rule is broken.
    const reference = field(fields, 'body', 'counterpartyDetails.counterpartyReference');
    expect(reference.sent).toBe(1);
    expect(broken(reference, 'immutable')).toBe(1);
    const accounts = field(fields, 'body', 'counterpartyAccounts');
    expect(bound(accounts, 'minItems')).toEqual({ at: 0, past: 1 });
    expect(broken(accounts, 'min-items')).toBe(1);
    // {} has neither part; an empty list of accounts is a part, one too short.
    expect(broken(field(fields, 'body', 'body'), 'details-or-accounts')).toBe(1);
    // Untouched: listed, never broken.
    expect(field(fields, 'body', 'counterpartyDetails.emailAddress').rules.every((r) => r.broken === 0)).toBe(
      true,
    );
  });

  test('a request body kept only in part is not read (its head would read as malformed JSON)', () => {
    const cut = patch(
      { counterpartyDetails: { remarks: 'r'.repeat(91) } },
      {
        bodyCut: { bytes: 5000, sha256: '0'.repeat(64), kept: 10 },
      },
    );
    const fields = fieldsOf([cut]);
    expect(fields.every((f) => f.sent === 0 && f.rules.every((r) => r.broken === 0))).toBe(true);
  });

  test('traffic outside the interface tries nothing', () => {
    const fields = fieldsOf([
      { request: { method: 'GET', url: 'http://127.0.0.1:9/health/ab', headers: {} }, status: 200 },
    ]);
    expect(fields.every((f) => f.sent === 0)).toBe(true);
  });

  test('every rule of a field has a class of its own, not its whole id', () => {
    for (const s of fieldSpecs())
      for (const r of s.rules) expect(classOfRule(r.id), `${r.id} on ${s.field}`).not.toBe(r.id);
  });

  test('per operation, every status seen, ascending, with its count', () => {
    const c = coverageOf([
      { ...get('/counterparties/abc'), status: 404 },
      get('/counterparties/abcd'),
      { ...get('/counterparties/abcde'), status: 0 },
      get('/counterparties/abcdef'),
    ]);
    expect(c.operations.find((o) => o.operationId === 'getCounterparty')?.statuses).toEqual([
      { status: 0, count: 1 },
      { status: 200, count: 2 },
      { status: 404, count: 1 },
    ]);
    expect(c.operations.find((o) => o.operationId === 'listBills')?.statuses).toEqual([]);
  });
});

const CHROMIUM = '/usr/bin/chromium';

test.describe("the grid of a known run's record", () => {
  let browser: Browser;
  let write: ConformanceRecord;
  let readOnly: ConformanceRecord;

  test.beforeAll(async () => {
    test.skip(!existsSync(CHROMIUM), `${CHROMIUM} is missing: .ci/run installs Debian's chromium`);
    write = await galleryRecord();
    readOnly = await galleryRecord(undefined, { readOnly: true });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--headless', '--disable-gpu'],
    });
  });

  test.afterAll(async () => {
    await browser?.close();
  });

  async function open(record: ConformanceRecord): Promise<Page> {
    const page = await browser.newPage();
    await page.setContent(renderHtml(record));
    return page;
  }

  test('the records are valid against the schema of conformance.json', () => {
    expect(recordErrors(write)).toEqual([]);
    expect(recordErrors(readOnly)).toEqual([]);
  });

  test('every operation shows the statuses the record has for it', async () => {
    const page = await open(write);
    try {
      const ops = write.coverage!.operations;
      const rows = page.locator('#coverage table.grid').first().locator('tbody tr');
      await expect(rows).toHaveCount(ops.length);
      for (const [i, o] of ops.entries()) {
        const chips = await rows.nth(i).locator('.g').allInnerTexts();
        expect(chips, o.operationId).toEqual(
          o.statuses.map((s) => `${s.status === 0 ? 'no answer' : s.status} ×${s.count}`),
        );
      }
      // The write run called PATCH and saw it both accept and refuse.
      const statuses = ops.find((o) => o.operationId === 'patchCounterparty')!.statuses.map((s) => s.status);
      expect(statuses).toEqual(expect.arrayContaining([200, 400]));
    } finally {
      await page.close();
    }
  });

  test('every field shows its bounds and its rules, the ones never broken dashed', async () => {
    const page = await open(write);
    try {
      const fields = write.coverage!.fields!;
      const rows = page.locator('#coverage table.grid').nth(1).locator('tbody tr:not(.g-in)');
      await expect(rows).toHaveCount(fields.length);
      for (const [i, f] of fields.entries()) {
        const row = rows.nth(i);
        await expect(row.locator('th')).toHaveText(f.field);
        expect(await row.locator('td').nth(0).innerText()).toBe(String(f.sent));
        expect(await row.locator('.g.never').allInnerTexts(), f.field).toEqual(
          f.rules.filter((r) => r.broken === 0).map((r) => r.class),
        );
        expect(await row.locator('td').nth(2).locator('.g.tried').allInnerTexts(), f.field).toEqual(
          f.rules.filter((r) => r.broken > 0).map((r) => `${r.class} ×${r.broken}`),
        );
        expect(await row.locator('td').nth(1).locator('.g').count()).toBe(f.bounds.length);
      }
      // What this run is known to have sent: addressLine at its maxLength and one past it, refused.
      const line = fields.find((f) => f.field === 'counterpartyDetails.address.addressLine')!;
      const max = line.bounds.find((b) => b.keyword === 'maxLength')!;
      expect(max.limit).toBe(210);
      expect(max.at).toBeGreaterThan(0);
      expect(max.past).toBeGreaterThan(0);
      expect(line.rules.find((r) => r.class === 'pattern')!.broken).toBeGreaterThan(0);
    } finally {
      await page.close();
    }
  });

  test('one chip per requirement with its status, and every requirement not exercised with its reason', async () => {
    for (const record of [write, readOnly]) {
      const page = await open(record);
      try {
        const chips = page.locator('#coverage a.g');
        await expect(chips).toHaveCount(record.requirements.length);
        for (const [i, r] of record.requirements.entries()) {
          await expect(chips.nth(i)).toHaveText(r.id);
          await expect(chips.nth(i)).toHaveClass(new RegExp(`\\b${r.status}\\b`));
        }
        const why = await page.locator('#coverage ul.g-why li').allInnerTexts();
        const notExercised = record.requirements.filter((r) => r.status === 'not-exercised');
        for (const r of notExercised)
          expect(
            why.some((line) => line.startsWith(r.reasons.join('; ')) && line.includes(r.id)),
            r.id,
          ).toBe(true);
        const exercised = record.requirements.filter((r) => r.judged > 0).length;
        await expect(page.locator('#coverage h3')).toHaveText(
          `Requirements: ${exercised} of ${record.requirements.length} exercised`,
        );
      } finally {
        await page.close();
      }
    }
  });

  test('a read-only run: no rule of the PATCH body tried, and the requirements only writes exercise say so', () => {
    const body = readOnly.coverage!.fields!.filter((f) => f.in === 'body');
    expect(body.length).toBeGreaterThan(10);
    for (const f of body) {
      expect(f.sent, f.field).toBe(0);
      expect(f.rules.every((r) => r.broken === 0)).toBe(true);
    }
    expect(readOnly.mode).toBe('read-only');
    const notExercised = readOnly.requirements.filter((r) => r.status === 'not-exercised');
    expect(notExercised.length).toBeGreaterThan(0);
    for (const r of notExercised) expect(r.reasons.length, r.id).toBeGreaterThan(0);
  });
});
