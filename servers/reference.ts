/**
 * The embedded reference server: a conforming, in-memory implementation of the interface of
 * ../shared/interface.md, built on node:http. Every constraint it enforces is read from
 * spec/openapi.yaml through spec/index.ts (no pattern or length is repeated here), and every
 * counterparty it stores is checked against the spec's Counterparty schema.
 *
 * The faulty servers of servers/gallery/ are subclasses that override one protected hook each,
 * so the hooks below are cut where a real implementation typically goes wrong: path splitting
 * and decoding, routing, authentication, reference validation, lookup, the response mapping of
 * a counterparty, its timestamps, media type and lifecycle headers, and one handler per
 * operation of the document.
 *
 * Choices where the document is silent (section numbers refer to interface.md):
 * - Error bodies are `{"error":{"code":"...","message":"..."}}` (§7 does not show a shape).
 * - An unknown counterparty is 404; unauthenticated requests are 401 with an RFC 6750 Bearer
 *   challenge (§7 shows neither status).
 * - Authentication is checked as soon as the path matches a route, before the method (405),
 *   the path parameters (400) and the body, so an unauthenticated client learns nothing else.
 *   Paths that match no route are 404 without authentication.
 * - A path with an empty segment (`/api/v1/counterparties/`, a trailing slash) matches no route.
 * - PATCH validates the request (reference, media type, JSON, schema) before looking up the
 *   counterparty, so an invalid body is 400 even for an unknown counterparty; success is 200.
 * - PATCH merges counterpartyDetails field by field; a sent address replaces the stored address
 *   as a whole (the document does not say whether address is merged or replaced).
 * - A new account takes only the properties PatchCounterpartyAccount declares; the server sets
 *   state ACTIVE, verificationStatus UNVERIFIED and both timestamps, whatever the client sends.
 * - The patch schema allows any two upper-case letters as an account country, while a returned
 *   account must carry a country from the list (§2.3). A patch whose result would not be a valid
 *   Counterparty is refused with 400 and nothing is stored.
 * - The other twelve operations have no payloads in the document: lists are empty until
 *   something is created, creation takes any non-empty JSON object, bills and collections can
 *   be read back, a created mandate can be cancelled once (active -> CANCELLED, then 409).
 *   Query parameters (filters, pagination) are accepted and ignored.
 * - HEAD is answered on every path that has GET, as GET without its content (RFC 9110 §9.3.2), and
 *   listed in Allow. A counterparty is sent with a strong ETag of its exact text; If-Match and
 *   If-None-Match are evaluated on its GET, HEAD and PATCH (RFC 9110 §13.2.2): 304 to a GET or
 *   HEAD naming the current tag, 412 to a PATCH whose condition is false, checked once the
 *   counterparty is found and before the body is read (reference/conditional.ts).
 */
import { timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spec, type Operation } from '../spec/index.ts';
import { preconditionOutcome, strongTag } from './reference/conditional.ts';
import { REFERENCE_TOKEN, seedCounterparties, seedItems } from './reference/seed.ts';
import type { Counterparty, CounterpartyAccount, CounterpartyPatch } from './reference/types.ts';

export {
  MINIMAL_COUNTERPARTY,
  REFERENCE_COUNTERPARTY,
  REFERENCE_TOKEN,
  SEED_ITEM_REFS,
  WRITABLE_COUNTERPARTIES,
  WRITABLE_COUNTERPARTY,
} from './reference/seed.ts';

/** RFC 9745 structured date: 2025-12-31T23:59:59Z. */
export const DEPRECATION_HEADER = '@1767225599';
/** The retirement date, in the date-time form the spec declares for Sunset. */
export const SUNSET_HEADER = '2027-06-30T23:59:59Z';

export const REALM = 'payflow';

/** The largest JSON body accepted (the document shows no limit). */
export const MAX_JSON_BODY = 1024 * 1024;
/** The largest bill document accepted (the document shows no limit). */
export const MAX_DOCUMENT_BODY = 10 * 1024 * 1024;

/** Media types accepted for a bill document (§4.3: a PDF, JPEG or PNG). */
export const DOCUMENT_MEDIA_TYPES = ['application/pdf', 'image/jpeg', 'image/png', 'multipart/form-data'];

export interface ReferenceOptions {
  token?: string;
  /** Send Deprecation and Sunset on counterparty responses; default true. */
  deprecationHeaders?: boolean;
  now?: () => Date;
}

