/**
 * An independent implementation of the counterparty interface (../shared/interface.md), written
 * from the document alone; it imports nothing of the project. It exists to show that the
 * conformance suite raises no false alarm on a server whose choices differ from the project's
 * reference server wherever the document leaves room. Each choice below names the sentence of
 * interface.md that leaves the room ("§" are its sections).
 *
 * Order of arrays
 * - counterpartyAccounts are returned newest first (createdAt descending, then the later-created
 *   first), so an added account comes first, not last. §4.2: "each item adds an account to the
 *   counterparty" (not where); §2.1 types the field "array of account" with no order.
 * - GET /bills is sorted by due date (none last), then by identifier; GET /mandates and
 *   GET /direct-debit are newest first. §4.3: "Request and response payloads of these
 *   operations ...: not shown."
 * - `errors[]` of a problem is sorted by JSON Pointer; `Allow` lists OPTIONS first.
 *
 * JSON text (wire.ts)
 * - Pretty-printed (two spaces; problem documents with tabs), keys sorted, every non-ASCII
 *   character escaped as \uXXXX, a final newline; never a BOM, which RFC 8259 §8.1 forbids.
 *   Introduction: "is REST over HTTP with JSON bodies" (JSON, any conforming serialisation).
 *
 * Fields and headers of this service's own
 * - The counterparty carries `_links`, `etag`, `metadata` (with non-ASCII text) and a `requestId`
 *   that differs on every response; every account carries `accountId`, `etag`, `_links`,
 *   `metadata` and the same `requestId`; the address carries `formatted`, `metadata` and the
 *   same `requestId` (option `addressRequestId`). §2.1 to §2.3 list the fields a counterparty
 *   has and which are required, not that there are no others ("The interface follows OpenAPI
 *   3.1", whose objects are open unless closed).
 * - Every response carries X-Request-Id (the body's requestId), Server-Timing, RateLimit-Policy
 *   and RateLimit (IETF httpapi draft; 100000 requests a minute, counted, never enforced),
 *   `Vary: Accept-Encoding, Authorization`, X-Content-Type-Options and Server; errors and writes
 *   `Cache-Control: no-store`; successful reads a weak ETag and `Cache-Control: private,
 *   no-cache`; the counterparty `Link: <...>; rel="self"`, the bill list rel="next"/"prev",
 *   the collection list rel="next"; a PATCH answer Content-Location. §4.1: "Response headers:
 *   Deprecation (...) and Sunset (...); both appear when applicable." names two headers, not
 *   the only ones, and RFC 9110 §5 lets a server send others.
 * - Having sent entity tags, it evaluates If-Match and If-None-Match (RFC 9110 §13.2) after
 *   authentication and lookup, before reading any body: 304 for a GET or HEAD whose tag matches
 *   If-None-Match, 412 when If-None-Match matches on a write or If-Match names a tag (a weak tag
 *   never matches strongly; only "*" passes). No Last-Modified, so the date conditions are
 *   ignored (RFC 9110 §13.1.3, §13.1.4).
 *
 * Errors
 * - Every error is an RFC 9457 problem document, `application/problem+json; charset=utf-8`,
 *   with type, title, status, detail, instance, requestId and an `errors` list. §7: "The status
 *   for this, the error body shape, the error codes, and statuses for an unknown counterparty,
 *   unauthenticated or forbidden requests: not shown."
 * - Authentication is checked first, on every path, known or not. No credentials (or another
 *   scheme): 401 `WWW-Authenticate: Bearer realm="...", scope="..."` (no error code, RFC 6750
 *   §3.1); a wrong token: 401 with `error="invalid_token", error_description="..."`, quoted
 *   strings holding commas; a Bearer credential that is not a b64token: 400 with
 *   `error="invalid_request"` (RFC 6750 §3.1). §5: "How a token is issued, its lifetime and its
 *   scopes: not shown."; §7 as above.
 * - A body that breaks a rule is 422; a body that is not JSON (by media type) is 415 with
 *   Accept-Patch; PATCH of an unknown counterparty is 404 whatever the body, because the
 *   counterparty is looked up before the body is read. §7 as above; §4.2 "The numeric success
 *   status code: not shown." (it is 200).
 * - A percent-encoded slash in a counterparty reference is a pattern violation (400). §4.1 only
 *   settles the raw slash ("A reference containing a forward slash is treated as a path
 *   separator").
 * - GET /bills checks its query: a status filter other than the four §3 names (OPEN, PROCESSING,
 *   PAID, POST), a counterpartyReference filter breaking §2.1, a page or pageSize that is not a
 *   whole number, or a pageSize over 500 is 400; page and pageSize may be 0 (an empty page).
 *   §3: "The complete list of bill ... statuses: not shown."; §8 shows a minimum, no maximum.
 * - A mandate or collection reference that breaks its 1.3.0 pattern, or a bill identifier
 *   longer than 100 characters, is 404 (no such resource can exist), not 400. §9 gives the
 *   pattern ("Mandate reference pattern becomes ^[a-zA-Z0-9\-]+$"), no status for breaking it;
 *   §7 settles 400 for counterpartyReference only.
 * - A creation naming something that does not exist (a counterpartyReference of a bill or
 *   mandate, the mandateReference of a collection) or a mandate that is not active is 409
 *   Conflict; cancelling a mandate twice is 409. §4.3 "Request and response payloads ...: not
 *   shown"; §3: DELETE applies when "mandate is active".
 *
 * Media types and HTTP
 * - `application/json; charset=utf-8` for GET of a counterparty, `application/json;charset=UTF-8`
 *   (no space, upper case) for PATCH, `application/json` for the other operations. Introduction:
 *   "JSON bodies"; a charset parameter has no effect on JSON (RFC 8259 §11) and is allowed.
 * - Date on every response (node's default, RFC 9110 §6.6.1); connections kept alive for 65 s;
 *   gzip when Accept-Encoding accepts it; bodies of 1 KiB or more chunked, without
 *   Content-Length (wire.ts).
 *
 * Lifecycle headers
 * - Every operation, counterparties or not, answers with `Deprecation: @<epoch seconds>` (RFC
 *   9745 structured date), `Sunset: <RFC 3339 date-time>` not earlier than it (with an offset
 *   or fractional seconds for some groups), and `Link: <...>; rel="deprecation"` and
 *   `rel="sunset"`. §4.1: "both appear when applicable"; §9: "Operations may be marked retired
 *   through the response headers Deprecation and Sunset". Sunset is "date-time" in §4.1, so it
 *   is an RFC 3339 date-time, not an HTTP-date; the UTC-only timestamp rule of §2.1 is about
 *   resource fields, not this header.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID, timingSafeEqual } from 'node:crypto';
import {
  counterpartyEtag,
  INDEPENDENT_ACCOUNT_FIXTURE,
  INDEPENDENT_COUNTERPARTY,
  INDEPENDENT_ITEM_FIXTURES,
  INDEPENDENT_TOKEN,
  INDEPENDENT_WRITABLE_COUNTERPARTY,
  present,
  Store,
  timestamp,
} from './store.ts';
import { codePointLength, isPlainObject, referenceProblem, validatePatch, type Issue } from './validation.ts';
import { evaluatePreconditions, MEDIA, weakEtag, writeResponse, type Outgoing } from './wire.ts';

export {
  INDEPENDENT_ACCOUNT_FIXTURE,
  INDEPENDENT_COUNTERPARTY,
  INDEPENDENT_ITEM_FIXTURES,
  INDEPENDENT_TOKEN,
  INDEPENDENT_WRITABLE_COUNTERPARTY,
};

export interface IndependentOptions {
  token?: string;
  /**
   * Put the per-response `requestId` into the address too, as into the counterparty and every
   * account. Default true. The self-test switches it off for now: the suite reads it as a change
   * of the address (a false alarm of patch-unsent-fields-unchanged, see the self-test).
   */
  addressRequestId?: boolean;
}

