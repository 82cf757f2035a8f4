/**
 * The groups a run's checks run in (suite/work-groups.ts), which bound the processes that may
 * still send (transport/ledger.ts Ledger.sending): counted down as checks end, and made of the
 * suite as Playwright lists it for a run with one write lane and with two.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import type { Suite, TestCase } from '@playwright/test/reporter';
import { PACKAGE_ROOT } from '../../config/layout.ts';
import { SendingGroups, workGroup } from '../../suite/work-groups.ts';
import { removeTemporaryDirectories, temporaryDirectory } from './cli-fixtures.ts';

test.afterAll(removeTemporaryDirectories);

/** A suite of the shape Playwright reports: root, project, file, describes. */
function suite(type: Suite['type'], title: string, parent?: Suite, file?: string): Suite {
  const s = {
    type,
    title,
    parent,
    location: file === undefined ? undefined : { file, line: 1, column: 1 },
    titlePath: (): string[] => [...(parent ? parent.titlePath() : []), title],
  };
  return s as unknown as Suite;
}

/** A test defined (as suite/define.ts defines them) at a location other than its spec file. */
function check(id: string, parent: Suite): TestCase {
  return { id, parent, location: { file: '/suite/define.ts', line: 1, column: 1 } } as unknown as TestCase;
}

test('a write lane is one group, whatever file its tests were defined in; every other check is its own', () => {
  const root = suite('root', '');
  const project = suite('project', '', root);
  const writes = suite('file', '0-writes.spec.ts', project, '/t/0-writes.spec.ts');
  const others = suite('file', 'references.spec.ts', project, '/t/references.spec.ts');
  const lane = [check('w1', writes), check('w2', writes), check('w3', writes)];
  const reads = [check('r1', others), check('r2', others)];
  expect(new Set(lane.map(workGroup)).size).toBe(1);
  expect(new Set(reads.map(workGroup)).size).toBe(2);
  const groups = new SendingGroups([...lane, ...reads]);
  expect(groups.size).toBe(3);
  // A lane's check that ends leaves its lane; a check on its own takes its group with it.
  expect(groups.end(lane[0]!)).toBeUndefined();
  expect(groups.end(reads[0]!)).toBe(2);
  // A check counts once, however often its end is told.
  expect(groups.end(reads[0]!)).toBeUndefined();
  expect(groups.end(reads[1]!)).toBe(1);
  expect(groups.end(lane[1]!)).toBeUndefined();
  expect(groups.end(lane[2]!)).toBe(0);
  // Two lanes (describes of the file) are two groups.
  const two = ['lane 1 (W-1)', 'lane 2 (W-2)'].map((t) => suite('describe', t, writes));
  expect(new SendingGroups([check('a', two[0]!), check('b', two[0]!), check('c', two[1]!)]).size).toBe(2);
});

interface Listed {
  tests: number;
  groups: number;
  lanes: number;
  projects: number;
  lanesFirst: boolean;
}

/** The tests, groups and lanes of the suite as Playwright lists it for a run of `env`. */
function listed(env: Record<string, string>, deployment = true): Listed {
  const dir = temporaryDirectory('payflow-work-groups-');
  const out = execFileSync(
    process.execPath,
    [
      join(PACKAGE_ROOT, 'node_modules', '@playwright', 'test', 'cli.js'),
      'test',
      '--config',
      join(PACKAGE_ROOT, 'playwright.config.ts'),
      '--list',
      `--reporter=${join(PACKAGE_ROOT, 'tests', 'self', 'work-groups-reporter.ts')}`,
    ],
    {
      cwd: PACKAGE_ROOT,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '',
        HOME: dir,
        CONFORMANCE_REPORTS_DIR: join(dir, 'reports'),
        CONFORMANCE_RESULTS_DIR: join(dir, 'results'),
        ...(deployment
          ? { API_BASE_URL: 'http://127.0.0.1:9', API_TOKEN: 'tok', COUNTERPARTY_REF: 'ACME-1' }
          : {}),
        ...env,
      },
    },
  );
  return JSON.parse(out.trim().split('\n').at(-1)!) as Listed;
}

test('the suite as listed for a write run: one project, the lanes queued first, one group per lane', () => {
  const one = listed({ WRITABLE_COUNTERPARTY_REF: 'W-1' });
  expect(one).toMatchObject({ lanes: 1, projects: 1, lanesFirst: true });
  // The lane holds every write probe of the run: several checks in one group.
  expect(one.tests - one.groups).toBeGreaterThan(4);
  const two = listed({ WRITABLE_COUNTERPARTY_REF: 'W-1,W-2' });
  expect(two).toMatchObject({ lanes: 2, projects: 1, lanesFirst: true });
  expect(two.groups).toBe(one.groups + 1);
  // The embedded server's run, and a read-only one (its lane's checks skip): the same one project.
  expect(listed({}, false)).toMatchObject({ lanes: 1, projects: 1, lanesFirst: true });
  expect(listed({})).toMatchObject({ projects: 1, lanesFirst: true });
});
