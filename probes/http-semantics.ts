/**
 * The HTTP semantics a deployment advertises (RFC 9110 §8.8, §9.3.2, §13): it is asked what it
 * offers, and the oracles judge what it answers (oracles/head-method.ts, head-headers.ts,
 * conditional-get.ts, revalidation.ts, entity-tags.ts, patch-entity-tags.ts,
 * patch-preconditions.ts). A deployment that offers none of it (no HEAD, no ETag, no
 * Last-Modified) is not judged on it, and the requirements say so.
 *
 * - head-requests: a GET of the configured counterparty and a HEAD of it, and a HEAD of every
 *   other path a GET of the document reads (the item paths with invented references), each on a
 *   connection of its own read to its end (transport/head.ts). HEAD is safe, but a read-only run
 *   sends nothing but GET: it goes with the writes that touch no writable counterparty.
 * - conditional-reads: a GET of the configured counterparty, then the same GET with
 *   If-None-Match naming the ETag it carried (or, without one, If-Modified-Since naming its
 *   Last-Modified): the counterparty unchanged, a 304 is due.
 * - conditional-writes: on the writable counterparty, a PATCH and the reads around it, then a GET
 *   with If-None-Match naming the tag from before the PATCH (the counterparty changed: no 304) and
 *   one naming the current tag (304); where the tag is strong, a PATCH with If-Match naming the
 *   stale tag and one with If-None-Match naming the current tag (each 412, nothing changed), and
 *   one with If-Match naming the current tag (performed). Weak tags are used for revalidation
 *   only: they never match If-Match (§13.1.1). The details are put back at the end.
 */
import { describeResponse } from '../exchange/describe.ts';
import { is2xx, type Exchange } from '../exchange/exchange.ts';
import { counterpartyPath, fillPath } from '../exchange/paths.ts';
import { etagOf, field, showTag, type EntityTag } from '../oracles/entity-tag.ts';
import { type Probe, runCases } from '../engine/probe-api.ts';
import { spec } from '../spec/index.ts';
import { operationIds } from '../spec/operations.ts';
import { family } from './family.ts';
import { knownOrRead, patchRequest, readWritable, finishWriting, ROLE, Writer } from './write-lane.ts';
import type { HttpRequest } from '../transport/client.ts';
import { keeps, labelled } from '../generators/labelled.ts';

const NO_VALIDATOR =
  'the counterparty was answered without ETag or Last-Modified: the deployment offers no validator to revalidate with';

export const headRequests: Probe = {
  id: 'head-requests',
  title:
    'HEAD of the counterparty after a GET of it, and of every path a GET reads: no content, the headers of GET',
  requirements: ['head-no-content', 'head-headers-as-get'],
  judges: [],
  operations: operationIds({ resource: 'counterparty', action: 'read' }),
  group: 'routing',
  // HEAD is safe, but a read-only run sends nothing but GET (README): it goes with the writes
  // that touch no writable counterparty.
  access: 'write',
  elsewhere: true,
  async run(ctx) {
    const ref = ctx.target.counterpartyRef;
    const tag = (ctx.target.seed >>> 0).toString(36);
    const values: Record<string, string> = {
      counterpartyReference: ref,
      uniqueReferenceIdentifier: `conformance-unknown-bill-${tag}`,
      mandateReference: `conformance-unknown-mandate-${tag}`,
      collectionReference: `conformance-unknown-collection-${tag}`,
    };
    // The GET first: the judge holds the HEAD of the counterparty against it.
    await ctx.http.send({ method: 'GET', path: counterpartyPath(ref), role: 'GET before HEAD' });
    const paths = [
      ...new Set(
        spec()
          .operations()
          .filter((op) => op.method === 'GET')
          .map((op) => fillPath(op.path, values)),
      ),
    ];
    const answers: Exchange[] = [];
    await runCases(ctx, paths, {
      async probe(path) {
        answers.push(await ctx.http.send({ method: 'HEAD', path, role: 'HEAD' }));
        return undefined;
      },
    });
    const offered = answers.filter((ex) => ex.status !== 405 && ex.status !== 501).length;
    ctx.note(
      `HEAD sent to ${paths.length} paths, each on a connection of its own read to its end; answered other than 405 or 501 on ${offered}`,
    );
  },
};

export const conditionalReads: Probe = {
  id: 'conditional-reads',
  title: 'GET of the counterparty with If-None-Match of the ETag it carries: 304',
  requirements: ['not-modified-condition-false', 'if-none-match-current-not-modified', 'strong-etag-changes'],
  judges: [],
  operations: operationIds({ resource: 'counterparty', action: 'read' }),
  group: 'counterparty-get',
  access: 'read',
  async run(ctx) {
    const path = counterpartyPath(ctx.target.counterpartyRef);
    const read = await ctx.http.send({ method: 'GET', path, role: 'read for its validator' });
    const tag = etagOf(read);
    const modified = field(read, 'last-modified');
    if (!is2xx(read.status) || (tag === undefined && modified === undefined)) {
      const why = is2xx(read.status)
        ? NO_VALIDATOR
        : `the counterparty was answered ${describeResponse(read)}`;
      ctx.notApplicable('not-modified-condition-false', why);
      ctx.notApplicable('if-none-match-current-not-modified', why);
      return;
    }
    const headers: Record<string, string> =
      tag !== undefined ? { 'If-None-Match': showTag(tag) } : { 'If-Modified-Since': modified! };
    const again = await ctx.http.send({
      method: 'GET',
      path,
      headers,
      role: 'conditional read, nothing changed',
    });
    ctx.note(`${Object.keys(headers)[0]} of what the counterparty carried was answered ${again.status}`);
  },
};