const PROBLEM_BASE = 'https://independent.payflow.invalid/problems/';
const REALM = 'Payflow independent, sandbox and live';
const SCOPE = 'counterparties bills mandates direct-debit';
const MAX_BODY_BYTES = 1024 * 1024;
/** The bill statuses §3 names; a status filter outside them is 400 (the complete list is not shown). */
const BILL_STATUSES = ['OPEN', 'PROCESSING', 'PAID', 'POST'];
/** The largest page size (§8 shows a minimum of 0 and no maximum). */
const MAX_PAGE_SIZE = 500;
const MAX_ACCOUNTS = 10_000;
const ID_PATTERN = /^[a-zA-Z0-9-]+$/;
const TOKEN68 = /^[A-Za-z0-9._~+/-]+=*$/;
const RATE_LIMIT = 100_000;
const RATE_WINDOW_S = 60;
const KEEP_ALIVE_MS = 65_000;
/** Caching of a successful read: by the client only, revalidated (with the ETag) before reuse. */
const REVALIDATE = { 'Cache-Control': 'private, no-cache' };

type Group = 'counterparties' | 'bills' | 'mandates' | 'direct-debit';

interface Lifecycle {
  /** RFC 9745 structured date. */
  deprecation: string;
  /** RFC 3339 date-time, not earlier than the deprecation. */
  sunset: string;
  /** Link field values: rel="deprecation" and rel="sunset". */
  links: string[];
}

const lifecycle = (group: Group, deprecation: string, sunset: string): Lifecycle => ({
  deprecation: `@${Date.parse(deprecation) / 1000}`,
  sunset,
  links: [
    `<https://independent.payflow.invalid/docs/deprecations/${group}-v1>; rel="deprecation"; type="text/html"`,
    `<https://independent.payflow.invalid/docs/sunset/${group}-v1>; rel="sunset"; type="text/html"`,
  ],
});

