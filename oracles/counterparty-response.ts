/**
 * What every returned counterparty must be, wherever it is returned (GET now, PATCH later):
 * JSON, valid against the spec's Counterparty schema, with lifecycle headers that conform.
 * Schema errors are sorted to the requirement of the section they break.
 */
import type { ErrorObject } from 'ajv';
import { spec } from '../spec/index.ts';
import type { RequirementId } from '../spec/requirements.ts';
import { describeResponse, type Exchange } from '../transport/client.ts';
import type { ViolationSink } from '../engine/types.ts';

/** The requirements a returned counterparty is judged on, wherever it is returned (GET, PATCH). */
export const COUNTERPARTY_RESPONSE_REQUIREMENTS = [
  'counterparty-json',
  'counterparty-reference-echo',
  'counterparty-schema',
  'timestamp-format',
  'address-schema',
  'account-schema',
] as const satisfies readonly RequirementId[];

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
    for (const part of e.instancePath.split('/').slice(1)) {
      node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
    }
    actual = ` (got ${JSON.stringify(node)})`;
  }
  return `${at} ${e.message ?? e.keyword}${actual}`;
}

/**
 * Validates a counterparty body against the spec. Reports one finding per broken requirement,
 * naming every error under it.
 */
export function checkCounterpartyBody(ctx: ViolationSink, ex: Exchange, body: unknown, where: string): void {
  const errors = spec().errors('Counterparty', body);
  const grouped = new Map<RequirementId, ErrorObject[]>();
  for (const e of errors) {
    const id = requirementOfSchemaError(e);
    grouped.set(id, [...(grouped.get(id) ?? []), e]);
  }
  for (const [id, errs] of grouped) {
    const lines = errs.slice(0, 8).map((e) => describeError(e, body));
    ctx.failOn(ex, {
      requirement: id,
      message: `${where}: the counterparty breaks the schema: ${lines.join('; ')}${errs.length > 8 ? `; and ${errs.length - 8} more` : ''}`,
      expected: 'a body valid against #/components/schemas/Counterparty of spec/openapi.yaml',
      received: lines.join('\n'),
    });
  }
}

export interface CounterpartyResponseOptions {
  /** The reference asked for. */
  reference: string;
  where: string;
  statusRequirement?: RequirementId;
}

/** Checks a response that must be the counterparty `reference`: JSON, schema-valid, echoing it. */
export function checkCounterpartyResponse(
  ctx: ViolationSink,
  ex: Exchange,
  opts: CounterpartyResponseOptions,
): void {
  const type = ex.headers['content-type'];
  if (!isJsonContentType(type)) {
    ctx.failOn(ex, {
      requirement: 'counterparty-json',
      message: `${opts.where}: the counterparty is not returned as JSON`,
      expected: 'Content-Type: application/json (or a +json type)',
      received: type ? `Content-Type: ${type}` : 'no Content-Type header',
    });
  }
  if (ex.body === undefined || ex.body === null || typeof ex.body !== 'object' || Array.isArray(ex.body)) {
    ctx.failOn(ex, {
      requirement: 'counterparty-schema',
      message: `${opts.where}: the body is not a JSON object`,
      expected: 'a JSON object valid against the Counterparty schema',
      received: describeResponse(ex),
    });
    return;
  }
  checkCounterpartyBody(ctx, ex, ex.body, opts.where);
  const got = (ex.body as Record<string, unknown>).counterpartyReference;
  if (got !== opts.reference) {
    ctx.failOn(ex, {
      requirement: 'counterparty-reference-echo',
      message: `${opts.where}: the counterparty returned is not the one asked for`,
      expected: `counterpartyReference ${JSON.stringify(opts.reference)}`,
      received: `counterpartyReference ${JSON.stringify(got)}`,
    });
  }
}
