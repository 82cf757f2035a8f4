/** The listed collection operations exist (interface.md §4.3). */
import { spec } from '../spec/index.ts';
import { describeResponse } from '../transport/client.ts';
import { describeOperation } from './operations.ts';
import type { Check } from '../engine/types.ts';

const NOT_ROUTED = new Set([404, 405, 501]);

export const collectionsRouted: Check = {
  id: 'collections-routed',
  title: 'GET /api/v1/bills, /mandates and /direct-debit are routed: not 404, 405 or 501 with a valid token',
  requirements: ['collection-routed'],
  group: 'routing',
  access: 'read',
  async run(ctx) {
    const collections = spec()
      .operations()
      .filter((op) => op.method === 'GET' && op.pathParams.length === 0);
    for (const op of collections) {
      const ex = await ctx.http.send({ method: 'GET', path: op.path });
      if (NOT_ROUTED.has(ex.status)) {
        ctx.failOn(ex, {
          requirement: 'collection-routed',
          message: `${describeOperation(op)} is listed in interface.md §4.3 but answered ${ex.status}`,
          expected: 'a routed operation: not 404, 405 or 501',
          received: describeResponse(ex),
        });
      }
    }
    ctx.note(`collection operations: ${collections.map(describeOperation).join(', ')}`);
  },
};

export const ROUTING_CHECKS: Check[] = [collectionsRouted];
