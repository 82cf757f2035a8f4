/**
 * PATCH /api/v1/counterparties/{ref} (interface.md §4.2, §7, §8; RFC 5789 §2). Accepted cases
 * follow one another, each PATCH's answer being the state the next starts from, with a read every
 * READ_EVERY of them and at the end (re-read up to the settle window, CONFORMANCE_SETTLE_MS);
 * cases that must be refused go in concurrent batches with one read each (engine/batch.ts). What
 * an update did to the stored counterparty is judged by the sequence oracles
 * (oracles/patch-update.ts, oracles/patch-rejected.ts) from those exchanges (engine/judge.ts), and
 * every answer by the single-exchange oracles. While a failure is shrunk, each case is sent alone
 * with the reads around it. The probes judge what needs their plan: this body is
 * valid, so it must be accepted; this one breaks a rule, so it must be refused; this reference
 * does not exist, so it must not be created. They write, so they run only with
 * WRITABLE_COUNTERPARTY_REF and only against that counterparty (plus invented references for the
 * unknown-counterparty cases).
 */
import fc from 'fast-check';
import { describeResponse } from '../exchange/describe.ts';
import { is2xx, type Exchange } from '../exchange/exchange.ts';
import { counterpartyPath } from '../exchange/paths.ts';
import { sendInBatches, type BatchResult } from '../engine/batch.ts';
import { showsState } from '../engine/judge.ts';
import { runProperty } from '../engine/property.ts';
import { incompleteReason } from '../engine/run.ts';
import type { Probe, ProbeContext } from '../engine/types.ts';
import {
  DEFAULT_ACCOUNT_BUDGET,
  identifierKey,
  withAccountFixture,
  type AccountFixture,
} from '../generators/account-fixture.ts';
import { canonicalJson } from '../exchange/canonical-json.ts';
import { labelled, type Labelled } from '../generators/labelled.ts';
import {
  MALFORMED_JSON,
  invalidPatchBody,
  invalidPatchBodyExamples,
  validAccountsBody,
  validAccountsBodyExamples,
  validDetailsBody,
  validDetailsBodyExamples,
  type PatchBody,
} from '../generators/patch-body.ts';
import {
  ADDRESS_FIELDS,
  accountsOf,
  comparable,
  differences,
  isObj,
  only,
  type Obj,
} from '../oracles/compare.ts';
import { COUNTERPARTY_RESPONSE_REQUIREMENTS } from '../oracles/counterparty-response.ts';
import { LIFECYCLE_REQUIREMENTS } from '../oracles/lifecycle-headers.ts';
import type { Violation } from '../oracles/types.ts';
import { spec } from '../spec/index.ts';
import type { HttpRequest } from '../transport/client.ts';

/** Random cases of the account-adding property: every case leaves accounts behind. */
export const ACCOUNT_RUNS = 8;
/** The same with a single ACCOUNT_FIXTURE: every account added repeats its identifier. */
export const ACCOUNT_RUNS_ONE_FIXTURE = 2;
/** Invalid bodies sent together before one read. */
export const INVALID_BATCH = 32;

/** Used for invalid bodies when no ACCOUNT_FIXTURE is configured: those bodies are rejected anyway. */
export const PLACEHOLDER_FIXTURE: AccountFixture = {
  accountIdentifier: { placeholder: 'set ACCOUNT_FIXTURE to a valid account of the deployment' },
};

const UPDATE_REQUIREMENTS = [
  'patch-valid-accepted',
  'patch-persisted',
  'patch-sent-fields-applied',
  'patch-unsent-fields-unchanged',
  'patch-immutable-fields',
  'patch-updated-at',
  'patch-lifecycle-headers-as-get',
] as const;

