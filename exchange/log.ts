/**
 * The run's log of exchanges, in the order they completed. Whatever sends a request appends
 * its exchange here; listeners (the judge of engine/judge.ts) see each one as it is appended.
 * One log per process: the Playwright workers of a run each keep their own.
 *
 * Listeners and the sender get the exchange whole; the log keeps it within its budget of bodies
 * (exchange/kept.ts), so that a process's memory stays bounded whatever the target answers.
 */
import type { Exchange } from './exchange.ts';
import { BodyBudget, keptExchange } from './kept.ts';

export type ExchangeListener = (exchange: Exchange) => void;

export class ExchangeLog {
  private readonly entries: Exchange[] = [];
  private readonly listeners: ExchangeListener[] = [];

  constructor(
    /** What the log keeps of the bodies: by default the whole budget of a run. */
    private readonly budget: BodyBudget = new BodyBudget(),
  ) {}

  /** Appends an exchange (its id is assigned here), tells every listener, and returns it whole. */
  append(exchange: Omit<Exchange, 'id'>): Exchange {
    const ex: Exchange = { ...exchange, id: this.entries.length + 1 };
    this.entries.push(keptExchange(ex, this.budget));
    for (const listener of this.listeners) listener(ex);
    return ex;
  }

  /** Calls `listener` with every exchange appended from now on. */
  subscribe(listener: ExchangeListener): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  /** Every exchange, as kept: a body past the budget as its head (`textCut`, `request.bodyCut`). */
  get all(): readonly Exchange[] {
    return this.entries;
  }

  get size(): number {
    return this.entries.length;
  }

  /** Bodies kept in part so far. */
  get cut(): number {
    return this.budget.cut;
  }
}
