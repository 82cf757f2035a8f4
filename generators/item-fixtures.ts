/**
 * The bills, mandates and collections a deployment holds, and the bodies it accepts to create
 * and update them. interface.md §4.3 lists these operations by method, path and purpose only:
 * "Request and response payloads of these operations ... not shown." So the suite cannot invent a
 * bill or a mandate a deployment would accept, nor know one that exists: a deployment names them
 * through configuration (ITEM_FIXTURES, a JSON object or a JSON file), as it names an account
 * through ACCOUNT_FIXTURE.
 *
 *   {
 *     "read":   { "bill": "<ref>", "mandate": "<ref>", "collection": "<ref>" },
 *     "create": { "bill": {...}, "mandate": {...}, "directDebit": {...} },
 *     "updateBill": {...},
 *     "document": "raw" | "multipart:<field>"
 *   }
 *
 * Every part is optional. `read` names items that exist (read in any run). The rest is sent in
 * write mode only, since it creates real items: `create` holds bodies the deployment accepts
 * (POST /api/v1/bills, /api/v1/mandates, /api/v1/direct-debit); `updateBill` a body PATCH
 * /api/v1/bills/{ref} accepts for the bill the run created; `document` how a document is sent to
 * that bill (the framing is not shown: the PDF as the whole body, or as the part `<field>` of a
 * multipart/form-data body). In any string of a body, `{{unique}}` becomes a value of letters and
 * digits unique to the run (for a client-chosen identifier), and `{{mandateReference}}` the
 * reference of the mandate the run created (for the collection against it).
 */
import { itemKinds, type ItemKind } from '../spec/operations.ts';
import { isObject } from '../exchange/own.ts';

export type { ItemKind };

/** How a document is sent to a bill: the file as the body, or as one part of a form. */
export type DocumentForm = { kind: 'raw' } | { kind: 'multipart'; field: string };

export interface ItemFixtures {
  /** Items that exist, by kind: read in any run. */
  read?: Partial<Record<ItemKind, string>>;
  /** Bodies the deployment accepts, to create a bill, a mandate and a collection (write mode). */
  create?: {
    bill?: Record<string, unknown>;
    mandate?: Record<string, unknown>;
    directDebit?: Record<string, unknown>;
  };
  /** A body PATCH of a bill accepts, sent to the bill the run created (write mode). */
  updateBill?: Record<string, unknown>;
  /** How a document goes to the bill the run created (write mode). */
  document?: DocumentForm;
}

const TOP_KEYS = ['read', 'create', 'updateBill', 'document'];
const READ_KEYS: ItemKind[] = itemKinds();
const CREATE_KEYS = ['bill', 'mandate', 'directDebit'];

function only(value: Record<string, unknown>, keys: readonly string[], where: string): void {
  const unknown = Object.keys(value).filter((k) => !keys.includes(k));
  if (unknown.length > 0)
    throw new Error(
      `ITEM_FIXTURES: ${where} has no field ${unknown.map((k) => JSON.stringify(k)).join(', ')} (known: ${keys.join(', ')})`,
    );
}

function body(value: unknown, where: string): Record<string, unknown> {
  if (!isObject(value) || Object.keys(value).length === 0)
    throw new Error(
      `ITEM_FIXTURES: ${where} must be a non-empty JSON object (a body the deployment accepts)`,
    );
  return value;
}

/** A reference as a path segment can carry it: no slash, no control character, 1 to 256 characters. */
function reference(value: unknown, where: string): string {
  // eslint-disable-next-line no-control-regex
  if (typeof value !== 'string' || !/^[^/\u0000-\u001f\u007f]{1,256}$/.test(value))
    throw new Error(
      `ITEM_FIXTURES: ${where} must be the reference of an existing item (1 to 256 characters, no slash)`,
    );
  return value;
}

