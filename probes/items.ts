/**
 * Bills, mandates and collections that exist, and the ones the run creates, from what the
 * deployment names in ITEM_FIXTURES (generators/item-fixtures.ts): interface.md §4.3 shows these
 * operations by method, path and purpose only ("Request and response payloads of these operations
 * ... not shown"), so the suite can neither invent an item a deployment accepts nor know one that
 * exists. The other probes of §4.3 send only what no operation can take, to references found to
 * name nothing; these send what the operations are for, and judge that they do it:
 *
 *   - known-items (any run): GET of each item ITEM_FIXTURES names under `read` answers 2xx.
 *   - item-lifecycles (write mode; creates real items, so only with the bodies given): creates a
 *     bill, updates it, links a PDF, a JPEG and a PNG to it; creates a mandate, starts a collection against it, then
 *     cancels it (§3: an active mandate moves to CANCELLED) and reads it back.
 *
 * What the answers are must be is not shown beyond success, so the probes judge that each is
 * accepted (2xx) and, for a created item, that it can be read back; the bodies go to the oracles
 * like every other answer (no 5xx, JSON that parses, the lifecycle headers). A created item is
 * found by the Location header of the answer, or by a field of the answer named like the path
 * parameter of its GET (uniqueReferenceIdentifier, mandateReference, collectionReference); a read
 * may trail a write by the settle window (CONFORMANCE_SETTLE_MS), as a counterparty's may.
 */
import { describeResponse } from '../exchange/describe.ts';
import { is2xx, type Exchange } from '../exchange/exchange.ts';
import { fillPath } from '../exchange/paths.ts';
import type { Probe, ProbeContext } from '../engine/probe-api.ts';
import { fillPlaceholders, type DocumentForm, type ItemFixtures } from '../generators/item-fixtures.ts';
import {
  itemKinds,
  operationIds,
  operationOf,
  purposeOf,
  resourceEntry,
  type ItemKind,
  type RegisteredOperation,
} from '../spec/operations.ts';
import type { RequirementId } from '../spec/requirements.ts';
import type { HttpRequest } from '../transport/client.ts';
import { family } from './family.ts';
import { BILL_DOCUMENTS, type BillDocument } from '../generators/documents.ts';
import { describeOperation } from './operations.ts';
import { own, ownOf } from '../exchange/own.ts';

/** Each kind of item (spec/operations.ts): its GET, the GET's path parameter, its creation, its noun. */
interface Kind {
  read: RegisteredOperation;
  param: string;
  create: RegisteredOperation;
  noun: string;
}

function kindOf(kind: ItemKind): Kind {
  const read = operationOf(kind, 'read');
  return {
    read,
    param: read.pathParams.at(-1)!,
    create: operationOf(kind, 'create'),
    noun: resourceEntry(kind).noun,
  };
}

function itemPath(kind: ItemKind, ref: string): string {
  const k = kindOf(kind);
  return fillPath(k.read.path, { [k.param]: ref });
}

const FIXTURE_HINT = 'if the deployment is right, ITEM_FIXTURES does not hold what it accepts: correct it';

export const knownItems: Probe = {
  id: 'known-items',
  title: 'GET of each bill, mandate and collection ITEM_FIXTURES names as existing: 2xx',
  requirements: ['item-known-readable', 'no-server-error', 'request-answered'],
  judges: ['item-known-readable'],
  group: 'other-operations',
  access: 'read',
  operations: operationIds({ item: true, action: 'read' }),
  async run(ctx) {
    const read = ctx.target.itemFixtures?.read ?? {};
    const kinds = itemKinds().filter((k) => read[k] !== undefined);
    if (kinds.length === 0) {
      ctx.notApplicable(
        'item-known-readable',
        'ITEM_FIXTURES names no existing bill, mandate or collection (its "read" part)',
      );
      return;
    }
    await Promise.all(
      kinds.map(async (kind) => {
        const ref = read[kind]!;
        const ex = await ctx.http.send({
          method: 'GET',
          path: itemPath(kind, ref),
          role: `read of the existing ${kindOf(kind).noun}`,
        });
        if (is2xx(ex.status)) ctx.held('item-known-readable');
        else
          ctx.fail({
            requirement: 'item-known-readable',
            exchange: ex,
            message: `GET of the ${kindOf(kind).noun} ${ref}, which ITEM_FIXTURES names as existing, was answered ${ex.status}`,
            expected: `2xx: the ${kindOf(kind).noun} exists (interface.md §4.3: "get one ${kindOf(kind).noun}"); ${FIXTURE_HINT}`,
            received: describeResponse(ex),
          });
      }),
    );
    ctx.note(`read ${kinds.map((k) => `the ${kindOf(k).noun} ${read[k]!}`).join(', ')}`);
  },
};

