/** The registry of every check of the suite. */
import { AUTHENTICATION_CHECKS } from './authentication.ts';
import { COUNTERPARTY_GET_CHECKS } from './counterparty-get.ts';
import { COUNTERPARTY_PATCH_CHECKS } from './counterparty-patch.ts';
import { REFERENCE_CHECKS } from './references.ts';
import { ROUTING_CHECKS } from './routing.ts';
import type { Check } from '../engine/types.ts';

export const CHECKS: Check[] = [
  ...COUNTERPARTY_GET_CHECKS,
  ...REFERENCE_CHECKS,
  ...AUTHENTICATION_CHECKS,
  ...ROUTING_CHECKS,
  ...COUNTERPARTY_PATCH_CHECKS,
];

export function checksIn(group: Check['group']): Check[] {
  return CHECKS.filter((c) => c.group === group);
}
