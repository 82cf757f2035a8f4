/**
 * Runs the probes of the suite (every one, or a selection) in-process against a server, through
 * the same engine the Playwright suite uses (the oracles judging every exchange), and returns the
 * requirement verdicts. One compiled spec and its ajv validators serve every run of a worker
 * (spec/index.ts keeps them), so a run costs its requests and their judging, nothing more.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MemoryBaselines } from '../../engine/baseline.ts';
import { RunContext, runProbe } from '../../engine/run.ts';
import type { ProbeOutcome, TargetConfig } from '../../engine/types.ts';
import { verdicts, type Verdict } from '../../engine/verdicts.ts';
import type { Exchange } from '../../exchange/exchange.ts';
import { PROBES, SELECTABLE } from '../../probes/index.ts';
import { ORACLES } from '../../oracles/index.ts';
import { exchangesOfHar, harOfExchanges, parseHar } from '../../exchange/har.ts';
import { TrafficValidation } from '../../engine/validate.ts';
import { TargetSession } from '../../transport/session.ts';
import { EMBEDDED_POLITENESS } from '../../config/config.ts';
import { EMBEDDED_TARGET } from '../../config/embedded.ts';
import type { Politeness } from '../../transport/politeness.ts';
import type { Clock } from '../../transport/clock.ts';
import { resolveSelection } from '../../config/selection.ts';
import type { RequirementId } from '../../spec/requirements.ts';
import type { Variant } from '../../servers/gallery/types.ts';
import { VirtualClock } from './fake-clock.ts';
import { DEFAULT_ACCOUNT_FIXTURE, DEFAULT_ACCOUNT_FIXTURES } from '../../generators/account-fixture.ts';
import { REFERENCE_COUNTERPARTY, REFERENCE_TOKEN, WRITABLE_COUNTERPARTY } from '../../servers/reference.ts';

/** Fixed seed and case count of the self-tests: deterministic, and fast enough for npm test. */
export const SELF_TEST_SEED = 20261122;
export const SELF_TEST_RUNS = 30;

/** A server of the gallery (or the clean reference) at `baseURL`, judged in write mode with the fixed seed. */
export function galleryTarget(baseURL: string): TargetConfig {
  return {
    baseURL,
    token: REFERENCE_TOKEN,
    counterpartyRef: REFERENCE_COUNTERPARTY,
    writableRef: WRITABLE_COUNTERPARTY,
    accountFixture: DEFAULT_ACCOUNT_FIXTURE,
    accountFixtures: [...DEFAULT_ACCOUNT_FIXTURES],
    ...(EMBEDDED_TARGET.itemFixtures ? { itemFixtures: EMBEDDED_TARGET.itemFixtures } : {}),
    seed: SELF_TEST_SEED,
    runs: SELF_TEST_RUNS,
  };
}

export interface SuiteRun {
  outcomes: ProbeOutcome[];
  verdicts: Verdict[];
  /** Requirements reported failed (MUST) or warned (SHOULD). */
  tripped: string[];
  /** Probes and oracles that reported at least one finding. */
  trippedBy: string[];
  /** Probes that could not complete, sorted, and why. */
  incomplete: { probe: string; reason: string }[];
  /** Every exchange of the run, in order. */
  exchanges: readonly Exchange[];
  /** The settle window the run's judge used (the validator of its traffic uses it too). */
  settleMs: number;
  /** Requests the run sent (retries included), and its wall time (real, whatever the run's clock). */
  requests: number;
  durationMs: number;
}

export interface SuiteOptions {
  /** Limits other than the embedded server's (short timeouts for the hostile servers). */
  politeness?: Partial<Politeness>;
  /** The run's time budget starts when the suite does. */
  deadline?: boolean;
  /** The probes to run (run in the registry's order, as the suite runs them); default: every one. */
  probes?: readonly string[];
  /**
   * The run's clock. Default: a VirtualClock (tests/self/fake-clock.ts), on which a settle window
   * and a trailing replica are judged whatever the machine's load, and waits cost no real time;
   * hand the server the same clock (GalleryOptions). The hostile servers, which hang and pause
   * for real, pass the system clock.
   */
  clock?: Clock;
}

