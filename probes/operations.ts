/**
 * The operations of the interface as the suite calls them: every operation of spec/openapi.yaml
 * with probe values for its path parameters and a body for writes.
 */
import { spec, type Operation } from '../spec/index.ts';
import type { HttpRequest } from '../transport/client.ts';
import { fillPath } from '../exchange/paths.ts';
import type { TargetConfig } from '../engine/probe-api.ts';

/** Invented references for resources the suite does not know; each keeps its 1.3.0 pattern. */
export const PROBE_VALUES: Record<string, string> = {
  uniqueReferenceIdentifier: 'conformance-probe-bill',
  mandateReference: 'conformance-probe-mandate',
  collectionReference: 'conformance-probe-collection',
};

export function isWrite(op: Operation): boolean {
  return !['GET', 'HEAD', 'OPTIONS'].includes(op.method);
}

/** A request for `op`: read operations use the readable counterparty, writes the writable one. */
export function probeRequest(op: Operation, target: TargetConfig): HttpRequest {
  const values: Record<string, string> = {
    ...PROBE_VALUES,
    counterpartyReference: isWrite(op)
      ? (target.writableRef ?? target.counterpartyRef)
      : target.counterpartyRef,
  };
  for (const name of op.pathParams) {
    const schema = op.pathParamSchemas.get(name);
    const value = Object.hasOwn(values, name) ? values[name] : undefined;
    if (value === undefined) throw new Error(`no probe value for path parameter ${name}`);
    if (schema && spec().ajv.validate(schema, value) !== true) {
      throw new Error(`probe value ${value} breaks the schema of ${name}`);
    }
  }
  const request: HttpRequest = { method: op.method, path: fillPath(op.path, values) };
  // DELETE carries no content: one would break the request model's body-none-on-read (RFC 9110
  // §9.3.5: content in a DELETE has no defined semantics), muddying what the probe means to send.
  if (isWrite(op) && op.method !== 'DELETE') {
    request.json =
      op.operationId === 'patchCounterparty'
        ? { counterpartyDetails: { remarks: 'conformance auth probe' } }
        : {};
  }
  return request;
}

export function describeOperation(op: Operation): string {
  return `${op.method} ${op.path}`;
}
