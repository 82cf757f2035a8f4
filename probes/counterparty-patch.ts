/**
 * PATCH /api/v1/counterparties/{ref} (interface.md §4.2, §7, §8; RFC 5789 §2): what an update
 * must do to the stored counterparty, judged by a GET before and a GET after every PATCH. These
 * checks write, so they run only with WRITABLE_COUNTERPARTY_REF and only against that
 * counterparty (plus invented references for the unknown-counterparty cases).
 */
import fc from 'fast-check';
import { DEFAULT_ACCOUNT_BUDGET } from '../config/config.ts';
import type { AccountFixture } from '../generators/account-fixture.ts';
import { validReference } from '../generators/counterparty-reference.ts';
import { canonicalJson, labelled, type Labelled } from '../generators/labelled.ts';
import {
  MALFORMED_JSON,
  describeBody,
  invalidPatchBody,
  invalidPatchBodyExamples,
  validAccountsBody,
  validAccountsBodyExamples,
  validDetailsBody,
  validDetailsBodyExamples,
  type PatchBody,
} from '../generators/patch-body.ts';
import { spec } from '../spec/index.ts';
import type { RequirementId } from '../spec/requirements.ts';
import {
  COUNTERPARTY_RESPONSE_REQUIREMENTS,
  checkCounterpartyResponse,
} from '../oracles/counterparty-response.ts';
import { describeResponse, type Exchange, type HttpRequest } from '../transport/client.ts';
import { LIFECYCLE_REQUIREMENTS, checkLifecycleHeaders } from '../oracles/lifecycle-headers.ts';
import { counterpartyPath } from '../exchange/paths.ts';
import { collect, runProperty, type Violation } from '../engine/property.ts';
import type { Check, CheckContext } from '../engine/types.ts';

type Obj = Record<string, unknown>;

/**
 * Account fields the service may change on its own between two requests: the document shows no
 * transitions of account state or verification (§3), so a verification may run at any time.
 */
export const SYSTEM_MANAGED_ACCOUNT_FIELDS: readonly string[] = [
  'state',
  'verificationStatus',
  'lastVerifiedAt',
  'updatedAt',
];

/** How much older than the server's clock the stored updatedAt must be before a move is required. */
export const UPDATED_AT_SLACK_MS = 60_000;

/** Random cases of the account-adding property: every case leaves accounts behind. */
export const ACCOUNT_RUNS = 8;
/** Random cases of the unknown-counterparty property. */
export const UNKNOWN_RUNS = 20;

/** Used for invalid bodies when no ACCOUNT_FIXTURE is configured: those bodies are rejected anyway. */
const PLACEHOLDER_FIXTURE: AccountFixture = {
  accountIdentifier: { placeholder: 'set ACCOUNT_FIXTURE to a valid account of the deployment' },
};

const COUNTERPARTY_FIELDS = Object.keys(spec().schema('Counterparty').properties ?? {});
const ADDRESS_FIELDS = Object.keys(spec().schema('Address').properties ?? {});
/** Judged by their own requirements, not by patch-unsent-fields-unchanged. */
const SEPARATELY_JUDGED = [
  'counterpartyReference',
  'createdAt',
  'updatedAt',
  'counterpartyAccounts',
  'address',
];
/** What identifies an account that was there before (all but the system-managed fields). */
const STABLE_ACCOUNT_FIELDS = [
  'accountType',
  'accountCategory',
  'name',
  'country',
  'currency',
  'createdAt',
  'accountIdentifier',
  'branchIdentifier',
];
/** Account fields a response must carry (their absence is the schema requirements' business). */
const REQUIRED_ACCOUNT_FIELDS = spec().schema('CounterpartyAccount').required ?? [];
/** What a new account must carry as sent (accountIdentifier may be masked: not shown, §2.3). */
const SENT_ACCOUNT_FIELDS = ['accountType', 'accountCategory', 'name', 'country', 'currency'];

