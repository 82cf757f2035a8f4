/**
 * A pairwise (strength-2) covering array: rows of one value per factor such that every pair of
 * values of any two factors that some allowed row holds is held by at least one row. The cases
 * of a body whose fields are enumerated or finite (an account's category, currency, country; which
 * detail fields a patch carries) are built from it, so that every pair of values is sent whatever
 * the seed, where random cases would pair them by luck.
 *
 * Why not a library: covertable 2.5.2 (the release on npm, Apache-2.0) leaves feasible pairs
 * uncovered once a filter forbids some rows (69 of the account factors' pairs, with the SORT/GBP
 * and ROUTING/USD relations as its preFilter), and the other generators on npm are a WebAssembly
 * build of PICT or unmaintained. The factors here are small (a few hundred to a few thousand
 * allowed rows), so the plain greedy of set cover does: list every allowed row once, then take,
 * again and again, the row that covers the most pairs not yet covered (the first such row in the
 * listing, so the array is the same on every run), until every pair an allowed row holds is
 * covered. Greedy set cover is within a factor ln(pairs) of the fewest rows; here it takes 9 rows
 * for four factors of 3 (the fewest there are), 152 accounts for unpinned fixtures (the lower
 * bound, the product of the two largest factors) and 7 rows for the seven fields of a details
 * patch, present or not (6 are known to do) (tests/self/covering-array.spec.ts). Its rows come in the order taken: each covers at least as
 * many new pairs as any later one, so a prefix cut by a budget keeps the rows that cover most.
 */

/** One factor: a name and its values (compared with ===). */
export interface Factor<V> {
  readonly name: string;
  readonly values: readonly V[];
}

/** The most rows the product of the factors may have before the listing refuses to run. */
export const MAX_CANDIDATE_ROWS = 200_000;

export interface CoveringOptions<V> {
  /** Whether a whole row (one value per factor, in the factors' order) may be sent; default: all. */
  allowed?: (row: readonly V[]) => boolean;
}

export interface CoveringArray<V> {
  /** The rows, one value per factor in the factors' order, in the order the greedy took them. */
  rows: V[][];
  /** How many pairs the allowed rows hold (all covered by `rows`). */
  pairs: number;
  /** For each row, how many pairs it covered first (non-increasing). */
  newPairs: number[];
}

/** Every row of the factors' product, as indices of values, in odometer order (last factor fastest). */
function product(sizes: readonly number[]): number[][] {
  const total = sizes.reduce((n, s) => n * s, 1);
  if (total > MAX_CANDIDATE_ROWS)
    throw new RangeError(`covering array: ${total} candidate rows, more than ${MAX_CANDIDATE_ROWS}`);
  if (sizes.some((s) => s === 0)) return [];
  const rows: number[][] = [];
  const row = sizes.map(() => 0);
  for (;;) {
    rows.push([...row]);
    let k = sizes.length - 1;
    while (k >= 0 && ++row[k]! === sizes[k]) row[k--] = 0;
    if (k < 0) return rows;
  }
}

/** Numbers each pair (factor a, value i, factor b > a, value j) densely. */
function pairIndexer(sizes: readonly number[]): { count: number; of: (row: readonly number[]) => number[] } {
  const offsets: number[][] = [];
  let count = 0;
  for (let a = 0; a < sizes.length; a++) {
    offsets.push([]);
    for (let b = a + 1; b < sizes.length; b++) {
      offsets[a]![b] = count;
      count += sizes[a]! * sizes[b]!;
    }
  }
  const of = (row: readonly number[]): number[] => {
    const out: number[] = [];
    for (let a = 0; a < row.length; a++)
      for (let b = a + 1; b < row.length; b++) out.push(offsets[a]![b]! + row[a]! * sizes[b]! + row[b]!);
    return out;
  };
  return { count, of };
}

/** The pairwise covering array of `factors` over the rows `options.allowed` lets through. */
export function coveringArray<V>(
  factors: readonly Factor<V>[],
  options: CoveringOptions<V> = {},
): CoveringArray<V> {
  const sizes = factors.map((f) => f.values.length);
  const valuesOf = (row: readonly number[]): V[] => row.map((v, k) => factors[k]!.values[v]!);
  const indexer = pairIndexer(sizes);
  const candidates = product(sizes)
    .filter((row) => options.allowed?.(valuesOf(row)) ?? true)
    .map((row) => ({ row, pairs: indexer.of(row) }));
  // 0: no allowed row holds the pair; 1: to cover; 2: covered.
  const state = new Uint8Array(indexer.count);
  for (const c of candidates) for (const p of c.pairs) state[p] = 1;
  let left = state.reduce((n, s) => n + s, 0);
  const pairs = left;
  const rows: V[][] = [];
  const newPairs: number[] = [];
  while (left > 0) {
    let best = -1;
    let bestCount = 0;
    for (const [i, c] of candidates.entries()) {
      let n = 0;
      for (const p of c.pairs) if (state[p] === 1) n++;
      if (n > bestCount) {
        best = i;
        bestCount = n;
      }
    }
    const chosen = candidates[best]!;
    for (const p of chosen.pairs) state[p] = 2;
    left -= bestCount;
    rows.push(valuesOf(chosen.row));
    newPairs.push(bestCount);
  }
  return { rows, pairs, newPairs };
}

/**
 * The pairs of values of two factors that `rows` hold, as `name=value name=value` (values as JSON),
 * for tests and notes.
 */
export function pairsOf<V>(factors: readonly Factor<V>[], rows: readonly (readonly V[])[]): Set<string> {
  const out = new Set<string>();
  for (const row of rows)
    for (let a = 0; a < factors.length; a++)
      for (let b = a + 1; b < factors.length; b++)
        out.add(
          `${factors[a]!.name}=${JSON.stringify(row[a])} ${factors[b]!.name}=${JSON.stringify(row[b])}`,
        );
  return out;
}
