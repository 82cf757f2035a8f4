/**
 * The one registry of the interface's operations: for each operationId of spec/openapi.yaml, what
 * OpenAPI cannot say and the suite needs, in one place:
 *   - the resource it acts on and what it does to it (read one, list, create, update, cancel,
 *     attach a document), which is how every other part asks for an operation ("the read of a
 *     counterparty", "every create"), never by its operationId;
 *   - the content a request carries (a schema the document shows, JSON it does not show, a
 *     document), or none;
 *   - the row of interface.md it rests on, word for word.
 * And for each resource: its noun, whether it is an item of §4.3 (named in ITEM_FIXTURES), and how
 * the suite invents a reference to one that does not exist.
 *
 * Everything per operation derives from here: the request model's content rules, the probes'
 * declared operations, the items and their fixtures, the invented references, the oracles'
 * choice of answers, the servers' routes. Loading it checks it against the document: an
 * operation of openapi.yaml without an entry, or an entry naming no operation, stops every
 * process at once (tests/self/operations.spec.ts too). Adding an operation is an entry here (and
 * its resource, if new), then what sends it (docs/writing-checks.md, "Adding an operation").
 */
import { spec, type Operation } from './index.ts';
import type { Quote } from './requirements.ts';

/** What an operation acts on. */
export type Resource = 'counterparty' | 'bill' | 'mandate' | 'collection';
/** The resources of §4.3 whose payloads the document does not show: ITEM_FIXTURES names them. */
export type ItemKind = Exclude<Resource, 'counterparty'>;
/** What an operation does to its resource. */
export type Action = 'read' | 'list' | 'create' | 'update' | 'cancel' | 'attach';
/**
 * The content a request of the operation carries: a JSON body whose schema the document shows
 * (§4.2), a JSON body it does not show (§4.3), a document (a PDF, JPEG or PNG).
 */
export type BodyKind = 'json-schema' | 'json-not-shown' | 'document';

export interface OperationEntry {
  operationId: string;
  resource: Resource;
  action: Action;
  /** The content its requests carry; absent: none (a read, a list, a cancel). */
  body?: BodyKind;
  /** The sentence or table row of interface.md it rests on. */
  row: Quote;
}

export interface ResourceEntry {
  resource: Resource;
  /** The word for one ("bill", "collection"). */
  noun: string;
  /** An item of §4.3, whose payloads are not shown (ITEM_FIXTURES). */
  item: boolean;
  /**
   * A reference to one that does not exist, keeping the reference's pattern; absent where the
   * suite reads real ones only (the counterparties the configuration names).
   */
  invented?: string;
}

const doc = (section: string, text: string): Quote => ({ source: `interface.md §${section}`, text });

export const RESOURCES: readonly ResourceEntry[] = [
  { resource: 'counterparty', noun: 'counterparty', item: false },
  { resource: 'bill', noun: 'bill', item: true, invented: 'conformance-probe-bill' },
  { resource: 'mandate', noun: 'mandate', item: true, invented: 'conformance-probe-mandate' },
  { resource: 'collection', noun: 'collection', item: true, invented: 'conformance-probe-collection' },
];

export const OPERATIONS: readonly OperationEntry[] = [
  {
    operationId: 'getCounterparty',
    resource: 'counterparty',
    action: 'read',
    row: doc('4.1', 'Returns one counterparty.'),
  },
  {
    operationId: 'patchCounterparty',
    resource: 'counterparty',
    action: 'update',
    body: 'json-schema',
    row: doc('4.2', 'Changes the details of an existing counterparty, adds accounts to it, or both.'),
  },
  {
    operationId: 'ingestBill',
    resource: 'bill',
    action: 'create',
    body: 'json-not-shown',
    row: doc('4.3', '| POST | `/api/v1/bills` | ingest a bill |'),
  },
  {
    operationId: 'listBills',
    resource: 'bill',
    action: 'list',
    row: doc(
      '4.3',
      '| GET | `/api/v1/bills` | list bills; filters: status, type, cashflowType, counterpartyReference, due-date range; paginated |',
    ),
  },
  {
    operationId: 'getBill',
    resource: 'bill',
    action: 'read',
    row: doc('4.3', '| GET | `/api/v1/bills/{uniqueReferenceIdentifier}` | get one bill |'),
  },
  {
    operationId: 'updateBill',
    resource: 'bill',
    action: 'update',
    body: 'json-not-shown',
    row: doc(
      '4.3',
      '| PATCH | `/api/v1/bills/{uniqueReferenceIdentifier}` | update bill status, open amount or due date |',
    ),
  },
  {
    operationId: 'uploadBillDocument',
    resource: 'bill',
    action: 'attach',
    body: 'document',
    row: doc(
      '4.3',
      '| POST | `/api/v1/bills/{uniqueReferenceIdentifier}/document` | upload a PDF, JPEG or PNG and link it to the bill |',
    ),
  },
  {
    operationId: 'createMandate',
    resource: 'mandate',
    action: 'create',
    body: 'json-not-shown',
    row: doc('4.3', '| POST | `/api/v1/mandates` | create a SEPA direct-debit mandate |'),
  },
  {
    operationId: 'listMandates',
    resource: 'mandate',
    action: 'list',
    row: doc('4.3', '| GET | `/api/v1/mandates` | list mandates, optional filters |'),
  },
  {
    operationId: 'getMandate',
    resource: 'mandate',
    action: 'read',
    row: doc('4.3', '| GET | `/api/v1/mandates/{mandateReference}` | get one mandate |'),
  },
  {
    operationId: 'cancelMandate',
    resource: 'mandate',
    action: 'cancel',
    row: doc('4.3', '| DELETE | `/api/v1/mandates/{mandateReference}` | cancel an active mandate |'),
  },
  {
    operationId: 'createDirectDebit',
    resource: 'collection',
    action: 'create',
    body: 'json-not-shown',
    row: doc('4.3', '| POST | `/api/v1/direct-debit` | start a collection against an active mandate |'),
  },
  {
    operationId: 'listDirectDebits',
    resource: 'collection',
    action: 'list',
    row: doc('4.3', '| GET | `/api/v1/direct-debit` | list collections, cursor-based pagination |'),
  },
  {
    operationId: 'getDirectDebit',
    resource: 'collection',
    action: 'read',
    row: doc('4.3', '| GET | `/api/v1/direct-debit/{collectionReference}` | get one collection |'),
  },
];

