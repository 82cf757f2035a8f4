/**
 * Faults of the other operations (interface.md §4.3, §8, §9): bill list filters and pagination,
 * the mandate and collection lists, item references of bills, mandates and collections, and
 * bodies that no POST or PATCH can accept. Proven by probes/other-operations.ts; a 5xx is the
 * server-error oracle's.
 */
import { spec } from '../../spec/index.ts';
import { ReferenceServer, type RequestContext } from '../reference.ts';
import type { Operation } from '../../spec/index.ts';
import type { Variant } from './types.ts';

function query(ctx: RequestContext): URLSearchParams {
  return new URL(ctx.req.url ?? '/', 'http://localhost').searchParams;
}

/** A bill list that answers `status` with `code` when `refuse` says so, and lists as usual otherwise. */
function billList(refuse: (q: URLSearchParams) => string | undefined, status = 400): () => ReferenceServer {
  return () =>
    new (class extends ReferenceServer {
      protected override listBills(ctx: RequestContext): void {
        const why = refuse(query(ctx));
        if (why === undefined) return super.listBills(ctx);
        if (status >= 500) throw new RangeError(why);
        this.sendError(ctx.res, status, 'INVALID_QUERY', why);
      }
    })();
}

/** Reads a whole request body as text. */
async function bodyText(ctx: RequestContext): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

