/**
 * The HTML report's layout in Debian's Chromium, at 1024 and 1400 px: a run's report and a
 * validation's, built from made-up outcomes with long URLs, long received texts and long probe
 * notes, have no horizontal overflow, and the first finding's evidence starts within the first
 * screen (the coverage table comes after the findings). The screenshots are attached to the test.
 */
import { existsSync } from 'node:fs';
import { chromium, expect, test, type Browser } from '@playwright/test';
import { coverageOf } from '../../engine/coverage.ts';
import type { Exchange } from '../../exchange/exchange.ts';
import type { Finding, ProbeOutcome } from '../../engine/types.ts';
import { renderHtml } from '../../reporter/html.ts';
import { buildRecord } from '../../reporter/build-record.ts';
import type { ConformanceRecord } from '../../reporter/record.ts';
import { REQUIREMENTS, type RequirementId } from '../../spec/requirements.ts';

const CHROMIUM = '/usr/bin/chromium';
const NOW = new Date('2026-03-15T12:00:00Z');
const ALL = REQUIREMENTS.map((r) => r.id as RequirementId);
const LONG_REF = 'ACME-Supplies_0001'.repeat(12);
const URL = `http://127.0.0.1:9/api/v1/counterparties/${LONG_REF}`;

function finding(requirement: RequirementId, n: number): Finding {
  return {
    requirement,
    message: `${requirement} broken on case ${n}`,
    expected: '400 with a problem body (interface.md §7)',
    judgedBy: 'reference-status',
    received: `404\n{"error":{"code":"COUNTERPARTY_NOT_FOUND","message":"No counterparty ${LONG_REF}${'x'.repeat(300)}"}}`,
    input: `${LONG_REF}-${n}`,
    rule: {
      field: 'counterpartyReference',
      keyword: 'pattern',
      keeps: false,
      description: 'a character outside the pattern',
    },
    seed: 7,
    path: `${n}:0:1`,
    property: 'invalid reference',
    request: {
      method: 'GET',
      url: URL,
      headers: { Authorization: 'Bearer $API_TOKEN', Accept: 'application/json' },
    },
    status: 404,
    curl: `curl -sS -i -X GET '${URL}' -H "Authorization: Bearer $API_TOKEN" -H 'Accept: application/json'`,
  };
}

function outcome(findings: Finding[]): ProbeOutcome {
  return {
    probe: 'invalid-references',
    title: `invalid references: every character outside the pattern, lengths off by one, ${'and more '.repeat(10)}`,
    requirements: ALL,
    status: 'ran',
    findings,
    judged: Object.fromEntries(ALL.map((id) => [id, 1])),
    notApplicable: [],
    requests: 120,
    notes: [`invalid reference: 77 case(s); ${'a-rather-long-unbroken-note-word'.repeat(8)}`],
    durationMs: 1234,
  };
}

/** Exchanges of a few operations, for the coverage table. */
function exchanges(): Pick<Exchange, 'request' | 'status'>[] {
  return [
    { request: { method: 'GET', url: URL, headers: {} }, status: 404 },
    { request: { method: 'GET', url: 'http://127.0.0.1:9/api/v1/bills', headers: {} }, status: 200 },
  ];
}

function run(): ConformanceRecord {
  return buildRecord({
    outcomes: [outcome([finding('reference-invalid-400', 1), finding('reference-invalid-400', 2)])],
    incomplete: [],
    run: { baseURL: 'http://127.0.0.1:9', token: 'tok-layout-1', seed: 7, runs: 10 },
    startedAt: NOW,
    durationMs: 2500,
    now: NOW,
    coverage: coverageOf(exchanges() as Exchange[], ''),
  });
}

function validation(): ConformanceRecord {
  const f = { ...finding('reference-invalid-400', 1), harEntry: 3 };
  delete f.path;
  delete f.property;
  return buildRecord({
    outcomes: [{ ...outcome([f]), probe: 'har' }],
    incomplete: [],
    run: { baseURL: 'http://127.0.0.1:9', token: 'tok-layout-1' },
    startedAt: NOW,
    durationMs: 800,
    now: NOW,
    coverage: coverageOf(exchanges() as Exchange[], ''),
    traffic: {
      kind: 'har',
      source: `recordings/${'very-long-directory-name/'.repeat(6)}session.har`,
      exchanges: 2,
      judged: 2,
      outside: { count: 0, requests: [] },
    },
    mode: 'read-only',
  });
}

let browser: Browser;

test.beforeAll(async () => {
  test.skip(!existsSync(CHROMIUM), `${CHROMIUM} is missing: .ci/run installs Debian's chromium`);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--headless', '--disable-gpu'],
  });
});

test.afterAll(async () => {
  await browser?.close();
});

const HEIGHT = 900;

for (const [name, make] of [
  ['run', run],
  ['validation', validation],
] as const) {
  for (const width of [1024, 1400]) {
    test(`the ${name} report at ${width} px: no horizontal overflow, the first finding on the first screen`, async ({}, testInfo) => {
      const page = await browser.newPage({ viewport: { width, height: HEIGHT } });
      try {
        await page.setContent(renderHtml(make()));
        const shot = await page.screenshot({ fullPage: true });
        await testInfo.attach(`${name}-${width}.png`, { body: shot, contentType: 'image/png' });
        const { scrollWidth, clientWidth } = await page.evaluate(() => ({
          scrollWidth: document.documentElement.scrollWidth,
          clientWidth: document.documentElement.clientWidth,
        }));
        expect(scrollWidth, 'horizontal overflow').toBeLessThanOrEqual(clientWidth);
        const top = await page
          .locator('.finding')
          .first()
          .evaluate((e) => e.getBoundingClientRect().top);
        expect(top, 'the first finding starts within the first screen').toBeLessThan(HEIGHT);
        // Every element fits the page: none sticks out on the right.
        const wide = await page.evaluate((w) => {
          const out: string[] = [];
          for (const e of document.querySelectorAll('body *')) {
            const r = e.getBoundingClientRect();
            if (r.right > w + 1 && out.length < 5)
              out.push(`${e.tagName}.${e.className}: ${Math.round(r.right)}`);
          }
          return out;
        }, clientWidth);
        expect(wide).toEqual([]);
        // No literal \n in what the page says of the received shape.
        expect(await page.locator('p.shape').allInnerTexts()).not.toContainEqual(
          expect.stringContaining('\\n'),
        );
      } finally {
        await page.close();
      }
    });
  }
}
