/**
 * The judge: hands every exchange of a log to every oracle that applies to it, and assembles
 * the sequences the sequence oracles judge (a PATCH with the reads around it, two reads of one
 * counterparty, a HEAD or a 304 of one with the latest answer that carried it). It is fed
 * exchanges in the order they completed, from the suite's own client, a HAR file or a proxy alike,
 * and returns what the oracles found; where the judgements go is the caller's business
 * (engine/run.ts, the validator).
 */
import { is2xx, type Exchange } from '../exchange/exchange.ts';
import { route as routeOf } from '../exchange/route.ts';
import { ORACLES } from '../oracles/index.ts';
import { comparable, differences, isObj, without } from '../oracles/compare.ts';
import { modelled } from '../oracles/modelled.ts';
import type { MetadataAnswer, Oracle, PatchSequence } from '../oracles/types.ts';
import { breaksMust } from '../requests/index.ts';
import { own } from '../exchange/own.ts';
import {
  type Chain,
  concurrentGroups,
  type CounterpartyState,
  endOf,
  type RefusedGroup,
  type RefusedAround,
  refusedFields,
  refusedShows,
  requestDetails,
  sentDetails,
  showsState,
  withFieldsOf,
} from './judge-states.ts';
import { registered } from '../spec/operations.ts';
import { RecentWrites } from './judge-writes.ts';
import { judgePair, judgeSequence, type OracleJudgement } from './judge-dispatch.ts';

/** A PATCH that was answered and not accepted. */
const refused = (ex: Exchange): boolean => ex.status > 0 && !is2xx(ex.status);

export type { OracleJudgement };

/**
 * Settling: a service may serve reads from a replica that trails its writes. An accepted PATCH
 * (the last of a chain) is judged with the first later read that shows it within `settleMs` of its
 * answer, else with the last read before the next PATCH (or the first read after the window). A
 * refused PATCH is judged with the first later read that differs from the state before it, else
 * with the first read after the window, else with the last read before the next accepted PATCH:
 * a change it made that appears late is still found, and a stale read does not blame it for an
 * earlier accepted change appearing late. With `settleMs` 0 every PATCH is judged with the first
 * read after it.
 */
export class Judge {
  private readonly states = new Map<string, CounterpartyState>();
  /** The latest accepted PATCHes of every counterparty, for the pair oracles. */
  private readonly writes = new RecentWrites();
  /**
   * Accepted PATCHes whose request breaks a MUST rule of the request model: what they do to the
   * state is not settled (request-body reports them), so a group they overlap is not judged whole.
   */
  private readonly acceptedInvalid = new WeakSet<Exchange>();

  constructor(
    private readonly oracles: readonly Oracle[] = ORACLES,
    /** The path of the base URL, where the interface's paths start ('' for a bare origin). */
    private readonly basePath = '',
    /** How long a read may trail an accepted write (CONFORMANCE_SETTLE_MS); 0: not at all. */
    private readonly settleMs = 0,
  ) {}

