/**
 * The content of the operations that take one: that there is one, that it is JSON text where it
 * is JSON (RFC 8259: UTF-8, no byte order mark, names unique), and what can be said of the
 * payloads §4.3 does not show. The PATCH counterparty body's schema is body-schema.ts's.
 *
 * What can be said of a payload that is not shown: a bill, a mandate, a collection is not nothing,
 * not text that fails to parse, and not a JSON scalar (as write-body-malformed-not-success); a
 * document upload is a PDF, JPEG or PNG, sent as one of those types, as raw bytes, in a form, or
 * wrapped in JSON (IngestBillDocumentPOSTRequest is named, not shown), never as text; and the
 * values the change notes name: a bill's currencyCode is one of INR, USD, EUR, GBP; a bill write
 * does not set status PROCESSING; a mandate's mode is CORE and its type RECURRING or ONE_OFF. The
 * names `status`, `mode` and `type` are the document's words, read as top-level members; the rest
 * of each payload is reported open (`body-payload-not-shown`), never valid.
 */
import { MAX_JSON_DEPTH, tooDeepText } from '../exchange/json-body.ts';
import { spec } from '../spec/index.ts';
import { isJson, isJsonSuffix } from './media-type.ts';
import { Q } from './quotes.ts';
import { sampleOf, withBody, withHeader } from './samples.ts';
import type { OpenPoint, RequestRule, RuleCase } from './types.ts';
import type { Family, View } from './view.ts';
import { operationIds, operationOf, operationsWhere, registered, type BodyKind } from '../spec/operations.ts';
import { isObject } from '../exchange/own.ts';

/** Every operation that takes content (what it takes: spec/operations.ts). */
const ALL = operationIds({ content: true });
/** The writes of §4.3, whose payloads are not shown: JSON and documents. */
const NOT_SHOWN_OPS = operationsWhere({ content: true }).filter((op) => op.body !== 'json-schema');
const NOT_SHOWN = NOT_SHOWN_OPS.map((op) => op.operationId).sort();
/** What each write is for: the PATCH body of §4.2, and the rows of §4.3. */
const PURPOSES = [Q.patchBody, ...NOT_SHOWN_OPS.map((op) => op.row)];
const DOCUMENT_OPS = operationsWhere({ body: 'document' });
const MANDATE_CREATE = operationOf('mandate', 'create');

const rule = (
  r: Omit<RequestRule, 'level' | 'refusal'> & Partial<Pick<RequestRule, 'level' | 'refusal'>>,
): RequestRule => ({
  level: 'MUST',
  refusal: 'required',
  ...r,
});

export const BODY_REQUIRED = rule({
  id: 'body-required',
  where: { in: 'body', pointer: '' },
  operations: ALL,
  statement:
    'An operation that writes carries content: a patch, a bill, a mandate, a collection or a document is not nothing.',
  quotes: PURPOSES,
});

export const JSON_WELL_FORMED = rule({
  id: 'body-json-well-formed',
  where: { in: 'body', pointer: '' },
  operations: ALL,
  statement: 'Content labelled JSON, or sent to an operation whose body is JSON, is JSON text.',
  quotes: [Q.jsonBodies, Q.patchBody, Q.jsonGenerator],
});

export const JSON_UTF8 = rule({
  id: 'body-json-utf-8',
  refusal: 'permitted',
  where: { in: 'body', pointer: '' },
  operations: ALL,
  statement: 'JSON content is encoded in UTF-8 (judged where the content comes as bytes).',
  quotes: [Q.utf8, Q.jsonBodies],
});

export const JSON_NO_BOM = rule({
  id: 'body-json-no-byte-order-mark',
  refusal: 'permitted',
  where: { in: 'body', pointer: '' },
  operations: ALL,
  statement: 'JSON content does not begin with a byte order mark.',
  quotes: [Q.noBom],
  rationale: 'RFC 8259 lets a parser ignore the mark, so a deployment may read past it.',
});

export const JSON_UNIQUE_NAMES = rule({
  id: 'body-json-unique-names',
  level: 'SHOULD',
  refusal: 'permitted',
  where: { in: 'body', pointer: '' },
  operations: ALL,
  statement: 'No object of JSON content repeats a name (parsers keep the first, the last, or refuse).',
  quotes: [Q.uniqueNames],
});

