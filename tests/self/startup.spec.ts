/**
 * Playwright's runner started before the run is known (bin/warm-runner.ts), with a stand-in for
 * Playwright's program that writes down what happened to it, in order: it is loaded before the
 * run is handed over, then runs the command with the run's command line and environment (and no
 * configuration variable of the command's, nor the -e of its script, for the workers it forks);
 * a runner never handed a run exits. Global setup takes the embedded server the CLI started beside
 * the runner rather than starting its own; in a clone, what runs a probe is compiled into
 * Playwright's cache once for given sources (suite/worker-modules.ts). And Node's compile cache (bin/compile-cache.ts): where
 * it is.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { WarmRunner } from '../../bin/warm-runner.ts';
import { compileCacheDir, withCompileCache } from '../../bin/compile-cache.ts';
import { PACKAGE_ROOT } from '../../config/layout.ts';
import { EMBEDDED_TARGET } from '../../config/embedded.ts';
import { resolveRun } from '../../run/resolve.ts';
import { EMBEDDED_SERVER_VARIABLE, RESOLVED_VARIABLE, encodeRun, resolvedRun } from '../../run/hand-down.ts';
import globalSetup from '../../suite/global-setup.ts';
import { compileWorkerModules, playwrightCacheDir, sourcesDigest } from '../../suite/worker-modules.ts';
import type { FullConfig } from '@playwright/test';
import { removeTemporaryDirectories, temporaryDirectory } from './cli-fixtures.ts';

test.afterAll(() => removeTemporaryDirectories());

/** A stand-in for playwright/lib/program: its loading and its command, written to `log`. */
function standIn(dir: string): { program: string; log: string } {
  const log = join(dir, 'log.jsonl');
  const program = join(dir, 'program.cjs');
  writeFileSync(
    program,
    `const { appendFileSync } = require('node:fs');
const say = (event) => appendFileSync(${JSON.stringify(log)}, JSON.stringify(event) + '\\n');
say({ event: 'loaded', handed: process.env.HANDED ?? null });
exports.program = {
  parse(argv) {
    say({
      event: 'parse',
      argv: argv.slice(1),
      execArgv: process.execArgv,
      handed: process.env.HANDED ?? null,
      token: process.env.API_TOKEN ?? null,
      kept: process.env.KEPT_AT_START ?? null,
      cwd: process.cwd(),
    });
  },
};
`,
  );
  return { program, log };
}

function events(log: string): Record<string, unknown>[] {
  return existsSync(log)
    ? readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
    : [];
}

