/**
 * Checking every value of a large sample with one `expect`. An expect per value costs more than
 * the values: Playwright records each expect as a step and, for each, walks every step before it
 * (_findLastPredefinedStep), so a test of some 3,700 expects spent 4 s on its bookkeeping where
 * its values took 50 ms to generate and check. The generators' tests collect what does not hold
 * over a sample and expect that list to be empty: a failure still names every value and what it
 * breaks.
 */

/**
 * `[label: not what]` for each of `checks` (whether it holds, what it says) that does not hold,
 * joined in one line, else nothing.
 */
export function failing(label: string, checks: readonly (readonly [boolean, string])[]): string[] {
  const not = checks.filter(([holds]) => !holds).map(([, what]) => what);
  return not.length === 0 ? [] : [`${label}: not ${not.join('; not ')}`];
}
