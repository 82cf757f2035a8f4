/**
 * The accepted PATCHes of every counterparty the judge remembers (engine/judge.ts), for the pair
 * oracles: what a write to one counterparty sent must not show in another's reads
 * (oracles/write-isolation.ts gets the writes that ran between two reads of a counterparty).
 */
import type { Exchange } from '../exchange/exchange.ts';
import { endOf } from './judge-states.ts';

/** How many accepted PATCHes (of all counterparties) are remembered: a read pair spans a few. */
const WRITES_KEPT = 256;

export class RecentWrites {
  /** The latest accepted PATCHes, in the order they completed, without their answers' bodies. */
  private readonly writes: { reference: string; patch: Exchange }[] = [];

  /** An accepted PATCH of `reference`: what was sent is what the pair oracles need. */
  add(reference: string, patch: Exchange): void {
    this.writes.push({ reference, patch: { ...patch, body: undefined, text: '' } });
    if (this.writes.length > WRITES_KEPT) this.writes.shift();
  }

  /** The accepted PATCHes of other counterparties that ran between two reads of `reference`. */
  between(reference: string, first: Exchange, later: Exchange): Exchange[] {
    return this.writes
      .filter(
        (w) =>
          w.reference !== reference && endOf(w.patch) > first.startedAt && w.patch.startedAt < endOf(later),
      )
      .map((w) => w.patch);
  }
}
