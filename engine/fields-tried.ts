/**
 * What a run tried of each field of the interface's requests: the path and query parameters and
 * every field of the PATCH counterparty body. Read from the traffic alone, by the request model
 * (requests/), so that a run, a HAR file and a proxy session are pictured alike: for each field,
 * how many requests carried it, whether a value sat at each bound of its schema and just past it
 * (a length of maxLength and of maxLength + 1, a page of 1 and of 0), and which of its rules the
 * requests broke, how often, with the rules never broken listed too (a read-only run breaks none
 * of the body's). The headers, the credentials and the payload as JSON text are not fields: the
 * requirements that judge them say whether they were exercised.
 */
import type { Exchange } from '../exchange/exchange.ts';
import { isObject } from '../exchange/own.ts';
import { modelledExchange } from '../oracles/modelled.ts';
import { FAMILIES, pathOfField, type ModelledRequest, type RequestRule } from '../requests/index.ts';
import { siteAt, walkInstance } from '../requests/schema-sites.ts';
import { spec, type SchemaNode } from '../spec/index.ts';
import { operationIdOf } from '../spec/operations.ts';

/** The bounds a schema sets that a value can sit at, or just past. */
export type BoundKeyword = 'minLength' | 'maxLength' | 'minItems' | 'minProperties' | 'minimum';

export interface BoundTried {
  keyword: BoundKeyword;
  limit: number;
  /** Values sent at the bound (a length of exactly maxLength). */
  at: number;
  /** Values sent one past it, outside (maxLength + 1, minLength − 1, minimum − 1). */
  past: number;
}

export interface RuleTried {
  /** The request model's rule (requests/): patch-details-remarks-pattern. */
  rule: string;
  /** What of the field it constrains, short: length, pattern, type, enum, required... */
  class: string;
  level: 'MUST' | 'SHOULD';
  /** Requests that broke it (0: never tried). */
  broken: number;
}

export interface FieldTried {
  /** counterpartyReference, page, counterpartyDetails.remarks, counterpartyAccounts[].name; body: the PATCH body itself. */
  field: string;
  in: 'path' | 'query' | 'body';
  /** The operations whose requests carry it. */
  operations: string[];
  /** Requests that carried a value for it (a relation: every field it relates). */
  sent: number;
  bounds: BoundTried[];
  rules: RuleTried[];
}

/** The families whose rules constrain a field (routing, headers, credentials and payloads do not). */
const FIELD_FAMILIES = new Set(['path', 'query', 'body-schema', 'relations']);

/** What a rule's id ends with, after its field's name: the longest first. */
const CLASSES = [
  'required-for-bank-account',
  'details-or-accounts',
  'permitted-properties',
  'min-properties',
  'not-writable',
  'min-items',
  'immutable',
  'no-slash',
  'required',
  'currency',
  'integer',
  'minimum',
  'pattern',
  'length',
  'format',
  'enum',
  'type',
];

/** The class of a rule: the end of its id; the whole id where no class is known. */
export function classOfRule(id: string): string {
  return CLASSES.find((c) => id.endsWith(`-${c}`)) ?? id;
}

const PATCH = operationIdOf('counterparty', 'update');

/** '/counterpartyAccounts/*\/name' → 'counterpartyAccounts[].name'; '' → 'body'. */
function fieldOfPointer(pointer: string): string {
  if (pointer === '') return 'body';
  return pointer
    .slice(1)
    .split('/')
    .map((p) => (p === '*' ? '[]' : p))
    .join('.')
    .replace(/\.\[\]/g, '[]');
}

interface FieldSpec {
  key: string;
  field: string;
  in: FieldTried['in'];
  operations: Set<string>;
  rules: RequestRule[];
  /** The schema whose bounds apply; none for a relation. */
  node?: SchemaNode;
}

/** The key of the field a rule constrains, its name and where it is. */
function fieldOfRule(rule: RequestRule): Pick<FieldSpec, 'key' | 'field' | 'in'> | undefined {
  const w = rule.where;
  if (w.in === 'path' || w.in === 'query') return { key: `${w.in} ${w.name}`, field: w.name, in: w.in };
  if (w.in === 'body') return { key: `body ${w.pointer}`, field: fieldOfPointer(w.pointer), in: 'body' };
  if (w.in === 'relation') {
    const field = w.pointers.map(fieldOfPointer).join(' + ');
    return { key: `relation ${field}`, field, in: 'body' };
  }
  return undefined;
}

/** The schema of a parameter of one of `operations`, `$ref`s followed. */
function parameterNode(
  where: 'path' | 'query',
  name: string,
  operations: Iterable<string>,
): SchemaNode | undefined {
  for (const id of operations) {
    const p = spec()
      .parameters(id)
      .find((x) => x.in === where && x.name === name);
    if (p) return spec().resolve(p.schema);
  }
  return undefined;
}

let specs: FieldSpec[] | undefined;
let specByKey: Map<string, FieldSpec> | undefined;

function specOf(key: string): FieldSpec | undefined {
  specByKey ??= new Map(fieldSpecs().map((s) => [s.key, s]));
  return specByKey.get(key);
}

/** Every field the request model constrains, in the model's order, with its rules and schema. */
export function fieldSpecs(): readonly FieldSpec[] {
  if (specs) return specs;
  const byKey = new Map<string, FieldSpec>();
  for (const family of FAMILIES) {
    if (!FIELD_FAMILIES.has(family.name)) continue;
    for (const rule of family.rules) {
      const f = fieldOfRule(rule);
      if (!f) continue;
      const entry = byKey.get(f.key) ?? { ...f, operations: new Set<string>(), rules: [] };
      for (const op of rule.operations) entry.operations.add(op);
      entry.rules.push(rule);
      byKey.set(f.key, entry);
    }
  }
  for (const s of byKey.values()) {
    if (s.key.startsWith('relation ')) continue;
    const node =
      s.in === 'body' ? siteAt(pathOfField(s.field))?.node : parameterNode(s.in, s.field, s.operations);
    if (node) s.node = node;
  }
  specs = [...byKey.values()];
  return specs;
}