const ROLE = {
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

/** The counterparty as stored now; a writable counterparty that cannot be read stops the probe. */
/**
 * Reads the writable counterparty before the probe's first PATCH: what it is now, and the
 * details the probe restores at its end, the run's original (ProbeContext.original), never what
 * a probe killed before its restore left.
 */
async function startWriting(ctx: ProbeContext, ref: string): Promise<{ current: Obj; original: Obj }> {
  const current = (await readWritable(ctx, ref, ROLE.before)).body;
  return { current, original: ctx.original(ref, current) };
}

export async function readWritable(
  ctx: ProbeContext,
  ref: string,
  role: string,
): Promise<Exchange & { body: Obj }> {
  const ex = await ctx.http.send({ method: 'GET', path: counterpartyPath(ref), role });
  if (ex.status !== 200 || !isObj(ex.body)) {
    throw new Error(
      `cannot judge PATCH: GET of WRITABLE_COUNTERPARTY_REF ${ref} answered ${describeResponse(ex)}; it must name an existing counterparty`,
    );
  }
  return ex as Exchange & { body: Obj };
}

/** Accepted PATCHes sent before the counterparty is read again (and at the end). */
export const READ_EVERY = 16;

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
  constructor(
    private readonly ctx: ProbeContext,
    readonly ref: string,
  ) {}

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
    if (!expected || !isObj(expected.body) || this.gaveUp) return read;
    const until = endOf(expected) + (this.ctx.target.settleMs ?? 0);
    const clock = this.ctx.http.clock;
    for (let wait = 50; !showsState(read, expected) && clock.now() < until; wait *= 2) {
      await clock.sleep(Math.min(wait, Math.max(0, until - clock.now())));
      read = await readWritable(this.ctx, this.ref, ROLE.settling);
    }
    if (!showsState(read, expected) && (this.ctx.target.settleMs ?? 0) > 0) {
      this.gaveUp = true;
      this.ctx.note(
        `a read did not show an accepted PATCH within the settle window (CONFORMANCE_SETTLE_MS ${this.ctx.target.settleMs} ms); later reads were not repeated`,
      );
    }
    return read;
  }

  /** Confirms the last accepted PATCH, if no read has yet. */
  async settle(): Promise<void> {
    if (this.unread) await this.confirm();
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
    DETAIL_FIELDS.filter((k) => original[k] !== undefined).map((k) => [
      k,
      k === 'address' && isObj(original[k]) ? only(original[k], ADDRESS_FIELDS) : original[k],
    ]),
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
  if (ctx.http.interruption() !== undefined) return;
  const read = await ctx.http.send({
    method: 'GET',
    path: counterpartyPath(ref),
    role: 'read after restore',
  });
  // A replica may trail: read again until it shows the restore, up to the settle window.
  const until = endOf(ex) + (ctx.target.settleMs ?? 0);
  const clock = ctx.http.clock;
  for (let wait = 50, r = read; is2xx(ex.status) && !showsState(r, ex) && clock.now() < until; wait *= 2) {
    await clock.sleep(Math.min(wait, Math.max(0, until - clock.now())));
    r = await ctx.http.send({
      method: 'GET',
      path: counterpartyPath(ref),
      role: 'read after restore (settling)',
    });
  }
}

/**
 * The answer to one valid body, PATCHed (alone while shrinking, with the reads around it). The
 * probe judges acceptance; the oracles the rest.
 */
function probeValid(ctx: ProbeContext, patch: Exchange, input: Labelled<PatchBody>): Violation | undefined {
  if (!is2xx(patch.status)) {
    return {
      requirement: 'patch-valid-accepted',
      exchange: patch,
      message: `the valid body (${input.rule.description}) was answered ${patch.status}`,
      expected: '2xx with the updated counterparty (interface.md §4.2)',
      received: describeResponse(patch),
    };
  }
  ctx.held('patch-valid-accepted');
  return undefined;
}

export const patchValidDetails: Probe = {
  id: 'patch-valid-details',
  title: 'valid detail patches: each field alone and combined, bounds, every allowed character',
  requirements: [...UPDATE_REQUIREMENTS, ...COUNTERPARTY_RESPONSE_REQUIREMENTS, ...LIFECYCLE_REQUIREMENTS],
  judges: ['patch-valid-accepted'],
  group: 'counterparty-patch',
  access: 'write',
  splitAcrossLanes: true,
  async run(ctx) {
    const ref = ctx.target.writableRef!;
    const { original } = await startWriting(ctx, ref);
    const writer = new Writer(ctx, ref);
    // A second read before the first PATCH: a first read that differs from the stored state (a
    // cache being filled) is judged by the two reads, not blamed on the PATCH.
    await writer.before();
    try {
      await runProperty(ctx, {
        name: 'valid details patch',
        arbitrary: validDetailsBody(),
        examples: validDetailsBodyExamples(),
        probe: async (input, shrinking) =>
          probeValid(ctx, await writer.patch(patchRequest(ref, input), shrinking), input),
      });
      await writer.settle();
    } finally {
      await restoreDetails(ctx, ref, original);
    }
  },
};

