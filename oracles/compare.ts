/**
 * Comparing two states of a counterparty on what the document settles: the fields it lists,
 * without the account fields the service may change on its own. Shared by the PATCH oracles;
 * tested directly in tests/self/compare.spec.ts.
 */
import { canonicalJson, frozenCanonicalJson } from '../exchange/canonical-json.ts';
import { spec } from '../spec/index.ts';
import { isObject as isObj, own } from '../exchange/own.ts';

export type Obj = Record<string, unknown>;

/**
 * Account fields the service may change on its own between two requests: the document shows no
 * transitions of account state or verification (§3), so a verification may run at any time.
 */
export const SYSTEM_MANAGED_ACCOUNT_FIELDS: readonly string[] = [
  'state',
  'verificationStatus',
  'lastVerifiedAt',
  'updatedAt',
];

/**
 * Counterparty fields the service may change on its own: "Transitions of counterparty state,
 * account state and verificationStatus: not shown" (§3), so a counterparty may turn ACTIVE or
 * INACTIVE between two requests (when an account is added or verified, say).
 */
export const SYSTEM_MANAGED_COUNTERPARTY_FIELDS: readonly string[] = ['state'];

export const COUNTERPARTY_FIELDS = Object.keys(spec().schema('Counterparty').properties ?? {});
export const ADDRESS_FIELDS = Object.keys(spec().schema('Address').properties ?? {});
const ACCOUNT_FIELDS = Object.keys(spec().schema('CounterpartyAccount').properties ?? {});

/** The oracles' name for exchange/own.ts isObject. */
export { isObj };

export function accountsOf(cp: Obj): Obj[] {
  return Array.isArray(cp.counterpartyAccounts) ? cp.counterpartyAccounts.filter(isObj) : [];
}

export function only(o: Obj, keys: readonly string[]): Obj {
  return Object.fromEntries(Object.entries(o).filter(([k]) => keys.includes(k)));
}

/**
 * What two states of a counterparty are compared on: the fields the document lists (a service may
 * add fields of its own, such as a request id, that differ between responses), without the
 * counterparty and account fields the service may change on its own. Accounts are sorted: the document does not settle
 * their order.
 */
export function comparable(cp: Obj): Obj {
  // The judge compares one answer with many (the read before a batch of refused PATCHes with each
  // of them): computed once per answer. Answers are never changed once logged, and callers only
  // read what this returns.
  const known = comparables.get(cp);
  if (known) return known;
  const out = only(
    structuredClone(cp),
    COUNTERPARTY_FIELDS.filter((k) => !SYSTEM_MANAGED_COUNTERPARTY_FIELDS.includes(k)),
  );
  if (isObj(out.address)) out.address = only(out.address, ADDRESS_FIELDS);
  if (Array.isArray(out.counterpartyAccounts)) {
    const kept = ACCOUNT_FIELDS.filter((k) => !SYSTEM_MANAGED_ACCOUNT_FIELDS.includes(k));
    // Each account's canonical form computed once, not once per comparison of the sort.
    out.counterpartyAccounts = out.counterpartyAccounts
      .map((a: unknown) => (isObj(a) ? only(a, kept) : a))
      .map((a: unknown) => ({ a, key: canonicalJson(a) }))
      .sort((x: { key: string }, y: { key: string }) => x.key.localeCompare(y.key))
      .map((x: { a: unknown }) => x.a);
  }
  comparables.set(cp, out);
  // Every value inside is kept too: differences() compares two states field by field, and each
  // account of one state is matched with every account of another (a multiset match).
  keep(out);
  return out;
}

/** Registers a value made by this module and never changed after, with every value inside it. */
function keep(v: unknown): void {
  if (v === null || typeof v !== 'object' || states.has(v)) return;
  states.add(v);
  for (const inner of Array.isArray(v) ? v : Object.values(v)) keep(inner);
}

/**
 * What comparable() returns without updatedAt: what a PATCH changed on what the document settles
 * (updatedAt aside). Kept, with its text, like comparable()'s.
 */
export function settled(cp: Obj): Obj {
  const known = settleds.get(cp);
  if (known) return known;
  const { updatedAt: _updatedAt, ...rest } = comparable(cp);
  settleds.set(cp, rest);
  states.add(rest);
  return rest;
}

const settleds = new WeakMap<Obj, Obj>();

/**
 * What comparable() returns without the fields `moving` names (fields a deployment moves by
 * itself, engine/judge.ts): kept per set of fields, with its text, like comparable()'s.
 */
export function without(cp: Obj, moving: ReadonlySet<string>): Obj {
  const key = [...moving].sort().join('\n');
  let byKey = withouts.get(cp);
  if (byKey === undefined) {
    byKey = new Map();
    withouts.set(cp, byKey);
  }
  let out = byKey.get(key);
  if (out === undefined) {
    out = Object.fromEntries(Object.entries(comparable(cp)).filter(([k]) => !moving.has(k)));
    byKey.set(key, out);
    states.add(out);
  }
  return out;
}

const withouts = new WeakMap<Obj, Map<string, Obj>>();

const comparables = new WeakMap<Obj, Obj>();
/** What comparable() returned: never changed after, so their canonical text is kept. */
const states = new WeakSet<object>();
/**
 * canonicalJson, kept for what comparable() returned (never changed after): the judge compares
 * one state with many (the read before a batch of refused PATCHes with the read after, once per
 * PATCH of the batch; each read with every PATCH waiting on it).
 */
function textOf(v: unknown): string {
  return v !== null && typeof v === 'object' && states.has(v) ? frozenCanonicalJson(v) : canonicalJson(v);
}

export const same = (a: unknown, b: unknown): boolean => textOf(a) === textOf(b);
export const show = (v: unknown): string => (v === undefined ? 'absent' : JSON.stringify(v));

export function truncate(s: string, n = 120): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

/** The JSON paths where two values differ (at most `limit`), each with both values. */
export function differences(a: unknown, b: unknown, limit = 5, path = ''): string[] {
  if (same(a, b)) return [];
  if (isObj(a) && isObj(b)) {
    const out: string[] = [];
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      out.push(...differences(own(a, key), own(b, key), limit - out.length, `${path}/${key}`));
      if (out.length >= limit) break;
    }
    return out;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    const out: string[] = [];
    for (let i = 0; i < a.length && out.length < limit; i++) {
      out.push(...differences(a[i], b[i], limit - out.length, `${path}/${i}`));
    }
    return out;
  }
  return [`${path || '(root)'}: ${truncate(show(a))} → ${truncate(show(b))}`];
}

/** Matches each item of `a` to a distinct item of `b` (multisets); what is left on both sides. */
export function unmatched(
  a: Obj[],
  b: Obj[],
  match: (x: Obj, y: Obj) => boolean,
): { missing: Obj[]; rest: Obj[] } {
  const rest = [...b];
  const missing: Obj[] = [];
  for (const x of a) {
    const i = rest.findIndex((y) => match(x, y));
    if (i === -1) missing.push(x);
    else rest.splice(i, 1);
  }
  return { missing, rest };
}
