/**
 * Requests kept in check: cases that must change nothing (refused PATCHes) are sent together in
 * batches, and the state is read once per batch. Only a batch after which the state changed is
 * taken apart: the state is restored, and each half sent again on its own, down to the single
 * cases that change it. Cases known to change it (a PATCH answered as accepted, which is reported
 * as such) are left out of the taking apart. Once CHANGED_CASES_BUDGET single cases are found,
 * later changed batches are restored but not taken apart: the first cases are what a report needs,
 * and bisection is sequential, so each resending costs round trips one after another. Equivalent
 * cases (the same key) are sent once.
 */

export interface BatchIo<C> {
  /** Sends the cases together and reads the state once after them: whether it changed. */
  send(cases: C[], resend: boolean): Promise<boolean>;
  /** Puts the state back as it was before (and reads it again). */
  restore(): Promise<void>;
  /** Whether a case, once sent, is known to have changed the state (it was accepted). */
  known?(c: C): boolean;
}

/** The single changing cases bisection looks for; later changed batches are not taken apart. */
export const CHANGED_CASES_BUDGET = 4;

/**
 * The resendings bisection may make before the batching stops: enough to find CHANGED_CASES_BUDGET
 * single changing cases, each in 2 × log2(size) resendings after a resending of the batch's
 * cases not known to change it, whatever the plan's size. A resending is its PATCHes, a read, and
 * when it changed the state a second read, a restore and the reads after it, some six round trips
 * one after another, so this bounds a run's time, not only its requests. A target where halves
 * change the state but the single cases in them do not (it changes on writes it refuses, or on
 * its own, in a way bisection cannot take apart) spends it: a storm. So the budget is counted in
 * resendings, 84 for batches of 1024 (68 for 256): a plan's batch taken apart in full
 * (2 × (size − 1) resendings) would be some 1700, hours at 150 ms a request.
 */
export function bisectionBudget(size: number): number {
  const depth = Math.max(1, Math.ceil(Math.log2(Math.max(2, size))));
  return CHANGED_CASES_BUDGET * (2 * depth + 1);
}

/** The batching stopped: bisection spent its resendings without finding the cases that change the state. */
export class BisectionStorm extends Error {
  constructor(
    readonly changedBatches: number,
    readonly batches: number,
    readonly planned: number,
    readonly budget: number,
  ) {
    super(
      `bisection storm: ${changedBatches} of the first ${batches} batch(es) (of ${planned} planned) changed the state although every case must change nothing; the ${budget} resendings bisection may make to take them apart are spent, and fewer than ${CHANGED_CASES_BUDGET} single cases change it alone, so the probe stops (the target changes on writes it refuses, or on its own)`,
    );
    this.name = 'BisectionStorm';
  }
}

export interface BatchResult<C> {
  /** The single cases after which, sent alone, the state had changed (at most CHANGED_CASES_BUDGET). */
  changed: C[];
  /** Batches sent (the first sending and each resending of a part). */
  batches: number;
  /** Cases left out as equivalent to one sent already. */
  duplicates: number;
  /** Batches that changed the state, the cases known to change it aside. */
  changedBatches: number;
  /** Of them, batches restored but not taken apart: CHANGED_CASES_BUDGET cases were found before. */
  notTakenApart: number;
  /** The cases of every batch or part after which the state was read unchanged. */
  cleared: C[];
}

/** Splits `items` into consecutive chunks of at most `size`. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += Math.max(1, size)) out.push(items.slice(i, i + Math.max(1, size)));
  return out;
}

/**
 * Sends `cases` in batches of `size` through `io`; takes apart each batch that changed the state,
 * its cases known to change it aside, until CHANGED_CASES_BUDGET single cases are found. `key`
 * names equivalent cases: only the first of each key is sent. Bisection has a budget of
 * resendings (bisectionBudget, or `budget`): past it, BisectionStorm is thrown and nothing more
 * is sent.
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
  const result: BatchResult<C> = {
    changed: [],
    batches: 0,
    duplicates: cases.length - unique.length,
    changedBatches: 0,
    notTakenApart: 0,
    cleared: [],
  };
  const planned = chunks(unique, size);
  const allowed = budget ?? bisectionBudget(size);
  let resent = 0;
  let sent = 0;
  const enough = (): boolean => result.changed.length >= CHANGED_CASES_BUDGET;
  /** Sends a part again; restores after it when it changed the state. */
  const resend = async (part: C[]): Promise<boolean> => {
    if (++resent > allowed) throw new BisectionStorm(result.changedBatches, sent, planned.length, allowed);
    result.batches++;
    const changed = await io.send(part, true);
    if (changed) await io.restore();
    else result.cleared.push(...part);
    return changed;
  };
  const bisect = async (part: C[]): Promise<void> => {
    if (part.length === 1) {
      result.changed.push(part[0]!);
      return;
    }
    const mid = Math.ceil(part.length / 2);
    for (const half of [part.slice(0, mid), part.slice(mid)]) {
      if (enough()) return;
      if (await resend(half)) await bisect(half);
    }
  };
  for (const batch of planned) {
    result.batches++;
    sent++;
    if (!(await io.send(batch, false))) {
      result.cleared.push(...batch);
      continue;
    }
    await io.restore();
    const suspects = io.known ? batch.filter((c) => !io.known!(c)) : batch;
    // Cases answered as accepted explain a change: only the others are taken apart, and only if,
    // sent again without them, they change the state too.
    if (suspects.length === 0) continue;
    if (enough()) {
      if (suspects.length === batch.length) {
        result.changedBatches++;
        result.notTakenApart++;
      }
      continue;
    }
    if (suspects.length < batch.length && !(await resend(suspects))) continue;
    result.changedBatches++;
    await bisect(suspects);
  }
  return result;
}
