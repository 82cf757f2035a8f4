/**
 * The operations of the interface as the suite calls them (spec/operations.ts): every operation
 * of spec/openapi.yaml with probe values for its path parameters (the run's counterparties, and
 * the registry's invented references to items no deployment holds) and a body for writes.
 */
import type { Operation } from '../spec/index.ts';
import { isWrite, operationOf, registered, RESOURCES } from '../spec/operations.ts';
import { spec } from '../spec/index.ts';
import type { HttpRequest } from '../transport/client.ts';
import { fillPath } from '../exchange/paths.ts';
import type { TargetConfig } from '../engine/probe-api.ts';

export { isWrite };

/**
 * The invented reference of each path parameter naming an item (the last parameter of its read:
 * `uniqueReferenceIdentifier`, `mandateReference`, `collectionReference`); each keeps its pattern.
 */
export function probeValues(): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of RESOURCES) {
    if (r.invented === undefined) continue;
    const param = operationOf(r.resource, 'read').pathParams.at(-1);
    if (param !== undefined) out.set(param, r.invented);
  }
  return out;
}

/** A request for `op`: read operations use the readable counterparty, writes the writable one. */
export function probeRequest(op: Operation, target: TargetConfig): HttpRequest {
  const values = probeValues();
  values.set(
    'counterpartyReference',
    isWrite(op) ? (target.writableRef ?? target.counterpartyRef) : target.counterpartyRef,
  );
  for (const name of op.pathParams) {
    const schema = op.pathParamSchemas.get(name);
    const value = values.get(name);
    if (value === undefined) throw new Error(`no probe value for path parameter ${name}`);
    if (schema && spec().ajv.validate(schema, value) !== true) {
      throw new Error(`probe value ${value} breaks the schema of ${name}`);
    }
  }
  const request: HttpRequest = { method: op.method, path: fillPath(op.path, Object.fromEntries(values)) };
  // An operation without content (a DELETE among them) is sent none: content in a DELETE would
  // break the request model's body-none-on-read (RFC 9110 §9.3.5: it has no defined semantics).
  const body = registered(op.operationId)?.body;
  if (body !== undefined)
    request.json =
      body === 'json-schema' ? { counterpartyDetails: { remarks: 'conformance auth probe' } } : {};
  return request;
}

export function describeOperation(op: Operation): string {
  return `${op.method} ${op.path}`;
}
