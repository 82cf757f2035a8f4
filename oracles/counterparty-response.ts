/**
 * Counterparty answers. Requirements: counterparty-json, counterparty-schema, timestamp-format,
 * address-schema, account-schema, counterparty-reference-echo.
 *
 * Rests on interface.md §2.1–2.3 (the fields of a returned counterparty), §4.1 "Success
 * response: JSON counterparty object as in section 2.1." and §4.2 "Success response: the
 * updated counterparty object as in 2.1".
 *
 * Applies to every 2xx answer of GET or PATCH /api/v1/counterparties/{counterpartyReference},
 * whoever sent it: the counterparty asked for, the reads before and after a PATCH, an unknown
 * reference that was answered with success, a PATCH reference probe. The reference asked for is
 * read from the URL.
 */
import type { ErrorObject } from 'ajv';
import { describeResponse } from '../exchange/describe.ts';
import { is2xx, type Exchange } from '../exchange/exchange.ts';
import { tooDeepText } from '../exchange/json-body.ts';
import { spec } from '../spec/index.ts';
import type { RequirementId } from '../spec/requirements.ts';
import { held, violated, type ExchangeOracle, type Judgement } from './types.ts';
import { ownOf } from '../exchange/own.ts';
import { operationIds } from '../spec/operations.ts';

/** The requirements a returned counterparty is judged on, wherever it is returned (GET, PATCH). */
export const COUNTERPARTY_RESPONSE_REQUIREMENTS = [
  'counterparty-json',
  'counterparty-reference-echo',
  'counterparty-schema',
  'timestamp-format',
  'address-schema',
  'account-schema',
] as const satisfies readonly RequirementId[];

/** The operations that answer with a counterparty (spec/operations.ts). */
const COUNTERPARTY_OPERATIONS = new Set(operationIds({ resource: 'counterparty' }));

export function isJsonContentType(value: string | undefined): boolean {
  if (!value) return false;
  const type = value.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+\+json$/.test(type);
}

/** The requirement a schema error of a Counterparty body breaks. */
export function requirementOfSchemaError(error: ErrorObject): RequirementId {
  if (error.schemaPath.includes('/$defs/Timestamp/')) return 'timestamp-format';
  if (error.instancePath.startsWith('/address')) return 'address-schema';
  if (error.instancePath.startsWith('/counterpartyAccounts')) return 'account-schema';
  return 'counterparty-schema';
}

function describeError(e: ErrorObject, value: unknown): string {
  const at = e.instancePath || '(root)';
  let actual = '';
  if (e.instancePath) {
    let node: unknown = value;
    for (const part of e.instancePath.split('/').slice(1)) node = ownOf(node, part);
    actual = ` (got ${JSON.stringify(node)})`;
  }
  return `${at} ${e.message ?? e.keyword}${actual}`;
}

function where(ex: Exchange, reference: string): string {
  return `${ex.request.method} ${reference}`;
}

/** Judges a body that must be a counterparty: one judgement per schema requirement that applies. */
export function judgeCounterpartyBody(ex: Exchange, body: Record<string, unknown>, at: string): Judgement[] {
  const errors = spec().errors('Counterparty', body);
  const grouped = new Map<RequirementId, ErrorObject[]>();
  for (const e of errors) {
    const id = requirementOfSchemaError(e);
    grouped.set(id, [...(grouped.get(id) ?? []), e]);
  }
  const applicable: RequirementId[] = ['counterparty-schema', 'timestamp-format'];
  if (body.address !== undefined) applicable.push('address-schema');
  if (Array.isArray(body.counterpartyAccounts) && body.counterpartyAccounts.length > 0)
    applicable.push('account-schema');
  for (const id of grouped.keys()) if (!applicable.includes(id)) applicable.push(id);
  return applicable.map((id) => {
    const errs = grouped.get(id);
    if (!errs) return held(id);
    const lines = errs.slice(0, 8).map((e) => describeError(e, body));
    return violated({
      requirement: id,
      exchange: ex,
      message: `${at}: the counterparty breaks the schema: ${lines.join('; ')}${errs.length > 8 ? `; and ${errs.length - 8} more` : ''}`,
      expected: 'a body valid against #/components/schemas/Counterparty of spec/openapi.yaml',
      received: lines.join('\n'),
    });
  });
}

export const COUNTERPARTY_RESPONSE_ORACLE: ExchangeOracle = {
  id: 'counterparty-response',
  kind: 'exchange',
  requirements: COUNTERPARTY_RESPONSE_REQUIREMENTS,
  unexercised: {
    'counterparty-json': 'no counterparty was returned with success',
    'counterparty-reference-echo': 'no counterparty was returned with success',
    'counterparty-schema': 'no counterparty was returned with success',
    'timestamp-format': 'no counterparty was returned with success',
    'address-schema': 'no counterparty returned carried an address',
    'account-schema': 'no counterparty returned carried an account',
  },
  judge({ exchange: ex, route }) {
    if (route?.kind !== 'operation' || !COUNTERPARTY_OPERATIONS.has(route.operation.operationId)) return [];
    if (!is2xx(ex.status)) return [];
    const reference = route.params.counterpartyReference ?? '';
    const at = where(ex, reference);
    const out: Judgement[] = [];
    const type = ex.headers['content-type'];
    out.push(
      isJsonContentType(type)
        ? held('counterparty-json')
        : violated({
            requirement: 'counterparty-json',
            exchange: ex,
            message: `${at}: the counterparty is not returned as JSON`,
            expected: 'Content-Type: application/json (or a +json type)',
            received: type ? `Content-Type: ${type}` : 'no Content-Type header',
          }),
    );
    const body = ex.body;
    if (ex.tooDeep !== undefined) {
      // No counterparty nests deeper than four levels; what is deeper is not read as a value.
      out.push(
        violated({
          requirement: 'counterparty-schema',
          exchange: ex,
          message: `${at}: the body of a ${ex.status} answer is ${tooDeepText(ex.tooDeep)}`,
          expected: 'a JSON object valid against the Counterparty schema (it nests four levels)',
          received: describeResponse(ex),
        }),
      );
      return out;
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) {
      out.push(
        violated({
          requirement: 'counterparty-schema',
          exchange: ex,
          message: `${at}: the body of a ${ex.status} answer is not a JSON object`,
          expected: 'a JSON object valid against the Counterparty schema',
          received: describeResponse(ex),
        }),
      );
      return out;
    }
    const cp = body as Record<string, unknown>;
    out.push(...judgeCounterpartyBody(ex, cp, at));
    const got = cp.counterpartyReference;
    out.push(
      got === reference
        ? held('counterparty-reference-echo')
        : violated({
            requirement: 'counterparty-reference-echo',
            exchange: ex,
            message: `${at}: the counterparty returned is not the one asked for`,
            expected: `counterpartyReference ${JSON.stringify(reference)} (the reference in the URL)`,
            received: `counterpartyReference ${JSON.stringify(got)}`,
          }),
    );
    return out;
  },
};