export const LIFECYCLE: Record<Group, Lifecycle> = {
  counterparties: lifecycle('counterparties', '2026-01-01T00:00:00Z', '2028-01-01T01:00:00+01:00'),
  bills: lifecycle('bills', '2026-03-31T22:00:00Z', '2028-06-30T23:59:59.500Z'),
  mandates: lifecycle('mandates', '2025-10-01T00:00:00Z', '2027-09-30T23:59:59-04:00'),
  'direct-debit': lifecycle('direct-debit', '2025-10-01T00:00:00Z', '2027-12-31T23:59:59Z'),
};

/** A problem with a path or query parameter, named rather than pointed at. */
interface ParameterIssue {
  parameter: string;
  detail: string;
}

class HttpProblem extends Error {
  constructor(
    readonly status: number,
    readonly kind: string,
    readonly title: string,
    readonly detail: string,
    readonly errors: (Issue | ParameterIssue)[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
  }
}

const notFound = (detail: string): HttpProblem => new HttpProblem(404, 'not-found', 'Not Found', detail);
const invalidBody = (detail: string, errors: Issue[] = []): HttpProblem =>
  new HttpProblem(422, 'invalid-body', 'Unprocessable Content', detail, errors);
const badParameter = (detail: string, parameter: string): HttpProblem =>
  new HttpProblem(400, 'invalid-parameter', 'Bad Request', detail, [{ parameter, detail }]);
const conflict = (kind: string, detail: string, errors: Issue[] = []): HttpProblem =>
  new HttpProblem(409, kind, 'Conflict', detail, errors);
const preconditionFailed = (): HttpProblem =>
  new HttpProblem(412, 'precondition-failed', 'Precondition Failed', 'a condition of the request is false');

/** Percent-decodes one raw path segment; a malformed escape is a 400. */
function decodeSegment(raw: string, name: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw badParameter(`the ${name} is not validly percent-encoded`, name);
  }
}

/** One request being answered: what every response of it carries. */
class Exchange {
  readonly requestId = randomUUID();
  private readonly started = performance.now();
  group: Group | undefined;

  constructor(
    private readonly server: IndependentServer,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
  ) {}

  reply(out: Outgoing): void {
    const res = this.res;
    res.setHeader('X-Request-Id', this.requestId);
    res.setHeader('Server', 'payflow-independent/1.3.0');
    res.setHeader('Vary', 'Accept-Encoding, Authorization');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    const { policy, state } = this.server.rateLimit();
    res.setHeader('RateLimit-Policy', policy);
    res.setHeader('RateLimit', state);
    const links: string[] = [];
    const given = out.headers?.Link;
    if (given !== undefined) links.push(...(Array.isArray(given) ? given : [given]));
    if (this.group) {
      const l = LIFECYCLE[this.group];
      res.setHeader('Deprecation', l.deprecation);
      res.setHeader('Sunset', l.sunset);
      links.push(...l.links);
    }
    const headers: Record<string, string | string[]> = { 'Cache-Control': 'no-store', ...out.headers };
    delete headers.Link;
    if (links.length > 0) res.setHeader('Link', links);
    const ms = performance.now() - this.started;
    res.setHeader(
      'Server-Timing',
      `app;dur=${ms.toFixed(3)};desc="request handling", store;desc="in-memory"`,
    );
    writeResponse(this.req, res, { ...out, headers });
  }

  json(status: number, body: unknown, headers: Record<string, string | string[]> = {}, mediaType?: string) {
    const withId =
      isPlainObject(body) && !('requestId' in body) ? { ...body, requestId: this.requestId } : body;
    this.reply({ status, body: withId, headers, mediaType: mediaType ?? MEDIA.json });
  }

  problem(problem: HttpProblem): void {
    const errors = [...problem.errors].sort((a, b) => {
      const ka = 'pointer' in a ? a.pointer : a.parameter;
      const kb = 'pointer' in b ? b.pointer : b.parameter;
      return ka < kb ? -1 : ka > kb ? 1 : 0;
    });
    this.reply({
      status: problem.status,
      mediaType: MEDIA.problem,
      indent: '\t',
      headers: problem.headers,
      body: {
        type: PROBLEM_BASE + problem.kind,
        title: problem.title,
        status: problem.status,
        detail: problem.detail,
        instance: (this.req.url ?? '/').split('?')[0],
        errors,
        requestId: this.requestId,
        timestamp: new Date().toISOString(),
      },
    });
  }

  /**
   * Evaluates the request's preconditions against the current tag of the target: throws 412,
   * or answers 304 and returns true; false when the request proceeds.
   */
  notModified(tag: string, headers: Record<string, string | string[]> = {}): boolean {
    const outcome = evaluatePreconditions(this.req, tag);
    if (outcome === 412) throw preconditionFailed();
    if (outcome === 304) {
      this.reply({ status: 304, headers: { ETag: tag, ...headers } });
      return true;
    }
    return false;
  }
}

