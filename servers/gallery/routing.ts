/** Faults of the other listed operations (interface.md §4.3) and of server errors (§7). */
import type { Operation } from '../../spec/index.ts';
import type { ServerResponse } from 'node:http';
import { ReferenceServer, type PathMatch, type RequestContext } from '../reference.ts';
import type { Variant } from './types.ts';
import { operationIdOf } from '../../spec/operations.ts';

export const ROUTING_VARIANTS: Variant[] = [
  {
    id: 'method-not-allowed-without-allow',
    fault:
      'A method the path does not have is answered 405 without an Allow field (the methods are listed only in the error message).',
    trips: ['method-not-allowed-allow'],
    create: () =>
      new (class extends ReferenceServer {
        protected override methodNotAllowed(res: ServerResponse, method: string, match: PathMatch): void {
          this.sendError(res, 405, 'METHOD_NOT_ALLOWED', `${method} is not allowed on ${match.template}.`);
        }
      })(),
  },
  {
    id: 'undocumented-method-500',
    fault:
      'A method the path does not have is looked up among the handlers once the token is accepted: OPTIONS with the token is answered 500 (without it, 401 as it should).',
    trips: ['no-server-error'],
    create: () =>
      new (class extends ReferenceServer {
        protected override methodNotAllowed(_res: ServerResponse, method: string, _match: PathMatch): void {
          throw new Error(`no handler for ${method}`);
        }
      })(),
  },
  /** The mandate list crashes on an empty store (500). */
  {
    id: 'mandates-list-500',
    fault: 'GET /api/v1/mandates throws on an empty store and is answered 500.',
    trips: ['no-server-error'],
    create: () =>
      new (class extends ReferenceServer {
        protected override listMandates(): void {
          throw new TypeError("Cannot read properties of undefined (reading 'map')");
        }
      })(),
  },
  /** The collection list is routed only with a cursor: without a query it is answered 404. */
  {
    id: 'direct-debit-list-404',
    fault:
      'GET /api/v1/direct-debit without a cursor answers 404, as if the route existed only for the next page.',
    trips: ['collection-routed'],
    create: () =>
      new (class extends ReferenceServer {
        protected override listDirectDebits(ctx: RequestContext): void {
          if (new URL(ctx.req.url ?? '/', 'http://localhost').searchParams.has('cursor'))
            return super.listDirectDebits(ctx);
          this.sendError(ctx.res, 404, 'NOT_FOUND', 'No such route.');
        }
      })(),
  },
  /** GET /api/v1/bills is not registered (only POST is), so it is answered 405. */
  {
    id: 'bills-list-405',
    fault: 'GET /api/v1/bills is not routed (only POST is), so it is answered 405.',
    // Its 405 names POST alone in Allow, while the document lists GET on the path too.
    trips: ['collection-routed', 'method-not-allowed-allow'],
    create: () =>
      new (class extends ReferenceServer {
        protected override operations(): Operation[] {
          return super.operations().filter((op) => op.operationId !== operationIdOf('bill', 'list'));
        }
      })(),
  },
  /** GET /api/v1/bills is a stub answering 501 Not Implemented (a 5xx too). */
  {
    id: 'bills-list-501',
    fault: 'GET /api/v1/bills is a stub answering 501 Not Implemented.',
    trips: ['collection-routed', 'no-server-error'],
    create: () =>
      new (class extends ReferenceServer {
        protected override listBills(ctx: RequestContext): void {
          this.sendError(ctx.res, 501, 'NOT_IMPLEMENTED', 'Bill search is not implemented yet.');
        }
      })(),
  },
];
