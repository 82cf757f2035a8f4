/**
 * A Playwright reporter for tests/self/work-groups.spec.ts: prints, as JSON, how many checks a
 * listing of the conformance suite holds, how many of them are write probes, and how many groups
 * suite/work-groups.ts makes of them.
 */
import type { Reporter, Suite } from '@playwright/test/reporter';
import { WRITE_LANES } from '../../config/layout.ts';
import { SendingGroups, workGroup } from '../../suite/work-groups.ts';

export default class WorkGroupsReporter implements Reporter {
  onBegin(_config: unknown, suite: Suite): void {
    const tests = suite.allTests();
    const lanes = new Set(tests.map(workGroup).filter((g) => g.startsWith('lane')));
    // In the order Playwright queues them: its projects, their files, each file's tests.
    const isLane = tests.map((t) => workGroup(t).startsWith('lane'));
    const firstNotLane = isLane.indexOf(false);
    const lastLane = isLane.lastIndexOf(true);
    process.stdout.write(
      `${JSON.stringify({
        tests: tests.length,
        groups: new SendingGroups(tests).size,
        lanes: lanes.size,
        projects: suite.suites.length,
        lanesFirst: lastLane < firstNotLane || firstNotLane === -1,
        laneFile: WRITE_LANES.source,
      })}\n`,
    );
  }
  printsToStdio(): boolean {
    return true;
  }
}
