/**
 * Oracle 'lifecycle-headers': the Deprecation and Sunset response headers.
 *
 * Requirements: sunset-date-time (MUST), sunset-document-format (SHOULD),
 * deprecation-structured-date (SHOULD), sunset-not-before-deprecation (MUST).
 *
 * Rests on:
 * - interface.md §4.1: "Response headers: `Deprecation` (string, indicates deprecation) and `Sunset`
 *   (string, date-time, the date the operation is retired); both appear when applicable."
 * - interface.md §9: "Operations may be marked retired through the response headers `Deprecation`
 *   and `Sunset` (section 4.1)." spec/openapi.yaml declares the Sunset header `format: date-time`.
 * - RFC 8594 §3: "Sunset = HTTP-date"; RFC 9110 §5.6.7: a sender MUST generate an HTTP-date as
 *   IMF-fixdate.
 * - RFC 9745 §2.1: "Deprecation is an Item Structured Header Field; its value MUST be a Date as per
 *   Section 3.3.7 of RFC9651."
 * - RFC 9745 §4: "The timestamp given in the Sunset HTTP header field MUST NOT be earlier than the
 *   one given in the Deprecation header field."
 *
 * Applies to: every answered exchange (status > 0) of every operation of the interface, whatever
 * its status (§9: any operation may be marked retired). A requirement is judged only when its
 * header is present; the comparison only when both headers hold dates.
 */
import { DisplayString, parseItem, Token, type Item, type Parameters } from 'structured-headers';
import { isAnswered } from '../exchange/exchange.ts';
import { spec } from '../spec/index.ts';
import type { RequirementId } from '../spec/requirements.ts';
import { held, violated, type ExchangeOracle, type Judgement } from './types.ts';

/** The requirements of the Deprecation and Sunset headers, wherever they are sent. */
export const LIFECYCLE_REQUIREMENTS = [
  'sunset-date-time',
  'sunset-document-format',
  'sunset-not-before-deprecation',
  'deprecation-structured-date',
] as const satisfies readonly RequirementId[];

type LifecycleRequirement = (typeof LIFECYCLE_REQUIREMENTS)[number];

/** The length of every IMF-fixdate, e.g. "Sun, 06 Nov 1994 08:49:37 GMT". */
const IMF_FIXDATE_LENGTH = 29;

/**
 * An RFC 9110 HTTP-date in the IMF-fixdate form a sender must generate (§5.6.7), as epoch ms.
 * ECMA-262 defines Date.prototype.toUTCString as exactly that form and requires Date.parse to
 * read it back, so a value is an IMF-fixdate when it is its own round trip; an impossible day
 * (31 June) or a wrong weekday does not survive it. The obsolete rfc850 and asctime forms are not
 * accepted: a sender must not generate them, and a two-digit rfc850 year is read relative to the
 * current date, which a pure oracle does not know.
 */
export function parseHttpDate(value: string): number | undefined {
  if (value.length !== IMF_FIXDATE_LENGTH) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return undefined;
  return new Date(ms).toUTCString() === value ? ms : undefined;
}

/** An RFC 3339 date-time as the spec's Sunset header schema declares it, as epoch ms. */
export function parseDocumentDateTime(value: string): number | undefined {
  if (spec().errors('header:Sunset', value).length > 0) return undefined;
  const ms = Date.parse(value);
  if (!Number.isNaN(ms)) return ms;
  // A leap second (hh:mm:60, RFC 3339 §5.7) is a valid date-time that Date.parse refuses. The
  // schema has fixed the shape YYYY-MM-DDThh:mm:ss..., so the seconds are characters 17 and 18;
  // the instant is the end of second 59.
  const endOf59 = Date.parse(`${value.slice(0, 17)}59${value.slice(19)}`);
  return Number.isNaN(endOf59) ? undefined : endOf59 + 1000;
}

/** An RFC 9651 Date Item: the Date, in seconds and ms since the epoch, and its parameters. */
export interface StructuredDate {
  seconds: number;
  /** seconds × 1000; beyond the range of a JS Date for |seconds| > 8.64e12, still comparable. */
  ms: number;
  parameters: Parameters;
}

