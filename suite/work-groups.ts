/**
 * The groups a run's checks run in, as Playwright schedules them: the probes of a write lane in
 * order in one worker (tests/conformance/0-writes.spec.ts: the file, or one of its lane describes
 * in a run with several writable counterparties: suite/define.ts), every other check on its own
 * (fullyParallel). Each group runs in one process at a time, so the groups not yet ended bound
 * the processes that may still send: the reporter keeps that count in the run's ledger
 * (transport/ledger.ts Ledger.sending), and a process left alone, the write lane once every read
 * ended, takes the whole of the run's cap on requests in flight (transport/session.ts).
 */
import type { Suite, TestCase } from '@playwright/test/reporter';
import { WRITE_LANES } from '../config/layout.ts';

/** The spec file a check was defined in: its file suite's (its own location is where test() was called: suite/define.ts). */
function specFile(test: TestCase): string {
  let suite: Suite | undefined = test.parent;
  while (suite !== undefined && suite.type !== 'file') suite = suite.parent;
  return suite?.location?.file ?? suite?.title ?? test.location.file;
}

/** The group a check runs in: its lane (the suite its tests are in order in), else itself. */
export function workGroup(test: TestCase): string {
  if (WRITE_LANES.test(specFile(test))) return `lane\u0000${test.parent.titlePath().join('\u0000')}`;
  return `check\u0000${test.id}`;
}

/** The groups of a run's checks not yet ended, counted down as its checks end. */
export class SendingGroups {
  private readonly left = new Map<string, number>();
  private readonly ended = new Set<string>();

  constructor(tests: readonly TestCase[]) {
    for (const test of tests) {
      const group = workGroup(test);
      this.left.set(group, (this.left.get(group) ?? 0) + 1);
    }
  }

  /** The groups not yet ended. */
  get size(): number {
    return this.left.size;
  }

  /** A check ended (each counts once): the groups left, when that made them fewer; else undefined. */
  end(test: TestCase): number | undefined {
    if (this.ended.has(test.id)) return undefined;
    this.ended.add(test.id);
    const group = workGroup(test);
    const n = this.left.get(group);
    if (n === undefined) return undefined;
    if (n > 1) {
      this.left.set(group, n - 1);
      return undefined;
    }
    this.left.delete(group);
    return this.left.size;
  }
}
