/**
 * The operations of interface.md §4.3 other than the counterparty's: bills, mandates and direct
 * debit. Reads (any mode, GET only): the documented filters and pagination values of GET
 * /api/v1/bills, the mandate and collection lists without a query, item references breaking the
 * 1.3.0 patterns, and invented well-formed ones. Writes (write mode only): bodies no operation can
 * accept (empty, not JSON, a JSON scalar, very large) to every listed POST and PATCH, item
 * operations at invented references. Nothing is ever deleted, and no body that could be valid (a
 * JSON object or array) is sent.
 *
 * Each probe judges only what needs its plan ("this filter value is documented, so it must not
 * be 400"); what the request itself shows (a reference breaking its pattern, a body that is not
 * JSON: not 2xx), 5xx, media types and the lifecycle headers of every answer are the oracles'
 * business (the request model's rules, oracles/request-path.ts and request-body.ts). Every
 * finite class is sent in full as explicit cases; a few random cases of the run's seed explore on
 * top.
 */
import type { Arbitrary } from 'fast-check';
import { describeResponse } from '../exchange/describe.ts';
import { is2xx, type Exchange } from '../exchange/exchange.ts';
import { fillPath } from '../exchange/paths.ts';
import { type Probe, type ProbeContext, requestKey, runCases, runProperty } from '../engine/probe-api.ts';
import { family } from './family.ts';
import {
  badBody,
  badBodyExamples,
  billFilterExamples,
  billFilterQuery,
  invalidItemReference,
  invalidItemReferenceExamples,
  ITEM_RESOURCES,
  paginationExamples,
  paginationQuery,
  queryString,
  unknownItemReference,
  unknownItemReferenceExamples,
  type ItemResource,
  type Query,
} from '../generators/other-operations.ts';
import type { Labelled } from '../generators/labelled.ts';
import type { Violation } from '../oracles/types.ts';
import { operationOf, operationsWhere, registered } from '../spec/operations.ts';
import type { RequirementId } from '../spec/requirements.ts';
import type { HttpRequest } from '../transport/client.ts';
import { describeOperation } from './operations.ts';

/** Random cases per property on top of the explicit ones: a few, so a run stays modest. */
const RANDOM_READS = 10;
const RANDOM_BODIES = 4;

/** The list of bills, whose filters and pagination the document names. */
const BILL_LIST = operationOf('bill', 'list');
/** The other lists (mandates, collections), whose filters it does not name. */
const OTHER_LISTS = operationsWhere({ action: 'list' }).filter((op) => op !== BILL_LIST);

/**
 * A GET of these lists and items. Every case of the read probes here is an independent read, so
 * they go concurrently (engine/property.ts), each request once.
 */
const get = (path: string): HttpRequest => ({ method: 'GET', path });

function randomRuns(ctx: ProbeContext, most: number): number {
  return Math.min(ctx.target.runs, most);
}

/** A 400 to a query the document allows is a violation; any other answer holds. */
function judged400(
  ctx: ProbeContext,
  ex: Exchange,
  requirement: RequirementId,
  query: Query,
  why: string,
): Violation | undefined {
  if (ex.status !== 400) {
    ctx.held(requirement);
    return undefined;
  }
  return {
    requirement,
    exchange: ex,
    message: `GET ${BILL_LIST.path}${queryString(query)} was answered 400`,
    expected: `not 400: ${why}`,
    received: describeResponse(ex),
  };
}

/**
 * GET /api/v1/bills with each generated query, concurrently (each query a request of its own, sent
 * once): a query the document names must not be answered 400 (`requirement`, `why`).
 */
async function billListQueries(
  ctx: ProbeContext,
  q: {
    name: string;
    arbitrary: Arbitrary<Labelled<Query>>;
    examples: Labelled<Query>[];
    requirement: RequirementId;
    why: string;
  },
): Promise<void> {
  const path = BILL_LIST.path;
  await runProperty(ctx, {
    name: q.name,
    arbitrary: q.arbitrary,
    examples: q.examples,
    runs: randomRuns(ctx, RANDOM_READS),
    concurrent: { key: (input) => requestKey(get(path + queryString(input.value))) },
    async probe(input) {
      const ex = await ctx.http.send(get(path + queryString(input.value)));
      return judged400(ctx, ex, q.requirement, input.value, q.why);
    },
  });
}