  /** Judges one exchange, and any sequence it completes. */
  judge(ex: Exchange): OracleJudgement[] {
    const { route, inInterface } = routeOf(ex.request.method, ex.request.url, this.basePath);
    const routed = { exchange: ex, route, inInterface, basePath: this.basePath };
    const out: OracleJudgement[] = [];
    for (const o of this.oracles) {
      if (o.kind !== 'exchange') continue;
      for (const judgement of o.judge(routed)) out.push({ oracle: o.id, judgement });
    }
    // A HEAD stands for the GET it mirrors (RFC 9110 §9.3.2).
    const head = ex.request.method.toUpperCase() === 'HEAD';
    const target = head ? routeOf('GET', ex.request.url, this.basePath).route : route;
    if (target?.kind !== 'operation') return out;
    // The reads and PATCHes of a counterparty (spec/operations.ts) make its sequences.
    const op = registered(target.operation.operationId);
    const reference = target.params.counterpartyReference;
    if (op?.resource !== 'counterparty' || reference === undefined) return out;
    if (reference.includes('/')) return out;
    const state: CounterpartyState = this.states.get(reference) ?? {
      moving: new Set(),
      lastRead: undefined,
      chain: undefined,
      refused: [],
      closedEarly: [],
      unconfirmed: undefined,
      latest: undefined,
      written: undefined,
    };
    this.states.set(reference, state);
    if (head || (op.action === 'read' && ex.status === 304))
      return [...out, ...this.metadata(reference, state, ex)];
    if (op.action === 'read') {
      if (!is2xx(ex.status) || !isObj(ex.body)) return out;
      out.push(...this.read(reference, state, ex));
      return out;
    }
    if (refused(ex)) {
      // A refused PATCH after refused ones with no read between joins their group: none of them
      // changed anything, so the state before the first is the state before each.
      // (A read since would have judged the group or marked it seen; an accepted PATCH closes it.)
      const last = state.refused.at(-1);
      if (last && last.seen === undefined) {
        last.patches.push(ex);
        return out;
      }
      const before = state.chain ? state.chain.patches.at(-1) : state.lastRead;
      state.refused.push({ before, patches: [ex], seen: undefined });
      state.lastRead = undefined;
      return out;
    }
    // An accepted PATCH (or one not answered): the refused ones before it are judged with what
    // was read since; a chain with a stale read is judged with it.
    const unsettled = [...this.closedWithin(state, ex), ...state.refused.flatMap((g) => g.patches)];
    out.push(...this.closeRefused(reference, state, ex));
    if (state.chain?.stale) out.push(...this.resolve(reference, state, state.chain.stale));
    state.latest = isObj(ex.body) ? ex : undefined;
    state.written = ex;
    if (ex.status === 0) {
      if (state.chain) out.push(...this.resolve(reference, state, undefined));
      state.lastRead = undefined;
      return out;
    }
    if (is2xx(ex.status)) {
      this.writes.add(reference, ex);
      if (breaksMust(modelled(routed))) this.acceptedInvalid.add(ex);
    }
    if (state.chain) state.chain.patches.push(ex);
    else
      state.chain = {
        base: state.unconfirmed ? undefined : state.lastRead,
        patches: [ex],
        stale: undefined,
        unsettled: new Map(),
      };
    if (unsettled.length > 0) state.chain.unsettled.set(ex, unsettled);
    state.lastRead = undefined;
    return out;
  }

  /**
   * showsState, on what a write can change: the fields that move by themselves left out, except
   * those `sent` (by the accepted PATCHes whose answer `shown` is). The patch oracles compare
   * those (withoutMoving), so a read that shows them otherwise must not settle the PATCH: a
   * replica trailing it may look like a field moving.
   */
  private shows(
    state: CounterpartyState,
    read: Exchange,
    shown: Exchange,
    sent?: ReadonlySet<string>,
  ): boolean {
    if (state.moving.size === 0) return showsState(read, shown);
    if (!isObj(shown.body)) return true;
    if (!isObj(read.body)) return false;
    const moving = sent ? new Set([...state.moving].filter((k) => !sent.has(k))) : state.moving;
    return differences(without(shown.body, moving), without(read.body, moving), 1).length === 0;
  }

  /**
   * Whether a read shows the state after a chain: the answer of its last PATCH, or, where the last
   * PATCHes overlapped, the answer of any of them (the one the deployment applied last).
   */
  private showsLastGroup(state: CounterpartyState, read: Exchange, chain: Chain): boolean {
    const group = concurrentGroups(chain.patches).at(-1)!;
    const sent = requestDetails(...group);
    return group.some((p) => this.shows(state, this.withoutRefused(state, chain, read, p), p, sent));
  }

  /** The refused PATCHes around a chain whose change a read after it may show (refusedFields). */
  private around(state: CounterpartyState, chain: Chain, read: Exchange): RefusedAround {
    const last = chain.patches.at(-1)!;
    const before = chain.patches.flatMap((p) => chain.unsettled.get(p) ?? []);
    return {
      after: state.refused.filter((g) => g.before === last).flatMap((g) => g.patches),
      before,
      late: before.filter((r) => this.within(read, r)),
    };
  }