const SCHEMA_REQUIREMENTS = COUNTERPARTY_RESPONSE_REQUIREMENTS;
const UPDATE_REQUIREMENTS = [
  'patch-valid-accepted',
  'patch-persisted',
  'patch-sent-fields-applied',
  'patch-unsent-fields-unchanged',
  'patch-immutable-fields',
  'patch-updated-at',
] as const;

function isObj(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function accountsOf(cp: Obj): Obj[] {
  return Array.isArray(cp.counterpartyAccounts) ? cp.counterpartyAccounts.filter(isObj) : [];
}

const ACCOUNT_FIELDS = Object.keys(spec().schema('CounterpartyAccount').properties ?? {});

function only(o: Obj, keys: readonly string[]): Obj {
  return Object.fromEntries(Object.entries(o).filter(([k]) => keys.includes(k)));
}

/**
 * What two states of a counterparty are compared on: the fields the document lists (a service may
 * add fields of its own, such as a request id, that differ between responses), without the account
 * fields the service may change on its own.
 */
export function comparable(cp: Obj): Obj {
  const out = only(structuredClone(cp), COUNTERPARTY_FIELDS);
  if (isObj(out.address)) out.address = only(out.address, ADDRESS_FIELDS);
  if (Array.isArray(out.counterpartyAccounts)) {
    const kept = ACCOUNT_FIELDS.filter((k) => !SYSTEM_MANAGED_ACCOUNT_FIELDS.includes(k));
    out.counterpartyAccounts = out.counterpartyAccounts.map((a: unknown) => (isObj(a) ? only(a, kept) : a));
  }
  return out;
}

const same = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);
const show = (v: unknown): string => (v === undefined ? 'absent' : JSON.stringify(v));

/** The JSON paths where two values differ (at most `limit`), each with both values. */
export function differences(a: unknown, b: unknown, limit = 5, path = ''): string[] {
  if (same(a, b)) return [];
  if (isObj(a) && isObj(b)) {
    const out: string[] = [];
    for (const key of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      out.push(...differences(a[key], b[key], limit - out.length, `${path}/${key}`));
      if (out.length >= limit) break;
    }
    return out;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    const out: string[] = [];
    for (let i = 0; i < a.length && out.length < limit; i++) {
      out.push(...differences(a[i], b[i], limit - out.length, `${path}/${i}`));
    }
    return out;
  }
  return [`${path || '(root)'}: ${truncate(show(a))} → ${truncate(show(b))}`];
}

function truncate(s: string, n = 120): string {
  return s.length > n ? `${s.slice(0, n)}…` : s;
}

type Snapshot = { ex: Exchange; body: Obj };

/** The counterparty as stored now; a writable counterparty that cannot be read stops the check. */
async function readWritable(ctx: CheckContext, ref: string): Promise<Snapshot> {
  const ex = await ctx.http.send({ method: 'GET', path: counterpartyPath(ref) });
  if (ex.status !== 200 || !isObj(ex.body)) {
    throw new Error(
      `cannot judge PATCH: GET of WRITABLE_COUNTERPARTY_REF ${ref} answered ${describeResponse(ex)}; it must name an existing counterparty`,
    );
  }
  return { ex, body: ex.body };
}

/**
 * The writable counterparty as the last GET of this check saw it. A check is the only writer
 * while it runs (write checks run one after another), so the GET after one PATCH is the GET before
 * the next: one request per case saved. Forgotten whenever a PATCH was not followed by a GET.
 */
class StoredState {
  private last: Snapshot | undefined;
  constructor(
    private readonly ctx: CheckContext,
    private readonly ref: string,
  ) {}
  async before(): Promise<Snapshot> {
    return (this.last ??= await readWritable(this.ctx, this.ref));
  }
  async after(): Promise<Snapshot> {
    this.last = await readWritable(this.ctx, this.ref);
    return this.last;
  }
  forget(): void {
    this.last = undefined;
  }
}

