/**
 * The registry of every probe of the suite, in the order the suite runs them. Each file of
 * probes/ that defines probes is listed here once; everything else about a probe is derived from
 * what the probe itself declares (engine/types.ts Probe: its operations, group, access and cost
 * model; probes/family.ts: its file):
 *   - its description (probes/described.ts, from the copy in probes/catalog.ts, which a
 *     self-test holds to these declarations): the spec file of the suite that runs it, its test
 *     title and its tags, and so the text --grep is matched against (grepTitle); what the
 *     selection chooses by (SELECTABLE, config/selection.ts); the file a report line names;
 *   - the lanes' estimate (engine/lanes.ts).
 */
import type { Probe } from '../engine/probe-api.ts';
import type { ProbeFamily } from './family.ts';
import { AUTHENTICATION_PROBES } from './authentication.ts';
import { COUNTERPARTY_GET_PROBES } from './counterparty-get.ts';
import { COUNTERPARTY_PATCH_PROBES } from './counterparty-patch.ts';
import { EQUIVALENT_REQUEST_PROBES } from './equivalent-requests.ts';
import { HTTP_SEMANTICS_PROBES } from './http-semantics.ts';
import { INVALID_BODY_PROBES } from './invalid-bodies.ts';
import { ITEM_WRITE_PROBES } from './item-writes.ts';
import { ITEM_PROBES } from './items.ts';
import { UNDOCUMENTED_METHOD_PROBES } from './undocumented-methods.ts';
import { REFERENCE_PROBES } from './references.ts';
import { OTHER_OPERATION_PROBES } from './other-operations.ts';
import { PATCH_OTHER_REFERENCE_PROBES } from './patch-other-references.ts';
import { REFERENCE_VARIANT_PROBES } from './reference-variants.ts';
import { ROUTING_PROBES } from './routing.ts';
import { SEQUENCE_PROBES } from './sequences.ts';
import { CONCURRENT_PROBES } from './concurrent-patches.ts';

export {
  grepTitle,
  SELECTABLE,
  specFileOf,
  testTags,
  testTitle,
  WRITES_ELSEWHERE_SPEC,
  WRITES_SPEC,
} from './described.ts';

/**
 * Each file of probes/ and the probes it defines, in the order the suite runs them: a lane's
 * write probes run in this order, one after another. The authentication probes come after the
 * PATCHes of the writable counterparty: writes-require-authentication's refused writes go out
 * together, and there meet the pace the lane has grown to (0.6 s at 150 ms), where first on the
 * lane they went out under slow start (1.4 s). Read probes run by spec file, whatever this order.
 */
const FAMILIES: readonly ProbeFamily[] = [
  COUNTERPARTY_GET_PROBES,
  REFERENCE_PROBES,
  PATCH_OTHER_REFERENCE_PROBES,
  ROUTING_PROBES,
  COUNTERPARTY_PATCH_PROBES,
  SEQUENCE_PROBES,
  CONCURRENT_PROBES,
  OTHER_OPERATION_PROBES,
  INVALID_BODY_PROBES,
  AUTHENTICATION_PROBES,
  REFERENCE_VARIANT_PROBES,
  EQUIVALENT_REQUEST_PROBES,
  ITEM_WRITE_PROBES,
  ITEM_PROBES,
  UNDOCUMENTED_METHOD_PROBES,
  HTTP_SEMANTICS_PROBES,
];

export const PROBES: Probe[] = FAMILIES.flatMap((f) => f.probes);

/** The file that defines a probe (for the report: one hop from a finding to its code). */
export function probeFile(id: string): string | undefined {
  return FAMILIES.find((f) => f.probes.some((p) => p.id === id))?.file;
}

export function probe(id: string): Probe | undefined {
  return PROBES.find((p) => p.id === id);
}
