/**
 * Runs a property over generated inputs against the target with fast-check: the explicit
 * boundary examples first, then `runs` random cases from the run's seed. On failure fast-check
 * shrinks to the smallest input that still fails, and the finding carries that input, the rule
 * it was built to keep or break, the seed and path that replay it, and the request.
 */
import fc from 'fast-check';
import type { RequirementId } from '../spec/requirements.ts';
import type { Labelled } from '../generators/labelled.ts';
import type { Exchange } from './http.ts';
import type { CheckContext } from './types.ts';

/** What a property reports for one input: nothing when it holds. */
export interface Violation {
  exchange: Exchange;
  requirement: RequirementId;
  message: string;
  expected: string;
  received: string;
}

export interface PropertySpec<T> {
  name: string;
  arbitrary: fc.Arbitrary<Labelled<T>>;
  /** Boundary cases, always run before the random ones. */
  examples?: Labelled<T>[];
  /** Returns the violation for this input, or undefined when the target behaves. */
  probe(input: Labelled<T>): Promise<Violation | undefined>;
}

/**
 * Shrinking re-sends a request per candidate. After this many candidates the property stops
 * probing (treats further candidates as passing), so a failure on a long input costs a bounded
 * number of requests; the input reported is the smallest failing one found by then.
 */
export const MAX_SHRINK_PROBES = 400;

export interface PropertyResult {
  failed: boolean;
  numRuns: number;
  numShrinks: number;
}

export async function runProperty<T>(ctx: CheckContext, prop: PropertySpec<T>): Promise<PropertyResult> {
  const examples = prop.examples ?? [];
  let last: { input: Labelled<T>; violation: Violation } | undefined;
  let shrinkProbes = 0;
  const details = await fc.check(
    fc.asyncProperty(prop.arbitrary, async (input) => {
      if (last !== undefined && ++shrinkProbes > MAX_SHRINK_PROBES) return true;
      const violation = await prop.probe(input);
      if (violation) {
        last = { input, violation };
        return false;
      }
      return true;
    }),
    {
      seed: ctx.target.seed,
      numRuns: examples.length + ctx.target.runs,
      examples: examples.map((e) => [e] as [Labelled<T>]),
    },
  );
  if (details.failed && last) {
    // The last failing run fast-check made is the one it reports: the shrunk counterexample.
    const { input, violation } = last;
    ctx.failOn(violation.exchange, {
      requirement: violation.requirement,
      message: `${prop.name}: ${violation.message}`,
      expected: violation.expected,
      received: violation.received,
      input: input.value,
      rule: input.rule,
      seed: details.seed,
      path: details.counterexamplePath ?? undefined,
    });
  } else if (details.failed) {
    throw new Error(
      `${prop.name}: property failed without a recorded violation: ${String(details.errorInstance)}`,
    );
  }
  const stopped =
    shrinkProbes > MAX_SHRINK_PROBES ? ` (shrinking stopped after ${MAX_SHRINK_PROBES} probes)` : '';
  ctx.note(
    `${prop.name}: ${details.numRuns} case(s)${details.failed ? `, shrunk ${details.numShrinks} time(s)${stopped}` : ''}`,
  );
  return { failed: details.failed, numRuns: details.numRuns, numShrinks: details.numShrinks };
}
