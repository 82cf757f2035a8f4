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

/** A PATCH that was answered and not accepted. */
const refused = (ex: Exchange): boolean => ex.status > 0 && !is2xx(ex.status);

export interface OracleJudgement {
  oracle: string;
  judgement: Judgement;
}

interface CounterpartyState {
  /** The last successful read, since the last PATCH. */
  lastRead: Exchange | undefined;
  /**
   * The PATCHes waiting for the read after them: one, or a batch of refused ones sent together
   * (concurrently, or one after another with no read between) after the same read.
   */
  pending: { before: Exchange | undefined; patches: Exchange[] } | undefined;
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
        out.push(...this.settle(reference, state.pending, ex));
        state.pending = undefined;
      } else if (state.lastRead) {
        out.push(...this.pair(reference, state.lastRead, ex));
      }
      state.lastRead = ex;
      return out;
    }
    // A refused PATCH after refused ones joins their batch: none of them changed anything, so
    // the read before the first is the read before each, and the read after the last the read
    // after each.
    if (state.pending && refused(ex) && state.pending.patches.every(refused)) {
      state.pending.patches.push(ex);
      return out;
    }
    // A PATCH: the one before it, if no read came after it, is judged without one.
    if (state.pending) out.push(...this.settle(reference, state.pending, undefined));
    state.pending = ex.status > 0 ? { before: state.lastRead, patches: [ex] } : undefined;
    state.lastRead = undefined;
    return out;
  }

  /** Judges the pending PATCHes of a counterparty with the read after them (or none). */
  private settle(
    reference: string,
    pending: { before: Exchange | undefined; patches: Exchange[] },
    after: Exchange | undefined,
  ): OracleJudgement[] {
    const { before, patches } = pending;
    return patches.flatMap((patch) =>
      this.sequence({
        reference,
        before,
        patch,
        after,
        ...(patches.length > 1 ? { batch: patches.filter((p) => p !== patch) } : {}),
      }),
    );
  }

  /** Judges the PATCHes still waiting for a read after them, without one. */
  flush(): OracleJudgement[] {
    const out: OracleJudgement[] = [];
    for (const [reference, state] of this.states) {
      if (!state.pending) continue;
      out.push(...this.settle(reference, state.pending, undefined));
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
