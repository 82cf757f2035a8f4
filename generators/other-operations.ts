/**
 * Inputs for the operations of interface.md §4.3 other than the counterparty's, derived from
 * spec/openapi.yaml: the query of GET /api/v1/bills (the filters and pagination values the
 * document names), item references of bills, mandates and collections (breaking the 1.3.0
 * pattern, or well-formed and invented), and request bodies no operation can accept (empty, not
 * JSON, a JSON scalar, very large). Every finite class is listed in full as explicit cases; the
 * arbitraries explore on top of them.
 */
import fc from 'fast-check';
import { spec } from '../spec/index.ts';
import { REFERENCE, REFERENCE_CHARS, validReferenceExamples } from './counterparty-reference.ts';
import { breaks, keeps, type Labelled } from './labelled.ts';
import { own } from '../exchange/own.ts';
import { itemKinds, operationOf, type ItemKind } from '../spec/operations.ts';

// ------------------------------------------------------------------ GET /api/v1/bills query

/** A query string's parameters, in order. */
export type Query = Record<string, string>;

/** The bill statuses the document names (section 3): the `examples` of the spec's BillStatus. */
export function billStatusValues(): string[] {
  const examples = spec().schema('BillStatus').examples;
  if (!Array.isArray(examples) || examples.length === 0) throw new Error('spec: BillStatus names no status');
  return examples.map(String);
}

/** The minimum of page and pageSize (section 8, PaginationDetails). */
export function paginationMinimum(): { page: number; pageSize: number } {
  const page = spec().property('PaginationDetails', 'page').minimum;
  const pageSize = spec().property('PaginationDetails', 'pageSize').minimum;
  if (page === undefined || pageSize === undefined)
    throw new Error('spec: PaginationDetails lacks a minimum');
  return { page, pageSize };
}

/** The query string of a Query, `?` included (empty for no parameter). */
export function queryString(query: Query): string {
  const text = new URLSearchParams(query).toString();
  return text === '' ? '' : `?${text}`;
}

function describeQuery(query: Query): string {
  const names = Object.keys(query);
  return names.length === 0 ? 'no parameter' : names.map((n) => `${n}=${own(query, n)}`).join(' & ');
}

function filterRule(query: Query) {
  return keeps('GET /api/v1/bills query', 'filter', `documented filter value(s): ${describeQuery(query)}`);
}

function paginationRule(query: Query) {
  return keeps(
    'GET /api/v1/bills query',
    'minimum',
    `pagination at or above the minimum: ${describeQuery(query)}`,
  );
}

/** Valid counterparty references for the counterpartyReference filter: the known one and both length bounds. */
function filterReferences(known: string): string[] {
  const examples = validReferenceExamples().map((l) => l.value);
  const shortest = examples.find((v) => v.length === REFERENCE.min);
  const longest = examples.find((v) => v.length === REFERENCE.max);
  if (shortest === undefined || longest === undefined)
    throw new Error('no reference example at a length bound');
  return [...new Set([known, shortest, longest])];
}

/**
 * The filters of GET /api/v1/bills the document names with values (status: every status it names;
 * counterpartyReference: the known reference and valid ones of both length bounds), each alone,
 * and every status combined with every reference. type, cashflowType and the due-date range
 * are named without values or parameter names, so they are not sent.
 */
export function billFilterExamples(known: string): Labelled<Query>[] {
  const statuses = billStatusValues();
  const refs = filterReferences(known);
  const queries: Query[] = [
    ...statuses.map((status) => ({ status })),
    ...refs.map((counterpartyReference) => ({ counterpartyReference })),
    ...statuses.flatMap((status) => refs.map((counterpartyReference) => ({ status, counterpartyReference }))),
  ];
  return queries.map((q) => ({ value: q, rule: filterRule(q) }));
}

