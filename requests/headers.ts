/**
 * The header fields that describe a request's content, and content where none belongs. Rules:
 * Content-Type present on content (RFC 9110 §8.3, SHOULD), well-formed (§8.3.1), JSON where the
 * operation's body is JSON (interface.md: "JSON bodies"; §4.2 "JSON object"), charset UTF-8 if
 * one is named (RFC 8259 §8.1, §11); a field the request needs once not repeated (RFC 9110 §5.3:
 * Authorization and Content-Type are no lists); no content in GET counterparty (§4.1 "Request
 * body: none.") nor, as HTTP advises, in any other GET or DELETE.
 *
 * Equivalent forms are one form: a field name in any case (RFC 9110 §5.1), white space around a
 * value (§5.5), type, subtype and parameter names in any case, a parameter quoted or not, white
 * space around `;` (§5.6.6, §8.3.1) — `Application/JSON ; charset="UTF-8"` is application/json.
 *
 * Left open: a +json type other than application/json (application/merge-patch+json labels JSON
 * text, but names semantics of its own; the document names no media type, only "JSON bodies").
 */
import { isJson, isJsonSuffix, parameter } from './media-type.ts';
import { bodyKindOf } from './payloads.ts';
import { operationIds, operationOf, operationsWhere, registeredOperations } from '../spec/operations.ts';
import { Q } from './quotes.ts';
import { sampleOf, withBody, withHeader } from './samples.ts';
import type { OpenPoint, RequestRule, RuleCase } from './types.ts';
import type { Family } from './view.ts';

const WRITES = operationIds({ content: true });
const JSON_OPS = operationsWhere({ content: true })
  .filter((op) => op.body !== 'document')
  .map((op) => op.operationId)
  .sort();
/** The read of a counterparty, whose "Request body: none" the document states (§4.1). */
const COUNTERPARTY_READ = operationOf('counterparty', 'read');
/** Every other operation without content: reads, lists and the cancel (a DELETE). */
const READS = operationsWhere({ content: false })
  .filter((op) => op !== COUNTERPARTY_READ)
  .map((op) => op.operationId);

export const CONTENT_TYPE_PRESENT: RequestRule = {
  id: 'header-content-type-present',
  level: 'SHOULD',
  refusal: 'permitted',
  where: { in: 'header', name: 'Content-Type' },
  operations: WRITES,
  statement: 'Content comes with a Content-Type.',
  quotes: [Q.contentTypeShould],
  rationale:
    'Without one a recipient may assume a type or sniff it (RFC 9110 §8.3), so a deployment may serve the request.',
};

export const CONTENT_TYPE_SYNTAX: RequestRule = {
  id: 'header-content-type-syntax',
  level: 'MUST',
  refusal: 'permitted',
  where: { in: 'header', name: 'Content-Type' },
  operations: WRITES,
  statement: 'A Content-Type is a media type: type/subtype, then parameters name=value, each after a ";".',
  quotes: [Q.mediaTypeSyntax],
};

export const CONTENT_TYPE_JSON: RequestRule = {
  id: 'header-content-type-json',
  level: 'MUST',
  refusal: 'permitted',
  where: { in: 'header', name: 'Content-Type' },
  operations: JSON_OPS,
  statement:
    'The content of an operation whose body is JSON is labelled application/json (any case, any parameters).',
  quotes: [Q.jsonBodies, Q.patchBody, Q.jsonMediaType, Q.mediaTypeCase],
  rationale:
    'A sender that labels the body text/plain says it is not JSON; a deployment may refuse it (415) or read it anyway, so refusal is not required.',
};

export const CHARSET_UTF8: RequestRule = {
  id: 'header-content-type-charset-utf-8',
  level: 'SHOULD',
  refusal: 'permitted',
  where: { in: 'header', name: 'Content-Type' },
  operations: WRITES,
  statement:
    'JSON content labelled with a charset names UTF-8 (the parameter itself is allowed, in any case, quoted or not).',
  quotes: [Q.utf8, Q.noCharset],
  rationale:
    'application/json defines no charset parameter and compliant recipients ignore it, but one naming another encoding contradicts the UTF-8 the content must be in; a deployment may refuse it.',
};

/** Fields a request carries once: their grammar is one value, not a list. */
const SINGLE_FIELDS = ['authorization', 'content-type'];

export const NOT_REPEATED: RequestRule = {
  id: 'header-not-repeated',
  level: 'MUST',
  refusal: 'permitted',
  where: { in: 'header', name: 'Authorization, Content-Type' },
  operations: registeredOperations().map((o) => o.operationId),
  statement: 'Authorization and Content-Type each come in one field line (their values are no lists).',
  quotes: [Q.singleField],
};

export const GET_COUNTERPARTY_NO_BODY: RequestRule = {
  id: 'body-none-on-get-counterparty',
  level: 'MUST',
  refusal: 'permitted',
  where: { in: 'body', pointer: '' },
  operations: [COUNTERPARTY_READ.operationId],
  statement: 'GET of a counterparty carries no content.',
  quotes: [Q.getNoBody, Q.getContent],
  rationale:
    'The document says so; a deployment may ignore content it does not use, so refusal is not required.',
};