export const billListFilters: Probe = {
  id: 'bill-list-filters',
  title: 'GET /api/v1/bills with every documented filter value, alone and combined: not 400',
  requirements: ['bill-list-filters-accepted', 'no-server-error'],
  judges: ['bill-list-filters-accepted'],
  operations: [BILL_LIST.operationId],
  group: 'other-operations',
  access: 'read',
  async run(ctx) {
    await billListQueries(ctx, {
      name: 'bill list filters',
      arbitrary: billFilterQuery(ctx.target.counterpartyRef),
      examples: billFilterExamples(ctx.target.counterpartyRef),
      requirement: 'bill-list-filters-accepted',
      why: 'interface.md §4.3 names these filters, §3 these statuses',
    });
    ctx.note(
      'type, cashflowType and the due-date range are not sent: the document names no value or parameter for them',
    );
  },
};

export const billListPagination: Probe = {
  id: 'bill-list-pagination',
  title: 'GET /api/v1/bills with page and pageSize from their minimum 0: not 400',
  requirements: ['bill-list-pagination-zero-accepted', 'no-server-error'],
  judges: ['bill-list-pagination-zero-accepted'],
  operations: [BILL_LIST.operationId],
  group: 'other-operations',
  access: 'read',
  async run(ctx) {
    await billListQueries(ctx, {
      name: 'bill list pagination',
      arbitrary: paginationQuery(),
      examples: paginationExamples(),
      requirement: 'bill-list-pagination-zero-accepted',
      why: 'interface.md §8: page and page size have a minimum of 0',
    });
  },
};

export const listsWithoutQuery: Probe = {
  id: 'lists-without-query',
  title: 'GET /api/v1/mandates and /api/v1/direct-debit without a query: not 400',
  requirements: ['list-without-query-accepted', 'no-server-error'],
  judges: ['list-without-query-accepted'],
  operations: OTHER_LISTS.map((op) => op.operationId).sort(),
  group: 'other-operations',
  access: 'read',
  async run(ctx) {
    await runCases(ctx, OTHER_LISTS, {
      async probe(op) {
        const ex = await ctx.http.send(get(op.path));
        if (ex.status !== 400) {
          ctx.held('list-without-query-accepted');
          return undefined;
        }
        return {
          requirement: 'list-without-query-accepted',
          exchange: ex,
          message: `${describeOperation(op)} without a query was answered 400`,
          expected:
            'not 400: the mandate filters are optional, and the first page of a cursor-based list has no cursor',
          received: describeResponse(ex),
        };
      },
    });
  },
};

function itemPath(resource: ItemResource, reference: string): string {
  return fillPath(registered(resource.operationId)!.path, { [resource.param]: reference });
}

export const invalidItemReferences: Probe = {
  id: 'invalid-item-references',
  title:
    'GET of a mandate and a collection by references breaking the 1.3.0 pattern (every forbidden character, very long): not 2xx',
  requirements: ['item-reference-pattern-not-success', 'no-server-error'],
  judges: [],
  operations: ITEM_RESOURCES.filter((r) => r.schema !== undefined)
    .map((r) => r.operationId)
    .sort(),
  group: 'other-operations',
  access: 'read',
  async run(ctx) {
    for (const resource of ITEM_RESOURCES.filter((r) => r.schema !== undefined)) {
      await runProperty(ctx, {
        name: `invalid ${resource.kind} reference`,
        arbitrary: invalidItemReference(resource),
        examples: invalidItemReferenceExamples(resource),
        runs: randomRuns(ctx, RANDOM_READS),
        concurrent: { key: (input) => requestKey(get(itemPath(resource, input.value))) },
        // Every reference sent breaks its pattern, a MUST the request model holds
        // (path-mandate-reference-pattern, path-collection-reference-pattern): the request-path
        // oracle judges the answer, whoever sent it, and the property shrinks on its verdict.
        async probe(input) {
          await ctx.http.send(get(itemPath(resource, input.value)));
          return undefined;
        },
      });
    }
    ctx.note(
      'bill references have no documented pattern: only invented ones are sent (unknown-item-references)',
    );
  },
};

