/**
 * What must not change between two reads of one counterparty. Requirement:
 * immutable-fields-stable.
 *
 * Rests on interface.md §2.1: `counterpartyReference` is "immutable", and `createdAt` is the
 * time the counterparty was created.
 *
 * Applies to two successful answers carrying the same counterparty with no PATCH of it in
 * between: its counterpartyReference and createdAt are the same in both. Nothing else is
 * compared: another client may change a counterparty at any time.
 */
import { is2xx } from '../exchange/exchange.ts';
import { isObj, show } from './compare.ts';
import { held, violated, type PairOracle } from './types.ts';

export const READ_STABILITY_ORACLE: PairOracle = {
  id: 'read-stability',
  kind: 'pair',
  requirements: ['immutable-fields-stable'],
  unexercised: { 'immutable-fields-stable': 'no counterparty was read twice' },
  judge({ first, later }) {
    if (!is2xx(first.status) || !is2xx(later.status) || !isObj(first.body) || !isObj(later.body)) return [];
    const a = first.body;
    const b = later.body;
    const changed = (['counterpartyReference', 'createdAt'] as const)
      .filter(
        (k) => a[k] !== undefined && b[k] !== undefined && JSON.stringify(a[k]) !== JSON.stringify(b[k]),
      )
      .map((k) => `${k}: ${show(a[k])} → ${show(b[k])}`);
    if (changed.length === 0) return [held('immutable-fields-stable')];
    return [
      violated({
        requirement: 'immutable-fields-stable',
        exchange: later,
        message: `two reads of the same counterparty disagree on ${changed[0]}`,
        expected: 'counterpartyReference and createdAt the same in every answer about the counterparty',
        received: changed.join('; '),
        context: [first],
      }),
    ];
  },
};
