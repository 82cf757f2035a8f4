/**
 * What an accepted PATCH does to the stored counterparty. Requirements: patch-persisted,
 * patch-sent-fields-applied, patch-unsent-fields-unchanged, patch-immutable-fields,
 * patch-updated-at, patch-accounts-appended.
 *
 * Rests on interface.md §4.2 "Changes the details of an existing counterparty, adds accounts to
 * it, or both.", "`counterpartyDetails`: object with at least 1 property; contains only the
 * fields to change; `counterpartyReference` is immutable and cannot be changed.", "each item
 * adds an account to the counterparty" and "Success response: the updated counterparty object
 * as in 2.1", and on RFC 5789 §2.
 *
 * Applies to every 2xx PATCH of a counterparty whose answer is a counterparty object, with the
 * state before it (the last read, or the confirmed answer of the accepted PATCH before it) and
 * the read after it, where the log holds them (engine/judge.ts):
 * what needs the read before (unsent fields, immutable fields, updatedAt, existing accounts) is
 * judged only with it, what needs the read after (persisted) only with that.
 *
 * Where the document is silent, any choice passes: whether a partial address is merged or
 * replaces the stored one, the order of accounts, how account identifiers are shown (a service
 * may mask them), fields the service adds of its own, the account fields whose transitions are
 * not shown (state, verificationStatus, lastVerifiedAt, updatedAt), and whether a PATCH that
 * changes nothing (values sent equal to the stored ones) moves updatedAt.
 */
import { canonicalJson } from '../exchange/canonical-json.ts';
import { is2xx, requestJson, type Exchange } from '../exchange/exchange.ts';
import { spec } from '../spec/index.ts';
import type { RequirementId } from '../spec/requirements.ts';
import {
  ADDRESS_FIELDS,
  COUNTERPARTY_FIELDS,
  accountsOf,
  comparable,
  SYSTEM_MANAGED_COUNTERPARTY_FIELDS,
  differences,
  isObj,
  only,
  same,
  settled,
  show,
  truncate,
  unmatched,
  type Obj,
} from './compare.ts';
import { held, violated, type Judgement, type PatchOracle, type PatchSequence } from './types.ts';
import { own } from '../exchange/own.ts';

/** How much older than the server's clock the stored updatedAt must be before a move is required. */
export const UPDATED_AT_SLACK_MS = 60_000;

/** Judged by their own requirements, not by patch-unsent-fields-unchanged. */
const SEPARATELY_JUDGED = [
  'counterpartyReference',
  'createdAt',
  'updatedAt',
  'counterpartyAccounts',
  'address',
];
/** What identifies an account that was there before (all but the system-managed fields). */
const STABLE_ACCOUNT_FIELDS = [
  'accountType',
  'accountCategory',
  'name',
  'country',
  'currency',
  'createdAt',
  'accountIdentifier',
  'branchIdentifier',
];
/** Account fields a response must carry (their absence is the schema requirements' business). */
const REQUIRED_ACCOUNT_FIELDS = spec().schema('CounterpartyAccount').required ?? [];
/** What a new account must carry as sent (accountIdentifier may be masked: not shown, §2.3). */
const SENT_ACCOUNT_FIELDS = ['accountType', 'accountCategory', 'name', 'country', 'currency'];

/**
 * Whether two accounts agree on every stable field: the same as comparing each field with same(),
 * done once per account (a multiset match compares each account of one state with every account
 * of the other, and a counterparty may hold the forty accounts a run adds).
 */
const stableMatch = (x: Obj, y: Obj): boolean => stableKey(x) === stableKey(y);
const stableKeys = new WeakMap<Obj, string>();
function stableKey(a: Obj): string {
  let key = stableKeys.get(a);
  if (key === undefined) {
    key = canonicalJson(only(a, STABLE_ACCOUNT_FIELDS));
    stableKeys.set(a, key);
  }
  return key;
}
const accountName = (a: Obj): string => show(a.name ?? a.accountIdentifier);

/** The server's clock when it answered (the Date header), or the exchange's own start. */
function serverTime(ex: Exchange): number {
  const date = ex.headers['date'];
  const ms = date === undefined ? Number.NaN : Date.parse(date);
  return Number.isNaN(ms) ? ex.startedAt : ms;
}

/** A short description of a patch body, for messages. */
export function describePatch(body: Obj): string {
  const parts: string[] = [];
  if (isObj(body.counterpartyDetails))
    parts.push(`details ${Object.keys(body.counterpartyDetails).join(', ')}`);
  if (Array.isArray(body.counterpartyAccounts)) parts.push(`${body.counterpartyAccounts.length} account(s)`);
  return parts.join(' and ') || 'the body';
}

