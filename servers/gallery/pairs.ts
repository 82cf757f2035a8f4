/**
 * Faults in combinations of valid values of one PATCH body (interface.md §2.2, §2.3, §4.2): a
 * deployment that refuses two values together that the document allows, each of which it accepts
 * with other values. Only a body pairing the two shows it, so the suite sends every pair of values
 * of a body's finite fields by design (generators/covering-array.ts), not when the seed happens to
 * pair them.
 */
import { refusing } from './patch.ts';
import type { Variant } from './types.ts';

export const PAIR_VARIANTS: Variant[] = [
  {
    id: 'patch-gbp-account-outside-gb-refused',
    fault:
      'A new account in GBP whose bank country is not GB is refused (a relation the document does not have: it ties GBP only to a SORT branch identifier).',
    trips: ['patch-valid-accepted'],
    create: refusing((b) =>
      b.counterpartyAccounts?.some((a) => a.currency === 'GBP' && a.country !== 'GB')
        ? 'a GBP account must be held in GB'
        : undefined,
    ),
  },
  {
    id: 'patch-postal-code-without-address-line-refused',
    fault:
      'An address sent with a postalCode and no addressLine is refused (the document makes every address field optional, and a patch carries only the fields to change).',
    trips: ['patch-valid-accepted'],
    create: refusing((b) => {
      const address = b.counterpartyDetails?.address;
      return address?.postalCode !== undefined && address.addressLine === undefined
        ? 'a postal code needs an address line'
        : undefined;
    }),
  },
];
