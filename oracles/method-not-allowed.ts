/**
 * Oracle 'method-not-allowed': a 405 to a path of the document names, in Allow, the methods the
 * document lists on that path.
 *
 * Requirement: method-not-allowed-allow (MUST).
 *
 * Rests on:
 * - RFC 9110 §15.5.6: "The origin server MUST generate an Allow header field in a 405 response
 *   containing a list of the target resource's currently supported methods."
 * - RFC 9110 §5.6.1: "a sender MUST NOT generate empty list elements".
 * - interface.md §4: the methods listed on each path (a 405 from such a path says the method is
 *   not one of them, so the methods that are supported include the listed ones).
 *
 * Applies to: every 405 whose URL is a path of the document (the documented methods of the path
 * found by routing each method). Allow must be present, a list of methods (tokens) without empty
 * elements, and hold every method the document lists on the path; more methods are fine (HEAD,
 * OPTIONS, methods of its own). A 405 to a path outside the document is left alone.
 */
import { matchRoute } from '../exchange/route.ts';
import type { RequirementId } from '../spec/requirements.ts';
import { spec } from '../spec/index.ts';
import { held, violated, type ExchangeOracle, type Judgement } from './types.ts';

const REQUIREMENT: RequirementId = 'method-not-allowed-allow';

/** RFC 9110 §5.6.2 token: a method name. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function header(headers: Record<string, string>, name: string): string | undefined {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return undefined;
}

/** The methods the document lists on the path of `url` (none: not a path of the document). */
export function documentedMethods(url: string): string[] {
  const methods = [
    ...new Set(
      spec()
        .operations()
        .map((op) => op.method),
    ),
  ];
  return methods.filter((m) => matchRoute(m, url)?.kind === 'operation');
}

export const METHOD_NOT_ALLOWED_ORACLE: ExchangeOracle = {
  id: 'method-not-allowed',
  kind: 'exchange',
  requirements: [REQUIREMENT],
  unexercised: { [REQUIREMENT]: 'no path of the document was answered 405' },
  judge({ exchange, inInterface }): Judgement[] {
    if (!inInterface || exchange.status !== 405) return [];
    const documented = documentedMethods(exchange.request.url);
    if (documented.length === 0) return [];
    const where = `${exchange.request.method} ${exchange.request.url} (405)`;
    const expected = `Allow naming at least ${documented.join(', ')}, as a list of methods without empty elements (RFC 9110 §15.5.6, §5.6.1)`;
    const allow = header(exchange.headers, 'allow');
    if (allow === undefined) {
      return [
        violated({
          requirement: REQUIREMENT,
          exchange,
          message: `${where}: a 405 without an Allow field`,
          expected,
          received: 'no Allow field',
        }),
      ];
    }
    const elements = allow.split(',').map((e) => e.trim());
    const malformed = allow.trim() !== '' && elements.some((e) => !TOKEN.test(e));
    const missing = documented.filter((m) => !elements.includes(m));
    if (!malformed && missing.length === 0) return [held(REQUIREMENT)];
    return [
      violated({
        requirement: REQUIREMENT,
        exchange,
        message: malformed
          ? `${where}: Allow is not a list of methods`
          : `${where}: Allow leaves out ${missing.join(', ')}, which the document lists on this path`,
        expected,
        received: `Allow: ${allow}`,
      }),
    ];
  },
};