interface Update {
  sent: Obj;
  patch: Exchange;
  response: Obj;
  before: { ex: Exchange; body: Obj } | undefined;
  after: { ex: Exchange; body: Obj } | undefined;
  /** What the accepted PATCHes that overlapped this one sent (PatchSequence.concurrent). */
  concurrent: Obj[];
}

/** The detail values the overlapping PATCHes sent for `key` (`address.<field>` for an address field). */
function concurrentValues(u: Update, key: string): unknown[] {
  const [top, field] = key.split('.') as [string, string | undefined];
  return u.concurrent.flatMap((sent) => {
    const details = isObj(sent.counterpartyDetails) ? sent.counterpartyDetails : {};
    if (!Object.hasOwn(details, top)) return [];
    const value = own(details, top);
    if (field === undefined) return [value];
    return isObj(value) && Object.hasOwn(value, field) ? [own(value, field)] : [];
  });
}

/** Whether `value` is what an overlapping PATCH sent for `key`: one it may show, applied after this one. */
const sentConcurrently = (u: Update, key: string, value: unknown): boolean =>
  concurrentValues(u, key).some((v) => same(value, v));

/** The accounts the overlapping PATCHes sent. */
const concurrentAccounts = (u: Update): Obj[] =>
  u.concurrent.flatMap((sent) =>
    Array.isArray(sent.counterpartyAccounts) ? sent.counterpartyAccounts.filter(isObj) : [],
  );

function outcome(
  id: RequirementId,
  problems: string[],
  ex: Exchange,
  message: (first: string) => string,
  expected: string,
  context: Exchange[],
): Judgement {
  if (problems.length === 0) return held(id);
  return violated({
    requirement: id,
    exchange: ex,
    message: message(problems[0]!),
    expected,
    received: problems.join('; '),
    context,
  });
}

/**
 * Whether a read shows anything of what a group of accepted PATCHes sent: a detail value (an
 * address field) or an account one of them sent.
 */
export function anyShows(sent: readonly Obj[], after: Obj): boolean {
  const accounts = accountsOf(after);
  return sent.some((body) => {
    const details = isObj(body.counterpartyDetails) ? body.counterpartyDetails : {};
    const detailShows = Object.entries(details).some(([k, v]) =>
      k === 'address' && isObj(v)
        ? Object.entries(v).some(([f, x]) => isObj(after.address) && same(own(after.address, f), x))
        : same(own(after, k), v),
    );
    const sentAccounts = Array.isArray(body.counterpartyAccounts)
      ? body.counterpartyAccounts.filter(isObj)
      : [];
    return detailShows || sentAccounts.some((a) => accounts.some((b) => sentAccountMatch(a, b)));
  });
}

function persisted(u: Update): Judgement | undefined {
  if (!u.after) return undefined;
  // Of overlapping PATCHes the read after shows whichever was applied last, and a change of one
  // lost to another is oracles/patch-concurrent.ts's finding; none of them showing is this one's.
  if (u.concurrent.length > 0) {
    if (anyShows([u.sent, ...u.concurrent], u.after.body)) return undefined;
    return violated({
      requirement: 'patch-persisted',
      exchange: u.after.ex,
      message: `a GET after ${u.concurrent.length + 1} accepted PATCHes that overlapped in time shows none of them (${describePatch(u.sent)}, …)`,
      expected: 'the counterparty as one of the accepted PATCHes left it',
      received: `GET: ${truncate(JSON.stringify(comparable(u.after.body)))}`,
      context: [u.patch],
    });
  }
  const diff = differences(comparable(u.response), comparable(u.after.body));
  return outcome(
    'patch-persisted',
    diff.length > 0 ? [`response → GET: ${diff.join('; ')}`] : [],
    u.after.ex,
    () => `a GET after the accepted PATCH (${describePatch(u.sent)}) differs from the PATCH response`,
    'the counterparty the PATCH returned',
    [u.patch],
  );
}

function sentApplied(u: Update): Judgement | undefined {
  if (!isObj(u.sent.counterpartyDetails)) return undefined;
  const wrong: string[] = [];
  for (const [key, sent] of Object.entries(u.sent.counterpartyDetails)) {
    if (key === 'address' && isObj(sent)) {
      const stored = isObj(u.response.address) ? u.response.address : {};
      for (const [field, value] of Object.entries(sent)) {
        const is = own(stored, field);
        if (!same(is, value) && !sentConcurrently(u, `address.${field}`, is))
          wrong.push(`address.${field} is ${show(is)}, sent ${show(value)}`);
      }
    } else if (!same(own(u.response, key), sent) && !sentConcurrently(u, key, own(u.response, key))) {
      wrong.push(`${key} is ${truncate(show(own(u.response, key)))}, sent ${truncate(show(sent))}`);
    }
  }
  return outcome(
    'patch-sent-fields-applied',
    wrong,
    u.patch,
    (first) => `the updated counterparty does not carry what was sent: ${first}`,
    'every field sent in counterpartyDetails with the value sent',
    [],
  );
}

