/**
 * The request model: the one place that knows what a valid request to the interface is. Pure (no
 * I/O, no clock): `modelRequest` reads a request once (view.ts) and hands it to every family of
 * rules, one idea per file, each reporting every breach it sees and every open point it touches:
 *
 *   routing.ts      undocumented paths and methods (open)
 *   path.ts         path parameters; the slash of §4.1
 *   query.ts        query parameters and their bounds
 *   headers.ts      Content-Type, repeated fields, content where none belongs
 *   credentials.ts  Authorization: present, Bearer, a token of the right syntax
 *   payloads.ts     content present, JSON text, what can be said of the payloads not shown
 *   body-schema.ts  the PATCH counterparty body against the spec's schema
 *   relations.ts    rules between an account's fields; identifiers' inner fields (open)
 *
 * And its enumeration: every rule with a request on which it holds and one that breaks it alone,
 * every open point with a request that touches it, for the tests and for the generators.
 */
import type { HarEntry } from '../exchange/har.ts';
import { requestBodyBytes, type Exchange } from '../exchange/exchange.ts';
import { BODY_SCHEMA } from './body-schema.ts';
import { CREDENTIALS, readCredentials } from './credentials.ts';
import { HEADERS } from './headers.ts';
import { PATH } from './path.ts';
import { PAYLOADS, readsAsJson } from './payloads.ts';
import { QUERY } from './query.ts';
import { RELATIONS } from './relations.ts';
import { ROUTING } from './routing.ts';
import type {
  BodyView,
  Breach,
  HttpRequest,
  ModelledRequest,
  ModelOptions,
  OpenCase,
  OpenHit,
  OpenPoint,
  RequestRule,
  RuleCase,
  Verdict,
} from './types.ts';
import { viewOf, type Family, type View } from './view.ts';

/** The families, in the order they judge (and their breaches are listed). */
export const FAMILIES: readonly Family[] = [
  ROUTING,
  PATH,
  QUERY,
  HEADERS,
  CREDENTIALS,
  PAYLOADS,
  BODY_SCHEMA,
  RELATIONS,
];

/** Every rule of the model. */
export const RULES: readonly RequestRule[] = FAMILIES.flatMap((f) => f.rules);
/** Every open point of the model. */
export const OPEN_POINTS: readonly OpenPoint[] = FAMILIES.flatMap((f) => f.open);

const RULE_BY_ID = new Map(RULES.map((r) => [r.id, r]));
const POINT_BY_ID = new Map(OPEN_POINTS.map((p) => [p.id, p]));

/** The rule `id`; throws on an unknown id. */
export function rule(id: string): RequestRule {
  const r = RULE_BY_ID.get(id);
  if (!r) throw new Error(`requests: unknown rule ${id}`);
  return r;
}

/** The open point `id`; throws on an unknown id. */
export function openPoint(id: string): OpenPoint {
  const p = POINT_BY_ID.get(id);
  if (!p) throw new Error(`requests: unknown open point ${id}`);
  return p;
}

function bodyView(view: View): BodyView {
  const mediaType = view.mediaType?.essence;
  const base = { mediaType, size: view.size };
  if (!view.hasContent) return { kind: 'none', ...base };
  if (!readsAsJson(view)) return { kind: 'other', ...base };
  const json = view.json();
  if (json.state === 'json') return { kind: 'json', ...base, json: json.value };
  return { kind: json.state === 'too-deep' ? 'too-deep' : 'malformed', ...base };
}

/**
 * Models one request: the operation it targets, its decoded parameters, and either valid or every
 * rule it breaks and every open point it touches. `options.knownAccounts` vouches for account
 * identifiers the document does not describe; `options.basePath` is the base URL's path.
 */
export function modelRequest(request: HttpRequest, options: ModelOptions = {}): ModelledRequest {
  const view = viewOf(request, options);
  const broken: Breach[] = [];
  const open: OpenHit[] = [];
  if (view.target.kind !== 'outside') {
    const sink = {
      breach: (r: RequestRule, at: string, message: string) =>
        broken.push({ rule: r.id, level: r.level, at, message }),
      open: (p: OpenPoint, at: string, message: string) => open.push({ point: p.id, at, message }),
    };
    for (const family of FAMILIES) family.judge(view, sink);
  }
  const verdict: Verdict =
    view.target.kind === 'outside'
      ? 'outside'
      : broken.length > 0
        ? 'invalid'
        : open.length > 0
          ? 'undetermined'
          : 'valid';
  return {
    verdict,
    target: view.target,
    operationId: view.operationId,
    params: view.params,
    query: view.query,
    credentials: readCredentials(view).credentials,
    body: bodyView(view),
    broken,
    open,
  };
}

/** The distinct ids of the rules a modelled request breaks, sorted. */
export function brokenRules(m: ModelledRequest): string[] {
  return [...new Set(m.broken.map((b) => b.rule))].sort();
}

/** The distinct ids of the open points a modelled request touches, sorted. */
export function openPoints(m: ModelledRequest): string[] {
  return [...new Set(m.open.map((o) => o.point))].sort();
}

/** Whether a MUST rule is broken (SHOULD breaches alone leave a request questionable, not wrong). */
export function breaksMust(m: ModelledRequest): boolean {
  return m.broken.some((b) => b.level === 'MUST');
}

/** Every rule with a minimal request on which it holds and one that breaks it alone. */
export function ruleCases(): RuleCase[] {
  return FAMILIES.flatMap((f) => f.cases());
}

/** Every open point with a minimal request that touches it alone. */
export function openCases(): OpenCase[] {
  return FAMILIES.flatMap((f) => f.openCases());
}

/** The request of a logged exchange (its headers one value per name, as the log keeps them). */
export function requestOfExchange(ex: Exchange): HttpRequest {
  return ex.request.bodyEncoding === undefined
    ? ex.request
    : { ...ex.request, body: requestBodyBytes(ex.request) };
}

/** The request of a HAR entry, with its header lines as recorded: a repeated field stays repeated. */
export function requestOfHarEntry(entry: HarEntry): HttpRequest {
  const text = entry.request.postData?.text;
  const bytes = entry.request.postData?._encoding === 'base64';
  return {
    method: entry.request.method,
    url: entry.request.url,
    headers: entry.request.headers.map((h) => [h.name, h.value] as const),
    ...(text !== undefined && text !== '' ? { body: bytes ? Buffer.from(text, 'base64') : text } : {}),
  };
}
