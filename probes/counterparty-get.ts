/**
 * GET /api/v1/counterparties/{ref} of the configured, existing counterparty (interface.md §4.1).
 * The probe judges that it exists (200); what the answer must be (a counterparty, its schema,
 * the reference asked for, lifecycle headers, JSON) is judged by the oracles, as on every other
 * answer. It reads twice, so that what must not change between two reads is judged too.
 */
import { describeResponse } from '../exchange/describe.ts';
import { counterpartyPath } from '../exchange/paths.ts';
import { COUNTERPARTY_RESPONSE_REQUIREMENTS } from '../oracles/counterparty-response.ts';
import { LIFECYCLE_REQUIREMENTS } from '../oracles/lifecycle-headers.ts';
import { type Probe, runCases } from '../engine/probe-api.ts';
import { family } from './family.ts';
import { operationIds } from '../spec/operations.ts';

export const knownCounterparty: Probe = {
  id: 'known-counterparty',
  title: 'GET of the known counterparty, twice: it exists and answers 200',
  requirements: [
    'get-known-counterparty-200',
    ...COUNTERPARTY_RESPONSE_REQUIREMENTS,
    ...LIFECYCLE_REQUIREMENTS,
    'immutable-fields-stable',
    'json-well-formed',
  ],
  judges: ['get-known-counterparty-200'],
  operations: operationIds({ resource: 'counterparty', action: 'read' }),
  group: 'counterparty-get',
  access: 'read',
  async run(ctx) {
    const ref = ctx.target.counterpartyRef;
    // Two reads with no PATCH between: they may go together, the judge pairs them either way.
    await runCases(ctx, ['first read', 'second read'], {
      async probe(role) {
        const ex = await ctx.http.send({ method: 'GET', path: counterpartyPath(ref), role });
        if (ex.status === 200) {
          ctx.held('get-known-counterparty-200');
          return undefined;
        }
        return {
          requirement: 'get-known-counterparty-200',
          exchange: ex,
          message: `GET of the known counterparty ${ref} did not answer 200`,
          expected: '200 with the counterparty (COUNTERPARTY_REF names an existing counterparty)',
          received: describeResponse(ex),
        };
      },
      // Both reads are the same request, sent twice on purpose: never merged.
      schedule: { key: (role) => role },
    });
  },
};

export const COUNTERPARTY_GET_PROBES = family(import.meta.url, [knownCounterparty]);
