/**
 * Requests kept in check: cases that must change nothing (refused PATCHes) are sent together in
 * batches, and the state is read once per batch. Only a batch after which the state changed is
 * taken apart: the state is restored, and each half sent again on its own, down to the single
 * cases that change it. Equivalent cases (the same key) are sent once.
 */

export interface BatchIo<C> {
  /** Sends the cases together and reads the state once after them: whether it changed. */
  send(cases: C[], resend: boolean): Promise<boolean>;
  /** Puts the state back as it was before (and reads it again). */
  restore(): Promise<void>;
}

/**
 * The share of a plan's batches that bisection may take apart in full before the batching stops.
 * A conforming target changes nothing; a faulty one that lets a class of bodies through changes
 * a few batches, each taken apart to its changing cases (2 × (size − 1) sendings at most, each
 * with a read and a restore). A target where most batches change the state misbehaves in a way
 * bisection cannot take apart (a store that changes on every write): taking every batch apart
 * would cost some 64 sendings per batch planned, with a restore and a settle window each.
 */
export const BISECTED_SHARE = 1 / 4;

/** At least this many single changing cases can always be found (4, of log2(size) levels each). */
export const CHANGED_CASES_BUDGET = 4;

/**
 * The bisection sendings the plan allows: every batch of a quarter of the plan's taken apart in
 * full, and at least CHANGED_CASES_BUDGET single cases found. The cost of a run stays of the
 * order of its plan: at most about 2 × size × BISECTED_SHARE sendings per batch planned.
 */
export function bisectionBudget(batches: number, size: number): number {
  const depth = Math.max(1, Math.ceil(Math.log2(Math.max(2, size))));
  return Math.max(
    CHANGED_CASES_BUDGET * 2 * depth,
    2 * (Math.max(2, size) - 1) * Math.ceil(batches * BISECTED_SHARE),
  );
}

/** The batching stopped: more batches changed the state than its plan allows to take apart. */
export class BisectionStorm extends Error {
  constructor(
    readonly changedBatches: number,
    readonly batches: number,
    readonly planned: number,
    readonly budget: number,
  ) {
    super(
      `bisection storm: ${changedBatches} of the first ${batches} batch(es) (of ${planned} planned) changed the state although every case must change nothing; the ${budget} resendings the plan allows to take them apart are spent, so the probe stops (the target changes on writes it refuses, or on its own)`,
    );
    this.name = 'BisectionStorm';
  }
}

export interface BatchResult<C> {
  /** The single cases after which, sent alone, the state had changed. */
  changed: C[];
  /** Batches sent (the first sending and each resending of a part). */
  batches: number;
  /** Cases left out as equivalent to one sent already. */
  duplicates: number;
}

/** Splits `items` into consecutive chunks of at most `size`. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += Math.max(1, size)) out.push(items.slice(i, i + Math.max(1, size)));
  return out;
}

/**
 * Sends `cases` in batches of `size` through `io`; bisects every batch that changed the state.
 * `key` names equivalent cases: only the first of each key is sent. Bisection has a budget of
 * resendings derived from the plan (bisectionBudget, or `budget`): past it, BisectionStorm is
 * thrown and nothing more is sent.
 */
export async function sendInBatches<C>(
  cases: readonly C[],
  size: number,
  key: (c: C) => string,
  io: BatchIo<C>,
  budget?: number,
): Promise<BatchResult<C>> {
  const seen = new Set<string>();
  const unique = cases.filter((c) => {
    const k = key(c);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  const result: BatchResult<C> = { changed: [], batches: 0, duplicates: cases.length - unique.length };
  const planned = chunks(unique, size);
  const allowed = budget ?? bisectionBudget(planned.length, size);
  let resent = 0;
  let changedBatches = 0;
  let sent = 0;
  const bisect = async (part: C[]): Promise<void> => {
    if (part.length === 1) {
      result.changed.push(part[0]!);
      return;
    }
    const mid = Math.ceil(part.length / 2);
    for (const half of [part.slice(0, mid), part.slice(mid)]) {
      if (++resent > allowed) throw new BisectionStorm(changedBatches, sent, planned.length, allowed);
      result.batches++;
      if (await io.send(half, true)) {
        await io.restore();
        await bisect(half);
      }
    }
  };
  for (const batch of planned) {
    result.batches++;
    sent++;
    if (await io.send(batch, false)) {
      changedBatches++;
      await io.restore();
      await bisect(batch);
    }
  }
  return result;
}