export async function runSuite(target: TargetConfig, options: SuiteOptions = {}): Promise<SuiteRun> {
  const politeness = { ...EMBEDDED_POLITENESS, ...options.politeness };
  const started = performance.now();
  const clock = options.clock ?? new VirtualClock();
  const session = new TargetSession({
    politeness,
    clock,
    ...(options.deadline ? { deadline: clock.now() + politeness.runTimeoutMs } : {}),
  });
  const probes = options.probes ? PROBES.filter((p) => options.probes!.includes(p.id)) : PROBES;
  try {
    // The probes hand their changes on, as in a run of the suite: the server is thrown away after.
    const run = new RunContext(session, target.baseURL, target.settleMs, new MemoryBaselines(true));
    const outcomes: ProbeOutcome[] = [];
    for (const probe of probes) outcomes.push(await runProbe(probe, target, run));
    const vs = verdicts(outcomes);
    return {
      outcomes,
      verdicts: vs,
      tripped: vs
        .filter((v) => v.status === 'failed' || v.status === 'warned')
        .map((v) => v.id)
        .sort(),
      trippedBy: [...new Set(outcomes.flatMap((o) => o.findings.map((f) => f.judgedBy)))].sort(),
      incomplete: outcomes
        .filter((o) => o.incomplete !== undefined)
        .map((o) => ({ probe: o.probe, reason: o.incomplete! }))
        .sort((a, b) => a.probe.localeCompare(b.probe)),
      exchanges: run.log.all,
      settleMs: target.settleMs ?? 0,
      requests: session.ledger.count(),
      durationMs: performance.now() - started,
    };
  } finally {
    session.close();
  }
}

export function describeTripped(run: SuiteRun): string {
  return [
    ...run.verdicts
      .filter((v) => v.findings.length > 0)
      .map(
        (v) =>
          `${v.id} (${v.findings[0]!.judgedBy}): ${v.findings[0]!.message} | received ${v.findings[0]!.received.split('\n')[0]}`,
      ),
    ...run.incomplete.map((i) => `${i.probe} could not complete: ${i.reason}`),
  ].join('\n');
}

/** Where each gallery run (faulty and hostile) leaves what it tripped, for gallery-coverage.spec.ts. */
export const GALLERY_RESULTS = join('test-results', 'gallery-results');

/** Records what a gallery variant's run tripped and which oracles and probes judged it. */
export function recordTrips(variant: string, run: SuiteRun): void {
  mkdirSync(GALLERY_RESULTS, { recursive: true });
  writeFileSync(
    join(GALLERY_RESULTS, `${variant}.json`),
    JSON.stringify({ variant, tripped: run.tripped, trippedBy: run.trippedBy }),
  );
}

/**
 * What the validator finds in a run's traffic written as HAR and read back (the path of
 * `npm run validate -- reports/exchanges.har`): the requirements it reports broken.
 */
export function validateAsHar(run: SuiteRun): string[] {
  const text = JSON.stringify(harOfExchanges(run.exchanges, 'self-test'));
  const validation = new TrafficValidation('har', 'exchanges.har', '', undefined, run.settleMs);
  for (const ex of exchangesOfHar(parseHar(text, 'exchanges.har'), 'exchanges.har')) validation.add(ex);
  const { outcome } = validation.finish();
  return [...new Set(outcome.findings.map((f) => f.requirement))].sort();
}

/**
 * How many faulty variants declaring a requirement an oracle judges have their traffic judged
 * again by the validator (validateAsHar), for each such requirement: see validatorWitnesses.
 */
export const VALIDATOR_WITNESSES = 2;

/**
 * The faulty variants whose run's traffic the validator judges again, as HAR: for every
 * requirement an oracle judges, the first VALIDATOR_WITNESSES variants of the gallery that declare
 * it (all of them where fewer do). The validator runs the suite's oracles (engine/validate.ts), so
 * what can set it apart from the suite's judge is an oracle that judges differently without the
 * probe that sent the traffic, which the variants of that oracle's requirements show; judging the
 * traffic of every variant again was a fifth of the gallery's CPU.
 */
export function validatorWitnesses(variants: readonly Variant[]): Set<string> {
  const judgedByOracles = new Set<string>(ORACLES.flatMap((o) => o.requirements));
  const seen = new Map<string, number>();
  const witnesses = new Set<string>();
  for (const variant of variants)
    for (const requirement of variant.trips) {
      if (!judgedByOracles.has(requirement) || (seen.get(requirement) ?? 0) >= VALIDATOR_WITNESSES) continue;
      seen.set(requirement, (seen.get(requirement) ?? 0) + 1);
      witnesses.add(variant.id);
    }
  return witnesses;
}

/** The requirements an oracle (not a probe's own plan) reported broken in a run. */
export function trippedByOracles(run: SuiteRun): string[] {
  const oracles = new Set(ORACLES.map((o) => o.id));
  return [
    ...new Set(
      run.outcomes.flatMap((o) =>
        o.findings.filter((f) => oracles.has(f.judgedBy)).map((f) => f.requirement),
      ),
    ),
  ].sort();
}

/**
 * The probes every faulty variant runs besides those its declared requirements select: traffic of
 * every kind the oracles judge, so that a fault that makes an oracle fire where it was not
 * declared still shows as a false alarm. A read of the known counterparty (schema, media type,
 * timestamps, lifecycle headers, immutable fields across reads), valid references of every
 * length (a 5xx on the longest is judged on every answer, by no-server-error), slash references
 * (routing 404), collections, lists without a query, unknown items and pagination of the other
 * operations, and an accepted PATCH with accounts and the reads around it (the sequence oracles):
 * about 160 requests.
 */
