/**
 * The forms a credential can leak in, both ways: what a hostile target echoes (every encoding of a
 * text it may write: any case, hex, base64 at any offset, JSON escapes, percent-encoding once and
 * twice, HTML character references, numeric and named, and mixes of them), and a scan that
 * undoes every one of them, nested up to three deep, and says which credentials a text holds.
 *
 * The scan is written apart from the rule it checks (exchange/redact.ts): whole-text decoders
 * applied in every order, then every hex and base64 run decoded at each offset, then compared
 * with every letter in one case. It decodes HTML with the `entities` library, the standard's own
 * table of named references, which the rule uses too: a name it lacked would be missed by both.
 */
import { decodeHTML } from 'entities';

/** Every character as a JSON \u escape. */
export const unicodeEscaped = (s: string): string =>
  [...s].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');

/** Every character as a numeric HTML character reference. */
export const htmlReferenced = (s: string): string =>
  [...s].map((c) => `&#x${c.charCodeAt(0).toString(16)};`).join('');

/** Named references of the HTML standard for characters a token holds (none exists for `-`). */
const NAMED = new Map([
  ['/', '&sol;'],
  ['+', '&plus;'],
  ['.', '&period;'],
  ['_', '&lowbar;'],
  ['=', '&equals;'],
  [':', '&colon;'],
  ['~', '&tilde;'],
]);

/** Every character that has a named reference written as one, the others as they are. */
export const htmlNamed = (s: string): string => [...s].map((c) => NAMED.get(c) ?? c).join('');

/** Every character percent-encoded, letters and digits included (as some encoders do). */
export const percentAll = (s: string): string =>
  [...Buffer.from(s)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');

/** Percent-encoded twice: `/` is `%252F`. */
export const percentTwice = (s: string): string => encodeURIComponent(encodeURIComponent(s));

/** The UTF-8 bytes in hex. */
export const hex = (s: string): string => Buffer.from(s).toString('hex');

/** Each character in turn in another form: hex-referenced, percent-encoded twice, named, as is, JSON-escaped. */
export function mixed(s: string): string {
  const forms = [
    (c: string) => `&#${c.charCodeAt(0)};`,
    (c: string) => percentTwice(c).replace(/^([A-Za-z0-9])$/, (m) => `%25${hex(m)}`),
    (c: string) => htmlNamed(c),
    (c: string) => c,
    (c: string) => unicodeEscaped(c),
  ];
  return [...s].map((c, i) => forms[i % forms.length]!(c)).join('');
}

/**
 * `secret` in every form a hostile target may echo it in, by name: each a text that may stand in
 * a JSON string once JSON-escaped, or in a header value.
 */
export function echoForms(secret: string): Record<string, string> {
  const upper = secret.toUpperCase();
  return {
    plain: secret,
    upper,
    lower: secret.toLowerCase(),
    hexLower: hex(secret),
    hexUpper: hex(secret).toUpperCase(),
    hexOfUpper: hex(upper),
    base64: Buffer.from(secret).toString('base64'),
    base64Url: Buffer.from(`x${secret}`).toString('base64url'),
    base64Offset: Buffer.from(`Authorization: Bearer ${secret}`).toString('base64'),
    base64OfUpper: Buffer.from(`xy${upper}`).toString('base64'),
    slashes: secret.replaceAll('/', '\\/'),
    unicode: unicodeEscaped(secret),
    percent: encodeURIComponent(secret),
    percentAll: percentAll(secret),
    percentTwice: percentTwice(secret),
    percentThrice: encodeURIComponent(percentTwice(secret)),
    percentLower: percentAll(secret).toLowerCase(),
    htmlNumeric: htmlReferenced(secret),
    htmlDecimal: [...secret].map((c) => `&#${c.charCodeAt(0)};`).join(''),
    htmlNamed: htmlNamed(secret),
    htmlTwice: htmlNamed(secret).replaceAll('&', '&amp;'),
    mixed: mixed(secret),
    jsonInPercent: encodeURIComponent(JSON.stringify({ token: unicodeEscaped(secret) })),
    percentInHtml: htmlReferenced(encodeURIComponent(secret)),
    upperPercent: encodeURIComponent(upper),
    upperHtmlNamed: htmlNamed(upper),
  };
}

/**
 * `secret` written as a header name can hold it (letters, digits and !#$%&'*+-.^_`|~, RFC 9110
 * §5.6.2): as is, where it is one; percent-encoded (% is allowed); in hex.
 */
export function headerNameForms(secret: string): string[] {
  const forms = [`x-${encodeURIComponent(secret)}`, `x-${hex(secret)}`, `x-${percentTwice(secret)}`];
  if (/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(secret)) forms.push(secret);
  return forms;
}

/** One layer of JSON escapes undone (any number of backslashes before an escape). */
const unJson = (t: string): string =>
  t
    .replace(/\\+u([0-9a-fA-F]{4})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(/\\+([/"\\])/g, '$1');

/** One layer of percent-encoding undone, byte by byte (a byte of UTF-8 alone as Latin-1). */
const unPercent = (t: string): string =>
  t.replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => {
    const bytes = Buffer.from(run.replaceAll('%', ''), 'hex');
    const utf8 = bytes.toString('utf8');
    return utf8.includes('\ufffd') ? bytes.toString('latin1') : utf8;
  });

const TEXT_DECODERS: ((t: string) => string)[] = [unJson, unPercent, decodeHTML];

/** Every hex and base64 run of `text` decoded at each offset. */
function binaryDecodings(text: string): string[] {
  const out: string[] = [];
  for (const run of text.match(/[0-9a-fA-F]{12,}/g) ?? [])
    for (let k = 0; k < 2; k++) out.push(Buffer.from(run.slice(k), 'hex').toString('latin1'));
  for (const run of text.match(/[A-Za-z0-9+/_-]{12,}={0,2}/g) ?? [])
    for (let k = 0; k < 4; k++) out.push(Buffer.from(run.slice(k), 'base64').toString('latin1'));
  return out;
}

/**
 * `text` in every decoding a leak could hide behind: each of JSON escapes, percent-encoding and
 * HTML references undone, in every order, up to three layers; then every hex and base64 run of
 * each of those decoded; each in lower case.
 */
export function decodings(text: string): string[] {
  let layer = [text];
  const seen = new Set(layer);
  for (let depth = 0; depth < 3; depth++) {
    const next: string[] = [];
    for (const t of layer)
      for (const decode of TEXT_DECODERS) {
        const d = decode(t);
        if (!seen.has(d)) {
          seen.add(d);
          next.push(d);
        }
      }
    layer = next;
  }
  const all = [...seen];
  return [...all, ...all.flatMap(binaryDecodings)].map((t) => t.toLowerCase());
}

/** The credentials found in `text`, in any decoding and any case. */
export function leaks(text: string, credentials: readonly string[]): string[] {
  const all = decodings(text);
  return credentials.filter((c) => all.some((d) => d.includes(c.toLowerCase())));
}