export type StructuredDateParse = { ok: true; date: StructuredDate } | { ok: false; reason: string };

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The type of a bare item that is not a Date, in the words of RFC 9651 §3.3. */
function describeBareItem(item: Item[0]): string {
  if (typeof item === 'number') return 'an Integer or Decimal';
  if (typeof item === 'string') return 'a String';
  if (typeof item === 'boolean') return 'a Boolean';
  if (item instanceof Token) return 'a Token';
  if (item instanceof DisplayString) return 'a Display String';
  return 'a Byte Sequence';
}

/** The Date of a parsed Item: seconds from the library's Date, or from its integer when out of range. */
function dateOf(item: Item, bare: string): StructuredDate | undefined {
  const [value, parameters] = item;
  if (!(value instanceof Date)) return undefined;
  let seconds = value.getTime() / 1000;
  if (Number.isNaN(seconds)) {
    // structured-headers returns an Invalid Date for a valid sf-date beyond ±8.64e12 s (the range
    // of a JS Date); sf-date = "@" sf-integer, so the library reads the integer after the "@".
    const [integer] = parseItem(bare.trim().slice(1));
    if (typeof integer !== 'number') return undefined;
    seconds = integer;
  }
  return { seconds, ms: seconds * 1000, parameters };
}

/**
 * Parses a Deprecation value as an RFC 9651 Item whose bare item is a Date (`@1688169599`),
 * with structured-headers. Parameters are allowed: RFC 9651 §2 makes parameters the extension
 * mechanism of every Item and discourages treating an unknown one as an error, and RFC 9745
 * defines none and forbids none.
 *
 * structured-headers 2.1.0 fails every Date that is followed by anything ("@1688169599;foo=1":
 * "Expected a digit (0-9), whitespace or EOL at offset 12"; the same in Lists and Dictionaries),
 * although RFC 9651 §4.2.9 ends a Date where its integer ends. Its other parsing passes the whole
 * structured-field-tests suite. So when the library refuses a value, the value is split at its
 * first ";": a Date bare item ("@" ["-"] 1*15DIGIT) holds no ";", so a valid Item splits there
 * into the Date and its parameters, and the library parses each part.
 */
export function parseStructuredDateItem(value: string): StructuredDateParse {
  let item: Item;
  try {
    item = parseItem(value);
  } catch (e) {
    const semicolon = value.indexOf(';');
    if (semicolon < 0) return { ok: false, reason: errorText(e) };
    const bare = value.slice(0, semicolon);
    let date: Item[0];
    try {
      [date] = parseItem(bare);
    } catch {
      return { ok: false, reason: errorText(e) };
    }
    if (!(date instanceof Date)) return { ok: false, reason: errorText(e) };
    try {
      // The parameters behind a one-character Integer, padded with leading spaces (which an
      // Item may have) so that the library's error offsets are those of the value.
      item = [date, parseItem(`${' '.repeat(Math.max(0, semicolon - 1))}0${value.slice(semicolon)}`)[1]];
    } catch (p) {
      return { ok: false, reason: `a Date followed by invalid parameters: ${errorText(p)}` };
    }
    const d = dateOf(item, bare);
    return d ? { ok: true, date: d } : { ok: false, reason: `${describeBareItem(item[0])}, not a Date` };
  }
  const d = dateOf(item, value);
  return d ? { ok: true, date: d } : { ok: false, reason: `${describeBareItem(item[0])}, not a Date` };
}

/** An RFC 9745 structured date (`@1688169599`), parameters allowed, as epoch ms. */
export function parseStructuredDate(value: string): number | undefined {
  const r = parseStructuredDateItem(value);
  return r.ok ? r.date.ms : undefined;
}

export type SunsetForm = 'date-time' | 'http-date' | 'invalid';
export type DeprecationForm = 'structured-date' | 'http-date' | 'other';

export function classifySunset(value: string): { form: SunsetForm; ms?: number } {
  const v = value.trim();
  const dt = parseDocumentDateTime(v);
  if (dt !== undefined) return { form: 'date-time', ms: dt };
  const hd = parseHttpDate(v);
  if (hd !== undefined) return { form: 'http-date', ms: hd };
  return { form: 'invalid' };
}

/** The form of a Deprecation value; `reason` says why it is not a structured date. */
export function classifyDeprecation(value: string): { form: DeprecationForm; ms?: number; reason?: string } {
  const sd = parseStructuredDateItem(value);
  if (sd.ok) return { form: 'structured-date', ms: sd.date.ms };
  const hd = parseHttpDate(value.trim());
  if (hd !== undefined) return { form: 'http-date', ms: hd };
  return { form: 'other', reason: sd.reason };
}

