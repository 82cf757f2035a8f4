/**
 * PATCH of references other than the writable counterparty (interface.md §4.1, §4.2, §7): invalid
 * references and raw slashes with a valid body, and invented references that do not exist. These
 * write probes must change nothing: every PATCH they send is refused or goes to a counterparty
 * that is not there. They run only with WRITABLE_COUNTERPARTY_REF all the same, since a faulty
 * deployment could accept one.
 */
import fc from 'fast-check';
import { describeResponse } from '../exchange/describe.ts';
import { is2xx } from '../exchange/exchange.ts';
import { counterpartyPath, rawSlashCounterpartyPath } from '../exchange/paths.ts';
import { type Probe, requestKey, runProperty } from '../engine/probe-api.ts';
import { family } from './family.ts';
import type { AccountFixture } from '../generators/account-fixture.ts';
import {
  invalidReference,
  invalidReferenceExamples,
  slashReference,
  slashReferenceExamples,
  validReference,
} from '../generators/counterparty-reference.ts';
import { labelled, type Labelled } from '../generators/labelled.ts';
import { invalidPatchBody, validDetailsBody, validDetailsBodyExamples } from '../generators/patch-body.ts';
import type { Violation } from '../oracles/types.ts';
import { PLACEHOLDER_FIXTURE, patchRequest } from './write-lane.ts';
import type { HttpRequest } from '../transport/client.ts';
import { refusedValidToken } from './references.ts';
import { operationIds } from '../spec/operations.ts';

/** Random cases of the unknown-counterparty property. */
export const UNKNOWN_RUNS = 20;

/** A valid body for the PATCH reference probes: only the reference is being judged. */
const PROBE_BODY = { counterpartyDetails: { remarks: 'conformance reference probe' } };

/**
 * The PATCH of the reference probes at a path. No case reads what another writes (every PATCH is
 * refused, or goes to a reference only that case sends), so cases go concurrently; the same
 * request is sent once.
 */
const patch = (path: string): HttpRequest => ({ method: 'PATCH', path, json: PROBE_BODY });

export const patchInvalidReferences: Probe = {
  id: 'patch-invalid-references',
  title: 'PATCH with a valid body of references breaking the length or the pattern, without a slash',
  requirements: ['reference-invalid-400'],
  judges: ['reference-invalid-400'],
  operations: operationIds({ resource: 'counterparty', action: 'update' }),
  group: 'references',
  access: 'write',
  elsewhere: true,
  async run(ctx) {
    await runProperty(ctx, {
      name: 'invalid reference (PATCH)',
      arbitrary: invalidReference(),
      examples: invalidReferenceExamples(),
      async probe(input) {
        const ex = await ctx.http.send(patch(counterpartyPath(input.value)));
        return refusedValidToken(
          ex,
          'reference-invalid-400',
          '400 (interface.md §4.2: the path parameter is as in §4.1)',
        );
      },
      concurrent: { key: (input) => requestKey(patch(counterpartyPath(input.value))) },
    });
  },
};

export const patchSlashReferences: Probe = {
  id: 'patch-slash-references',
  title: 'PATCH with a valid body of references holding a raw "/"',
  requirements: ['reference-slash-404'],
  judges: ['reference-slash-404'],
  operations: operationIds({ resource: 'counterparty', action: 'update' }),
  group: 'references',
  access: 'write',
  elsewhere: true,
  async run(ctx) {
    await runProperty(ctx, {
      name: 'raw slash reference (PATCH)',
      arbitrary: slashReference(),
      examples: slashReferenceExamples(),
      async probe(input) {
        const ex = await ctx.http.send(patch(rawSlashCounterpartyPath(input.value)));
        return refusedValidToken(ex, 'reference-slash-404', '404 (interface.md §4.1, §7: a routing failure)');
      },
      concurrent: { key: (input) => requestKey(patch(rawSlashCounterpartyPath(input.value))) },
    });
  },
};

/** An invented reference, from the reference pattern, for a counterparty that should not exist. */
function unknownCase(fixture: AccountFixture): fc.Arbitrary<Labelled<{ reference: string; body: unknown }>> {
  return fc
    .tuple(
      validReference(),
      fc.oneof(validDetailsBody() as fc.Arbitrary<Labelled<unknown>>, invalidPatchBody(fixture)),
    )
    .map(([r, b]) =>
      labelled(
        { reference: r.value, body: b.value },
        { ...b.rule, description: `unknown counterparty ${r.value}; ${b.rule.description}` },
      ),
    );
}

export const patchUnknownCounterparty: Probe = {
  id: 'patch-unknown-counterparty',
  title: 'PATCH of invented references that do not exist: not a success, and nothing created',
  requirements: ['patch-unknown-not-created'],
  judges: ['patch-unknown-not-created'],
  operations: operationIds({ resource: 'counterparty' }),
  group: 'counterparty-patch',
  access: 'write',
  elsewhere: true,
  async run(ctx) {
    const fixture = ctx.target.accountFixture ?? PLACEHOLDER_FIXTURE;
    const stem = `conformance-unknown-${(ctx.target.seed >>> 0).toString(36)}`;
    const examples = validDetailsBodyExamples()
      .slice(0, 2)
      .map((b, i) =>
        labelled(
          { reference: `${stem}-${i}`, body: b.value as unknown },
          { ...b.rule, description: `unknown counterparty ${stem}-${i}; ${b.rule.description}` },
        ),
      );
    let existing = 0;
    await runProperty(ctx, {
      name: 'patch of an unknown counterparty',
      arbitrary: unknownCase(fixture),
      examples,
      runs: Math.min(ctx.target.runs, UNKNOWN_RUNS),
      maxShrinkProbes: 100,
      // Cases are independent; those of one invented reference go one after another, so that
      // each PATCH is judged with its own reads around it (engine/judge.ts pairs by reference).
      concurrent: {
        key: (input) =>
          requestKey(patchRequest(input.value.reference, labelled(input.value.body, input.rule))),
        lane: (input) => input.value.reference,
      },
      async probe(input) {
        const { reference, body } = input.value;
        const path = counterpartyPath(reference);
        const pre = await ctx.http.send({ method: 'GET', path, role: 'read before PATCH (must not exist)' });
        if (is2xx(pre.status)) {
          existing++;
          return undefined;
        }
        const violations: Violation[] = [];
        const patch = await ctx.http.send(patchRequest(reference, labelled(body, input.rule)));
        if (is2xx(patch.status)) {
          violations.push({
            requirement: 'patch-unknown-not-created',
            exchange: patch,
            message: `a PATCH of the unknown counterparty ${reference} was answered ${patch.status}`,
            expected: 'not 2xx: PATCH changes an existing counterparty (which error status is not shown)',
            received: describeResponse(patch),
          });
        }
        const post = await ctx.http.send({ method: 'GET', path, role: 'read after PATCH (must not exist)' });
        if (is2xx(post.status)) {
          violations.push({
            requirement: 'patch-unknown-not-created',
            exchange: post,
            message: `a PATCH of the unknown counterparty ${reference} created it`,
            expected: 'no counterparty under a reference that did not exist before the PATCH',
            received: describeResponse(post),
            context: [pre, patch],
          });
        }
        if (violations.length === 0) ctx.held('patch-unknown-not-created');
        return violations;
      },
    });
    if (existing > 0) ctx.note(`${existing} invented reference(s) already existed and were left alone`);
  },
};

export const PATCH_OTHER_REFERENCE_PROBES = family(import.meta.url, [
  patchInvalidReferences,
  patchSlashReferences,
  patchUnknownCounterparty,
]);
