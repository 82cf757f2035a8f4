/**
 * Faults of the operations §4.3 lists, on items that exist or that the run creates from the
 * bodies the deployment accepts (ITEM_FIXTURES): reading a bill, mandate or collection that
 * exists, creating one, updating a bill, linking a document to it, cancelling an active mandate.
 * Proven by probes/items.ts; these are the blind spots mutation testing of the reference server
 * showed (mutation/triage.yaml), each written as the deviation a real service would have.
 */
import { ReferenceServer, type RequestContext } from '../reference.ts';
import type { Operation } from '../../spec/index.ts';
import type { Variant } from './types.ts';

/** A server that answers a bill document of the media type `refused` (its Content-Type) 415. */
function refusingDocumentType(refused: string): () => ReferenceServer {
  return () =>
    new (class extends ReferenceServer {
      protected override uploadBillDocument(ctx: RequestContext): Promise<void> {
        const type = (ctx.req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
        if (type !== refused) return super.uploadBillDocument(ctx);
        ctx.req.resume();
        this.sendError(ctx.res, 415, 'UNSUPPORTED_MEDIA_TYPE', 'A bill document is a PDF, JPEG or PNG.');
        return Promise.resolve();
      }
    })();
}

export const ITEM_VARIANTS: Variant[] = [
  {
    id: 'item-get-wrong-store',
    fault:
      'GET of one bill, mandate or collection looks in the archive only, so every item that exists is answered 404.',
    trips: ['item-known-readable', 'item-create-accepted'],
    create: () =>
      new (class extends ReferenceServer {
        private notFound(ctx: RequestContext): void {
          this.sendError(ctx.res, 404, 'NOT_FOUND', 'Nothing is stored under this reference.');
        }
        protected override getBill(ctx: RequestContext): void {
          this.notFound(ctx);
        }
        protected override getMandate(ctx: RequestContext): void {
          this.notFound(ctx);
        }
        protected override getDirectDebit(ctx: RequestContext): void {
          this.notFound(ctx);
        }
      })(),
  },
  {
    id: 'item-reference-dash-400',
    fault:
      'Bill, mandate and collection references are checked against ^[A-Za-z0-9]+$, so every reference with a dash, which the 1.3.0 patterns allow, is answered 400.',
    trips: ['item-known-readable', 'item-create-accepted'],
    create: () =>
      new (class extends ReferenceServer {
        protected override isValidPathParam(operation: Operation, name: string, value: string): boolean {
          if (name === 'counterpartyReference') return super.isValidPathParam(operation, name, value);
          return /^[A-Za-z0-9]+$/.test(value);
        }
      })(),
  },
  {
    id: 'item-creation-refused',
    fault:
      'Creating a bill, a mandate or a collection requires an Idempotency-Key header the document never names: every valid body without one is answered 400.',
    trips: ['item-create-accepted'],
    create: () =>
      new (class extends ReferenceServer {
        private async refuse(ctx: RequestContext, create: () => Promise<void>): Promise<void> {
          if (ctx.req.headers['idempotency-key'] !== undefined) return create();
          ctx.req.resume();
          this.sendError(ctx.res, 400, 'IDEMPOTENCY_KEY_REQUIRED', 'Send an Idempotency-Key header.');
        }
        protected override ingestBill(ctx: RequestContext): Promise<void> {
          return this.refuse(ctx, () => super.ingestBill(ctx));
        }
        protected override createMandate(ctx: RequestContext): Promise<void> {
          return this.refuse(ctx, () => super.createMandate(ctx));
        }
        protected override createDirectDebit(ctx: RequestContext): Promise<void> {
          return this.refuse(ctx, () => super.createDirectDebit(ctx));
        }
      })(),
  },
  {
    id: 'bill-update-not-found',
    fault:
      'PATCH of a bill looks it up by an internal id instead of its uniqueReferenceIdentifier, so every bill that exists is answered 404.',
    trips: ['item-update-accepted'],
    create: () =>
      new (class extends ReferenceServer {
        protected override updateBill(ctx: RequestContext): Promise<void> {
          ctx.req.resume();
          this.sendError(ctx.res, 404, 'BILL_NOT_FOUND', 'No bill has this reference.');
          return Promise.resolve();
        }
      })(),
  },
  {
    id: 'bill-document-pdf-415',
    fault:
      'A bill document labelled application/pdf is answered 415: the accepted list names application/x-pdf, image/jpeg and image/png.',
    trips: ['bill-document-accepted'],
    create: refusingDocumentType('application/pdf'),
  },
  // The list of media types taken lost one of the images (mutation/triage.yaml): the PDF still
  // goes through, that image kind is answered 415.
  ...(['jpeg', 'png'] as const).map((kind): Variant => ({
    id: `bill-document-${kind}-415`,
    fault: `A bill document labelled image/${kind} is answered 415: the accepted list lost image/${kind}, so only the PDF and the other image are taken.`,
    trips: ['bill-document-accepted'],
    create: refusingDocumentType(`image/${kind}`),
  })),
  {
    id: 'mandate-cancel-active-409',
    fault: 'The state check of DELETE /api/v1/mandates/{ref} is inverted: an active mandate is answered 409.',
    trips: ['mandate-cancel'],
    create: () =>
      new (class extends ReferenceServer {
        protected override cancelMandate(ctx: RequestContext): void {
          const mandate = this.mandates.get(ctx.params.mandateReference!);
          if (mandate?.status === 'ACTIVE')
            return this.sendError(
              ctx.res,
              409,
              'MANDATE_NOT_ACTIVE',
              'Only an active mandate can be cancelled.',
            );
          super.cancelMandate(ctx);
        }
      })(),
  },
  {
    id: 'mandate-cancel-not-stored',
    fault:
      'DELETE of an active mandate answers 200 with the mandate CANCELLED, but the change is never stored: a read after shows it ACTIVE.',
    trips: ['mandate-cancel'],
    create: () =>
      new (class extends ReferenceServer {
        protected override cancelMandate(ctx: RequestContext): void {
          const mandate = this.mandates.get(ctx.params.mandateReference!);
          if (mandate?.status !== 'ACTIVE') return super.cancelMandate(ctx);
          this.sendJson(ctx.res, 200, { ...structuredClone(mandate), status: 'CANCELLED' });
        }
      })(),
  },
];