/** Random filter combinations: a named status or none, a valid counterparty reference or none (at least one). */
export function billFilterQuery(known: string): fc.Arbitrary<Labelled<Query>> {
  const reference = fc.oneof(
    fc.constant(known),
    fc.string({
      unit: fc.constantFrom(...REFERENCE_CHARS),
      minLength: REFERENCE.min,
      maxLength: REFERENCE.max,
    }),
  );
  return fc
    .record(
      { status: fc.constantFrom(...billStatusValues()), counterpartyReference: reference },
      { requiredKeys: [] },
    )
    .filter((q) => Object.keys(q).length > 0)
    .map((q) => {
      const query: Query = {};
      if (q.status !== undefined) query.status = q.status;
      if (q.counterpartyReference !== undefined) query.counterpartyReference = q.counterpartyReference;
      return { value: query, rule: filterRule(query) };
    });
}

/** Pagination bounds: page and pageSize at the minimum and one above, alone and in every pair. */
export function paginationExamples(): Labelled<Query>[] {
  const min = paginationMinimum();
  const pages = [min.page, min.page + 1].map(String);
  const sizes = [min.pageSize, min.pageSize + 1].map(String);
  const queries: Query[] = [
    ...pages.map((page) => ({ page })),
    ...sizes.map((pageSize) => ({ pageSize })),
    ...pages.flatMap((page) => sizes.map((pageSize) => ({ page, pageSize }))),
  ];
  return queries.map((q) => ({ value: q, rule: paginationRule(q) }));
}

/** The largest page and pageSize generated: the document shows no maximum, so stay modest. */
export const LARGEST_PAGE = 100;

/** Random pagination: page and/or pageSize from the minimum to LARGEST_PAGE. */
export function paginationQuery(): fc.Arbitrary<Labelled<Query>> {
  const min = paginationMinimum();
  return fc
    .record(
      {
        page: fc.integer({ min: min.page, max: LARGEST_PAGE }),
        pageSize: fc.integer({ min: min.pageSize, max: LARGEST_PAGE }),
      },
      { requiredKeys: [] },
    )
    .filter((q) => Object.keys(q).length > 0)
    .map((q) => {
      const query: Query = {};
      if (q.page !== undefined) query.page = String(q.page);
      if (q.pageSize !== undefined) query.pageSize = String(q.pageSize);
      return { value: query, rule: paginationRule(query) };
    });
}

// ------------------------------------------------------------------ item references

export type { ItemKind };

export interface ItemResource {
  kind: ItemKind;
  /** The GET operation of one item. */
  operationId: string;
  /** The path parameter. */
  param: string;
  /** The spec schema of the reference, where the document gives a pattern (none for bills). */
  schema: string | undefined;
}

/** The items of §4.3 (spec/operations.ts), each by the read of one. */
export const ITEM_RESOURCES: readonly ItemResource[] = itemKinds().map((kind) => {
  const read = operationOf(kind, 'read');
  const param = read.pathParams.at(-1)!;
  return { kind, operationId: read.operationId, param, schema: read.pathParamSchemaNames.get(param) };
});

function patternOf(schema: string): string {
  const pattern = spec().schema(schema).pattern;
  if (pattern === undefined) throw new Error(`spec: ${schema} has no pattern`);
  return pattern;
}

/** The characters a reference schema's pattern allows (printable ASCII). */
export function allowedItemChars(schema: string): string[] {
  return spec().allowedChars(patternOf(schema));
}

/**
 * The characters a reference pattern forbids, in full: every printable ASCII character it
 * rejects but the slash (a path separator, so a routing matter), and a tab and a few non-ASCII
 * characters. Each is sent percent-encoded, inside the reference (never a whole `.` segment).
 */
export function forbiddenItemChars(schema: string): string[] {
  const re = new RegExp(patternOf(schema), 'u');
  const ascii: string[] = [];
  for (let code = 0x20; code < 0x7f; code++) {
    const c = String.fromCharCode(code);
    if (c !== '/' && !re.test(c)) ascii.push(c);
  }
  return [...ascii, '\t', 'é', '中', '\u00a0'];
}

/** Lengths of the very long references: the document shows no maximum. */
export const LONG_REFERENCE_LENGTHS = [256, 1024, 4096] as const;

