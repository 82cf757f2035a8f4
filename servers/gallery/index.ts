/**
 * The gallery: deliberately faulty variants of the reference server, each wrong in one named
 * way, with exactly the requirements the suite reports for it (tests/self/gallery.spec.ts).
 */
import { ANSWER_VARIANTS } from './answers.ts';
import { AUTH_VARIANTS } from './auth.ts';
import { AUTH_OPERATION_VARIANTS } from './auth-operations.ts';
import { CONCURRENCY_VARIANTS } from './concurrency.ts';
import { EQUIVALENT_REQUEST_VARIANTS } from './equivalent-requests.ts';
import { CREDENTIAL_VARIANTS, FINITE_CLASS_VARIANTS, REFERENCE_VARIANT_VARIANTS } from './finite-classes.ts';
import { HEADER_VARIANTS } from './headers.ts';
import { HTTP_SEMANTICS_VARIANTS } from './http-semantics.ts';
import { ITEM_VARIANTS } from './items.ts';
import { OPERATION_VARIANTS } from './operations.ts';
import { PAIR_VARIANTS } from './pairs.ts';
import { duplicateRefusingServer, PATCH_VARIANTS } from './patch.ts';
import { REFERENCE_VARIANTS } from './references.ts';
import { CLEAN_REPLICA, REPLICA_VARIANTS } from './replicas.ts';
import { ROUTING_VARIANTS } from './routing.ts';
import { SCHEMA_VARIANTS } from './schema.ts';
import type { Variant } from './types.ts';

export type { Variant } from './types.ts';
import { NETWORK_VARIANTS } from './hostile.ts';
import { BODY_VARIANTS } from './hostile-bodies.ts';

/** The hostile gallery: faults of the network, and answers too large or too deep to walk. */
export const HOSTILE_VARIANTS = [...NETWORK_VARIANTS, ...BODY_VARIANTS];

/**
 * Servers that differ from the reference where the document allows it: the suite must pass on
 * each with no finding, like on the reference (no false alarm).
 */
export const CLEAN_GALLERY: Variant[] = [
  CLEAN_REPLICA,
  {
    id: 'patch-duplicate-account-409',
    fault:
      'None: a second account with an identifier the counterparty holds is refused with 409 (the document is silent; the suite is given a list of fixtures).',
    trips: [],
    create: duplicateRefusingServer,
  },
];

export const GALLERY: Variant[] = [
  ...REFERENCE_VARIANTS,
  ...SCHEMA_VARIANTS,
  ...HEADER_VARIANTS,
  ...AUTH_VARIANTS,
  ...ROUTING_VARIANTS,
  ...PATCH_VARIANTS,
  ...REPLICA_VARIANTS,
  ...ANSWER_VARIANTS,
  ...OPERATION_VARIANTS,
  ...FINITE_CLASS_VARIANTS,
  ...CREDENTIAL_VARIANTS,
  ...REFERENCE_VARIANT_VARIANTS,
  ...AUTH_OPERATION_VARIANTS,
  ...EQUIVALENT_REQUEST_VARIANTS,
  ...ITEM_VARIANTS,
  ...CONCURRENCY_VARIANTS,
  ...HTTP_SEMANTICS_VARIANTS,
  ...PAIR_VARIANTS,
];
