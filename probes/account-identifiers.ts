/**
 * The account identifiers the writable counterparty holds, for the probes of probes/sequences.ts and probes/concurrent-patches.ts
 * that add accounts: which identifier each new account takes from the fixtures, and whether a
 * refusal of a valid body is the document's silence (a 409 to an identifier held).
 */
import type { ProbeContext } from '../engine/probe-api.ts';
import { is2xx, type Exchange } from '../exchange/exchange.ts';
import { identifierKey, withAccountFixture, type AccountFixture } from '../generators/account-fixture.ts';
import type { PatchBody } from '../generators/patch-body.ts';
import { accountsOf, type Obj } from '../oracles/compare.ts';

/**
 * The account identifiers the writable counterparty holds, and the fixtures new accounts take
 * theirs from in turn (ACCOUNT_FIXTURE, one or a list): a service may refuse an identifier it
 * holds, on which the document is silent.
 */
export class Identifiers {
  private readonly held = new Set<string>();
  private next = 0;
  /** Valid bodies refused with 409 that repeated an identifier held: not judged. */
  duplicates = 0;
  constructor(private readonly fixtures: readonly AccountFixture[]) {}
  /** What the counterparty was read to hold. */
  saw(body: Obj): void {
    for (const a of accountsOf(body)) this.held.add(identifierKey(a));
  }
  /** The body, its accounts given the fixtures' identifiers in turn where there are several. */
  assign(body: PatchBody): PatchBody {
    const accounts = body.counterpartyAccounts;
    if (!accounts || this.fixtures.length < 2) return body;
    return {
      ...body,
      counterpartyAccounts: accounts.map((a) =>
        withAccountFixture(a, this.fixtures[this.next++ % this.fixtures.length]!),
      ),
    };
  }
  /**
   * Whether a valid body's refusal is the document's silence: 409 (RFC 9110 §15.5.10, a conflict
   * with the current state) to accounts repeating an identifier held or one another. Accepted
   * accounts are held from then on.
   */
  excused(body: PatchBody, ex: Exchange): boolean {
    const keys = (body.counterpartyAccounts ?? []).map(identifierKey);
    if (is2xx(ex.status)) {
      for (const k of keys) this.held.add(k);
      return false;
    }
    const repeats = keys.some((k, i) => this.held.has(k) || keys.indexOf(k) !== i);
    if (ex.status === 409 && repeats) this.duplicates++;
    return ex.status === 409 && repeats;
  }
}

/** The fixtures of the target, for Identifiers. */
export const fixturesOf = (ctx: ProbeContext): AccountFixture[] =>
  ctx.target.accountFixtures ?? (ctx.target.accountFixture ? [ctx.target.accountFixture] : []);

export const DUPLICATES_NOTE =
  'valid PATCH(es) adding an account with an identifier the counterparty holds were refused with 409 and not judged: the document does not say whether identifiers must be unique; give ACCOUNT_FIXTURE a list to add accounts with fresh ones';
