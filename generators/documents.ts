/**
 * The documents a bill takes (interface.md §4.3: "upload a PDF, JPEG or PNG and link it to the
 * bill"): a finite class of three, each tried, each the smallest file its readers open. A PDF is
 * text; a JPEG and a PNG are bytes that are not text, sent as they are (the client, the log, the
 * HAR and the curl line carry bytes: exchange/exchange.ts).
 *
 * The images are built here from their formats' definitions rather than kept as opaque bytes, so
 * that what each byte is can be read: a PNG (ISO/IEC 15948) of one white pixel, and a baseline
 * JPEG (ITU-T T.81) of one mid-grey block, coded with one-symbol Huffman tables. Both decode in
 * browsers and image libraries (tests/self/documents.spec.ts opens them in Chromium).
 */
import { deflateSync } from 'node:zlib';

/** The smallest PDF a reader opens: a header, one empty page, the trailer. */
export const MINIMAL_PDF = [
  '%PDF-1.4',
  '1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj',
  '2 0 obj <</Type /Pages /Kids [3 0 R] /Count 1>> endobj',
  '3 0 obj <</Type /Page /Parent 2 0 R /MediaBox [0 0 10 10]>> endobj',
  'trailer <</Root 1 0 R>>',
  '%%EOF',
  '',
].join('\n');

/** CRC-32 (ISO 3309, as PNG chunks use it). */
function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** A PNG chunk: length, type, data, CRC of type and data. */
function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

/** A PNG of one white pixel: 8-bit greyscale, one scanline (filter 0, value 255). */
function minimalPng(): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0); // width
  header.writeUInt32BE(1, 4); // height
  header.set([8, 0, 0, 0, 0], 8); // bit depth 8, greyscale, deflate, filter method 0, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.from([0, 255]))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A JPEG marker segment: FF, the marker, a length counting itself, the data. */
function segment(marker: number, data: readonly number[]): number[] {
  const length = data.length + 2;
  return [0xff, marker, length >> 8, length & 0xff, ...data];
}

/**
 * A baseline JFIF JPEG of one 8×8 block of one greyscale component (the image one pixel wide
 * and high): quantisation all 1; a DC and an AC Huffman table of one code each ('0'), for DC
 * category 0 and for end-of-block; the one block coded as DC difference 0 (mid-grey) and
 * end-of-block, '00' padded with ones to a byte.
 */
function minimalJpeg(): Buffer {
  const oneCode = (classAndId: number, symbol: number): number[] =>
    segment(0xc4, [classAndId, 1, ...new Array<number>(15).fill(0), symbol]);
  return Buffer.from([
    0xff,
    0xd8, // SOI
    // APP0 JFIF 1.01, aspect 1:1, no thumbnail: what file-type checks that look past FF D8 FF expect.
    ...segment(0xe0, [0x4a, 0x46, 0x49, 0x46, 0x00, 1, 1, 0, 0, 1, 0, 1, 0, 0]),
    ...segment(0xdb, [0x00, ...new Array<number>(64).fill(1)]), // DQT: table 0, 8-bit
    ...segment(0xc0, [8, 0, 1, 0, 1, 1, 1, 0x11, 0]), // SOF0: 8-bit, 1×1, one component (id 1, 1×1, table 0)
    ...oneCode(0x00, 0x00), // DHT: DC table 0, category 0
    ...oneCode(0x10, 0x00), // DHT: AC table 0, end-of-block
    ...segment(0xda, [1, 1, 0x00, 0, 63, 0]), // SOS: component 1 with tables 0/0, spectral 0..63
    0b00111111, // DC category 0, end-of-block, padding
    0xff,
    0xd9, // EOI
  ]);
}

/** A document a bill takes: its kind, media type, a file name and its bytes (or text). */
export interface BillDocument {
  kind: 'PDF' | 'JPEG' | 'PNG';
  mediaType: string;
  filename: string;
  content: string | Uint8Array;
}

/** Every kind of document §4.3 names, the PDF first. */
export const BILL_DOCUMENTS: readonly BillDocument[] = [
  { kind: 'PDF', mediaType: 'application/pdf', filename: 'conformance.pdf', content: MINIMAL_PDF },
  { kind: 'JPEG', mediaType: 'image/jpeg', filename: 'conformance.jpg', content: minimalJpeg() },
  { kind: 'PNG', mediaType: 'image/png', filename: 'conformance.png', content: minimalPng() },
];
