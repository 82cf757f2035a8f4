/**
 * Names that every plain object answers (`constructor`, `__proto__`, `toString`, ...: the own
 * properties of Object.prototype) are ordinary names in a body the suite sends. With seed
 * 817368625 the random cases of patch-invalid-bodies hold an unknown property named
 * `constructor`, which the request model looked up in a plain object and found
 * Object.prototype.constructor: the probe stopped ("no rule patch-details-constructor-undefined")
 * against conforming servers. Run as the command runs it (100 cases per property).
 */
import { expect, test } from '@playwright/test';
import { ReferenceServer } from '../../servers/reference.ts';
import {
  INDEPENDENT_ACCOUNT_FIXTURE,
  INDEPENDENT_COUNTERPARTY,
  INDEPENDENT_TOKEN,
  INDEPENDENT_WRITABLE_COUNTERPARTY,
  IndependentServer,
} from '../../servers/independent/server.ts';
import { describeTripped, galleryTarget, runSuite, type SuiteRun } from './suite-runner.ts';

const SEED = 817368625;
const RUNS = 100;
const PROBE = 'patch-invalid-bodies';

function expectClean(run: SuiteRun): void {
  expect(run.incomplete, describeTripped(run)).toEqual([]);
  expect(run.tripped, describeTripped(run)).toEqual([]);
  expect(run.outcomes.flatMap((o) => o.findings.map((f) => f.message))).toEqual([]);
  expect(run.outcomes.map((o) => o.probe)).toEqual([PROBE]);
}

test(`seed ${SEED}: ${PROBE} completes with no finding against the reference server`, async () => {
  const server = new ReferenceServer();
  const url = await server.start(0);
  try {
    expectClean(await runSuite({ ...galleryTarget(url), seed: SEED, runs: RUNS }, { probes: [PROBE] }));
  } finally {
    await server.stop();
  }
});

test(`seed ${SEED}: ${PROBE} completes with no finding against the independent server`, async () => {
  const server = new IndependentServer();
  const baseURL = await server.start(0);
  try {
    const run = await runSuite(
      {
        baseURL,
        token: INDEPENDENT_TOKEN,
        counterpartyRef: INDEPENDENT_COUNTERPARTY,
        writableRef: INDEPENDENT_WRITABLE_COUNTERPARTY,
        accountFixture: INDEPENDENT_ACCOUNT_FIXTURE,
        seed: SEED,
        runs: RUNS,
      },
      { probes: [PROBE] },
    );
    expectClean(run);
  } finally {
    await server.stop();
  }
});
