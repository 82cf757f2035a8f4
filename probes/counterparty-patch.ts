/**
 * PATCH /api/v1/counterparties/{ref} (interface.md §4.2, §7, §8; RFC 5789 §2). Each case is sent
 * as a read before, the PATCH and a read after (the read after one case is the read before the
 * next); what the update did to the stored counterparty is judged by the sequence oracles
 * (oracles/patch-update.ts, oracles/patch-rejected.ts) from those three exchanges, and every
 * answer by the single-exchange oracles. The probes judge what needs their plan: this body is
 * valid, so it must be accepted; this one breaks a rule, so it must be refused; this reference
 * does not exist, so it must not be created. They write, so they run only with
 * WRITABLE_COUNTERPARTY_REF and only against that counterparty (plus invented references for the
 * unknown-counterparty cases).
 */
import { DEFAULT_ACCOUNT_BUDGET } from '../config/config.ts';
import { describeResponse } from '../exchange/describe.ts';
import { is2xx, type Exchange } from '../exchange/exchange.ts';
import { counterpartyPath } from '../exchange/paths.ts';
import { runProperty } from '../engine/property.ts';
import { incompleteReason } from '../engine/run.ts';
import type { Probe, ProbeContext } from '../engine/types.ts';
import type { AccountFixture } from '../generators/account-fixture.ts';
import type { Labelled } from '../generators/labelled.ts';
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
import { ADDRESS_FIELDS, isObj, only, type Obj } from '../oracles/compare.ts';
import { COUNTERPARTY_RESPONSE_REQUIREMENTS } from '../oracles/counterparty-response.ts';
import { LIFECYCLE_REQUIREMENTS } from '../oracles/lifecycle-headers.ts';
import type { Violation } from '../oracles/types.ts';
import { spec } from '../spec/index.ts';
import type { HttpRequest } from '../transport/client.ts';

/** Random cases of the account-adding property: every case leaves accounts behind. */
export const ACCOUNT_RUNS = 8;

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
} as const;

/** The PATCH request of a generated body: raw text for the not-JSON cases, JSON otherwise. */
export function patchRequest(ref: string, input: Labelled<unknown>): HttpRequest {
  const req: HttpRequest = { method: 'PATCH', path: counterpartyPath(ref), role: ROLE.patch };
  if (input.rule.keyword === MALFORMED_JSON) req.rawBody = String(input.value);
  else req.json = input.value;
  return req;
}

/** The counterparty as stored now; a writable counterparty that cannot be read stops the probe. */
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

/**
 * Whether the last request of the probe was a read of the counterparty: the probe is the only
 * writer while it runs, so the read after one PATCH is the read before the next (one request per
 * case saved).
 */
class Reads {
  private fresh = false;
  constructor(
    private readonly ctx: ProbeContext,
    private readonly ref: string,
  ) {}
  async before(): Promise<void> {
    if (!this.fresh) await readWritable(this.ctx, this.ref, ROLE.before);
    this.fresh = false;
  }
  async after(): Promise<void> {
    await readWritable(this.ctx, this.ref, ROLE.after);
    this.fresh = true;
  }
}

const DETAIL_FIELDS = Object.keys(spec().schema('PatchCounterpartyDetails').properties ?? {});

/**
 * Puts back the detail fields the writable counterparty had when a probe started, and reads it
 * once more, so that the restore is judged like any PATCH. Fields it did not have cannot be
 * removed again (the interface has no way to), and accounts added stay. The restore is
 * housekeeping: it is sent even after the run was interrupted (it runs in the probes' finally),
 * and then it is the only request sent: the read after it is left out.
 */
export async function restoreDetails(ctx: ProbeContext, ref: string, original: Obj): Promise<void> {
  // Only what the document lets a PATCH carry: a service may return fields of its own, in the
  // address too, that a PATCH must not send back.
  const details = Object.fromEntries(
    DETAIL_FIELDS.filter((k) => original[k] !== undefined).map((k) => [
      k,
      k === 'address' && isObj(original[k]) ? only(original[k], ADDRESS_FIELDS) : original[k],
    ]),
  );
  if (Object.keys(details).length === 0) return;
  const fields = Object.keys(details);
  const afterInterrupt = ctx.http.interruption() !== undefined;
  const record = (status: 'restored' | 'failed', detail: string): void =>
    ctx.restored({ counterparty: ref, fields, status, detail, afterInterrupt });
  let ex: Exchange;
  try {
    ex = await ctx.http.send({
      method: 'PATCH',
      path: counterpartyPath(ref),
      json: { counterpartyDetails: details },
      role: 'restore',
      housekeeping: true,
    });
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
  await ctx.http.send({ method: 'GET', path: counterpartyPath(ref), role: 'read after restore' });
}

/** One valid body: read, PATCH, read. The probe judges acceptance; the oracles the rest. */
async function probeValid(
  ctx: ProbeContext,
  reads: Reads,
  ref: string,
  input: Labelled<PatchBody>,
): Promise<Violation | undefined> {
  await reads.before();
  const patch = await ctx.http.send(patchRequest(ref, input));
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
  await reads.after();
  return undefined;
}

export const patchValidDetails: Probe = {
  id: 'patch-valid-details',
  title: 'valid detail patches: each field alone and combined, bounds, every allowed character',
  requirements: [...UPDATE_REQUIREMENTS, ...COUNTERPARTY_RESPONSE_REQUIREMENTS, ...LIFECYCLE_REQUIREMENTS],
  judges: ['patch-valid-accepted'],
  group: 'counterparty-patch',
  access: 'write',
  async run(ctx) {
    const ref = ctx.target.writableRef!;
    const original = (await readWritable(ctx, ref, ROLE.before)).body;
    const reads = new Reads(ctx, ref);
    await reads.after();
    try {
      await runProperty(ctx, {
        name: 'valid details patch',
        arbitrary: validDetailsBody(),
        examples: validDetailsBodyExamples(),
        probe: (input) => probeValid(ctx, reads, ref, input),
      });
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
    let spent = 0;
    let refused = 0;
    const original = (await readWritable(ctx, ref, ROLE.before)).body;
    const reads = new Reads(ctx, ref);
    await reads.after();
    try {
      await runProperty(ctx, {
        name: 'valid accounts patch',
        arbitrary: validAccountsBody(fixture),
        examples: validAccountsBodyExamples(fixture),
        runs: Math.min(ctx.target.runs, ACCOUNT_RUNS),
        maxShrinkProbes: 20,
        async probe(input) {
          const n = input.value.counterpartyAccounts?.length ?? 0;
          if (spent + n > budget) {
            refused++;
            return undefined;
          }
          spent += n;
          return probeValid(ctx, reads, ref, input);
        },
      });
    } finally {
      ctx.note(`accounts sent to ${ref}: ${spent} of a budget of ${budget} (CONFORMANCE_ACCOUNT_BUDGET)`);
      if (refused > 0) ctx.note(`${refused} account case(s) not sent: the account budget was spent`);
      ctx.note(
        'account countries come from the country list only: the request pattern ^[A-Z]*$ also admits codes such as UK that a returned account may not carry (§2.2, §2.3)',
      );
      await restoreDetails(ctx, ref, original);
    }
  },
};

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
    const reads = new Reads(ctx, ref);
    await runProperty(ctx, {
      name: 'invalid patch',
      arbitrary: invalidPatchBody(fixture),
      examples: invalidPatchBodyExamples(fixture),
      async probe(input) {
        await reads.before();
        const patch = await ctx.http.send(patchRequest(ref, input));
        await reads.after();
        if (patch.status >= 400 && patch.status <= 499) {
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
