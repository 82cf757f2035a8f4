/**
 * The steps of patch-sequences on the one lane of a writable counterparty: a read of the readable
 * counterparty goes out beside the next step, not before it (probes/sequences.ts `beside`), and the
 * next write probe starts from the reads a sequence ended with, though one of them is of the
 * readable counterparty (engine/run.ts knownRead).
 */
import { expect, test } from '@playwright/test';
import { EMBEDDED_POLITENESS } from '../../config/config.ts';
import { MemoryBaselines } from '../../engine/baseline.ts';
import { RunContext, runProbe } from '../../engine/run.ts';
import type { Exchange } from '../../exchange/exchange.ts';
import { concurrentPatches } from '../../probes/concurrent-patches.ts';
import { patchSequences } from '../../probes/sequences.ts';
import { REFERENCE_COUNTERPARTY, ReferenceServer, type RequestContext } from '../../servers/reference.ts';
import { TargetSession } from '../../transport/session.ts';
import { galleryTarget } from './suite-runner.ts';

/**
 * At most how long the server holds a read of the readable counterparty with no request after it
 * (a read before the sequence, with only the writable one's read beside it).
 */
const HOLD_MS = 500;

/**
 * The reference server, holding each read of the readable counterparty until a request of the
 * writable one arrives after it (a read or a PATCH), or HOLD_MS have passed. A step sent beside
 * the read therefore always starts before the read ends, however busy the machine; a step that
 * waited for the read starts only after it, HOLD_MS late.
 */
class HoldingServer extends ReferenceServer {
  private held: (() => void)[] = [];

  private release(): void {
    const held = this.held;
    this.held = [];
    for (const answer of held) answer();
  }

  protected override getCounterparty(ctx: RequestContext): void {
    if (ctx.params.counterpartyReference !== REFERENCE_COUNTERPARTY) {
      this.release();
      return super.getCounterparty(ctx);
    }
    let answered = false;
    const answer = (): void => {
      if (answered) return;
      answered = true;
      super.getCounterparty(ctx);
    };
    this.held.push(answer);
    setTimeout(answer, HOLD_MS);
  }

  protected override validatePatch(body: unknown): ReturnType<ReferenceServer['validatePatch']> {
    this.release();
    return super.validatePatch(body);
  }
}

const endOf = (ex: Exchange): number => ex.startedAt + ex.durationMs;

test('a read of the readable counterparty within a sequence goes out beside the next step, and the next probe starts from the reads at its end', async () => {
  const server = new HoldingServer();
  const baseURL = await server.start(0);
  const session = new TargetSession({ politeness: EMBEDDED_POLITENESS });
  try {
    // As a run of the suite: the write probes hand their changes on (engine/baseline.ts).
    const run = new RunContext(session, baseURL, 0, new MemoryBaselines(true));
    const outcome = await runProbe(patchSequences, galleryTarget(baseURL), run);
    expect(outcome.findings).toEqual([]);
    const log = run.log.all;
    const mid = log.filter((ex) => ex.origin.role === 'read of the readable counterparty');
    // The explicit sequence with a read between two details, the reads at the end of each
    // sequence, and whatever the random ones drew.
    expect(mid.length).toBeGreaterThan(5);
    for (const read of mid) {
      // The first request sent after it (whatever completed first) left before it came back.
      const next = log
        .filter((ex) => ex !== read && ex.startedAt >= read.startedAt)
        .sort((a, b) => a.startedAt - b.startedAt)[0];
      expect(next, 'a step after every read of the readable counterparty').toBeDefined();
      expect(next!.startedAt).toBeLessThan(endOf(read));
    }
    // The sequences ended with both reads at once; the next write probe of the lane starts from
    // them rather than reading the writable counterparty again.
    const from = run.log.size;
    await runProbe(concurrentPatches, galleryTarget(baseURL), run);
    const first = run.log.all[from]!;
    expect(first.request.method).toBe('PATCH');
  } finally {
    session.close();
    await server.stop();
  }
});
