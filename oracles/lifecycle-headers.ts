/**
 * Deprecation and Sunset response headers (interface.md §4.1, §9; RFC 9745; RFC 8594),
 * checked on every counterparty response that carries them.
 */
import { spec } from '../spec/index.ts';
import type { RequirementId } from '../spec/requirements.ts';
import type { Exchange } from '../exchange/exchange.ts';

/** Where the findings of the old-style checker go (until the oracle replaces it). */
interface ViolationSink {
  failOn(
    exchange: Exchange,
    finding: { requirement: RequirementId; message: string; expected: string; received: string },
  ): void;
}

/** The requirements of the Deprecation and Sunset headers, wherever they are sent. */
export const LIFECYCLE_REQUIREMENTS = [
  'sunset-date-time',
  'sunset-document-format',
  'sunset-not-before-deprecation',
  'deprecation-structured-date',
] as const satisfies readonly RequirementId[];

const IMF_FIXDATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/;

/** An RFC 9110 HTTP-date in its preferred IMF-fixdate form, as epoch milliseconds. */
export function parseHttpDate(value: string): number | undefined {
  if (!IMF_FIXDATE.test(value)) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return undefined;
  // Date.parse rolls over impossible days (31 Feb); require the round trip.
  return new Date(ms).toUTCString() === value ? ms : undefined;
}

/** An RFC 3339 date-time as the spec's Sunset header schema declares it, as epoch ms. */
export function parseDocumentDateTime(value: string): number | undefined {
  if (spec().errors('header:Sunset', value).length > 0) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/** An RFC 9745 structured date (`@1688169599`), as epoch ms. */
export function parseStructuredDate(value: string): number | undefined {
  const m = /^@(-?\d{1,15})$/.exec(value.trim());
  return m ? Number(m[1]) * 1000 : undefined;
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

export function classifyDeprecation(value: string): { form: DeprecationForm; ms?: number } {
  const sd = parseStructuredDate(value);
  if (sd !== undefined) return { form: 'structured-date', ms: sd };
  const hd = parseHttpDate(value.trim());
  if (hd !== undefined) return { form: 'http-date', ms: hd };
  return { form: 'other' };
}

/** Checks the lifecycle headers of one response; returns whether any was present. */
export function checkLifecycleHeaders(ctx: ViolationSink, ex: Exchange, where: string): boolean {
  const sunset = ex.headers['sunset'];
  const deprecation = ex.headers['deprecation'];
  let sunsetMs: number | undefined;
  let deprecationMs: number | undefined;
  if (sunset !== undefined) {
    const s = classifySunset(sunset);
    sunsetMs = s.ms;
    if (s.form === 'invalid') {
      ctx.failOn(ex, {
        requirement: 'sunset-date-time',
        message: `${where}: the Sunset header is not a date`,
        expected: 'Sunset: a date-time such as 2027-06-30T23:59:59Z (interface.md §4.1)',
        received: `Sunset: ${sunset}`,
      });
    } else if (s.form === 'http-date') {
      ctx.failOn(ex, {
        requirement: 'sunset-document-format',
        message: `${where}: the Sunset header is an HTTP-date, not the date-time the document declares`,
        expected: 'Sunset: a date-time such as 2027-06-30T23:59:59Z',
        received: `Sunset: ${sunset}`,
      });
    }
  }
  if (deprecation !== undefined) {
    const d = classifyDeprecation(deprecation);
    deprecationMs = d.ms;
    if (d.form !== 'structured-date') {
      ctx.failOn(ex, {
        requirement: 'deprecation-structured-date',
        message: `${where}: the Deprecation header is not an RFC 9745 structured date`,
        expected: 'Deprecation: @<seconds since the epoch>, e.g. @1688169599',
        received: `Deprecation: ${deprecation}`,
      });
    }
  }
  if (sunsetMs !== undefined && deprecationMs !== undefined && sunsetMs < deprecationMs) {
    ctx.failOn(ex, {
      requirement: 'sunset-not-before-deprecation',
      message: `${where}: Sunset is earlier than Deprecation`,
      expected: `Sunset not earlier than ${new Date(deprecationMs).toISOString()} (the Deprecation date)`,
      received: `Deprecation: ${deprecation}; Sunset: ${sunset}`,
    });
  }
  return sunset !== undefined || deprecation !== undefined;
}