type Handler = (x: Exchange, param: string) => Promise<void> | void;
interface Route {
  /** Raw path segments after the leading slash; ':' marks the single parameter. */
  pattern: string[];
  group: Group;
  methods: Partial<Record<string, Handler>>;
}

type AuthResult = 'ok' | 'missing' | 'invalid' | 'malformed';

export class IndependentServer {
  private readonly token: string;
  private readonly addressRequestId: boolean;
  private readonly store = new Store();
  private server: Server | undefined;
  private readonly routes: Route[];
  private window = { start: 0, count: 0 };

  constructor(options: IndependentOptions = {}) {
    this.token = options.token ?? INDEPENDENT_TOKEN;
    this.addressRequestId = options.addressRequestId ?? true;
    const v1 = ['api', 'v1'];
    this.routes = [
      {
        pattern: [...v1, 'counterparties', ':'],
        group: 'counterparties',
        methods: {
          GET: (x, p) => this.getCounterparty(x, p),
          PATCH: (x, p) => this.patchCounterparty(x, p),
        },
      },
      {
        pattern: [...v1, 'bills'],
        group: 'bills',
        methods: { GET: (x) => this.listBills(x), POST: (x) => this.createBill(x) },
      },
      {
        pattern: [...v1, 'bills', ':'],
        group: 'bills',
        methods: { GET: (x, p) => this.getBill(x, p), PATCH: (x, p) => this.patchBill(x, p) },
      },
      {
        pattern: [...v1, 'bills', ':', 'document'],
        group: 'bills',
        methods: { POST: (x, p) => this.uploadDocument(x, p) },
      },
      {
        pattern: [...v1, 'mandates'],
        group: 'mandates',
        methods: { GET: (x) => this.listMandates(x), POST: (x) => this.createMandate(x) },
      },
      {
        pattern: [...v1, 'mandates', ':'],
        group: 'mandates',
        methods: { GET: (x, p) => this.getMandate(x, p), DELETE: (x, p) => this.cancelMandate(x, p) },
      },
      {
        pattern: [...v1, 'direct-debit'],
        group: 'direct-debit',
        methods: { GET: (x) => this.listCollections(x), POST: (x) => this.createCollection(x) },
      },
      {
        pattern: [...v1, 'direct-debit', ':'],
        group: 'direct-debit',
        methods: { GET: (x, p) => this.getCollection(x, p) },
      },
    ];
  }

