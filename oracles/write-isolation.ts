/**
 * What a PATCH of one counterparty must not do to another. Requirement:
 * patch-other-counterparty-unchanged.
 *
 * Rests on interface.md §4.2 "Changes the details of an existing counterparty, adds accounts to
 * it, or both." (the counterparty of the path) and RFC 5789 §2 "The PATCH method requests that a
 * set of changes described in the request entity be applied to the resource identified by the
 * Request-URI." RFC 5789 lets a PATCH have side effects on other resources, but the document names
 * none for a counterparty: one counterparty's details or accounts showing up on another is state
 * the two share, not an effect of the operation.
 *
 * Applies to two successful reads of one counterparty with no PATCH of it between, around
 * accepted PATCHes of other counterparties (engine/judge.ts gives them as `others`). Only a value
 * such a PATCH sent, appearing on this counterparty where it was not before, is a finding: any
 * other change between two reads may be another client's (as oracles/read-stability.ts says), and a
 * value already there before is no leak.
 */
import { is2xx, requestJson } from '../exchange/exchange.ts';
import { accountsOf, isObj, same, show, truncate, unmatched, type Obj } from './compare.ts';
import { sentAccountMatch } from './patch-update.ts';
import { held, violated, type PairOracle } from './types.ts';
import { own } from '../exchange/own.ts';

/** The detail values a PATCH sent, keyed `field` or `address.<field>`. */
function sentValues(sent: Obj): [string, unknown][] {
  const details = isObj(sent.counterpartyDetails) ? sent.counterpartyDetails : {};
  return Object.entries(details).flatMap(([k, v]): [string, unknown][] =>
    k === 'address' && isObj(v)
      ? Object.entries(v).map(([f, x]): [string, unknown] => [`address.${f}`, x])
      : [[k, v]],
  );
}

function valueAt(body: Obj, key: string): unknown {
  const [top, field] = key.split('.') as [string, string | undefined];
  const value = own(body, top);
  return field === undefined ? value : isObj(value) ? own(value, field) : undefined;
}

export const WRITE_ISOLATION_ORACLE: PairOracle = {
  id: 'write-isolation',
  kind: 'pair',
  requirements: ['patch-other-counterparty-unchanged'],
  unexercised: {
    'patch-other-counterparty-unchanged':
      'no counterparty was read before and after an accepted PATCH of another (set WRITABLE_COUNTERPARTY_REF)',
  },
  judge({ first, later, others }) {
    if (!others?.length) return [];
    if (!is2xx(first.status) || !is2xx(later.status) || !isObj(first.body) || !isObj(later.body)) return [];
    const a = first.body;
    const b = later.body;
    const leaks: string[] = [];
    for (const patch of others) {
      const sent = requestJson(patch);
      if (!isObj(sent)) continue;
      for (const [key, value] of sentValues(sent)) {
        const was = valueAt(a, key);
        const is = valueAt(b, key);
        if (!same(was, is) && same(is, value) && !same(was, value))
          leaks.push(
            `${key} became ${truncate(show(is))}, the value ${patch.request.method} ${patch.request.url} sent`,
          );
      }
      const sentAccounts = Array.isArray(sent.counterpartyAccounts)
        ? sent.counterpartyAccounts.filter(isObj)
        : [];
      const added = unmatched(accountsOf(a), accountsOf(b), (x, y) => same(x, y)).rest;
      const leaked = unmatched(sentAccounts, added, sentAccountMatch);
      const shown = sentAccounts.length - leaked.missing.length;
      if (shown > 0)
        leaks.push(
          `${shown} account(s) that ${patch.request.method} ${patch.request.url} added appeared here`,
        );
    }
    if (leaks.length === 0) return [held('patch-other-counterparty-unchanged')];
    return [
      violated({
        requirement: 'patch-other-counterparty-unchanged',
        exchange: later,
        message: `a PATCH of another counterparty changed this one: ${leaks[0]}`,
        expected:
          'this counterparty as it was: a PATCH changes the counterparty of its path only (interface.md §4.2)',
        received: leaks.join('; '),
        // The read before, as context; the PATCH of the other counterparty is named in the message:
        // the finding rests on this read (the case that read it is the one that shows the leak).
        context: [first],
      }),
    ];
  },
};
