/**
 * An independent implementation of the counterparty interface (../shared/interface.md), written
 * from the document alone. It exists to show that the conformance suite raises no false alarm
 * on a server whose unspecified choices differ from the project's reference server:
 *
 * - authentication is checked first on every path, known or not: 401 with
 *   `WWW-Authenticate: Bearer` (no credentials) or `Bearer error="invalid_token"` (wrong ones);
 * - errors are RFC 9457 problem documents (`application/problem+json`) with an `errors` list;
 * - a PATCH looks the counterparty up before reading its body (unknown reference: 404 whatever
 *   the body), answers 415 to a body that is not JSON, 422 to any other body problem, 200 on
 *   success; a sent address is merged field by field into the stored one;
 * - a percent-encoded slash in a reference is a pattern violation (400);
 * - no Deprecation or Sunset headers are ever sent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { timingSafeEqual } from 'node:crypto';
import {
  INDEPENDENT_ACCOUNT_FIXTURE,
  INDEPENDENT_COUNTERPARTY,
  INDEPENDENT_TOKEN,
  INDEPENDENT_WRITABLE_COUNTERPARTY,
  present,
  Store,
  timestamp,
} from './store.ts';
import { codePointLength, isPlainObject, referenceProblem, validatePatch, type Issue } from './validation.ts';

export {
  INDEPENDENT_ACCOUNT_FIXTURE,
  INDEPENDENT_COUNTERPARTY,
  INDEPENDENT_TOKEN,
  INDEPENDENT_WRITABLE_COUNTERPARTY,
};

const PROBLEM_BASE = 'https://independent.payflow.invalid/problems/';
const MAX_BODY_BYTES = 1024 * 1024;
const MAX_ACCOUNTS = 10_000;
const ID_PATTERN = /^[a-zA-Z0-9-]+$/;

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

function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Cache-Control', 'no-store');
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  if (body !== undefined) {
    res.setHeader('Content-Type', 'application/json');
    res.setHeader('Content-Length', Buffer.byteLength(text));
  }
  res.end(text);
}

function sendProblem(res: ServerResponse, problem: HttpProblem, instance: string): void {
  const text = JSON.stringify({
    type: PROBLEM_BASE + problem.kind,
    title: problem.title,
    status: problem.status,
    detail: problem.detail,
    instance,
    errors: problem.errors,
  });
  res.statusCode = problem.status;
  res.setHeader('Cache-Control', 'no-store');
  for (const [name, value] of Object.entries(problem.headers)) res.setHeader(name, value);
  res.setHeader('Content-Type', 'application/problem+json');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

const notFound = (detail: string): HttpProblem => new HttpProblem(404, 'not-found', 'Not Found', detail);
const invalidBody = (detail: string, errors: Issue[] = []): HttpProblem =>
  new HttpProblem(422, 'invalid-body', 'Unprocessable Content', detail, errors);
const badParameter = (detail: string, parameter: string): HttpProblem =>
  new HttpProblem(400, 'invalid-parameter', 'Bad Request', detail, [{ parameter, detail }]);

/** Percent-decodes one raw path segment; a malformed escape is a 400. */
function decodeSegment(raw: string, name: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw badParameter(`the ${name} is not validly percent-encoded`, name);
  }
}

type Handler = (req: IncomingMessage, res: ServerResponse, param: string) => Promise<void> | void;
interface Route {
  /** Raw path segments after the leading slash; ':' marks the single parameter. */
  pattern: string[];
  methods: Partial<Record<string, Handler>>;
}

export class IndependentServer {
  private readonly token: string;
  private readonly store = new Store();
  private server: Server | undefined;
  private readonly routes: Route[];