function unsentUnchanged(u: Update): Judgement | undefined {
  if (!u.before) return undefined;
  const details = isObj(u.sent.counterpartyDetails) ? u.sent.counterpartyDetails : {};
  const was = u.before.body;
  const changed: string[] = [];
  for (const key of COUNTERPARTY_FIELDS) {
    if (
      SEPARATELY_JUDGED.includes(key) ||
      SYSTEM_MANAGED_COUNTERPARTY_FIELDS.includes(key) ||
      Object.hasOwn(details, key)
    )
      continue;
    const is = own(u.response, key);
    if (!same(is, own(was, key)) && !sentConcurrently(u, key, is)) {
      changed.push(`${key}: ${truncate(show(own(was, key)))} → ${truncate(show(is))}`);
    }
  }
  const before = isObj(was.address) ? was.address : undefined;
  const now = isObj(u.response.address) ? u.response.address : undefined;
  if (!isObj(details.address)) {
    // An address an overlapping PATCH sent may show in place of the stored one.
    if (
      !same(before && comparable({ address: before }).address, now && comparable({ address: now }).address) &&
      concurrentValues(u, 'address').length === 0
    )
      changed.push(`address: ${show(before)} → ${show(now)}`);
  } else {
    // A partial address may be merged or may replace the stored one: a field not sent may stay or go.
    for (const field of ADDRESS_FIELDS) {
      if (Object.hasOwn(details.address, field)) continue;
      const w = before && own(before, field);
      const is = now && own(now, field);
      if (is !== undefined && !same(is, w) && !sentConcurrently(u, `address.${field}`, is))
        changed.push(`address.${field}: ${show(w)} → ${show(is)}`);
    }
  }
  if (!Array.isArray(u.sent.counterpartyAccounts)) {
    const wasAccounts = accountsOf(comparable(was));
    const isAccounts = accountsOf(comparable(u.response));
    const { missing, rest: more } = unmatched(wasAccounts, isAccounts, (x, y) => same(x, y));
    // Accounts an overlapping PATCH added may show already.
    const rest = unmatched(concurrentAccounts(u), more, sentAccountMatch).rest;
    if (missing.length > 0 || rest.length > 0) {
      changed.push(
        `counterpartyAccounts: ${missing.length} of ${wasAccounts.length} existing account(s) changed or gone (${missing.map(accountName).join(', ')}), ${rest.length} unexpected`,
      );
    }
  }
  return outcome(
    'patch-unsent-fields-unchanged',
    changed,
    u.patch,
    (first) => `a field the patch did not send changed: ${first}`,
    'every field not sent keeps its value (details are merged, accounts kept)',
    [u.before.ex],
  );
}

function immutable(u: Update): Judgement | undefined {
  if (!u.before) return undefined;
  const was = u.before.body;
  const changed = (['counterpartyReference', 'createdAt'] as const)
    .filter((k) => !same(u.response[k], was[k]))
    .map((k) => `${k}: ${show(was[k])} → ${show(u.response[k])}`);
  return outcome(
    'patch-immutable-fields',
    changed,
    u.patch,
    (first) => `the PATCH changed ${first}`,
    'counterpartyReference and createdAt as before the PATCH',
    [u.before.ex],
  );
}

/**
 * Whether a PATCH changed the counterparty on what the document settles (updatedAt aside). The
 * document does not say whether an update that changes nothing (values sent equal to the stored
 * ones) moves updatedAt, so only a change requires the move.
 */
function changedSettled(was: Obj, is: Obj): boolean {
  return !same(settled(was), settled(is));
}

function updatedAt(u: Update): Judgement | undefined {
  if (!u.before) return undefined;
  const w = u.before.body.updatedAt;
  const is = u.response.updatedAt;
  const wasMs = typeof w === 'string' ? Date.parse(w) : Number.NaN;
  const isMs = typeof is === 'string' ? Date.parse(is) : Number.NaN;
  // The schema requirements report unreadable timestamps.
  if (Number.isNaN(wasMs) || Number.isNaN(isMs)) return undefined;
  const received = `updatedAt ${show(w)} → ${show(is)}`;
  if (isMs < wasMs) {
    return violated({
      requirement: 'patch-updated-at',
      exchange: u.patch,
      message: 'updatedAt moved backwards',
      expected: 'updatedAt not earlier than before the PATCH',
      received,
      context: [u.before.ex],
    });
  }
  const clock = serverTime(u.before.ex);
  if (isMs === wasMs && changedSettled(u.before.body, u.response) && wasMs < clock - UPDATED_AT_SLACK_MS) {
    return violated({
      requirement: 'patch-updated-at',
      exchange: u.patch,
      message: 'updatedAt did not move although the PATCH changed the counterparty, last updated earlier',
      expected: `updatedAt later than ${show(w)} (the server's clock read ${new Date(clock).toISOString()} before the PATCH)`,
      received,
      context: [u.before.ex],
    });
  }
  return held('patch-updated-at');
}