export const unknownItemReferences: Probe = {
  id: 'unknown-item-references',
  title:
    'GET of a bill, a mandate and a collection by invented well-formed references (up to 4096 characters): never 2xx with a body for another reference',
  requirements: ['item-unknown-reference-not-another', 'no-server-error'],
  judges: ['item-unknown-reference-not-another'],
  operations: ITEM_RESOURCES.map((r) => r.operationId).sort(),
  group: 'other-operations',
  access: 'read',
  async run(ctx) {
    for (const resource of ITEM_RESOURCES) {
      await runProperty(ctx, {
        name: `unknown ${resource.kind} reference`,
        arbitrary: unknownItemReference(resource),
        examples: unknownItemReferenceExamples(resource, ctx.target.seed),
        runs: randomRuns(ctx, RANDOM_READS),
        concurrent: { key: (input) => requestKey(get(itemPath(resource, input.value))) },
        async probe(input) {
          const ex = await ctx.http.send(get(itemPath(resource, input.value)));
          if (!is2xx(ex.status) || ex.text === '' || ex.text.includes(input.value)) {
            ctx.held('item-unknown-reference-not-another');
            return undefined;
          }
          return {
            requirement: 'item-unknown-reference-not-another',
            exchange: ex,
            message: `GET of the invented ${resource.kind} ${resource.param} ${input.value.slice(0, 60)}${input.value.length > 60 ? '…' : ''} was answered ${ex.status} with a body that does not carry it`,
            expected: `no 2xx with a body for another ${resource.kind}: the reference was invented (interface.md §4.3)`,
            received: describeResponse(ex),
          };
        },
      });
    }
  },
};

/** The write operations of §4.3 that take a body, counterparties and DELETE aside. */
const BODY_OPERATIONS = operationsWhere({ item: true, content: true });

export const malformedWriteBodies: Probe = {
  id: 'malformed-write-bodies',
  title:
    'POST bills, PATCH a bill, POST a document, POST mandates and direct debits with bodies that are empty, not JSON, a JSON scalar or very large: not 2xx',
  requirements: ['write-body-malformed-not-success', 'no-server-error'],
  judges: [],
  operations: BODY_OPERATIONS.map((op) => op.operationId).sort(),
  group: 'other-operations',
  access: 'write',
  elsewhere: true,
  async run(ctx) {
    const bill = `conformance-unknown-bill-${(ctx.target.seed >>> 0).toString(36)}`;
    for (const op of BODY_OPERATIONS) {
      const path = fillPath(op.path, { uniqueReferenceIdentifier: bill });
      const request = (body: { text: string; contentType: string }): HttpRequest => ({
        method: op.method,
        path,
        rawBody: body.text,
        headers: { 'Content-Type': body.contentType },
      });
      await runProperty(ctx, {
        name: `malformed body (${describeOperation(op)})`,
        arbitrary: badBody(),
        examples: badBodyExamples(),
        runs: randomRuns(ctx, RANDOM_BODIES),
        // Every body is refused on a conforming target, and goes to an invented bill or a
        // collection: the cases change nothing another reads, so they go concurrently.
        concurrent: { key: (input) => requestKey(request(input.value)) },
        // Every body sent breaks a MUST the request model holds (body-required,
        // body-json-well-formed, body-json-structured, body-document-media-type): the
        // request-body oracle judges the answer, whoever sent it, and the property shrinks on its
        // verdict.
        async probe(input) {
          await ctx.http.send(request(input.value));
          return undefined;
        },
      });
    }
    ctx.note(
      `item operations are sent to the invented bill ${bill}; nothing is deleted, and no JSON object or array is sent`,
    );
  },
};

export const OTHER_OPERATION_PROBES = family(import.meta.url, [
  billListFilters,
  billListPagination,
  listsWithoutQuery,
  invalidItemReferences,
  unknownItemReferences,
  malformedWriteBodies,
]);
