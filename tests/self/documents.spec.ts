/**
 * The documents a bill takes (generators/documents.ts): each kind §4.3 names, each a file its
 * readers open (the images decoded by Chromium, as a deployment's image library would decode
 * them); and bytes that are not text carried unchanged through the client, the log, the HAR and
 * the curl line.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, expect, test } from '@playwright/test';
import { curlCommand, octalEscapes } from '../../exchange/curl.ts';
import { requestBodyBytes, type Exchange, type RecordedRequest } from '../../exchange/exchange.ts';
import { exchangeOfEntry, harOfExchanges } from '../../exchange/har.ts';
import { BILL_DOCUMENTS } from '../../generators/documents.ts';
import { requestOfExchange, requestOfHarEntry } from '../../requests/model.ts';

const CHROMIUM = '/usr/bin/chromium';
const bytesOf = (c: string | Uint8Array): Buffer => (typeof c === 'string' ? Buffer.from(c) : Buffer.from(c));

test('every kind of document §4.3 names, once: a PDF, a JPEG and a PNG, each with its signature', () => {
  expect(BILL_DOCUMENTS.map((d) => [d.kind, d.mediaType])).toEqual([
    ['PDF', 'application/pdf'],
    ['JPEG', 'image/jpeg'],
    ['PNG', 'image/png'],
  ]);
  const [pdf, jpeg, png] = BILL_DOCUMENTS.map((d) => bytesOf(d.content));
  expect(pdf!.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  expect(pdf!.toString('latin1')).toContain('%%EOF');
  expect([...jpeg!.subarray(0, 4)]).toEqual([0xff, 0xd8, 0xff, 0xe0]);
  expect(jpeg!.subarray(6, 11).toString('latin1')).toBe('JFIF\0');
  expect([...jpeg!.subarray(-2)]).toEqual([0xff, 0xd9]);
  expect([...png!.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
});

test('the images decode: one pixel each, the JPEG mid-grey, the PNG white', async () => {
  test.skip(!existsSync(CHROMIUM), `${CHROMIUM} is missing: .ci/run installs Debian's chromium`);
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--headless'] });
  try {
    const page = await browser.newPage();
    const decoded: Record<string, string> = {};
    for (const d of BILL_DOCUMENTS.filter((x) => x.kind !== 'PDF')) {
      const url = `data:${d.mediaType};base64,${bytesOf(d.content).toString('base64')}`;
      decoded[d.kind] = await page.evaluate(async (src) => {
        const img = new Image();
        img.src = src;
        try {
          await img.decode();
        } catch (error) {
          return `not decoded: ${String(error)}`;
        }
        const canvas = document.createElement('canvas');
        canvas.width = 1;
        canvas.height = 1;
        const context = canvas.getContext('2d')!;
        context.drawImage(img, 0, 0);
        return `${img.naturalWidth}x${img.naturalHeight} ${[...context.getImageData(0, 0, 1, 1).data].join(',')}`;
      }, url);
    }
    expect(decoded).toEqual({ JPEG: '1x1 128,128,128,255', PNG: '1x1 255,255,255,255' });
  } finally {
    await browser.close();
  }
});

/** A recorded request whose body is bytes: every byte value, NUL and backslash among them. */
const bytes = Buffer.from([...Array.from({ length: 256 }, (_, i) => i), 0x5c, 0x27, 0x00]);
const binary: RecordedRequest = {
  method: 'POST',
  url: 'http://127.0.0.1:1/api/v1/bills/B-1/document',
  headers: { 'Content-Type': 'image/png', Authorization: 'Bearer $API_TOKEN' },
  body: bytes.toString('base64'),
  bodyEncoding: 'base64',
};
const exchange: Exchange = {
  id: 1,
  request: binary,
  status: 201,
  headers: {},
  text: '',
  body: undefined,
  startedAt: Date.UTC(2026, 10, 27),
  durationMs: 3,
  attempts: 1,
  origin: {},
};

test('bytes that are not text: the same bytes in the log, through HAR and back, and in the request model', () => {
  expect(requestBodyBytes(binary)).toEqual(bytes);
  const har = harOfExchanges([exchange], '1.3.0');
  const entry = har.log.entries[0]!;
  expect(entry.request.postData).toMatchObject({ mimeType: 'image/png', _encoding: 'base64' });
  expect(entry.request.bodySize).toBe(bytes.length);
  const back = exchangeOfEntry(entry, 0, 'test.har');
  expect(back.request.bodyEncoding).toBe('base64');
  expect(requestBodyBytes(back.request)).toEqual(bytes);
  expect(requestOfHarEntry(entry).body).toEqual(bytes);
  expect(requestOfExchange(exchange).body).toEqual(bytes);
  // A text body stays text.
  const text: RecordedRequest = { ...binary, body: '{"a":1}', bodyEncoding: undefined };
  expect(requestBodyBytes(text)).toEqual(Buffer.from('{"a":1}'));
});

test('the curl line of bytes sends exactly those bytes (printf %b, octal escapes, through a pipe)', () => {
  const command = curlCommand(binary);
  expect(command).toMatch(/^printf '%b' '.*' \| curl .* --data-binary @-$/s);
  expect(octalEscapes(Buffer.from('a\\\x00\xff', 'latin1'))).toBe('a\\\\\\0000\\0377');
  // What the shell's printf writes is the body, byte for byte.
  const printf = command.slice(0, command.indexOf(' | curl '));
  const written = execFileSync('bash', ['-c', printf]);
  expect(written).toEqual(bytes);
});
