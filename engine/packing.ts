/**
 * Several explicit cases in one request: a covering design. Explicit cases that each occupy a part
 * of the input no other case of theirs touches (a field of a patch body: the holder name at its
 * longest, the email at its shortest, an address line with every allowed symbol) are packed side
 * by side, so that every case is still sent and judged, in as few requests as the part with the
 * most cases allows. A pack whose request shows nothing wrong passes every case in it. A pack that
 * shows something (the probe's own verdict, or an oracle's on the request or on a read that
 * confirms it) is split in halves, each sent on its own, down to the single cases that show it
 * alone: those are the cases the property then reports, shrinks and replays like any other.
 *
 * Pure planning (coverCases) and the splitting of one failed pack (splitPack) live here; the
 * property runner (engine/property.ts) sends the packs and hands each case its result.
 */

/** How the explicit cases of a property may share one request. */
export interface CasePacking<C> {
  /**
   * The parts of the input a case occupies (for a patch body, its fields, an address's sub-fields
   * each on its own): cases with no part in common may share a request. Undefined or empty: the
   * case goes alone.
   */
  slots(c: C): readonly string[] | undefined;
  /** One input carrying every one of `cases` (which occupy different parts). */
  merge(cases: readonly C[]): C;
  /**
   * Called once the packs are sent, inside the last pack's attribution: a probe that confirms its
   * writes with a later read reads now, so what the read shows is judged on the packs.
   */
  settle?(): Promise<void>;
}

/**
 * The packs: each case in exactly one, no two cases of a pack sharing a part. First fit, the
 * cases that occupy most parts placed first (a case occupying every part goes alone); within a pack
 * the cases keep their order. With cases of one part each, there are as many packs as the part
 * with most cases has cases: the least any packing can do.
 */
export function coverCases<C>(cases: readonly C[], slots: (c: C) => readonly string[] | undefined): C[][] {
  const placed: { index: number; members: { c: C; i: number }[]; taken: Set<string> }[] = [];
  const alone: { c: C; i: number }[] = [];
  const items = cases.map((c, i) => ({ c, i, s: [...new Set(slots(c) ?? [])] }));
  const sorted = items.filter((x) => x.s.length > 0).sort((a, b) => b.s.length - a.s.length || a.i - b.i);
  for (const item of sorted) {
    let pack = placed.find((p) => item.s.every((s) => !p.taken.has(s)));
    if (pack === undefined) {
      pack = { index: item.i, members: [], taken: new Set() };
      placed.push(pack);
    }
    pack.members.push(item);
    for (const s of item.s) pack.taken.add(s);
    pack.index = Math.min(pack.index, item.i);
  }
  for (const item of items) if (item.s.length === 0) alone.push(item);
  // Packs in the order of their first case, so a run reads like the list of cases.
  const packs = [
    ...placed.map((p) => ({ index: p.index, members: p.members })),
    ...alone.map((a) => ({ index: a.i, members: [a] })),
  ].sort((a, b) => a.index - b.index);
  return packs.map((p) => p.members.sort((a, b) => a.i - b.i).map((m) => m.c));
}

/** What sending one input gave: whether anything was wrong with it (a violation, or none). */
export type PackVerdict = 'failed' | 'passed';

/**
 * Splits a pack that failed, down to the single cases that fail alone: each half is sent on its
 * own (`send`, merged where it holds more than one case), and only a half that fails is split
 * further. `alone` receives each single case's own sending. Returns how many requests the split
 * sent. A half that passes passes all its cases (each is given no violation by the caller).
 */
export async function splitPack<C>(
  pack: readonly C[],
  send: (cases: readonly C[]) => Promise<PackVerdict>,
): Promise<number> {
  let sent = 0;
  const split = async (part: readonly C[]): Promise<void> => {
    if (part.length <= 1) return;
    const mid = Math.ceil(part.length / 2);
    for (const half of [part.slice(0, mid), part.slice(mid)]) {
      sent++;
      if ((await send(half)) === 'failed') await split(half);
    }
  };
  await split(pack);
  return sent;
}
