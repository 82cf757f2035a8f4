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
  {
    id: 'patch-media-type-parameters-not-stored',
    fault:
      'A PATCH whose Content-Type carries parameters ("application/json; charset=utf-8") is answered 200 with the update applied, but goes down a path that never stores it: a GET returns the old data.',
    // Seen only by a read after that PATCH or by the answer to the PATCH after it, which shows
    // the fields of the lost one as they were: each form is confirmed, not only the last.
    trips: ['patch-persisted'],
    create: () =>
      new (class extends ReferenceServer {
        protected override async patchCounterparty(ctx: RequestContext): Promise<void> {
          // What was stored before, put back once this PATCH is answered: decided per request,
          // so no other request's save is affected.
          const reference = ctx.params.counterpartyReference!;
          const stored = this.counterparties.get(reference);
          await super.patchCounterparty(ctx);
          if (stored !== undefined && (ctx.req.headers['content-type'] ?? '').includes(';'))
            this.counterparties.set(reference, stored);
        }
      })(),
  },
];
