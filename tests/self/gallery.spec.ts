/**
 * The gallery: the suite passes on the clean reference server and on variations the document allows
 * (a replica that trails, a service refusing a repeated account), and catches every faulty variant
 * by exactly the requirements the variant declares (no more: a check that reports more than
 * the fault is a false alarm; no less: a fault that goes unnoticed is a hole), with every check
 * completing. Broken and hostile network peers are proven apart, in hostile.spec.ts.
 *
 * What runs against each server, and the trade it makes for time (npm test within three minutes):
 *   - The clean reference server and the clean variations: the whole suite, every probe. No false
 *     alarm on a conforming server is the guarantee that matters most, and it is kept whole
 *     (independent-server.spec.ts does the same for the independent implementation).
 *   - A faulty variant: the probes its declared requirements select (config/selection.ts: what
 *     `--requirement` selects, so the gallery also proves that selecting a requirement finds its
 *     fault), those it names as showing its fault where the selection sends no such traffic
 *     (Variant.shownBy: the headers of a 401, say), and the sentinel probes (suite-runner.ts):
 *     the fixed ones (SENTINEL_PROBES), traffic of every kind the oracles judge, and one of the
 *     four that each send a whole finite class (ROTATING_SENTINELS: every credential form on every
 *     operation, every character outside the reference pattern...), in turn by the variant's
 *     place in the gallery. "Exactly" still holds for that run: every requirement it reports must
 *     be declared, every declared one reported, every probe complete. What is given up: a false
 *     alarm that only the traffic of an unselected probe would raise on a faulty server (a fault
 *     in storing a PATCH seen only by the 700 finite-class cases, say, or seen only by a rotating
 *     sentinel on a variant whose turn is another's). To keep a watch on that class, every
 *     FULL_SUITE_EVERY-th variant (seven, spread over the gallery's files, which hold one family
 *     of faults each, in order) still runs the whole suite, as every variant did before; a
 *     variant that trips anything undeclared there fails as it always did.
 *   - Every run is on a VirtualClock shared with its server (suite-runner.ts): a trailing
 *     replica and the settle window are judged on the run's own time, so a busy machine cannot
 *     move a verdict, and waiting out a settle window costs nothing.
 * The validator, given a run's traffic as HAR, must find what the run's oracles found: for the
 * clean server's variations, the whole-suite runs, and the first two faulty variants declaring
 * each requirement an oracle judges (suite-runner.ts validatorWitnesses: 57 of 170 variants).
 */
import { expect, test } from '@playwright/test';
import { PROBES } from '../../probes/index.ts';
import { CLEAN_GALLERY, GALLERY } from '../../servers/gallery/index.ts';
import { ReferenceServer } from '../../servers/reference.ts';
import {
  describeTripped,
  galleryTarget,
  probesFor,
  recordTrips,
  runSuite,
  runVariant,
  trippedByOracles,
  validateAsHar,
  validatorWitnesses,
  VALIDATOR_WITNESSES,
} from './suite-runner.ts';
import { ORACLES } from '../../oracles/index.ts';

/** Every this many faulty variants, one runs the whole suite (the first of the gallery among them). */
const FULL_SUITE_EVERY = 24;

test('the clean reference server passes every requirement', async () => {
  const server = new ReferenceServer();
  const url = await server.start(0);
  let run;
  try {
    run = await runSuite(galleryTarget(url));
  } finally {
    await server.stop();
  }
  expect(run.tripped, describeTripped(run)).toEqual([]);
  expect(run.incomplete, describeTripped(run)).toEqual([]);
  const notPassed = run.verdicts.filter((v) => v.status !== 'passed').map((v) => `${v.id}: ${v.status}`);
  expect(notPassed).toEqual([]);
});

test.describe('clean variations the document allows', () => {
  for (const variant of CLEAN_GALLERY) {
    test(`${variant.id} passes with no finding (whole suite): ${variant.fault}`, async () => {
      const run = await runVariant(variant, { all: true });
      expect(validateAsHar(run), 'validate reports/exchanges.har').toEqual([]);
      expect(run.tripped, describeTripped(run)).toEqual([]);
      expect(run.incomplete, describeTripped(run)).toEqual([]);
    });
  }
});

test('a probe a variant names as showing its fault exists, and its requirements do not select it already', () => {
  const known = new Set(PROBES.map((p) => p.id));
  for (const variant of GALLERY.filter((v) => v.shownBy !== undefined)) {
    const selected = probesFor(variant.trips, 'none');
    for (const id of variant.shownBy!) {
      expect(known.has(id), `${variant.id}: ${id}`).toBe(true);
      expect(selected, `${variant.id}: ${id} is selected by its requirements`).not.toContain(id);
    }
  }
});

/** The faulty variants whose traffic the validator judges again (besides the whole-suite runs). */
const WITNESSES = validatorWitnesses(GALLERY);

test('every requirement an oracle judges has its witnesses among the variants validated as HAR', () => {
  const judgedByOracles = new Set<string>(ORACLES.flatMap((o) => o.requirements));
  for (const requirement of judgedByOracles) {
    const declaring = GALLERY.filter((v) => (v.trips as readonly string[]).includes(requirement));
    const witnessed = declaring.filter((v) => WITNESSES.has(v.id));
    // More where a witness of another requirement declares this one too.
    expect(witnessed.length, requirement).toBeGreaterThanOrEqual(
      Math.min(VALIDATOR_WITNESSES, declaring.length),
    );
  }
  // A third of the gallery, not all of it and not none of it.
  expect(WITNESSES.size).toBeGreaterThan(GALLERY.length / 5);
  expect(WITNESSES.size).toBeLessThan(GALLERY.length / 2);
});

test.describe('gallery of faulty servers', () => {
  GALLERY.forEach((variant, index) => {
    const all = index % FULL_SUITE_EVERY === 0;
    test(`${variant.id} is caught${all ? ' (whole suite)' : ''}: ${variant.fault}`, async () => {
      const run = await runVariant(variant, { all, sentinels: index });
      recordTrips(variant.id, run);
      // The validator, given this run's traffic as HAR, finds what the oracles found in the run.
      if (all || WITNESSES.has(variant.id))
        expect(validateAsHar(run), 'validate reports/exchanges.har').toEqual(trippedByOracles(run));
      expect(run.tripped, describeTripped(run)).toEqual([...variant.trips].sort());
      // Every probe completed: a fault of the interface is judged, never left unjudged.
      expect(run.incomplete, describeTripped(run)).toEqual([]);
    });
  });
});
