/**
 * Playwright's runner, started before the run is known. Loading Playwright's modules takes a
 * Node process about half a second, as long as everything the CLI does before it starts the run
 * (its own modules, the configuration, the reports directory's checks, the reachability check of
 * a deployment). So the CLI starts the runner's process first, and the process loads Playwright
 * while the CLI works; when the run is ready, the CLI hands it the command line and the
 * environment of the run, and it runs `playwright test` as Playwright's own CLI would.
 *
 * The process loads `playwright/lib/program`, the module Playwright's CLI (`@playwright/test/cli`)
 * runs, of the same copy the CLI resolves. Its loading and its `test` command are Playwright's,
 * unchanged; the runner's way to the workers too: they are forked with the environment it was
 * handed (Playwright forks them with its own), and with no Node option of this script (-e),
 * as the workers of `node cli.js test` are forked.
 *
 * Until it is handed the run it prints nothing and sends nothing; when the CLI ends without
 * handing it one (a usage or configuration error, an unreachable target, a signal) its pipe
 * closes and it exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { isConfigVariable } from '../config/sources.ts';

/**
 * The module Playwright's CLI runs (`require('playwright/lib/program')` in @playwright/test's
 * cli.js), resolved from that file: the one copy of Playwright the configuration imports too.
 */
function playwrightProgram(cli: string): string {
  return createRequire(cli).resolve('playwright/lib/program');
}

/**
 * The runner's script (CommonJS, run with `node -e`): load Playwright, then wait on fd 3 for the
 * run: `{ args, env }`. Its -e must not reach the workers (fork passes process.execArgv on).
 */
const SCRIPT = `
const program = require(process.argv[2]).program;
const cli = process.argv[1];
let text = '';
const input = require('node:fs').createReadStream(null, { fd: 3 });
input.setEncoding('utf8');
input.on('data', (chunk) => (text += chunk));
input.on('error', () => process.exit(0));
input.on('end', () => {
  if (text === '') process.exit(0);
  const { args, env } = JSON.parse(text);
  for (const name of Object.keys(process.env)) if (!Object.hasOwn(env, name)) delete process.env[name];
  Object.assign(process.env, env);
  process.execArgv = [];
  process.argv = [process.execPath, cli, ...args];
  program.parse(process.argv);
});
`;

/** The runner's process, loading Playwright until it is handed a run. */
export class WarmRunner {
  private handed = false;

  private constructor(readonly child: ChildProcess) {}

  /**
   * Starts the process in `cwd`: detached (a process group of its own, bin/interrupt.ts says
   * why), without stdin, with `env` less every configuration variable (the run hands down its
   * resolved configuration instead: run/hand-down.ts). `env` must hold what Node or Playwright
   * read as they load (NODE_OPTIONS, NODE_COMPILE_CACHE, FORCE_COLOR): the run's is set later.
   */
  static start(
    cli: string,
    cwd: string,
    env: NodeJS.ProcessEnv,
    /** The module it loads and runs the command of (the self-tests give a stand-in). */
    program: string = playwrightProgram(cli),
  ): WarmRunner {
    const clean: NodeJS.ProcessEnv = Object.fromEntries(
      Object.entries(env).filter(([name]) => !isConfigVariable(name)),
    );
    const child = spawn(process.execPath, ['-e', SCRIPT, cli, program], {
      cwd,
      env: clean,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      detached: true,
    });
    // Until it is handed a run, its ending is none of the CLI's business: it waits for nothing,
    // neither the process nor its pipes (a command that ends early, such as `run --version`,
    // ends at once; the runner ends by itself when its input closes).
    child.unref();
    for (const pipe of child.stdio) (pipe as { unref?: () => void } | null)?.unref?.();
    child.on('error', () => {});
    return new WarmRunner(child);
  }

  /** Hands it the run: Playwright's command line (`test ...`) and the whole environment. */
  hand(args: readonly string[], env: NodeJS.ProcessEnv): ChildProcess {
    if (this.handed) throw new Error('the runner was handed a run already');
    this.handed = true;
    this.child.ref();
    for (const pipe of this.child.stdio) (pipe as { ref?: () => void } | null)?.ref?.();
    const input = this.child.stdio[3] as NodeJS.WritableStream;
    // A runner gone already (killed, or it could not load Playwright) is said by its exit status.
    input.on('error', () => {});
    input.end(JSON.stringify({ args, env }));
    return this.child;
  }
}

let prestarted: WarmRunner | undefined;

/**
 * Starts the runner now, for the run command about to be loaded (bin/cli.ts): takeRunner hands
 * it over.
 */
export function prestartRunner(cli: string, cwd: string, env: NodeJS.ProcessEnv): void {
  prestarted ??= WarmRunner.start(cli, cwd, env);
}

/** The runner started for this run: the prestarted one, else one started now. */
export function takeRunner(cli: string, cwd: string, env: NodeJS.ProcessEnv): WarmRunner {
  const runner = prestarted ?? WarmRunner.start(cli, cwd, env);
  prestarted = undefined;
  return runner;
}
