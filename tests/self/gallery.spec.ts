/**
 * The gallery: the suite passes on the clean reference server and on variations the document allows
 * (a replica that trails, a service refusing a repeated account), and catches every faulty variant
 * by exactly the requirements the variant declares (no more: a check that reports more than
 * the fault is a false alarm; no less: a fault that goes unnoticed is a hole), with every check
 * completing. Broken and hostile network peers are proven apart, in hostile.spec.ts.
 */
import { expect, test } from '@playwright/test';
import { CLEAN_GALLERY, GALLERY } from '../../servers/gallery/index.ts';
import { ReferenceServer } from '../../servers/reference.ts';
import {
  describeTripped,
  galleryTarget,
  recordTrips,
  runSuite,
  trippedByOracles,
  validateAsHar,
} from './suite-runner.ts';

async function withServer<T>(server: ReferenceServer, fn: (baseURL: string) => Promise<T>): Promise<T> {
  const baseURL = await server.start(0);
  try {
    return await fn(baseURL);
  } finally {
    await server.stop();
  }
}

test('the clean reference server passes every requirement', async () => {
  const run = await withServer(new ReferenceServer(), (url) => runSuite(galleryTarget(url)));
  expect(run.tripped, describeTripped(run)).toEqual([]);
  expect(run.incomplete, describeTripped(run)).toEqual([]);
  const notPassed = run.verdicts.filter((v) => v.status !== 'passed').map((v) => `${v.id}: ${v.status}`);
  expect(notPassed).toEqual([]);
});

test.describe('clean variations the document allows', () => {
  for (const variant of CLEAN_GALLERY) {
    test(`${variant.id} passes with no finding: ${variant.fault}`, async () => {
      const run = await withServer(variant.create(), (url) =>
        runSuite({ ...galleryTarget(url), settleMs: variant.settleMs ?? 0 }),
      );
      expect(validateAsHar(run), 'validate reports/exchanges.har').toEqual([]);
      expect(run.tripped, describeTripped(run)).toEqual([]);
      expect(run.incomplete, describeTripped(run)).toEqual([]);
    });
  }
});

test.describe('gallery of faulty servers', () => {
  for (const variant of GALLERY) {
    test(`${variant.id} is caught: ${variant.fault}`, async () => {
      const run = await withServer(variant.create(), (url) =>
        runSuite({ ...galleryTarget(url), settleMs: variant.settleMs ?? 0 }),
      );
      recordTrips(variant.id, run);
      // The validator, given this run's traffic as HAR, finds what the oracles found in the run.
      expect(validateAsHar(run), 'validate reports/exchanges.har').toEqual(trippedByOracles(run));
      expect(run.tripped, describeTripped(run)).toEqual([...variant.trips].sort());
      // Every probe completed: a fault of the interface is judged, never left unjudged.
      expect(run.incomplete, describeTripped(run)).toEqual([]);
    });
  }
});