function parsed(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

export const OPERATION_VARIANTS: Variant[] = [
  {
    id: 'bill-filter-processing-400',
    fault:
      'GET /api/v1/bills?status=PROCESSING is answered 400, as if the system-only status could not be filtered on.',
    trips: ['bill-list-filters-accepted'],
    create: billList((q) =>
      q.get('status') === 'PROCESSING' ? 'PROCESSING is set by the system only' : undefined,
    ),
  },
  {
    id: 'bill-filter-combined-400',
    fault:
      'GET /api/v1/bills accepts one filter at a time: status and counterpartyReference together are 400.',
    trips: ['bill-list-filters-accepted'],
    create: billList((q) =>
      q.has('status') && q.has('counterpartyReference') ? 'only one filter at a time' : undefined,
    ),
  },
  {
    id: 'bill-filter-reference-pattern-400',
    fault:
      'The counterpartyReference filter of GET /api/v1/bills is checked against the mandate pattern, so a reference with "_" is 400.',
    trips: ['bill-list-filters-accepted'],
    create: billList((q) => {
      const ref = q.get('counterpartyReference');
      return ref !== null && !/^[a-zA-Z0-9-]+$/.test(ref) ? 'invalid counterpartyReference' : undefined;
    }),
  },
  {
    id: 'bill-filter-long-reference-500',
    fault:
      'A counterpartyReference filter longer than 64 characters overflows a column and GET /api/v1/bills answers 500.',
    trips: ['no-server-error'],
    create: billList((q) => {
      const ref = q.get('counterpartyReference');
      return ref !== null && ref.length > 64 ? 'value too long for type character varying(64)' : undefined;
    }, 500),
  },
  {
    id: 'bill-page-size-zero-400',
    fault: 'GET /api/v1/bills keeps the pre-1.3.0 minimum of 1 for pageSize: pageSize=0 is 400.',
    trips: ['bill-list-pagination-zero-accepted'],
    create: billList((q) => (q.get('pageSize') === '0' ? 'pageSize must be at least 1' : undefined)),
  },
  {
    id: 'bill-page-zero-400',
    fault: 'GET /api/v1/bills numbers pages from 1: page=0 is 400.',
    trips: ['bill-list-pagination-zero-accepted'],
    create: billList((q) => (q.get('page') === '0' ? 'page must be at least 1' : undefined)),
  },
  {
    id: 'bill-page-size-zero-500',
    fault: 'GET /api/v1/bills divides by pageSize, so pageSize=0 answers 500.',
    trips: ['no-server-error'],
    create: billList((q) => (q.get('pageSize') === '0' ? 'division by zero' : undefined), 500),
  },
  {
    id: 'mandates-list-filter-required-400',
    fault: 'GET /api/v1/mandates without a filter is answered 400, though the filters are optional.',
    trips: ['list-without-query-accepted'],
    create: () =>
      new (class extends ReferenceServer {
        protected override listMandates(ctx: RequestContext): void {
          if ([...query(ctx).keys()].length > 0) return super.listMandates(ctx);
          this.sendError(ctx.res, 400, 'FILTER_REQUIRED', 'Give at least one filter.');
        }
      })(),
  },
  {
    id: 'direct-debit-list-cursor-required-400',
    fault: 'GET /api/v1/direct-debit without a cursor is answered 400, so the first page cannot be read.',
    trips: ['list-without-query-accepted'],
    create: () =>
      new (class extends ReferenceServer {
        protected override listDirectDebits(ctx: RequestContext): void {
          if (query(ctx).has('cursor')) return super.listDirectDebits(ctx);
          this.sendError(ctx.res, 400, 'CURSOR_REQUIRED', 'The cursor parameter is required.');
        }
      })(),
  },
  {
    id: 'mandate-legacy-reference-200',
    fault:
      'A mandate reference breaking the 1.3.0 pattern is looked up as a legacy reference and answered 200 with a made-up cancelled mandate.',
    trips: ['item-reference-pattern-not-success'],
    create: () =>
      new (class extends ReferenceServer {
        protected override isValidPathParam(operation: Operation, name: string, value: string): boolean {
          return name === 'mandateReference' || super.isValidPathParam(operation, name, value);
        }
        protected override getMandate(ctx: RequestContext): void {
          const ref = ctx.params.mandateReference!;
          if (spec().errors('MandateReference', ref).length === 0) return super.getMandate(ctx);
          this.sendJson(ctx.res, 200, { mandateReference: ref, status: 'CANCELLED', legacy: true });
        }
      })(),
  },
  {
    id: 'collection-invalid-reference-500',
    fault: 'A collection reference breaking the 1.3.0 pattern reaches the database query, which fails: 500.',
    trips: ['no-server-error'],
    create: () =>
      new (class extends ReferenceServer {
        protected override isValidPathParam(operation: Operation, name: string, value: string): boolean {
          return name === 'collectionReference' || super.isValidPathParam(operation, name, value);
        }
        protected override getDirectDebit(ctx: RequestContext): void {
          const ref = ctx.params.collectionReference!;
          if (spec().errors('CollectionReference', ref).length > 0) {
            throw new SyntaxError(`syntax error at or near "${ref.slice(0, 20)}"`);
          }
          super.getDirectDebit(ctx);
        }
      })(),
  },
  {
    id: 'bill-long-reference-500',
    fault: 'GET /api/v1/bills/{ref} with a reference over 1000 characters overflows a buffer: 500.',
    trips: ['no-server-error'],
    create: () =>
      new (class extends ReferenceServer {
        protected override getBill(ctx: RequestContext): void {
          if (ctx.params.uniqueReferenceIdentifier!.length > 1000)
            throw new RangeError('reference buffer overflow');
          super.getBill(ctx);
        }
      })(),
  },
  {
    id: 'bill-unknown-answers-another',
    fault: 'GET /api/v1/bills/{ref} of an unknown bill answers 200 with a sample bill of another reference.',
    trips: ['item-unknown-reference-not-another'],
    create: () =>
      new (class extends ReferenceServer {
        protected override getBill(ctx: RequestContext): void {
          if (this.bills.has(ctx.params.uniqueReferenceIdentifier!)) return super.getBill(ctx);
          this.sendJson(ctx.res, 200, {
            uniqueReferenceIdentifier: 'BILL-SAMPLE-0001',
            status: 'OPEN',
            currencyCode: 'EUR',
          });
        }
      })(),
  },
  {
    id: 'mandate-unknown-falls-to-list',
    fault:
      'GET /api/v1/mandates/{ref} of an unknown mandate falls through to the list and answers 200 with it.',
    trips: ['item-unknown-reference-not-another'],
    create: () =>
      new (class extends ReferenceServer {
        protected override getMandate(ctx: RequestContext): void {
          if (this.mandates.has(ctx.params.mandateReference!)) return super.getMandate(ctx);
          this.listMandates(ctx);
        }
      })(),
  },
  {
    id: 'bills-post-large-500',
    fault:
      'POST /api/v1/bills with a body of 64 KiB or more runs out of a fixed buffer and answers 500 instead of refusing it.',
    trips: ['no-server-error'],
    create: () =>
      new (class extends ReferenceServer {
        protected override async ingestBill(ctx: RequestContext): Promise<void> {
          if (Number(ctx.req.headers['content-length'] ?? 0) >= 64 * 1024) {
            await bodyText(ctx);
            throw new RangeError('Invalid typed array length');
          }
          await super.ingestBill(ctx);
        }
      })(),
  },
  {
    id: 'mandates-post-not-json-201',
    fault: 'POST /api/v1/mandates keeps a body that is not JSON as a note and creates a mandate: 201.',
    trips: ['write-body-malformed-not-success'],
    create: () =>
      new (class extends ReferenceServer {
        private made = 0;
        protected override async createMandate(ctx: RequestContext): Promise<void> {
          const text = await bodyText(ctx);
          const json = parsed(text);
          const value = json.ok ? json.value : { note: text };
          if (text.trim() === '' || value === null || typeof value !== 'object' || Array.isArray(value)) {
            return this.sendError(ctx.res, 400, 'INVALID_BODY', 'The body must be a JSON object.');
          }
          const mandateReference = `LEGACY-${++this.made}`;
          const mandate = { ...value, mandateReference, status: 'ACTIVE' };
          this.mandates.set(mandateReference, mandate);
          this.sendJson(ctx.res, 201, mandate);
        }
      })(),
  },
  {
    id: 'bill-patch-scalar-200',
    fault:
      'PATCH /api/v1/bills/{ref} reads the body first and answers a JSON scalar with 200, as an empty change, even for an unknown bill.',
    trips: ['write-body-malformed-not-success'],
    create: () =>
      new (class extends ReferenceServer {
        protected override async updateBill(ctx: RequestContext): Promise<void> {
          const json = parsed(await bodyText(ctx));
          if (!json.ok) return this.sendError(ctx.res, 400, 'MALFORMED_JSON', 'The body is not valid JSON.');
          const ref = ctx.params.uniqueReferenceIdentifier!;
          if (json.value === null || typeof json.value !== 'object') {
            return this.sendJson(ctx.res, 200, { uniqueReferenceIdentifier: ref, changed: false });
          }
          if (!this.bills.has(ref))
            return this.sendError(ctx.res, 404, 'BILL_NOT_FOUND', 'No bill has this reference.');
          this.sendError(ctx.res, 400, 'UNSUPPORTED', 'Bill updates are not supported here.');
        }
      })(),
  },
  {
    id: 'direct-debit-empty-body-201',
    fault: 'POST /api/v1/direct-debit with an empty body starts a collection with defaults: 201.',
    trips: ['write-body-malformed-not-success'],
    create: () =>
      new (class extends ReferenceServer {
        private made = 0;
        protected override async createDirectDebit(ctx: RequestContext): Promise<void> {
          if (Number(ctx.req.headers['content-length'] ?? 0) !== 0) return super.createDirectDebit(ctx);
          const collectionReference = `DEFAULT-${++this.made}`;
          const collection = { collectionReference, status: 'PENDING' };
          this.collections.set(collectionReference, collection);
          this.sendJson(ctx.res, 201, collection);
        }
      })(),
  },
  {
    id: 'direct-debit-scalar-500',
    fault:
      'POST /api/v1/direct-debit reads a field of the parsed body without checking it is an object: a JSON null or number answers 500.',
    trips: ['no-server-error'],
    create: () =>
      new (class extends ReferenceServer {
        protected override async createDirectDebit(ctx: RequestContext): Promise<void> {
          const json = parsed(await bodyText(ctx));
          if (!json.ok) return this.sendError(ctx.res, 400, 'MALFORMED_JSON', 'The body is not valid JSON.');
          const body = json.value as { mandateReference?: unknown } | null;
          if (body === null || typeof body === 'number') {
            throw new TypeError("Cannot read properties of null (reading 'mandateReference')");
          }
          if (typeof body !== 'object' || Array.isArray(body) || Object.keys(body).length === 0)
            return this.sendError(ctx.res, 400, 'INVALID_BODY', 'The body must be a non-empty JSON object.');
          // An object is a collection, as on the reference server.
          const reference = `COLLECTION-S${this.collections.size + 1}`;
          const collection = {
            ...body,
            collectionReference: reference,
            createdAt: this.now(),
            updatedAt: this.now(),
          };
          this.collections.set(reference, collection);
          this.sendJson(ctx.res, 201, collection, { Location: `/api/v1/direct-debit/${reference}` });
        }
      })(),
  },
  {
    id: 'bill-document-any-body-201',
    fault:
      'POST /api/v1/bills/{ref}/document stores any non-empty body, of any media type and for any bill, and answers 201.',
    trips: ['write-body-malformed-not-success'],
    create: () =>
      new (class extends ReferenceServer {
        protected override async uploadBillDocument(ctx: RequestContext): Promise<void> {
          const text = await bodyText(ctx);
          if (text.length === 0) return this.sendError(ctx.res, 400, 'EMPTY_BODY', 'The document is empty.');
          this.sendJson(ctx.res, 201, {
            uniqueReferenceIdentifier: ctx.params.uniqueReferenceIdentifier,
            document: { size: text.length },
          });
        }
      })(),
  },
  // ------------------------------------------------------------ item writes at unknown references
  {
    id: 'unlabelled-body-500',
    fault:
      'Reading a JSON body takes the media type from the Content-Type field without looking whether there is one: a body with no Content-Type, with the token, is answered 500.',
    trips: ['no-server-error'],
    create: () =>
      new (class extends ReferenceServer {
        protected override async readJson(
          ctx: RequestContext,
          opts: { strictMediaType: boolean },
        ): ReturnType<ReferenceServer['readJson']> {
          const type = ctx.req.headers['content-type'] as string;
          if (type.split(';')[0]!.trim() === '') throw new Error('no media type');
          return super.readJson(ctx, opts);
        }
      })(),
  },
  {
    id: 'mandate-cancel-unknown-500',
    fault:
      'DELETE of a mandate reads its status before looking whether it exists: an unknown mandate, with the token, is answered 500.',
    trips: ['no-server-error'],
    create: () =>
      new (class extends ReferenceServer {
        protected override cancelMandate(ctx: RequestContext): void {
          const mandate = this.mandates.get(ctx.params.mandateReference!) as Record<string, unknown>;
          if (mandate.status === 'CANCELLED') throw new Error('already cancelled');
          super.cancelMandate(ctx);
        }
      })(),
  },
  {
    id: 'document-unknown-bill-500',
    fault:
      'POST of a PDF to a bill links the document before looking the bill up: an unknown bill, with the token and a PDF, is answered 500.',
    trips: ['no-server-error'],
    create: () =>
      new (class extends ReferenceServer {
        protected override async uploadBillDocument(ctx: RequestContext): Promise<void> {
          const bill = this.bills.get(ctx.params.uniqueReferenceIdentifier!) as Record<string, unknown>;
          if ((ctx.req.headers['content-type'] ?? '').startsWith('application/pdf')) bill.document = 'linked';
          await super.uploadBillDocument(ctx);
        }
      })(),
  },
];