export const SENTINEL_PROBES: readonly string[] = [
  'known-counterparty',
  'valid-references',
  'slash-references',
  'collections-routed',
  'lists-without-query',
  'unknown-item-references',
  'bill-list-pagination',
  'patch-valid-accounts',
];

/**
 * The sentinels that send a whole finite class each (every credential form on every operation,
 * every character outside the reference pattern, a PATCH of an unknown counterparty in every
 * form): 70 to 105 requests apiece, two thirds of the sentinels' traffic when every variant ran
 * them all. A variant runs one of them, in turn by its place in the gallery (`rotation`), so each
 * meets every fourth variant and every family of faults (a gallery file holds one, in order)
 * meets each of them; a variant whose requirements select one runs it whatever its turn.
 */
export const ROTATING_SENTINELS: readonly string[] = [
  'reads-require-authentication',
  'invalid-references',
  'writes-require-authentication',
  'patch-unknown-counterparty',
];

/**
 * The probes a gallery run against a variant declaring `trips` sends: those the declared
 * requirements select (config/selection.ts, what `--requirement` selects), those it names as
 * showing its fault (Variant.shownBy: answers no selected probe aims at), and the sentinels:
 * every one (`'all'`), none (`'none'`: the run proves what the selection catches, nothing about
 * false alarms), or the fixed ones and the rotating one of the variant's place in the gallery (a
 * number).
 */
export function probesFor(
  trips: readonly RequirementId[],
  sentinels: 'all' | 'none' | number = 'all',
  shownBy: readonly string[] = [],
): string[] {
  const selected =
    trips.length > 0 ? (resolveSelection({ requirements: trips }, SELECTABLE)?.probes ?? []) : [];
  const extra =
    sentinels === 'none'
      ? []
      : sentinels === 'all'
        ? [...SENTINEL_PROBES, ...ROTATING_SENTINELS]
        : [...SENTINEL_PROBES, ROTATING_SENTINELS[sentinels % ROTATING_SENTINELS.length]!];
  const wanted = new Set([...selected, ...shownBy, ...extra]);
  return PROBES.map((p) => p.id).filter((id) => wanted.has(id));
}

/**
 * Runs the suite against a gallery variant, on a VirtualClock shared with its server: the probes
 * its declared requirements select and the sentinels (`sentinels`, as probesFor takes them), or
 * every probe (`all`).
 */
export async function runVariant(
  variant: Variant,
  options: { all?: boolean; sentinels?: 'all' | 'none' | number; target?: Partial<TargetConfig> } = {},
): Promise<SuiteRun> {
  // Every variant on the run's clock, not only those whose fault is a matter of time: a server
  // stamping updatedAt with the real time changes the state, or not, as a second of real time
  // passes, and so how many batches the suite takes apart (a slow machine sent 130 more requests).
  // Started on a whole second, so that where its seconds turn over does not depend on the moment.
  const clock = new VirtualClock(Math.floor(Date.now() / 1000) * 1000);
  const now = (): Date => new Date(clock.now());
  const server = variant.create({ now }).useClock(now);
  const baseURL = await server.start(0);
  try {
    return await runSuite(
      { ...galleryTarget(baseURL), settleMs: variant.settleMs ?? 0, ...options.target },
      {
        clock,
        ...(options.all ? {} : { probes: probesFor(variant.trips, options.sentinels, variant.shownBy) }),
      },
    );
  } finally {
    await server.stop();
  }
}

/**
 * Runs a resolved configuration (run/resolve.ts) in this process as the suite's workers run it:
 * handed down as to a Playwright process (run/hand-down.ts encodeRun) and read back as a worker
 * reads it (suite/target.ts targetFromEnv), its limits the run's, then the probes of its
 * selection (or every probe) through the engine. The resolution is the CLI's; what the CLI and
 * its Playwright processes add (one process resolving, the workers obeying it) the CLI tests
 * prove end to end.
 */
export async function runResolved(
  run: import('../../run/resolve.ts').ResolvedRun,
  options: Omit<SuiteOptions, 'probes' | 'politeness'> = {},
): Promise<SuiteRun> {
  const [handDown, worker] = await Promise.all([
    import('../../run/hand-down.ts'),
    import('../../suite/target.ts'),
  ]);
  const target = worker.targetFromEnv({ [handDown.RESOLVED_VARIABLE]: handDown.encodeRun(run) });
  return runSuite(target, {
    ...options,
    politeness: run.config.politeness,
    ...(run.probes ? { probes: run.probes } : {}),
  });
}