function exited(runner: WarmRunner): Promise<number | null> {
  const child = runner.child;
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

test('it loads Playwright before it is handed the run, then runs the command with the run alone', async () => {
  const dir = temporaryDirectory('payflow-warm-');
  const { program, log } = standIn(dir);
  const runner = WarmRunner.start(
    '/opt/playwright/cli.js',
    dir,
    { PATH: process.env.PATH, API_TOKEN: 'secret-of-the-command', KEPT_AT_START: 'no' },
    program,
  );
  // Loaded with nothing of the run: the event says so before anything is handed over.
  await expect.poll(() => events(log).map((e) => e.event)).toEqual(['loaded']);
  runner.hand(['test', '--config', 'x.config.ts'], { PATH: process.env.PATH, HANDED: 'yes' });
  expect(await exited(runner)).toBe(0);
  const [loaded, parsed] = events(log);
  expect(loaded).toEqual({ event: 'loaded', handed: null });
  expect(parsed).toEqual({
    event: 'parse',
    argv: ['/opt/playwright/cli.js', 'test', '--config', 'x.config.ts'],
    execArgv: [],
    handed: 'yes',
    // A configuration variable never reaches Playwright's processes; what the run does not hand
    // down is gone from the environment its workers are forked with.
    token: null,
    kept: null,
    cwd: dir,
  });
  expect(() => runner.hand(['test'], {})).toThrow(/handed a run already/);
});

test('a runner never handed a run (the command failed before it) exits by itself', async () => {
  const dir = temporaryDirectory('payflow-warm-');
  const { program, log } = standIn(dir);
  const runner = WarmRunner.start('/opt/playwright/cli.js', dir, { PATH: process.env.PATH }, program);
  await expect.poll(() => events(log).length).toBe(1);
  // What the command's exit does to the pipe.
  (runner.child.stdio[3] as NodeJS.WritableStream).end();
  expect(await exited(runner)).toBe(0);
  expect(events(log).map((e) => e.event)).toEqual(['loaded']);
});

test("Node's compile cache: the user's, none when turned off, the clone's, the user's cache directory", () => {
  const home = (): string => '/home/someone';
  expect(compileCacheDir({ NODE_COMPILE_CACHE: '/cache/mine' }, true, home)).toBe('/cache/mine');
  expect(compileCacheDir({ NODE_DISABLE_COMPILE_CACHE: '1', NODE_COMPILE_CACHE: '/x' }, true, home)).toBe(
    undefined,
  );
  expect(compileCacheDir({}, false, home)).toBe(
    join(PACKAGE_ROOT, 'node_modules', '.cache', 'payflow-node-compile-cache'),
  );
  expect(compileCacheDir({}, true, home)).toBe('/home/someone/.cache/payflow-conformance/node-compile-cache');
  expect(compileCacheDir({ XDG_CACHE_HOME: '/xdg' }, true, home)).toBe(
    '/xdg/payflow-conformance/node-compile-cache',
  );
  expect(withCompileCache({ NODE_DISABLE_COMPILE_CACHE: '1' })).toEqual({ NODE_DISABLE_COMPILE_CACHE: '1' });
  expect(withCompileCache({ NODE_COMPILE_CACHE: '/c' }).NODE_COMPILE_CACHE).toBe('/c');
});

test('global setup takes the embedded server the CLI started, and starts none of its own', async () => {
  const dir = temporaryDirectory('payflow-setup-');
  const names = [
    RESOLVED_VARIABLE,
    EMBEDDED_SERVER_VARIABLE,
    'CONFORMANCE_RUN_STATE',
    'CONFORMANCE_TIMELINE',
    'PLAYWRIGHT_TRANSFORM_CACHE_DIR',
  ];
  const saved = new Map(names.map((n) => [n, process.env[n]]));
  const run = resolveRun({}, dir, EMBEDDED_TARGET);
  expect(run.config.baseURL).toBeUndefined();
  process.env[RESOLVED_VARIABLE] = encodeRun(run);
  // A port nothing listens on: global setup must neither start a server nor reach this one.
  process.env[EMBEDDED_SERVER_VARIABLE] = 'http://127.0.0.1:9';
  delete process.env.CONFORMANCE_RUN_STATE;
  // Its teardown stamps Playwright's cache, which a worker of these tests compiles nothing into.
  process.env.PLAYWRIGHT_TRANSFORM_CACHE_DIR = dir;
  try {
    const teardown = await globalSetup({ workers: 1 } as FullConfig);
    const handed = resolvedRun();
    expect(handed.config.baseURL).toBe('http://127.0.0.1:9');
    expect(handed.targetKind).toBe('embedded reference server');
    await teardown();
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
});

test("what runs a probe is compiled into Playwright's cache once for given sources, again when they change", async () => {
  const dir = temporaryDirectory('payflow-pwcache-');
  let loads = 0;
  const load = async (): Promise<void> => {
    loads++;
  };
  expect(await compileWorkerModules(load, 'digest-1', dir)).toBe(true);
  expect(await compileWorkerModules(load, 'digest-1', dir)).toBe(false);
  expect(await compileWorkerModules(load, 'digest-2', dir)).toBe(true);
  expect(loads).toBe(2);
  // A load that fails stamps nothing (the next run tries again), and fails no run.
  const failing = async (): Promise<void> => {
    throw new Error('a module that does not compile');
  };
  expect(await compileWorkerModules(failing, 'digest-3', dir)).toBe(false);
  expect(await compileWorkerModules(load, 'digest-3', dir)).toBe(true);
  // The digest follows the sources: a file changed, a file added.
  const root = temporaryDirectory('payflow-sources-');
  mkdirSync(join(root, 'engine'));
  writeFileSync(join(root, 'engine', 'a.ts'), 'export const a = 1;');
  const before = sourcesDigest(root);
  expect(sourcesDigest(root)).toBe(before);
  writeFileSync(join(root, 'engine', 'a.ts'), 'export const a = 2;');
  const changed = sourcesDigest(root);
  expect(changed).not.toBe(before);
  writeFileSync(join(root, 'engine', 'b.ts'), '');
  expect(sourcesDigest(root)).not.toBe(changed);
  expect(playwrightCacheDir({ PLAYWRIGHT_TRANSFORM_CACHE_DIR: '/c/pw' })).toBe('/c/pw');
});
