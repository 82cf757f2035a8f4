/**
 * A PATCH that is not accepted changes nothing. Requirement: patch-rejected-unchanged.
 *
 * Rests on RFC 5789 §2 (the server applies the entire set of changes atomically) and on
 * interface.md §4.2 and §7, which make a body breaking the minimum sizes or the field rules an
 * error.
 *
 * Applies to every PATCH of a counterparty answered with a status other than 2xx, with a
 * successful read of the counterparty before it and after it: the two reads are the same on
 * what the document settles (the fields it lists, accounts in any order, without the account
 * fields whose transitions are not shown).
 */
import { is2xx } from '../exchange/exchange.ts';
import { comparable, differences, isObj } from './compare.ts';
import { held, violated, type PatchOracle } from './types.ts';

export const PATCH_REJECTED_ORACLE: PatchOracle = {
  id: 'patch-rejected',
  kind: 'patch',
  requirements: ['patch-rejected-unchanged'],
  unexercised: {
    'patch-rejected-unchanged': 'no refused PATCH had a read of the counterparty before and after it',
  },
  judge({ before, patch, after, batch }) {
    if (patch.status === 0 || is2xx(patch.status)) return [];
    if (!before || !after || !is2xx(before.status) || !is2xx(after.status)) return [];
    if (!isObj(before.body) || !isObj(after.body)) return [];
    const diff = differences(comparable(before.body), comparable(after.body));
    if (diff.length === 0) return [held('patch-rejected-unchanged')];
    // In a batch, the change is reported once, on its first PATCH: the probe that sent the batch
    // finds which one changed it by sending them again apart.
    if (batch !== undefined && batch.some((p) => p.id < patch.id)) return [];
    const among =
      batch === undefined
        ? `a PATCH answered ${patch.status} changed the counterparty`
        : `one of ${batch.length + 1} refused PATCHes sent between the same two reads changed the counterparty`;
    return [
      violated({
        requirement: 'patch-rejected-unchanged',
        exchange: after,
        message: among,
        expected:
          'the counterparty exactly as before the refused PATCH (RFC 5789 §2: applied atomically or not at all)',
        received: `before → after: ${diff.join('; ')}`,
        context: [before, patch, ...(batch ?? [])],
      }),
    ];
  },
};
