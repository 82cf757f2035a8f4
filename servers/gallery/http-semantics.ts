/**
 * Faults of the HTTP semantics a deployment advertises (RFC 9110 §8.8, §9.3.2, §13): the
 * reference server answers HEAD, tags each counterparty with a strong ETag and evaluates
 * If-Match and If-None-Match; each variant breaks one of these, as a service does that bolts a
 * cache, a HEAD handler or an ETag filter onto its handlers.
 */
import { createHash } from 'node:crypto';
import { ReferenceServer, type Counterparty, type RequestContext } from '../reference.ts';
import type { Variant } from './types.ts';

const strong = (content: unknown): string =>
  `"${createHash('sha256').update(JSON.stringify(content)).digest('base64url').slice(0, 27)}"`;

/** The entity tags an If-None-Match or If-Match value lists. */
const listed = (value: string | string[] | undefined): string[] =>
  (Array.isArray(value) ? value.join(',') : (value ?? '')).match(/(?:W\/)?"[^"]*"/g) ?? [];

/** A server whose answer to a HEAD of a counterparty is written by `head` instead. */
function headServer(head: (ctx: RequestContext, send: () => void) => void) {
  return () =>
    new (class extends ReferenceServer {
      protected override getCounterparty(ctx: RequestContext): void {
        if (ctx.req.method !== 'HEAD') return super.getCounterparty(ctx);
        head(ctx, () => super.getCounterparty(ctx));
      }
    })();
}

/**
 * Answers a HEAD of a counterparty as it answers GET, content included: written on the socket
 * itself, since node:http leaves out the content of an answer to HEAD.
 */
const headWithContent = headServer((ctx, send) => {
  const { res } = ctx;
  const chunks: Buffer[] = [];
  // What the GET handler writes: the header fields, then the content, kept instead of sent.
  const headers = new Map<string, string>();
  let status = 200;
  res.writeHead = ((code: number, fields?: Record<string, string | number>) => {
    status = code;
    for (const [k, v] of Object.entries(fields ?? {})) headers.set(k, String(v));
    return res;
  }) as typeof res.writeHead;
  res.end = ((chunk?: string) => {
    if (chunk !== undefined) chunks.push(Buffer.from(chunk));
    const content = Buffer.concat(chunks);
    headers.set('Content-Length', String(content.length));
    headers.set('Connection', 'close');
    const lines = [...headers].map(([k, v]) => `${k}: ${v}\r\n`).join('');
    res.socket?.end(Buffer.concat([Buffer.from(`HTTP/1.1 ${status} OK\r\n${lines}\r\n`, 'latin1'), content]));
    return res;
  }) as typeof res.end;
  // The same answer as GET: the hooks that make it are the reference's.
  ctx.req.method = 'GET';
  send();
});

export const HTTP_SEMANTICS_VARIANTS: Variant[] = [
  {
    id: 'head-with-content',
    fault:
      'A HEAD of a counterparty is answered like GET, the counterparty sent as content after the header fields.',
    trips: ['head-no-content'],
    create: headWithContent,
  },
  {
    id: 'head-without-etag',
    fault: 'A HEAD of a counterparty is answered by a handler of its own, without the ETag GET carries.',
    trips: ['head-headers-as-get'],
    create: () =>
      new (class extends ReferenceServer {
        protected override validators(body: unknown): Record<string, string> {
          return this.answeringHead ? {} : super.validators(body);
        }
        private answeringHead = false;
        protected override getCounterparty(ctx: RequestContext): void {
          this.answeringHead = ctx.req.method === 'HEAD';
          try {
            super.getCounterparty(ctx);
          } finally {
            this.answeringHead = false;
          }
        }
      })(),
  },
  {
    id: 'etag-stale-after-patch',
    fault:
      "The strong ETag is derived from the counterparty's reference and creation time, so it stays the same when a PATCH changes it, and If-None-Match with the tag from before the change answers 304.",
    trips: ['strong-etag-changes'],
    create: () =>
      new (class extends ReferenceServer {
        protected override entityTag(body: unknown): string | undefined {
          const { counterpartyReference, createdAt } = body as Record<string, unknown>;
          return strong({ counterpartyReference, createdAt });
        }
      })(),
  },
  {
    id: 'etag-over-stored-state',
    fault:
      'Every answer carries servedAt, a count of the answers sent, while the strong ETag is a digest of the stored counterparty: two answers with one strong tag differ.',
    trips: ['strong-etag-changes'],
    create: () =>
      new (class extends ReferenceServer {
        private served = 0;
        protected override present(cp: Counterparty): Record<string, unknown> {
          return { ...super.present(cp), servedAt: ++this.served };
        }
        protected override entityTag(body: unknown): string | undefined {
          const { servedAt: _served, ...stored } = body as Record<string, unknown>;
          return strong(stored);
        }
      })(),
  },
  {
    id: 'not-modified-any-earlier-tag',
    fault:
      'A GET whose If-None-Match names any tag the counterparty ever had is answered 304 (with the current ETag), so a client holding the representation from before a PATCH keeps it.',
    trips: ['not-modified-condition-false'],
    create: () => new EarlierTagServer(false),
  },
  {
    id: 'not-modified-echoes-tag',
    fault:
      'A GET whose If-None-Match names any tag the counterparty ever had is answered 304 echoing that tag as its ETag, so a client holding the representation from before a PATCH keeps it.',
    trips: ['not-modified-condition-false'],
    create: () => new EarlierTagServer(true),
  },
  {
    id: 'if-none-match-ignored',
    fault:
      'A GET is answered 200 with the counterparty whatever If-None-Match names, its current ETag included.',
    trips: ['if-none-match-current-not-modified'],
    create: () =>
      new (class extends ReferenceServer {
        protected override preconditions(ctx: RequestContext, current: unknown): 304 | 412 | undefined {
          const outcome = super.preconditions(ctx, current);
          return outcome === 304 ? undefined : outcome;
        }
      })(),
  },
  {
    id: 'if-match-ignored',
    fault:
      'A PATCH is applied whatever If-Match and If-None-Match name: the counterparty carries strong ETags, yet a stale If-Match does not prevent a lost update.',
    trips: ['patch-preconditions'],
    create: () =>
      new (class extends ReferenceServer {
        protected override preconditions(ctx: RequestContext, current: unknown): 304 | 412 | undefined {
          return ctx.req.method === 'PATCH' ? undefined : super.preconditions(ctx, current);
        }
      })(),
  },
];

/**
 * Keeps every tag it sent with a counterparty, and answers 304 to a GET whose If-None-Match
 * names any of them, with the current ETag or (`echo`) the tag named.
 */
class EarlierTagServer extends ReferenceServer {
  private readonly sent = new Set<string>();
  constructor(private readonly echo: boolean) {
    super();
  }
  protected override validators(body: unknown): Record<string, string> {
    const fields = super.validators(body);
    if (fields.ETag !== undefined) this.sent.add(fields.ETag);
    return fields;
  }
  protected override preconditions(ctx: RequestContext, current: unknown): 304 | 412 | undefined {
    const earlier = listed(ctx.req.headers['if-none-match']).find((t) => this.sent.has(t));
    if (ctx.req.method === 'GET' && earlier !== undefined) return 304;
    return super.preconditions(ctx, current);
  }
  protected override notModified(ctx: RequestContext, headers: Record<string, string>): void {
    const earlier = listed(ctx.req.headers['if-none-match']).find((t) => this.sent.has(t));
    super.notModified(ctx, this.echo && earlier !== undefined ? { ...headers, ETag: earlier } : headers);
  }
}
