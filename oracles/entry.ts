/**
 * What the catalog holds of an oracle (oracles/catalog.ts, which `npm run catalogs` writes, and
 * oracles/described.ts, which reads it): a file of its own, so that neither imports the other.
 */
import type { RequirementId } from '../spec/requirements.ts';

/** An oracle of the catalog: what it declares, apart from its judge. */
export interface OracleEntry {
  readonly id: string;
  readonly requirements: readonly RequirementId[];
  /** For a requirement: what it is judged on, as a reason a run may have given it nothing to judge. */
  readonly unexercised: Readonly<Partial<Record<RequirementId, string>>>;
}
