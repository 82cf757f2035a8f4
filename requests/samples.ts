/**
 * Minimal valid requests and values, derived from spec/openapi.yaml, for the enumeration of the
 * rules (every rule: a request on which it holds, and one that breaks it alone). Values are built
 * from a node's constraints (length, the characters its pattern allows, the first enum member),
 * and a breaking value is chosen among candidates by the schema itself (the one that fails the
 * node with errors of exactly the family asked), never by the model under test.
 */
import { fillPath } from '../exchange/paths.ts';
import { spec, type SchemaNode } from '../spec/index.ts';
import { fieldOfPath, siteAt, type Site } from './schema-sites.ts';
import type { HttpRequest, KnownAccount, ModelOptions } from './types.ts';
import { own } from '../exchange/own.ts';
import { operationIdOf, registered, type Action, type Resource } from '../spec/operations.ts';

export const BASE_URL = 'https://api.example.test';
/** A bearer token of the RFC 6750 b64token syntax. */
export const SAMPLE_TOKEN = 'sample-token_0123456789.abc~+/=';

/**
 * The identifiers the enumeration vouches for (the document shows their inner fields nowhere):
 * one plain, one with a UK sort code, one with a US routing number.
 */
export const SAMPLE_ACCOUNTS: readonly KnownAccount[] = [
  { accountIdentifier: { type: 'IBAN', value: 'DE89370400440532013000' } },
  {
    accountIdentifier: { type: 'ACCOUNT_NUMBER', value: '31926819' },
    branchIdentifier: { type: 'SORT', code: '601613' },
  },
  {
    accountIdentifier: { type: 'ACCOUNT_NUMBER', value: '000123456789' },
    branchIdentifier: { type: 'ROUTING', code: '021000021' },
  },
];

/** The options the enumeration's cases are modelled with. */
export const ENUMERATION_OPTIONS: ModelOptions = { knownAccounts: SAMPLE_ACCOUNTS };

/** Path parameters of the samples (checked against their schemas by sampleRequest). */
export const SAMPLE_PARAMS: Readonly<Record<string, string>> = {
  counterpartyReference: 'ACME-0001',
  uniqueReferenceIdentifier: 'BILL-0001',
  mandateReference: 'MANDATE-0001',
  collectionReference: 'COLLECTION-0001',
};

const ALNUM = /^[A-Za-z0-9]$/;
const LETTERS_DIGITS = 'AbcDef0123456789GhiJklMnoPqrStuVwxYz'.split('');

/** Values of sites the schema cannot supply: an account country from the list, a vouched identifier. */
const SITE_SAMPLES: Readonly<Record<string, unknown>> = {
  'counterpartyAccounts[].country': 'DE',
  'counterpartyAccounts[].accountIdentifier': SAMPLE_ACCOUNTS[0]!.accountIdentifier,
};

const valid = (node: SchemaNode, value: unknown): boolean => spec().compile(node)(value) === true;

/** An email address of exactly `n` characters (n >= 6). */
function emailOf(n: number): string {
  return `${'a'.repeat(Math.max(1, n - 5))}@b.cd`;
}

/** A string of `n` characters `node` allows (its pattern's letters and digits); undefined if none. */
export function stringOfLength(node: SchemaNode, n: number): string | undefined {
  if (n < 0) return undefined;
  if (node.format === 'email') return n >= 6 ? emailOf(n) : n === 5 ? 'a@b.c' : 'a'.repeat(n);
  const chars = node.pattern
    ? spec()
        .allowedChars(node.pattern)
        .filter((c) => ALNUM.test(c))
    : LETTERS_DIGITS;
  const pool = chars.length > 0 ? chars : node.pattern ? spec().allowedChars(node.pattern) : LETTERS_DIGITS;
  return Array.from({ length: n }, (_, i) => pool[i % pool.length]).join('');
}

/** A short valid string of `node`. */
export function sampleString(node: SchemaNode): string {
  if (node.enum) return node.enum[0]!;
  const min = node.minLength ?? 0;
  const n = Math.min(node.maxLength ?? 8, Math.max(min, node.format === 'email' ? 6 : 5));
  const s = stringOfLength(node, n)!;
  if (!valid(node, s)) throw new Error(`samples: no valid string for ${JSON.stringify(node)}`);
  return s;
}

/** A minimal valid value of the PATCH body site at `path` (an object holds what it must). */
export function sampleAt(path: readonly string[]): unknown {
  const field = fieldOfPath(path);
  if (Object.hasOwn(SITE_SAMPLES, field)) return structuredClone(SITE_SAMPLES[field]);
  const site = siteAt(path);
  if (!site) throw new Error(`samples: no site ${field}`);
  const node = site.node;
  if (node.type === 'string') return sampleString(node);
  if (node.type === 'array')
    return Array.from({ length: Math.max(1, node.minItems ?? 0) }, () => sampleAt([...path, '[]']));
  if (node.type === 'object' || node.properties) {
    const then = (node.then as { required?: string[] } | undefined)?.required ?? [];
    const keys = [...new Set([...(node.required ?? []), ...then])];
    const names = Object.keys(node.properties ?? {});
    // Never an empty object where it has fields: the document describes an object by its fields.
    if (keys.length === 0 && names.length > 0) keys.push(names[0]!);
    return Object.fromEntries(keys.map((k) => [k, sampleAt([...path, k])]));
  }
  throw new Error(`samples: no sample for ${field}`);
}

/**
 * The smallest valid body that reaches `path`, with `leaf` there (its sample by default): each
 * object on the way holds what it must and the next step; the root holds only that step.
 */