/** The reference of a created item: the last segment of a Location below its collection, or the answer's field. */
export function createdReference(
  ex: Exchange,
  kind: ItemKind,
  sent: Record<string, unknown>,
): string | undefined {
  const k = kindOf(kind);
  const collection = k.create.path;
  const location = ex.headers.location;
  if (location !== undefined) {
    try {
      const path = new URL(location, ex.request.url).pathname;
      const prefix = `${collection}/`;
      const at = path.lastIndexOf(prefix);
      const rest = at < 0 ? '' : path.slice(at + prefix.length);
      if (rest !== '' && !rest.includes('/')) return decodeURIComponent(rest);
    } catch {
      // Not a URL, or a segment that does not decode: look at the body.
    }
  }
  const body = ex.body;
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) {
    const value = ownOf(body, k.param);
    if (typeof value === 'string' && value !== '') return value;
  }
  // A client-chosen reference the deployment kept: the body sent named it.
  const chosen = own(sent, k.param);
  return typeof chosen === 'string' && chosen !== '' ? chosen : undefined;
}

/** Whether a JSON value holds the string `wanted` anywhere (the field of a mandate's state is not shown). */
function holds(value: unknown, wanted: string): boolean {
  if (value === wanted) return true;
  if (Array.isArray(value)) return value.some((v) => holds(v, wanted));
  if (value !== null && typeof value === 'object') return Object.values(value).some((v) => holds(v, wanted));
  return false;
}

/** The request that sends a document to a bill, framed as the deployment takes documents. */
export function documentRequest(
  path: string,
  form: DocumentForm,
  boundary: string,
  document: BillDocument = BILL_DOCUMENTS[0]!,
): HttpRequest {
  if (form.kind === 'raw')
    return {
      method: 'POST',
      path,
      rawBody: document.content,
      headers: { 'Content-Type': document.mediaType },
    };
  const head = [
    `--${boundary}`,
    `Content-Disposition: form-data; name="${form.field}"; filename="${document.filename}"`,
    `Content-Type: ${document.mediaType}`,
    '',
    '',
  ].join('\r\n');
  const tail = `\r\n--${boundary}--\r\n`;
  // A text document keeps a text body; an image's bytes make the body bytes.
  const body =
    typeof document.content === 'string'
      ? head + document.content + tail
      : Buffer.concat([Buffer.from(head, 'latin1'), document.content, Buffer.from(tail, 'latin1')]);
  return {
    method: 'POST',
    path,
    rawBody: body,
    headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
  };
}

class Lifecycle {
  constructor(
    private readonly ctx: ProbeContext,
    /** The placeholders of the fixtures' bodies: {{unique}}, then {{mandateReference}}. */
    readonly values: Record<string, string>,
  ) {}

  accepted(requirement: RequirementId, ex: Exchange, what: string, expected: string): boolean {
    if (is2xx(ex.status)) {
      this.ctx.held(requirement);
      return true;
    }
    this.ctx.fail({
      requirement,
      exchange: ex,
      message: `${what} was answered ${ex.status}`,
      expected: `2xx: ${expected}; ${FIXTURE_HINT}`,
      received: describeResponse(ex),
    });
    return false;
  }

  /**
   * Reads an item until `shows` holds of the answer or the settle window is over; the last read.
   */
  async readBack(
    kind: ItemKind,
    ref: string,
    role: string,
    shows: (ex: Exchange) => boolean,
  ): Promise<Exchange> {
    const clock = this.ctx.http.clock;
    const until = clock.now() + (this.ctx.target.settleMs ?? 0);
    let read = await this.ctx.http.send({ method: 'GET', path: itemPath(kind, ref), role });
    // The last read starts after the window (engine/judge.ts judges reads the same way).
    for (let wait = 50; !shows(read) && read.startedAt < until; wait *= 2) {
      await clock.sleep(Math.min(wait, Math.max(0, until - clock.now())));
      read = await this.ctx.http.send({ method: 'GET', path: itemPath(kind, ref), role });
    }
    return read;
  }