/** An instant for a message: ISO 8601 when a JS Date can hold it. */
function instant(ms: number): string {
  return Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : `${ms / 1000} s after the epoch`;
}

interface Assessment {
  requirement: LifecycleRequirement;
  held: boolean;
  /** When not held: the evidence. */
  message: string;
  expected: string;
  received: string;
}

const SUNSET_EXAMPLE = 'a date-time such as 2027-06-30T23:59:59Z';

/** Judges the lifecycle headers of one answer; a header that is absent is not judged. */
function assess(sunset: string | undefined, deprecation: string | undefined): Assessment[] {
  const out: Assessment[] = [];
  const judge = (
    requirement: LifecycleRequirement,
    ok: boolean,
    evidence: Omit<Assessment, 'requirement' | 'held'>,
  ) => out.push({ requirement, held: ok, ...evidence });
  let sunsetMs: number | undefined;
  let deprecationMs: number | undefined;
  if (sunset !== undefined) {
    const s = classifySunset(sunset);
    sunsetMs = s.ms;
    judge('sunset-date-time', s.form !== 'invalid', {
      message: 'the Sunset header is not a date',
      expected: `Sunset: ${SUNSET_EXAMPLE} (interface.md §4.1) or an IMF-fixdate such as Wed, 30 Jun 2027 23:59:59 GMT (RFC 8594 §3)`,
      received: `Sunset: ${sunset}`,
    });
    if (s.form !== 'invalid') {
      judge('sunset-document-format', s.form === 'date-time', {
        message: 'the Sunset header is an HTTP-date, not the date-time the document declares',
        expected: `Sunset: ${SUNSET_EXAMPLE} (interface.md §4.1, format date-time)`,
        received: `Sunset: ${sunset}`,
      });
    }
  }
  if (deprecation !== undefined) {
    const d = classifyDeprecation(deprecation);
    deprecationMs = d.ms;
    judge('deprecation-structured-date', d.form === 'structured-date', {
      message:
        d.form === 'http-date'
          ? 'the Deprecation header is an HTTP-date (the form of the drafts before RFC 9745), not a structured date'
          : `the Deprecation header is not an RFC 9745 structured date (${d.reason ?? 'unparsable'})`,
      expected: 'Deprecation: an RFC 9651 Date, @<seconds since the epoch>, e.g. @1688169599 (RFC 9745 §2.1)',
      received: `Deprecation: ${deprecation}`,
    });
  }
  if (sunsetMs !== undefined && deprecationMs !== undefined) {
    judge('sunset-not-before-deprecation', sunsetMs >= deprecationMs, {
      message: `the Sunset date ${instant(sunsetMs)} is earlier than the Deprecation date ${instant(deprecationMs)}`,
      expected: `Sunset not earlier than ${instant(deprecationMs)}, the Deprecation date (RFC 9745 §4)`,
      received: `Deprecation: ${deprecation}; Sunset: ${sunset}`,
    });
  }
  return out;
}

/** A response header by name in any case (an Exchange keeps them in lower case). */
function responseHeader(headers: Record<string, string>, name: string): string | undefined {
  const lower = name.toLowerCase();
  if (Object.hasOwn(headers, lower)) return headers[lower];
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

export const LIFECYCLE_HEADERS_ORACLE: ExchangeOracle = {
  id: 'lifecycle-headers',
  kind: 'exchange',
  requirements: LIFECYCLE_REQUIREMENTS,
  unexercised: {
    'sunset-date-time': 'no answer carried a Sunset header',
    'sunset-document-format': 'no answer carried a Sunset header holding a date',
    'deprecation-structured-date': 'no answer carried a Deprecation header',
    'sunset-not-before-deprecation': 'no answer carried both a Deprecation and a Sunset header holding dates',
  },
  judge({ exchange, route }): Judgement[] {
    if (route === undefined || !isAnswered(exchange)) return [];
    const where = `${route.operation.method} ${route.operation.path} (${exchange.status})`;
    return assess(
      responseHeader(exchange.headers, 'sunset'),
      responseHeader(exchange.headers, 'deprecation'),
    ).map((a) =>
      a.held
        ? held(a.requirement)
        : violated({
            requirement: a.requirement,
            exchange,
            message: `${where}: ${a.message}`,
            expected: a.expected,
            received: a.received,
          }),
    );
  },
};
