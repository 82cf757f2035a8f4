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
 * changed it. Equivalent bodies are sent once.
 */
import { describeResponse } from '../exchange/describe.ts';
import { sendInBatches } from '../engine/batch.ts';
import type { Probe } from '../engine/types.ts';
import { finiteClassCases } from '../generators/finite-classes.ts';
import { canonicalJson } from '../generators/labelled.ts';
import type { L } from '../generators/fields.ts';
import { comparable, differences, type Obj } from '../oracles/compare.ts';
import { PLACEHOLDER_FIXTURE, patchRequest, readWritable, restoreDetails } from './counterparty-patch.ts';

/** PATCHes sent together before one read. */
export const FINITE_BATCH = 32;

export const patchFiniteClasses: Probe = {
  id: 'patch-finite-classes',
  title:
    'every member of each finite class (forbidden characters, look-alikes, bounds, types, enum near misses), refused and changing nothing',
  requirements: ['patch-invalid-rejected', 'patch-rejected-unchanged'],
  judges: ['patch-invalid-rejected'],
  group: 'counterparty-patch',
  access: 'write',
  async run(ctx) {
    const ref = ctx.target.writableRef!;
    const fixture = ctx.target.accountFixture ?? PLACEHOLDER_FIXTURE;
    const original = (await readWritable(ctx, ref, 'read before PATCH')).body;
    let baseline: Obj = comparable(original);
    let dirty = false;
    const judged = new Set<L>();
    const cases = finiteClassCases(fixture);
    try {
      const result = await sendInBatches(cases, FINITE_BATCH, (c) => canonicalJson(c.value), {
        async send(batch, resend) {
          const role = resend
            ? `PATCH (part of a batch, resent: ${batch.length})`
            : `PATCH (batch of ${batch.length})`;
          const answers = await Promise.all(
            batch.map((c) => ctx.http.send({ ...patchRequest(ref, c), role })),
          );
          answers.forEach((ex, i) => {
            const c = batch[i]!;
            if (judged.has(c)) return;
            judged.add(c);
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
          const after = await readWritable(ctx, ref, 'read after PATCH');
          const changed = differences(baseline, comparable(after.body)).length > 0;
          if (changed) dirty = true;
          return changed;
        },
        async restore() {
          await restoreDetails(ctx, ref, original);
          baseline = comparable((await readWritable(ctx, ref, 'read after restore')).body);
          dirty = false;
        },
      });
      ctx.note(
        `${cases.length} finite-class case(s): ${cases.length - result.duplicates} sent in ${result.batches} batch(es) of at most ${FINITE_BATCH}, ${result.duplicates} equivalent left out`,
      );
      for (const c of result.changed) {
        ctx.note(`changed the counterparty when sent alone: ${c.rule.description}`);
      }
      const accepted = result.changed.filter((c) => !judged.has(c));
      if (accepted.length > 0) ctx.note(`${accepted.length} changing case(s) not judged`);
    } finally {
      if (dirty) await restoreDetails(ctx, ref, original);
    }
  },
};

export const FINITE_CLASS_PROBES: Probe[] = [patchFiniteClasses];