/** The PATCH request of a generated body: raw text for the not-JSON cases, JSON otherwise. */
export function patchRequest(ref: string, input: Labelled<unknown>): HttpRequest {
  const req: HttpRequest = { method: 'PATCH', path: counterpartyPath(ref) };
  if (input.rule.keyword === MALFORMED_JSON) req.rawBody = String(input.value);
  else req.json = input.value;
  return req;
}

const is2xx = (status: number): boolean => status >= 200 && status <= 299;

/** The server's clock when it answered (the Date header), or this machine's clock without one. */
function serverTime(ex: Exchange): number {
  const date = ex.headers['date'];
  const ms = date === undefined ? Number.NaN : Date.parse(date);
  return Number.isNaN(ms) ? Date.now() : ms;
}

interface UpdateContext {
  violations: Violation[];
  ref: string;
  body: PatchBody;
  before: { ex: Exchange; body: Obj };
  patch: Exchange;
  response: Obj;
  after: { ex: Exchange; body: Obj };
}

function violation(
  into: Violation[],
  exchange: Exchange,
  requirement: RequirementId,
  message: string,
  expected: string,
  received: string,
): void {
  into.push({ exchange, requirement, message, expected, received });
}

/** The response is what a GET returns afterwards. */
function judgePersisted(u: UpdateContext): void {
  const diff = differences(comparable(u.response), comparable(u.after.body));
  if (diff.length === 0) return;
  violation(
    u.violations,
    u.after.ex,
    'patch-persisted',
    `a GET after the accepted PATCH (${describeBody(u.body)}) differs from the PATCH response`,
    'the counterparty the PATCH returned',
    `response → GET: ${diff.join('; ')}`,
  );
}

/** Every detail (and address field) sent has its new value. */
function judgeSentApplied(u: UpdateContext): void {
  const details = u.body.counterpartyDetails ?? {};
  const wrong: string[] = [];
  for (const [key, sent] of Object.entries(details)) {
    if (key === 'address' && isObj(sent)) {
      const stored = isObj(u.response.address) ? u.response.address : {};
      for (const [field, value] of Object.entries(sent)) {
        if (!same(stored[field], value))
          wrong.push(`address.${field} is ${show(stored[field])}, sent ${show(value)}`);
      }
    } else if (!same(u.response[key], sent)) {
      wrong.push(`${key} is ${truncate(show(u.response[key]))}, sent ${truncate(show(sent))}`);
    }
  }
  if (wrong.length === 0) return;
  violation(
    u.violations,
    u.patch,
    'patch-sent-fields-applied',
    `the updated counterparty does not carry what was sent: ${wrong[0]}`,
    'every field sent in counterpartyDetails with the value sent',
    wrong.join('; '),
  );
}

/** Accounts as multisets: each of `a` matched to a distinct item of `b` by `key`. */
function unmatched(a: Obj[], b: Obj[], match: (x: Obj, y: Obj) => boolean): { missing: Obj[]; rest: Obj[] } {
  const rest = [...b];
  const missing: Obj[] = [];
  for (const x of a) {
    const i = rest.findIndex((y) => match(x, y));
    if (i === -1) missing.push(x);
    else rest.splice(i, 1);
  }
  return { missing, rest };
}

const stableMatch = (x: Obj, y: Obj): boolean => STABLE_ACCOUNT_FIELDS.every((k) => same(x[k], y[k]));
const accountName = (a: Obj): string => show(a.name ?? a.accountIdentifier);

