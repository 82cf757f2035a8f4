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
 * `key` names equivalent cases: only the first of each key is sent.
 */
export async function sendInBatches<C>(
  cases: readonly C[],
  size: number,
  key: (c: C) => string,
  io: BatchIo<C>,
): Promise<BatchResult<C>> {
  const seen = new Set<string>();
  const unique = cases.filter((c) => {
    const k = key(c);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
  const result: BatchResult<C> = { changed: [], batches: 0, duplicates: cases.length - unique.length };
  const bisect = async (part: C[]): Promise<void> => {
    if (part.length === 1) {
      result.changed.push(part[0]!);
      return;
    }
    const mid = Math.ceil(part.length / 2);
    for (const half of [part.slice(0, mid), part.slice(mid)]) {
      result.batches++;
      if (await io.send(half, true)) {
        await io.restore();
        await bisect(half);
      }
    }
  };
  for (const batch of chunks(unique, size)) {
    result.batches++;
    if (await io.send(batch, false)) {
      await io.restore();
      await bisect(batch);
    }
  }
  return result;
}
