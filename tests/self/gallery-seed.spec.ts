/**
 * The finite-class, credential and reference variants are caught by the explicit lists, not by
 * random luck: with another seed and no random case at all, each is caught by exactly what it
 * declares, as on the self-test seed (gallery.spec.ts). So are the variants that refuse a pair of
 * valid values (servers/gallery/pairs.ts), by the covering arrays of the valid PATCHes, on every
 * one of several seeds.
 */
import { expect, test } from '@playwright/test';
import {
  CREDENTIAL_VARIANTS,
  FINITE_CLASS_VARIANTS,
  REFERENCE_VARIANT_VARIANTS,
} from '../../servers/gallery/finite-classes.ts';
import { PAIR_VARIANTS } from '../../servers/gallery/pairs.ts';
import { describeTripped, runVariant } from './suite-runner.ts';

const OTHER_SEED = 7;

test.describe('caught whatever the seed: explicit cases only', () => {
  for (const variant of [...FINITE_CLASS_VARIANTS, ...CREDENTIAL_VARIANTS, ...REFERENCE_VARIANT_VARIANTS]) {
    test(`${variant.id} (seed ${OTHER_SEED}, no random case)`, async () => {
      // The probes its requirements select, and no sentinel: gallery.spec.ts proves the variant
      // raises no false alarm; this run proves only what the explicit lists catch.
      const run = await runVariant(variant, { sentinels: 'none', target: { seed: OTHER_SEED, runs: 0 } });
      expect(run.tripped, describeTripped(run)).toEqual([...variant.trips].sort());
      expect(run.incomplete, describeTripped(run)).toEqual([]);
    });
  }
});

const PAIR_SEEDS = [1, 2, 3, 4, 5];

test.describe('a pair of valid values refused: caught on every seed by the covering arrays', () => {
  for (const variant of PAIR_VARIANTS) {
    test(`${variant.id} (seeds ${PAIR_SEEDS.join(', ')}, no random case)`, async () => {
      for (const seed of PAIR_SEEDS) {
        const run = await runVariant(variant, { sentinels: 'none', target: { seed, runs: 0 } });
        expect(run.tripped, `seed ${seed}: ${describeTripped(run)}`).toEqual([...variant.trips].sort());
        expect(run.incomplete, describeTripped(run)).toEqual([]);
      }
    });
  }
});