  async start(port = 0): Promise<string> {
    if (this.server) throw new Error('IndependentServer already started');
    const server = createServer((req, res) => {
      const x = new Exchange(this, req, res);
      this.handle(x).catch((error: unknown) => {
        if (!res.headersSent) {
          x.problem(new HttpProblem(500, 'internal', 'Internal Server Error', String(error)));
        } else {
          res.destroy();
        }
      });
    });
    server.keepAliveTimeout = KEEP_ALIVE_MS;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    const address = server.address() as AddressInfo;
    return `http://127.0.0.1:${address.port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  /** The RateLimit-Policy and RateLimit field values of now (counted, never enforced). */
  rateLimit(): { policy: string; state: string } {
    const now = Math.floor(Date.now() / 1000);
    if (now - this.window.start >= RATE_WINDOW_S) this.window = { start: now, count: 0 };
    this.window.count += 1;
    const remaining = Math.max(0, RATE_LIMIT - this.window.count);
    const reset = RATE_WINDOW_S - (now - this.window.start);
    return {
      policy: `"burst";q=${RATE_LIMIT};w=${RATE_WINDOW_S}`,
      state: `"burst";r=${remaining};t=${reset}`,
    };
  }

  // -------------------------------------------------------------------------------------------

  private authenticate(header: string | undefined): AuthResult {
    const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?:[ ]+(.*))?$/.exec((header ?? '').trim());
    if (!match || match[1]!.toLowerCase() !== 'bearer') return 'missing';
    const credentials = match[2] ?? '';
    if (!TOKEN68.test(credentials)) return 'malformed';
    const given = Buffer.from(credentials);
    const expected = Buffer.from(this.token);
    return given.length === expected.length && timingSafeEqual(given, expected) ? 'ok' : 'invalid';
  }

  private refuse(auth: Exclude<AuthResult, 'ok'>): HttpProblem {
    const realm = `Bearer realm="${REALM}"`;
    if (auth === 'missing') {
      return new HttpProblem(401, 'unauthorized', 'Unauthorized', 'send Authorization: Bearer <token>', [], {
        'WWW-Authenticate': `${realm}, scope="${SCOPE}"`,
      });
    }
    if (auth === 'malformed') {
      const description = 'The Authorization header is not Bearer followed by one b64token';
      return new HttpProblem(400, 'invalid-request', 'Bad Request', description, [], {
        'WWW-Authenticate': `${realm}, error="invalid_request", error_description="${description}"`,
      });
    }
    const description = 'The access token is malformed, expired, or revoked';
    return new HttpProblem(401, 'invalid-token', 'Unauthorized', description, [], {
      'WWW-Authenticate': `${realm}, error="invalid_token", error_description="${description}"`,
    });
  }

  private async handle(x: Exchange): Promise<void> {
    const req = x.req;
    const target = req.url ?? '/';
    try {
      // The path is split into segments on the raw target, before any percent-decoding, so
      // that a slash always separates segments and an encoded %2F never does.
      let rawPath = target.split('?')[0]!.split('#')[0]!;
      const absolute = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/]*/.exec(rawPath);
      if (absolute) rawPath = rawPath.slice(absolute[0].length) || '/';
      const segments = rawPath.startsWith('/') ? rawPath.slice(1).split('/') : undefined;
      const route = segments
        ? this.routes.find(
            (r) =>
              r.pattern.length === segments.length &&
              r.pattern.every((p, i) => (p === ':' ? segments[i] !== '' : p === segments[i])),
          )
        : undefined;
      x.group = route?.group;
      const auth = this.authenticate(req.headers.authorization);
      if (auth !== 'ok') throw this.refuse(auth);
      if (!route || !segments) throw notFound(`no resource at ${rawPath}`);
      const param = segments[route.pattern.indexOf(':')] ?? '';
      let method = (req.method ?? 'GET').toUpperCase();
      const allowed = ['OPTIONS', ...Object.keys(route.methods)];
      if (allowed.includes('GET')) allowed.push('HEAD');
      if (method === 'OPTIONS') {
        req.resume();
        const headers: Record<string, string> = { Allow: allowed.join(', ') };
        if (allowed.includes('PATCH')) headers['Accept-Patch'] = 'application/json';
        x.reply({ status: 204, headers });
        return;
      }
      if (method === 'HEAD') method = 'GET';
      const handler = Object.hasOwn(route.methods, method) ? route.methods[method] : undefined;
      if (!handler) {
        throw new HttpProblem(
          405,
          'method-not-allowed',
          'Method Not Allowed',
          `${method} is not supported here`,
          [],
          { Allow: allowed.join(', ') },
        );
      }
      await handler(x, param);
    } catch (error) {
      if (!(error instanceof HttpProblem)) throw error;
      req.resume();
      x.problem(error);
    }
  }

  /** Reads the body, requires a JSON media type (415 otherwise) and parses it (422 if malformed). */
  private async readJson(x: Exchange): Promise<unknown> {
    const req = x.req;
    const contentType = req.headers['content-type'];
    const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
    const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType ?? '')?.[1]?.toLowerCase();
    const isJson = media === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(media);
    if (!isJson || (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8')) {
      req.resume();
      throw new HttpProblem(
        415,
        'unsupported-media-type',
        'Unsupported Media Type',
        `the body must be application/json (UTF-8), got ${contentType ?? 'no Content-Type'}`,
        [],
        (req.method ?? '').toUpperCase() === 'PATCH' ? { 'Accept-Patch': 'application/json' } : {},
      );
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      const buffer = chunk as Buffer;
      size += buffer.length;
      if (size > MAX_BODY_BYTES) {
        throw new HttpProblem(
          413,
          'too-large',
          'Content Too Large',
          `the body exceeds ${MAX_BODY_BYTES} bytes`,
        );
      }
      chunks.push(buffer);
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(Buffer.concat(chunks));
    } catch {
      throw invalidBody('the body is not valid UTF-8', [{ pointer: '', detail: 'invalid UTF-8' }]);
    }
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      const reason = error instanceof Error ? error.message : 'malformed JSON';
      throw invalidBody('the body is not well-formed JSON', [{ pointer: '', detail: reason }]);
    }
  }

  /** Reads a JSON body that must be a non-empty object (creation and update of 4.3 resources). */
  private async readObject(x: Exchange): Promise<Record<string, unknown>> {
    const body = await this.readJson(x);
    if (!isPlainObject(body) || Object.keys(body).length === 0) {
      throw invalidBody('the body must be a non-empty JSON object', [
        { pointer: '', detail: 'not a non-empty object' },
      ]);
    }
    return body;
  }

  /** A body's counterpartyReference, if any, must name a stored counterparty (409 otherwise). */
  private requireKnownCounterparty(body: Record<string, unknown>): void {
    const ref = body.counterpartyReference;
    if (ref === undefined) return;
    if (typeof ref !== 'string' || !this.store.counterparties.has(ref)) {
      throw conflict('unknown-counterparty', `no counterparty ${JSON.stringify(ref)} to refer to`, [
        { pointer: '/counterpartyReference', detail: 'create the counterparty first' },
      ]);
    }
  }

  // ------------------------------------------------------------------ counterparties (4.1, 4.2)

  private counterparty(rawReference: string) {
    const reference = decodeSegment(rawReference, 'counterpartyReference');
    const problem = referenceProblem(reference);
    if (problem) throw badParameter(`${problem}: ${JSON.stringify(reference)}`, 'counterpartyReference');
    const cp = this.store.counterparties.get(reference);
    if (!cp) throw notFound(`no counterparty ${reference}`);
    return cp;
  }

  private presentOptions(x: Exchange) {
    return { requestId: x.requestId, addressRequestId: this.addressRequestId };
  }

  private getCounterparty(x: Exchange, rawReference: string): void {
    const cp = this.counterparty(rawReference);
    const tag = counterpartyEtag(cp);
    const self = `</api/v1/counterparties/${cp.counterpartyReference}>; rel="self"`;
    const cache = { ...REVALIDATE, Link: self };
    if (x.notModified(tag, cache)) return;
    x.json(200, present(cp, this.presentOptions(x)), { ETag: tag, ...cache }, MEDIA.jsonSpaced);
  }

  private async patchCounterparty(x: Exchange, rawReference: string): Promise<void> {
    const cp = this.counterparty(rawReference); // existence before the body
    x.notModified(counterpartyEtag(cp));
    const body = await this.readJson(x);
    const result = validatePatch(body);
    if ('issues' in result) throw invalidBody('the patch does not conform to the interface', result.issues);
    const added = result.patch.accounts?.length ?? 0;
    if (cp.counterpartyAccounts.length + added > MAX_ACCOUNTS) {
      throw invalidBody(`a counterparty holds at most ${MAX_ACCOUNTS} accounts`, [
        { pointer: '/counterpartyAccounts', detail: 'too many accounts' },
      ]);
    }
    this.store.applyPatch(cp, result.patch);
    x.json(
      200,
      present(cp, this.presentOptions(x)),
      {
        ETag: counterpartyEtag(cp),
        'Content-Location': `/api/v1/counterparties/${cp.counterpartyReference}`,
      },
      MEDIA.jsonTight,
    );
  }

  // ------------------------------------------------------------------------------ bills (4.3)

  private billParam(raw: string): string {
    const id = decodeSegment(raw, 'uniqueReferenceIdentifier');
    if (codePointLength(id) > 100) throw notFound('no bill has an identifier that long');
    return id;
  }

  private listBills(x: Exchange): void {
    const query = new URL(x.req.url ?? '/', 'http://localhost').searchParams;
    const number = (name: string, fallback: number): number => {
      const raw = query.get(name);
      if (raw === null) return fallback;
      if (!/^[0-9]{1,6}$/.test(raw)) throw badParameter(`${name} must be an integer >= 0`, name);
      return Number(raw);
    };
    const page = number('page', 0);
    const pageSize = number('pageSize', 20);
    if (pageSize > MAX_PAGE_SIZE) throw badParameter(`pageSize is at most ${MAX_PAGE_SIZE}`, 'pageSize');
    const status = query.get('status');
    if (status !== null && !BILL_STATUSES.includes(status)) {
      throw badParameter(`status is one of ${BILL_STATUSES.join(', ')}`, 'status');
    }
    const ref = query.get('counterpartyReference');
    const refProblem = ref === null ? undefined : referenceProblem(ref);
    if (refProblem !== undefined) throw badParameter(refProblem, 'counterpartyReference');
    let bills = [...this.store.bills.values()];
    for (const filter of ['status', 'type', 'cashflowType', 'counterpartyReference'] as const) {
      const wanted = query.get(filter);
      if (wanted !== null) bills = bills.filter((b) => b[filter] === wanted);
    }
    const from = query.get('dueDateFrom');
    const to = query.get('dueDateTo');
    if (from !== null) bills = bills.filter((b) => typeof b.dueDate === 'string' && b.dueDate >= from);
    if (to !== null) bills = bills.filter((b) => typeof b.dueDate === 'string' && b.dueDate <= to);
    // By due date (none last), then by identifier.
    const due = (b: Record<string, unknown>): string =>
      typeof b.dueDate === 'string' ? b.dueDate : '\uffff';
    bills.sort(
      (a, b) =>
        due(a).localeCompare(due(b)) ||
        String(a.uniqueReferenceIdentifier).localeCompare(String(b.uniqueReferenceIdentifier)),
    );
    const content = pageSize === 0 ? [] : bills.slice(page * pageSize, (page + 1) * pageSize);
    const totalPages = pageSize === 0 ? 0 : Math.ceil(bills.length / pageSize);
    const body = {
      bills: content,
      paginationDetails: { page, pageSize, totalElements: bills.length, totalPages },
    };
    const tag = weakEtag(body);
    const pageLink = (p: number, rel: string): string => {
      const q = new URLSearchParams(query);
      q.set('page', String(p));
      q.set('pageSize', String(pageSize));
      return `</api/v1/bills?${q.toString()}>; rel="${rel}"`;
    };
    const links: string[] = [];
    if (page + 1 < totalPages) links.push(pageLink(page + 1, 'next'));
    if (page > 0 && totalPages > 0) links.push(pageLink(Math.min(page - 1, totalPages - 1), 'prev'));
    const headers = { ...REVALIDATE, Link: links };
    if (x.notModified(tag, headers)) return;
    x.json(200, body, { ETag: tag, ...headers });
  }

  private checkBillStatus(body: Record<string, unknown>): void {
    if (body.status === 'PROCESSING') {
      throw invalidBody('PROCESSING is set by the service only', [
        { pointer: '/status', detail: 'PROCESSING cannot be written' },
      ]);
    }
  }

  private async createBill(x: Exchange): Promise<void> {
    x.notModified(weakEtag([...this.store.bills.keys()]));
    const body = await this.readObject(x);
    this.checkBillStatus(body);
    let id = body.uniqueReferenceIdentifier;
    if (id === undefined) id = this.store.nextId('BILL');
    if (typeof id !== 'string' || id === '' || codePointLength(id) > 100 || id.includes('/')) {
      throw invalidBody('uniqueReferenceIdentifier is not usable', [
        { pointer: '/uniqueReferenceIdentifier', detail: 'must be a string of 1 to 100 characters' },
      ]);
    }
    this.requireKnownCounterparty(body);
    if (this.store.bills.has(id)) throw conflict('conflict', `bill ${id} exists already`);
    const bill = {
      ...body,
      uniqueReferenceIdentifier: id,
      status: body.status ?? 'OPEN',
      createdAt: timestamp(),
    };
    this.store.bills.set(id, bill);
    x.json(201, bill, { Location: `/api/v1/bills/${encodeURIComponent(id)}`, ETag: weakEtag(bill) });
  }

  private getBill(x: Exchange, raw: string): void {
    const id = this.billParam(raw);
    const bill = this.store.bills.get(id);
    if (!bill) throw notFound(`no bill ${id}`);
    const tag = weakEtag(bill);
    if (x.notModified(tag, REVALIDATE)) return;
    x.json(200, bill, { ETag: tag, ...REVALIDATE });
  }

  private async patchBill(x: Exchange, raw: string): Promise<void> {
    const id = this.billParam(raw);
    const bill = this.store.bills.get(id);
    if (!bill) throw notFound(`no bill ${id}`);
    x.notModified(weakEtag(bill));
    const body = await this.readObject(x);
    this.checkBillStatus(body);
    const updated = { ...bill, ...body, uniqueReferenceIdentifier: id, updatedAt: timestamp() };
    this.store.bills.set(id, updated);
    x.json(200, updated, { ETag: weakEtag(updated) });
  }

  private async uploadDocument(x: Exchange, raw: string): Promise<void> {
    const req = x.req;
    const id = this.billParam(raw);
    const bill = this.store.bills.get(id);
    if (!bill) throw notFound(`no bill ${id}`);
    x.notModified(weakEtag(bill));
    const media = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (media === 'application/json' || media.endsWith('+json')) await this.readObject(x);
    else {
      const accepted = ['multipart/form-data', 'application/pdf', 'image/jpeg', 'image/png'];
      if (!accepted.includes(media)) {
        req.resume();
        throw new HttpProblem(
          415,
          'unsupported-media-type',
          'Unsupported Media Type',
          'send a PDF, JPEG or PNG',
        );
      }
      let size = 0;
      for await (const chunk of req) size += (chunk as Buffer).length;
      if (size === 0) throw invalidBody('the document is empty');
    }
    x.json(201, { uniqueReferenceIdentifier: id, documentId: this.store.nextId('DOC') });
  }

  // --------------------------------------------------------------------------- mandates (4.3)

  /** A mandate or collection reference; one breaking the 1.3.0 pattern names nothing (404). */
  private referenceParam(raw: string, name: string): string {
    const id = decodeSegment(raw, name);
    if (codePointLength(id) > 100 || !ID_PATTERN.test(id)) {
      throw notFound(
        `no resource can have the ${name} ${JSON.stringify(id)}: it breaks ${String(ID_PATTERN)}`,
      );
    }
    return id;
  }

  private listMandates(x: Exchange): void {
    const body = this.mandateList();
    const tag = weakEtag(body);
    if (x.notModified(tag, REVALIDATE)) return;
    x.json(200, body, { ETag: tag, ...REVALIDATE });
  }

  private mandateList(): { mandates: Record<string, unknown>[] } {
    return { mandates: [...this.store.mandates.values()].reverse() }; // newest first
  }

  private async createMandate(x: Exchange): Promise<void> {
    x.notModified(weakEtag(this.mandateList()));
    const body = await this.readObject(x);
    const issues: Issue[] = [];
    if (body.currency !== undefined && body.currency !== 'EUR')
      issues.push({ pointer: '/currency', detail: 'EUR only' });
    if (body.region !== undefined && body.region !== 'EU')
      issues.push({ pointer: '/region', detail: 'EU only' });
    if (body.mode !== undefined && body.mode !== 'CORE')
      issues.push({ pointer: '/mode', detail: 'CORE only' });
    if (body.type !== undefined && body.type !== 'RECURRING' && body.type !== 'ONE_OFF') {
      issues.push({ pointer: '/type', detail: 'RECURRING or ONE_OFF' });
    }
    const id = body.mandateReference ?? this.store.nextId('MND');
    if (typeof id !== 'string' || !ID_PATTERN.test(id)) {
      issues.push({ pointer: '/mandateReference', detail: `must match ${String(ID_PATTERN)}` });
    }
    if (issues.length > 0) throw invalidBody('the mandate does not conform', issues);
    this.requireKnownCounterparty(body);
    const reference = id as string;
    if (this.store.mandates.has(reference)) throw conflict('conflict', `mandate ${reference} exists already`);
    const mandate = { ...body, mandateReference: reference, status: 'ACTIVE', createdAt: timestamp() };
    this.store.mandates.set(reference, mandate);
    x.json(201, mandate, { Location: `/api/v1/mandates/${reference}`, ETag: weakEtag(mandate) });
  }

  private getMandate(x: Exchange, raw: string): void {
    const id = this.referenceParam(raw, 'mandateReference');
    const mandate = this.store.mandates.get(id);
    if (!mandate) throw notFound(`no mandate ${id}`);
    const tag = weakEtag(mandate);
    if (x.notModified(tag, REVALIDATE)) return;
    x.json(200, mandate, { ETag: tag, ...REVALIDATE });
  }

  private cancelMandate(x: Exchange, raw: string): void {
    const id = this.referenceParam(raw, 'mandateReference');
    const mandate = this.store.mandates.get(id);
    if (!mandate) throw notFound(`no mandate ${id}`);
    x.notModified(weakEtag(mandate));
    if (mandate.status !== 'ACTIVE') {
      throw conflict('mandate-not-active', `mandate ${id} is ${mandate.status}, not active`);
    }
    mandate.status = 'CANCELLED';
    mandate.updatedAt = timestamp();
    x.json(200, mandate, { ETag: weakEtag(mandate) });
  }

  // ----------------------------------------------------------------------- direct debit (4.3)

  private listCollections(x: Exchange): void {
    const query = new URL(x.req.url ?? '/', 'http://localhost').searchParams;
    const all = [...this.store.collections.values()].reverse(); // newest first
    const cursor = query.get('cursor');
    const start = cursor === null ? 0 : all.findIndex((c) => c.collectionReference === cursor) + 1;
    const items = all.slice(start, start + 50);
    const last = items[items.length - 1];
    const more = start + items.length < all.length;
    const nextCursor = more && last ? (last.collectionReference as string) : null;
    const body = { items, nextCursor };
    const tag = weakEtag(body);
    const headers: Record<string, string | string[]> = { ...REVALIDATE };
    if (nextCursor !== null) {
      headers.Link = `</api/v1/direct-debit?cursor=${encodeURIComponent(nextCursor)}>; rel="next"`;
    }
    if (x.notModified(tag, headers)) return;
    x.json(200, body, { ETag: tag, ...headers });
  }

  private async createCollection(x: Exchange): Promise<void> {
    x.notModified(weakEtag([...this.store.collections.keys()]));
    const body = await this.readObject(x);
    if (body.currency !== undefined && body.currency !== 'EUR') {
      throw invalidBody('the collection cannot be started', [{ pointer: '/currency', detail: 'EUR only' }]);
    }
    if (body.mandateReference !== undefined) {
      const mandate =
        typeof body.mandateReference === 'string'
          ? this.store.mandates.get(body.mandateReference)
          : undefined;
      if (!mandate) {
        throw conflict('unknown-mandate', 'no mandate has this reference', [
          { pointer: '/mandateReference', detail: 'create the mandate first' },
        ]);
      }
      if (mandate.status !== 'ACTIVE') {
        throw conflict('mandate-not-active', `the mandate is ${mandate.status}, not active`, [
          { pointer: '/mandateReference', detail: 'a collection needs an active mandate' },
        ]);
      }
    }
    const reference = this.store.nextId('COL');
    const collection = { ...body, collectionReference: reference, status: 'PENDING', createdAt: timestamp() };
    this.store.collections.set(reference, collection);
    x.json(201, collection, { Location: `/api/v1/direct-debit/${reference}`, ETag: weakEtag(collection) });
  }

  private getCollection(x: Exchange, raw: string): void {
    const id = this.referenceParam(raw, 'collectionReference');
    const collection = this.store.collections.get(id);
    if (!collection) throw notFound(`no collection ${id}`);
    const tag = weakEtag(collection);
    if (x.notModified(tag, REVALIDATE)) return;
    x.json(200, collection, { ETag: tag, ...REVALIDATE });
  }
}
