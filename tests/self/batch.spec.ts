/** The batching of cases that must change nothing (engine/batch.ts): one read per batch, bisection only on a change. */
import { expect, test } from '@playwright/test';
import { chunks, sendInBatches } from '../../engine/batch.ts';

/** A fake target: `bad` cases change the state when sent; counts what is sent and read. */
function target(bad: readonly number[]) {
  let state = 0;
  const log = { sends: [] as number[][], reads: 0, restores: 0 };
  return {
    log,
    io: {
      send: async (cases: number[]) => {
        log.sends.push(cases);
        for (const c of cases) if (bad.includes(c)) state++;
        log.reads++;
        return state !== 0;
      },
      restore: async () => {
        log.restores++;
        state = 0;
      },
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
  expect(r).toEqual({ changed: [], batches: 4, duplicates: 0, changedBatches: 0, notTakenApart: 0 });
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