/** Fields not sent keep their values; accounts stay when none are sent. */
function judgeUnsentUnchanged(u: UpdateContext): void {
  const details = u.body.counterpartyDetails ?? {};
  const changed: string[] = [];
  for (const key of COUNTERPARTY_FIELDS) {
    if (SEPARATELY_JUDGED.includes(key) || key in details) continue;
    if (!same(u.response[key], u.before.body[key])) {
      changed.push(`${key}: ${truncate(show(u.before.body[key]))} → ${truncate(show(u.response[key]))}`);
    }
  }
  const before = isObj(u.before.body.address) ? u.before.body.address : undefined;
  const now = isObj(u.response.address) ? u.response.address : undefined;
  if (!isObj(details.address)) {
    if (!same(before, now)) changed.push(`address: ${show(before)} → ${show(now)}`);
  } else {
    // A partial address may be merged or may replace the stored one: a field not sent may stay or go.
    for (const field of ADDRESS_FIELDS) {
      if (field in details.address) continue;
      const was = before?.[field];
      const is = now?.[field];
      if (is !== undefined && !same(is, was)) changed.push(`address.${field}: ${show(was)} → ${show(is)}`);
    }
  }
  if (!u.body.counterpartyAccounts) {
    const was = accountsOf(comparable(u.before.body));
    const is = accountsOf(comparable(u.response));
    const { missing, rest } = unmatched(was, is, (x, y) => same(x, y));
    if (missing.length > 0 || rest.length > 0) {
      changed.push(
        `counterpartyAccounts: ${missing.length} of ${was.length} existing account(s) changed or gone (${missing.map(accountName).join(', ')}), ${rest.length} unexpected`,
      );
    }
  }
  if (changed.length === 0) return;
  violation(
    u.violations,
    u.patch,
    'patch-unsent-fields-unchanged',
    `a field the patch did not send changed: ${changed[0]}`,
    'every field not sent keeps its value (details are merged, accounts kept)',
    changed.join('; '),
  );
}

function judgeImmutable(u: UpdateContext): void {
  const changed = ['counterpartyReference', 'createdAt']
    .filter((k) => !same(u.response[k], u.before.body[k]))
    .map((k) => `${k}: ${show(u.before.body[k])} → ${show(u.response[k])}`);
  if (changed.length === 0) return;
  violation(
    u.violations,
    u.patch,
    'patch-immutable-fields',
    `the PATCH changed ${changed[0]}`,
    'counterpartyReference and createdAt as before the PATCH',
    changed.join('; '),
  );
}

function judgeUpdatedAt(u: UpdateContext): void {
  const was = typeof u.before.body.updatedAt === 'string' ? Date.parse(u.before.body.updatedAt) : Number.NaN;
  const is = typeof u.response.updatedAt === 'string' ? Date.parse(u.response.updatedAt) : Number.NaN;
  if (Number.isNaN(was) || Number.isNaN(is)) return; // the schema requirements report unreadable timestamps
  const received = `updatedAt ${show(u.before.body.updatedAt)} → ${show(u.response.updatedAt)}`;
  if (is < was) {
    violation(
      u.violations,
      u.patch,
      'patch-updated-at',
      'updatedAt moved backwards',
      'updatedAt not earlier than before the PATCH',
      received,
    );
    return;
  }
  const clock = serverTime(u.before.ex);
  if (is === was && was < clock - UPDATED_AT_SLACK_MS) {
    violation(
      u.violations,
      u.patch,
      'patch-updated-at',
      'updatedAt did not move although the stored counterparty was last updated earlier',
      `updatedAt later than ${show(u.before.body.updatedAt)} (the server's clock read ${new Date(clock).toISOString()} before the PATCH)`,
      received,
    );
  }
}

/** The sent accounts were added, the existing ones kept. */
function judgeAccountsAppended(u: UpdateContext): void {
  const sent = (u.body.counterpartyAccounts ?? []) as Obj[];
  if (sent.length === 0) return;
  const was = accountsOf(u.before.body);
  const is = accountsOf(u.response);
  const kept = unmatched(was, is, stableMatch);
  // A required field the response leaves out is the schema's business; a different value, or an
  // optional field sent and not kept, is not the account sent.
  const added = unmatched(sent, kept.rest, (s, r) =>
    SENT_ACCOUNT_FIELDS.every(
      (k) =>
        s[k] === undefined || (r[k] === undefined && REQUIRED_ACCOUNT_FIELDS.includes(k)) || same(s[k], r[k]),
    ),
  );
  const problems: string[] = [];
  if (kept.missing.length > 0) {
    problems.push(
      `${kept.missing.length} existing account(s) lost or replaced: ${kept.missing.map(accountName).join(', ')}`,
    );
  }
  if (added.missing.length > 0) {
    problems.push(
      `${added.missing.length} sent account(s) not added as sent: ${added.missing.map(accountName).join(', ')}`,
    );
  }
  if (added.rest.length > 0) problems.push(`${added.rest.length} account(s) more than were sent`);
  if (problems.length === 0) return;
  violation(
    u.violations,
    u.patch,
    'patch-accounts-appended',
    `the accounts are not the existing ones plus the ones sent: ${problems[0]}`,
    `${was.length} existing account(s) kept and ${sent.length} added with the type, category, name, country and currency sent`,
    `${is.length} account(s) returned; ${problems.join('; ')}`,
  );
}

