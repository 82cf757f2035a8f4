/**
 * The project as a user installs it: the tarball `npm pack` makes, installed into an empty
 * directory (dependencies from the npm registry, or npm's cache). Packing and installing take a
 * while, so it is done once per run of the self-tests for every spec that needs it
 * (pack.spec.ts, distribution.spec.ts, safety-entry-points.spec.ts), by whichever worker gets
 * there first: the others wait for it. The directory is made by the self-tests' global setup
 * (PACK_DIR_ENV) and removed at their end. The build npm pack runs compiles without checking the
 * types (PAYFLOW_BUILD_TYPECHECK=0, scripts/build.ts): the same files, in half the CPU of the
 * pack; `npm test` type-checks the same sources before the self-tests (npm run typecheck).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childEnv, ROOT, type ProcessRun } from './cli-fixtures.ts';

/** Where the packed project is installed, for every worker of one run of the self-tests. */
export const PACK_DIR_ENV = 'PAYFLOW_SELF_TEST_PACK_DIR';

export interface InstalledApp {
  /** The directory the tarball is installed in (its node_modules holds the package). */
  app: string;
  /** The package as installed. */
  installed: string;
  /** How long each step took, for the log. */
  timings: string[];
}

/** Runs `command` with PATH and HOME only (childEnv): no configuration variable of this shell reaches it. */
export async function runWithPath(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string | undefined> = {},
): Promise<ProcessRun & { ms: number }> {
  const started = performance.now();
  const child = spawn(command, args, {
    cwd,
    env: childEnv(env),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
  return { code, stdout, stderr, ms: performance.now() - started };
}

/**
 * Runs named steps with runWithPath, each one's time added to `timings` ("npm pack 3.2 s"); a step
 * that exits other than 0 throws, its output in the message.
 */
export function timedSteps(
  timings: string[],
): (
  what: string,
  command: string,
  args: string[],
  cwd: string,
  env?: Record<string, string | undefined>,
) => Promise<ProcessRun> {
  return async (what, command, args, cwd, env = {}) => {
    const r = await runWithPath(command, args, cwd, env);
    timings.push(`${what} ${(r.ms / 1000).toFixed(1)} s`);
    if (r.code !== 0) throw new Error(`${what} exited ${r.code}: ${r.stdout}\n${r.stderr}`);
    return r;
  };
}

async function packAndInstall(dir: string): Promise<InstalledApp> {
  const timings: string[] = [];
  const step = timedSteps(timings);
  const packed = join(dir, 'packed');
  mkdirSync(packed);
  // Its prepack builds dist/ without checking the types (see above).
  const pack = await step('npm pack', 'npm', ['pack', '--json', '--pack-destination', packed], ROOT, {
    PAYFLOW_BUILD_TYPECHECK: '0',
  });
  // Its prepack (the build) may write before npm's JSON: the JSON is the last thing printed.
  const json = pack.stdout.slice(pack.stdout.search(/^\[/m));
  const [{ filename }] = JSON.parse(json) as [{ filename: string }];
  const app = join(dir, 'app');
  mkdirSync(app);
  await step(
    'npm install',
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--no-package-lock', join(packed, filename)],
    app,
  );
  return { app, installed: join(app, 'node_modules', 'payflow-conformance'), timings };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

let mine: Promise<InstalledApp> | undefined;

/**
 * The installed project, packed and installed once per run of the self-tests. The first caller
 * (a directory made with mkdir is the lock) does it and writes done.json; the others read it,
 * or the error it failed with.
 */
export function installedApp(): Promise<InstalledApp> {
  mine ??= (async () => {
    const dir = process.env[PACK_DIR_ENV];
    if (!dir) throw new Error(`${PACK_DIR_ENV} is not set: run the self-tests with their configuration`);
    const done = join(dir, 'done.json');
    try {
      mkdirSync(join(dir, 'lock'));
    } catch {
      // Another worker packs: wait for it (an install takes a minute or two).
      for (;;) {
        if (existsSync(done)) {
          const result = JSON.parse(readFileSync(done, 'utf8')) as InstalledApp | { error: string };
          if ('error' in result) throw new Error(`packing failed in another worker: ${result.error}`);
          return result;
        }
        await sleep(500);
      }
    }
    try {
      const result = await packAndInstall(dir);
      writeFileSync(done, JSON.stringify(result));
      return result;
    } catch (error) {
      writeFileSync(done, JSON.stringify({ error: (error as Error).message }));
      throw error;
    }
  })();
  return mine;
}

/** For global setup: a fresh directory for this run's install, and its removal. */
export function preparePackDirectory(): () => void {
  const dir = join(tmpdir(), `payflow-self-pack-${process.pid}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir);
  process.env[PACK_DIR_ENV] = dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