function accountsAppended(u: Update): Judgement | undefined {
  if (!Array.isArray(u.sent.counterpartyAccounts)) return undefined;
  const sent = u.sent.counterpartyAccounts.filter(isObj);
  if (sent.length === 0) return undefined;
  const is = accountsOf(u.response);
  const was = u.before ? accountsOf(u.before.body) : [];
  const kept = unmatched(was, is, stableMatch);
  // A required field the response leaves out is the schema's business; a different value, or an
  // optional field sent and not kept, is not the account sent.
  const added = unmatched(sent, kept.rest, sentAccountMatch);
  // Accounts an overlapping PATCH added may show too.
  const extra = unmatched(concurrentAccounts(u), added.rest, sentAccountMatch).rest;
  const problems: string[] = [];
  if (kept.missing.length > 0) {
    problems.push(
      `${kept.missing.length} existing account(s) lost or replaced: ${kept.missing.map(accountName).join(', ')}`,
    );
  }
  if (added.missing.length > 0) {
    problems.push(
      `${added.missing.length} sent account(s) not added as sent: ${added.missing.map(accountName).join(', ')}`,
    );
  }
  // Without the read before, accounts the counterparty already had are indistinguishable from extra ones.
  if (u.before && extra.length > 0) problems.push(`${extra.length} account(s) more than were sent`);
  if (problems.length === 0) return held('patch-accounts-appended');
  return violated({
    requirement: 'patch-accounts-appended',
    exchange: u.patch,
    message: `the accounts are not the existing ones plus the ones sent: ${problems[0]}`,
    expected: `${u.before ? `${was.length} existing account(s) kept and ` : ''}${sent.length} added with the type, category, name, country and currency sent`,
    received: `${is.length} account(s) returned; ${problems.join('; ')}`,
    context: u.before ? [u.before.ex] : [],
  });
}

/**
 * Whether a returned account is the one sent: every field sent as sent, a required field left out
 * aside (the schema's business; accountIdentifier may be masked: not shown, §2.3).
 */
export const sentAccountMatch = (s: Obj, r: Obj): boolean =>
  SENT_ACCOUNT_FIELDS.every(
    (k) =>
      own(s, k) === undefined ||
      (own(r, k) === undefined && REQUIRED_ACCOUNT_FIELDS.includes(k)) ||
      same(own(s, k), own(r, k)),
  );

const readOf = (ex: Exchange | undefined): { ex: Exchange; body: Obj } | undefined =>
  ex && is2xx(ex.status) && isObj(ex.body) ? { ex, body: ex.body } : undefined;

export const PATCH_UPDATE_ORACLE: PatchOracle = {
  id: 'patch-update',
  kind: 'patch',
  requirements: [
    'patch-persisted',
    'patch-sent-fields-applied',
    'patch-unsent-fields-unchanged',
    'patch-immutable-fields',
    'patch-updated-at',
    'patch-accounts-appended',
  ],
  unexercised: {
    'patch-persisted': 'no accepted PATCH was followed by a read of the counterparty',
    'patch-sent-fields-applied': 'no PATCH sending counterpartyDetails was accepted',
    'patch-unsent-fields-unchanged': 'no accepted PATCH came after a read of the counterparty',
    'patch-immutable-fields': 'no accepted PATCH came after a read of the counterparty',
    'patch-updated-at': 'no accepted PATCH came after a read of the counterparty',
    'patch-accounts-appended': 'no PATCH sending counterpartyAccounts was accepted',
  },
  judge(s: PatchSequence) {
    if (!is2xx(s.patch.status) || !isObj(s.patch.body)) return [];
    const sent = requestJson(s.patch);
    if (!isObj(sent)) return [];
    const u: Update = {
      sent,
      patch: s.patch,
      response: s.patch.body,
      before: readOf(s.before),
      after: readOf(s.after),
      concurrent: (s.concurrent ?? []).map(requestJson).filter(isObj),
    };
    return [
      persisted(u),
      sentApplied(u),
      unsentUnchanged(u),
      immutable(u),
      updatedAt(u),
      accountsAppended(u),
    ].filter((j): j is Judgement => j !== undefined);
  },
};