interface Seen {
  sunset: boolean;
  deprecation: boolean;
  address: boolean;
  accounts: boolean;
  accepted: number;
}

/** One valid body: GET, PATCH, GET, and every judgement of an accepted update. */
async function probeValid(
  ctx: CheckContext,
  state: StoredState,
  ref: string,
  input: Labelled<PatchBody>,
  seen: Seen,
): Promise<Violation[]> {
  const violations: Violation[] = [];
  const before = await state.before();
  state.forget();
  const patch = await ctx.http.send(patchRequest(ref, input));
  if (!is2xx(patch.status)) {
    violation(
      violations,
      patch,
      'patch-valid-accepted',
      `the valid body (${input.rule.description}) was answered ${patch.status || 'with no response'}`,
      '2xx with the updated counterparty (interface.md §4.2)',
      describeResponse(patch),
    );
    return violations;
  }
  seen.accepted++;
  const where = `PATCH ${ref}`;
  const sink = collect(violations);
  checkLifecycleHeaders(sink, patch, where);
  seen.sunset ||= patch.headers['sunset'] !== undefined;
  seen.deprecation ||= patch.headers['deprecation'] !== undefined;
  checkCounterpartyResponse(sink, patch, { reference: ref, where });
  if (!isObj(patch.body)) return violations;
  seen.address ||= patch.body.address !== undefined;
  seen.accounts ||= accountsOf(patch.body).length > 0;
  const after = await state.after();
  const u: UpdateContext = { violations, ref, body: input.value, before, patch, response: patch.body, after };
  judgePersisted(u);
  judgeSentApplied(u);
  judgeUnsentUnchanged(u);
  judgeImmutable(u);
  judgeUpdatedAt(u);
  judgeAccountsAppended(u);
  return violations;
}

function markUnseen(ctx: CheckContext, seen: Seen, declared: readonly RequirementId[]): void {
  const why = (what: string): string => `no accepted PATCH response carried ${what}`;
  if (!seen.sunset) {
    ctx.notApplicable('sunset-date-time', why('a Sunset header'));
    ctx.notApplicable('sunset-document-format', why('a Sunset header'));
  }
  if (!seen.deprecation) ctx.notApplicable('deprecation-structured-date', why('a Deprecation header'));
  if (!seen.sunset || !seen.deprecation)
    ctx.notApplicable('sunset-not-before-deprecation', why('both lifecycle headers'));
  if (!seen.address) ctx.notApplicable('address-schema', why('an address'));
  if (!seen.accounts) ctx.notApplicable('account-schema', why('an account'));
  if (seen.accepted === 0) {
    for (const id of declared.filter((r) => r !== 'patch-valid-accepted')) {
      ctx.notApplicable(id, 'no PATCH was accepted, so no update could be inspected');
    }
  }
}

const DETAIL_FIELDS = Object.keys(spec().schema('PatchCounterpartyDetails').properties ?? {});

/**
 * Puts back the detail fields the writable counterparty had when a check started (not a
 * judgement: housekeeping). Fields it did not have cannot be removed again (the interface has no
 * way to), and accounts added stay.
 */
