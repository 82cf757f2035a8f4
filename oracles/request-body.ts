/**
 * An answer judged against the body its request carried. Requirements: patch-invalid-rejected,
 * write-body-malformed-not-success.
 *
 * Rests on interface.md §4.2 "Request body: JSON object with at least 1 property. Permitted
 * properties: `counterpartyDetails` and `counterpartyAccounts`. At least one of the two must be
 * present.", §7 and §8 (the minimum sizes, the field limits of sections 2 and 4), and on the
 * introduction "The interface follows OpenAPI 3.1 and is REST over HTTP with JSON bodies." with
 * the write operations of §4.3.
 *
 * Applies to every answered request of a documented operation, whoever sent it, that the request
 * model (requests/) shows breaking a MUST rule of its body whose refusal the document requires
 * (`refusal: 'required'`):
 * - PATCH /api/v1/counterparties/{ref}: every such rule of the body and between its fields (no
 *   content, not JSON, not an object, an empty object, an unknown property, an empty
 *   counterpartyDetails or counterpartyAccounts, a field breaking its length, pattern, format or
 *   enum, an account without a country for BANK_ACCOUNT, ...): patch-invalid-rejected, a 4xx;
 * - the bill, mandate and collection writes: content absent, not JSON, or a JSON scalar
 *   (body-required, body-json-well-formed, body-json-structured): write-body-malformed-not-success,
 *   never a 2xx.
 * A 2xx is a finding, with every rule the request broke in the evidence. A refusal counts as held
 * only when it is a 4xx other than 401, 403 and 429, which may come before the body is read (a
 * token the deployment does not accept, a rate limit); a 5xx is no-server-error's business.
 *
 * What it leaves open: rules the model marks `permitted` (a SHOULD, HTTP practice, a Content-Type
 * the document does not settle), open points (the inner fields of an account identifier, which a
 * request shows only to the suite that knows its account fixture), and the bodies of bill,
 * mandate and collection writes beyond their being JSON structures (their payloads are not shown).
 */
import { describeRequest, describeResponse } from '../exchange/describe.ts';
import { is2xx } from '../exchange/exchange.ts';
import { RULES } from '../requests/index.ts';
import type { RequirementId } from '../spec/requirements.ts';
import { breaches, brokenInWords, firstStatement, modelled } from './modelled.ts';
import { PRE_ROUTING_STATUSES } from './reference-status.ts';
import { held, violated, type ExchangeOracle, type Judgement } from './types.ts';
import { operationIdOf } from '../spec/operations.ts';

/** The PATCH of a counterparty, whose body the document shows (§4.2). */
const PATCH = operationIdOf('counterparty', 'update');

/** The MUST rules of a PATCH counterparty body (and between its fields) a deployment must refuse. */
export const PATCH_BODY_RULES: ReadonlySet<string> = new Set(
  RULES.filter(
    (r) =>
      r.level === 'MUST' &&
      r.refusal === 'required' &&
      (r.where.in === 'body' || r.where.in === 'relation') &&
      r.operations.includes(PATCH),
  ).map((r) => r.id),
);

/** The rules of write-body-malformed-not-success: no content, not JSON, a JSON scalar. */
export const MALFORMED_WRITE_RULES: ReadonlySet<string> = new Set([
  'body-required',
  'body-json-well-formed',
  'body-json-structured',
]);

export const REQUEST_BODY_ORACLE: ExchangeOracle = {
  id: 'request-body',
  kind: 'exchange',
  requirements: ['patch-invalid-rejected', 'write-body-malformed-not-success'],
  unexercised: {
    'patch-invalid-rejected': 'no PATCH of a counterparty with a body breaking a rule of §4.2 was answered',
    'write-body-malformed-not-success':
      'no bill, mandate or collection write with an empty, non-JSON or scalar body was answered',
  },
  judge(routed): Judgement[] {
    const ex = routed.exchange;
    if (ex.status === 0 || routed.route?.kind !== 'operation') return [];
    const op = routed.route.operation.operationId;
    const isPatch = op === PATCH;
    const rules = isPatch ? PATCH_BODY_RULES : MALFORMED_WRITE_RULES;
    const m = modelled(routed);
    const broken = breaches(m, rules);
    if (broken.length === 0) return [];
    const requirement: RequirementId = isPatch
      ? 'patch-invalid-rejected'
      : 'write-body-malformed-not-success';
    if (is2xx(ex.status))
      return [
        violated({
          requirement,
          exchange: ex,
          message: `${describeRequest(ex)} (${op}) was accepted although its body breaks: ${brokenInWords(broken)}`,
          expected: `${isPatch ? 'a 4xx' : 'not 2xx'}: ${firstStatement(broken)}`,
          received: describeResponse(ex),
        }),
      ];
    if (ex.status >= 400 && ex.status < 500 && !PRE_ROUTING_STATUSES.has(ex.status))
      return [held(requirement)];
    return [];
  },
};
