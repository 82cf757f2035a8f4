/** The registry of every probe of the suite. */
import type { Probe } from '../engine/types.ts';
import { AUTHENTICATION_PROBES } from './authentication.ts';
import { COUNTERPARTY_GET_PROBES } from './counterparty-get.ts';
import { COUNTERPARTY_PATCH_PROBES } from './counterparty-patch.ts';
import { FINITE_CLASS_PROBES } from './finite-classes.ts';
import { ITEM_WRITE_PROBES } from './item-writes.ts';
import { UNDOCUMENTED_METHOD_PROBES } from './undocumented-methods.ts';
import { REFERENCE_PROBES } from './references.ts';
import { OTHER_OPERATION_PROBES } from './other-operations.ts';
import { PATCH_OTHER_REFERENCE_PROBES } from './patch-other-references.ts';
import { REFERENCE_VARIANT_PROBES } from './reference-variants.ts';
import { ROUTING_PROBES } from './routing.ts';

/** Each file of probes/ and the probes it defines. */
const FILES: [string, Probe[]][] = [
  ['probes/counterparty-get.ts', COUNTERPARTY_GET_PROBES],
  ['probes/references.ts', REFERENCE_PROBES],
  ['probes/patch-other-references.ts', PATCH_OTHER_REFERENCE_PROBES],
  ['probes/authentication.ts', AUTHENTICATION_PROBES],
  ['probes/routing.ts', ROUTING_PROBES],
  ['probes/counterparty-patch.ts', COUNTERPARTY_PATCH_PROBES],
  ['probes/other-operations.ts', OTHER_OPERATION_PROBES],
  ['probes/finite-classes.ts', FINITE_CLASS_PROBES],
  ['probes/reference-variants.ts', REFERENCE_VARIANT_PROBES],
  ['probes/item-writes.ts', ITEM_WRITE_PROBES],
  ['probes/undocumented-methods.ts', UNDOCUMENTED_METHOD_PROBES],
];

export const PROBES: Probe[] = FILES.flatMap(([, probes]) => probes);

/** The file that defines a probe (for the report: one hop from a finding to its code). */
export function probeFile(id: string): string | undefined {
  return FILES.find(([, probes]) => probes.some((p) => p.id === id))?.[0];
}

export function probesIn(group: Probe['group']): Probe[] {
  return PROBES.filter((p) => p.group === group);
}

export function probe(id: string): Probe | undefined {
  return PROBES.find((p) => p.id === id);
}
