/**
 * What the commands (bin/conformance.ts, bin/merge-shards.ts, and bin/cli.ts, which dispatches
 * to them) share: one-line configuration errors (exit 2), Playwright run as a child whose output
 * passes through the token redaction, and the exit status derived from the run's outcome.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { StringDecoder } from 'node:string_decoder';
import { ConfigError } from '../config/error.ts';
import { UsageError } from './args.ts';
import { COMPILED, PACKAGE_ROOT } from '../config/layout.ts';
import { escapeControls } from '../exchange/escape.ts';
import { RedactingStream } from '../exchange/redact-stream.ts';
import { redactorOf, type SecretInput } from '../exchange/redactors.ts';
import { gatePassed } from '../reporter/gate.ts';
import { withCompileCache } from './compile-cache.ts';
import type { ConformanceRecord } from '../reporter/record.ts';
import type { RunOutcome } from '../reporter/outcome.ts';
import { LIVE_PROGRESS_ENV, liveProgressEnv } from '../reporter/live.ts';

/** The package's root: the clone, or the installed package (config/layout.ts). */
export const ROOT = PACKAGE_ROOT;

const require = createRequire(import.meta.url);

/**
 * The Playwright CLI of the @playwright/test this package depends on, wherever npm put it: below
 * the project's node_modules in the repository, beside the package when it is installed (npm
 * hoists dependencies), so the configuration's `@playwright/test` and the runner are one copy.
 */
export const PLAYWRIGHT_CLI = require.resolve('@playwright/test/cli');

/**
 * `env` for a Playwright process. In a clone Playwright compiles the TypeScript itself and maps
 * its locations. The package runs the compiled JavaScript, so every Node process of the run gets
 * --enable-source-maps (NODE_OPTIONS reaches the workers Playwright forks), after any
 * NODE_OPTIONS the user set: a stack through the suite's code names its TypeScript source line.
 */
export function withSourceMaps(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (!COMPILED) return env;
  return { ...env, NODE_OPTIONS: [env.NODE_OPTIONS, '--enable-source-maps'].filter(Boolean).join(' ') };
}

/** Whether a module is the script node was started with (in a module of its own, for bin/action.ts). */
export { isEntryPoint } from './entry-point.ts';

/**
 * A message as one line on the terminal: every control character (of a value quoted from an
 * input: a .env, a flag, a file) as a visible escape, line breaks included.
 */
export function oneLine(message: string): string {
  return escapeControls(message);
}

/** Prints one line on stderr, after the command's name, and exits 2. */
export type Fail = (message: string) => never;
/** Runs `fn`, turning a ConfigError or a UsageError into a Fail. */
export type OrFail = <T>(fn: () => T) => T;

/**
 * How a command ends on an error of its user's (usage, configuration, a malformed input). The
 * types are written where they are taken (`const fail: Fail = ...`): TypeScript sees that a call
 * does not return only through a name declared with its type.
 */
export function failures(command: string): { fail: Fail; orFail: OrFail } {
  const fail: Fail = (message) => {
    process.stderr.write(`${command}: ${oneLine(message)}\n`);
    process.exit(2);
  };
  const orFail: OrFail = (fn) => {
    try {
      return fn();
    } catch (error) {
      if (error instanceof ConfigError || error instanceof UsageError) fail(error.message);
      throw error;
    }
  };
  return { fail, orFail };
}

const conformance = failures('conformance');
/** The run command's (and the other commands' that share its name on stderr). */
export const fail: Fail = conformance.fail;
export const orFail: OrFail = conformance.orFail;

/**
 * The environment of a Playwright process started to run `env`'s run: source maps for the
 * compiled package, colours when this process writes to a terminal, Node's compile cache.
 */
export function playwrightProcessEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const childEnv: NodeJS.ProcessEnv = { ...withCompileCache(withSourceMaps(env)) };
  if (process.stdout.isTTY && childEnv.FORCE_COLOR === undefined) childEnv.FORCE_COLOR = '1';
  // On a terminal, a live progress line (reporter/live.ts): the run's processes write to this
  // pipe, not to the terminal, and would not know otherwise. Never inherited: not on a terminal,
  // none.
  delete childEnv[LIVE_PROGRESS_ENV];
  const live = liveProgressEnv(process.stdout)[LIVE_PROGRESS_ENV];
  if (live !== undefined) childEnv[LIVE_PROGRESS_ENV] = live;
  return childEnv;
}

