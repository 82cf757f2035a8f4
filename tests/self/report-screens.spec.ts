/**
 * The HTML report on any screen, in Debian's Chromium: the report of a real failing run (a write
 * run of the whole suite against a faulty server of the gallery, tests/self/gallery-report.ts),
 * every fold opened, does not scroll sideways at a phone's 390 px nor at 1024, 1280 and 1920 px:
 * its long URLs, curl lines, JSON and table cells wrap or scroll inside their own box. And no
 * header cell of a table breaks a word across lines (the counts table's "pass/ed", its row
 * labels one letter a line), measured on the laid-out text, not by eye.
 */
import { existsSync } from 'node:fs';
import { chromium, expect, test, type Browser, type Page } from '@playwright/test';
import { renderHtml } from '../../reporter/html.ts';
import { galleryRecord } from './gallery-report.ts';

// One worker, one run of the suite against the gallery server for every test of the file.
test.describe.configure({ mode: 'default' });

const CHROMIUM = '/usr/bin/chromium';
const WIDTHS = [390, 1024, 1280, 1920];

let browser: Browser;
let html: string;

test.beforeAll(async () => {
  test.skip(!existsSync(CHROMIUM), `${CHROMIUM} is missing: .ci/run installs Debian's chromium`);
  const record = await galleryRecord();
  // A report worth measuring: findings with their evidence, on a PATCH body and on reads.
  expect(record.verdict).toBe('fail');
  expect(record.requirements.filter((r) => r.findings.length > 0).length).toBeGreaterThan(0);
  html = renderHtml(record);
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--headless', '--disable-gpu'],
  });
});

test.afterAll(async () => {
  await browser?.close();
});

/** The elements and texts that reach past the right edge, outside a box that scrolls by itself. */
async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const scrolls = (e: Element | null): boolean => {
      for (let at = e; at; at = at.parentElement) {
        const x = getComputedStyle(at).overflowX;
        if (x === 'auto' || x === 'scroll') return true;
      }
      return false;
    };
    const out: string[] = [];
    for (const e of document.querySelectorAll('body *')) {
      if (e.getBoundingClientRect().right > width + 1 && !scrolls(e.parentElement))
        out.push(
          `<${e.tagName.toLowerCase()} class="${e.className}">: ${(e.textContent ?? '').slice(0, 60)}`,
        );
    }
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const range = document.createRange();
      range.selectNodeContents(n);
      if (range.getBoundingClientRect().right > width + 1 && !scrolls(n.parentElement))
        out.push(`text: ${(n.textContent ?? '').slice(0, 60)}`);
    }
    return out.slice(0, 10);
  });
}

/** Header cells (th) with a word laid out over more than one line. */
async function brokenHeaderWords(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    for (const th of document.querySelectorAll('th')) {
      if (th.getClientRects().length === 0) continue; // folded away
      const walker = document.createTreeWalker(th, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const text = n.textContent ?? '';
        for (const m of text.matchAll(/\S+/g)) {
          const range = document.createRange();
          range.setStart(n, m.index);
          range.setEnd(n, m.index + m[0].length);
          if (range.getClientRects().length > 1) out.push(`"${m[0]}" in the header "${th.textContent}"`);
        }
      }
    }
    return out;
  });
}

for (const width of WIDTHS) {
  test(`a failing run's report at ${width} px: no sideways scroll, no header word broken`, async ({}, testInfo) => {
    const page = await browser.newPage({ viewport: { width, height: 800 } });
    try {
      await page.setContent(html);
      await page.evaluate(() => {
        for (const d of document.querySelectorAll('details')) d.open = true;
      });
      await testInfo.attach(`report-${width}.png`, {
        body: await page.screenshot({ fullPage: false }),
        contentType: 'image/png',
      });
      const { scrollWidth, innerWidth } = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        innerWidth: window.innerWidth,
      }));
      expect(await overflowing(page), 'what sticks out on the right').toEqual([]);
      expect(scrollWidth, 'the page scrolls sideways').toBeLessThanOrEqual(innerWidth);
      expect(await brokenHeaderWords(page)).toEqual([]);
    } finally {
      await page.close();
    }
  });
}
