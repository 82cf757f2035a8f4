/**
 * The write lane: what the probes that PATCH the writable counterparty share. Accepted PATCHes
 * follow one another with a read every READ_EVERY of them and at the end (Writer), re-read up to
 * the settle window (CONFORMANCE_SETTLE_MS); cases that must be refused go in concurrent batches
 * with one read each (sendRefusedInBatches, engine/batch.ts); and what a probe changed is put back
 * to the run's original state as housekeeping, once at the end of the run or at once when the
 * run was interrupted (finishWriting, restoreDetails); and what such probes cost the lane they
 * run in (acceptedRoundTrips, refusedRoundTrips). probes/counterparty-patch.ts, probes/invalid-bodies.ts and
 * probes/patch-other-references.ts use it; probes/recovery.ts restores with restoreRequest after a
 * worker died.
 */
import { describeResponse } from '../exchange/describe.ts';
import type { MovingFields } from '../engine/types.ts';
import { is2xx, type Exchange } from '../exchange/exchange.ts';
import { canonicalJson } from '../exchange/canonical-json.ts';
import { tooDeepText } from '../exchange/json-body.ts';
import { counterpartyPath } from '../exchange/paths.ts';
import {
  type BatchResult,
  CHANGED_CASES_BUDGET,
  incompleteReason,
  type ProbeContext,
  sendInBatches,
  showsState,
} from '../engine/probe-api.ts';
import type { AccountFixture } from '../generators/account-fixture.ts';
import type { Labelled } from '../generators/labelled.ts';
import { MALFORMED_JSON } from '../generators/patch-body.ts';
import { ADDRESS_FIELDS, comparable, differences, isObj, only, type Obj } from '../oracles/compare.ts';
import { spec } from '../spec/index.ts';
import type { HttpRequest } from '../transport/client.ts';
import { own } from '../exchange/own.ts';

/** Used for invalid bodies when no ACCOUNT_FIXTURE is configured: those bodies are rejected anyway. */
export const PLACEHOLDER_FIXTURE: AccountFixture = {
  accountIdentifier: { placeholder: 'set ACCOUNT_FIXTURE to a valid account of the deployment' },
};

export const ROLE = {
  before: 'read before PATCH',
  patch: 'PATCH',
  after: 'read after PATCH',
  settling: 'read after PATCH (settling)',
  window: 'read after the settle window',
} as const;

/** The PATCH request of a generated body: raw text for the not-JSON cases, JSON otherwise. */
export function patchRequest(ref: string, input: Labelled<unknown>): HttpRequest {
  const req: HttpRequest = { method: 'PATCH', path: counterpartyPath(ref), role: ROLE.patch };
  if (input.rule.keyword === MALFORMED_JSON) req.rawBody = String(input.value);
  else req.json = input.value;
  return req;
}

/**
 * Reads the writable counterparty before the probe's first PATCH: what it is now, and the
 * details to restore, the run's original (ProbeContext.original), never what a probe killed
 * before its restore left. The read the probe before it in the lane ended with
 * serves, when nothing was sent since (ProbeContext.knownRead): one round trip less per probe.
 */
export async function startWriting(
  ctx: ProbeContext,
  ref: string,
): Promise<{ current: Obj; original: Obj; known: boolean }> {
  const known = ctx.knownRead(counterpartyPath(ref));
  const current = (await knownOrRead(ctx, ref)).body;
  return {
    current,
    original: ctx.original(ref, current),
    known: known !== undefined && known.body === current,
  };
}

/** The last read of the writable counterparty, if nothing was sent since (ProbeContext.knownRead); else a read. */
export async function knownOrRead(ctx: ProbeContext, ref: string): Promise<Exchange & { body: Obj }> {
  const known = ctx.knownRead(counterpartyPath(ref));
  if (known !== undefined && isObj(known.body)) return known as Exchange & { body: Obj };
  return readWritable(ctx, ref, ROLE.before);
}