/**
 * Passes a Playwright process's output through, with every form of `secrets` replaced
 * (exchange/redact.ts); resolves its exit status once it closed and its output is written.
 */
export async function passOutput(child: ChildProcess, secrets: readonly SecretInput[]): Promise<number> {
  const pipe = (from: NodeJS.ReadableStream, to: NodeJS.WritableStream): Promise<void> => {
    const decoder = new StringDecoder('utf8');
    const out = new RedactingStream(redactorOf(secrets), (text) => to.write(text));
    from.on('data', (chunk: Buffer) => out.push(decoder.write(chunk)));
    return new Promise((resolve) =>
      from.on('end', () => {
        out.push(decoder.end());
        out.end();
        resolve();
      }),
    );
  };
  const piped = Promise.all([pipe(child.stdout!, process.stdout), pipe(child.stderr!, process.stderr)]);
  const code: number = await new Promise((resolveCode) => {
    if (child.exitCode !== null || child.signalCode !== null)
      resolveCode(child.exitCode ?? (child.signalCode ? 2 : 0));
    else child.on('close', (c, signal) => resolveCode(c ?? (signal ? 2 : 0)));
  });
  await piped;
  return code;
}

/**
 * Runs the Playwright CLI with `args` in the project root. Its output is passed through with
 * every form of `secrets` replaced (exchange/redact.ts); colours are kept when this process writes to a terminal.
 * `detached`: in a process group of its own (bin/interrupt.ts says why), without stdin.
 */
export async function runPlaywright(
  args: string[],
  env: NodeJS.ProcessEnv,
  secrets: readonly SecretInput[],
  options: { detached?: boolean; onSpawn?: (child: ChildProcess) => void } = {},
): Promise<number> {
  const child = spawn(process.execPath, [PLAYWRIGHT_CLI, ...args], {
    cwd: ROOT,
    env: playwrightProcessEnv(env),
    stdio: [options.detached ? 'ignore' : 'inherit', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  options.onSpawn?.(child);
  return passOutput(child, secrets);
}

/** Runs a command's main function: an error it did not expect is one line and exit 2. */
export function runMain(main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    fail(`unexpected error: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`);
  });
}

/** How long endWith lets what is still pending run before it exits anyway. */
export const END_GRACE_MS = 500;

/**
 * Ends the process with `code` once what is still pending is done, or after END_GRACE_MS if
 * something (a timer, a socket) would hold it longer. process.exit cuts short the writes in flight:
 * in a clone, where tsx compiles the modules, the files of its cache it was writing were left
 * empty, and every later command compiled those modules again (a third of a second for each
 * `npm run validate`, which loads about a hundred of them and exits as soon as it has judged).
 * The caller returns after it; nothing of the command may follow.
 */
export function endWith(code: number): void {
  process.exitCode = code;
  setTimeout(() => process.exit(code), END_GRACE_MS).unref();
}

/**
 * Exits with the gate's status: 0 pass, 1 fail, from the outcome the reporter handed on
 * (reporter/outcome.ts), else from the written record; 2 with its line when a chosen report could
 * not be written, whatever the verdict (the gate never looks green without a report asked for).
 */
export function exitWithGate(
  outcome: RunOutcome | undefined,
  reportPath: string,
  playwrightCode: number,
  what: string,
): never {
  if (outcome?.unwritten !== undefined) fail(outcome.unwritten);
  if (outcome !== undefined) process.exit(gatePassed(outcome) ? 0 : 1);
  if (!existsSync(reportPath))
    fail(`${what} did not complete (playwright exited ${playwrightCode}); see the output above`);
  const record = JSON.parse(readFileSync(reportPath, 'utf8')) as ConformanceRecord;
  process.exit(gatePassed(record) ? 0 : 1);
}
