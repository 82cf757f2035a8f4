/**
 * An accepted PATCH carries the lifecycle headers of 4.1. Requirement:
 * patch-lifecycle-headers-as-get.
 *
 * Rests on interface.md §4.2: "Success response: the updated counterparty object as in 2.1, with
 * the same `Deprecation` and `Sunset` headers as 4.1."
 *
 * Applies to every PATCH of a counterparty answered 2xx with a successful read of the same
 * counterparty before or after it: for each of Deprecation and Sunset, the PATCH answer and a read
 * agree (both absent, or both present with the same instant; a value that is not a date is
 * compared as text). It holds when either read agrees, so an operation marked retired between two
 * requests is no violation. Whether each header is well-formed is lifecycle-headers' business.
 */
import type { Exchange } from '../exchange/exchange.ts';
import { is2xx } from '../exchange/exchange.ts';
import { classifyDeprecation, classifySunset } from './lifecycle-headers.ts';
import { held, violated, type PatchOracle } from './types.ts';

const HEADERS = [
  { name: 'Deprecation', key: 'deprecation', instant: (v: string) => classifyDeprecation(v).ms },
  { name: 'Sunset', key: 'sunset', instant: (v: string) => classifySunset(v).ms },
] as const;

/** What a header says, for comparing: absent, the instant of its date, or its text. */
function meaning(ex: Exchange, header: (typeof HEADERS)[number]): string {
  const value = ex.headers[header.key]?.trim();
  if (value === undefined) return 'absent';
  const ms = header.instant(value);
  return ms === undefined ? `text ${value}` : `instant ${ms}`;
}

const shown = (ex: Exchange): string =>
  HEADERS.map((h) => `${h.name}: ${ex.headers[h.key] ?? '(absent)'}`).join(', ');

/** The headers whose meaning differs between two answers. */
function differing(a: Exchange, b: Exchange): string[] {
  return HEADERS.filter((h) => meaning(a, h) !== meaning(b, h)).map((h) => h.name);
}

export const PATCH_LIFECYCLE_HEADERS_ORACLE: PatchOracle = {
  id: 'patch-lifecycle-headers',
  kind: 'patch',
  requirements: ['patch-lifecycle-headers-as-get'],
  unexercised: {
    'patch-lifecycle-headers-as-get': 'no accepted PATCH had a successful read of the counterparty around it',
  },
  judge({ before, patch, after }) {
    if (!is2xx(patch.status)) return [];
    const reads = [before, after].filter((r): r is Exchange => r !== undefined && is2xx(r.status));
    if (reads.length === 0) return [];
    if (reads.some((r) => differing(patch, r).length === 0)) return [held('patch-lifecycle-headers-as-get')];
    const read = reads[0]!;
    return [
      violated({
        requirement: 'patch-lifecycle-headers-as-get',
        exchange: patch,
        message: `the accepted PATCH answered with other ${differing(patch, read).join(' and ')} headers than the GET of the same counterparty`,
        expected: `the Deprecation and Sunset of GET (§4.2 "the same headers as 4.1"): ${shown(read)}`,
        received: shown(patch),
        context: reads,
      }),
    ];
  },
};
