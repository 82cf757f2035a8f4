/**
 * An oracle as described, apart from how it judges: its id, the requirements it judges, and why
 * each may go unexercised. This is what the verdicts (engine/verdicts.ts) and the reports need,
 * and none of it loads an oracle, and with them the request model and the comparisons: a process
 * that only reports (Playwright's runner, the command) loads none of the judging.
 *
 * The descriptions are those the oracles declare (oracles/types.ts), copied into
 * oracles/catalog.ts by `npm run catalogs`; tests/self/catalogs.spec.ts fails when the copy
 * differs from the oracles.
 */
import { ORACLE_CATALOG } from './catalog.ts';

export type { OracleEntry } from './entry.ts';

export { ORACLE_CATALOG };

/** The file that defines an oracle: one requirement family per file, named after the oracle. */
export function oracleFileOf(id: string): string | undefined {
  return ORACLE_CATALOG.some((o) => o.id === id) ? `oracles/${id}.ts` : undefined;
}
