/** The registry of every oracle: each exchange of a run goes to every one that applies. */
import { AUTH_CHALLENGE_ORACLE } from './auth-challenge.ts';
import { LIFECYCLE_HEADERS_ORACLE } from './lifecycle-headers.ts';
import type { Oracle } from './types.ts';

export const ORACLES: Oracle[] = [LIFECYCLE_HEADERS_ORACLE, AUTH_CHALLENGE_ORACLE];

export function oracle(id: string): Oracle {
  const o = ORACLES.find((x) => x.id === id);
  if (!o) throw new Error(`unknown oracle ${id}`);
  return o;
}
