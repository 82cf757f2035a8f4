/**
 * Faults visible only on answers that no check judged before the oracles judged every exchange of
 * a run: the reads around a PATCH, the second read of a counterparty, the restore PATCH, GETs of
 * unknown references, error and 401 answers, the collection lists. Each is wrong in one way that
 * the answers a probe judges itself (the known counterparty's first read, an accepted PATCH of
 * a probe case, the status of a reference probe) do not show.
 */
import type { ServerResponse } from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import { spec } from '../../spec/index.ts';
import {
  DEPRECATION_HEADER,
  ReferenceServer,
  SUNSET_HEADER,
  formatUtcSeconds,
  type Counterparty,
  type CounterpartyPatch,
  type RequestContext,
} from '../reference.ts';
import { challenging } from './auth.ts';
import { DEPRECATION_SECONDS } from './headers.ts';
import { eachAccount } from './schema.ts';
import type { Variant } from './types.ts';

/** What a server knows of an answer when it sends it. */
interface Answer {
  method: string;
  /** The request path, without the query. */
  path: string;
  status: number;
}

/** A server that adds `headers` to the JSON answers (errors included) that `where` selects. */
function addingHeaders(
  where: (a: Answer) => boolean,
  headers: Record<string, string>,
): () => ReferenceServer {
  return () =>
    new (class extends ReferenceServer {
      protected override sendJson(
        res: ServerResponse,
        status: number,
        body: unknown,
        extra: Record<string, string> = {},
      ): void {
        const answer = {
          method: (res.req.method ?? 'GET').toUpperCase(),
          path: (res.req.url ?? '/').split('?')[0]!,
          status,
        };
        super.sendJson(res, status, body, where(answer) ? { ...extra, ...headers } : extra);
      }
    })();
}

/** A server whose GET (not the PATCH response) passes the counterparty through `edit`. */
function presentingReads(edit: (body: Counterparty) => Record<string, unknown>): () => ReferenceServer {
  return () =>
    new (class extends ReferenceServer {
      private reading = false;
      protected override getCounterparty(ctx: RequestContext): void {
        this.reading = true;
        try {
          super.getCounterparty(ctx);
        } finally {
          this.reading = false;
        }
      }
      protected override present(cp: Counterparty): Record<string, unknown> {
        const body = super.present(cp);
        return this.reading ? edit(body as Counterparty) : body;
      }
    })();
}

/**
 * A server whose GET of a reference that matches no counterparty answers 200 with `body`, given
 * the reference and the first stored counterparty as a response would show it.
 */
function unknownAnswered(
  body: (reference: string, first: Record<string, unknown> | undefined) => unknown,
): () => ReferenceServer {
  return () =>
    new (class extends ReferenceServer {
      protected override getCounterparty(ctx: RequestContext): void {
        const reference = ctx.params.counterpartyReference!;
        if (this.lookup(reference)) return super.getCounterparty(ctx);
        const first = this.counterparties.values().next().value;
        const shown = first === undefined ? undefined : this.present(first);
        this.sendJson(ctx.res, 200, body(reference, shown), this.lifecycleHeaders());
      }
    })();
}

/** The collection operations (GET without path parameters: bills, mandates, direct debits). */
const COLLECTION_PATHS = new Set(
  spec()
    .operations()
    .filter((op) => op.method === 'GET' && op.pathParams.length === 0)
    .map((op) => op.path),
);
const isCollection = (a: Answer): boolean => a.method === 'GET' && COLLECTION_PATHS.has(a.path);

/** Accounts created in the last day: the ones a PATCH of the run added, none of the seeded ones. */
const DAY_MS = 24 * 60 * 60 * 1000;
const isRecent = (timestamp: unknown): boolean =>
  typeof timestamp === 'string' && Date.parse(timestamp) > Date.now() - DAY_MS;

/** A Deprecation date later than the reference Sunset (2027-06-30T23:59:59Z). */
const END_OF_2027 = Date.parse('2027-12-31T23:59:59Z') / 1000;

