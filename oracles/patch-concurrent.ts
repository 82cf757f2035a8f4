/**
 * Accepted PATCHes of one counterparty that overlapped in time (concurrent clients), judged as one.
 * Requirement: patch-concurrent-serializable.
 *
 * Rests on RFC 5789 §2 "The server MUST apply the entire set of changes atomically and never
 * provide (e.g., in response to a GET during this operation) a partially modified
 * representation." and interface.md §4.2 "Changes the details of an existing counterparty, adds
 * accounts to it, or both." with "Success response: the updated counterparty object as in 2.1":
 * each accepted PATCH takes effect as a whole, so after a group of them the counterparty is what
 * some serial order of them makes it. A change answered 2xx and then gone, not overwritten by a
 * later PATCH of the same field, is a lost update.
 *
 * Applies to the read after a group of overlapping accepted PATCHes (engine/judge.ts gives the
 * group's `after` to one of them, with the others in `concurrent`). What is compared: every detail
 * field and address field any of them sent, and the accounts they sent. The order they were
 * applied in is the deployment's choice (any order passes); a partial address may be merged or
 * may replace the stored one (§2.2 does not say), so an address field a later PATCH of the group
 * did not send may also be gone. Fields none of them sent are each PATCH's own business
 * (oracles/patch-update.ts).
 */
import { is2xx, requestJson, type Exchange } from '../exchange/exchange.ts';
import { accountsOf, isObj, same, show, truncate, unmatched, type Obj } from './compare.ts';
import { anyShows, sentAccountMatch } from './patch-update.ts';
import { held, violated, type Judgement, type PatchOracle } from './types.ts';
import { own } from '../exchange/own.ts';

/**
 * Overlapping PATCHes whose every order is tried (5! = 120); of a larger group each field is only
 * required to hold one of the values sent for it.
 */
const MAX_ORDERED = 5;

interface Member {
  patch: Exchange;
  sent: Obj;
  details: Obj;
  accounts: Obj[];
}

/**
 * Whether a member's own answer already changed `key`, which it did not send, to a value neither
 * stored before the group nor sent by any member: patch-unsent-fields-unchanged's finding on that
 * PATCH, not a change lost between them. Needs the state before the group.
 */
function brokenAlone(members: readonly Member[], key: string, before: Obj): boolean {
  const sentValues = members.flatMap((m) =>
    valueAt(m.details, key) === undefined ? [] : [valueAt(m.details, key)],
  );
  return members.some((m) => {
    if (valueAt(m.details, key) !== undefined || !isObj(m.patch.body)) return false;
    const is = valueAt(m.patch.body, key);
    if (same(is, valueAt(before, key)) || sentValues.some((v) => same(is, v))) return false;
    // A partial address may replace the stored one: a field of it gone is no finding.
    return !(key.startsWith('address.') && is === undefined && isObj(m.details.address));
  });
}

/** The detail keys a member sent: top-level fields, and `address.<field>` for an address. */
function keysOf(m: Member): string[] {
  return Object.entries(m.details).flatMap(([k, v]) =>
    k === 'address' && isObj(v) ? Object.keys(v).map((f) => `address.${f}`) : [k],
  );
}

function valueAt(body: Obj, key: string): unknown {
  const [top, field] = key.split('.') as [string, string | undefined];
  const value = own(body, top);
  return field === undefined ? value : isObj(value) ? own(value, field) : undefined;
}

/** Every order of `items` (n! of them; n is small). */
function orders<T>(items: readonly T[]): T[][] {
  if (items.length <= 1) return [[...items]];
  return items.flatMap((x, i) => orders([...items.slice(0, i), ...items.slice(i + 1)]).map((o) => [x, ...o]));
}

/**
 * Whether applying `order` one after another leaves `key` as `after` shows it: the value of the
 * last PATCH that sent it, or, for an address field, gone where a later PATCH sent an address
 * without it (it may have replaced the stored address).
 */
function explains(order: readonly Member[], key: string, after: Obj): boolean {
  const is = valueAt(after, key);
  let last = -1;
  order.forEach((m, i) => {
    if (valueAt(m.details, key) !== undefined) last = i;
  });
  if (last < 0) return true;
  if (same(is, valueAt(order[last]!.details, key))) return true;
  return (
    key.startsWith('address.') &&
    is === undefined &&
    order.slice(last + 1).some((m) => isObj(m.details.address))
  );
}