  /** Creates an item from its fixture; its reference and the read of it when accepted and read back. */
  async create(
    kind: ItemKind,
    fixture: Record<string, unknown>,
  ): Promise<{ ref: string; read: Exchange } | undefined> {
    const k = kindOf(kind);
    const op = k.create;
    const sent = fillPlaceholders(fixture, this.values);
    const ex = await this.ctx.http.send({
      method: op.method,
      path: op.path,
      json: sent,
      role: `${describeOperation(op)} of the ${k.noun} of ITEM_FIXTURES`,
    });
    if (
      !this.accepted(
        'item-create-accepted',
        ex,
        `${describeOperation(op)} with the ${k.noun} body of ITEM_FIXTURES`,
        `the body is one the deployment accepts (interface.md §4.3: "${purposeOf(op)}")`,
      )
    )
      return undefined;
    const ref = createdReference(ex, kind, sent);
    if (ref === undefined) {
      this.ctx.note(
        `the ${k.noun} created was not read back: neither a Location header nor a ${k.param} field of the answer names it`,
      );
      return undefined;
    }
    const read = await this.readBack(kind, ref, `read of the ${k.noun} created`, (r) => is2xx(r.status));
    if (!is2xx(read.status)) {
      this.ctx.fail({
        requirement: 'item-create-accepted',
        exchange: read,
        message: `the ${k.noun} ${ref} was created (${ex.status}), but GET of it was answered ${read.status}`,
        expected: `2xx: the ${k.noun} the deployment created exists${
          (this.ctx.target.settleMs ?? 0) > 0 ? ` (read again for ${this.ctx.target.settleMs} ms)` : ''
        }`,
        received: describeResponse(read),
        context: [ex],
      });
      return undefined;
    }
    return { ref, read };
  }
}

/**
 * Whether a mandate reads as active: a field named like a state or status holds ACTIVE (in any
 * case; §3 calls the state "active"). The field is not shown, and a mandate may well start
 * pending until its debtor signs: only a mandate that reads as active is cancelled and judged.
 */
export function readsActive(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(readsActive);
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(
    ([key, v]) =>
      (/state|status/i.test(key) && typeof v === 'string' && v.toUpperCase() === 'ACTIVE') || readsActive(v),
  );
}

/** A bill: created, updated, each kind of document linked to it. */
async function billLifecycle(
  ctx: ProbeContext,
  life: Lifecycle,
  fixtures: ItemFixtures | undefined,
  unique: string,
): Promise<void> {
  const create = fixtures?.create?.bill;
  const none = (requirement: RequirementId, what: string): void =>
    ctx.notApplicable(requirement, `ITEM_FIXTURES holds no ${what}`);
  const bill = create ? (await life.create('bill', create))?.ref : undefined;
  if (bill === undefined) {
    const why = create ? 'no bill was created and read back' : 'ITEM_FIXTURES holds no bill to create';
    ctx.notApplicable('item-update-accepted', why);
    ctx.notApplicable('bill-document-accepted', why);
    return;
  }
  const { param } = kindOf('bill');
  const update = fixtures?.updateBill;
  if (update === undefined) none('item-update-accepted', 'updateBill body');
  else {
    const op = operationOf('bill', 'update');
    const ex = await ctx.http.send({
      method: op.method,
      path: fillPath(op.path, { [param]: bill }),
      json: fillPlaceholders(update, life.values),
      role: `${describeOperation(op)} of the bill created, with the updateBill body of ITEM_FIXTURES`,
    });
    life.accepted(
      'item-update-accepted',
      ex,
      `PATCH of the bill ${bill} (created by this run) with the updateBill body of ITEM_FIXTURES`,
      `the bill exists and the body is one the deployment accepts (interface.md §4.3: "${purposeOf(op)}")`,
    );
  }
  const form = fixtures?.document;
  if (form === undefined) {
    none('bill-document-accepted', 'document framing ("raw" or "multipart:<field>")');
    return;
  }
  // Each kind of document §4.3 names, one after another, to the bill created.
  const op = operationOf('bill', 'attach');
  for (const document of BILL_DOCUMENTS) {
    const ex = await ctx.http.send({
      ...documentRequest(fillPath(op.path, { [param]: bill }), form, `conformance-${unique}`, document),
      role: `${describeOperation(op)} of a ${document.kind} to the bill created`,
    });
    life.accepted(
      'bill-document-accepted',
      ex,
      `POST of a ${document.kind} (${form.kind === 'raw' ? 'as the body' : `as the form part ${form.field}`}) to the bill ${bill}, created by this run`,
      `the bill exists and a ${document.kind} is a document it takes (interface.md §4.3: "${purposeOf(op)}")`,
    );
  }
}

