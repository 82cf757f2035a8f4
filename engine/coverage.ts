/**
 * Interface coverage: for each operation of spec/openapi.yaml, how many exchanges of the traffic
 * called it, and how many exchanges fell below /api/v1/ without calling an operation, or outside
 * the interface. With the number of judgements per requirement (the verdicts' `judged`), it says
 * how much of the interface a run, a HAR file or a proxy session actually exercised: the statuses
 * each operation answered, and what the requests tried of each field (engine/fields-tried.ts).
 */
import type { Exchange } from '../exchange/exchange.ts';
import { route } from '../exchange/route.ts';
import { spec } from '../spec/index.ts';
import { FieldsCounter, type FieldTried } from './fields-tried.ts';

export interface OperationCoverage {
  operationId: string;
  method: string;
  path: string;
  /** Exchanges that called it, each judged by every exchange oracle that applies. */
  exchanges: number;
  /** Of those, the ones answered (status > 0). */
  answered: number;
  /** Every status seen, ascending, with how many exchanges got it (0: no answer). */
  statuses: { status: number; count: number }[];
}

export interface Coverage {
  operations: OperationCoverage[];
  /**
   * What the requests tried of each field (engine/fields-tried.ts): the path and query
   * parameters, the PATCH counterparty body's fields; absent in a record written before it.
   */
  fields?: FieldTried[];
  /** Exchanges below /api/v1/ that call no operation (an unknown path or method): judged too. */
  unmatched: number;
  /** Exchanges outside the interface: counted, not judged. */
  outside: number;
}

/** Counts exchanges per operation. */
export class CoverageCounter {
  private readonly counts = new Map<
    string,
    { exchanges: number; answered: number; statuses: Map<number, number> }
  >();
  private readonly fields: FieldsCounter;
  private unmatched = 0;
  private outside = 0;

  constructor(private readonly basePath = '') {
    this.fields = new FieldsCounter(basePath);
  }

  /** One exchange: its operation and status, and what its request tried of each field. */
  add(ex: Pick<Exchange, 'request' | 'status'>): void {
    const r = route(ex.request.method, ex.request.url, this.basePath);
    if (!r.inInterface) {
      this.outside++;
      return;
    }
    this.fields.add(ex);
    if (r.route === undefined) {
      this.unmatched++;
      return;
    }
    const id = r.route.operation.operationId;
    const c = this.counts.get(id) ?? { exchanges: 0, answered: 0, statuses: new Map<number, number>() };
    c.exchanges++;
    if (ex.status > 0) c.answered++;
    c.statuses.set(ex.status, (c.statuses.get(ex.status) ?? 0) + 1);
    this.counts.set(id, c);
  }

  /** An exchange outside the interface, whatever its URL. */
  addOutside(): void {
    this.outside++;
  }

  coverage(): Coverage {
    return {
      operations: spec()
        .operations()
        .map((op) => ({
          operationId: op.operationId,
          method: op.method,
          path: op.path,
          exchanges: this.counts.get(op.operationId)?.exchanges ?? 0,
          answered: this.counts.get(op.operationId)?.answered ?? 0,
          statuses: [...(this.counts.get(op.operationId)?.statuses ?? [])]
            .sort(([a], [b]) => a - b)
            .map(([status, count]) => ({ status, count })),
        })),
      fields: this.fields.fields(),
      unmatched: this.unmatched,
      outside: this.outside,
    };
  }
}

/** The coverage of a list of exchanges. */
export function coverageOf(
  exchanges: readonly Pick<Exchange, 'request' | 'status'>[],
  basePath = '',
): Coverage {
  const counter = new CoverageCounter(basePath);
  for (const ex of exchanges) counter.add(ex);
  return counter.coverage();
}
