/**
 * A request read once, for every family of rules: the operation it targets (exchange/route.ts,
 * the project's one router), its decoded path and query parameters, its header fields by name
 * in lower case with the white space around each value removed (RFC 9110 §5.5: it is not part
 * of the value), its Content-Type parsed, and its content read as JSON when asked.
 *
 * And the shape of a family: the rules it owns, the open points it may report, a `judge` that
 * reports every breach it sees, and the cases that prove each rule and point.
 */
import { route } from '../exchange/route.ts';
import { HTTP_METHODS } from '../spec/index.ts';
import { contentSize, contentText, readJson, type JsonText } from './json-text.ts';
import { parseMediaType, type MediaType } from './media-type.ts';
import type {
  HttpRequest,
  ModelOptions,
  OpenCase,
  OpenPoint,
  RequestRule,
  RuleCase,
  Target,
} from './types.ts';

export interface View {
  readonly request: HttpRequest;
  readonly options: ModelOptions;
  /** Upper case. */
  readonly method: string;
  readonly target: Target;
  readonly operationId: string | undefined;
  readonly params: Readonly<Record<string, string>>;
  readonly query: readonly (readonly [string, string])[];
  /** Field values by lower-case name, one per field line, trimmed. */
  readonly headers: ReadonlyMap<string, readonly string[]>;
  /** The content as text; undefined: bytes that are not UTF-8. */
  readonly text: string | undefined;
  readonly size: number;
  readonly hasContent: boolean;
  /** The first Content-Type, parsed; undefined when absent or not even type/subtype. */
  readonly mediaType: MediaType | undefined;
  /** The content read as JSON text (once). */
  json(): JsonText;
}

export interface Sink {
  breach(rule: RequestRule, at: string, message: string): void;
  open(point: OpenPoint, at: string, message: string): void;
}

/** One family of rules: one idea, one file. */
export interface Family {
  readonly name: string;
  readonly rules: readonly RequestRule[];
  readonly open: readonly OpenPoint[];
  judge(view: View, sink: Sink): void;
  /** A holding and a breaking request for each of its rules. */
  cases(): RuleCase[];
  /** A request touching each of its open points, alone. */
  openCases(): OpenCase[];
}

const OWS_AROUND = /^[ \t]+|[ \t]+$/g;

function headerMap(headers: HttpRequest['headers']): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const lines = Array.isArray(headers)
    ? (headers as readonly (readonly [string, string])[])
    : Object.entries(headers as Record<string, string>);
  for (const [name, value] of lines) {
    // HTTP/2 pseudo-headers (:authority, :path) are no header fields.
    if (name.startsWith(':')) continue;
    const key = name.toLowerCase();
    const list = out.get(key);
    const v = value.replace(OWS_AROUND, '');
    if (list) list.push(v);
    else out.set(key, [v]);
  }
  return out;
}

const UPPER_METHODS = HTTP_METHODS.map((m) => m.toUpperCase());

/** The operation a request targets, or why none: exchange/route.ts, asked once per method for a 405. */
export function targetOf(method: string, url: string, basePath?: string): Target {
  const found = route(method, url, basePath);
  if (!found.inInterface) return { kind: 'outside' };
  const r = found.route;
  if (r?.kind === 'operation')
    return { kind: 'operation', operation: r.operation, params: r.params, rawParams: r.rawParams };
  if (r?.kind === 'slash') return { kind: 'slash', operation: r.operation, reference: r.reference };
  const allowed = UPPER_METHODS.filter((m) => route(m, url, basePath).route?.kind === 'operation');
  return allowed.length > 0 ? { kind: 'undocumented-method', allowed } : { kind: 'undocumented-path' };
}

function queryOf(url: string): [string, string][] {
  const at = url.indexOf('?');
  if (at < 0) return [];
  const hash = url.indexOf('#', at);
  return [...new URLSearchParams(url.slice(at + 1, hash < 0 ? undefined : hash))];
}

export function viewOf(request: HttpRequest, options: ModelOptions): View {
  const method = request.method.toUpperCase();
  const target = targetOf(method, request.url, options.basePath);
  const headers = headerMap(request.headers);
  const text = contentText(request.body);
  const size = contentSize(request.body);
  const type = headers.get('content-type')?.[0];
  let json: JsonText | undefined;
  return {
    request,
    options,
    method,
    target,
    operationId:
      target.kind === 'operation' || target.kind === 'slash' ? target.operation.operationId : undefined,
    params: target.kind === 'operation' ? target.params : {},
    query: queryOf(request.url),
    headers,
    text,
    size,
    hasContent: size > 0,
    mediaType: type === undefined ? undefined : parseMediaType(type),
    json: () => (json ??= readJson(text)),
  };
}