export const ANSWER_VARIANTS: Variant[] = [
  // ------------------------------------------------------------ GETs of unknown references
  /**
   * Seen on the valid-reference probe's GETs and the unknown-counterparty reads, where only the
   * status was judged.
   */
  {
    id: 'answers-unknown-reference-default',
    fault:
      'A GET of a valid reference that matches no counterparty answers 200 with the first stored counterparty instead of an error.',
    trips: ['counterparty-reference-echo'],
    create: unknownAnswered((_reference, first) => first ?? {}),
  },
  {
    id: 'answers-unknown-reference-stub',
    fault:
      'A GET of a valid reference that matches no counterparty answers 200 with a bare {"counterpartyReference"} placeholder.',
    trips: ['counterparty-schema'],
    create: unknownAnswered((reference) => ({ counterpartyReference: reference })),
  },
  // ------------------------------------------------------------ reads of one counterparty
  /** Seen by comparing the second read of a counterparty with the first, with no PATCH between. */
  {
    id: 'answers-created-at-first-read',
    fault:
      'The first read of a counterparty, before it is cached, reports createdAt as the time of the request; later reads show the stored value.',
    trips: ['immutable-fields-stable'],
    create: () => {
      const cached = new Set<string>();
      return presentingReads((body) => {
        if (cached.has(body.counterpartyReference)) return body;
        cached.add(body.counterpartyReference);
        return { ...body, createdAt: formatUtcSeconds(new Date()) };
      })();
    },
  },
  /**
   * Seen by any two reads of a counterparty. Every other comparison of reads (before and after a
   * PATCH, after a batch of refused ones) must leave createdAt out once it is seen to move by
   * itself, or the run blames each write for it and takes every batch apart.
   */
  {
    id: 'answers-created-at-every-read',
    fault:
      'Every read of a counterparty shows createdAt one second later than the read before it did (a counter of reads added to the stored time); the PATCH responses show the stored value.',
    trips: ['immutable-fields-stable'],
    create: () => {
      let reads = 0;
      return presentingReads((body) => ({
        ...body,
        createdAt: formatUtcSeconds(new Date(Date.parse(body.createdAt) + ++reads * 1000)),
      }))();
    },
  },
  /**
   * Seen on the reads around a PATCH, which were compared but never judged as counterparties; the
   * comparisons leave verificationStatus and an account's updatedAt out (§3 shows no transitions).
   */
  {
    id: 'answers-read-account-pending',
    fault:
      'A GET shows an account added in the last day with verificationStatus PENDING (the verification queue state, outside the enum); the PATCH response shows UNVERIFIED.',
    trips: ['account-schema'],
    create: presentingReads(
      eachAccount((a) => (isRecent(a.createdAt) ? { ...a, verificationStatus: 'PENDING' } : a)),
    ),
  },
  {
    id: 'answers-read-account-milliseconds',
    fault:
      'A GET writes the updatedAt of an account added in the last day with milliseconds (2026-11-22T10:00:00.000Z); the PATCH response is right.',
    trips: ['timestamp-format'],
    create: presentingReads(
      eachAccount((a) =>
        isRecent(a.createdAt) ? { ...a, updatedAt: new Date(a.updatedAt).toISOString() } : a,
      ),
    ),
  },
  // ------------------------------------------------------------ the restore PATCH
  /** Seen only on the PATCH that restores the writable counterparty's original details. */
  {
    id: 'answers-undo-resets-updated-at',
    fault:
      'A PATCH that puts every detail it sends back to its value at creation is stored as an undo, which moves updatedAt back to its value at creation.',
    trips: ['patch-updated-at'],
    create: () =>
      new (class extends ReferenceServer {
        protected override applyPatch(current: Counterparty, patch: CounterpartyPatch): Counterparty {
          const next = super.applyPatch(current, patch);
          const created = this.seed().find(
            (cp) => cp.counterpartyReference === current.counterpartyReference,
          );
          const details = Object.entries(patch.counterpartyDetails ?? {});
          const undo =
            created !== undefined &&
            patch.counterpartyAccounts === undefined &&
            details.length > 0 &&
            details.every(([k, v]) => Object.hasOwn(created, k) && isDeepStrictEqual(created[k], v));
          return undo ? { ...next, updatedAt: created.updatedAt } : next;
        }
      })(),
  },
  // ------------------------------------------------------------ lifecycle headers on other answers
  /** The lifecycle headers were judged on the known counterparty's GET and accepted PATCHes only. */
  {
    id: 'answers-404-deprecation-http-date',
    fault:
      'The 404 answers of GET carry Deprecation as an HTTP-date (an early draft form), not an RFC 9745 structured date.',
    trips: ['deprecation-structured-date'],
    create: addingHeaders((a) => a.method === 'GET' && a.status === 404, {
      Deprecation: new Date(DEPRECATION_SECONDS * 1000).toUTCString(),
    }),
  },
  {
    id: 'answers-401-sunset-bare-date',
    fault:
      'The 401 answers carry Sunset: 2027-06-30, a date without a time, which is no date-time nor HTTP-date.',
    trips: ['sunset-date-time'],
    shownBy: ['reads-require-authentication'],
    create: addingHeaders((a) => a.status === 401, { Sunset: SUNSET_HEADER.slice(0, 10) }),
  },
  {
    id: 'answers-collections-sunset-http-date',
    fault:
      'The collection lists carry their lifecycle headers with Sunset as an HTTP-date, not the date-time form the document declares.',
    trips: ['sunset-document-format'],
    create: addingHeaders(isCollection, {
      Deprecation: DEPRECATION_HEADER,
      Sunset: new Date(SUNSET_HEADER).toUTCString(),
    }),
  },
  {
    id: 'answers-patch-400-deprecation-after-sunset',
    fault:
      'The 400 answers of PATCH carry Deprecation @1830297599 (end of 2027), later than their Sunset 2027-06-30T23:59:59Z.',
    trips: ['sunset-not-before-deprecation'],
    create: addingHeaders((a) => a.method === 'PATCH' && a.status === 400, {
      Deprecation: `@${END_OF_2027}`,
      Sunset: SUNSET_HEADER,
    }),
  },
  // ------------------------------------------------------------ authentication, JSON, media type
  /** A check that took the word bearer anywhere in the header for a challenge would pass this realm. */
  {
    id: 'answers-basic-challenge-naming-bearer',
    fault:
      'The 401 answers carry WWW-Authenticate: Basic realm="Use a Bearer token", a Basic challenge whose realm names the Bearer scheme.',
    trips: ['auth-401-bearer-challenge'],
    create: challenging('Basic realm="Use a Bearer token"'),
  },
  /** Error bodies and the collection lists: no check read their media type or their JSON. */
  {
    id: 'answers-not-found-unescaped-quote',
    fault:
      'The 404 body of an unknown counterparty is built by string interpolation, so the quoted reference in its message breaks the JSON.',
    trips: ['json-well-formed'],
    create: () =>
      new (class extends ReferenceServer {
        protected override counterpartyNotFound(ctx: RequestContext): void {
          const reference = ctx.params.counterpartyReference!;
          ctx.res.writeHead(404, { 'Content-Type': this.jsonMediaType() ?? 'application/json' });
          ctx.res.end(
            `{"error":{"code":"COUNTERPARTY_NOT_FOUND","message":"No counterparty "${reference}""}}`,
          );
        }
      })(),
  },
  {
    id: 'answers-collections-text-html',
    fault: 'The collection lists are sent with the framework default Content-Type: text/html.',
    trips: ['response-json-media-type'],
    create: addingHeaders(isCollection, { 'Content-Type': 'text/html; charset=utf-8' }),
  },
];
