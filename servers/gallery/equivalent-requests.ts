/**
 * Requests HTTP and JSON make one with a valid one, refused (RFC 9110 §8.3.1, RFC 8259): the
 * kind of fault a hand-written check of the raw request gives. Caught by the
 * patch-equivalent-forms probe, which sends each form the request model enumerates.
 */
import { ReferenceServer, type RequestContext } from '../reference.ts';
import type { Variant } from './types.ts';

export const EQUIVALENT_REQUEST_VARIANTS: Variant[] = [
  {
    id: 'patch-media-type-exact-415',
    fault:
      'PATCH counterparty compares Content-Type with "application/json" as a string: "application/json; charset=utf-8" or "Application/JSON" is answered 415.',
    trips: ['patch-equivalent-accepted'],
    create: () =>
      new (class extends ReferenceServer {
        protected override async patchCounterparty(ctx: RequestContext): Promise<void> {
          if (ctx.req.headers['content-type'] !== 'application/json')
            return this.sendError(ctx.res, 415, 'UNSUPPORTED_MEDIA_TYPE', 'Send application/json.');
          return super.patchCounterparty(ctx);
        }
      })(),
  },
];
