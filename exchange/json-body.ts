/**
 * JSON bodies read with a bound on their nesting. JSON.parse itself reads any depth (V8's parser
 * does not recurse), but nearly everything that then walks the value does: JSON.stringify and
 * structuredClone (native, with a stack limit), the redaction of a parsed value, the canonical
 * text the oracles compare, the reporters. A body nested thousands of levels deep (6 KB of
 * brackets) overflowed them. So a body nested deeper than MAX_JSON_DEPTH is never handed on as a
 * value: its text is kept (and recorded, and written), and its depth says why there is no value
 * ("too deep to judge"). RFC 8259 §9 lets a parser limit the depth it reads; no answer of the
 * interface comes near it (a counterparty nests four levels: the counterparty, its accounts, an
 * account, its identifier).
 */

/** The deepest nesting of arrays and objects a body is read as a value to (docs/reports-and-gate.md). */
export const MAX_JSON_DEPTH = 64;

/** A body read as JSON: its value, or its depth when it is JSON nested deeper than MAX_JSON_DEPTH. */
export type JsonBody = { value: unknown; tooDeep?: undefined } | { value?: undefined; tooDeep: number };

/**
 * The deepest nesting of `[` and `{` in a JSON text, outside its strings. It scans the text once,
 * without recursion, so it is bounded whatever the input; on text that is not JSON the figure means
 * nothing (the callers parse it too).
 */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      // Past the string: a backslash escapes the character after it.
      for (i++; i < text.length; i++) {
        const s = text.charCodeAt(i);
        if (s === 0x5c /* \ */) i++;
        else if (s === 0x22) break;
      }
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > deepest) deepest = depth;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) depth--;
  }
  return deepest;
}

/**
 * Whether a parsed JSON value nests deeper than `max` levels of arrays and objects. It walks with
 * a stack of its own, so it is bounded whatever the input, and stops at the first level past
 * `max`: its cost is the number of values, not the length of the text (white space is free).
 */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const values: unknown[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const v = values.pop();
    const depth = depths.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > max) return true;
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const child of children)
      if (child !== null && typeof child === 'object') {
        values.push(child);
        depths.push(depth + 1);
      }
  }
  return false;
}

/**
 * `text` read as JSON: undefined when it is empty or not JSON; else its value, or, nested deeper
 * than MAX_JSON_DEPTH, its depth and no value. JSON.parse still reads a text that deep (it does
 * not recurse), so that a body is said to be JSON only when it is.
 */
export function readJsonBody(text: string): JsonBody | undefined {
  if (text === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
  return nestsDeeperThan(value, MAX_JSON_DEPTH) ? { tooDeep: jsonDepth(text) } : { value };
}

/** What an exchange records of its response body read as JSON: `body`, and `tooDeep` where it applies. */
export function responseBody(text: string): { body: unknown; tooDeep?: number } {
  const read = readJsonBody(text);
  if (read?.tooDeep !== undefined) return { body: undefined, tooDeep: read.tooDeep };
  return { body: read?.value };
}

/** "JSON nested 3000 levels deep, deeper than the 64 the suite reads: too deep to judge". */
export function tooDeepText(depth: number): string {
  return `JSON nested ${depth} levels deep, deeper than the ${MAX_JSON_DEPTH} the suite reads: too deep to judge`;
}
