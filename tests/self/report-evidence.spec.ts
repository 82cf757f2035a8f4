/**
 * Evidence first (issue 38): in Debian's Chromium at 1280×800, the report of a failing gallery
 * run shows its first failing requirement's block first, and within the first 800 px its
 * statement, the quoted words, what was expected against what was received, the answer (status,
 * headers, body) and the curl and replay lines. The screenshot is attached to the test.
 */
import { existsSync } from 'node:fs';
import { chromium, expect, test, type Browser } from '@playwright/test';
import { buildRecord } from '../../reporter/build-record.ts';
import { renderHtml } from '../../reporter/html.ts';
import type { ConformanceRecord } from '../../reporter/record.ts';
import { GALLERY } from '../../servers/gallery/index.ts';
import { galleryTarget, runSuite } from './suite-runner.ts';

const CHROMIUM = '/usr/bin/chromium';
const WIDTH = 1280;
const HEIGHT = 800;

let browser: Browser;
let record: ConformanceRecord;

test.beforeAll(async () => {
  test.skip(!existsSync(CHROMIUM), `${CHROMIUM} is missing: .ci/run installs Debian's chromium`);
  test.setTimeout(120_000);
  const server = GALLERY.find((v) => v.id === 'answers-401-sunset-bare-date')!.create();
  const url = await server.start(0);
  try {
    const target = { ...galleryTarget(url), writableRef: undefined };
    const run = await runSuite(target);
    record = buildRecord({
      outcomes: run.outcomes,
      incomplete: [],
      run: { baseURL: url, token: target.token, seed: target.seed, runs: target.runs },
      startedAt: new Date('2026-03-15T12:00:00Z'),
      durationMs: 5000,
      // The settings a replay line carries, as long as a real run's.
      settings: {
        API_BASE_URL: url,
        COUNTERPARTY_REF: target.counterpartyRef,
        WRITABLE_COUNTERPARTY_REF: '',
        ACCOUNT_FIXTURE: '',
        ITEM_FIXTURES: '',
        CONFORMANCE_ACCOUNT_BUDGET: '40',
        CONFORMANCE_SEED: String(target.seed),
        CONFORMANCE_RUNS: String(target.runs),
        CONFORMANCE_STRICT: '0',
      },
    });
  } finally {
    await server.stop();
  }
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--headless', '--disable-gpu'],
  });
});

test.afterAll(async () => {
  await browser?.close();
});

test(`at ${WIDTH}×${HEIGHT} the first failing requirement's evidence, curl and replay are on the first screen`, async ({}, testInfo) => {
  const first = record.requirements.find((r) => r.status === 'failed' || r.status === 'warned')!;
  expect(first.id).toBe('sunset-date-time');
  const page = await browser.newPage({ viewport: { width: WIDTH, height: HEIGHT } });
  try {
    await page.setContent(renderHtml(record));
    await testInfo.attach('first-screen.png', { body: await page.screenshot(), contentType: 'image/png' });
    // The first block of the page's main part is the first failing requirement's.
    const firstBlock = page.locator('main details.req').first();
    await expect(firstBlock).toHaveAttribute('id', `req-${first.id}`);
    const bottom = async (selector: string): Promise<number> =>
      firstBlock
        .locator(selector)
        .first()
        .evaluate((e) => e.getBoundingClientRect().bottom);
    for (const [what, selector] of [
      ['the statement', ':scope > summary .statement'],
      ['the quoted words', 'figure.quote'],
      ['what was expected', '.finding pre.expected'],
      ['what was received', '.finding pre.received'],
      ['the answer', '.finding pre.answer'],
      ['the curl', '.finding pre.curl'],
      ['the replay line', '.finding p.replay'],
    ] as const)
      expect(await bottom(selector), `${what} within the first ${HEIGHT} px`).toBeLessThanOrEqual(HEIGHT);
    // The answer shows the status and the header at fault.
    await expect(firstBlock.locator('.finding pre.answer').first()).toContainText('HTTP 401');
    await expect(firstBlock.locator('.finding pre.answer').first()).toContainText('sunset: 2027-06-30');
  } finally {
    await page.close();
  }
});

test('at 390 px the evidence blocks fit the screen: the quoted table row, the answer and the curl wrap', async () => {
  const page = await browser.newPage({ viewport: { width: 390, height: 800 } });
  try {
    // A requirement quoting a table row of four columns, failing, beside the run's own.
    const quoted = record.requirements.find((r) => r.quotes[0]?.table?.header.length === 4)!;
    const failing = record.requirements.find((r) => r.status === 'failed' || r.status === 'warned')!;
    const page390 = {
      ...record,
      requirements: record.requirements.map((r) =>
        r.id === quoted.id
          ? {
              ...failing,
              ...r,
              status: failing.status,
              level: failing.level,
              findings: failing.findings,
              groups: failing.groups,
            }
          : r,
      ),
    };
    await page.setContent(renderHtml(page390));
    const wide = await page.evaluate(() => {
      const out: string[] = [];
      const width = document.documentElement.clientWidth;
      for (const e of document.querySelectorAll('#findings *')) {
        const r = e.getBoundingClientRect();
        if (r.right > width + 1 && out.length < 5)
          out.push(`${e.tagName}.${e.className}: ${Math.round(r.right)}`);
      }
      return out;
    });
    expect(wide).toEqual([]);
    await expect(page.locator(`#req-${quoted.id} table.quoted-row`).first()).toBeVisible();
  } finally {
    await page.close();
  }
});