  /**
   * A read after a chain with the fields refused PATCHes around it explain as the answer of
   * `patch` has them: their change is their finding (readAfterRefused, refusedIn, lateRefused),
   * not a PATCH of the chain unpersisted.
   */
  private withoutRefused(state: CounterpartyState, chain: Chain, read: Exchange, patch: Exchange): Exchange {
    if (!isObj(read.body) || !isObj(patch.body)) return read;
    return withFieldsOf(read, patch, refusedFields(read.body, patch, this.around(state, chain, read)));
  }

  /** Whether a read started within the settle window of a PATCH (never, with no window). */
  private within(read: Exchange, patch: Exchange): boolean {
    return this.settleMs > 0 && read.startedAt < endOf(patch) + this.settleMs;
  }

  /** A successful read of the counterparty: what it settles. */
  private read(reference: string, state: CounterpartyState, ex: Exchange): OracleJudgement[] {
    const out: OracleJudgement[] = [];
    const chain = state.chain;
    if (chain) {
      const last = chain.patches.at(-1)!;
      if (!this.showsLastGroup(state, ex, chain) && this.within(ex, last)) {
        // Not yet: a later read within the window may show it.
        chain.stale = ex;
        return out;
      }
      out.push(...this.resolve(reference, state, ex));
    }
    const pending = state.refused.length > 0;
    out.push(...this.readAfterRefused(reference, state, ex));
    if (state.unconfirmed && this.shows(state, ex, state.unconfirmed, requestDetails(state.unconfirmed)))
      state.unconfirmed = undefined;
    if (!chain && !pending && state.lastRead) {
      const before = state.lastRead;
      out.push(...this.pair(reference, before, ex, this.writes.between(reference, before, ex)));
      if (isObj(before.body) && isObj(ex.body)) {
        // A change a refused PATCH judged early sent, showing now within its settle window: its
        // finding (applied late), not a field that moves by itself.
        const late = this.closedWithin(state, ex);
        out.push(...this.refusedIn(reference, before, ex, late));
        const explained = new Set(refusedShows(before.body, ex.body, late));
        const a = comparable(before.body);
        const b = comparable(ex.body);
        for (const k of new Set([...Object.keys(a), ...Object.keys(b)]))
          if (!explained.has(k) && differences(own(a, k), own(b, k), 1).length > 0) state.moving.add(k);
      }
    }
    state.lastRead = state.unconfirmed ? undefined : ex;
    state.latest = ex;
    return out;
  }

  /**
   * An answer that carries no representation of the counterparty (a HEAD, a 304), with the latest
   * that did: not judged while a replica may still trail the last PATCH (within its settle
   * window, even after a read showed it: another replica may answer next).
   */
  private metadata(reference: string, state: CounterpartyState, ex: Exchange): OracleJudgement[] {
    const latest = state.latest;
    if (latest === undefined || ex.status === 0) return [];
    if (state.written !== undefined && this.within(ex, state.written)) return [];
    const answer: MetadataAnswer = { reference, latest, exchange: ex };
    const out: OracleJudgement[] = [];
    for (const o of this.oracles) {
      if (o.kind !== 'metadata') continue;
      for (const judgement of o.judge(answer)) out.push({ oracle: o.id, judgement });
    }
    return out;
  }