/** The counterparty as stored now; a writable counterparty that cannot be read stops the probe. */
export async function readWritable(
  ctx: ProbeContext,
  ref: string,
  role: string,
): Promise<Exchange & { body: Obj }> {
  const ex = await ctx.http.send({ method: 'GET', path: counterpartyPath(ref), role });
  if (ex.status === 200 && ex.tooDeep !== undefined)
    throw new Error(
      `cannot judge PATCH: GET of WRITABLE_COUNTERPARTY_REF ${ref} answered 200 with ${tooDeepText(ex.tooDeep)}`,
    );
  if (ex.status !== 200 || !isObj(ex.body)) {
    throw new Error(
      `cannot judge PATCH: GET of WRITABLE_COUNTERPARTY_REF ${ref} answered ${describeResponse(ex)}; it must name an existing counterparty`,
    );
  }
  return ex as Exchange & { body: Obj };
}

/** Accepted PATCHes sent before the counterparty is read again (and at the end). */
export const READ_EVERY = 16;

/**
 * The cost model of a probe of accepted PATCHes in order (Probe.roundTrips): one round trip per
 * case, a read every READ_EVERY of them, and the reads at the start and the restore (sent by a
 * run of one process; a run of the suite hands the changes on: finishWriting).
 */
export function acceptedRoundTrips(cases: number): number {
  return cases + Math.ceil(cases / READ_EVERY) + 2;
}

/**
 * The cost model of a probe of cases that must be refused (Probe.roundTrips): two round trips
 * per batch of `size` (the batch together, then a read), and the reads at the start and the end.
 */
export function refusedRoundTrips(cases: number, size: number): number {
  return 2 * Math.ceil(cases / size) + 2;
}

const endOf = (ex: Exchange): number => ex.startedAt + ex.durationMs;

/**
 * The probe's writes to the writable counterparty and the reads that confirm them. An accepted
 * PATCH's answer is the state after it, so accepted PATCHes follow one another with no read
 * between, and a read every READ_EVERY of them (and at the end) confirms the last; the judge
 * judges each from the answer before it (engine/judge.ts). A read that does not show the last
 * accepted PATCH yet is repeated with back-off up to the settle window (CONFORMANCE_SETTLE_MS): a
 * replica may trail. Once a change has not appeared within the window, later reads are not
 * repeated: that is already a finding, and waiting again would only make it slower.
 */
export class Writer {
  /** The last accepted PATCH no read has confirmed yet. */
  private unread: Exchange | undefined;
  private sinceRead = 0;
  /** Whether the last request was a read (it is the read before the next PATCH). */
  private fresh = false;
  private gaveUp = false;
  /** Fields seen to change between two reads with no write: not waited for. */
  readonly moving: SelfMoving;
  /**
   * `moving`: what an earlier writer of the same probe learned, for a writer that goes on from the
   * read its predecessor ended with (resume) rather than reading twice itself (start).
   */
  constructor(
    private readonly ctx: ProbeContext,
    readonly ref: string,
    moving?: SelfMoving,
  ) {
    this.moving = moving ?? new SelfMoving(ctx, ref);
  }

  /**
   * The second read before the first PATCH (`current` being the first): a first read that
   * differs from the stored state (a cache being filled) is judged by the two reads, not blamed on
   * the PATCH, and what differs between them is not waited for when confirming a PATCH. `known`:
   * `current` is the read the lane's probe before ended with (startWriting), and no second read
   * is made where that process learned what moves already (SelfMoving.learnedBefore).
   */
  async start(current: Obj, known = false): Promise<void> {
    this.fresh = true;
    // The lane's earlier probe ended with `current` and learned what moves: no second read.
    if (this.moving.learnedBefore(known)) return;
    const read = await readWritable(this.ctx, this.ref, ROLE.before);
    this.moving.learn(comparable(current), comparable(read.body));
  }

  /**
   * Goes on from a read of the counterparty with no write after it (an earlier writer's last
   * request of the same probe): that read is the state before the next PATCH, and what moves by
   * itself was learned by the writer whose `moving` this one shares.
   */
  resume(): void {
    this.fresh = true;
  }

  /** Whether a read shows the state a PATCH answered, the fields that move by themselves aside. */
  private shows(read: Exchange, state: Exchange): boolean {
    if (!isObj(state.body)) return true;
    return isObj(read.body) && !this.moving.changed(comparable(state.body), comparable(read.body));
  }

  /** Sends a PATCH; in `alone` mode with the reads around it, else with a read every READ_EVERY. */
  async patch(req: HttpRequest, alone: boolean): Promise<Exchange> {
    if (alone) await this.before();
    const ex = await this.ctx.http.send(req);
    this.fresh = false;
    if (is2xx(ex.status)) {
      this.unread = ex;
      this.sinceRead++;
    }
    if (alone || this.sinceRead >= READ_EVERY) await this.confirm();
    return ex;
  }