export const READ_NO_BODY: RequestRule = {
  id: 'body-none-on-read',
  level: 'SHOULD',
  refusal: 'permitted',
  where: { in: 'body', pointer: '' },
  operations: READS,
  statement: 'GET (other than of a counterparty) and DELETE carry no content.',
  quotes: [Q.getContent, Q.deleteContent],
};

export const JSON_SUFFIX: OpenPoint = {
  id: 'header-content-type-json-suffix',
  where: { in: 'header', name: 'Content-Type' },
  operations: JSON_OPS,
  statement:
    'A +json media type other than application/json (application/merge-patch+json): JSON text with semantics of its own; the document names no media type, so whether it is served as the JSON body is open.',
  quotes: [Q.jsonBodies],
};

export const HEADERS: Family = {
  name: 'headers',
  rules: [
    NOT_REPEATED,
    CONTENT_TYPE_PRESENT,
    CONTENT_TYPE_SYNTAX,
    CONTENT_TYPE_JSON,
    CHARSET_UTF8,
    GET_COUNTERPARTY_NO_BODY,
    READ_NO_BODY,
  ],
  open: [JSON_SUFFIX],
  judge(view, sink) {
    const t = view.target.kind;
    if (t !== 'operation' && t !== 'slash') return;
    for (const name of SINGLE_FIELDS) {
      const n = view.headers.get(name)?.length ?? 0;
      if (n > 1) sink.breach(NOT_REPEATED, `header ${name}`, `${n} ${name} field lines`);
    }
    const kind = bodyKindOf(view.operationId);
    if (kind === undefined) {
      if (view.hasContent) {
        const r =
          view.operationId === COUNTERPARTY_READ.operationId ? GET_COUNTERPARTY_NO_BODY : READ_NO_BODY;
        sink.breach(r, 'body', `${view.method} with ${view.size} units of content`);
      }
      return;
    }
    if (!view.hasContent) return;
    const raw = view.headers.get('content-type')?.[0];
    if (raw === undefined) {
      sink.breach(CONTENT_TYPE_PRESENT, 'header Content-Type', 'content without a Content-Type');
      return;
    }
    const type = view.mediaType;
    if (type === undefined || type.problem !== undefined)
      sink.breach(
        CONTENT_TYPE_SYNTAX,
        'header Content-Type',
        `${JSON.stringify(raw)} is not a media type${type?.problem ? `: ${type.problem}` : ''}`,
      );
    if (type === undefined) return;
    if (kind !== 'document') {
      if (isJsonSuffix(type)) sink.open(JSON_SUFFIX, 'header Content-Type', `labelled ${type.essence}`);
      else if (!isJson(type))
        sink.breach(
          CONTENT_TYPE_JSON,
          'header Content-Type',
          `labelled ${type.essence}, not application/json`,
        );
    }
    const charset = parameter(type, 'charset');
    if ((isJson(type) || isJsonSuffix(type)) && charset !== undefined && charset.toLowerCase() !== 'utf-8')
      sink.breach(CHARSET_UTF8, 'header Content-Type', `charset=${charset}`);
  },
  cases(): RuleCase[] {
    const patch = sampleOf('counterparty', 'update');
    const get = sampleOf('counterparty', 'read');
    const mandate = sampleOf('mandate', 'read');
    const lines = (extra: [string, string][]): typeof patch => ({
      ...patch,
      headers: [...Object.entries(patch.headers as Record<string, string>), ...extra],
    });
    return [
      { rule: NOT_REPEATED.id, holds: patch, breaks: lines([['content-type', 'application/json']]) },
      { rule: CONTENT_TYPE_PRESENT.id, holds: patch, breaks: withHeader(patch, 'Content-Type', undefined) },
      {
        rule: CONTENT_TYPE_SYNTAX.id,
        holds: patch,
        breaks: withHeader(patch, 'Content-Type', 'application/json; charset'),
      },
      { rule: CONTENT_TYPE_JSON.id, holds: patch, breaks: withHeader(patch, 'Content-Type', 'text/plain') },
      {
        rule: CHARSET_UTF8.id,
        holds: withHeader(patch, 'Content-Type', 'application/json; charset=utf-8'),
        breaks: withHeader(patch, 'Content-Type', 'application/json; charset=iso-8859-1'),
      },
      { rule: GET_COUNTERPARTY_NO_BODY.id, holds: get, breaks: withBody(get, '{}') },
      { rule: READ_NO_BODY.id, holds: mandate, breaks: withBody(mandate, '{}') },
    ];
  },
  openCases() {
    const patch = sampleOf('counterparty', 'update');
    return [
      { point: JSON_SUFFIX.id, request: withHeader(patch, 'Content-Type', 'application/merge-patch+json') },
    ];
  },
};
