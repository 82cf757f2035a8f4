/**
 * PATCH bodies that break one rule each (interface.md §4.2, §7), so each must be refused with a
 * 4xx and change nothing (RFC 5789 §2). Explicit cases first, random exploration on top, in one
 * stream of refused PATCHes:
 *   - every member of each finite class (generators/finite-classes.ts): every character each
 *     pattern forbids, the look-alikes, both length bounds and kilobytes, coerced types, enum near
 *     misses and countries outside the list;
 *   - the documented examples of the invalid-patch property (generators/patch-body.ts: empty
 *     bodies, unknown properties, each field past its bounds, accounts missing a field...);
 *   - its random cases (CONFORMANCE_RUNS), from the run's seed.
 *
 * Refused PATCHes change nothing, so they are sent concurrently in batches and the counterparty
 * is read once per batch (probes/write-lane.ts, engine/batch.ts); the judge treats the refused
 * PATCHes between the same two reads as a batch (engine/judge.ts), so the patch-rejected oracle
 * judges each of them. Only a batch after which the counterparty changed is restored and taken
 * apart, down to the case that changed it. Equivalent bodies are sent once. The settle window of
 * the last PATCH is waited out once, at the end of the stream, and the counterparty read again, so
 * that a change that appears late is found too: one stream, where the finite classes and the
 * property as two probes would wait a window each (1.9 s of a 30 s run at 150 ms).
 *
 * A finite-class case not refused is reported as it is: it breaks one rule, and is as small as
 * its class allows. A case of the property not refused, or changing the counterparty, sends the
 * property again case by case, to shrink to the smallest input that shows it.
 */
import fc from 'fast-check';
import { canonicalJson } from '../exchange/canonical-json.ts';
import { describeResponse } from '../exchange/describe.ts';
import type { Exchange } from '../exchange/exchange.ts';
import { type Probe, runProperty } from '../engine/probe-api.ts';
import { family } from './family.ts';
import { finiteClassCases } from '../generators/finite-classes.ts';
import type { Labelled } from '../generators/labelled.ts';
import type { Violation } from '../oracles/types.ts';
import { invalidPatchBody, invalidPatchBodyExamples } from '../generators/patch-body.ts';
import {
  PLACEHOLDER_FIXTURE,
  patchRequest,
  readWritable,
  REFUSED_BATCH,
  refusedRoundTrips,
  ROLE,
  sendRefusedInBatches,
} from './write-lane.ts';
import { operationIds } from '../spec/operations.ts';

/** What a refused case must get: a 4xx (which one is not shown). */
const invalidRejected = (ex: Exchange): boolean => ex.status >= 400 && ex.status <= 499;

/** The finding of an invalid body that was not refused. */
function notRefused(c: Labelled<unknown>, ex: Exchange): Violation {
  return {
    requirement: 'patch-invalid-rejected',
    exchange: ex,
    message: `the invalid body (${c.rule.description}) was answered ${ex.status}`,
    expected: 'a 4xx status: the body breaks a rule of interface.md §4.2 (which 4xx is not shown)',
    received: describeResponse(ex),
  };
}

/** A case of the stream: an explicit finite-class member, or a case of the invalid-patch property. */
interface StreamCase extends Labelled<unknown> {
  finite: boolean;
}

/** The stream's cases for `fixture`, explicit ones first: the plan, and its cost model. */
function plannedCount(fixture: Parameters<typeof finiteClassCases>[0], runs: number): number {
  return finiteClassCases(fixture).length + invalidPatchBodyExamples(fixture).length + runs;
}

export const patchInvalidBodies: Probe = {
  id: 'patch-invalid-bodies',
  title:
    'patch bodies breaking one rule each (every member of each finite class: forbidden characters, look-alikes, bounds, types, enum near misses; documented and random cases): refused with a 4xx, and nothing changed',
  requirements: ['patch-invalid-rejected', 'patch-rejected-unchanged'],
  judges: ['patch-invalid-rejected'],
  operations: operationIds({ resource: 'counterparty' }),
  group: 'counterparty-patch',
  access: 'write',
  splitAcrossLanes: true,
  roundTrips: (target) =>
    refusedRoundTrips(plannedCount(target.accountFixture ?? PLACEHOLDER_FIXTURE, target.runs), REFUSED_BATCH),
  async run(ctx) {
    const ref = ctx.target.writableRef!;
    const fixture = ctx.target.accountFixture ?? PLACEHOLDER_FIXTURE;
    const property = {
      name: 'invalid patch',
      arbitrary: invalidPatchBody(fixture),
      examples: invalidPatchBodyExamples(fixture),
    };
    const all: StreamCase[] = [
      ...finiteClassCases(fixture).map((c) => ({ ...c, finite: true })),
      ...property.examples.map((c) => ({ ...c, finite: false })),
      ...fc
        .sample(property.arbitrary, { seed: ctx.target.seed, numRuns: ctx.target.runs })
        .map((c) => ({ ...c, finite: false })),
    ];
    // A part of the probe split across lanes sends every count-th case, from its own: each lane
    // a share of the finite classes and of the property's cases.
    const part = ctx.target.part;
    const cases = part ? all.filter((_, i) => i % part.count === part.index) : all;
    if (part)
      ctx.note(
        `part ${part.index + 1} of ${part.count} (one per lane): ${cases.length} of the ${all.length} cases, every ${part.count}th`,
      );
    let wrong = 0;
    const rejected = new Set<StreamCase>();
    const result = await sendRefusedInBatches(ctx, ref, cases, REFUSED_BATCH, (c, ex) => {
      if (invalidRejected(ex)) {
        rejected.add(c);
        ctx.held('patch-invalid-rejected');
        return;
      }
      if (!c.finite) {
        // Shrunk below, case by case.
        wrong++;
        return;
      }
      ctx.fail(notRefused(c, ex));
    });
    const finite = cases.filter((c) => c.finite).length;
    ctx.note(
      `${cases.length} invalid case(s) (${finite} finite-class, ${cases.length - finite} of the property): ${cases.length - result.duplicates} sent in ${result.batches} batch(es) of at most ${REFUSED_BATCH}, ${result.duplicates} equivalent left out`,
    );
    for (const c of result.changed) {
      ctx.note(`changed the counterparty when sent alone: ${c.rule.description}`);
    }
    const changedByProperty = result.changed.filter((c) => !c.finite).length;
    if (wrong === 0 && changedByProperty === 0) return;
    ctx.note(
      `${wrong} case(s) of the property not refused, ${changedByProperty} changing: sent again one by one to shrink`,
    );
    let fresh = false;
    const before = async (): Promise<void> => {
      if (!fresh) await readWritable(ctx, ref, ROLE.before);
    };
    // What the batches showed already: a case refused in a batch or part read unchanged holds,
    // and is not sent again (each case alone is a PATCH and a read, one after another).
    const held = new Set(result.cleared.filter((c) => rejected.has(c)).map((c) => canonicalJson(c.value)));
    await runProperty(ctx, {
      ...property,
      known: (input) => held.has(canonicalJson(input.value)),
      async probe(input) {
        await before();
        const patch = await ctx.http.send(patchRequest(ref, input));
        await readWritable(ctx, ref, ROLE.after);
        fresh = true;
        if (invalidRejected(patch)) {
          ctx.held('patch-invalid-rejected');
          return undefined;
        }
        return notRefused(input, patch);
      },
    });
  },
};

export const INVALID_BODY_PROBES = family(import.meta.url, [patchInvalidBodies]);
