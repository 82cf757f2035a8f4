/** The registry of every probe of the suite. */
import type { Probe } from '../engine/types.ts';
import { AUTHENTICATION_PROBES } from './authentication.ts';
import { COUNTERPARTY_GET_PROBES } from './counterparty-get.ts';
import { COUNTERPARTY_PATCH_PROBES } from './counterparty-patch.ts';
import { REFERENCE_PROBES } from './references.ts';
import { ROUTING_PROBES } from './routing.ts';

export const PROBES: Probe[] = [
  ...COUNTERPARTY_GET_PROBES,
  ...REFERENCE_PROBES,
  ...AUTHENTICATION_PROBES,
  ...ROUTING_PROBES,
  ...COUNTERPARTY_PATCH_PROBES,
];

export function probesIn(group: Probe['group']): Probe[] {
  return PROBES.filter((p) => p.group === group);
}

export function probe(id: string): Probe | undefined {
  return PROBES.find((p) => p.id === id);
}