  /** The read before a PATCH sent alone, unless the last request was one. */
  async before(): Promise<void> {
    if (this.unread) await this.confirm();
    else if (!this.fresh) await readWritable(this.ctx, this.ref, ROLE.before);
    this.fresh = true;
  }

  /** Reads the counterparty until it shows the last accepted PATCH, or the settle window ends. */
  async confirm(): Promise<Exchange & { body: Obj }> {
    const expected = this.unread;
    this.unread = undefined;
    this.sinceRead = 0;
    this.fresh = true;
    let read = await readWritable(this.ctx, this.ref, ROLE.after);
    if (!expected || !isObj(expected.body)) return read;
    if (this.gaveUp) {
      // Not repeated: this read is the last before the next write, which the judge would wait
      // for to judge the PATCH. Judged now, the judgement goes to the case that sent it (a case
      // sent alone, while shrinking or replayed, is then judged while it runs).
      this.ctx.lastRead(this.ref);
      return read;
    }
    const until = endOf(expected) + (this.ctx.target.settleMs ?? 0);
    const clock = this.ctx.http.clock;
    // Until a read shows it, or one starts after the window: the judge leaves a read that started
    // within the window unjudged (a replica may trail), though it may end after the window (a busy
    // target or machine), and the PATCH would then be judged only with a later case's read.
    for (let wait = 50; !this.shows(read, expected) && read.startedAt < until; wait *= 2) {
      await clock.sleep(Math.min(wait, Math.max(0, until - clock.now())));
      read = await readWritable(this.ctx, this.ref, ROLE.settling);
    }
    if (!this.shows(read, expected) && (this.ctx.target.settleMs ?? 0) > 0) {
      this.gaveUp = true;
      this.ctx.note(
        `a read did not show an accepted PATCH within the settle window (CONFORMANCE_SETTLE_MS ${this.ctx.target.settleMs} ms); later reads were not repeated`,
      );
    }
    return read;
  }

  /** Confirms the last accepted PATCH, if no read has yet; whether it read. */
  async settle(): Promise<boolean> {
    if (!this.unread) return false;
    await this.confirm();
    return true;
  }
}

/**
 * After refused PATCHes: waits out the settle window of the last one and reads once more, so that
 * a change one of them made that appears late is still found (the judge waits for this read).
 */
export async function readAfterWindow(ctx: ProbeContext, ref: string, last: number): Promise<void> {
  const settleMs = ctx.target.settleMs ?? 0;
  if (settleMs === 0) return;
  await ctx.http.clock.sleep(Math.max(0, last + settleMs - ctx.http.clock.now() + 1));
  await readWritable(ctx, ref, ROLE.window);
}

const DETAIL_FIELDS = Object.keys(spec().schema('PatchCounterpartyDetails').properties ?? {});

/**
 * The PATCH that puts back the detail fields of `original` (the run's original state of the
 * counterparty), as housekeeping: sent even after the run was interrupted. Only what the document
 * lets a PATCH carry: a service may return fields of its own, in the address too, that a PATCH
 * must not send back. Undefined when `original` has no detail field to put back.
 */
export function restoreRequest(ref: string, original: Obj): HttpRequest | undefined {
  const details = Object.fromEntries(
    DETAIL_FIELDS.filter((k) => own(original, k) !== undefined).map((k) => {
      const value = own(original, k);
      return [k, k === 'address' && isObj(value) ? only(value, ADDRESS_FIELDS) : value];
    }),
  );
  if (Object.keys(details).length === 0) return undefined;
  return {
    method: 'PATCH',
    path: counterpartyPath(ref),
    json: { counterpartyDetails: details },
    role: 'restore',
    housekeeping: true,
  };
}

/**
 * Puts back the detail fields the writable counterparty had when the run started, and reads it
 * once more, so that the restore is judged like any PATCH. Fields it did not have cannot be
 * removed again (the interface has no way to), and accounts added stay. The restore is
 * housekeeping: it is sent even after the run was interrupted (it runs in the probes' finally),
 * and then it is the only request sent: the read after it is left out.
 */
