/**
 * What the catalog holds of a probe (probes/catalog.ts, which `npm run catalogs` writes, and
 * probes/described.ts, which reads it): a file of its own, so that neither imports the other.
 */
import type { RequirementId } from '../spec/requirements.ts';

/** A probe of the catalog: what it declares, apart from its run and its cost model. */
export interface ProbeEntry {
  readonly id: string;
  readonly title: string;
  /** The file that defines it, from the project's root (probes/<name>.ts). */
  readonly file: string;
  readonly group: string;
  readonly access: 'read' | 'write';
  readonly elsewhere?: boolean;
  readonly requirements: readonly RequirementId[];
  readonly operations: readonly string[];
}
