/**
 * Text as a target may have encoded it, undone layer by layer for the redaction rule
 * (exchange/redact.ts): JSON escapes, percent-encoding and HTML character references, each
 * decoded character kept with the span of the original text it came from, so that a secret found
 * in a decoded layer is replaced over the whole of its encoded form and a redacted JSON text stays
 * JSON.
 *
 * One layer undoes one level of each of the three encodings, in any mix within the text: `\/`,
 * `\u0041` (with any number of backslashes before it, as JSON inside JSON has, so nested JSON is
 * one layer); `%2F`, `%2f`, and a UTF-8 sequence `%C3%A9` as its one character; every character
 * reference of the HTML standard, numeric (`&#47;`, `&#x2F;`, with or without the semicolon) and
 * named (`&sol;`, `&period;`, `&lowbar;`, `&amp;`, `&fjlig;`: all 2,231 names, the legacy ones
 * without a semicolon too), decoded by the `entities` library as a browser decodes text. Layers
 * follow one another up to MAX_LAYERS: `%252F` (percent twice), `&amp;sol;`, JSON inside
 * percent-encoding, percent-encoding inside HTML references.
 */
import { DecodingMode, HtmlEntityDecoder } from 'entities/decode';

/** Whether a text may hold an encoded character at all: no backslash, % or & is the fast path. */
export const MAY_BE_ENCODED = /[\\%&]/;

/**
 * The layers decoded after the text itself. Three: an encoding applied twice (`%252F`, `&amp;sol;`)
 * and a third on top (a percent-encoded query holding an HTML page's reference), which is more
 * than the targets this suite meets produce; each layer costs a pass over a text that still
 * holds a backslash, % or &, and only such texts are decoded.
 */
export const MAX_LAYERS = 3;

/**
 * The longest text one character may take in one layer: `\\\\\\u0041` in JSON nested a few times,
 * `&DiacriticalGrave;`, `%F0%9F%98%80` (its four UTF-8 bytes, for two UTF-16 units).
 */
export const MAX_UNIT_LENGTH = 32;

const ESCAPED_CONTROL = new Map([
  ['b', '\b'],
  ['f', '\f'],
  ['n', '\n'],
  ['r', '\r'],
  ['t', '\t'],
]);

/** A run of decoded characters and the length of the text it came from; 'partial': the text ends inside it. */
type Unit = { chars: string; length: number } | 'partial';

let entityChars = '';
const entityDecoder = new HtmlEntityDecoder((cp) => {
  entityChars += String.fromCodePoint(cp);
});

/** The HTML character reference at `i` (a `&`), as a browser decodes it in text. */
function entityAt(text: string, i: number, final: boolean): Unit | undefined {
  entityChars = '';
  entityDecoder.startEntity(DecodingMode.Legacy);
  let length = entityDecoder.write(text, i + 1);
  if (length < 0) {
    if (!final) return 'partial';
    length = entityDecoder.end();
  }
  return length > 0 ? { chars: entityChars, length } : undefined;
}

/** The byte a `%XX` at `i` stands for, or -1. */
function percentByte(text: string, i: number): number {
  if (text.charCodeAt(i) !== 0x25) return -1;
  const high = hexValue(text.charCodeAt(i + 1));
  const low = hexValue(text.charCodeAt(i + 2));
  return high < 0 || low < 0 ? -1 : high * 16 + low;
}

/** The value of a hex digit's character code, or -1. */
function hexValue(code: number): number {
  if (code >= 0x30 && code <= 0x39) return code - 0x30;
  const lower = code | 0x20;
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1;
}

/** The number of continuation bytes a UTF-8 sequence starting with `byte` has (0: not a lead byte). */
function continuations(byte: number): number {
  if (byte >= 0xc2 && byte <= 0xdf) return 1;
  if (byte >= 0xe0 && byte <= 0xef) return 2;
  if (byte >= 0xf0 && byte <= 0xf4) return 3;
  return 0;
}

/** The percent-encoding at `i` (a `%`): a UTF-8 sequence as its character, any other byte as Latin-1. */
function percentAt(text: string, i: number, final: boolean): Unit | undefined {
  const first = percentByte(text, i);
  if (first < 0) return !final && /^%[0-9a-fA-F]?$/.test(text.slice(i, i + 3)) ? 'partial' : undefined;
  const more = continuations(first);
  if (more > 0) {
    if (!final && text.length < i + 3 * (more + 1)) return 'partial';
    const bytes = [first];
    for (let k = 1; k <= more; k++) {
      const b = percentByte(text, i + 3 * k);
      if (b < 0x80 || b > 0xbf) break;
      bytes.push(b);
    }
    const chars = bytes.length === more + 1 ? Buffer.from(bytes).toString('utf8') : '\ufffd';
    if (!chars.includes('\ufffd')) return { chars, length: 3 * bytes.length };
  }
  return { chars: String.fromCharCode(first), length: 3 };
}

const UNICODE = /^u([0-9a-fA-F]{4})/;

/**
 * The JSON escape at `i` (a backslash), whatever the run of backslashes before it: `\u0041` or
 * `\/` or `\"` as its character, an odd run before b f n r t as the backslashes it stands for and
 * the control character; any other run stands for itself, whole (a run of two before `n` is a
 * backslash and an n, not a line break).
 */