export const JSON_STRUCTURED = rule({
  id: 'body-json-structured',
  where: { in: 'body', pointer: '' },
  operations: NOT_SHOWN,
  statement:
    'The JSON content of a bill, mandate, collection or document write is an object or an array, not a scalar.',
  quotes: [Q.jsonBodies, ...NOT_SHOWN_OPS.map((op) => op.row)],
  rationale:
    'The payloads are not shown, but none of these is a lone string, number, boolean or null (write-body-malformed-not-success rests on the same reading).',
});

/** Media types a PDF, JPEG or PNG can travel as; JSON may wrap one. */
const DOCUMENT_TYPES = [
  'application/pdf',
  'image/jpeg',
  'image/png',
  'application/octet-stream',
  'multipart/form-data',
];

export const DOCUMENT_MEDIA_TYPE = rule({
  id: 'body-document-media-type',
  where: { in: 'header', name: 'Content-Type' },
  operations: DOCUMENT_OPS.map((op) => op.operationId),
  statement: `A document upload is labelled as a PDF, JPEG or PNG, raw bytes, a form or JSON (${DOCUMENT_TYPES.join(', ')}, application/json): not text, nor another image type.`,
  quotes: DOCUMENT_OPS.map((op) => op.row),
  rationale:
    'How the file travels is not shown, so every way a PDF, JPEG or PNG can travel is allowed; a sender that labels the content text/plain or image/gif says it is none of them.',
});

/** The writes of a bill that carry one as JSON (its creation and its update). */
const BILL_WRITES = operationIds({ resource: 'bill', body: 'json-not-shown' });

export const BILL_CURRENCY_CODE = rule({
  id: 'body-bill-currency-code-enum',
  where: { in: 'body', pointer: '//currencyCode' },
  operations: BILL_WRITES,
  statement: `A bill's currencyCode, wherever the bill write carries one, is one of ${(spec().schema('BillCurrencyCode').enum ?? []).join(', ')}.`,
  quotes: [Q.currencyCode],
  rationale:
    "The member name is the document's; where it sits in the payload is not shown, so it is judged at any depth.",
});

export const BILL_STATUS_NOT_PROCESSING = rule({
  id: 'body-bill-status-not-processing',
  refusal: 'permitted',
  where: { in: 'body', pointer: '/status' },
  operations: BILL_WRITES,
  statement: 'A bill write does not set the status PROCESSING, which only the system sets.',
  quotes: [Q.processingRow, Q.processingChange, operationOf('bill', 'update').row],
  rationale:
    'The status member is read as the top-level `status` (the name of the list filter); a deployment may refuse the write or ignore the member, so refusal is not required.',
});

const enumOf = (name: string): readonly string[] => spec().schema(name).enum ?? [];

export const MANDATE_MODE = rule({
  id: 'body-mandate-mode-core',
  refusal: 'permitted',
  where: { in: 'body', pointer: '/mode' },
  operations: [MANDATE_CREATE.operationId],
  statement: `A mandate's mode, where the body carries a top-level mode, is ${enumOf('MandateMode').join(', ')}.`,
  quotes: [Q.mandateMode, Q.mandatesEu],
  rationale: "The payload is not shown; the member name is the change note's word, read at the top level.",
});

export const MANDATE_TYPE = rule({
  id: 'body-mandate-type-enum',
  refusal: 'permitted',
  where: { in: 'body', pointer: '/type' },
  operations: [MANDATE_CREATE.operationId],
  statement: `A mandate's type, where the body carries a top-level type, is one of ${enumOf('MandateType').join(', ')}.`,
  quotes: [Q.mandateMode],
  rationale: 'As body-mandate-mode-core.',
});

export const PAYLOAD_NOT_SHOWN: OpenPoint = {
  id: 'body-payload-not-shown',
  where: { in: 'body', pointer: '' },
  operations: NOT_SHOWN,
  statement:
    'The payload of a §4.3 write breaks none of the rules of this file (present, JSON text where JSON, structured, a document type, the named values), but the document shows no more of it.',
  quotes: [Q.notShown43],
};

/**
 * JSON text nested deeper than the model reads (exchange/json-body.ts): a deployment may refuse it
 * (RFC 8259 §9) or read it; nothing inside it is judged.
 */
