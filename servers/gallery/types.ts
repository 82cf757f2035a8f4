/** The shape of a faulty variant of the reference server. */
import type { RequirementId } from '../../spec/requirements.ts';
import type { ReferenceServer } from '../reference.ts';

export interface Variant {
  /** kebab-case, unique in the gallery. */
  id: string;
  /** One sentence: what is wrong. */
  fault: string;
  /** Exactly the requirements the suite reports failed (MUST) or warned (SHOULD) for this variant. */
  trips: RequirementId[];
  create(): ReferenceServer;
}