function charRule(field: string, schema: string, c: string) {
  return breaks(
    field,
    'pattern',
    `contains ${JSON.stringify(c)} (U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}), outside ${patternOf(schema)}`,
  );
}

/** A reference of `length` characters: `prefix` then the allowed characters cycled. */
function filled(prefix: string, length: number, chars: readonly string[]): string {
  let out = prefix;
  for (let i = 0; out.length < length; i++) out += chars[i % chars.length];
  return out.slice(0, length);
}

/**
 * References breaking the pattern of `resource` (mandates and collections): every forbidden
 * character once, inside an otherwise valid reference, and very long ones ending in one.
 */
export function invalidItemReferenceExamples(resource: ItemResource): Labelled<string>[] {
  const schema = resource.schema;
  if (schema === undefined) return [];
  const chars = allowedItemChars(schema);
  const single = forbiddenItemChars(schema).map((c) => ({
    value: `conformance${c}invalid`,
    rule: charRule(resource.param, schema, c),
  }));
  const long = LONG_REFERENCE_LENGTHS.map((n) => ({
    value: `${filled('conformance-invalid-', n - 1, chars)}_`,
    rule: breaks(resource.param, 'pattern', `length ${n}, ending in "_", outside ${patternOf(schema)}`),
  }));
  return [...single, ...long];
}

/** Random references breaking the pattern: allowed characters around one forbidden character. */
export function invalidItemReference(resource: ItemResource): fc.Arbitrary<Labelled<string>> {
  const schema = resource.schema;
  if (schema === undefined) throw new Error(`${resource.kind} references have no documented pattern`);
  const unit = fc.constantFrom(...allowedItemChars(schema));
  return fc
    .tuple(
      fc.string({ unit, maxLength: 40 }),
      fc.constantFrom(...forbiddenItemChars(schema)),
      fc.string({ unit, maxLength: 40 }),
    )
    .filter(([a, , b]) => a.length + b.length > 0)
    .map(([a, c, b]) => ({ value: a + c + b, rule: charRule(resource.param, schema, c) }));
}

/** Characters of an invented reference: the pattern's where there is one, else letters, digits and "-". */
function inventedChars(resource: ItemResource): string[] {
  return resource.schema !== undefined
    ? allowedItemChars(resource.schema)
    : spec().allowedChars('^[a-zA-Z0-9\\-]+$');
}

function unknownRule(resource: ItemResource, value: string) {
  return keeps(
    resource.param,
    'pattern',
    `an invented ${resource.kind} reference of length ${value.length}${resource.schema ? `, keeping ${patternOf(resource.schema)}` : ''}`,
  );
}

/**
 * Well-formed references no resource has (invented, with a tag of the run's seed): plain, in
 * upper case, with hyphens at both ends, and very long (the document shows no maximum).
 */
export function unknownItemReferenceExamples(resource: ItemResource, seed: number): Labelled<string>[] {
  const tag = (seed >>> 0).toString(36);
  const base = `conformance-unknown-${resource.kind}-${tag}`;
  const values = [
    base,
    base.toUpperCase(),
    `-${base}-`,
    ...LONG_REFERENCE_LENGTHS.map((n) => filled(`${base}-`, n, inventedChars(resource))),
  ];
  return values.map((value) => ({ value, rule: unknownRule(resource, value) }));
}

/** Random invented references: a fixed prefix and 8 to 64 allowed characters. */
export function unknownItemReference(resource: ItemResource): fc.Arbitrary<Labelled<string>> {
  return fc
    .string({ unit: fc.constantFrom(...inventedChars(resource)), minLength: 8, maxLength: 64 })
    .map((tail) => {
      const value = `conformance-unknown-${tail}`;
      return { value, rule: unknownRule(resource, value) };
    });
}

// ------------------------------------------------------------------ request bodies

/** A body to send as is, with its Content-Type. */
export interface RawBody {
  contentType: string;
  text: string;
}

