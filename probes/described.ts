/**
 * A probe as described, apart from what it does: its id, title, file, group, access, the
 * requirements it aims at and the operations it sends to. This is what the command needs
 * (`--probe`, the selection, the partial report of a stopped run), what Playwright's runner
 * needs to title and tag the suite's tests, and what a report names, and none of it loads a
 * probe's implementation, and with it the engine, the oracles, the generators and fast-check:
 * the command starts in about half the CPU.
 *
 * The descriptions are those the probes declare themselves (engine/types.ts Probe), copied into
 * probes/catalog.ts by `npm run catalogs`; tests/self/catalogs.spec.ts fails when the
 * copy differs from the probes, so the catalog cannot drift.
 */
import { MODULE_EXTENSION, WRITES_SPEC_NAME } from '../config/layout.ts';
import type { SelectableProbe } from '../config/selection.ts';
import { requirement } from '../spec/requirements.ts';
import { PROBE_CATALOG } from './catalog.ts';
import type { ProbeEntry } from './entry.ts';

export type { ProbeEntry };

/** What the titles and the spec file of a probe are made of (a ProbeEntry, or a Probe). */
export type Described = Pick<ProbeEntry, 'id' | 'title' | 'group' | 'access' | 'elsewhere' | 'requirements'>;

export { PROBE_CATALOG };

/** The catalog's entry of a probe. */
export function describedProbe(id: string): ProbeEntry | undefined {
  return PROBE_CATALOG.find((p) => p.id === id);
}

/** The file that defines a probe (for the report: one hop from a finding to its code). */
export function probeFileOf(id: string): string | undefined {
  return describedProbe(id)?.file;
}

/** The spec file of the write probes that share the writable counterparties, a lane each. */
export const WRITES_SPEC = `${WRITES_SPEC_NAME}${MODULE_EXTENSION}`;
/** The spec file of the write probes that never send to a writable counterparty (Probe.elsewhere). */
export const WRITES_ELSEWHERE_SPEC = `writes-elsewhere.spec${MODULE_EXTENSION}`;

/** The spec file of the suite that runs a probe: its group's for a read probe, else a write spec. */
export function specFileOf(p: Described): string {
  if (p.access === 'read') return `${p.group}.spec${MODULE_EXTENSION}`;
  return p.elsewhere ? WRITES_ELSEWHERE_SPEC : WRITES_SPEC;
}

/**
 * A probe's test title: "<probe id>: <title>", and for a part of a probe split across the lanes
 * (engine/lanes.ts) which part, on which counterparty.
 */
export function testTitle(p: Described, part?: { index: number; count: number; ref: string }): string {
  return `${p.id}: ${p.title}${part ? ` (part ${part.index + 1} of ${part.count}, on ${part.ref})` : ''}`;
}

/** A probe's tags: its access, and the level of each requirement it aims at (@read @must @should). */
export function testTags(p: Described): string[] {
  return [`@${p.access}`, ...new Set(p.requirements.map((id) => `@${requirement(id).level.toLowerCase()}`))];
}

/**
 * The text --grep is matched against, as Playwright matches it: the spec file, the test title
 * and the tags.
 */
export function grepTitle(p: Described): string {
  return `${specFileOf(p)} ${testTitle(p)} ${testTags(p).join(' ')}`;
}

/** Every probe as the selection sees it (config/selection.ts SelectableProbe). */
export const SELECTABLE: readonly SelectableProbe[] = PROBE_CATALOG.map((p) => ({
  id: p.id,
  requirements: p.requirements,
  operations: p.operations,
  grepTitle: grepTitle(p),
}));
