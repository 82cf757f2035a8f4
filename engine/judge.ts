/**
 * The judge: hands every exchange of a log to every oracle that applies to it, and assembles
 * the sequences the sequence oracles judge (a PATCH with the reads around it, two reads of one
 * counterparty). It is fed exchanges in the order they completed, from the suite's own client,
 * a HAR file or a proxy alike, and returns what the oracles found; where the judgements go is
 * the caller's business (engine/run.ts, the validator).
 */
import { is2xx, type Exchange } from '../exchange/exchange.ts';
import { route as routeOf } from '../exchange/route.ts';
import { ORACLES } from '../oracles/index.ts';
import type { Judgement, Oracle, PatchSequence } from '../oracles/types.ts';

export interface OracleJudgement {
  oracle: string;
  judgement: Judgement;
}

interface CounterpartyState {
  /** The last successful read, since the last PATCH. */
  lastRead: Exchange | undefined;
  /** A PATCH waiting for the read after it. */
  pending: { before: Exchange | undefined; patch: Exchange } | undefined;
}

export class Judge {
  private readonly states = new Map<string, CounterpartyState>();

  constructor(
    private readonly oracles: readonly Oracle[] = ORACLES,
    /** The path of the base URL, where the interface's paths start ('' for a bare origin). */
    private readonly basePath = '',
  ) {}

  /** Judges one exchange, and any sequence it completes. */
  judge(ex: Exchange): OracleJudgement[] {
    const { route, inInterface } = routeOf(ex.request.method, ex.request.url, this.basePath);
    const routed = { exchange: ex, route, inInterface };
    const out: OracleJudgement[] = [];
    for (const o of this.oracles) {
      if (o.kind !== 'exchange') continue;
      for (const judgement of o.judge(routed)) out.push({ oracle: o.id, judgement });
    }
    if (route?.kind !== 'operation') return out;
    const op = route.operation.operationId;
    const reference = route.params.counterpartyReference;
    if ((op !== 'getCounterparty' && op !== 'patchCounterparty') || reference === undefined) return out;
    if (reference.includes('/')) return out;
    const state = this.states.get(reference) ?? { lastRead: undefined, pending: undefined };
    this.states.set(reference, state);
    if (op === 'getCounterparty') {
      if (!is2xx(ex.status) || ex.body === null || typeof ex.body !== 'object') return out;
      if (state.pending) {
        out.push(...this.sequence({ reference, ...state.pending, after: ex }));
        state.pending = undefined;
      } else if (state.lastRead) {
        out.push(...this.pair(reference, state.lastRead, ex));
      }
      state.lastRead = ex;
      return out;
    }
    // A PATCH: the one before it, if no read came after it, is judged without one.
    if (state.pending) out.push(...this.sequence({ reference, ...state.pending, after: undefined }));
    state.pending = ex.status > 0 ? { before: state.lastRead, patch: ex } : undefined;
    state.lastRead = undefined;
    return out;
  }

  /** Judges the PATCHes still waiting for a read after them, without one. */
  flush(): OracleJudgement[] {
    const out: OracleJudgement[] = [];
    for (const [reference, state] of this.states) {
      if (!state.pending) continue;
      out.push(...this.sequence({ reference, ...state.pending, after: undefined }));
      state.pending = undefined;
    }
    return out;
  }

  private sequence(s: PatchSequence): OracleJudgement[] {
    const out: OracleJudgement[] = [];
    for (const o of this.oracles) {
      if (o.kind !== 'patch') continue;
      for (const judgement of o.judge(s)) out.push({ oracle: o.id, judgement });
    }
    return out;
  }

  private pair(reference: string, first: Exchange, later: Exchange): OracleJudgement[] {
    const out: OracleJudgement[] = [];
    for (const o of this.oracles) {
      if (o.kind !== 'pair') continue;
      for (const judgement of o.judge({ reference, first, later })) out.push({ oracle: o.id, judgement });
    }
    return out;
  }
}
