/**
 * Finite classes tried in full (generators/finite-classes.ts): every character each pattern of
 * PATCH /api/v1/counterparties/{ref} forbids, the look-alikes, both length bounds and kilobytes,
 * coerced types, enum near misses and countries outside the list, each in a body that breaks that
 * one rule, so each must be refused (interface.md §4.2, §7) and change nothing (RFC 5789 §2).
 *
 * Refused PATCHes change nothing, so they are sent concurrently in batches and the counterparty
 * is read once per batch (engine/batch.ts); the judge treats the refused PATCHes between the same
 * two reads as a batch (engine/judge.ts), so the patch-rejected oracle judges each of them. Only a
 * batch after which the counterparty changed is restored and taken apart, down to the case that
 * changed it. Equivalent bodies are sent once. The settle window of the last PATCH is waited out
 * and the counterparty read once more, so that a change that appears late is found too.
 */
import { describeResponse } from '../exchange/describe.ts';
import type { Probe } from '../engine/probe-api.ts';
import { family } from './family.ts';
import { finiteClassCases } from '../generators/finite-classes.ts';
import { PLACEHOLDER_FIXTURE, REFUSED_BATCH, refusedRoundTrips, sendRefusedInBatches } from './write-lane.ts';

export const patchFiniteClasses: Probe = {
  id: 'patch-finite-classes',
  title:
    'every member of each finite class (forbidden characters, look-alikes, bounds, types, enum near misses), refused and changing nothing',
  requirements: ['patch-invalid-rejected', 'patch-rejected-unchanged'],
  judges: ['patch-invalid-rejected'],
  operations: ['getCounterparty', 'patchCounterparty'],
  group: 'counterparty-patch',
  access: 'write',
  splitAcrossLanes: true,
  roundTrips: (target) =>
    refusedRoundTrips(finiteClassCases(target.accountFixture ?? PLACEHOLDER_FIXTURE).length, REFUSED_BATCH),
  async run(ctx) {
    const ref = ctx.target.writableRef!;
    const fixture = ctx.target.accountFixture ?? PLACEHOLDER_FIXTURE;
    const all = finiteClassCases(fixture);
    // A part of the probe split across lanes sends every count-th batch, from its own.
    const part = ctx.target.part;
    const cases = part
      ? all.filter((_, i) => Math.floor(i / REFUSED_BATCH) % part.count === part.index)
      : all;
    if (part)
      ctx.note(
        `part ${part.index + 1} of ${part.count} (one per lane): ${cases.length} of the ${all.length} cases, every ${part.count}th batch`,
      );
    const result = await sendRefusedInBatches(ctx, ref, cases, REFUSED_BATCH, (c, ex) => {
      if (ex.status >= 400 && ex.status <= 499) {
        ctx.held('patch-invalid-rejected');
        return;
      }
      ctx.fail({
        requirement: 'patch-invalid-rejected',
        exchange: ex,
        message: `the invalid body (${c.rule.description}) was answered ${ex.status}`,
        expected: 'a 4xx status: the body breaks a rule of interface.md §4.2 (which 4xx is not shown)',
        received: describeResponse(ex),
      });
    });
    ctx.note(
      `${cases.length} finite-class case(s): ${cases.length - result.duplicates} sent in ${result.batches} batch(es) of at most ${REFUSED_BATCH}, ${result.duplicates} equivalent left out`,
    );
    for (const c of result.changed) {
      ctx.note(`changed the counterparty when sent alone: ${c.rule.description}`);
    }
  },
};

export const FINITE_CLASS_PROBES = family(import.meta.url, [patchFiniteClasses]);