export const JSON_TOO_DEEP: OpenPoint = {
  id: 'body-json-too-deep',
  where: { in: 'body', pointer: '' },
  operations: ALL,
  statement: `JSON text nested deeper than ${MAX_JSON_DEPTH} levels is not read as a value: what it holds is not judged, and a deployment may refuse it or not.`,
  quotes: [Q.nestingLimit],
};

/** The content an operation takes (spec/operations.ts); undefined for none, or no operation. */
export function bodyKindOf(operationId: string | undefined): BodyKind | undefined {
  return operationId === undefined ? undefined : registered(operationId)?.body;
}

/** Whether the operation's content is read as JSON: a JSON operation, or content labelled JSON. */
export function readsAsJson(view: View): boolean {
  const kind = bodyKindOf(view.operationId);
  return (
    kind === 'json-schema' ||
    kind === 'json-not-shown' ||
    isJson(view.mediaType) ||
    isJsonSuffix(view.mediaType)
  );
}

function currencyCodes(value: unknown, pointer: string, out: [string, unknown][], depth = 0): void {
  if (depth > 32) return;
  if (Array.isArray(value)) value.forEach((v, i) => currencyCodes(v, `${pointer}/${i}`, out, depth + 1));
  else if (isObject(value))
    for (const [k, v] of Object.entries(value)) {
      if (k === 'currencyCode') out.push([`${pointer}/currencyCode`, v]);
      currencyCodes(v, `${pointer}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, out, depth + 1);
    }
}

/** What the change notes let the model say of a payload it otherwise does not know. */
function judgeNamedValues(
  view: View,
  value: unknown,
  breach: (r: RequestRule, at: string, m: string) => void,
): void {
  if (BILL_WRITES.includes(view.operationId ?? '')) {
    const codes: [string, unknown][] = [];
    currencyCodes(value, '', codes);
    const allowed = enumOf('BillCurrencyCode');
    for (const [at, code] of codes)
      if (typeof code !== 'string' || !allowed.includes(code))
        breach(
          BILL_CURRENCY_CODE,
          at,
          `currencyCode ${JSON.stringify(code)} is not one of ${allowed.join(', ')}`,
        );
    if (isObject(value) && value.status === 'PROCESSING')
      breach(BILL_STATUS_NOT_PROCESSING, '/status', 'the bill write sets status PROCESSING');
  }
  if (view.operationId === MANDATE_CREATE.operationId && isObject(value)) {
    for (const [r, member, schema] of [
      [MANDATE_MODE, 'mode', 'MandateMode'],
      [MANDATE_TYPE, 'type', 'MandateType'],
    ] as const) {
      if (!(member in value)) continue;
      const allowed = enumOf(schema);
      const v = value[member];
      if (typeof v !== 'string' || !allowed.includes(v))
        breach(r, `/${member}`, `${member} ${JSON.stringify(v)} is not ${allowed.join(' or ')}`);
    }
  }
}

export const PAYLOADS: Family = {
  name: 'payloads',
  rules: [
    BODY_REQUIRED,
    JSON_WELL_FORMED,
    JSON_UTF8,
    JSON_NO_BOM,
    JSON_UNIQUE_NAMES,
    JSON_STRUCTURED,
    DOCUMENT_MEDIA_TYPE,
    BILL_CURRENCY_CODE,
    BILL_STATUS_NOT_PROCESSING,
    MANDATE_MODE,
    MANDATE_TYPE,
  ],
  open: [PAYLOAD_NOT_SHOWN, JSON_TOO_DEEP],
  judge(view, sink) {
    const kind = bodyKindOf(view.operationId);
    if (
      kind === undefined ||
      view.target.kind === 'undocumented-path' ||
      view.target.kind === 'undocumented-method'
    )
      return;
    if (!view.hasContent) {
      sink.breach(BODY_REQUIRED, 'body', `${view.method} ${view.operationId} without content`);
      return;
    }
    const before = { count: 0 };
    const breach = (r: RequestRule, at: string, m: string): void => {
      before.count++;
      sink.breach(r, at, m);
    };
    if (kind === 'document') {
      const type = view.mediaType;
      if (type && !isJson(type) && !isJsonSuffix(type) && !DOCUMENT_TYPES.includes(type.essence))
        breach(DOCUMENT_MEDIA_TYPE, 'header Content-Type', `a document labelled ${type.essence}`);
    }
    if (readsAsJson(view)) {
      const json = view.json();
      if (json.byteOrderMark) breach(JSON_NO_BOM, 'body', 'the JSON text begins with U+FEFF');
      if (json.state === 'not-utf-8') breach(JSON_UTF8, 'body', 'the content is not UTF-8');
      else if (json.state === 'too-deep') sink.open(JSON_TOO_DEEP, 'body', tooDeepText(json.depth!));
      else if (json.state !== 'json')
        breach(JSON_WELL_FORMED, 'body', `not JSON text: ${json.error ?? 'no JSON value'}`);
      else {
        for (const at of json.repeatedNames) breach(JSON_UNIQUE_NAMES, at, `the name at ${at} is repeated`);
        if (kind !== 'json-schema' && (json.value === null || typeof json.value !== 'object'))
          breach(
            JSON_STRUCTURED,
            'body',
            `a JSON ${json.value === null ? 'null' : typeof json.value}, not an object or array`,
          );
        else judgeNamedValues(view, json.value, breach);
      }
    }
    if (kind !== 'json-schema' && before.count === 0)
      sink.open(PAYLOAD_NOT_SHOWN, 'body', `the payload of ${view.operationId} is not shown`);
  },
  cases(): RuleCase[] {
    const bill = sampleOf('bill', 'create');
    const upload = sampleOf('bill', 'attach');
    const mandate = sampleOf('mandate', 'create');
    const patch = sampleOf('counterparty', 'update');
    const text = patch.body as string;
    const repeated = text.replace(/\{("[^"]+":"[^"]*")\}\}$/, '{$1,$1}}');
    const bytes = new TextEncoder().encode(text);
    const notUtf8 = bytes.slice();
    notUtf8[text.indexOf('":"') + 3] = 0xff;
    return [
      { rule: BODY_REQUIRED.id, holds: patch, breaks: withBody(patch, undefined) },
      { rule: JSON_WELL_FORMED.id, holds: patch, breaks: withBody(patch, text.slice(0, -1)) },
      { rule: JSON_UTF8.id, holds: withBody(patch, bytes), breaks: withBody(patch, notUtf8) },
      { rule: JSON_NO_BOM.id, holds: patch, breaks: withBody(patch, `\ufeff${text}`) },
      { rule: JSON_UNIQUE_NAMES.id, holds: patch, breaks: withBody(patch, repeated) },
      { rule: JSON_STRUCTURED.id, holds: withBody(bill, '{"bill":{}}'), breaks: withBody(bill, '"a bill"') },
      {
        rule: DOCUMENT_MEDIA_TYPE.id,
        holds: upload,
        breaks: withHeader(upload, 'Content-Type', 'text/plain'),
      },
      {
        rule: BILL_CURRENCY_CODE.id,
        holds: withBody(bill, '{"amount":{"value":"10.00","currencyCode":"GBP"}}'),
        breaks: withBody(bill, '{"amount":{"value":"10.00","currencyCode":"CHF"}}'),
      },
      {
        rule: BILL_STATUS_NOT_PROCESSING.id,
        holds: withBody(sampleOf('bill', 'update'), '{"status":"PAID"}'),
        breaks: withBody(sampleOf('bill', 'update'), '{"status":"PROCESSING"}'),
      },
      {
        rule: MANDATE_MODE.id,
        holds: withBody(mandate, '{"mode":"CORE"}'),
        breaks: withBody(mandate, '{"mode":"B2B"}'),
      },
      {
        rule: MANDATE_TYPE.id,
        holds: withBody(mandate, '{"type":"ONE_OFF"}'),
        breaks: withBody(mandate, '{"type":"MONTHLY"}'),
      },
    ];
  },
  openCases: () => [
    { point: PAYLOAD_NOT_SHOWN.id, request: sampleOf('collection', 'create') },
    {
      point: JSON_TOO_DEEP.id,
      request: withBody(
        sampleOf('counterparty', 'update'),
        `{"counterpartyDetails":{"remarks":"x"},"counterpartyAccounts":${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}}`,
      ),
    },
  ],
};