export type { Address, Counterparty, CounterpartyAccount, CounterpartyPatch } from './reference/types.ts';

/** A schema problem of a request or of a stored counterparty, as ajv reports it. */
export interface SchemaProblem {
  instancePath: string;
  keyword: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** A path that matched a route: its template, the operations on it and the raw parameters. */
export interface PathMatch {
  template: string;
  operations: Operation[];
  /** Path parameters as they appear in the request, still percent-encoded. */
  rawParams: Record<string, string>;
}

/** Everything a handler needs about one request. */
export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  operation: Operation;
  /** Path parameters, percent-decoded. */
  params: Record<string, string>;
}

export type AuthResult = 'ok' | 'missing' | 'invalid';

/** The outcome of reading a body: the value, or undefined when an error was already sent. */
type Read<T> = { ok: true; value: T } | { ok: false };

type Handler = (ctx: RequestContext) => void | Promise<void>;

/** Whether a Content-Type value names JSON: application/json or a +json type. */
export function isJsonMediaType(value: string | undefined): boolean {
  if (!value) return false;
  const type = value.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+\+json$/.test(type);
}

/** A date as YYYY-MM-DDThh:mm:ssZ: UTC, second precision (§2.1). */
export function formatUtcSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Its own, not exchange/own.ts isObject: the servers import only spec/. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function segmentsOf(template: string): string[] {
  return template.split('/').slice(1);
}

export class ReferenceServer {
  protected readonly token: string;
  protected readonly deprecationHeaders: boolean;
  protected clock: () => Date;
  /** Stored counterparties by reference; values are never handed out, only deep copies. */
  protected readonly counterparties = new Map<string, Counterparty>();
  protected readonly bills = new Map<string, Record<string, unknown>>();
  protected readonly mandates = new Map<string, Record<string, unknown>>();
  protected readonly collections = new Map<string, Record<string, unknown>>();
  private sequence = 0;
  private server: Server | undefined;
  private routeTable: { template: string; segments: string[]; operations: Operation[] }[] | undefined;
  private readonly handlers: ReadonlyMap<string, Handler>;

  constructor(options: ReferenceOptions = {}) {
    this.token = options.token ?? REFERENCE_TOKEN;
    this.deprecationHeaders = options.deprecationHeaders ?? true;
    this.clock = options.now ?? (() => new Date());
    const handlers: Record<string, Handler> = {
      getCounterparty: (ctx) => this.getCounterparty(ctx),
      patchCounterparty: (ctx) => this.patchCounterparty(ctx),
      listBills: (ctx) => this.listBills(ctx),
      ingestBill: (ctx) => this.ingestBill(ctx),
      getBill: (ctx) => this.getBill(ctx),
      updateBill: (ctx) => this.updateBill(ctx),
      uploadBillDocument: (ctx) => this.uploadBillDocument(ctx),
      listMandates: (ctx) => this.listMandates(ctx),
      createMandate: (ctx) => this.createMandate(ctx),
      getMandate: (ctx) => this.getMandate(ctx),
      cancelMandate: (ctx) => this.cancelMandate(ctx),
      listDirectDebits: (ctx) => this.listDirectDebits(ctx),
      createDirectDebit: (ctx) => this.createDirectDebit(ctx),
      getDirectDebit: (ctx) => this.getDirectDebit(ctx),
    };
    this.handlers = new Map(Object.entries(handlers));
    for (const op of spec().operations()) {
      if (!this.handlers.has(op.operationId))
        throw new Error(`reference server: no handler for ${op.operationId}`);
    }
    for (const cp of this.seed()) this.store(cp);
    const items = seedItems();
    for (const [into, list, key] of [
      [this.bills, items.bills, 'uniqueReferenceIdentifier'],
      [this.mandates, items.mandates, 'mandateReference'],
      [this.collections, items.collections, 'collectionReference'],
    ] as const)
      for (const item of list) into.set(item[key] as string, item);
  }

  // ---------------------------------------------------------------- lifecycle

  /**
   * Listens on `host`, 127.0.0.1 unless `payflow-conformance serve --host` asks for another (port
   * 0: a free port); resolves the base URL.
   */
  async start(port = 0, host = '127.0.0.1'): Promise<string> {
    if (this.server) throw new Error('reference server: already started');
    const server = createServer((req, res) => {
      void this.handle(req, res);
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    }).catch((error: unknown) => {
      this.server = undefined;
      throw error;
    });
    const address = server.address() as AddressInfo;
    const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    return `http://${shown}:${address.port}`;
  }