  constructor(options: { token?: string } = {}) {
    this.token = options.token ?? INDEPENDENT_TOKEN;
    const cp = ['api', 'v1', 'counterparties'];
    this.routes = [
      {
        pattern: [...cp, ':'],
        methods: {
          GET: (_q, s, p) => this.getCounterparty(s, p),
          PATCH: (q, s, p) => this.patchCounterparty(q, s, p),
        },
      },
      {
        pattern: ['api', 'v1', 'bills'],
        methods: { GET: (q, s) => this.listBills(q, s), POST: (q, s) => this.createBill(q, s) },
      },
      {
        pattern: ['api', 'v1', 'bills', ':'],
        methods: { GET: (_q, s, p) => this.getBill(s, p), PATCH: (q, s, p) => this.patchBill(q, s, p) },
      },
      {
        pattern: ['api', 'v1', 'bills', ':', 'document'],
        methods: { POST: (q, s, p) => this.uploadDocument(q, s, p) },
      },
      {
        pattern: ['api', 'v1', 'mandates'],
        methods: { GET: (_q, s) => this.listMandates(s), POST: (q, s) => this.createMandate(q, s) },
      },
      {
        pattern: ['api', 'v1', 'mandates', ':'],
        methods: { GET: (_q, s, p) => this.getMandate(s, p), DELETE: (_q, s, p) => this.cancelMandate(s, p) },
      },
      {
        pattern: ['api', 'v1', 'direct-debit'],
        methods: { GET: (q, s) => this.listCollections(q, s), POST: (q, s) => this.createCollection(q, s) },
      },
      {
        pattern: ['api', 'v1', 'direct-debit', ':'],
        methods: { GET: (_q, s, p) => this.getCollection(s, p) },
      },
    ];
  }

