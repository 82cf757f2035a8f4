/**
 * The item writes of interface.md §4.3 with the token and a request that could be well formed,
 * at references the run invented and first found to name nothing: DELETE of a mandate (cancel an
 * active mandate) and POST of a document to a bill (a PDF: "upload a PDF, JPEG or PNG and link it
 * to the bill"). The other probes send these operations without credentials or with bodies no
 * operation accepts, so a service that crashes once the credentials and the body are right, and
 * the reference is unknown, was never asked.
 *
 * Nothing can be cancelled or linked: a reference is only written to after a GET of it was not
 * answered 2xx. What the answer must be is not shown (404 is usual, 204 for an idempotent DELETE
 * is seen too), so the probe judges nothing itself: every answer goes to the oracles (no 5xx, a
 * complete answer, JSON that parses, the lifecycle headers). No JSON object is sent to PATCH a
 * bill: one could be valid, and a service that creates on PATCH would create it.
 *
 * The second probe sends, to every write that takes a body, text that is not JSON with no
 * Content-Type at all (a client that forgot the label): whether the service reads it as JSON or
 * refuses it is open, but it is never a success (the text is nothing the operation can take) and
 * never a server error. The other probes always label their bodies, so a service that reads the
 * media type of a body without looking whether there is one was never asked.
 */
import { describeResponse } from '../exchange/describe.ts';
import { is2xx } from '../exchange/exchange.ts';
import { fillPath } from '../exchange/paths.ts';
import type { Probe } from '../engine/probe-api.ts';
import { family } from './family.ts';
import {
  operationIdOf,
  operationOf,
  operationsWhere,
  resourceEntry,
  RESOURCES,
  type RegisteredOperation,
} from '../spec/operations.ts';
import type { HttpRequest } from '../transport/client.ts';
import { describeOperation } from './operations.ts';
import { MINIMAL_PDF } from '../generators/documents.ts';

/**
 * Each write of an item that names one and carries no JSON (a cancel, a document attached), the
 * read that comes first, the item's path parameter and noun, and the request that writes it.
 */
const WRITES = operationsWhere({ item: true })
  .filter((op) => op.action === 'cancel' || op.action === 'attach')
  .map((write) => {
    const read = operationOf(write.resource, 'read');
    return {
      write,
      read,
      param: read.pathParams.at(-1)!,
      kind: resourceEntry(write.resource).noun,
      request: (path: string): HttpRequest =>
        write.body === 'document'
          ? {
              method: write.method,
              path,
              rawBody: MINIMAL_PDF,
              headers: { 'Content-Type': 'application/pdf' },
            }
          : { method: write.method, path },
    };
  });

export const itemWritesUnknownReferences: Probe = {
  id: 'item-writes-unknown-references',
  title:
    'DELETE of a mandate and POST of a PDF document to a bill, with the token, at invented references found to name nothing: answered, never 5xx',
  requirements: ['no-server-error', 'request-answered'],
  judges: [],
  group: 'other-operations',
  access: 'write',
  elsewhere: true,
  operations: WRITES.flatMap((w) => [w.write.operationId, w.read.operationId]).sort(),
  async run(ctx) {
    const tag = (ctx.target.seed >>> 0).toString(36);
    for (const w of WRITES) {
      const write = w.write;
      const reference = `conformance-unknown-${w.kind}-${tag}`;
      const path = fillPath(write.path, { [w.param]: reference });
      const read = await ctx.http.send({
        method: 'GET',
        path: fillPath(w.read.path, { [w.param]: reference }),
        role: `read of the ${w.kind} before ${describeOperation(write)}`,
      });
      if (is2xx(read.status)) {
        ctx.note(`${describeOperation(write)} not sent: the invented ${w.kind} ${reference} exists`);
        continue;
      }
      await ctx.http.send({ ...w.request(path), role: describeOperation(write) });
    }
  },
};

/**
 * The resource each path parameter names (the last parameter of its read): how an invented
 * reference is made for it.
 */
const PARAM_RESOURCES = new Map(
  RESOURCES.map((r) => [operationOf(r.resource, 'read').pathParams.at(-1)!, resourceEntry(r.resource)]),
);

/** The path parameters of `op` at references the run invented, unique to it (`tag`). */
function inventedParams(op: RegisteredOperation, tag: string): Record<string, string> {
  return Object.fromEntries(
    op.pathParams.map((name) => {
      const r = PARAM_RESOURCES.get(name);
      if (r === undefined) throw new Error(`no resource names the path parameter ${name}`);
      return [name, r.item ? `conformance-unknown-${r.noun}-${tag}` : `conformance-unknown-${tag}`];
    }),
  );
}

/** The operations that take a body: the counterparty's PATCH and the writes of §4.3 (DELETE aside). */
const BODY_WRITES = operationsWhere({ content: true });

/** The body sent without a label: text that is no JSON, no bill, no mandate and no document. */
export const UNLABELLED_BODY = 'not json';

export const unlabelledBodies: Probe = {
  id: 'unlabelled-bodies',
  title:
    'Every write that takes a body, with the token and a body that is not JSON sent with no Content-Type at all: not 2xx, never 5xx',
  requirements: ['write-body-malformed-not-success', 'no-server-error', 'request-answered'],
  judges: ['write-body-malformed-not-success'],
  group: 'other-operations',
  access: 'write',
  elsewhere: true,
  operations: [...BODY_WRITES.map((op) => op.operationId), operationIdOf('counterparty', 'read')].sort(),
  async run(ctx) {
    const tag = (ctx.target.seed >>> 0).toString(36);
    for (const op of BODY_WRITES) {
      const params = inventedParams(op, tag);
      const path = fillPath(op.path, params);
      const counterparty = op.resource === 'counterparty';
      if (counterparty) {
        // Only to a reference found to name nothing: the body is refused anyway, but no PATCH of
        // an existing counterparty is sent by this probe.
        const read = await ctx.http.send({
          method: 'GET',
          path,
          role: `read of the counterparty before ${describeOperation(op)}`,
        });
        if (is2xx(read.status)) {
          ctx.note(
            `${describeOperation(op)} not sent: the invented counterparty ${params.counterpartyReference} exists`,
          );
          continue;
        }
      }
      const ex = await ctx.http.send({
        method: op.method,
        path,
        rawBody: UNLABELLED_BODY,
        unlabelled: true,
        role: `${describeOperation(op)} with an unlabelled body`,
      });
      if (counterparty) continue;
      if (!is2xx(ex.status)) ctx.held('write-body-malformed-not-success');
      else
        ctx.fail({
          requirement: 'write-body-malformed-not-success',
          exchange: ex,
          message: `${describeOperation(op)} with the text ${JSON.stringify(UNLABELLED_BODY)} and no Content-Type succeeded (${ex.status})`,
          expected: 'not 2xx: the body is no bill, mandate, collection or document (interface.md §4.3)',
          received: describeResponse(ex),
        });
    }
    ctx.note(
      `a body that is not JSON and carries no Content-Type is sent to every write that takes a body (PATCH of a counterparty only at an invented reference); nothing valid is sent`,
    );
  },
};

export const ITEM_WRITE_PROBES = family(import.meta.url, [itemWritesUnknownReferences, unlabelledBodies]);
