/**
 * Faults of the service as one system: what concurrent clients and one counterparty's writes do to
 * the stored state (RFC 5789 §2; interface.md §4.2). Each is invisible to one PATCH and the read
 * after it.
 */
import {
  REFERENCE_COUNTERPARTY,
  ReferenceServer,
  type Counterparty,
  type CounterpartyPatch,
  type RequestContext,
} from '../reference.ts';
import type { Variant } from './types.ts';

/** Turns of the event loop a write waits behind: long enough for a second request in flight to arrive. */
const WRITE_BEHIND_TURNS = 64;

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A read-modify-write without a lock: a PATCH reads the stored counterparty when it arrives, reads
 * its body, and writes the patched copy back a little later (a write behind a queue). Two PATCHes
 * in flight at once both start from the same state, and the one written last wins: the other's
 * change, answered 200, is lost. A PATCH alone is applied as the reference server applies it.
 */
class LostUpdateServer extends ReferenceServer {
  protected override async patchCounterparty(ctx: RequestContext): Promise<void> {
    const reference = ctx.params.counterpartyReference!;
    const snapshot = this.lookup(reference);
    const patch = await this.readValidPatch(ctx);
    if (patch === undefined) return;
    if (!snapshot) return this.patchUnknown(ctx, patch);
    const next = this.applyPatch(snapshot, patch);
    const problems = this.resultProblems(next);
    if (problems.length > 0)
      return this.sendError(
        ctx.res,
        400,
        'INVALID_REQUEST',
        'The patched counterparty would break the schema.',
        {},
        problems,
      );
    for (let i = 0; i < WRITE_BEHIND_TURNS; i++) await turn();
    this.save(next);
    this.sendUpdated(ctx, next, snapshot);
  }
}

/**
 * Counterparties that share their details: the details a PATCH sends to any counterparty are also
 * written to the readable one (ACME-Supplies_0001), as if both pointed at one vendor record.
 */
class SharedDetailsServer extends ReferenceServer {
  protected override applyPatch(current: Counterparty, patch: CounterpartyPatch): Counterparty {
    const next = super.applyPatch(current, patch);
    const shared = this.lookup(REFERENCE_COUNTERPARTY);
    if (patch.counterpartyDetails && shared && current.counterpartyReference !== REFERENCE_COUNTERPARTY) {
      const copy = structuredClone(shared);
      this.mergeDetails(copy, structuredClone(patch.counterpartyDetails));
      this.save(copy);
    }
    return next;
  }
}

/**
 * A cache filled by reads that a PATCH of details starts from, which a PATCH of accounts does not
 * update: after a read, an account PATCH, then a details PATCH, the accounts just added are gone.
 * Only that sequence of three shows it: a details PATCH with no read before it, or after a read
 * with no account PATCH between, starts from the stored counterparty.
 */
class StaleCacheServer extends ReferenceServer {
  private readonly cache = new Map<string, Counterparty>();

  protected override getCounterparty(ctx: RequestContext): void {
    const cp = this.lookup(ctx.params.counterpartyReference!);
    if (cp) this.cache.set(cp.counterpartyReference, structuredClone(cp));
    super.getCounterparty(ctx);
  }

  protected override applyPatch(current: Counterparty, patch: CounterpartyPatch): Counterparty {
    const cached = this.cache.get(current.counterpartyReference);
    if (patch.counterpartyAccounts === undefined && cached !== undefined) {
      const next = super.applyPatch(cached, patch);
      this.cache.set(next.counterpartyReference, structuredClone(next));
      return next;
    }
    return super.applyPatch(current, patch);
  }
}

export const CONCURRENCY_VARIANTS: Variant[] = [
  {
    id: 'patch-lost-update',
    fault:
      'A PATCH reads the stored counterparty when it arrives and writes the patched copy back a little later, with no lock: of two PATCHes in flight at once, the one written last wins and the other change, answered 200, is lost.',
    trips: ['patch-concurrent-serializable'],
    create: () => new LostUpdateServer(),
  },
  {
    id: 'patch-shared-details',
    fault:
      'Counterparties share their details: what a PATCH sends to any counterparty is written to the readable one too.',
    trips: ['patch-other-counterparty-unchanged'],
    create: () => new SharedDetailsServer(),
  },
  {
    id: 'patch-stale-read-cache',
    fault:
      'A details PATCH starts from a copy a read cached, which an account PATCH does not update: read, add an account, change a detail, and the account is gone.',
    trips: ['patch-unsent-fields-unchanged'],
    create: () => new StaleCacheServer(),
  },
];
