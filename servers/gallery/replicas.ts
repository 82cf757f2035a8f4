/**
 * Replicas that trail: reads served by a replica that applies the primary's writes in
 * order, each some time after it was made. The document does not promise that a read shows an
 * accepted PATCH at once, so a replica that trails within the settle window is conforming; a
 * change that appears only after the window, or a change a refused PATCH makes that appears late,
 * is still found. These variants run with the settle window SETTLE_MS.
 */
import { spec } from '../../spec/index.ts';
import {
  ReferenceServer,
  type Counterparty,
  type CounterpartyPatch,
  type ReferenceOptions,
  type RequestContext,
  type SchemaProblem,
} from '../reference.ts';
import type { Variant } from './types.ts';

/** The settle window (CONFORMANCE_SETTLE_MS) of the runs against these variants. */
export const SETTLE_MS = 1000;

/**
 * A server whose GETs of a counterparty are served by a replica: each write becomes visible
 * `lagMs(refused)` after it was made, and never before a write made earlier (replication is in
 * order). `refused` tells a write a refused PATCH made (a fault) from an accepted one. The lag is
 * measured on the server's clock (`options.now`): the self-tests hand it the run's own clock, so
 * that what the settle window sees does not depend on how busy the machine is.
 */
export class ReplicaServer extends ReferenceServer {
  /** Per reference: the versions in the order they were written, and when each becomes visible. */
  private readonly versions = new Map<string, { visibleAt: number; cp: Counterparty }[]>();
  private refusing = false;

  constructor(
    private readonly lagMs: (refused: boolean) => number,
    options: ReferenceOptions = {},
  ) {
    super(options);
  }

  /** Stores on the primary, and queues the version for the replica. */
  protected override save(cp: Counterparty): void {
    const ref = cp.counterpartyReference;
    const list = this.versions.get(ref) ?? [];
    const previous = this.lookup(ref);
    if (list.length === 0 && previous) list.push({ visibleAt: 0, cp: structuredClone(previous) });
    const after = list.at(-1)?.visibleAt ?? 0;
    list.push({
      visibleAt: Math.max(after, this.clock().getTime() + this.lagMs(this.refusing)),
      cp: structuredClone(cp),
    });
    this.versions.set(ref, list);
    super.save(cp);
  }

  /** Saves made while a refused PATCH is handled count as its (faulty) writes. */
  protected saveRefused(cp: Counterparty): void {
    this.refusing = true;
    try {
      this.save(cp);
    } finally {
      this.refusing = false;
    }
  }

  protected override getCounterparty(ctx: RequestContext): void {
    const list = this.versions.get(ctx.params.counterpartyReference!);
    const now = this.clock().getTime();
    const shown = list?.filter((v) => v.visibleAt <= now).at(-1)?.cp;
    if (!shown) return super.getCounterparty(ctx);
    this.sendJson(ctx.res, 200, this.present(shown), this.lifecycleHeaders(ctx.operation));
  }
}

/** A conforming replica: it trails within the settle window. */
export const CLEAN_REPLICA: Variant = {
  id: 'replica-trailing-400ms',
  fault:
    'None: reads come from a replica that shows each accepted PATCH 400 ms after it, within the settle window (conforming).',
  trips: [],
  settleMs: SETTLE_MS,
  create: (options) => new ReplicaServer(() => 400, options),
};

export const REPLICA_VARIANTS: Variant[] = [
  {
    id: 'replica-trailing-past-settle-window',
    fault:
      'Reads come from a replica that shows each accepted PATCH only 1.5 s after it, past the settle window.',
    trips: ['patch-persisted'],
    settleMs: SETTLE_MS,
    create: (options) => new ReplicaServer(() => 1500, options),
  },
  {
    id: 'replica-refused-change-appears-late',
    fault:
      'A refused PATCH with valid details and invalid accounts stores its details, which the replica shows 600 ms later (accepted PATCHes at once).',
    trips: ['patch-rejected-unchanged'],
    settleMs: SETTLE_MS,
    create: (options) =>
      new (class extends ReplicaServer {
        private current = '';
        protected override validatePatch(body: unknown): SchemaProblem[] {
          const problems = super.validatePatch(body);
          const patch = body as CounterpartyPatch | null;
          const detailsOk = !problems.some((p) => p.instancePath.startsWith('/counterpartyDetails'));
          const stored = this.lookup(this.current);
          if (problems.length > 0 && detailsOk && patch?.counterpartyDetails && stored) {
            const next = structuredClone(stored);
            this.mergeDetails(next, structuredClone(patch.counterpartyDetails));
            next.updatedAt = this.now();
            if (spec().errors('Counterparty', next).length === 0) this.saveRefused(next);
          }
          return problems;
        }
        protected override async patchCounterparty(ctx: RequestContext): Promise<void> {
          this.current = ctx.params.counterpartyReference!;
          await super.patchCounterparty(ctx);
        }
      })((refused) => (refused ? 600 : 0), options),
  },
];
