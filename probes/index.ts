/**
 * The registry of every probe of the suite, in the order the suite runs them. Each file of
 * probes/ that defines probes is listed here once; everything else about a probe is derived from
 * what the probe itself declares (engine/types.ts Probe: its operations, group, access and cost
 * model; probes/family.ts: its file):
 *   - the spec file of the suite that runs it, its test title and its tags, and so the text
 *     --grep is matched against (grepTitle);
 *   - what the selection chooses by (SELECTABLE, config/selection.ts): its requirements, its
 *     operations and that text;
 *   - the file a report line names (probeFile), and the lanes' estimate (engine/lanes.ts).
 */
import { MODULE_EXTENSION } from '../config/layout.ts';
import { requirement } from '../spec/requirements.ts';
import type { Probe } from '../engine/probe-api.ts';
import type { ProbeFamily } from './family.ts';
import { AUTHENTICATION_PROBES } from './authentication.ts';
import { COUNTERPARTY_GET_PROBES } from './counterparty-get.ts';
import { COUNTERPARTY_PATCH_PROBES } from './counterparty-patch.ts';
import { EQUIVALENT_REQUEST_PROBES } from './equivalent-requests.ts';
import { INVALID_BODY_PROBES } from './invalid-bodies.ts';
import { ITEM_WRITE_PROBES } from './item-writes.ts';
import { ITEM_PROBES } from './items.ts';
import { UNDOCUMENTED_METHOD_PROBES } from './undocumented-methods.ts';
import { REFERENCE_PROBES } from './references.ts';
import { OTHER_OPERATION_PROBES } from './other-operations.ts';
import { PATCH_OTHER_REFERENCE_PROBES } from './patch-other-references.ts';
import { REFERENCE_VARIANT_PROBES } from './reference-variants.ts';
import { ROUTING_PROBES } from './routing.ts';

/** Each file of probes/ and the probes it defines, in the order the suite runs them. */
const FAMILIES: readonly ProbeFamily[] = [
  COUNTERPARTY_GET_PROBES,
  REFERENCE_PROBES,
  PATCH_OTHER_REFERENCE_PROBES,
  AUTHENTICATION_PROBES,
  ROUTING_PROBES,
  COUNTERPARTY_PATCH_PROBES,
  OTHER_OPERATION_PROBES,
  INVALID_BODY_PROBES,
  REFERENCE_VARIANT_PROBES,
  EQUIVALENT_REQUEST_PROBES,
  ITEM_WRITE_PROBES,
  ITEM_PROBES,
  UNDOCUMENTED_METHOD_PROBES,
];

export const PROBES: Probe[] = FAMILIES.flatMap((f) => f.probes);

/** The file that defines a probe (for the report: one hop from a finding to its code). */
export function probeFile(id: string): string | undefined {
  return FAMILIES.find((f) => f.probes.some((p) => p.id === id))?.file;
}

export function probe(id: string): Probe | undefined {
  return PROBES.find((p) => p.id === id);
}

/** The spec file of the write probes that share the writable counterparties, a lane each. */
export const WRITES_SPEC = `writes.spec${MODULE_EXTENSION}`;
/** The spec file of the write probes that never send to a writable counterparty (Probe.elsewhere). */
export const WRITES_ELSEWHERE_SPEC = `writes-elsewhere.spec${MODULE_EXTENSION}`;

/** The spec file of the suite that runs a probe: its group's for a read probe, else a write spec. */
export function specFileOf(p: Probe): string {
  if (p.access === 'read') return `${p.group}.spec${MODULE_EXTENSION}`;
  return p.elsewhere ? WRITES_ELSEWHERE_SPEC : WRITES_SPEC;
}

/** The read probes of a group: the checks of its spec file. */
export function readProbesIn(group: string): Probe[] {
  return PROBES.filter((p) => p.access === 'read' && p.group === group);
}

/**
 * A probe's test title: "<probe id>: <title>", and for a part of a probe split across the lanes
 * (engine/lanes.ts) which part, on which counterparty.
 */
export function testTitle(p: Probe, part?: { index: number; count: number; ref: string }): string {
  return `${p.id}: ${p.title}${part ? ` (part ${part.index + 1} of ${part.count}, on ${part.ref})` : ''}`;
}

/** A probe's tags: its access, and the level of each requirement it aims at (@read @must @should). */
export function testTags(p: Probe): string[] {
  return [`@${p.access}`, ...new Set(p.requirements.map((id) => `@${requirement(id).level.toLowerCase()}`))];
}

/**
 * The text --grep is matched against, as Playwright matches it: the spec file, the test title
 * and the tags.
 */
export function grepTitle(p: Probe): string {
  return `${specFileOf(p)} ${testTitle(p)} ${testTags(p).join(' ')}`;
}

/** Every probe as the selection sees it (config/selection.ts SelectableProbe). */
export const SELECTABLE = PROBES.map((p) => ({
  id: p.id,
  requirements: p.requirements,
  operations: p.operations,
  grepTitle: grepTitle(p),
}));
