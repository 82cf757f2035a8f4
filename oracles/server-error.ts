/**
 * No server errors. Requirement: no-server-error.
 *
 * Rests on interface.md §7, which lists the error results of the interface, none of them a
 * server error: no request, valid or not, is answered 5xx.
 *
 * Applies to every answered exchange below the interface's /api/v1/ prefix, whatever it asks.
 */
import { describeRequest, describeResponse } from '../exchange/describe.ts';
import { held, violated, type ExchangeOracle } from './types.ts';

export const SERVER_ERROR_ORACLE: ExchangeOracle = {
  id: 'server-error',
  kind: 'exchange',
  requirements: ['no-server-error'],
  unexercised: { 'no-server-error': 'no request of the interface was answered' },
  judge({ exchange: ex, inInterface }) {
    if (!inInterface || ex.status === 0) return [];
    if (ex.status < 500) return [held('no-server-error')];
    return [
      violated({
        requirement: 'no-server-error',
        exchange: ex,
        message: `${describeRequest(ex)} was answered ${ex.status}`,
        expected: 'any status below 500',
        received: describeResponse(ex),
      }),
    ];
  },
};
