/**
 * The gallery: deliberately faulty variants of the reference server, each wrong in one named
 * way, with exactly the requirements the suite reports for it (tests/self/gallery.spec.ts).
 */
import { ANSWER_VARIANTS } from './answers.ts';
import { AUTH_VARIANTS } from './auth.ts';
import { CREDENTIAL_VARIANTS, FINITE_CLASS_VARIANTS, REFERENCE_VARIANT_VARIANTS } from './finite-classes.ts';
import { HEADER_VARIANTS } from './headers.ts';
import { OPERATION_VARIANTS } from './operations.ts';
import { PATCH_VARIANTS } from './patch.ts';
import { REFERENCE_VARIANTS } from './references.ts';
import { REPLICA_VARIANTS } from './replicas.ts';
import { ROUTING_VARIANTS } from './routing.ts';
import { SCHEMA_VARIANTS } from './schema.ts';
import type { Variant } from './types.ts';

export type { Variant } from './types.ts';
export { HOSTILE_VARIANTS } from './hostile.ts';

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
];