/** Remarks values (interface.md §2.1: words of letters, digits and _ . , ' -), each new, none `taken`. */
function remarksValues(taken: unknown, seed: number): () => string {
  let n = 0;
  return () => {
    let value: string;
    do value = `conformance-etag-${(seed >>> 0).toString(36)}-${++n}`;
    while (value === taken);
    return value;
  };
}

/** A details PATCH of the writable counterparty setting its remarks, with `headers`. */
function remarksPatch(
  ref: string,
  remarks: string,
  role: string,
  headers?: Record<string, string>,
): HttpRequest {
  const input = labelled(
    { counterpartyDetails: { remarks } },
    keeps('body', 'schema', 'remarks set for the validator checks'),
  );
  return { ...patchRequest(ref, input), role, ...(headers ? { headers } : {}) };
}

export const conditionalWrites: Probe = {
  id: 'conditional-writes',
  title:
    'conditional requests around a PATCH: no 304 to the tag from before it, 412 to a stale If-Match (a lost update prevented)',
  requirements: [
    'strong-etag-changes',
    'not-modified-condition-false',
    'if-none-match-current-not-modified',
    'patch-preconditions',
  ],
  judges: [],
  operations: operationIds({ resource: 'counterparty' }),
  group: 'counterparty-patch',
  access: 'write',
  roundTrips: () => 11,
  async run(ctx) {
    const ref = ctx.target.writableRef!;
    const path = counterpartyPath(ref);
    const first = await knownOrRead(ctx, ref);
    const original = ctx.original(ref, first.body);
    const before = etagOf(first);
    if (before === undefined) {
      ctx.notApplicable(
        'patch-preconditions',
        NO_VALIDATOR.replace('the counterparty', 'the writable counterparty'),
      );
      ctx.note('the writable counterparty carries no ETag: no conditional request was sent');
      return;
    }
    const remarks = remarksValues(first.body.remarks, ctx.target.seed);
    const writer = new Writer(ctx, ref);
    const conditionalRead = (tag: EntityTag, role: string): Promise<Exchange> =>
      ctx.http.send({ method: 'GET', path, headers: { 'If-None-Match': showTag(tag) }, role });
    // One round trip after another on the lane: the read above is the state before the PATCH, and
    // each PATCH is confirmed by the read after it (Writer.confirm, up to the settle window).
    try {
      const changed = await writer.patch(remarksPatch(ref, remarks(), ROLE.patch), false);
      if (!is2xx(changed.status)) {
        await readWritable(ctx, ref, ROLE.after);
        ctx.note(
          `the PATCH of the remarks was answered ${describeResponse(changed)}: no conditional request followed`,
        );
        return;
      }
      const now = etagOf(await writer.confirm());
      // The tag from before the PATCH names no current representation (200 due); the current one
      // does (304 due). Both are reads: sent together.
      await Promise.all([
        conditionalRead(before, 'conditional read, the tag from before the PATCH'),
        ...(now ? [conditionalRead(now, 'conditional read, the current tag')] : []),
      ]);
      if (now === undefined) return;
      if (now.weak) {
        ctx.notApplicable(
          'patch-preconditions',
          'the entity tags are weak: they never match If-Match (RFC 9110 §13.1.1), so the deployment offers no lost-update prevention to judge',
        );
        return;
      }
      // Each must be refused with 412; one after the other, so that a deployment that applies
      // them is judged on each in order.
      await writer.patch(
        remarksPatch(ref, remarks(), 'PATCH with If-Match of the tag from before the first PATCH', {
          'If-Match': showTag(before),
        }),
        false,
      );
      await writer.patch(
        remarksPatch(ref, remarks(), 'PATCH with If-None-Match of the current tag', {
          'If-None-Match': showTag(now),
        }),
        false,
      );
      const tag = etagOf(await writer.confirm());
      if (tag === undefined || tag.weak) return;
      await writer.patch(
        remarksPatch(ref, remarks(), 'PATCH with If-Match of the current tag', { 'If-Match': showTag(tag) }),
        false,
      );
      await writer.settle();
    } finally {
      await finishWriting(ctx, ref, original);
    }
  },
};

export const HTTP_SEMANTICS_PROBES = family(import.meta.url, [
  headRequests,
  conditionalReads,
  conditionalWrites,
]);