export const PATCH_CONCURRENT_ORACLE: PatchOracle = {
  id: 'patch-concurrent',
  kind: 'patch',
  requirements: ['patch-concurrent-serializable'],
  unexercised: {
    'patch-concurrent-serializable':
      'no accepted PATCHes of one counterparty overlapped in time and were read after',
  },
  judge(s): Judgement[] {
    if (!s.concurrent?.length || !s.after || !is2xx(s.after.status) || !isObj(s.after.body)) return [];
    const after = s.after.body;
    const members: Member[] = [s.patch, ...s.concurrent].flatMap((patch) => {
      const sent = requestJson(patch);
      if (!is2xx(patch.status) || !isObj(sent)) return [];
      const details = isObj(sent.counterpartyDetails) ? sent.counterpartyDetails : {};
      const accounts = Array.isArray(sent.counterpartyAccounts)
        ? sent.counterpartyAccounts.filter(isObj)
        : [];
      return [{ patch, sent, details, accounts }];
    });
    if (members.length < 2) return [];
    // Nothing of the group shows: patch-persisted's finding (oracles/patch-update.ts).
    if (
      !anyShows(
        members.map((m) => m.sent),
        after,
      )
    )
      return [];
    const before = s.before && is2xx(s.before.status) && isObj(s.before.body) ? s.before.body : undefined;
    const keys = [...new Set(members.flatMap(keysOf))];
    // A member whose own answer already changed a field it did not send (details replaced, not
    // merged) is patch-unsent-fields-unchanged's finding: what the group leaves then says nothing
    // of concurrency.
    if (before !== undefined && keys.some((k) => brokenAlone(members, k, before))) return [];
    const problems: string[] = [];
    // A large group is tried in the order it completed and in each member last, field by field.
    const tried =
      members.length <= MAX_ORDERED
        ? orders(members)
        : members.map((m) => [...members.filter((x) => x !== m), m]);
    // A field no order explains on its own: its value is none the group sent (a change lost).
    for (const key of keys) {
      if (!tried.some((o) => explains(o, key, after))) {
        const sent = members.filter((m) => valueAt(m.details, key) !== undefined);
        problems.push(
          `${key} is ${truncate(show(valueAt(after, key)))}, though ${sent.length} of the overlapping PATCHes sent ${sent
            .map((m) => truncate(show(valueAt(m.details, key))))
            .join(' and ')} and none of them was answered as refused`,
        );
      }
    }
    // Every field explained alone, but by orders that disagree: a write torn between two PATCHes.
    if (
      problems.length === 0 &&
      members.length <= MAX_ORDERED &&
      !tried.some((o) => keys.every((k) => explains(o, k, after)))
    ) {
      problems.push(
        `no one order of the ${members.length} PATCHes explains every field: ${keys
          .map((k) => `${k} ${truncate(show(valueAt(after, k)))}`)
          .join(', ')}`,
      );
    }
    // An account a member's own answer already shows otherwise than sent (its currency dropped,
    // say) is patch-accounts-appended's finding: what the group leaves then says nothing of
    // concurrency.
    const sentAccounts = members.flatMap((m) =>
      isObj(m.patch.body) &&
      unmatched(m.accounts, accountsOf(m.patch.body), sentAccountMatch).missing.length > 0
        ? []
        : m.accounts,
    );
    const missing = unmatched(sentAccounts, accountsOf(after), sentAccountMatch).missing;
    if (missing.length > 0)
      problems.push(
        `${missing.length} of the ${sentAccounts.length} account(s) they added is gone: ${missing
          .map((a) => show(a.name ?? a.accountIdentifier))
          .join(', ')}`,
      );
    if (problems.length === 0) return [held('patch-concurrent-serializable')];
    return [
      violated({
        requirement: 'patch-concurrent-serializable',
        exchange: s.after,
        message: `after ${members.length} accepted PATCHes that overlapped in time, the counterparty is what no order of them makes it: ${problems[0]}`,
        expected:
          'every change an accepted PATCH answered 2xx for, kept or overwritten by a later accepted PATCH of the same field (RFC 5789 §2: each applied atomically)',
        received: problems.join('; '),
        context: members.map((m) => m.patch),
      }),
    ];
  },
};
