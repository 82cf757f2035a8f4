/**
 * The README's picture of the report is current: docs/conformance-report.png was made by `npm run
 * screenshot` (scripts/screenshot.ts) from the layout the renderer has today. The hash of the
 * layout's sources recorded beside the image (docs/conformance-report.layout.json) must equal
 * today's (scripts/report-layout-hash.ts); a change to the stylesheet or to a markup writer of
 * reporter/ fails here until the picture is made again. And the picture is what the script makes:
 * a PNG 1280 px wide, the top of the page, small enough for a repository.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import {
  layoutHash,
  layoutSources,
  PROJECT_ROOT,
  SCREENSHOT,
  SCREENSHOT_LAYOUT,
  type ScreenshotLayout,
} from '../../scripts/report-layout-hash.ts';

test('the README shows the report as its layout is today (else: npm run screenshot)', () => {
  const recorded = JSON.parse(
    readFileSync(join(PROJECT_ROOT, SCREENSHOT_LAYOUT), 'utf8'),
  ) as ScreenshotLayout;
  const today = layoutHash();
  expect(recorded.sources, 'the sources of the layout').toEqual(today.sources);
  expect(recorded.layout, `${SCREENSHOT} is older than the report's layout: run npm run screenshot`).toBe(
    today.hash,
  );
  expect(readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8')).toContain(`](${SCREENSHOT})`);
});

test('the picture is a PNG 1280 px wide, the top of the page, under 400 kB', () => {
  const png = readFileSync(join(PROJECT_ROOT, SCREENSHOT));
  expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  // IHDR: width and height, big-endian, after the signature, the chunk's length and type.
  expect(png.readUInt32BE(16)).toBe(1280);
  expect(png.readUInt32BE(20)).toBeLessThanOrEqual(1200);
  expect(png.length).toBeLessThan(400_000);
});

test('the layout is the renderer and the markup writers it imports', () => {
  const sources = layoutSources();
  expect(sources).toContain('reporter/html.ts');
  expect(sources).toContain('reporter/escape-html.ts');
  // A module that only words a line is no part of the layout.
  expect(sources).not.toContain('reporter/replay.ts');
});

test('the hash follows the stylesheet, not the line ends a checkout writes', () => {
  const copy = mkdtempSync(join(tmpdir(), 'layout-hash-'));
  try {
    mkdirSync(join(copy, 'reporter'));
    for (const file of readdirSync(join(PROJECT_ROOT, 'reporter')).filter((f) => f.endsWith('.ts')))
      writeFileSync(
        join(copy, 'reporter', file),
        readFileSync(join(PROJECT_ROOT, 'reporter', file), 'utf8').replace(/\n/g, '\r\n'),
      );
    expect(layoutHash(copy).hash, 'CRLF line ends').toBe(layoutHash().hash);
    const html = join(copy, 'reporter', 'html.ts');
    writeFileSync(html, readFileSync(html, 'utf8').replace('max-width:1100px', 'max-width:1200px'));
    expect(layoutHash(copy).hash, 'a changed stylesheet').not.toBe(layoutHash().hash);
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