function documentForm(value: unknown): DocumentForm {
  if (value === 'raw') return { kind: 'raw' };
  const multipart =
    typeof value === 'string' ? /^multipart:([!#$%&'*+.^_`|~0-9A-Za-z-]+)$/.exec(value) : null;
  if (multipart) return { kind: 'multipart', field: multipart[1]! };
  throw new Error(
    'ITEM_FIXTURES: document must be "raw" (the PDF as the body) or "multipart:<field>" (the PDF as the form part <field>)',
  );
}

/** Parses ITEM_FIXTURES' JSON text; throws an Error with one line saying what to fix. */
export function parseItemFixtures(text: string): ItemFixtures {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error('ITEM_FIXTURES is not valid JSON (give a JSON object, or the path of a JSON file)');
  }
  if (!isObject(value)) throw new Error('ITEM_FIXTURES must be a JSON object');
  only(value, TOP_KEYS, 'the object');
  const out: ItemFixtures = {};
  if (value.read !== undefined) {
    if (!isObject(value.read)) throw new Error('ITEM_FIXTURES: read must be an object of references');
    only(value.read, READ_KEYS, 'read');
    out.read = {};
    for (const kind of READ_KEYS)
      if (value.read[kind] !== undefined) out.read[kind] = reference(value.read[kind], `read.${kind}`);
  }
  if (value.create !== undefined) {
    if (!isObject(value.create)) throw new Error('ITEM_FIXTURES: create must be an object of bodies');
    only(value.create, CREATE_KEYS, 'create');
    out.create = {};
    if (value.create.bill !== undefined) out.create.bill = body(value.create.bill, 'create.bill');
    if (value.create.mandate !== undefined) out.create.mandate = body(value.create.mandate, 'create.mandate');
    if (value.create.directDebit !== undefined)
      out.create.directDebit = body(value.create.directDebit, 'create.directDebit');
  }
  if (value.updateBill !== undefined) out.updateBill = body(value.updateBill, 'updateBill');
  if (value.document !== undefined) out.document = documentForm(value.document);
  return out;
}

/** ITEM_FIXTURES as the configuration writes it back (a replay line): the JSON it was parsed from. */
export function itemFixturesJson(fixtures: ItemFixtures): string {
  const document =
    fixtures.document === undefined
      ? undefined
      : fixtures.document.kind === 'raw'
        ? 'raw'
        : `multipart:${fixtures.document.field}`;
  return JSON.stringify({ ...fixtures, ...(document !== undefined ? { document } : {}) });
}

/**
 * A body with its placeholders filled in: in every string, `{{name}}` becomes `values[name]`. A
 * placeholder with no value is left as it is (the deployment then judges the body as written).
 */
export function fillPlaceholders<T>(value: T, values: Record<string, string>): T {
  if (typeof value === 'string')
    return value.replace(
      /\{\{(\w+)\}\}/g,
      (whole, name: string) => (Object.hasOwn(values, name) ? values[name] : undefined) ?? whole,
    ) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => fillPlaceholders(v, values)) as T;
  if (isObject(value))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fillPlaceholders(v, values)])) as T;
  return value;
}

/**
 * The items of the embedded reference server (servers/reference/seed.ts seeds the ones to read),
 * and bodies it accepts: it takes any non-empty JSON object, so these carry what a deployment's
 * bodies usually would, client-chosen identifiers included.
 */
export function embeddedItemFixtures(refs: Record<ItemKind, string>, counterpartyRef: string): ItemFixtures {
  return {
    read: { ...refs },
    create: {
      bill: {
        uniqueReferenceIdentifier: 'conformance-bill-{{unique}}',
        counterpartyReference: counterpartyRef,
        type: 'PAYABLE',
        currencyCode: 'EUR',
        totalAmount: 120.5,
        openAmount: 120.5,
        dueDate: '2027-01-31',
      },
      mandate: {
        counterpartyReference: counterpartyRef,
        currency: 'EUR',
        region: 'EU',
        mode: 'CORE',
        type: 'RECURRING',
      },
      directDebit: {
        mandateReference: '{{mandateReference}}',
        amount: 42.1,
        currency: 'EUR',
      },
    },
    updateBill: { openAmount: 60.25, dueDate: '2027-02-28' },
    document: { kind: 'raw' },
  };
}