export const patchValidAccounts: Probe = {
  id: 'patch-valid-accounts',
  title: 'valid account patches, built from ACCOUNT_FIXTURE, alone and with details',
  requirements: [
    ...UPDATE_REQUIREMENTS,
    'patch-accounts-appended',
    ...COUNTERPARTY_RESPONSE_REQUIREMENTS,
    ...LIFECYCLE_REQUIREMENTS,
  ],
  judges: ['patch-valid-accepted'],
  group: 'counterparty-patch',
  access: 'write',
  async run(ctx) {
    const ref = ctx.target.writableRef!;
    const fixture = ctx.target.accountFixture;
    if (!fixture) {
      ctx.notApplicable(
        'patch-accounts-appended',
        'ACCOUNT_FIXTURE is not set, so no valid account can be sent (its identifier fields are not shown in the document)',
      );
      ctx.note('ACCOUNT_FIXTURE is not set: no account was sent');
      return;
    }
    const budget = ctx.target.accountBudget ?? DEFAULT_ACCOUNT_BUDGET;
    const fixtures = ctx.target.accountFixtures ?? [fixture];
    let spent = 0;
    let added = 0;
    let refused = 0;
    let duplicates = 0;
    let nextFixture = 0;
    const { current, original } = await startWriting(ctx, ref);
    // The identifiers the counterparty holds, as far as the suite can tell (a service may mask them).
    const held = new Set(accountsOf(current).map(identifierKey));
    const writer = new Writer(ctx, ref);
    await writer.before();
    try {
      await runProperty(ctx, {
        name: 'valid accounts patch',
        arbitrary: validAccountsBody(fixture),
        examples: validAccountsBodyExamples(fixture),
        // With one fixture every account repeats its identifier: only as many as the cases need.
        runs: Math.min(ctx.target.runs, fixtures.length > 1 ? ACCOUNT_RUNS : ACCOUNT_RUNS_ONE_FIXTURE),
        maxShrinkProbes: 20,
        async probe(input, shrinking) {
          const generated = input.value.counterpartyAccounts ?? [];
          if (spent + generated.length > budget) {
            refused++;
            return undefined;
          }
          spent += generated.length;
          // Added accounts cycle through the fixtures, so a service refusing an identifier it
          // holds can be tested with a list of them.
          const accounts =
            fixtures.length > 1
              ? generated.map((a) => withAccountFixture(a, fixtures[nextFixture++ % fixtures.length]!))
              : generated;
          const body: PatchBody =
            generated.length > 0 ? { ...input.value, counterpartyAccounts: accounts } : input.value;
          const keys = accounts.map(identifierKey);
          const repeats = keys.some((k, i) => held.has(k) || keys.indexOf(k) !== i);
          const sent = labelled(body, input.rule);
          const patch = await writer.patch(patchRequest(ref, sent), shrinking);
          if (is2xx(patch.status)) {
            for (const k of keys) held.add(k);
            added += accounts.length;
          } else if (patch.status === 409 && repeats) {
            // The document does not say whether a counterparty may hold two accounts with one
            // identifier; 409 is HTTP's answer for a conflict with the current state (RFC 9110
            // §15.5.10). Not judged.
            duplicates++;
            return undefined;
          }
          return probeValid(ctx, patch, sent);
        },
      });
      await writer.settle();
    } finally {
      ctx.note(
        `accounts added to ${ref}: ${added} (${spent} sent, of a budget of ${budget}: CONFORMANCE_ACCOUNT_BUDGET), from ${fixtures.length} fixture(s)`,
      );
      if (refused > 0) ctx.note(`${refused} account case(s) not sent: the account budget was spent`);
      if (duplicates > 0) {
        ctx.note(
          `${duplicates} account case(s) repeating an identifier the counterparty holds were refused with 409 and not judged: the document does not say whether identifiers must be unique; give ACCOUNT_FIXTURE a list to add accounts with fresh ones`,
        );
      }
      ctx.note(
        'account countries come from the country list only: the request pattern ^[A-Z]*$ also admits codes such as UK that a returned account may not carry (§2.2, §2.3)',
      );
      await restoreDetails(ctx, ref, original);
    }
  },
};

