/**
 * The run's log of exchanges, in the order they completed: what a worker attaches of each check
 * (suite/define.ts), for the run's exchanges.har and its coverage. One log per process: the
 * Playwright workers of a run each keep their own. The run appends to it where it records an
 * exchange (RunContext.record, engine/run.ts), and judges the exchange there, beside it.
 *
 * The caller gets the exchange whole; the log keeps it within its budget of bodies
 * (exchange/kept.ts), so that a process's memory stays bounded whatever the target answers.
 */
import type { Exchange } from './exchange.ts';
import { BodyBudget, keptExchange } from './kept.ts';

export class ExchangeLog {
  private readonly entries: Exchange[] = [];

  constructor(
    /** What the log keeps of the bodies: by default the whole budget of a run. */
    private readonly budget: BodyBudget = new BodyBudget(),
  ) {}

  /** Appends an exchange (its id is assigned here) and returns it whole. */
  append(exchange: Omit<Exchange, 'id'>): Exchange {
    const ex: Exchange = { ...exchange, id: this.entries.length + 1 };
    this.entries.push(keptExchange(ex, this.budget));
    return ex;
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