  /**
   * Judges a chain of accepted PATCHes with the read after it (undefined: none came). Confirmed
   * (the read shows the last answer), each PATCH is judged from the answer before it; contradicted,
   * only the first has a known state before it.
   */
  private resolve(
    reference: string,
    state: CounterpartyState,
    after: Exchange | undefined,
  ): OracleJudgement[] {
    const chain = state.chain!;
    const last = chain.patches.at(-1)!;
    const confirmed = after === undefined || this.showsLastGroup(state, after, chain);
    const shown = after && this.withoutRefused(state, chain, after, last);
    const late = after ? this.lateRefused(reference, state, chain, after, last) : [];
    state.chain = undefined;
    const groups = concurrentGroups(chain.patches);
    const out = groups.flatMap((group, g) => {
      // The state before a group: the read before the chain, or the answer the group before it
      // ended with, when a read confirmed the chain (of overlapping PATCHes, the last answered).
      const previous = groups[g - 1];
      const before =
        previous === undefined
          ? chain.base
          : confirmed && previous.length === 1
            ? previous[0]
            : // After overlapping PATCHes the state is whichever was applied last: not known.
              undefined;
      // A group with an accepted PATCH that broke a MUST rule: what it stored is not settled.
      const whole = group.length === 1 || !group.some((p) => this.acceptedInvalid.has(p));
      return group.flatMap((patch) => {
        // Kept with whichever of the group was recorded first (overlapping PATCHes end in any order).
        const refusedNear = group.flatMap((p) => chain.unsettled.get(p) ?? []);
        const seenBefore =
          before && isObj(before.body) && isObj(patch.body)
            ? withFieldsOf(
                before,
                patch,
                refusedShows(before.body, patch.body, refusedNear).filter(
                  (k) => !Object.hasOwn(sentDetails(patch), k),
                ),
              )
            : before;
        const seenAfter = patch === last && whole ? shown : undefined;
        const copies = new Map<Exchange, Exchange>();
        if (seenBefore && before && seenBefore !== before) copies.set(seenBefore, before);
        if (seenAfter && after && seenAfter !== after) copies.set(seenAfter, after);
        const inAnswer =
          before && seenBefore !== before ? this.refusedIn(reference, before, patch, refusedNear) : [];
        return [
          ...inAnswer,
          ...this.sequence(
            {
              reference,
              before: seenBefore,
              patch,
              after: seenAfter,
              ...(group.length > 1 ? { concurrent: group.filter((p) => p !== patch) } : {}),
            },
            copies,
          ),
        ];
      });
    });
    if (after !== undefined) state.unconfirmed = confirmed ? undefined : last;
    // Refused PATCHes sent after the chain started from its last answer: unknown if contradicted.
    for (const group of state.refused) {
      if (!confirmed && group.before !== undefined && chain.patches.includes(group.before))
        group.before = undefined;
    }
    return [...late, ...out];
  }

  /**
   * The refused PATCHes among `refused` whose change shows in the answer of `patch` (an accepted
   * PATCH that did not send it, or a read), against `before`, the state before it: each is judged
   * with that state and with `before` as its change left it (its evidence: the answer that shows
   * it). A refused PATCH changes nothing (RFC 5789 §2), so a field the answer shows as one of them
   * sent it is theirs, not the accepted one's (which the caller judges without it).
   */
  private refusedIn(
    reference: string,
    before: Exchange,
    patch: Exchange,
    refused: readonly Exchange[],
  ): OracleJudgement[] {
    const from = before.body;
    const to = patch.body;
    if (!isObj(from) || !isObj(to)) return [];
    const sent = sentDetails(patch);
    return refused.flatMap((r) => {
      const keys = refusedShows(from, to, [r]).filter((k) => !Object.hasOwn(sent, k));
      if (keys.length === 0) return [];
      const left = withFieldsOf(before, patch, keys);
      return this.sequence({ reference, before, patch: r, after: left }, new Map([[left, patch]]));
    });
  }

  /**
   * The refused PATCHes before the chain whose change the read after it shows, within their settle
   * window, where `patch`'s answer did not (applied late): each judged with that answer as the
   * state before it and the answer with those fields as the read has them after it.
   */
  private lateRefused(
    reference: string,
    state: CounterpartyState,
    chain: Chain,
    read: Exchange,
    patch: Exchange,
  ): OracleJudgement[] {
    if (!isObj(read.body) || !isObj(patch.body)) return [];
    const [from, to] = [patch.body, read.body];
    return this.around(state, chain, read).late.flatMap((r) => {
      const keys = refusedShows(from, to, [r]);
      if (keys.length === 0) return [];
      const shown = withFieldsOf(patch, read, keys);
      return this.sequence({ reference, before: patch, patch: r, after: shown }, new Map([[shown, read]]));
    });
  }