/** What a refused case must get: a 4xx (which one is not shown). */
const invalidRejected = (ex: Exchange): boolean => ex.status >= 400 && ex.status <= 499;

/**
 * Sends cases that must all be refused in concurrent batches of `size`, with one read per batch
 * (engine/batch.ts): only a batch after which the counterparty changed is restored and taken
 * apart. `answered` sees each case's first answer. At the end, the settle window of the last
 * PATCH is waited out and the counterparty read once more, so that a change that appears late is
 * found too. Returns the batching's result; restores the details if a change was left.
 */
export async function sendRefusedInBatches<C extends Labelled<unknown>>(
  ctx: ProbeContext,
  ref: string,
  cases: readonly C[],
  size: number,
  answered: (c: C, ex: Exchange) => void,
): Promise<BatchResult<C>> {
  const { current, original } = await startWriting(ctx, ref);
  let baseline: Obj = comparable(current);
  let dirty = false;
  const judged = new Set<C>();
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
          if (judged.has(c)) return;
          judged.add(c);
          answered(c, ex);
        });
        const after = await readWritable(ctx, ref, ROLE.after);
        const changed = differences(baseline, comparable(after.body)).length > 0;
        if (changed) dirty = true;
        return changed;
      },
      async restore() {
        await restoreDetails(ctx, ref, original);
        baseline = comparable((await readWritable(ctx, ref, 'read after restore')).body);
        dirty = false;
      },
    });
    await readAfterWindow(ctx, ref, last);
    return result;
  } finally {
    if (dirty) await restoreDetails(ctx, ref, original);
  }
}

export const patchInvalidBodies: Probe = {
  id: 'patch-invalid-bodies',
  title: 'patch bodies breaking one rule each: refused with a 4xx, and nothing changed',
  requirements: ['patch-invalid-rejected', 'patch-rejected-unchanged'],
  judges: ['patch-invalid-rejected'],
  group: 'counterparty-patch',
  access: 'write',
  async run(ctx) {
    const ref = ctx.target.writableRef!;
    const fixture = ctx.target.accountFixture ?? PLACEHOLDER_FIXTURE;
    const property = {
      name: 'invalid patch',
      arbitrary: invalidPatchBody(fixture),
      examples: invalidPatchBodyExamples(fixture),
    };
    // The property's cases, all sent at once in batches: a conforming deployment refuses them
    // all and nothing changes. Only if one is not refused, or a batch changed the counterparty,
    // is the property run case by case, to shrink to the smallest input that shows it.
    const cases = [
      ...property.examples,
      ...fc.sample(property.arbitrary, { seed: ctx.target.seed, numRuns: ctx.target.runs }),
    ];
    let wrong = 0;
    const result = await sendRefusedInBatches(ctx, ref, cases, INVALID_BATCH, (_c, ex) => {
      if (invalidRejected(ex)) ctx.held('patch-invalid-rejected');
      else wrong++;
    });
    ctx.note(
      `${cases.length} invalid case(s): ${cases.length - result.duplicates} sent in ${result.batches} batch(es) of at most ${INVALID_BATCH}`,
    );
    if (wrong === 0 && result.changed.length === 0) return;
    ctx.note(
      `${wrong} case(s) not refused, ${result.changed.length} changing: sent again one by one to shrink`,
    );
    let fresh = false;
    const before = async (): Promise<void> => {
      if (!fresh) await readWritable(ctx, ref, ROLE.before);
    };
    await runProperty(ctx, {
      ...property,
      async probe(input) {
        await before();
        const patch = await ctx.http.send(patchRequest(ref, input));
        await readWritable(ctx, ref, ROLE.after);
        fresh = true;
        if (invalidRejected(patch)) {
          ctx.held('patch-invalid-rejected');
          return undefined;
        }
        return {
          requirement: 'patch-invalid-rejected',
          exchange: patch,
          message: `the invalid body (${input.rule.description}) was answered ${patch.status}`,
          expected: 'a 4xx status: the body breaks a rule of interface.md §4.2 (which 4xx is not shown)',
          received: describeResponse(patch),
        };
      },
    });
  },
};

export const COUNTERPARTY_PATCH_PROBES: Probe[] = [patchValidDetails, patchValidAccounts, patchInvalidBodies];
