/**
 * Runs a property over generated inputs against the target with fast-check: the explicit
 * boundary examples first, then `runs` random cases from the run's seed. On failure fast-check
 * shrinks to the smallest input that still fails, and the finding carries that input, the rule
 * it was built to keep or break, the seed and path that replay it, and the request.
 *
 * One probe may judge several requirements (a PATCH is checked for acceptance, persistence,
 * merging, ...). The property is run once per requirement that fails: the first violation found
 * fixes the requirement that round shrinks on, so the input reported is the smallest one that
 * breaks that requirement; then the property runs again without it, until a round finds nothing
 * new. A conforming target costs one round.
 */
import fc from 'fast-check';
import type { Labelled } from '../generators/labelled.ts';
import type { Violation } from '../oracles/types.ts';
import type { RequirementId } from '../spec/requirements.ts';
import type { JudgedViolation, ProbeContext } from './types.ts';

export interface PropertySpec<T> {
  name: string;
  arbitrary: fc.Arbitrary<Labelled<T>>;
  /** Boundary cases, always run before the random ones. */
  examples?: Labelled<T>[];
  /** Random cases after the examples; default: the run's CONFORMANCE_RUNS. */
  runs?: number;
  /** Cap on shrinking probes per round; default MAX_SHRINK_PROBES. */
  maxShrinkProbes?: number;
  /**
   * Sends this input and returns the probe's own violations: none (or undefined) when the target
   * behaves. The oracles' violations of the exchanges it sent are added by the runner.
   * `shrinking`: the input is a candidate of shrinking a failure (a probe that batches its reads
   * sends it on its own, so that the verdict is this input's).
   */
  probe(input: Labelled<T>, shrinking: boolean): Promise<Violation[] | Violation | undefined>;
}

/**
 * Shrinking re-sends requests per candidate. After this many candidates a round stops probing
 * (treats further candidates as passing), so a failure on a long input costs a bounded number of
 * requests; the input reported is the smallest failing one found by then.
 */
export const MAX_SHRINK_PROBES = 400;

export interface PropertyResult {
  /** The requirements found broken, in the order they were found. */
  failed: RequirementId[];
  /** Cases run in the first round. */
  numRuns: number;
}

export async function runProperty<T>(ctx: ProbeContext, prop: PropertySpec<T>): Promise<PropertyResult> {
  const examples = prop.examples ?? [];
  const runs = prop.runs ?? ctx.target.runs;
  const maxShrink = prop.maxShrinkProbes ?? MAX_SHRINK_PROBES;
  const found: RequirementId[] = [];
  let firstRoundRuns = 0;
  // A probe that throws cannot judge its input (the target unreachable, a budget spent): the
  // property stops probing at once, rather than letting fast-check shrink on the error, and the
  // error is thrown once what was found before is recorded.
  let stoppedBy: unknown;
  let stopped = false;
  for (;;) {
    let target: RequirementId | undefined;
    let last: { input: Labelled<T>; violation: JudgedViolation } | undefined;
    let shrinkProbes = 0;
    const details = await fc.check(
      fc.asyncProperty(prop.arbitrary, async (input) => {
        if (stopped) return true;
        if (last !== undefined && ++shrinkProbes > maxShrink) return true;
        let all: JudgedViolation[];
        try {
          const { result, violations } = await ctx.runCase(() => prop.probe(input, last !== undefined));
          const own = result === undefined ? [] : Array.isArray(result) ? result : [result];
          all = [...own.map((v) => ({ ...v, judgedBy: ctx.probe.id })), ...violations];
        } catch (error) {
          stopped = true;
          stoppedBy = error;
          return true;
        }
        const fresh = all.filter((v) => !found.includes(v.requirement));
        const hit = target === undefined ? fresh[0] : fresh.find((v) => v.requirement === target);
        if (!hit) return true;
        target = hit.requirement;
        last = { input, violation: hit };
        return false;
      }),
      {
        seed: ctx.target.seed,
        numRuns: examples.length + runs,
        examples: examples.map((e) => [e] as [Labelled<T>]),
      },
    );
    if (found.length === 0) firstRoundRuns = details.numRuns;
    if (stopped && !details.failed) break;
    if (details.failed && !last) {
      throw new Error(`${prop.name}: property failed without a violation: ${String(details.errorInstance)}`);
    }
    if (!details.failed || !last) break;
    // The last failing run fast-check made is the one it reports: the shrunk counterexample.
    const { input, violation } = last;
    ctx.report(violation, {
      name: prop.name,
      input: input.value,
      rule: input.rule,
      seed: details.seed,
      ...(details.counterexamplePath ? { path: details.counterexamplePath } : {}),
    });
    found.push(violation.requirement);
    const cut = shrinkProbes > maxShrink ? ` (shrinking stopped after ${maxShrink} probes)` : '';
    ctx.note(`${prop.name}: ${violation.requirement} broken, shrunk ${details.numShrinks} time(s)${cut}`);
    if (stopped) break;
  }
  if (stopped) throw stoppedBy;
  ctx.note(
    `${prop.name}: ${firstRoundRuns} case(s)${found.length > 0 ? `, ${found.length} requirement(s) broken` : ''}`,
  );
  return { failed: found, numRuns: firstRoundRuns };
}
