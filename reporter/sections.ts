/**
 * The sections of ../shared/interface.md that requirements are grouped under in the reports
 * (a requirement's `group`), with their headings, and the order they appear in the document.
 * A group missing here still renders, titled by its number.
 */
const TITLES: Record<string, string> = {
  '1': 'What the service does',
  '2': 'Resources and their fields',
  '2.1': 'Counterparty (as returned by GET and PATCH)',
  '2.2': 'Address object',
  '2.3': 'Counterparty account',
  '3': 'States and transitions',
  '4': 'Endpoints',
  '4.1': 'GET /api/v1/counterparties/{counterpartyReference}',
  '4.2': 'PATCH /api/v1/counterparties/{counterpartyReference}',
  '4.3': 'Other operations',
  '5': 'Authentication',
  '6': 'Events',
  '7': 'Errors',
  '8': 'Limits',
  '9': 'Versioning',
};

/** The heading of a section of interface.md, e.g. "§4.1 GET /api/v1/counterparties/{…}". */
export function sectionTitle(group: string): string {
  const title = Object.hasOwn(TITLES, group) ? TITLES[group] : undefined;
  return title === undefined ? `§${group}` : `§${group} ${title}`;
}

/** Compares two section numbers in document order: 2.3 before 4.1 before 10. */
export function compareSections(a: string, b: string): number {
  const pa = a.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : Number.POSITIVE_INFINITY));
  const pb = b.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : Number.POSITIVE_INFINITY));
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? -1;
    const y = pb[i] ?? -1;
    if (x !== y) return x < y ? -1 : 1;
  }
  return a.localeCompare(b);
}

/** Groups items by section, sections in document order, items in their given order. */
export function bySection<T extends { group: string }>(items: readonly T[]): [string, T[]][] {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const list = groups.get(item.group) ?? [];
    list.push(item);
    groups.set(item.group, list);
  }
  return [...groups.entries()].sort(([a], [b]) => compareSections(a, b));
}
