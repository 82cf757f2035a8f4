/**
 * What the judge compares, and the shape of what it keeps of each counterparty (engine/judge.ts
 * keeps it): when two exchanges overlapped in time and the groups of accepted PATCHes that did,
 * what a read shows of an answer, and the state of a counterparty as it would be without some
 * fields' changes (fields that move by themselves, fields a refused PATCH changed).
 */
import { requestJson, type Exchange } from '../exchange/exchange.ts';
import { own } from '../exchange/own.ts';
import { comparable, differences, isObj, same, type Obj } from '../oracles/compare.ts';
import type { PatchSequence } from '../oracles/types.ts';

/** When an exchange's answer was complete: the settle window of a PATCH starts there. */
export const endOf = (ex: Exchange): number => ex.startedAt + ex.durationMs;

/**
 * Whether two exchanges overlapped in time: one started before the other's answer was complete,
 * beyond what the timestamps can tell. The suite's own client records them to a fraction of a
 * millisecond, so one sent after the other's answer never overlaps it; a HAR file of another tool
 * may hold whole milliseconds, where two requests one after another can seem to overlap by less
 * than one.
 */
export function overlapped(a: Exchange, b: Exchange): boolean {
  const coarse = Number.isInteger(a.startedAt) && Number.isInteger(b.startedAt);
  const slack = coarse ? 1 : 0;
  return a.startedAt < endOf(b) - slack && b.startedAt < endOf(a) - slack;
}

/**
 * A chain's accepted PATCHes in groups that overlapped in time (concurrent clients), in the order
 * they completed: a PATCH that overlapped one of the group before it joins that group. A PATCH
 * that overlapped none is a group of its own, as every PATCH of a sender that waits for each
 * answer is.
 */
export function concurrentGroups(patches: readonly Exchange[]): Exchange[][] {
  const out: Exchange[][] = [];
  for (const p of patches) {
    const last = out.at(-1);
    if (last && last.some((q) => overlapped(q, p))) last.push(p);
    else out.push([p]);
  }
  return out;
}

/** Whether a read shows a counterparty as an answer carried it, on what the document settles. */
export const showsState = (read: Exchange, state: Exchange): boolean =>
  !isObj(state.body) ||
  (isObj(read.body) && differences(comparable(state.body), comparable(read.body)).length === 0);

/**
 * The sequence as the oracles see it when some fields move by themselves: the reads around the
 * PATCH, and its answer, without those fields (a field the PATCH, or a PATCH that overlapped it,
 * sent stays, so what was sent is still judged as applied, and the overlapping PATCHes are judged
 * on the same fields); `original` maps an exchange of it back to the one logged.
 */
export function withoutMoving(
  s: PatchSequence,
  moving: ReadonlySet<string>,
): { sequence: PatchSequence; original: (ex: Exchange) => Exchange } {
  const sent = requestDetails(s.patch, ...(s.concurrent ?? []));
  const copies = new Map<Exchange, Exchange>();
  const strip = (ex: Exchange | undefined): Exchange | undefined => {
    if (ex === undefined || !isObj(ex.body)) return ex;
    const body = Object.fromEntries(Object.entries(ex.body).filter(([k]) => !moving.has(k) || sent.has(k)));
    const copy = { ...ex, body };
    copies.set(copy, ex);
    return copy;
  };
  return {
    sequence: {
      ...s,
      before: strip(s.before),
      patch: strip(s.patch)!,
      after: strip(s.after),
      ...(s.batch ? { batch: s.batch.map((b) => strip(b)!) } : {}),
    },
    original: (ex) => copies.get(ex) ?? ex,
  };
}

/** The detail fields the PATCHes sent. */
export function requestDetails(...patches: readonly Exchange[]): Set<string> {
  return new Set(patches.flatMap((patch) => Object.keys(sentDetails(patch))));
}

/** The details a PATCH sent, or an empty object. */
export function sentDetails(patch: Exchange): Obj {
  const body = requestJson(patch);
  return isObj(body) && isObj(body.counterpartyDetails) ? body.counterpartyDetails : {};
}

/**
 * The top-level fields where `to` differs from `from` only by what a refused PATCH sent: each
 * differing value (for the address, each differing address field) is one of `refused` sent. A
 * refused PATCH's change is patch-rejected-unchanged's finding, not an accepted PATCH's.
 */