async function restoreDetails(ctx: CheckContext, ref: string, original: Obj): Promise<void> {
  const details = Object.fromEntries(
    DETAIL_FIELDS.filter((k) => original[k] !== undefined).map((k) => [k, original[k]]),
  );
  if (Object.keys(details).length === 0) return;
  const ex = await ctx.http.send({
    method: 'PATCH',
    path: counterpartyPath(ref),
    json: { counterpartyDetails: details },
  });
  ctx.note(
    is2xx(ex.status)
      ? `restored the original ${Object.keys(details).join(', ')} of ${ref}`
      : `could not restore the original details of ${ref}: ${describeResponse(ex)}`,
  );
}

function freshSeen(): Seen {
  return { sunset: false, deprecation: false, address: false, accounts: false, accepted: 0 };
}

export const patchValidDetails: Check = {
  id: 'patch-valid-details',
  title: 'valid detail patches are accepted, returned, stored, merged and leave the rest unchanged',
  requirements: [...UPDATE_REQUIREMENTS, ...SCHEMA_REQUIREMENTS, ...LIFECYCLE_REQUIREMENTS],
  group: 'counterparty-patch',
  access: 'write',
  async run(ctx) {
    const ref = ctx.target.writableRef!;
    const seen = freshSeen();
    const state = new StoredState(ctx, ref);
    const original = (await state.before()).body;
    await runProperty(ctx, {
      name: 'valid details patch',
      arbitrary: validDetailsBody(),
      examples: validDetailsBodyExamples(),
      probe: (input) => probeValid(ctx, state, ref, input, seen),
    });
    markUnseen(ctx, seen, this.requirements);
    await restoreDetails(ctx, ref, original);
  },
};

export const patchValidAccounts: Check = {
  id: 'patch-valid-accounts',
  title: 'valid account patches add the accounts sent and keep the existing ones',
  requirements: [
    ...UPDATE_REQUIREMENTS,
    'patch-accounts-appended',
    ...SCHEMA_REQUIREMENTS,
    ...LIFECYCLE_REQUIREMENTS,
  ],
  group: 'counterparty-patch',
  access: 'write',
  async run(ctx) {
    const ref = ctx.target.writableRef!;
    const fixture = ctx.target.accountFixture;
    if (!fixture) {
      for (const id of this.requirements) {
        ctx.notApplicable(
          id,
          'ACCOUNT_FIXTURE is not set, so no valid account can be sent (its identifier fields are not shown in the document)',
        );
      }
      return;
    }
    const budget = ctx.target.accountBudget ?? DEFAULT_ACCOUNT_BUDGET;
    let spent = 0;
    let refused = 0;
    const seen = freshSeen();
    const state = new StoredState(ctx, ref);
    const original = (await state.before()).body;
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
          return [];
        }
        spent += n;
        return probeValid(ctx, state, ref, input, seen);
      },
    });
    ctx.note(`accounts sent to ${ref}: ${spent} of a budget of ${budget} (CONFORMANCE_ACCOUNT_BUDGET)`);
    if (refused > 0) ctx.note(`${refused} account case(s) not sent: the account budget was spent`);
    ctx.note(
      'account countries come from the country list only: the request pattern ^[A-Z]*$ also admits codes such as UK that a returned account may not carry (§2.2, §2.3)',
    );
    markUnseen(ctx, seen, this.requirements);
    await restoreDetails(ctx, ref, original);
  },
};

