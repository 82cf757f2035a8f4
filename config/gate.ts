/**
 * How strict the gate is, as configured: strict mode (SHOULD failures fail it too) and
 * --require-exercised (a selected requirement that was not exercised fails it). The waivers are
 * read in config/waivers.ts; the gate itself, which applies all three to the verdicts, is
 * reporter/gate.ts.
 */
import { ConfigError } from './error.ts';

/** CONFORMANCE_STRICT: 1/true/yes turns strict mode on; unset, empty, 0/false/no leave it off. */
export function parseStrict(value: string | undefined): boolean {
  const v = value?.trim().toLowerCase() ?? '';
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['', '0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(`CONFORMANCE_STRICT must be 1 or 0 (or true/false), got '${value}'`);
}

/** Which levels must all be exercised for the gate to pass: MUST ones, or every one. */
export type RequireExercised = 'must' | 'all';

/** CONFORMANCE_REQUIRE_EXERCISED / --require-exercised: must or all; unset or empty: off. */
export function parseRequireExercised(value: string | undefined): RequireExercised | null {
  const v = value?.trim().toLowerCase() ?? '';
  if (v === '') return null;
  if (v === 'must' || v === 'all') return v;
  throw new ConfigError(
    `CONFORMANCE_REQUIRE_EXERCISED (--require-exercised) must be must or all, got '${value}'`,
  );
}
