/**
 * The test every mutant of the reference server faces: the conformance suite's own run against
 * the embedded server, in write mode, judged by its gate. Loaded by the Stryker test runner
 * (mutation/runner.ts) from Stryker's sandbox, so the server it starts is the instrumented one.
 *
 * It is the run `npm run conformance` makes with no target configured, in one process:
 *   - the configuration is the one config/config.ts resolves for the embedded server (the
 *     writable counterparty, the account fixtures, 100 cases per property, the embedded limits),
 *     with one fixed seed (MUTATION_SEED) so that every mutant meets the same inputs and a rerun
 *     gives the same verdicts; the case count stays the default, so a mutant faces what a user's
 *     run sends;
 *   - every probe of the registry, in the registry's order, on one run context (one log, one
 *     judge: every oracle judges every exchange), against a fresh server (fresh state) per run;
 *   - the gate: a mutant is killed when the run reports a failed MUST requirement, a warned SHOULD
 *     requirement, or a probe that could not complete. That is the gate of strict mode; outside
 *     strict mode a SHOULD warning does not fail the gate, but it is the suite noticing the
 *     deviation and saying so in the report, which is what a mutant measures. The failure
 *     message names the level, so the report tells the two apart (mutation/summary.ts counts
 *     the mutants only a SHOULD warning caught).
 * With `bail` the run stops at the first probe that fails the gate: the verdict is settled then.
 */
import { parseConfig } from '../config/config.ts';
import { EMBEDDED_TARGET } from '../config/embedded.ts';
import { MemoryBaselines } from '../engine/baseline.ts';
import { RunContext, runProbe } from '../engine/run.ts';
import type { ProbeOutcome, TargetConfig } from '../engine/types.ts';
import { verdicts } from '../engine/verdicts.ts';
import { PROBES } from '../probes/index.ts';
import { ReferenceServer } from '../servers/reference.ts';
import { requirement } from '../spec/requirements.ts';
import { TargetSession } from '../transport/session.ts';

/** The seed every mutant's run uses (CONFORMANCE_SEED of a run that replays it). */
export const MUTATION_SEED = 20261122;

export interface SuiteVerdict {
  /** Whether the gate (strict mode) fails: a MUST failed, a SHOULD warned, or a probe incomplete. */
  failed: boolean;
  /** One line per reason, the first finding of each requirement with what was received. */
  reasons: string[];
  /** The requirements that failed (MUST) or warned (SHOULD). */
  tripped: { id: string; level: 'MUST' | 'SHOULD' }[];
  incomplete: string[];
  probesRun: number;
  requests: number;
}

/** The configuration of `npm run conformance` with no target and CONFORMANCE_SEED=seed. */
export function embeddedConfig(seed = MUTATION_SEED): Omit<TargetConfig, 'baseURL'> & {
  politeness: ReturnType<typeof parseConfig>['politeness'];
} {
  const config = parseConfig({ CONFORMANCE_SEED: String(seed) }, EMBEDDED_TARGET);
  const { baseURL: _none, seedGiven: _given, ...rest } = config;
  return rest;
}

/** Whether an outcome fails the strict gate on its own. */
function failsGate(outcome: ProbeOutcome): boolean {
  return outcome.incomplete !== undefined || outcome.findings.length > 0;
}

/** Runs the suite against a fresh embedded server; never throws for what the server does. */
export async function runConformance(options: { bail: boolean; seed?: number }): Promise<SuiteVerdict> {
  const { politeness, ...config } = embeddedConfig(options.seed);
  const server = new ReferenceServer({ token: config.token });
  const baseURL = await server.start(0);
  const target: TargetConfig = { ...config, baseURL };
  const session = new TargetSession({ politeness });
  const outcomes: ProbeOutcome[] = [];
  try {
    // The probes hand their changes on, as in a run of the suite: the server is thrown away after.
    const run = new RunContext(session, baseURL, target.settleMs, new MemoryBaselines(true));
    for (const probe of PROBES) {
      const outcome = await runProbe(probe, target, run);
      outcomes.push(outcome);
      if (options.bail && failsGate(outcome)) break;
    }
  } finally {
    session.close();
    await server.stop();
  }
  const vs = verdicts(outcomes).filter((v) => v.status === 'failed' || v.status === 'warned');
  const incomplete = outcomes
    .filter((o) => o.incomplete !== undefined)
    .map((o) => `${o.probe} could not complete: ${o.incomplete}`);
  const reasons = [
    ...vs.map((v) => {
      const f = v.findings[0]!;
      const received = f.received.split('\n')[0]!.slice(0, 300);
      return `${v.level} ${v.id} (${f.judgedBy}): ${f.message.slice(0, 300)} | received ${received}`;
    }),
    ...incomplete,
  ];
  return {
    failed: reasons.length > 0,
    reasons,
    tripped: vs.map((v) => ({ id: v.id, level: requirement(v.id).level })),
    incomplete,
    probesRun: outcomes.length,
    requests: session.ledger.count(),
  };
}
