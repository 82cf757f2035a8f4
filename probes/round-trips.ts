/**
 * The estimated round trips of the write probes, one after another (engine/lanes.ts splits the
 * write probes across lanes by it): one per accepted PATCH (several cases to a PATCH where they
 * are packed), two per batch of refused cases. The
 * other write probes send a few dozen requests, mostly not on the writable counterparty.
 */
import fc from 'fast-check';
import { coverCases, type RoundTrips, type TargetConfig } from '../engine/probe-api.ts';
import type { Labelled } from '../generators/labelled.ts';
import { finiteClassCases } from '../generators/finite-classes.ts';
import {
  invalidPatchBodyExamples,
  validAccountsBodyExamples,
  validDetailsBody,
  validDetailsBodyExamples,
  type PatchBody,
} from '../generators/patch-body.ts';
import {
  ACCOUNT_RUNS,
  DETAILS_PACKING,
  INVALID_BATCH,
  patchInvalidBodies,
  patchValidAccounts,
  patchValidDetails,
} from './counterparty-patch.ts';
import { PLACEHOLDER_FIXTURE, READ_EVERY } from './write-lane.ts';
import { FINITE_BATCH, patchFiniteClasses } from './finite-classes.ts';

/**
 * The PATCHes of the details probe's first round: its cases packed several to a PATCH
 * (DETAILS_PACKING), as many as the busiest field has cases. The cases are the ones fast-check
 * feeds for the run's seed (a dry check, which sends nothing).
 */
function detailsPatches(target: TargetConfig): number {
  const cases: Labelled<PatchBody>[] = [];
  fc.check(
    fc.property(validDetailsBody(), (c) => {
      cases.push(c);
    }),
    {
      seed: target.seed,
      numRuns: validDetailsBodyExamples().length + target.runs,
      examples: validDetailsBodyExamples().map((e) => [e] as [Labelled<PatchBody>]),
    },
  );
  return coverCases(cases, DETAILS_PACKING.slots).length;
}

/** A write probe not on the writable counterparty's chain. */
const OTHER_WRITE_PROBE = 20;

export const writeRoundTrips: RoundTrips = (probe, target) => {
  const fixture = target.accountFixture ?? PLACEHOLDER_FIXTURE;
  const accepted = (cases: number): number => cases + Math.ceil(cases / READ_EVERY) + 2;
  const refused = (cases: number, size: number): number => 2 * Math.ceil(cases / size) + 2;
  switch (probe) {
    case patchValidDetails:
      return accepted(detailsPatches(target));
    case patchValidAccounts:
      return target.accountFixture
        ? accepted(validAccountsBodyExamples(fixture).length + Math.min(target.runs, ACCOUNT_RUNS))
        : 0;
    case patchInvalidBodies:
      return refused(invalidPatchBodyExamples(fixture).length + target.runs, INVALID_BATCH);
    case patchFiniteClasses:
      return refused(finiteClassCases(fixture).length, FINITE_BATCH);
    default:
      return OTHER_WRITE_PROBE;
  }
};