  async start(port = 0): Promise<string> {
    if (this.server) throw new Error('IndependentServer already started');
    const server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) {
          const problem = new HttpProblem(500, 'internal', 'Internal Server Error', String(error));
          sendProblem(res, problem, req.url ?? '/');
        } else {
          res.destroy();
        }
      });
    });
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

  // -------------------------------------------------------------------------------------------

  private authenticate(header: string | undefined): 'ok' | 'missing' | 'invalid' {
    const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?:[ \t]+(.*))?$/.exec((header ?? '').trim());
    if (!match || match[1]!.toLowerCase() !== 'bearer') return 'missing';
    const credentials = (match[2] ?? '').trim();
    if (credentials === '') return 'missing';
    const given = Buffer.from(credentials);
    const expected = Buffer.from(this.token);
    return given.length === expected.length && timingSafeEqual(given, expected) ? 'ok' : 'invalid';
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? '/';
    try {
      const auth = this.authenticate(req.headers.authorization);
      if (auth !== 'ok') {
        throw new HttpProblem(
          401,
          'unauthorized',
          'Unauthorized',
          auth === 'missing' ? 'send Authorization: Bearer <token>' : 'the bearer token is not valid',
          [],
          { 'WWW-Authenticate': auth === 'missing' ? 'Bearer' : 'Bearer error="invalid_token"' },
        );
      }
      // The path is split into segments on the raw target, before any percent-decoding, so
      // that a slash always separates segments and an encoded %2F never does.
      let rawPath = target.split('?')[0]!.split('#')[0]!;
      const absolute = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/]*/.exec(rawPath);
      if (absolute) rawPath = rawPath.slice(absolute[0].length) || '/';
      if (!rawPath.startsWith('/')) throw notFound('no such resource');
      const segments = rawPath.slice(1).split('/');
      const route = this.routes.find(
        (r) =>
          r.pattern.length === segments.length &&
          r.pattern.every((p, i) => (p === ':' ? segments[i] !== '' : p === segments[i])),
      );
      if (!route) throw notFound(`no resource at ${rawPath}`);
      const param = segments[route.pattern.indexOf(':')] ?? '';
      let method = (req.method ?? 'GET').toUpperCase();
      const allowed = Object.keys(route.methods);
      if (allowed.includes('GET')) allowed.push('HEAD');
      if (method === 'OPTIONS') {
        req.resume();
        res.statusCode = 204;
        res.setHeader('Allow', [...allowed, 'OPTIONS'].join(', '));
        res.end();
        return;
      }
      if (method === 'HEAD') method = 'GET';
      const handler = route.methods[method];
      if (!handler) {
        throw new HttpProblem(
          405,
          'method-not-allowed',
          'Method Not Allowed',
          `${method} is not supported here`,
          [],
          {
            Allow: [...allowed, 'OPTIONS'].join(', '),
          },
        );
      }
      await handler(req, res, param);
    } catch (error) {
      if (!(error instanceof HttpProblem)) throw error;
      req.resume();
      sendProblem(res, error, target.split('?')[0]!);
    }
  }

  /** Reads the body, requires a JSON media type (415 otherwise) and parses it (422 if malformed). */
  private async readJson(req: IncomingMessage): Promise<unknown> {
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
        { 'Accept-Patch': 'application/json' },
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
  private async readObject(req: IncomingMessage): Promise<Record<string, unknown>> {
    const body = await this.readJson(req);
    if (!isPlainObject(body) || Object.keys(body).length === 0) {
      throw invalidBody('the body must be a non-empty JSON object', [
        { pointer: '', detail: 'not a non-empty object' },
      ]);
    }
    return body;
  }

  // ------------------------------------------------------------------ counterparties (4.1, 4.2)

  private counterparty(rawReference: string) {
    const reference = decodeSegment(rawReference, 'counterpartyReference');
    const problem = referenceProblem(reference);
    if (problem) throw badParameter(problem, 'counterpartyReference');
    const cp = this.store.counterparties.get(reference);
    if (!cp) throw notFound(`no counterparty ${reference}`);
    return cp;
  }

  private getCounterparty(res: ServerResponse, rawReference: string): void {
    send(res, 200, present(this.counterparty(rawReference)));
  }

  private async patchCounterparty(
    req: IncomingMessage,
    res: ServerResponse,
    rawReference: string,
  ): Promise<void> {
    const cp = this.counterparty(rawReference); // existence before the body
    const body = await this.readJson(req);
    const result = validatePatch(body);
    if ('issues' in result) throw invalidBody('the patch does not conform to the interface', result.issues);
    const added = result.patch.accounts?.length ?? 0;
    if (cp.counterpartyAccounts.length + added > MAX_ACCOUNTS) {
      throw invalidBody(`a counterparty holds at most ${MAX_ACCOUNTS} accounts`, [
        { pointer: '/counterpartyAccounts', detail: 'too many accounts' },
      ]);
    }
    this.store.applyPatch(cp, result.patch);
    send(res, 200, present(cp));
  }

  // ------------------------------------------------------------------------------ bills (4.3)

  private billParam(raw: string): string {
    const id = decodeSegment(raw, 'uniqueReferenceIdentifier');
    if (codePointLength(id) > 100)
      throw badParameter('uniqueReferenceIdentifier is too long', 'uniqueReferenceIdentifier');
    return id;
  }

  private listBills(req: IncomingMessage, res: ServerResponse): void {
    const query = new URL(req.url ?? '/', 'http://localhost').searchParams;
    const number = (name: string, fallback: number): number => {
      const raw = query.get(name);
      if (raw === null) return fallback;
      if (!/^[0-9]{1,6}$/.test(raw)) throw badParameter(`${name} must be an integer >= 0`, name);
      return Number(raw);
    };
    const page = number('page', 0);
    const pageSize = number('pageSize', 20);
    let bills = [...this.store.bills.values()];
    for (const filter of ['status', 'type', 'cashflowType', 'counterpartyReference']) {
      const wanted = query.get(filter);
      if (wanted !== null) bills = bills.filter((b) => b[filter] === wanted);
    }
    const from = query.get('dueDateFrom');
    const to = query.get('dueDateTo');
    if (from !== null) bills = bills.filter((b) => typeof b.dueDate === 'string' && b.dueDate >= from);
    if (to !== null) bills = bills.filter((b) => typeof b.dueDate === 'string' && b.dueDate <= to);
    const content = pageSize === 0 ? [] : bills.slice(page * pageSize, (page + 1) * pageSize);
    send(res, 200, {
      bills: content,
      paginationDetails: {
        page,
        pageSize,
        totalElements: bills.length,
        totalPages: pageSize === 0 ? 0 : Math.ceil(bills.length / pageSize),
      },
    });
  }

  private checkBillStatus(body: Record<string, unknown>): void {
    if (body.status === 'PROCESSING') {
      throw invalidBody('PROCESSING is set by the service only', [
        { pointer: '/status', detail: 'PROCESSING cannot be written' },
      ]);
    }
  }

  private async createBill(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await this.readObject(req);
    this.checkBillStatus(body);
    let id = body.uniqueReferenceIdentifier;
    if (id === undefined) id = this.store.nextId('BILL');
    if (typeof id !== 'string' || id === '' || codePointLength(id) > 100 || id.includes('/')) {
      throw invalidBody('uniqueReferenceIdentifier is not usable', [
        { pointer: '/uniqueReferenceIdentifier', detail: 'must be a string of 1 to 100 characters' },
      ]);
    }
    if (this.store.bills.has(id)) {
      throw new HttpProblem(409, 'conflict', 'Conflict', `bill ${id} exists already`);
    }
    const bill = {
      ...body,
      uniqueReferenceIdentifier: id,
      status: body.status ?? 'OPEN',
      createdAt: timestamp(),
    };
    this.store.bills.set(id, bill);
    send(res, 201, bill, { Location: `/api/v1/bills/${encodeURIComponent(id)}` });
  }

  private getBill(res: ServerResponse, raw: string): void {
    const id = this.billParam(raw);
    const bill = this.store.bills.get(id);
    if (!bill) throw notFound(`no bill ${id}`);
    send(res, 200, bill);
  }

  private async patchBill(req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
    const id = this.billParam(raw);
    const bill = this.store.bills.get(id);
    if (!bill) throw notFound(`no bill ${id}`);
    const body = await this.readObject(req);
    this.checkBillStatus(body);
    const updated = { ...bill, ...body, uniqueReferenceIdentifier: id, updatedAt: timestamp() };
    this.store.bills.set(id, updated);
    send(res, 200, updated);
  }

  private async uploadDocument(req: IncomingMessage, res: ServerResponse, raw: string): Promise<void> {
    const id = this.billParam(raw);
    if (!this.store.bills.has(id)) throw notFound(`no bill ${id}`);
    const media = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (media === 'application/json' || media.endsWith('+json')) await this.readObject(req);
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
    send(res, 201, { uniqueReferenceIdentifier: id, documentId: this.store.nextId('DOC') });
  }

  // --------------------------------------------------------------------------- mandates (4.3)

  private referenceParam(raw: string, name: string): string {
    const id = decodeSegment(raw, name);
    if (codePointLength(id) > 100 || !ID_PATTERN.test(id)) {
      throw badParameter(`${name} must match ${String(ID_PATTERN)}`, name);
    }
    return id;
  }

  private listMandates(res: ServerResponse): void {
    send(res, 200, { mandates: [...this.store.mandates.values()] });
  }

  private async createMandate(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await this.readObject(req);
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
    const reference = id as string;
    if (this.store.mandates.has(reference)) {
      throw new HttpProblem(409, 'conflict', 'Conflict', `mandate ${reference} exists already`);
    }
    const mandate = { ...body, mandateReference: reference, status: 'ACTIVE', createdAt: timestamp() };
    this.store.mandates.set(reference, mandate);
    send(res, 201, mandate, { Location: `/api/v1/mandates/${reference}` });
  }

  private getMandate(res: ServerResponse, raw: string): void {
    const id = this.referenceParam(raw, 'mandateReference');
    const mandate = this.store.mandates.get(id);
    if (!mandate) throw notFound(`no mandate ${id}`);
    send(res, 200, mandate);
  }

  private cancelMandate(res: ServerResponse, raw: string): void {
    const id = this.referenceParam(raw, 'mandateReference');
    const mandate = this.store.mandates.get(id);
    if (!mandate) throw notFound(`no mandate ${id}`);
    if (mandate.status !== 'ACTIVE') {
      throw new HttpProblem(409, 'conflict', 'Conflict', `mandate ${id} is ${mandate.status}, not active`);
    }
    mandate.status = 'CANCELLED';
    mandate.updatedAt = timestamp();
    send(res, 200, mandate);
  }

  // ----------------------------------------------------------------------- direct debit (4.3)

  private listCollections(req: IncomingMessage, res: ServerResponse): void {
    const query = new URL(req.url ?? '/', 'http://localhost').searchParams;
    const all = [...this.store.collections.values()];
    const cursor = query.get('cursor');
    const start = cursor === null ? 0 : all.findIndex((c) => c.collectionReference === cursor) + 1;
    const items = all.slice(start, start + 50);
    const last = items[items.length - 1];
    const more = start + items.length < all.length;
    send(res, 200, { items, nextCursor: more && last ? last.collectionReference : null });
  }

  private async createCollection(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await this.readObject(req);
    const issues: Issue[] = [];
    if (body.currency !== undefined && body.currency !== 'EUR')
      issues.push({ pointer: '/currency', detail: 'EUR only' });
    if (body.mandateReference !== undefined) {
      const mandate =
        typeof body.mandateReference === 'string'
          ? this.store.mandates.get(body.mandateReference)
          : undefined;
      if (mandate?.status !== 'ACTIVE')
        issues.push({ pointer: '/mandateReference', detail: 'no active mandate' });
    }
    if (issues.length > 0) throw invalidBody('the collection cannot be started', issues);
    const reference = this.store.nextId('COL');
    const collection = { ...body, collectionReference: reference, status: 'PENDING', createdAt: timestamp() };
    this.store.collections.set(reference, collection);
    send(res, 201, collection, { Location: `/api/v1/direct-debit/${reference}` });
  }

  private getCollection(res: ServerResponse, raw: string): void {
    const id = this.referenceParam(raw, 'collectionReference');
    const collection = this.store.collections.get(id);
    if (!collection) throw notFound(`no collection ${id}`);
    send(res, 200, collection);
  }
}