  /** A read after refused PATCHes: a change is judged at once; no change waits out the window. */
  private readAfterRefused(reference: string, state: CounterpartyState, ex: Exchange): OracleJudgement[] {
    const out: OracleJudgement[] = [];
    let reported = false;
    const keep: RefusedGroup[] = [];
    for (const group of state.refused) {
      const settled = !this.within(ex, group.patches.at(-1)!);
      if (group.before === undefined || state.unconfirmed) {
        // What was stored before it is not known: nothing to compare with.
        out.push(...this.group(reference, { ...group, before: undefined }, ex));
      } else if (!this.shows(state, ex, group.before)) {
        // The change is reported once, on the first group it could come from; later groups
        // started from the same unchanged state and are not judged with this read.
        out.push(...this.group(reference, reported ? { ...group, before: undefined } : group, ex));
        reported = true;
      } else if (settled) {
        out.push(...this.group(reference, group, ex));
      } else {
        group.seen = ex;
        keep.push(group);
      }
    }
    state.refused = keep;
    return out;
  }

  /**
   * The refused PATCHes closed early (an accepted PATCH came, or the probe that sent them ended)
   * whose settle window `ex` started within: a change of theirs showing late in its answer or the
   * read after it is theirs, not its. The others go.
   */
  private closedWithin(state: CounterpartyState, ex: Exchange): Exchange[] {
    state.closedEarly = state.closedEarly.filter((p) => this.within(ex, p));
    return state.closedEarly;
  }

  /** Judges the refused groups waiting on the settle window with the last read each has seen. */
  private closeRefused(reference: string, state: CounterpartyState, next?: Exchange): OracleJudgement[] {
    const out = state.refused.flatMap((g) => this.group(reference, g, g.seen));
    if (this.settleMs > 0) state.closedEarly.push(...state.refused.flatMap((g) => g.patches));
    const last = state.refused.at(-1);
    if (last?.seen) state.lastRead = last.seen;
    // No read since them, one after another: a refused PATCH changes nothing, so the state before
    // them is the state the accepted PATCH `next` starts from (a change of theirs in its answer is
    // theirs: resolve). Not where anything overlapped: another PATCH may have changed it.
    else if (next && last?.before && !state.chain && !state.unconfirmed && this.serial(last, next))
      state.lastRead = last.before;
    state.refused = [];
    return out;
  }

  /** Whether a refused group went out alone: after the read before it, and ended before `next`. */
  private serial(group: RefusedGroup, next: Exchange): boolean {
    const first = Math.min(...group.patches.map((p) => p.startedAt));
    return (
      group.before !== undefined &&
      endOf(group.before) <= first &&
      group.patches.every((p) => endOf(p) <= next.startedAt)
    );
  }

  /** Judges each refused PATCH of a group with the state before and the read after. */
  private group(reference: string, group: RefusedGroup, after: Exchange | undefined): OracleJudgement[] {
    const { before, patches } = group;
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

  /**
   * The sender will not read `reference` again before its next write to it (it has stopped
   * waiting for the settle window): a chain of accepted PATCHes waiting on a read within the
   * window that did not show it yet is judged now with that read, as the next accepted PATCH
   * would judge it. A HAR of the traffic, which carries no such word, gets the same judgements
   * when that PATCH comes, as long as it is the counterparty's next exchange (were a refused PATCH
   * and then a read showing the chain to come first, the HAR would have the chain judged held).
   * Nothing else is judged early: refused PATCHes still wait for a read after the window, other
   * counterparties for their own reads.
   */
  lastRead(reference: string): OracleJudgement[] {
    const state = this.states.get(reference);
    if (!state?.chain?.stale) return [];
    return this.resolve(reference, state, state.chain.stale);
  }

  /** Judges the PATCHes still waiting for a read after them with what they have. */
  flush(): OracleJudgement[] {
    const out: OracleJudgement[] = [];
    for (const [reference, state] of this.states) {
      out.push(...this.closeRefused(reference, state));
      if (state.chain) out.push(...this.resolve(reference, state, state.chain.stale));
    }
    return out;
  }

  /** Judges a sequence with every patch oracle (judgeSequence), the counterparty's moving fields aside. */
  private sequence(s: PatchSequence, copies: ReadonlyMap<Exchange, Exchange> = new Map()): OracleJudgement[] {
    return judgeSequence(this.oracles, s, this.states.get(s.reference)?.moving, copies);
  }

  private pair(reference: string, first: Exchange, later: Exchange, others: Exchange[]): OracleJudgement[] {
    return judgePair(this.oracles, { reference, first, later, ...(others.length > 0 ? { others } : {}) });
  }
}