export function refusedShows(from: Obj, to: Obj, refused: readonly Exchange[]): string[] {
  if (refused.length === 0) return [];
  const sent = refused.map(sentDetails);
  const a = comparable(from);
  const b = comparable(to);
  return Object.keys(b).filter((key) => {
    const was = own(a, key);
    const is = own(b, key);
    if (same(was, is)) return false;
    if (key !== 'address') return sent.some((d) => Object.hasOwn(d, key) && same(own(d, key), is));
    if (!isObj(is)) return false;
    const fields = new Set([...Object.keys(is), ...(isObj(was) ? Object.keys(was) : [])]);
    return [...fields].every((f) => {
      const v = own(is, f);
      if (same(isObj(was) ? own(was, f) : undefined, v)) return true;
      // A field gone: a partial address a refused PATCH sent may have replaced the stored one
      // (interface.md §2.2 does not say merge or replace).
      if (v === undefined) return sent.some((d) => isObj(d.address) && !Object.hasOwn(d.address, f));
      return sent.some((d) => isObj(d.address) && Object.hasOwn(d.address, f) && same(own(d.address, f), v));
    });
  });
}

/** The refused PATCHes around a chain of accepted ones, as a read after the chain sees them. */
export interface RefusedAround {
  /** Sent after the chain's last PATCH, not yet judged. */
  after: readonly Exchange[];
  /** Sent before a PATCH of the chain, whose settle window had not passed when it was sent. */
  before: readonly Exchange[];
  /** Of `before`, those whose settle window the read started within. */
  late: readonly Exchange[];
}

/**
 * The fields where `read`, after a chain, differs from `patch`'s answer only by what refused
 * PATCHes around the chain sent: the read shows it (one sent after the chain, or one before it
 * applied late, within its settle window), or the answer shows it and a read trailing it not yet
 * (one before the chain; not a field `patch` sent itself, which the read must show).
 */
export function refusedFields(read: Obj, patch: Exchange, around: RefusedAround): string[] {
  if (!isObj(patch.body)) return [];
  const sent = sentDetails(patch);
  return [
    ...refusedShows(patch.body, read, [...around.after, ...around.late]),
    ...refusedShows(read, patch.body, around.before).filter((k) => !Object.hasOwn(sent, k)),
  ];
}

/**
 * `ex` with the fields `keys` as `source` has them: the state as it would be without those changes,
 * without the validators of the answer it was made from.
 */
export function withFieldsOf(ex: Exchange, source: Exchange, keys: readonly string[]): Exchange {
  if (keys.length === 0 || !isObj(ex.body) || !isObj(source.body)) return ex;
  const body: Obj = Object.create(null) as Obj;
  for (const [k, v] of Object.entries(ex.body)) body[k] = v;
  for (const k of keys) {
    if (Object.hasOwn(source.body, k)) body[k] = own(source.body, k);
    else delete body[k];
  }
  // Not a representation the server sent: its validators (ETag, Last-Modified) are not kept, so
  // no oracle compares a tag with a body it was not sent with.
  const headers = Object.fromEntries(
    Object.entries(ex.headers).filter(([name]) => name !== 'etag' && name !== 'last-modified'),
  );
  return { ...ex, headers, body: { ...body } };
}

/**
 * Accepted PATCHes sent one after another with no read between: each one's answer is the state
 * the next one starts from, and the read after the last one confirms (or contradicts) them all.
 */
export interface Chain {
  /** The read before the first, where the state was known. */
  base: Exchange | undefined;
  patches: Exchange[];
  /** A read within the settle window that did not show the last one yet (a replica trailing). */
  stale: Exchange | undefined;
  /**
   * Refused PATCHes whose window had not passed when an accepted PATCH of the chain was sent: a
   * change of theirs may show in its answer (a replica or a store that applies them late).
   */
  unsettled: Map<Exchange, Exchange[]>;
}

/**
 * Refused PATCHes sent together (concurrently, or one after another with no read between) after
 * the same known state: the read before, or the answer of an accepted PATCH still to be confirmed.
 */
export interface RefusedGroup {
  before: Exchange | undefined;
  patches: Exchange[];
  /** The last read since, within the settle window, that showed nothing changed. */
  seen: Exchange | undefined;
}

export interface CounterpartyState {
  /**
   * Top-level fields seen to change between two reads with no PATCH between (they move by
   * themselves, or another client changes them): left out of every before/after comparison of a
   * PATCH, so a write is not blamed for them. The pair oracles judge the reads themselves.
   */
  moving: Set<string>;
  /** The last successful read where the state is known, since the last PATCH. */
  lastRead: Exchange | undefined;
  chain: Chain | undefined;
  refused: RefusedGroup[];
  /** Refused PATCHes judged within their settle window (closeRefused): a late change is theirs. */
  closedEarly: Exchange[];
  /**
   * An accepted PATCH a read contradicted: until a read shows it (or another accepted PATCH is
   * confirmed), what is stored is not known, so no read is the state before anything.
   */
  unconfirmed: Exchange | undefined;
  /**
   * The latest answer that carried the counterparty (a settled read, or an accepted PATCH's
   * answer), for the answers that carry none (a HEAD, a 304); undefined after a PATCH with no
   * such answer.
   */
  latest: Exchange | undefined;
  /** The last PATCH answered with success or not answered: a replica may trail it. */
  written: Exchange | undefined;
}
