/**
 * `npm run screenshot`: makes the README's picture of the report, docs/conformance-report.png,
 * from a real run (the whole suite against a faulty server of the gallery,
 * tests/self/gallery-report.ts) rendered in Debian's Chromium: the top of the page, 1280 px wide,
 * where a reviewer starts. Beside it, docs/conformance-report.layout.json records the hash of the
 * layout it shows (scripts/report-layout-hash.ts), which tests/self/report-screenshot.spec.ts
 * compares with today's, so a picture older than the page's layout fails the self-tests.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { format, resolveConfig } from 'prettier';
import { renderHtml } from '../reporter/html.ts';
import { galleryRecord, REPORT_VARIANT } from '../tests/self/gallery-report.ts';
import {
  layoutHash,
  PROJECT_ROOT,
  SCREENSHOT,
  SCREENSHOT_LAYOUT,
  type ScreenshotLayout,
} from './report-layout-hash.ts';

/** Debian's Chromium, as the self-tests use it (.ci/run installs it). */
const CHROMIUM = '/usr/bin/chromium';
const WIDTH = 1280;
const HEIGHT = 900;

const record = await galleryRecord(REPORT_VARIANT);
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--no-sandbox', '--headless', '--disable-gpu'],
});
try {
  const page = await browser.newPage({ viewport: { width: WIDTH, height: HEIGHT } });
  await page.setContent(renderHtml(record));
  await page.screenshot({ path: join(PROJECT_ROOT, SCREENSHOT), fullPage: false });
} finally {
  await browser.close();
}
const { hash, sources } = layoutHash();
const layout: ScreenshotLayout = {
  layout: hash,
  sources,
  variant: REPORT_VARIANT,
  width: WIDTH,
  height: HEIGHT,
};
// Written as Prettier writes it, so that the format check of npm test passes on a fresh record.
const layoutPath = join(PROJECT_ROOT, SCREENSHOT_LAYOUT);
writeFileSync(
  layoutPath,
  await format(JSON.stringify(layout), { ...(await resolveConfig(layoutPath)), filepath: layoutPath }),
);
console.log(
  `wrote ${SCREENSHOT} (${WIDTH}x${HEIGHT}, the report of a run against ${REPORT_VARIANT}) and ${SCREENSHOT_LAYOUT}`,
);