function escapeAt(text: string, i: number, final: boolean): Unit {
  let run = 0;
  while (text[i + run] === '\\') run++;
  const after = text[i + run];
  // The escapes of nearly every text first: \" and \/.
  if (after === '/' || after === '"') return { chars: after, length: run + 1 };
  if (after === 'u' || after === undefined) {
    const rest = text.slice(i + run, i + run + 5);
    const unicode = UNICODE.exec(rest);
    if (unicode) return { chars: String.fromCharCode(parseInt(unicode[1]!, 16)), length: run + 5 };
    if (!final && i + run + 5 > text.length && /^(?:u[0-9a-fA-F]{0,3})?$/.test(rest)) return 'partial';
  }
  const control = after === undefined ? undefined : ESCAPED_CONTROL.get(after);
  if (run % 2 === 1 && control !== undefined)
    return { chars: '\\'.repeat(run - 1) + control, length: run + 1 };
  return { chars: run === 1 ? '\\' : '\\'.repeat(run), length: run };
}

/**
 * The encoded character at `i` of `text` and the length of its encoded form, or undefined when
 * the character there is only itself. `final` false: `text` may go on (a stream), and 'partial'
 * says it ends inside what may be an encoding.
 */
export function unitAt(text: string, i: number, final = true): Unit | undefined {
  const c = text[i];
  if (c === '\\') return escapeAt(text, i, final);
  if (c === '%') return percentAt(text, i, final);
  if (c === '&') return entityAt(text, i, final);
  return undefined;
}

/**
 * A text decoded: its characters, and for each the span [start, end) of the original text it
 * came from. `start` and `end` are left out of the layer that is the text itself, and of layers
 * built without spans. `changed`: where the characters decoded from an encoding stand (pairs of
 * start and end), the only places where something not in the layer below may be found; left out
 * of the text itself. `settled`: decoding this layer again would change nothing.
 */
export interface Layer {
  chars: string;
  start?: Int32Array;
  end?: Int32Array;
  changed?: number[];
  settled?: boolean;
}

/** Where characters [from, to) of `layer` start and end in the original text. */
export function spanOf(layer: Layer, from: number, to: number): { from: number; to: number } {
  return layer.start && layer.end ? { from: layer.start[from]!, to: layer.end[to - 1]! } : { from, to };
}

/**
 * `below` decoded one layer; its spans (if `spans`) are in the original text's positions.
 *
 * The layer is settled when no decoded character is one an encoding starts with, and none stands
 * within MAX_UNIT_LENGTH after a character that was left as it was and that an encoding starts
 * with: the only characters a decoder reads are an encoding's first and those after it, so each
 * place of the next layer would decode as it did here.
 */
function decodeLayer(below: Layer, spans: boolean): Layer {
  const text = below.chars;
  const parts: string[] = [];
  let start: Int32Array | undefined;
  let end: Int32Array | undefined;
  if (spans) {
    // A unit decodes to at most as many characters as it takes (a reference of a pair of
    // surrogates takes more than two), so the layer is never longer than the text.
    start = new Int32Array(text.length);
    end = new Int32Array(text.length);
  }
  const changed: number[] = [];
  let settled = true;
  let lastKept = -Infinity;
  let n = 0;
  const special = /[\\%&]/g;
  let i = 0;
  while (i < text.length) {
    special.lastIndex = i;
    const next = special.exec(text);
    const stop = next ? next.index : text.length;
    if (stop > i) {
      parts.push(text.slice(i, stop));
      if (start && end)
        for (let k = i; k < stop; k++) {
          const span = spanOf(below, k, k + 1);
          start[n] = span.from;
          end[n++] = span.to;
        }
      else n += stop - i;
      i = stop;
      if (!next) break;
    }
    const unit = unitAt(text, i);
    const decoded = unit === undefined || unit === 'partial' ? { chars: text[i]!, length: 1 } : unit;
    const count = decoded.chars.length;
    if (decoded.length === count && decoded.chars === text.slice(i, i + count)) lastKept = n + count - 1;
    else {
      changed.push(n, n + count);
      if (MAY_BE_ENCODED.test(decoded.chars) || n - lastKept <= MAX_UNIT_LENGTH) settled = false;
    }
    parts.push(decoded.chars);
    if (start && end) {
      const span = spanOf(below, i, i + decoded.length);
      for (let k = 0; k < count; k++) {
        start[n] = span.from;
        end[n++] = span.to;
      }
    } else n += count;
    i += decoded.length;
  }
  const chars = parts.join('');
  return {
    chars,
    changed,
    settled,
    ...(start && end ? { start: start.subarray(0, n), end: end.subarray(0, n) } : {}),
  };
}

/**
 * `text` and its decoded layers, up to MAX_LAYERS, stopping at the first that decoding would
 * leave as it is. `spans`: with each character's span.
 */
export function layersOf(text: string, spans: boolean): Layer[] {
  const layers: Layer[] = [{ chars: text }];
  for (let k = 0; k < MAX_LAYERS; k++) {
    const below = layers[k]!;
    if (below.settled || !MAY_BE_ENCODED.test(below.chars)) break;
    const next = decodeLayer(below, spans);
    if (next.changed!.length === 0) break;
    layers.push(next);
  }
  return layers;
}

/**
 * The ranges of `layer` where a match may start that the layer below did not have: around each
 * decoded run, `before` characters before it and `after` after it, merged; undefined for the
 * whole layer (the text itself, or ranges that cover most of it).
 */
export function searchRanges(layer: Layer, before: number, after: number): number[] | undefined {
  const changed = layer.changed;
  if (!changed) return undefined;
  const out: number[] = [];
  let covered = 0;
  for (let k = 0; k < changed.length; k += 2) {
    const from = Math.max(0, changed[k]! - before);
    const to = Math.min(layer.chars.length, changed[k + 1]! + after);
    const last = out.length > 0 ? out[out.length - 1]! : -1;
    if (from <= last) {
      if (to > last) {
        covered += to - last;
        out[out.length - 1] = to;
      }
    } else {
      out.push(from, to);
      covered += to - from;
    }
  }
  return covered * 2 > layer.chars.length ? undefined : out;
}