export function bodyWith(path: readonly string[], leaf: unknown = sampleAt(path)): unknown {
  if (path.length === 0) return leaf;
  const build = (depth: number): unknown => {
    if (depth === path.length) return leaf;
    const here = path.slice(0, depth);
    const next = path[depth]!;
    if (next === '[]') return [build(depth + 1)];
    const base = depth === 0 ? {} : (sampleAt(here) as Record<string, unknown>);
    // Where the step's sibling was only a filler (the first field of details), it goes.
    const site = siteAt(here)!;
    const must = new Set([
      ...(site.node.required ?? []),
      ...((site.node.then as { required?: string[] } | undefined)?.required ?? []),
    ]);
    const kept = Object.fromEntries(Object.entries(base).filter(([k]) => must.has(k)));
    return { ...kept, [next]: build(depth + 1) };
  };
  return build(0);
}

/** The family a schema keyword belongs to. */
export function familyOfKeyword(keyword: string): string {
  if (keyword === 'minLength' || keyword === 'maxLength') return 'length';
  if (keyword === 'minItems') return 'min-items';
  if (keyword === 'minProperties') return 'min-properties';
  return keyword;
}

function jsonType(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? 'number' : typeof v;
}

/** Candidate values of a site that break `family`; the first the node refuses for that family alone wins. */
export function breakingValue(site: Site, family: string): unknown {
  const node = site.node;
  const min = node.minLength ?? 0;
  const max = node.maxLength ?? min;
  const sample = node.type === 'string' ? sampleString(node) : undefined;
  const candidates: unknown[] = [];
  if (family === 'type') candidates.push(42, 'text', true, { value: 'x' }, ['x'], null);
  if (family === 'length') candidates.push(stringOfLength(node, max + 1), stringOfLength(node, min - 1));
  if (family === 'pattern' && sample !== undefined) {
    const at = Math.floor(sample.length / 2);
    for (const c of ['$', '%', '&', '*', '!', '#', 'a', '-', ' ', 'é'])
      candidates.push(sample.slice(0, at) + c + sample.slice(at + 1));
  }
  if (family === 'format') candidates.push('plainaddress', 'jane.doe.example.com', 'jane@@example.com');
  if (family === 'enum') candidates.push(...(node.enum ?? []).map((e) => e.toLowerCase()), 'ZZ', 'XXX');
  if (family === 'min-items') candidates.push([]);
  if (family === 'min-properties') candidates.push({});
  const check = spec().compile(node);
  for (const v of candidates) {
    if (v === undefined || (family === 'type' && jsonType(v) === node.type)) continue;
    if (check(v)) continue;
    // A value of another type is outside an enum of strings too: the type names the fault.
    const errors = (check.errors ?? []).filter((e) => !(family === 'type' && e.keyword === 'enum'));
    if (errors.every((e) => e.instancePath === '' && familyOfKeyword(e.keyword) === family)) return v;
  }
  throw new Error(`samples: no value of ${fieldOfPath(site.path)} breaks ${family} alone`);
}

// ------------------------------------------------------------------------------- requests

/** The URL of an operation with the sample (or given) path parameters. */
export function urlOf(operationId: string, params: Readonly<Record<string, string>> = SAMPLE_PARAMS): string {
  const op = registered(operationId);
  if (!op) throw new Error(`samples: no operation ${operationId}`);
  return `${BASE_URL}${fillPath(op.path, params)}`;
}

const JSON_HEADERS = { Authorization: `Bearer ${SAMPLE_TOKEN}`, 'Content-Type': 'application/json' };

/** A PATCH of the sample counterparty with `body` (a value, sent as JSON; a string, sent as is). */
export function patchRequest(body: unknown, headers: Record<string, string> = JSON_HEADERS): HttpRequest {
  return {
    method: 'PATCH',
    url: urlOf(operationIdOf('counterparty', 'update')),
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
}

/** A minimal request of each operation: valid, or undetermined where its payload is not shown. */
export function sampleRequest(operationId: string): HttpRequest {
  const op = registered(operationId);
  if (!op) throw new Error(`samples: no operation ${operationId}`);
  for (const [name, schema] of op.pathParamSchemas)
    if (!valid(schema, own(SAMPLE_PARAMS, name)))
      throw new Error(`samples: ${name} sample breaks its schema`);
  const url = urlOf(operationId);
  const auth = { Authorization: `Bearer ${SAMPLE_TOKEN}` };
  if (op.body === 'json-schema') return patchRequest(bodyWith(['counterpartyDetails']));
  if (op.body === 'document')
    return {
      method: op.method,
      url,
      headers: { ...auth, 'Content-Type': 'application/pdf' },
      body: '%PDF-1.7\n%sample\n',
    };
  if (op.body === 'json-not-shown')
    return { method: op.method, url, headers: JSON_HEADERS, body: '{"sample":true}' };
  return { method: op.method, url, headers: auth };
}

/** The sample request of the operation doing `action` to `resource`. */
export function sampleOf(resource: Resource, action: Action): HttpRequest {
  return sampleRequest(operationIdOf(resource, action));
}

/** `request` with header `name` set (undefined: removed), any case of the name replaced. */
export function withHeader(request: HttpRequest, name: string, value: string | undefined): HttpRequest {
  const lines = (Array.isArray(request.headers) ? request.headers : Object.entries(request.headers)) as [
    string,
    string,
  ][];
  const kept = lines.filter(([n]) => n.toLowerCase() !== name.toLowerCase());
  return { ...request, headers: Object.fromEntries(value === undefined ? kept : [...kept, [name, value]]) };
}

/** `request` with another body (undefined: none). */
export function withBody(request: HttpRequest, body: string | Uint8Array | undefined): HttpRequest {
  const { body: _old, ...rest } = request;
  return body === undefined ? rest : { ...rest, body };
}
