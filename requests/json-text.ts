/**
 * Reading a request's content as JSON text (RFC 8259): decoded as UTF-8 when it comes as bytes
 * (§8.1: MUST be UTF-8), a leading byte order mark noted (§8.1: MUST NOT be added; a parser MAY
 * ignore it, so the value is read past it), parsed with JSON.parse (which holds to the grammar:
 * whitespace, key order, escapes and number forms are read as RFC 8259 reads them), and object
 * names that repeat noted (§4: SHOULD be unique; JSON.parse keeps the last, other parsers the
 * first, so the model reads what JSON.parse reads and reports the repetition).
 *
 * No library here finds repeated names: JSON.parse drops them before a reviver sees them. The
 * scan below runs only over text JSON.parse has accepted, so it tracks strings and nesting only.
 */
import { jsonDepth, MAX_JSON_DEPTH, nestsDeeperThan } from '../exchange/json-body.ts';

export interface JsonText {
  /**
   * empty: no content; json: parsed; malformed: not JSON text; not-utf-8: bytes that are not
   * UTF-8; too-deep: JSON text nested deeper than MAX_JSON_DEPTH, not read as a value
   * (exchange/json-body.ts).
   */
  state: 'empty' | 'json' | 'malformed' | 'not-utf-8' | 'too-deep';
  value?: unknown;
  /** With too-deep: how deep it nests. */
  depth?: number;
  /** The text began with U+FEFF. */
  byteOrderMark: boolean;
  /** Where a name repeats: '/counterpartyDetails/remarks' (the object's pointer and the name). */
  repeatedNames: string[];
  /** Why it is not JSON, in a few words. */
  error?: string;
}

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The content as text: undefined when bytes are not UTF-8. */
export function contentText(body: string | Uint8Array | undefined): string | undefined {
  if (body === undefined) return '';
  if (typeof body === 'string') return body;
  try {
    return decoder.decode(body);
  } catch {
    return undefined;
  }
}

/** The size of the content: UTF-16 units of text, or bytes. */
export function contentSize(body: string | Uint8Array | undefined): number {
  return body === undefined ? 0 : body.length;
}

/** Reads `text` (undefined: bytes that are not UTF-8) as JSON text. */
export function readJson(text: string | undefined): JsonText {
  if (text === undefined) return { state: 'not-utf-8', byteOrderMark: false, repeatedNames: [] };
  const byteOrderMark = text.charCodeAt(0) === 0xfeff;
  const body = byteOrderMark ? text.slice(1) : text;
  if (body.trim() === '')
    return {
      state: text === '' ? 'empty' : 'malformed',
      byteOrderMark,
      repeatedNames: [],
      error: 'no JSON value',
    };
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (e) {
    return {
      state: 'malformed',
      byteOrderMark,
      repeatedNames: [],
      error: (e as Error).message.split('\n')[0],
    };
  }
  if (nestsDeeperThan(value, MAX_JSON_DEPTH))
    return { state: 'too-deep', depth: jsonDepth(body), byteOrderMark, repeatedNames: [] };
  return {
    state: 'json',
    value,
    byteOrderMark,
    repeatedNames: value !== null && typeof value === 'object' ? repeatedNames(body) : [],
  };
}

const escapePointer = (name: string): string => name.replace(/~/g, '~0').replace(/\//g, '~1');

interface Frame {
  object: boolean;
  pointer: string;
  names: Set<string> | undefined;
  /** The next string in this object is a name. */
  expectName: boolean;
  /** The name (or index) of the value being read. */
  current: string;
  index: number;
}

/** Strings and the structural characters that matter here; a string is read whole by the regex engine. */
const TOKENS = /"[^"\\]*(?:\\.[^"\\]*)*"|[{}[\],]/g;

/** Repeated object names in well-formed JSON text, as pointers of the name. */
export function repeatedNames(text: string): string[] {
  const out: string[] = [];
  const stack: Frame[] = [];
  const childPointer = (): string => {
    const top = stack[stack.length - 1];
    return top === undefined
      ? ''
      : `${top.pointer}/${top.object ? escapePointer(top.current) : String(top.index)}`;
  };
  const tokens = new RegExp(TOKENS);
  for (let m = tokens.exec(text); m !== null; m = tokens.exec(text)) {
    const token = m[0];
    const c = token.charCodeAt(0);
    const top = stack[stack.length - 1];
    if (c === 0x22 /* " */) {
      if (top?.object && top.expectName) {
        const name = JSON.parse(token) as string;
        top.names ??= new Set();
        if (top.names.has(name)) out.push(`${top.pointer}/${escapePointer(name)}`);
        top.names.add(name);
        top.current = name;
        top.expectName = false;
      }
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      stack.push({
        object: c === 0x7b,
        pointer: childPointer(),
        names: undefined,
        expectName: c === 0x7b,
        current: '',
        index: 0,
      });
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
    } else if (top?.object) top.expectName = true;
    else if (top) top.index++;
  }
  return out;
}
