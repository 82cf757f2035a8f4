import type { ConformanceRecord } from './record.ts';

/**
 * The headline every renderer leads with (console, HTML banner, JUnit, the workflow summary):
 * a full pass, a pass that left MUST requirements unexercised (with their count and how to make
 * them count), or a failure. One wording, so no renderer says less than another.
 */
export interface Headline {
  /** pass: green; partial: amber; fail: red. */
  tone: 'pass' | 'partial' | 'fail';
  /** "Conformance PASSED, 12 of 36 MUST requirements not exercised" */
  text: string;
  /** The MUST requirements of the run's selection that nothing judged (0 unless partial). */
  unexercisedMust: number;
  /** Of how many MUST requirements the run selected. */
  selectedMust: number;
  /** For a partial pass: what it means and what to do, one sentence. */
  advice?: string;
}

export function headline(
  record: Pick<ConformanceRecord, 'verdict' | 'counts' | 'traffic' | 'requireExercised'>,
): Headline {
  const title = record.traffic ? 'Validation' : 'Conformance';
  const m = record.counts.MUST;
  const unexercisedMust = m['not-exercised'];
  const selectedMust = m.passed + m.failed + m.warned + m.waived + m['not-exercised'];
  if (record.verdict === 'fail')
    return { tone: 'fail', text: `${title} FAILED`, unexercisedMust: 0, selectedMust };
  if (record.verdict === 'pass' || unexercisedMust === 0)
    return { tone: 'pass', text: `${title} PASSED`, unexercisedMust: 0, selectedMust };
  const what = record.traffic ? 'the traffic did not exercise them' : 'this run did not exercise them';
  const advice = record.traffic
    ? `Passed only on what the traffic exercised: ${unexercisedMust} of ${selectedMust} MUST requirements were not judged (${what}), so they are not known to hold.`
    : `Passed only on what was exercised: ${unexercisedMust} of ${selectedMust} MUST requirements were not judged (${what}), so they are not known to hold; see why each was not exercised, and run with --require-exercised must to make them fail the gate.`;
  return {
    tone: 'partial',
    text: `${title} PASSED, ${unexercisedMust} of ${selectedMust} MUST requirements not exercised`,
    unexercisedMust,
    selectedMust,
    advice,
  };
}
