/**
 * The route matcher: turns the method and URL of an exchange into the operation of
 * spec/openapi.yaml it calls and its path parameters, decoded. "The reference asked for" is
 * read from the exchange through here, never from the probe that sent it, so the same oracles
 * judge the suite's own traffic, a HAR file and a proxy's.
 *
 * A URL whose counterparty reference holds a raw "/" matches no operation (interface.md §4.1:
 * the slash is a path separator); it is returned as a `slash` match so that the routing rule of
 * §7 can judge it.
 */
import { spec, type Operation } from '../spec/index.ts';

/** Every path of the interface starts with this (interface.md §9). */
export const API_PREFIX = '/api/v1/';

export type RouteMatch =
  | {
      kind: 'operation';
      operation: Operation;
      /** Path parameters, percent-decoded. */
      params: Record<string, string>;
      /** Path parameters as they stood in the URL. */
      rawParams: Record<string, string>;
    }
  | {
      kind: 'slash';
      /** The counterparty operation of the method (GET or PATCH). */
      operation: Operation;
      /** The reference with its raw slashes, each part decoded. */
      reference: string;
    };

interface Template {
  segments: string[];
  operations: Operation[];
}

let templates: Template[] | undefined;

function table(): Template[] {
  if (templates) return templates;
  const byPath = new Map<string, Operation[]>();
  for (const op of spec().operations()) byPath.set(op.path, [...(byPath.get(op.path) ?? []), op]);
  templates = [...byPath].map(([path, operations]) => ({
    segments: path.slice(API_PREFIX.length).split('/'),
    operations,
  }));
  return templates;
}

function decode(raw: string): string | undefined {
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/**
 * The path below the interface's prefix: after `basePath` when the URL starts with it (the
 * suite knows its base URL), else after the first "/api/v1/" (a HAR file does not say).
 */
function interfaceSegments(url: string, basePath: string | undefined): string[] | undefined {
  let pathname: string;
  try {
    pathname = new URL(url, 'http://unknown.invalid').pathname;
  } catch {
    return undefined;
  }
  let rest: string | undefined;
  const base = basePath?.replace(/\/+$/, '') ?? '';
  if (base !== '' && pathname.startsWith(`${base}${API_PREFIX}`)) {
    rest = pathname.slice(base.length + API_PREFIX.length);
  } else if (base === '' && pathname.startsWith(API_PREFIX)) {
    rest = pathname.slice(API_PREFIX.length);
  } else {
    const at = pathname.indexOf(API_PREFIX);
    if (at >= 0) rest = pathname.slice(at + API_PREFIX.length);
  }
  return rest === undefined ? undefined : rest.split('/');
}

/** The operation an exchange calls, or undefined when it is outside the interface. */
export function matchRoute(method: string, url: string, basePath?: string): RouteMatch | undefined {
  return route(method, url, basePath).route;
}

/** Both at once, the URL parsed once: the operation, and whether the URL is below the prefix. */
export function route(
  method: string,
  url: string,
  basePath?: string,
): { route: RouteMatch | undefined; inInterface: boolean } {
  const segments = interfaceSegments(url, basePath);
  if (segments === undefined) return { route: undefined, inInterface: false };
  return { route: matchSegments(method, segments), inInterface: true };
}

function matchSegments(method: string, segments: string[]): RouteMatch | undefined {
  const m = method.toUpperCase();
  for (const t of table()) {
    if (t.segments.length !== segments.length) continue;
    const raw: [string, string][] = [];
    let ok = true;
    for (let i = 0; i < segments.length && ok; i++) {
      const want = t.segments[i]!;
      const got = segments[i]!;
      const param = /^\{(.+)\}$/.exec(want)?.[1];
      if (param === undefined) ok = want === got;
      else if (got === '') ok = false;
      else raw.push([param, got]);
    }
    if (!ok) continue;
    const operation = t.operations.find((op) => op.method === m);
    if (!operation) return undefined;
    const params = Object.fromEntries(raw.map(([param, got]) => [param, decode(got) ?? got]));
    return { kind: 'operation', operation, params, rawParams: Object.fromEntries(raw) };
  }
  // counterparties/{a}/{b}...: a reference holding a raw slash (§4.1).
  if (segments.length > 2 && segments[0] === 'counterparties' && segments.slice(1).every((s) => s !== '')) {
    const operation = spec()
      .operations()
      .find((op) => op.path === `${API_PREFIX}counterparties/{counterpartyReference}` && op.method === m);
    if (operation) {
      const reference = segments
        .slice(1)
        .map((s) => decode(s) ?? s)
        .join('/');
      return { kind: 'slash', operation, reference };
    }
  }
  return undefined;
}

/** Whether a URL is below the interface's prefix (an operation of it or not). */
export function inInterface(url: string, basePath?: string): boolean {
  return interfaceSegments(url, basePath) !== undefined;
}

/** The base path of a base URL ('' for https://host). */
export function basePathOf(baseURL: string): string {
  try {
    return new URL(baseURL).pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}