/**
 * The sizes of the very large bodies: 1 MiB of text that is not JSON, and a JSON string of
 * 64 KiB (both far beyond any payload the document shows; it sets no limit: "maximum upload size:
 * not shown"). A server may answer 413 or 400 before it has read the body, and close: the client
 * reads an answer that comes while it is still sending (transport/wire.ts over undici), so the
 * answer is judged, not lost. 1 MiB, not more: a realistic upper size of a JSON request, and what
 * the run's traffic and exchanges.har carry once per operation. That a server answering early and
 * then closing or resetting the connection is read is tested in tests/self/wire-early-answer.spec.ts.
 */
export const LARGE_BODY_BYTES = 1024 * 1024;
export const LARGE_JSON_STRING_BYTES = 64 * 1024;

const BODY = 'request body';

function raw(text: string, contentType = 'application/json'): RawBody {
  return { contentType, text };
}

/** Whether `text` parses as JSON. */
export function isJsonText(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * Bodies no operation of §4.3 can accept, every class in full: empty (with and without a JSON
 * media type), not JSON (truncated, unquoted, single-quoted, a trailing comma, XML, a JavaScript
 * value), a JSON scalar of every type (null, both booleans, numbers, strings: no bill, mandate or
 * collection is a scalar), and very large (not JSON, and a JSON string). A JSON object or array
 * is never sent: the payloads are not shown, so one could be valid.
 */
export function badBodyExamples(): Labelled<RawBody>[] {
  const empty = [
    { value: raw(''), rule: breaks(BODY, 'required', 'empty, with Content-Type application/json') },
    { value: raw('', 'text/plain'), rule: breaks(BODY, 'required', 'empty, with Content-Type text/plain') },
  ];
  const notJson = [
    '{',
    'not json',
    "{'status':'OPEN'}",
    '{"status":"OPEN",}',
    '<bill/>',
    'undefined',
    'NaN',
  ].map((text) => ({ value: raw(text), rule: breaks(BODY, 'json', `not JSON: ${JSON.stringify(text)}`) }));
  const plain = {
    value: raw('status=OPEN', 'text/plain'),
    rule: breaks(BODY, 'json', 'not JSON, with Content-Type text/plain'),
  };
  const scalars = ['null', 'true', 'false', '0', '-1.5', '""', '"a bill"'].map((text) => ({
    value: raw(text),
    rule: breaks(BODY, 'type', `a JSON ${jsonScalarType(text)} (${text}), not an object`),
  }));
  const large = [
    {
      value: raw('x'.repeat(LARGE_BODY_BYTES)),
      rule: breaks(BODY, 'json', `${LARGE_BODY_BYTES} bytes, not JSON`),
    },
    {
      value: raw(JSON.stringify('a'.repeat(LARGE_JSON_STRING_BYTES - 2))),
      rule: breaks(BODY, 'type', `a JSON string of ${LARGE_JSON_STRING_BYTES} bytes, not an object`),
    },
  ];
  return [...empty, ...notJson, plain, ...scalars, ...large];
}

function jsonScalarType(text: string): string {
  const v = JSON.parse(text) as unknown;
  return v === null ? 'null' : typeof v;
}

/** Random bad bodies: JSON scalars of every type, and printable text that is not JSON. */
export function badBody(): fc.Arbitrary<Labelled<RawBody>> {
  const scalar = fc
    .oneof(
      fc.constant(null),
      fc.boolean(),
      fc.integer(),
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.string({ maxLength: 40 }),
    )
    .map((v) => {
      const text = JSON.stringify(v);
      return {
        value: raw(text),
        rule: breaks(BODY, 'type', `a JSON ${jsonScalarType(text)} (${text}), not an object`),
      };
    });
  const text = fc
    .string({ minLength: 1, maxLength: 60 })
    .filter((t) => t.trim() !== '' && !isJsonText(t))
    .map((t) => ({ value: raw(t), rule: breaks(BODY, 'json', `not JSON: ${JSON.stringify(t)}`) }));
  return fc.oneof(scalar, text);
}
