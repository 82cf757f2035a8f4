/**
 * The listed collection operations exist (interface.md §4.3): each is sent with the valid token,
 * and must be routed. Their answers are judged by the oracles too (media type, lifecycle headers).
 */
import { describeResponse } from '../exchange/describe.ts';
import { type Probe, runCases } from '../engine/probe-api.ts';
import { family } from './family.ts';
import { spec } from '../spec/index.ts';
import { describeOperation } from './operations.ts';
import { operationIds } from '../spec/operations.ts';

const NOT_ROUTED = new Set([404, 405, 501]);

export const collectionsRouted: Probe = {
  id: 'collections-routed',
  title: 'GET /api/v1/bills, /mandates and /direct-debit with a valid token: not 404, 405 or 501',
  requirements: ['collection-routed', 'response-json-media-type'],
  judges: ['collection-routed'],
  operations: operationIds({ action: 'list' }),
  group: 'routing',
  access: 'read',
  async run(ctx) {
    const collections = spec()
      .operations()
      .filter((op) => op.method === 'GET' && op.pathParams.length === 0);
    // Independent reads: sent together.
    await runCases(ctx, collections, {
      async probe(op) {
        const ex = await ctx.http.send({ method: 'GET', path: op.path });
        if (!NOT_ROUTED.has(ex.status)) {
          ctx.held('collection-routed');
          return undefined;
        }
        return {
          requirement: 'collection-routed',
          exchange: ex,
          message: `${describeOperation(op)} is listed in interface.md §4.3 but answered ${ex.status}`,
          expected: 'a routed operation: not 404, 405 or 501',
          received: describeResponse(ex),
        };
      },
    });
    ctx.note(`collection operations: ${collections.map(describeOperation).join(', ')}`);
  },
};

export const ROUTING_PROBES = family(import.meta.url, [collectionsRouted]);