export async function restoreDetails(ctx: ProbeContext, ref: string, original: Obj): Promise<void> {
  const request = restoreRequest(ref, original);
  if (request === undefined) return;
  const details = (request.json as { counterpartyDetails: Obj }).counterpartyDetails;
  const fields = Object.keys(details);
  const afterInterrupt = ctx.http.interruption() !== undefined;
  const record = (status: 'restored' | 'failed', detail: string): void =>
    ctx.restored({ counterparty: ref, fields, status, detail, afterInterrupt });
  let ex: Exchange;
  try {
    ex = await ctx.http.send(request);
  } catch (error) {
    record('failed', `could not restore the original details of ${ref}: ${incompleteReason(error)}`);
    throw error;
  }
  record(
    is2xx(ex.status) ? 'restored' : 'failed',
    is2xx(ex.status)
      ? `restored the original ${fields.join(', ')} of ${ref}`
      : `could not restore the original details of ${ref}: ${describeResponse(ex)}`,
  );
  if (is2xx(ex.status)) ctx.restoredTo(ref);
  if (ctx.http.interruption() !== undefined) return;
  const read = await ctx.http.send({
    method: 'GET',
    path: counterpartyPath(ref),
    role: 'read after restore',
  });
  // A replica may trail: read again until it shows the restore, up to the settle window.
  const until = endOf(ex) + (ctx.target.settleMs ?? 0);
  const clock = ctx.http.clock;
  for (let wait = 50, r = read; is2xx(ex.status) && !showsState(r, ex) && r.startedAt < until; wait *= 2) {
    await clock.sleep(Math.min(wait, Math.max(0, until - clock.now())));
    r = await ctx.http.send({
      method: 'GET',
      path: counterpartyPath(ref),
      role: 'read after restore (settling)',
    });
  }
}

/**
 * The end of a write probe that may have changed `ref`: the changes are handed on to the next
 * probe of the lane, and the run's original is restored once, at the end of the run, by global
 * teardown (engine/baseline.ts, probes/recovery.ts restoreHandedOn); a write probe's last read
 * is the next one's read before its first PATCH (startWriting). The probe restores now when the
 * run was interrupted (the restore is then all it sends), and in a run of one process, which
 * has no teardown to leave it to.
 */
export async function finishWriting(ctx: ProbeContext, ref: string, original: Obj): Promise<void> {
  if (ctx.http.interruption() === undefined && ctx.handOn(ref)) return;
  await restoreDetails(ctx, ref, original);
}

/**
 * The fields of a counterparty that change between two reads with no write between (a target
 * that moves a field on every read, or another client at work): a write cannot be blamed for
 * them, so before/after comparisons leave them out. Noted once per probe when first seen. What a
 * probe learns is the process's (ProbeContext.moving): the write probes of a lane, one after
 * another, each start from what those before learned.
 */
export class SelfMoving {
  readonly fields: Set<string>;
  private readonly known: MovingFields;
  constructor(
    private readonly ctx: ProbeContext,
    private readonly ref: string,
  ) {
    this.known = ctx.moving(ref);
    this.fields = this.known.fields;
    if (this.fields.size > 0)
      ctx.note(
        `${ref}: ${[...this.fields].join(', ')} seen to change with no write between by an earlier check: left out of the before/after comparisons of this probe, not bisected`,
      );
  }

  /**
   * Whether the second read before a first PATCH can be left out: `current`, the state before it,
   * is the last read an earlier write probe of this process made, with nothing sent since
   * (startWriting: known), and that process compared two reads with no write between already. A
   * cache being filled by a first read is no concern after reads that confirmed PATCHes.
   */
  learnedBefore(known: boolean): boolean {
    return known && this.known.learned;
  }

  /** Two reads with no write between: learns what differs; returns the later one. */
  learn(first: Obj, later: Obj): Obj {
    this.known.learned = true;
    const fresh = Object.keys({ ...first, ...later }).filter(
      (k) => !this.fields.has(k) && canonicalJson(own(first, k)) !== canonicalJson(own(later, k)),
    );
    for (const k of fresh) this.fields.add(k);
    if (fresh.length > 0) {
      this.ctx.note(
        `${this.ref}: ${fresh.join(', ')} changed between two reads with no write between: left out of the before/after comparisons of this probe, not bisected`,
      );
    }
    return later;
  }

