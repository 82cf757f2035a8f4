/**
 * An answer judged against the item reference in its request's path. Requirement:
 * item-reference-pattern-not-success.
 *
 * Rests on interface.md §9 "Mandate reference pattern becomes `^[a-zA-Z0-9\-]+$`." and
 * "Collection reference pattern becomes `^[a-zA-Z0-9\-]+$`.": no mandate or collection can have a
 * reference breaking its pattern, so reading one is not a success.
 *
 * Applies to every answered GET /api/v1/mandates/{ref} and /api/v1/direct-debit/{ref}, whoever
 * sent it, whose reference the request model (requests/path.ts) shows breaking the pattern
 * (path-mandate-reference-pattern, path-collection-reference-pattern): a 2xx is a finding, any
 * other answer holds. Which 4xx (400 or 404) is not shown, so none is asserted. The counterparty
 * reference has its own statuses, settled by §7 (oracles/reference-status.ts).
 */
import { describeRequest, describeResponse } from '../exchange/describe.ts';
import { is2xx } from '../exchange/exchange.ts';
import { breaches, brokenInWords, modelled } from './modelled.ts';
import { held, violated, type ExchangeOracle, type Judgement } from './types.ts';
import { RULES } from '../requests/index.ts';
import { operationsWhere } from '../spec/operations.ts';

/**
 * The reads of one item (spec/operations.ts) whose reference has a pattern, and the request
 * model's rule of that pattern (requests/path.ts): today a mandate's and a collection's.
 */
const READS = new Map(
  operationsWhere({ item: true, action: 'read' }).flatMap((op) => {
    const param = op.pathParams.at(-1);
    const rule = RULES.find(
      (r) => r.where.in === 'path' && r.where.name === param && r.id.endsWith('-pattern'),
    );
    return rule ? [[op.operationId, rule.id] as const] : [];
  }),
);

export const REQUEST_PATH_ORACLE: ExchangeOracle = {
  id: 'request-path',
  kind: 'exchange',
  requirements: ['item-reference-pattern-not-success'],
  unexercised: {
    'item-reference-pattern-not-success':
      'no mandate or collection was read by a reference breaking its pattern',
  },
  judge(routed): Judgement[] {
    const ex = routed.exchange;
    if (ex.status === 0 || routed.route?.kind !== 'operation') return [];
    const op = routed.route.operation.operationId;
    const ruleId = READS.get(op);
    if (ruleId === undefined) return [];
    const broken = breaches(modelled(routed), new Set([ruleId]));
    if (broken.length === 0) return [];
    if (!is2xx(ex.status)) return [held('item-reference-pattern-not-success')];
    return [
      violated({
        requirement: 'item-reference-pattern-not-success',
        exchange: ex,
        message: `${describeRequest(ex)} (${op}) succeeded although ${brokenInWords(broken)}`,
        expected: 'not 2xx: no resource can have a reference breaking its pattern (interface.md §9)',
        received: describeResponse(ex),
      }),
    ];
  },
};
