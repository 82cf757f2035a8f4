/**
 * OPTIONS, with the token, on every path of the document: a method the document lists on no path
 * (§4), and one HTTP defines as safe (RFC 9110 §9.2.1, §9.3.7), so it changes nothing on any
 * deployment. Whether a service answers it (200 with Allow, 204) or refuses it (405, 501) is open;
 * every answer goes to the oracles: no 5xx, a complete answer, and a 405 names the path's
 * documented methods in Allow (RFC 9110 §15.5.6). The other probes send methods the
 * document does not list only without credentials, where authentication answers first, so a
 * service that crashes once the token is right and the method is not one of the path's was never
 * asked.
 *
 * Item paths take the configured counterparty and invented, well-formed bill, mandate and
 * collection references.
 */
import { fillPath } from '../exchange/paths.ts';
import { type Probe, runCases } from '../engine/probe-api.ts';
import { family } from './family.ts';
import { spec } from '../spec/index.ts';

export const UNDOCUMENTED_METHOD = 'OPTIONS';

export const undocumentedMethods: Probe = {
  id: 'undocumented-methods',
  title: 'OPTIONS, with the token, on every documented path: answered, never 5xx, a 405 with Allow',
  requirements: ['no-server-error', 'request-answered', 'method-not-allowed-allow'],
  judges: [],
  group: 'routing',
  // OPTIONS is safe, but a read-only run sends nothing but GET: it goes with the writes that touch
  // no writable counterparty.
  access: 'write',
  elsewhere: true,
  operations: [],
  async run(ctx) {
    const tag = (ctx.target.seed >>> 0).toString(36);
    const values: Record<string, string> = {
      counterpartyReference: ctx.target.counterpartyRef,
      uniqueReferenceIdentifier: `conformance-unknown-bill-${tag}`,
      mandateReference: `conformance-unknown-mandate-${tag}`,
      collectionReference: `conformance-unknown-collection-${tag}`,
    };
    const paths = [
      ...new Set(
        spec()
          .operations()
          .map((op) => op.path),
      ),
    ];
    // Safe requests to paths no other case touches: sent together.
    await runCases(ctx, paths, {
      async probe(template) {
        await ctx.http.send({
          method: UNDOCUMENTED_METHOD,
          path: fillPath(template, values),
          role: `${UNDOCUMENTED_METHOD} with the token`,
        });
        return undefined;
      },
    });
    ctx.note(
      `${UNDOCUMENTED_METHOD} is sent with the token to ${paths.length} paths; the answer is judged by the oracles only`,
    );
  },
};

export const UNDOCUMENTED_METHOD_PROBES = family(import.meta.url, [undocumentedMethods]);