  /** Whether `after` differs from `before` on what a write can change (the moving fields aside). */
  changed(before: Obj, after: Obj): boolean {
    const strip = (o: Obj): Obj => Object.fromEntries(Object.entries(o).filter(([k]) => !this.fields.has(k)));
    return differences(strip(before), strip(after)).length > 0;
  }
}

/**
 * PATCHes that must be refused, sent together before one read (patch-invalid-bodies): a run's
 * plan (858 cases) goes in one batch, at the default concurrency cap (64), which the lane has to
 * itself once the reads are done (Ledger.sending), then one read. Each batch costs a read one
 * after the other requests, and its requests one round trip per cap's worth: batches of 256 took
 * four reads, 0.45 s more of a one-counterparty run at 150 ms, and batches of 128 seven. A batch
 * that changes the state is taken apart by bisection, one level more per doubling of the size,
 * within the budget engine/batch.ts derives from it (84 resendings for 1024).
 */
export const REFUSED_BATCH = 1024;

/**
 * Sends cases that must all be refused in concurrent batches of `size`, with one read per batch
 * (engine/batch.ts): only a batch after which the counterparty changed, on what a write can
 * change (SelfMoving: a field that also changes between two reads with no write is left out), is
 * restored and taken apart, within the resendings bisection may make (a bisection storm stops
 * the probe: engine/batch.ts). `answered` sees each case's first answer. At the end, the settle
 * window of the last PATCH is waited out and the counterparty read once more, so that a change
 * that appears late is found too. Returns the batching's result; restores the details if a
 * change was left.
 */
export async function sendRefusedInBatches<C extends Labelled<unknown>>(
  ctx: ProbeContext,
  ref: string,
  cases: readonly C[],
  size: number,
  answered: (c: C, ex: Exchange) => void,
): Promise<BatchResult<C>> {
  const { current, original, known } = await startWriting(ctx, ref);
  // A second read before any write: what differs between the two moves by itself, and is left
  // out of the comparisons below (reported once, not bisected); not after an earlier probe of
  // the lane ended with the read `current` is and learned it already.
  const moving = new SelfMoving(ctx, ref);
  let baseline: Obj = comparable(current);
  if (!moving.learnedBefore(known))
    baseline = moving.learn(baseline, comparable((await readWritable(ctx, ref, ROLE.before)).body));
  let dirty = false;
  const judged = new Set<C>();
  // Cases answered as accepted: they change the counterparty, and are reported as accepted; the
  // batching does not take them apart to find it out (engine/batch.ts).
  const accepted = new Set<C>();
  let last = ctx.http.clock.now();
  try {
    const result = await sendInBatches(cases, size, (c) => canonicalJson(c.value), {
      async send(batch, resend) {
        const role = resend
          ? `PATCH (part of a batch, resent: ${batch.length})`
          : `PATCH (batch of ${batch.length})`;
        const answers = await Promise.all(batch.map((c) => ctx.http.send({ ...patchRequest(ref, c), role })));
        answers.forEach((ex, i) => {
          const c = batch[i]!;
          last = Math.max(last, endOf(ex));
          if (is2xx(ex.status)) accepted.add(c);
          if (judged.has(c)) return;
          judged.add(c);
          answered(c, ex);
        });
        let after = comparable((await readWritable(ctx, ref, ROLE.after)).body);
        if (moving.changed(baseline, after)) {
          // Before taking the batch apart: does the state move with no write? One more read.
          after = moving.learn(after, comparable((await readWritable(ctx, ref, ROLE.after)).body));
        }
        const changed = moving.changed(baseline, after);
        if (changed) dirty = true;
        return changed;
      },
      known: (c) => accepted.has(c),
      async restore() {
        await restoreDetails(ctx, ref, original);
        baseline = comparable((await readWritable(ctx, ref, 'read after restore')).body);
        dirty = false;
      },
    });
    if (result.changedBatches > 0)
      ctx.note(
        `${result.changedBatches} batch(es) changed the counterparty, the cases answered as accepted aside: ${result.changed.length} single case(s) found to change it alone` +
          (result.notTakenApart > 0
            ? `; ${result.notTakenApart} later batch(es) restored but not taken apart (${CHANGED_CASES_BUDGET} cases found already)`
            : ''),
      );
    await readAfterWindow(ctx, ref, last);
    return result;
  } finally {
    if (dirty) await finishWriting(ctx, ref, original);
  }
}
