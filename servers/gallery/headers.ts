/** Faults of the Deprecation and Sunset headers (interface.md §4.1, §9; RFC 9745; RFC 8594). */
import type { Operation } from '../../spec/index.ts';
import { DEPRECATION_HEADER, ReferenceServer, SUNSET_HEADER, formatUtcSeconds } from '../reference.ts';
import type { Variant } from './types.ts';

/** The reference Deprecation date, in seconds since the epoch. */
export const DEPRECATION_SECONDS = Number(DEPRECATION_HEADER.slice(1));

/** A server that sends these lifecycle headers instead of the reference ones. */
function lifecycle(headers: { Deprecation?: string; Sunset?: string }): () => ReferenceServer {
  return () =>
    new (class extends ReferenceServer {
      protected override lifecycleHeaders(): Record<string, string> {
        return { ...super.lifecycleHeaders(), ...headers };
      }
    })();
}

export const HEADER_VARIANTS: Variant[] = [
  /** Sunset carries a word instead of a date. */
  {
    id: 'sunset-not-a-date',
    fault: "The Sunset header is 'soon', not a date.",
    trips: ['sunset-date-time'],
    create: lifecycle({ Sunset: 'soon' }),
  },
  /** The two dates are swapped: Sunset (end of 2025) is earlier than Deprecation (mid 2027). */
  {
    id: 'sunset-before-deprecation',
    fault: 'The Deprecation and Sunset dates are swapped, so Sunset is earlier than Deprecation.',
    trips: ['sunset-not-before-deprecation'],
    create: lifecycle({
      Deprecation: `@${Date.parse(SUNSET_HEADER) / 1000}`,
      Sunset: formatUtcSeconds(new Date(DEPRECATION_SECONDS * 1000)),
    }),
  },
  /** Deprecation uses the boolean form of an early draft. */
  {
    id: 'deprecation-true',
    fault: "The Deprecation header is 'true' (an early draft's form), not an RFC 9745 structured date.",
    trips: ['deprecation-structured-date'],
    create: lifecycle({ Deprecation: 'true' }),
  },
  /** Sunset is an RFC 8594 HTTP-date rather than the date-time the document declares (SHOULD only). */
  {
    id: 'sunset-http-date',
    fault:
      'The Sunset header is an HTTP-date (Wed, 30 Jun 2027 23:59:59 GMT), not the date-time form the document declares.',
    trips: ['sunset-document-format'],
    create: lifecycle({ Sunset: new Date(SUNSET_HEADER).toUTCString() }),
  },
  /** Deprecation carries epoch milliseconds, which read as seconds put it far after Sunset. */
  {
    id: 'deprecation-milliseconds',
    fault: 'The Deprecation header carries epoch milliseconds (@1767225599000), a date far after Sunset.',
    trips: ['sunset-not-before-deprecation'],
    create: lifecycle({ Deprecation: `@${DEPRECATION_SECONDS * 1000}` }),
  },
  /** PATCH answers with lifecycle headers of their own: no Deprecation, and a later Sunset. */
  {
    id: 'patch-lifecycle-headers-own',
    fault:
      'A PATCH is answered without the Deprecation header and with a Sunset a year later than the one GET sends.',
    trips: ['patch-lifecycle-headers-as-get'],
    create: () =>
      new (class extends ReferenceServer {
        protected override lifecycleHeaders(operation?: Operation): Record<string, string> {
          if (operation?.method !== 'PATCH') return super.lifecycleHeaders(operation);
          const later = new Date(SUNSET_HEADER);
          later.setUTCFullYear(later.getUTCFullYear() + 1);
          return { Sunset: later.toISOString().replace('.000Z', 'Z') };
        }
      })(),
  },
];
