/**
 * The run's log of exchanges, in the order they completed. Whatever sends a request appends
 * its exchange here; listeners (the judge of engine/judge.ts) see each one as it is appended.
 * One log per process: the Playwright workers of a run each keep their own.
 */
import type { Exchange } from './exchange.ts';

export type ExchangeListener = (exchange: Exchange) => void;

export class ExchangeLog {
  private readonly entries: Exchange[] = [];
  private readonly listeners: ExchangeListener[] = [];

  /** Appends an exchange (its id is assigned here) and tells every listener. */
  append(exchange: Omit<Exchange, 'id'>): Exchange {
    const ex: Exchange = { ...exchange, id: this.entries.length + 1 };
    this.entries.push(ex);
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

  get all(): readonly Exchange[] {
    return this.entries;
  }

  get size(): number {
    return this.entries.length;
  }
}