/** A mandate: created, a collection started against it while it is active, then cancelled. */
async function mandateLifecycle(
  ctx: ProbeContext,
  life: Lifecycle,
  fixtures: ItemFixtures | undefined,
): Promise<void> {
  const create = fixtures?.create ?? {};
  const created = create.mandate ? await life.create('mandate', create.mandate) : undefined;
  const mandate = created?.ref;
  const active = created !== undefined && readsActive(created.read.body);
  if (mandate !== undefined) life.values.mandateReference = mandate;
  if (create.directDebit) {
    const againstCreated = JSON.stringify(create.directDebit).includes('{{mandateReference}}');
    if (againstCreated && !active)
      ctx.note(
        `the collection of ITEM_FIXTURES was not started: it names the mandate the run creates, and ${
          mandate === undefined ? 'none was created' : `${mandate} does not read as active`
        }`,
      );
    else await life.create('collection', create.directDebit);
  }
  if (mandate === undefined || !active) {
    ctx.notApplicable(
      'mandate-cancel',
      !create.mandate
        ? 'ITEM_FIXTURES holds no mandate to create'
        : mandate === undefined
          ? 'no mandate was created and read back'
          : `the mandate created (${mandate}) does not read as active (no state or status field holds ACTIVE): §3 moves an active mandate only`,
    );
    return;
  }
  await cancelMandate(ctx, life, mandate);
}

/** The active mandate the run created, cancelled and read back CANCELLED (§3). */
async function cancelMandate(ctx: ProbeContext, life: Lifecycle, mandate: string): Promise<void> {
  const op = operationOf('mandate', 'cancel');
  const cancel = await ctx.http.send({
    method: op.method,
    path: fillPath(op.path, { [kindOf('mandate').param]: mandate }),
    role: `${describeOperation(op)} of the mandate created`,
  });
  if (
    !life.accepted(
      'mandate-cancel',
      cancel,
      `DELETE of the active mandate ${mandate} (created by this run)`,
      'an active mandate is cancelled (interface.md §3: DELETE of an active mandate moves it to CANCELLED)',
    )
  )
    return;
  const read = await life.readBack(
    'mandate',
    mandate,
    'read of the mandate after DELETE',
    (r) => is2xx(r.status) && holds(r.body, 'CANCELLED'),
  );
  if (is2xx(read.status) && holds(read.body, 'CANCELLED')) ctx.held('mandate-cancel');
  else
    ctx.fail({
      requirement: 'mandate-cancel',
      exchange: read,
      message: `the mandate ${mandate} was cancelled (${cancel.status}), but a read of it after ${
        is2xx(read.status) ? 'does not show CANCELLED' : `was answered ${read.status}`
      }`,
      expected: `2xx with the mandate CANCELLED (interface.md §3)${
        (ctx.target.settleMs ?? 0) > 0 ? `, read again for ${ctx.target.settleMs} ms` : ''
      }`,
      received: describeResponse(read),
      context: [cancel],
    });
}

export const itemLifecycles: Probe = {
  id: 'item-lifecycles',
  title:
    'Creates the bill, mandate and collection of ITEM_FIXTURES, updates the bill and links a PDF, a JPEG and a PNG to it, cancels the mandate: each accepted, each created item readable, the mandate CANCELLED',
  requirements: [
    'item-create-accepted',
    'item-update-accepted',
    'bill-document-accepted',
    'mandate-cancel',
    'no-server-error',
    'request-answered',
  ],
  judges: ['item-create-accepted', 'item-update-accepted', 'bill-document-accepted', 'mandate-cancel'],
  group: 'other-operations',
  access: 'write',
  elsewhere: true,
  // Every operation of an item but the lists.
  operations: operationIds({ item: true }).filter((id) => !operationIds({ action: 'list' }).includes(id)),
  async run(ctx) {
    const fixtures = ctx.target.itemFixtures;
    const create = fixtures?.create ?? {};
    // Letters and digits only, so it fits any reference pattern (the 1.3.0 ones: ^[a-zA-Z0-9\-]+$);
    // the run's clock and seed keep it apart from an earlier run's items.
    const unique = `c${Math.floor(ctx.http.clock.now()).toString(36)}${(ctx.target.seed >>> 0).toString(36)}`;
    const life = new Lifecycle(ctx, { unique });
    if (!create.bill && !create.mandate && !create.directDebit)
      ctx.notApplicable('item-create-accepted', 'ITEM_FIXTURES holds no creation body (its "create" part)');
    await billLifecycle(ctx, life, fixtures, unique);
    await mandateLifecycle(ctx, life, fixtures);
  },
};

export const ITEM_PROBES = family(import.meta.url, [knownItems, itemLifecycles]);
