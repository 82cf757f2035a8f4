/** The batching of cases that must change nothing (engine/batch.ts): one read per batch, bisection only on a change. */
import { expect, test } from '@playwright/test';
import { chunks, sendInBatches } from '../../engine/batch.ts';

/**
 * A fake target: `bad` cases change the state when sent; counts what is sent and read. `known`
 * are cases the batching is told changed it (answered as accepted).
 */
function target(bad: readonly number[], known: readonly number[] = []) {
  let state = 0;
  const log = { sends: [] as number[][], resent: [] as number[][], reads: 0, restores: 0 };
  return {
    log,
    io: {
      send: async (cases: number[], resend: boolean) => {
        log.sends.push(cases);
        if (resend) log.resent.push(cases);
        for (const c of cases) if (bad.includes(c)) state++;
        log.reads++;
        return state !== 0;
      },
      restore: async () => {
        log.restores++;
        state = 0;
      },
      known: (c: number) => known.includes(c),
    },
  };
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

test('chunks: consecutive, at most the size, nothing lost', () => {
  expect(chunks(range(7), 3)).toEqual([[0, 1, 2], [3, 4, 5], [6]]);
  expect(chunks([], 3)).toEqual([]);
});

test('a target that changes nothing: one send and one read per batch, no restore', async () => {
  const { io, log } = target([]);
  const r = await sendInBatches(range(100), 32, String, io);
  expect(r).toEqual({
    changed: [],
    batches: 4,
    duplicates: 0,
    changedBatches: 0,
    notTakenApart: 0,
    cleared: range(100),
  });
  expect(log.reads).toBe(4);
  expect(log.restores).toBe(0);
  expect(log.sends.flat()).toEqual(range(100));
});

test('one case that changes the state is found by bisection, in log2 of the batch', async () => {
  const { io, log } = target([37]);
  const r = await sendInBatches(range(64), 32, String, io);
  expect(r.changed).toEqual([37]);
  // 2 batches, then 2 halves per level for 5 levels below 32
  expect(r.batches).toBe(2 + 2 * 5);
  expect(log.sends.filter((s) => s.includes(37)).map((s) => s.length)).toEqual([32, 16, 8, 4, 2, 1]);
  // Every other case was in a batch or a part read unchanged.
  expect([...r.cleared].sort((a, b) => a - b)).toEqual(range(64).filter((c) => c !== 37));
});

test('several changing cases in one batch and in others: each found, no other (up to four)', async () => {
  const { io } = target([0, 5, 6, 40]);
  const r = await sendInBatches(range(48), 16, String, io);
  expect([...r.changed].sort((a, b) => a - b)).toEqual([0, 5, 6, 40]);
  expect(r.changedBatches).toBe(2);
});

test('equivalent cases are sent once', async () => {
  const { io, log } = target([]);
  const r = await sendInBatches([1, 2, 1, 3, 2], 10, String, io);
  expect(r.duplicates).toBe(2);
  expect(log.sends).toEqual([[1, 2, 3]]);
});

test('cases known to change the state (answered as accepted) are not taken apart', async () => {
  const accepted = [5, 40, 41, 300];
  const { io, log } = target([...accepted, 301], accepted);
  const r = await sendInBatches(range(700), 32, String, io);
  expect(r.changed).toEqual([301]);
  const resent = log.resent;
  // Batches 0 and 1 changed only by accepted cases: each sent again once without them, never split.
  expect(resent.filter((b) => accepted.some((c) => b.includes(c)))).toEqual([]);
  expect(resent.filter((b) => b.length === 31 && b[0] === 0)).toHaveLength(1);
  expect(r.changedBatches).toBe(1);
});

test('past four single cases, a changed batch is restored and not taken apart', async () => {
  const { io, log } = target([3, 4, 5, 6, 7, 200]);
  const r = await sendInBatches(range(700), 32, String, io);
  expect(r.changed).toEqual([3, 4, 5, 6]);
  expect(r.changedBatches).toBe(2);
  expect(r.notTakenApart).toBe(1);
  // The batch holding 200 was restored after its first sending, and never sent in parts.
  expect(log.sends.filter((b) => b.includes(200))).toHaveLength(1);
  // Its cases are not known to change nothing: none is cleared.
  expect(r.cleared.filter((c) => c >= 192 && c < 224)).toEqual([]);
});