/** An operation of the document with what the registry says of it. */
export type RegisteredOperation = Operation & OperationEntry;

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The registry against the document: every operation has an entry and every entry an operation;
 * content where the method writes and none where it reads (DELETE carries none: RFC 9110 §9.3.5
 * gives content in it no meaning); every resource of an entry listed. Throws the first mismatch.
 */
export function checkRegistry(
  operations: readonly Operation[],
  entries: readonly OperationEntry[],
  resources: readonly ResourceEntry[],
): void {
  const byId = new Map(entries.map((e) => [e.operationId, e]));
  if (byId.size !== entries.length) throw new Error('spec/operations.ts: an operationId has two entries');
  for (const op of operations) {
    const entry = byId.get(op.operationId);
    if (entry === undefined)
      throw new Error(`spec/operations.ts: ${op.method} ${op.path} (${op.operationId}) has no entry`);
    const writes = !READ_METHODS.has(op.method) && op.method !== 'DELETE';
    if (writes !== (entry.body !== undefined))
      throw new Error(
        `spec/operations.ts: ${op.operationId} ${writes ? 'writes but carries no content' : 'carries content but does not write'}`,
      );
  }
  const ids = new Set(operations.map((o) => o.operationId));
  for (const e of entries) {
    if (!ids.has(e.operationId))
      throw new Error(`spec/operations.ts: ${e.operationId} is no operation of the document`);
    if (!resources.some((r) => r.resource === e.resource))
      throw new Error(`spec/operations.ts: ${e.operationId} acts on ${e.resource}, which is not listed`);
  }
}

let cached: RegisteredOperation[] | undefined;

/** Every operation of the document, in document order, with its entry (checked once). */
export function registeredOperations(): readonly RegisteredOperation[] {
  if (cached === undefined) {
    const ops = spec().operations();
    checkRegistry(ops, OPERATIONS, RESOURCES);
    const byId = new Map(OPERATIONS.map((e) => [e.operationId, e]));
    cached = ops.map((op) => ({ ...op, ...byId.get(op.operationId)! }));
  }
  return cached;
}

/** The operations an entry matches: every field given must be equal. */
export function operationsWhere(
  match: Partial<Pick<OperationEntry, 'resource' | 'action' | 'body'>> & {
    item?: boolean;
    writes?: boolean;
    /** Whether its requests carry content (any kind). */
    content?: boolean;
  },
): RegisteredOperation[] {
  return registeredOperations().filter(
    (op) =>
      (match.resource === undefined || op.resource === match.resource) &&
      (match.action === undefined || op.action === match.action) &&
      (match.body === undefined || op.body === match.body) &&
      (match.content === undefined || (op.body !== undefined) === match.content) &&
      (match.item === undefined || resourceEntry(op.resource).item === match.item) &&
      (match.writes === undefined || isWrite(op) === match.writes),
  );
}

/** The one operation doing `action` to `resource`; throws when there is none or several. */
export function operationOf(resource: Resource, action: Action): RegisteredOperation {
  const found = operationsWhere({ resource, action });
  if (found.length !== 1)
    throw new Error(`spec/operations.ts: ${found.length} operations ${action} a ${resource}, not one`);
  return found[0]!;
}

/** The operationId of the one operation doing `action` to `resource` (operationOf). */
export function operationIdOf(resource: Resource, action: Action): string {
  return operationOf(resource, action).operationId;
}

/** The operationIds of `operationsWhere(match)`, sorted (as a probe declares what it sends to). */
export function operationIds(match: Parameters<typeof operationsWhere>[0]): string[] {
  return operationsWhere(match)
    .map((op) => op.operationId)
    .sort();
}

/** The entry of an operationId (of a routed exchange); undefined for none of the document. */
export function registered(operationId: string): RegisteredOperation | undefined {
  return registeredOperations().find((op) => op.operationId === operationId);
}

/** What an operation is for, as its row says: a table row's last cell, or the sentence itself. */
export function purposeOf(op: Pick<OperationEntry, 'row'>): string {
  const cells = op.row.text.split('|').map((c) => c.trim());
  return op.row.text.startsWith('|') && cells.length >= 3 ? cells[cells.length - 2]! : op.row.text;
}

/** Whether an operation changes something (every method but GET, HEAD and OPTIONS). */
export function isWrite(op: Pick<Operation, 'method'>): boolean {
  return !READ_METHODS.has(op.method);
}

export function resourceEntry(resource: Resource): ResourceEntry {
  const entry = RESOURCES.find((r) => r.resource === resource);
  if (entry === undefined) throw new Error(`spec/operations.ts: no resource ${resource}`);
  return entry;
}

/** The item kinds of §4.3, in the registry's order. */
export function itemKinds(): ItemKind[] {
  return RESOURCES.filter((r) => r.item).map((r) => r.resource as ItemKind);
}
