/**
 * Several explicit cases in one request: a covering design. Explicit cases that each occupy a part
 * of the input no other case of theirs touches (a field of a patch body: the holder name at its
 * longest, the email at its shortest, an address line with every allowed symbol), or give it the
 * same value, are packed side by side, so that every case is still sent and judged, in as few
 * requests as the part with the most distinct values allows. A pack whose request shows nothing wrong passes every case in it. A pack that
 * shows something (the probe's own verdict, or an oracle's on the request or on a read that
 * confirms it) is split in halves, each sent on its own, down to the single cases that show it
 * alone: those are the cases the property then reports, shrinks and replays like any other.
 *
 * Pure planning (coverCases) and the splitting of one failed pack (splitPack) live here; the
 * property runner (engine/property.ts) sends the packs and hands each case its result.
 */

/** A part present with any value: one case of the pack gives it its value (see CasePacking.valueAt). */
export const ANY_VALUE: unique symbol = Symbol('any value');
/** A part left out: no case of the pack may give it a value. */
export const NO_VALUE: unique symbol = Symbol('no value');
/** What a case gives one of its parts: a canonical value, or one of the two markers. */
export type PackValue = string | typeof ANY_VALUE | typeof NO_VALUE;

/** How the explicit cases of a property may share one request. */
export interface CasePacking<C> {
  /**
   * The parts of the input a case occupies (for a patch body, its fields, an address's sub-fields
   * each on its own): cases with no part in common may share a request. Undefined or empty: the
   * case goes alone.
   */
  slots(c: C): readonly string[] | undefined;
  /**
   * The value a case gives one of its parts, canonical: two cases that give a part the same value
   * may share a request (sending it once sends it for both). Undefined: no part is shared.
   * ANY_VALUE: the case needs the part present, whatever its value, so one other case may give it
   * its value (a covering row that fixes which fields a patch carries, not their strings).
   * NO_VALUE: the case needs the part left out, so no other case may give it one.
   */
  valueAt?(c: C, slot: string): PackValue;
  /** One input carrying every one of `cases` (which occupy different parts). */
  merge(cases: readonly C[]): C;
  /**
   * Called once the packs are sent, inside the last pack's attribution: a probe that confirms its
   * writes with a later read reads now, so what the read shows is judged on the packs.
   */
  settle?(): Promise<void>;
}

/**
 * The packs: each case in exactly one, no two cases of a pack giving a part different values (with
 * no `valueAt`, no two sharing a part at all). First fit, the cases that occupy most parts placed
 * first (a case occupying every part goes alone), each in the pack where most of its parts already
 * hold its values; within a pack the cases keep their order. With cases of one part each, there
 * are as many packs as the part with most distinct values has values: the least any packing can do.
 */
export function coverCases<C>(
  cases: readonly C[],
  slots: (c: C) => readonly string[] | undefined,
  valueAt?: (c: C, slot: string) => PackValue,
): C[][] {
  const placed: {
    index: number;
    members: { c: C; i: number }[];
    taken: Map<string, PackValue | undefined>;
  }[] = [];
  const alone: { c: C; i: number }[] = [];
  const items = cases.map((c, i) => ({ c, i, s: [...new Set(slots(c) ?? [])] }));
  const sorted = items.filter((x) => x.s.length > 0).sort((a, b) => b.s.length - a.s.length || a.i - b.i);
  for (const item of sorted) {
    const values = item.s.map((s) => valueAt?.(item.c, s));
    let pack: (typeof placed)[number] | undefined;
    let best = -1;
    for (const p of placed) {
      let shared = 0;
      const fits = item.s.every((s, k) => {
        if (!p.taken.has(s)) return true;
        const v = p.taken.get(s);
        const mine = values[k];
        if (v === undefined || mine === undefined) return false;
        // A part left open takes one value; a part left out takes none.
        if (v === ANY_VALUE) return mine !== NO_VALUE;
        if (mine === ANY_VALUE) return v !== NO_VALUE;
        if (v !== mine) return false;
        shared++;
        return true;
      });
      if (fits && shared > best) {
        pack = p;
        best = shared;
        if (shared === item.s.length) break;
      }
    }
    if (pack === undefined) {
      pack = { index: item.i, members: [], taken: new Map() };
      placed.push(pack);
    }
    pack.members.push(item);
    item.s.forEach((s, k) => {
      if (!pack.taken.has(s) || pack.taken.get(s) === ANY_VALUE) pack.taken.set(s, values[k]);
    });
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
