/**
 * How text that came from the target is shown: never as raw control characters. A response
 * body, a header value or an error quoting them reaches the console (the summary, Playwright's
 * own output), junit.xml, conformance.json and conformance.html; printed raw, its escape
 * sequences would drive the user's terminal (clear the screen, set the title, move the cursor,
 * print a fake "Conformance PASSED" line over the real verdict), and bidi controls would
 * reorder what a reader sees. So every such character is written as a visible escape:
 *
 *   - C0 and C1 controls and DEL (Unicode Cc): \n, \r, \t by name, the others as \xHH (ESC is
 *     \x1b, the 8-bit CSI \x9b);
 *   - format characters (Cf): bidi embeddings, overrides and isolates (U+202A-U+202E,
 *     U+2066-U+2069, U+200E, U+200F, U+061C), zero-width characters, the soft hyphen, U+FEFF,
 *     the tag characters that can smuggle invisible text, as \uHHHH (or \u{HHHHH});
 *   - the line and paragraph separators U+2028 and U+2029, and lone surrogates.
 *
 * A backslash is left as it is, so escaping is idempotent and text already escaped (a JSON
 * string in a body) reads as sent; the price is that `\x1b` in a report may be four characters
 * the target sent. Other text (letters of any script, emoji, the no-break space) is untouched.
 *
 * Why not a library: strip-ansi and Node's stripVTControlCharacters delete escape sequences
 * instead of showing them, and only ANSI ones (not bidi controls); jsesc escapes every non-ASCII
 * character (a name like "Müller" would read "M\xFCller") unless in minimal mode, which lets
 * control characters through; util.inspect quotes and escapes quotes and backslashes and leaves
 * bidi controls. The rule here is one regular expression over Unicode general categories.
 */

/** Control (Cc), format (Cf), line and paragraph separator (Zl, Zp) and lone surrogate (Cs). */
const UNSAFE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

/** The same, except the line feed and the tab. */
const UNSAFE_BUT_LAYOUT = /(?![\n\t])[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function visible(char: string): string {
  const named = Object.hasOwn(NAMED, char) ? NAMED[char] : undefined;
  if (named) return named;
  const code = char.codePointAt(0)!;
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\u{${code.toString(16)}}`;
}

/**
 * Text from the target as one line that is safe to print: every control, format and separator
 * character, line breaks and tabs included, as a visible escape.
 */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE, visible);
}

/**
 * The suite's own text, which may quote the target (a finding's message, a report line): the
 * same escapes, except that line feeds and tabs, which lay the suite's text out, are kept. Text
 * from the target that must not start a line of its own (a body) goes through escapeControls
 * first: describeResponse does that.
 */
export function escapeControlsKeepingLines(text: string): string {
  return text.replace(UNSAFE_BUT_LAYOUT, visible);
}

const ANY_UNSAFE = new RegExp(UNSAFE.source, 'u');

/** True when `text` holds a character escapeControls would escape. */
export function hasControls(text: string): boolean {
  return ANY_UNSAFE.test(text);
}

/**
 * A deep copy of a JSON value with every string (keys too) passed through
 * escapeControlsKeepingLines: a probe's outcome, the conformance record.
 */
export function escapeControlsIn<T>(value: T): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return escapeControlsKeepingLines(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(v))) {
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [escapeControlsKeepingLines(k), walk(x)]));
    }
    return v;
  };
  return walk(value) as T;
}