/** The bounds of a schema node, in the order a reader scans them. */
function boundsOf(node: SchemaNode | undefined): { keyword: BoundKeyword; limit: number }[] {
  if (!node) return [];
  const out: { keyword: BoundKeyword; limit: number }[] = [];
  for (const keyword of ['minLength', 'maxLength', 'minItems', 'minProperties', 'minimum'] as const) {
    const limit = node[keyword];
    if (typeof limit === 'number') out.push({ keyword, limit });
  }
  return out;
}

/** The size a bound measures of a value, or undefined where it does not apply to the value. */
function measure(keyword: BoundKeyword, value: unknown, fromText: boolean): number | undefined {
  switch (keyword) {
    case 'minLength':
    case 'maxLength':
      return typeof value === 'string' ? [...value].length : undefined;
    case 'minItems':
      return Array.isArray(value) ? value.length : undefined;
    case 'minProperties':
      return isObject(value) ? Object.keys(value).length : undefined;
    case 'minimum':
      if (typeof value === 'number') return value;
      // A query parameter is text: a number in decimal digits is measured as its number.
      return fromText && typeof value === 'string' && /^-?\d{1,15}$/.test(value) ? Number(value) : undefined;
  }
}

/** Whether a size is one past a bound, outside it. */
function isPast(keyword: BoundKeyword, limit: number, size: number): boolean {
  return keyword === 'maxLength' ? size === limit + 1 : size === limit - 1;
}

/** Counts, exchange by exchange, what was tried of each field. */
export class FieldsCounter {
  private readonly sent = new Map<string, number>();
  private readonly at = new Map<string, number>();
  private readonly past = new Map<string, number>();
  private readonly broken = new Map<string, number>();
  private readonly ruleField = new Map<string, string>();

  constructor(private readonly basePath = '') {
    for (const s of fieldSpecs()) for (const r of s.rules) this.ruleField.set(r.id, s.key);
  }

  /** One exchange of the traffic; one whose request body was kept only in part is not read. */
  add(ex: Pick<Exchange, 'request'>): void {
    if (ex.request.bodyCut !== undefined) return;
    const m = modelledExchange(ex, this.basePath);
    if (m.verdict === 'outside') return;
    for (const rule of new Set(m.broken.map((b) => b.rule)))
      if (this.ruleField.has(rule)) bump(this.broken, rule);
    for (const [key, value, fromText] of valuesOf(m)) this.value(m.operationId, key, value, fromText);
  }

  private value(operationId: string | undefined, key: string, value: unknown, fromText: boolean): void {
    const s = specOf(key);
    if (!s || operationId === undefined || !s.operations.has(operationId)) return;
    bump(this.sent, key);
    for (const b of boundsOf(s.node)) {
      const size = measure(b.keyword, value, fromText);
      if (size === undefined) continue;
      if (size === b.limit) bump(this.at, `${key}\u0000${b.keyword}`);
      else if (isPast(b.keyword, b.limit, size)) bump(this.past, `${key}\u0000${b.keyword}`);
    }
  }

  fields(): FieldTried[] {
    return fieldSpecs().map((s) => ({
      field: s.field,
      in: s.in,
      operations: [...s.operations],
      sent: this.sentOf(s),
      bounds: boundsOf(s.node).map((b) => ({
        ...b,
        at: this.at.get(`${s.key}\u0000${b.keyword}`) ?? 0,
        past: this.past.get(`${s.key}\u0000${b.keyword}`) ?? 0,
      })),
      rules: s.rules.map((r) => ({
        rule: r.id,
        class: classOfRule(r.id),
        level: r.level,
        broken: this.broken.get(r.id) ?? 0,
      })),
    }));
  }

  /**
   * How many requests carried the field. A relation: as many as carried the least sent of the
   * fields it relates. A property the schema does not list (counterpartyReference in the details,
   * which the document forbids) is seen only where its rule was broken.
   */
  private sentOf(s: FieldSpec): number {
    if (s.key.startsWith('relation ')) {
      const keys = s.field.split(' + ').map((f) => `body ${pointerOf(f)}`);
      return Math.min(...keys.map((k) => this.sent.get(k) ?? 0));
    }
    if (!s.node) return Math.max(0, ...s.rules.map((r) => this.broken.get(r.id) ?? 0));
    return this.sent.get(s.key) ?? 0;
  }
}

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

/** 'counterpartyAccounts[].name' → '/counterpartyAccounts/*\/name'. */
function pointerOf(field: string): string {
  return pathOfField(field)
    .map((p) => `/${p === '[]' ? '*' : p}`)
    .join('');
}

/** Every field value a modelled request carries: [field key, value, read from text]. */
function valuesOf(m: ModelledRequest): [string, unknown, boolean][] {
  const out: [string, unknown, boolean][] = [];
  for (const [name, value] of Object.entries(m.params)) out.push([`path ${name}`, value, true]);
  for (const [name, value] of m.query) out.push([`query ${name}`, value, true]);
  if (m.operationId === PATCH && m.body.kind === 'json')
    walkInstance(m.body.json, (site, value) => {
      out.push([`body ${pointerOf(site.path.join('.').replace(/\.\[\]/g, '[]'))}`, value, false]);
    });
  return out;
}