export const patchInvalidBodies: Check = {
  id: 'patch-invalid-bodies',
  title: 'invalid patch bodies are rejected with a 4xx and change nothing, not even their valid part',
  requirements: ['patch-invalid-rejected', 'patch-rejected-unchanged'],
  group: 'counterparty-patch',
  access: 'write',
  async run(ctx) {
    const ref = ctx.target.writableRef!;
    const fixture = ctx.target.accountFixture ?? PLACEHOLDER_FIXTURE;
    const state = new StoredState(ctx, ref);
    await runProperty(ctx, {
      name: 'invalid patch',
      arbitrary: invalidPatchBody(fixture),
      examples: invalidPatchBodyExamples(fixture),
      async probe(input) {
        const violations: Violation[] = [];
        const before = await state.before();
        state.forget();
        const patch = await ctx.http.send(patchRequest(ref, input));
        if (patch.status < 400 || patch.status > 499) {
          violation(
            violations,
            patch,
            'patch-invalid-rejected',
            `the invalid body (${input.rule.description}) was answered ${patch.status || 'with no response'}`,
            'a 4xx status: the body breaks a rule of interface.md §4.2 (which 4xx is not shown)',
            describeResponse(patch),
          );
        }
        const after = await state.after();
        if (!is2xx(patch.status)) {
          const diff = differences(comparable(before.body), comparable(after.body));
          if (diff.length > 0) {
            violation(
              violations,
              after.ex,
              'patch-rejected-unchanged',
              `a PATCH answered ${patch.status || 'with no response'} (${input.rule.description}) changed the counterparty`,
              'the counterparty exactly as before the rejected PATCH (RFC 5789 §2: applied atomically or not at all)',
              `before → after: ${diff.join('; ')}`,
            );
          }
        }
        return violations;
      },
    });
  },
};

/** An invented reference, from the reference pattern, for a counterparty that should not exist. */
function unknownCase(fixture: AccountFixture): fc.Arbitrary<Labelled<{ reference: string; body: unknown }>> {
  return fc
    .tuple(
      validReference(),
      fc.oneof(validDetailsBody() as fc.Arbitrary<Labelled<unknown>>, invalidPatchBody(fixture)),
    )
    .map(([r, b]) =>
      labelled(
        { reference: r.value, body: b.value },
        { ...b.rule, description: `unknown counterparty ${r.value}; ${b.rule.description}` },
      ),
    );
}

export const patchUnknownCounterparty: Check = {
  id: 'patch-unknown-counterparty',
  title: 'a PATCH of a counterparty that does not exist is not a success and creates nothing',
  requirements: ['patch-unknown-not-created'],
  group: 'counterparty-patch',
  access: 'write',
  async run(ctx) {
    const fixture = ctx.target.accountFixture ?? PLACEHOLDER_FIXTURE;
    const stem = `conformance-unknown-${(ctx.target.seed >>> 0).toString(36)}`;
    const examples = validDetailsBodyExamples()
      .slice(0, 2)
      .map((b, i) =>
        labelled(
          { reference: `${stem}-${i}`, body: b.value as unknown },
          { ...b.rule, description: `unknown counterparty ${stem}-${i}; ${b.rule.description}` },
        ),
      );
    let existing = 0;
    await runProperty(ctx, {
      name: 'patch of an unknown counterparty',
      arbitrary: unknownCase(fixture),
      examples,
      runs: Math.min(ctx.target.runs, UNKNOWN_RUNS),
      maxShrinkProbes: 100,
      async probe(input) {
        const { reference, body } = input.value;
        const path = counterpartyPath(reference);
        const pre = await ctx.http.send({ method: 'GET', path });
        if (is2xx(pre.status)) {
          existing++;
          return [];
        }
        const violations: Violation[] = [];
        const patch = await ctx.http.send(patchRequest(reference, labelled(body, input.rule)));
        if (is2xx(patch.status)) {
          violation(
            violations,
            patch,
            'patch-unknown-not-created',
            `a PATCH of the unknown counterparty ${reference} was answered ${patch.status}`,
            'not 2xx: PATCH changes an existing counterparty (which error status is not shown)',
            describeResponse(patch),
          );
        }
        const post = await ctx.http.send({ method: 'GET', path });
        if (is2xx(post.status)) {
          violation(
            violations,
            post,
            'patch-unknown-not-created',
            `a PATCH of the unknown counterparty ${reference} created it`,
            'no counterparty under a reference that did not exist before the PATCH',
            describeResponse(post),
          );
        }
        return violations;
      },
    });
    if (existing > 0) ctx.note(`${existing} invented reference(s) already existed and were left alone`);
  },
};

export const COUNTERPARTY_PATCH_CHECKS: Check[] = [
  patchValidDetails,
  patchValidAccounts,
  patchInvalidBodies,
  patchUnknownCounterparty,
];