  async stop(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve, reject) => {
      server.close((error) => (error ? reject(error) : resolve()));
      server.closeAllConnections();
    });
  }

  // ---------------------------------------------------------------- seed data

  /** The counterparties every fresh server starts with (servers/reference/seed.ts). */
  protected seed(): Counterparty[] {
    return seedCounterparties();
  }

  /** Stores a deep copy of a counterparty that must validate against the spec. */
  protected store(cp: Counterparty): void {
    const errors = spec().errors('Counterparty', cp);
    if (errors.length > 0) {
      const list = errors.map((e) => `${e.instancePath || '(root)'} ${e.message ?? e.keyword}`).join('; ');
      throw new Error(
        `reference server: counterparty ${cp.counterpartyReference} breaks the schema: ${list}`,
      );
    }
    this.counterparties.set(cp.counterpartyReference, structuredClone(cp));
  }

  // ---------------------------------------------------------------- request pipeline

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      await this.route(req, res);
    } catch (error) {
      // Safety net: the reference never gets here, but a faulty variant that throws does.
      if (!res.headersSent) {
        const message = error instanceof Error ? error.message : String(error);
        this.sendError(res, 500, 'INTERNAL_ERROR', message);
      } else {
        res.destroy();
      }
    }
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    if (!url.startsWith('/'))
      return this.sendError(res, 404, 'NOT_FOUND', 'No route matches the request path.');
    const query = url.indexOf('?');
    const rawPath = query === -1 ? url : url.slice(0, query);
    const match = this.matchPath(this.splitPath(rawPath));
    if (!match) return this.sendError(res, 404, 'NOT_FOUND', 'No route matches the request path.');

    const method = (req.method ?? 'GET').toUpperCase();
    const operation = this.routedOperation(match.operations, method);
    const guarded = operation
      ? this.authRequired(operation)
      : match.operations.some((op) => this.authRequired(op));
    if (guarded) {
      const auth = this.authenticate(req.headers.authorization);
      if (auth !== 'ok') return this.rejectUnauthenticated(res, auth);
    }
    if (!operation) return this.methodNotAllowed(res, method, match);
    const decodedParams: [string, string][] = [];
    for (const [name, raw] of Object.entries(match.rawParams)) {
      const decoded = this.decodeSegment(raw);
      if (decoded === undefined) {
        return this.sendError(
          res,
          400,
          'MALFORMED_PATH',
          `The path parameter ${name} is not valid percent-encoding.`,
        );
      }
      decodedParams.push([name, decoded]);
    }
    const params: Record<string, string> = Object.fromEntries(decodedParams);
    const ctx: RequestContext = { req, res, operation, params };
    for (const [name, value] of Object.entries(params)) {
      if (!this.isValidPathParam(operation, name, value)) return this.rejectPathParam(ctx, name, value);
    }
    await this.handlers.get(operation.operationId)!(ctx);
  }

  // ---------------------------------------------------------------- routing hooks

  /** The operation a method calls on a path: HEAD calls GET's, answered without content (RFC 9110 §9.3.2). */
  protected routedOperation(operations: Operation[], method: string): Operation | undefined {
    const called = method === 'HEAD' ? 'GET' : method;
    return operations.find((op) => op.method === called);
  }

  /** The methods a path answers: its operations', and HEAD where it has GET. */
  protected allowedMethods(match: PathMatch): string[] {
    const methods = match.operations.map((op) => op.method);
    return methods.includes('GET') ? [...methods, 'HEAD'] : methods;
  }

  /** A method the path does not have, once authenticated: 405 with the path's methods in Allow. */
  protected methodNotAllowed(res: ServerResponse, method: string, match: PathMatch): void {
    const allow = this.allowedMethods(match).join(', ');
    this.sendError(res, 405, 'METHOD_NOT_ALLOWED', `${method} is not allowed on ${match.template}.`, {
      Allow: allow,
    });
  }

  /** The operations that are routed; by default every operation of the spec. */
  protected operations(): Operation[] {
    return spec().operations();
  }

  /**
   * Splits the raw request path (query removed) into segments BEFORE any percent-decoding, so an
   * encoded slash (%2F) stays inside its segment and a raw slash separates two segments.
   */
  protected splitPath(rawPath: string): string[] {
    return rawPath.split('/').slice(1);
  }

  /** Finds the route whose template matches the raw segments; parameters match one non-empty segment. */
  protected matchPath(segments: string[]): PathMatch | undefined {
    this.routeTable ??= this.buildRouteTable();
    for (const route of this.routeTable) {
      if (route.segments.length !== segments.length) continue;
      const rawParams: [string, string][] = [];
      const matches = route.segments.every((part, i) => {
        const segment = segments[i]!;
        const param = /^\{(.+)\}$/.exec(part);
        if (!param) return part === segment;
        rawParams.push([param[1]!, segment]);
        return segment !== '';
      });
      if (matches)
        return {
          template: route.template,
          operations: route.operations,
          rawParams: Object.fromEntries(rawParams),
        };
    }
    return undefined;
  }

  private buildRouteTable(): { template: string; segments: string[]; operations: Operation[] }[] {
    const byPath = new Map<string, Operation[]>();
    for (const op of this.operations()) byPath.set(op.path, [...(byPath.get(op.path) ?? []), op]);
    return [...byPath].map(([template, operations]) => ({
      template,
      segments: segmentsOf(template),
      operations,
    }));
  }

  /** Percent-decodes one path segment; undefined when the encoding is malformed (400). */
  protected decodeSegment(raw: string): string | undefined {
    try {
      return decodeURIComponent(raw);
    } catch {
      return undefined;
    }
  }

  // ---------------------------------------------------------------- authentication hooks

  /** Whether an operation requires the bearer token: every operation of the document does (§5). */
  protected authRequired(_operation: Operation): boolean {
    return true;
  }

  /** Judges the Authorization header: missing, or a Bearer credential that must equal the token. */
  protected authenticate(header: string | undefined): AuthResult {
    if (header === undefined) return 'missing';
    const m = /^Bearer +([^\s]+) *$/i.exec(header);
    if (!m) return 'invalid';
    const given = Buffer.from(m[1]!);
    const expected = Buffer.from(this.token);
    return given.length === expected.length && timingSafeEqual(given, expected) ? 'ok' : 'invalid';
  }

  /** The RFC 6750 challenge sent with a 401. */
  protected challenge(result: Exclude<AuthResult, 'ok'>): string | undefined {
    return result === 'missing'
      ? `Bearer realm="${REALM}"`
      : `Bearer realm="${REALM}", error="invalid_token"`;
  }

  /** Refuses an unauthenticated request: 401 with a Bearer challenge. */
  protected rejectUnauthenticated(res: ServerResponse, result: Exclude<AuthResult, 'ok'>): void {
    const challenge = this.challenge(result);
    const headers: Record<string, string> = challenge === undefined ? {} : { 'WWW-Authenticate': challenge };
    if (result === 'missing') {
      this.sendError(res, 401, 'UNAUTHENTICATED', 'An Authorization: Bearer header is required.', headers);
    } else {
      this.sendError(res, 401, 'INVALID_TOKEN', 'The bearer token is not valid.', headers);
    }
  }

  // ---------------------------------------------------------------- path parameter hooks

  /** Whether a counterparty reference keeps the length and pattern of the spec. */
  protected isValidReference(reference: string): boolean {
    return spec().errors('CounterpartyReference', reference).length === 0;
  }

  /** Whether a decoded path parameter is valid: counterparty references here, others by their spec schema. */
  protected isValidPathParam(operation: Operation, name: string, value: string): boolean {
    if (name === 'counterpartyReference') return this.isValidReference(value);
    const schema = operation.pathParamSchemas.get(name);
    return schema === undefined || spec().ajv.validate(schema, value) === true;
  }

  /** Answers a path parameter that violates its length or pattern: 400 (§7). */
  protected rejectPathParam(ctx: RequestContext, name: string, _value: string): void {
    const code =
      name === 'counterpartyReference' ? 'INVALID_COUNTERPARTY_REFERENCE' : 'INVALID_PATH_PARAMETER';
    this.sendError(ctx.res, 400, code, `The path parameter ${name} violates its length or pattern.`);
  }

  // ---------------------------------------------------------------- counterparty hooks

  /** The stored counterparty with this reference (the stored object itself; copy before handing out). */
  protected lookup(reference: string): Counterparty | undefined {
    return this.counterparties.get(reference);
  }

  /** The response body for a counterparty: a deep copy, never aliasing stored state. */
  protected present(cp: Counterparty): Record<string, unknown> {
    const out = structuredClone(cp);
    const stamp = (o: Record<string, unknown>): void => {
      for (const field of ['createdAt', 'updatedAt', 'lastVerifiedAt'] as const) {
        if (typeof o[field] === 'string') o[field] = this.formatTimestamp(o[field]);
      }
    };
    stamp(out);
    for (const account of out.counterpartyAccounts ?? []) stamp(account);
    return out;
  }

  /** How a stored timestamp (YYYY-MM-DDThh:mm:ssZ) is written in a response: unchanged. */
  protected formatTimestamp(stored: string): string {
    return stored;
  }

  /**
   * Takes its time from `now` from here on: a run judging it on a clock of its own (the
   * self-tests' virtual one) gives it that clock, whatever the server was made with.
   */
  useClock(now: () => Date): this {
    this.clock = now;
    return this;
  }

  /** The current time as a stored timestamp. */
  protected now(): string {
    return formatUtcSeconds(this.clock());
  }

  /** The media type of JSON responses. */
  protected jsonMediaType(): string | undefined {
    return 'application/json; charset=utf-8';
  }

  /**
   * Deprecation and Sunset, sent with every counterparty returned (§4.1, §4.2, §9); the same for
   * every operation that sends them, as §4.2 asks of PATCH.
   */
  protected lifecycleHeaders(_operation?: Operation): Record<string, string> {
    if (!this.deprecationHeaders) return {};
    return { Deprecation: DEPRECATION_HEADER, Sunset: SUNSET_HEADER };
  }

  /** Applies a validated patch to a copy of a counterparty; the stored one is untouched. */
  protected applyPatch(current: Counterparty, patch: CounterpartyPatch): Counterparty {
    const next = structuredClone(current);
    // Second precision and never earlier than the stored value, even if the clock goes back.
    const now = [this.now(), current.updatedAt].sort().at(-1)!;
    if (patch.counterpartyDetails) this.mergeDetails(next, structuredClone(patch.counterpartyDetails));
    if (patch.counterpartyAccounts) {
      const added = patch.counterpartyAccounts.map((item) => this.newAccount(item, now));
      next.counterpartyAccounts = this.mergeAccounts(next.counterpartyAccounts ?? [], added);
    }
    next.updatedAt = now;
    return next;
  }

  /** Merges sent details field by field; a sent address replaces the stored one as a whole. */
  protected mergeDetails(
    into: Counterparty,
    details: NonNullable<CounterpartyPatch['counterpartyDetails']>,
  ): void {
    Object.assign(into, details);
  }

  /** The accounts after a patch: the existing ones, then the added ones. */
  protected mergeAccounts(
    existing: CounterpartyAccount[],
    added: CounterpartyAccount[],
  ): CounterpartyAccount[] {
    return [...existing, ...added];
  }

  /** A new account from a patch item: only declared fields, ACTIVE and UNVERIFIED, stamped now. */
  protected newAccount(item: Record<string, unknown>, now: string): CounterpartyAccount {
    const declared = Object.keys(spec().schema('PatchCounterpartyAccount').properties ?? {});
    // Only declared fields, so a client cannot set state, verification or timestamps.
    const fields = Object.fromEntries(
      Object.entries(structuredClone(item)).filter(([key]) => declared.includes(key)),
    ) as Partial<CounterpartyAccount>;
    return {
      state: 'ACTIVE',
      verificationStatus: 'UNVERIFIED',
      createdAt: now,
      updatedAt: now,
      ...fields,
    } as CounterpartyAccount;
  }

  // ---------------------------------------------------------------- handlers: counterparties

  protected getCounterparty(ctx: RequestContext): void {
    const cp = this.lookup(ctx.params.counterpartyReference!);
    if (!cp) return this.counterpartyNotFound(ctx);
    const body = this.present(cp);
    const headers = { ...this.lifecycleHeaders(ctx.operation), ...this.validators(body) };
    const outcome = this.preconditions(ctx, body);
    if (outcome === 304) return this.notModified(ctx, headers);
    if (outcome === 412) return this.preconditionFailed(ctx);
    this.sendJson(ctx.res, 200, body, headers);
  }

  // ---------------------------------------------------------------- validator hooks

  /** The entity tag of a counterparty's representation: strong, of the exact text sent. */
  protected entityTag(body: unknown): string | undefined {
    return strongTag(JSON.stringify(body));
  }

  /** The validator fields sent with a counterparty's representation. */
  protected validators(body: unknown): Record<string, string> {
    const tag = this.entityTag(body);
    return tag === undefined ? {} : { ETag: tag };
  }

  /** What the request's If-Match and If-None-Match make of it, against the representation `current`. */
  protected preconditions(ctx: RequestContext, current: unknown): 304 | 412 | undefined {
    const tag = this.entityTag(current);
    if (tag === undefined) return undefined;
    const { req } = ctx;
    return preconditionOutcome(
      (req.method ?? 'GET').toUpperCase(),
      req.headers['if-match'],
      req.headers['if-none-match'],
      tag,
    );
  }

  /** 304 with the fields a 200 would carry, and no content (RFC 9110 §15.4.5). */
  protected notModified(ctx: RequestContext, headers: Record<string, string>): void {
    ctx.res.writeHead(304, { 'Cache-Control': 'no-store', ...headers });
    ctx.res.end();
  }

  protected preconditionFailed(ctx: RequestContext): void {
    ctx.req.resume();
    this.sendError(ctx.res, 412, 'PRECONDITION_FAILED', 'A precondition of the request is false.');
  }

  /**
   * A PATCH's body, read and validated against PatchCounterpartyRequest; undefined when it was
   * answered already (not JSON, or a 400 listing what it breaks).
   */
  protected async readValidPatch(ctx: RequestContext): Promise<CounterpartyPatch | undefined> {
    const read = await this.readJson(ctx, { strictMediaType: true });
    if (!read.ok) return undefined;
    const errors = this.validatePatch(read.value);
    if (errors.length > 0) {
      this.sendError(
        ctx.res,
        400,
        'INVALID_REQUEST',
        'The body violates PatchCounterpartyRequest.',
        {},
        errors,
      );
      return undefined;
    }
    return read.value as CounterpartyPatch;
  }

  protected async patchCounterparty(ctx: RequestContext): Promise<void> {
    // Preconditions once the counterparty is found, before the body is processed (RFC 9110 §13.2.1).
    const found = this.lookup(ctx.params.counterpartyReference!);
    if (found && this.preconditions(ctx, this.present(found)) !== undefined)
      return this.preconditionFailed(ctx);
    const patch = await this.readValidPatch(ctx);
    if (patch === undefined) return;
    const reference = ctx.params.counterpartyReference!;
    const current = this.lookup(reference);
    if (!current) return this.patchUnknown(ctx, patch);
    const next = this.applyPatch(current, patch);
    const problems = this.resultProblems(next);
    if (problems.length > 0) {
      return this.sendError(
        ctx.res,
        400,
        'INVALID_REQUEST',
        'The patched counterparty would break the Counterparty schema (e.g. a country outside the list).',
        {},
        problems,
      );
    }
    this.save(next);
    this.sendUpdated(ctx, next, current);
  }

  /** The problems of a patch body: its errors against the spec's PatchCounterpartyRequest. */
  protected validatePatch(body: unknown): SchemaProblem[] {
    return spec().errors('PatchCounterpartyRequest', body);
  }

  /** The problems of a patched counterparty: a PATCH that would store an invalid one is refused. */
  protected resultProblems(next: Counterparty): SchemaProblem[] {
    return spec().errors('Counterparty', next);
  }

  /** Stores an updated counterparty (a deep copy). */
  protected save(cp: Counterparty): void {
    this.counterparties.set(cp.counterpartyReference, structuredClone(cp));
  }

  /** Answers an accepted PATCH: 200 with the updated counterparty, as stored. */
  protected sendUpdated(ctx: RequestContext, updated: Counterparty, _previous: Counterparty): void {
    const body = this.present(updated);
    this.sendJson(ctx.res, 200, body, { ...this.lifecycleHeaders(ctx.operation), ...this.validators(body) });
  }

  /** A valid PATCH of a reference that matches no counterparty: 404, nothing is created. */
  protected patchUnknown(ctx: RequestContext, _patch: CounterpartyPatch): void {
    this.counterpartyNotFound(ctx);
  }

  protected counterpartyNotFound(ctx: RequestContext): void {
    this.sendError(ctx.res, 404, 'COUNTERPARTY_NOT_FOUND', 'No counterparty has this reference.');
  }

  // ---------------------------------------------------------------- handlers: bills

  protected listBills(ctx: RequestContext): void {
    const bills = [...this.bills.values()].slice(0, 20).map((b) => structuredClone(b));
    this.sendJson(ctx.res, 200, {
      bills,
      paginationDetails: { page: 0, pageSize: 20, totalElements: this.bills.size },
    });
  }

  protected async ingestBill(ctx: RequestContext): Promise<void> {
    await this.create(ctx, this.bills, 'uniqueReferenceIdentifier', 'BILL');
  }

  protected getBill(ctx: RequestContext): void {
    this.sendStored(ctx, this.bills, ctx.params.uniqueReferenceIdentifier!, 'BILL_NOT_FOUND');
  }

  protected async updateBill(ctx: RequestContext): Promise<void> {
    const bill = this.bills.get(ctx.params.uniqueReferenceIdentifier!);
    if (!bill) return this.sendError(ctx.res, 404, 'BILL_NOT_FOUND', 'No bill has this reference.');
    const read = await this.readJsonObject(ctx);
    if (!read.ok) return;
    const { uniqueReferenceIdentifier: _ignored, ...changes } = read.value;
    // Defined, not assigned: a member named __proto__ is a member like any other, not the bill's prototype.
    for (const [key, value] of Object.entries(structuredClone(changes)))
      Object.defineProperty(bill, key, { value, writable: true, enumerable: true, configurable: true });
    this.sendJson(ctx.res, 200, structuredClone(bill));
  }

  protected async uploadBillDocument(ctx: RequestContext): Promise<void> {
    const bill = this.bills.get(ctx.params.uniqueReferenceIdentifier!);
    if (!bill) return this.sendError(ctx.res, 404, 'BILL_NOT_FOUND', 'No bill has this reference.');
    const type = (ctx.req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (!DOCUMENT_MEDIA_TYPES.includes(type)) {
      return this.sendError(ctx.res, 415, 'UNSUPPORTED_MEDIA_TYPE', 'A bill document is a PDF, JPEG or PNG.');
    }
    const body = await this.readBody(ctx, MAX_DOCUMENT_BODY);
    if (!body.ok) return;
    if (body.value.length === 0) return this.sendError(ctx.res, 400, 'EMPTY_BODY', 'The document is empty.');
    const document = { contentType: type, size: body.value.length, uploadedAt: this.now() };
    bill.document = document;
    this.sendJson(ctx.res, 201, {
      uniqueReferenceIdentifier: ctx.params.uniqueReferenceIdentifier,
      document,
    });
  }

  // ---------------------------------------------------------------- handlers: mandates

  protected listMandates(ctx: RequestContext): void {
    this.sendJson(ctx.res, 200, { mandates: [...this.mandates.values()].map((m) => structuredClone(m)) });
  }

  protected async createMandate(ctx: RequestContext): Promise<void> {
    await this.create(ctx, this.mandates, 'mandateReference', 'MANDATE', 'MandateReference', {
      status: 'ACTIVE',
    });
  }

  protected getMandate(ctx: RequestContext): void {
    this.sendStored(ctx, this.mandates, ctx.params.mandateReference!, 'MANDATE_NOT_FOUND');
  }

  /** §3: an active mandate moves to CANCELLED; cancelling it again is a conflict. */
  protected cancelMandate(ctx: RequestContext): void {
    const mandate = this.mandates.get(ctx.params.mandateReference!);
    if (!mandate) return this.sendError(ctx.res, 404, 'MANDATE_NOT_FOUND', 'No mandate has this reference.');
    if (mandate.status !== 'ACTIVE') {
      return this.sendError(ctx.res, 409, 'MANDATE_NOT_ACTIVE', 'Only an active mandate can be cancelled.');
    }
    mandate.status = 'CANCELLED';
    mandate.updatedAt = this.now();
    this.sendJson(ctx.res, 200, structuredClone(mandate));
  }

  // ---------------------------------------------------------------- handlers: direct debit

  protected listDirectDebits(ctx: RequestContext): void {
    const collections = [...this.collections.values()].map((c) => structuredClone(c));
    this.sendJson(ctx.res, 200, { collections, nextCursor: null });
  }

  protected async createDirectDebit(ctx: RequestContext): Promise<void> {
    await this.create(ctx, this.collections, 'collectionReference', 'COLLECTION', 'CollectionReference');
  }

  protected getDirectDebit(ctx: RequestContext): void {
    this.sendStored(ctx, this.collections, ctx.params.collectionReference!, 'COLLECTION_NOT_FOUND');
  }

  // ---------------------------------------------------------------- shared handler helpers

  /**
   * Creates a resource from any non-empty JSON object (payloads are not shown) under a generated
   * reference, checked against the reference schema where the spec has one.
   */
  private async create(
    ctx: RequestContext,
    into: Map<string, Record<string, unknown>>,
    key: string,
    prefix: string,
    referenceSchema?: string,
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    const read = await this.readJsonObject(ctx);
    if (!read.ok) return;
    const reference = `${prefix}-${String(++this.sequence).padStart(6, '0')}`;
    if (referenceSchema !== undefined && spec().errors(referenceSchema, reference).length > 0) {
      throw new Error(`reference server: generated ${reference} breaks ${referenceSchema}`);
    }
    const now = this.now();
    const resource = {
      ...structuredClone(read.value),
      ...extra,
      [key]: reference,
      createdAt: now,
      updatedAt: now,
    };
    into.set(reference, resource);
    this.sendJson(ctx.res, 201, structuredClone(resource), {
      Location: `${ctx.operation.path}/${reference}`,
    });
  }

  private sendStored(
    ctx: RequestContext,
    from: Map<string, Record<string, unknown>>,
    reference: string,
    notFoundCode: string,
  ): void {
    const found = from.get(reference);
    if (!found) return this.sendError(ctx.res, 404, notFoundCode, 'Nothing is stored under this reference.');
    this.sendJson(ctx.res, 200, structuredClone(found));
  }

  /** Reads the whole body, up to `limit` bytes (413 beyond). */
  protected async readBody(ctx: RequestContext, limit: number): Promise<Read<Buffer>> {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      else chunks.push(chunk);
    }
    if (tooLarge) {
      this.sendError(ctx.res, 413, 'PAYLOAD_TOO_LARGE', `The body exceeds ${limit} bytes.`);
      return { ok: false };
    }
    return { ok: true, value: Buffer.concat(chunks) };
  }

  /**
   * Reads a JSON body. With `strictMediaType` a non-JSON Content-Type is 415 (PATCH counterparty);
   * otherwise it is a 400 like any other body that is not JSON. Empty or malformed JSON is 400.
   */
  protected async readJson(ctx: RequestContext, opts: { strictMediaType: boolean }): Promise<Read<unknown>> {
    if (!isJsonMediaType(ctx.req.headers['content-type'])) {
      if (opts.strictMediaType) {
        this.sendError(ctx.res, 415, 'UNSUPPORTED_MEDIA_TYPE', 'The body must be application/json.');
      } else {
        this.sendError(
          ctx.res,
          400,
          'INVALID_BODY',
          'The body must be a JSON object (Content-Type: application/json).',
        );
      }
      return { ok: false };
    }
    const body = await this.readBody(ctx, MAX_JSON_BODY);
    if (!body.ok) return body;
    const text = body.value.toString('utf8');
    if (text.trim() === '') {
      this.sendError(ctx.res, 400, 'EMPTY_BODY', 'A JSON body is required.');
      return { ok: false };
    }
    try {
      return { ok: true, value: JSON.parse(text) as unknown };
    } catch {
      this.sendError(ctx.res, 400, 'MALFORMED_JSON', 'The body is not valid JSON.');
      return { ok: false };
    }
  }

  /** Reads a body that must be a non-empty JSON object (400 otherwise). */
  private async readJsonObject(ctx: RequestContext): Promise<Read<Record<string, unknown>>> {
    const read = await this.readJson(ctx, { strictMediaType: false });
    if (!read.ok) return read;
    if (!isPlainObject(read.value) || Object.keys(read.value).length === 0) {
      this.sendError(ctx.res, 400, 'INVALID_BODY', 'The body must be a non-empty JSON object.');
      return { ok: false };
    }
    return { ok: true, value: read.value };
  }

  // ---------------------------------------------------------------- responses

  protected sendJson(
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ): void {
    const text = JSON.stringify(body);
    const type = this.jsonMediaType();
    res.writeHead(status, {
      ...(type === undefined ? {} : { 'Content-Type': type }),
      'Content-Length': Buffer.byteLength(text),
      'Cache-Control': 'no-store',
      ...headers,
    });
    res.end(text);
  }

  /** An error response: {"error":{"code","message"}} (plus the schema errors of a 400 body, if any). */
  protected sendError(
    res: ServerResponse,
    status: number,
    code: string,
    message: string,
    headers: Record<string, string> = {},
    details?: { instancePath: string; message?: string }[],
  ): void {
    const error: Record<string, unknown> = { code, message };
    if (details)
      error.details = details.map((d) => ({ path: d.instancePath || '/', message: d.message ?? '' }));
    this.sendJson(res, status, { error }, headers);
  }
}
