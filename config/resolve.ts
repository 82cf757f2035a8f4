/**
 * One configuration per run, resolved once. The process the user started resolves it (the CLI,
 * or the Playwright runner of `npm run conformance:shard`, or the merge): flags, then the real
 * environment, then the .env file of the directory the run was started from; a variable set to
 * the empty string counts as set. Relative paths are resolved against that directory too. The
 * result travels to every Playwright process (the runner, global setup, the workers, the
 * reporter) as one JSON value in CONFORMANCE_RESOLVED_CONFIG, and they read nothing else: no
 * .env, no raw variable. So what the first line of a run says (its target, its mode) is what
 * its requests obey.
 */
import { realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { escapeControls } from '../exchange/escape.ts';
import { parseStrict } from '../reporter/gate.ts';
import { loadWaivers } from '../reporter/waivers.ts';
import { HEADER_PREFIX, SECRET_HEADER_PREFIX, headerVariable } from './headers.ts';
import { POLITENESS_VARIABLE_NAMES } from './config.ts';
import { entryExists, INPUT_CAPS, InputFileError, readInputFile } from './input-files.ts';
import { ConfigError, parseConfig, type EmbeddedTarget, type Env, type SuiteConfig } from './config.ts';
import { PACKAGE_ROOT } from './layout.ts';
import { resolveSelection, type Selection, type SelectionFlags } from './selection.ts';

/** The environment variable holding the resolved configuration (JSON) for the Playwright processes. */
export const RESOLVED_VARIABLE = 'CONFORMANCE_RESOLVED_CONFIG';

/** The project's root (its package.json tells `npm run` of this project from another's). */
export const PROJECT_ROOT = PACKAGE_ROOT;

/**
 * Every variable the configuration is read from. The Playwright processes get none of them, only
 * the resolved configuration.
 */
export const CONFIG_VARIABLES = [
  'API_BASE_URL',
  'API_TOKEN',
  'COUNTERPARTY_REF',
  'WRITABLE_COUNTERPARTY_REF',
  'ACCOUNT_FIXTURE',
  'CONFORMANCE_ACCOUNT_BUDGET',
  'CONFORMANCE_SETTLE_MS',
  'CONFORMANCE_SEED',
  'CONFORMANCE_RUNS',
  'CONFORMANCE_REPORTS_DIR',
  'CONFORMANCE_RESULTS_DIR',
  'CONFORMANCE_WAIVERS',
  'CONFORMANCE_STRICT',
  'CONFORMANCE_RPS',
  'CONFORMANCE_CONCURRENCY',
  'CONFORMANCE_TIMEOUT_MS',
  'CONFORMANCE_MAX_REQUESTS',
  'CONFORMANCE_RETRIES',
  'CONFORMANCE_MAX_RETRY_WAIT_MS',
  'CONFORMANCE_MAX_RESPONSE_BYTES',
  'CONFORMANCE_RUN_TIMEOUT_MS',
  'CONFORMANCE_REQUIRE_EXERCISED',
] as const;

/** Whether the configuration is read from `name`: one of CONFIG_VARIABLES, or an extra header's. */
export function isConfigVariable(name: string): boolean {
  return (
    (CONFIG_VARIABLES as readonly string[]).includes(name) ||
    name.startsWith(HEADER_PREFIX) ||
    name.startsWith(SECRET_HEADER_PREFIX)
  );
}

export interface ResolvedRun {
  /** The directory the run was started from: its .env was read, relative paths resolve against it. */
  dir: string;
  /** The .env file read (absolute), or null when that directory has none. */
  envFile: string | null;
  /** The target and the run's settings. Global setup fills in the embedded server's URL. */
  config: SuiteConfig;
  /** What the target is, for the report (set by global setup, or by the merge). */
  targetKind?: string;
  /** The waiver file (absolute), null: none. */
  waivers: string | null;
  strict: boolean;
  /** Where the reports go, and Playwright's own results (absolute). */
  reportsDir: string;
  resultsDir: string;
  /** The probes the run is limited to (the selection's); null: every probe. */
  probes: string[] | null;
  /** What the selection flags chose (config/selection.ts); null: everything. */
  selection: Selection | null;
  /** --require-exercised: the gate fails when a selected requirement of that level was not exercised. */
  requireExercised: RequireExercised | null;
  /** --case: the one case of one property a replay runs (engine/property.ts); null: every case. */
  replayCase: ReplayCase | null;
  /**
   * Every setting of the run but the token, as the environment assignments of a replay line
   * (reporter/replay.ts), in the order they are printed.
   */
  settings: Record<string, string>;
  /** Fixed by global setup for the workers: the shared request ledger, the deadline, the worker count. */
  state?: { dir: string; deadline: number; processes: number };
}

/**
 * The directory the user ran the command from, whatever started it. npm runs a script in the
 * root of the package that declares it (the directory of npm_package_json), and names the
 * directory it was started from in INIT_CWD: under `npm run` of this project or of a user's
 * project that calls the installed command, from a subdirectory too, that is where the user was.
 * npx runs in the directory it was started from (INIT_CWD is that too). A script that changes
 * directory before running the command (`cd ci && payflow-conformance run`) chose that directory:
 * the working directory, as for the Action, the image and a plain shell.
 */
export function invocationDirectory(env: Env = process.env, cwd: string = process.cwd()): string {
  const manifest = env.npm_package_json;
  if (env.INIT_CWD && manifest && sameDirectory(dirname(manifest), cwd)) return resolve(cwd, env.INIT_CWD);
  return cwd;
}

function sameDirectory(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return resolve(a) === resolve(b);
  }
}

/** The .env file of `dir`, if there is one (a dangling link is none), and the variables it sets. */
export function readDotenv(dir: string): { file: string | null; values: Env } {
  const file = join(dir, '.env');
  if (!entryExists(file)) return { file: null, values: {} };
  try {
    return { file, values: parseDotenv(readInputFile(file, 'the .env file', INPUT_CAPS.env)) };
  } catch (error) {
    if (error instanceof InputFileError) throw new ConfigError(error.message);
    throw error;
  }
}

export interface RunFlags extends SelectionFlags {
  /** --strict */
  strict?: boolean;
  /** --header 'Name: value', each an extra request header (config/headers.ts). */
  headers?: readonly string[];
  /** The configuration variables set by flags (--base-url, --seed, ...: config/flags.ts): over the environment. */
  variables?: Env;
  /** --require-exercised (over CONFORMANCE_REQUIRE_EXERCISED) */
  requireExercised?: string;
  /** --case '<property>@<fast-check path>' */
  replayCase?: string;
}

/** Which levels must all be exercised for the gate to pass: MUST ones, or every one. */
export type RequireExercised = 'must' | 'all';

/** One case of one property: its name (engine/property.ts PropertySpec.name) and fast-check path. */
export interface ReplayCase {
  property: string;
  path: string;
}

/** CONFORMANCE_REQUIRE_EXERCISED / --require-exercised: must or all; unset or empty: off. */
export function parseRequireExercised(value: string | undefined): RequireExercised | null {
  const v = value?.trim().toLowerCase() ?? '';
  if (v === '') return null;
  if (v === 'must' || v === 'all') return v;
  throw new ConfigError(
    `CONFORMANCE_REQUIRE_EXERCISED (--require-exercised) must be must or all, got '${value}'`,
  );
}

/** --case: '<property name>@<fast-check path>', the path digits separated by colons. */
export function parseReplayCase(value: string): ReplayCase {
  const at = value.lastIndexOf('@');
  const property = value.slice(0, at).trim();
  const path = value.slice(at + 1).trim();
  if (at < 0 || property === '' || !/^\d+(:\d+)*$/.test(path))
    throw new ConfigError(
      `--case must be '<property name>@<fast-check path>' (as a finding's replay line writes it), got '${value}'`,
    );
  return { property, path };
}

/** The variables of the run's limits: a replay line repeats the ones that were set. */
const POLITENESS_NAMES = CONFIG_VARIABLES.filter((name) => POLITENESS_VARIABLE_NAMES.has(name));
/**
 * The settings a replay line carries: the target, references, fixture, seed, runs, account budget
 * and strictness as this run resolved them, each written out (an empty value where the run had
 * none, so a .env where the replay is pasted cannot change them), and the limits that were set.
 * Never the token. The fixture is written as JSON, so the line does not depend on a file.
 */
function replaySettings(config: SuiteConfig, strict: boolean, inputs: Env): Record<string, string> {
  const out: Record<string, string> = {
    API_BASE_URL: config.baseURL ?? '',
    COUNTERPARTY_REF: config.counterpartyRef,
    WRITABLE_COUNTERPARTY_REF: config.writableRefs?.join(',') ?? '',
    ACCOUNT_FIXTURE:
      config.accountFixtures === undefined || config.accountFixtures.length === 0
        ? ''
        : JSON.stringify(
            config.accountFixtures.length === 1 ? config.accountFixtures[0] : config.accountFixtures,
          ),
    CONFORMANCE_ACCOUNT_BUDGET: String(config.accountBudget),
    CONFORMANCE_SEED: String(config.seed),
    CONFORMANCE_RUNS: String(config.runs),
    CONFORMANCE_SETTLE_MS: String(config.settleMs),
    CONFORMANCE_STRICT: strict ? '1' : '0',
  };
  // The embedded server's own fixtures (forty of them) are its default: a replay against it gets
  // them without a line of JSON.
  if (config.baseURL === undefined && (inputs.ACCOUNT_FIXTURE ?? '') === '' && config.accountFixtures)
    delete out.ACCOUNT_FIXTURE;
  for (const name of POLITENESS_NAMES) {
    const value = inputs[name];
    if (value !== undefined && value !== '') out[name] = value;
  }
  // Extra headers as their variables; a secret one is left out, as the token is: the shell the
  // line is pasted into holds it.
  for (const h of config.extraHeaders) if (!h.secret) out[headerVariable(h.name, false)] = h.value;
  return out;
}

/**
 * Resolves the run's configuration from `env` over `dir`/.env (an empty value in `env` is a value) and the
 * flags. Throws a ConfigError (one line) on any problem, the waiver file's included.
 */
export function resolveRun(
  env: Env,
  dir: string,
  embedded: EmbeddedTarget,
  flags: RunFlags = {},
): ResolvedRun {
  const dotenv = readDotenv(dir);
  // The real environment over the .env file: a variable set to the empty string there is set.
  const inputs: Env = { ...dotenv.values };
  for (const [name, value] of Object.entries(env)) if (value !== undefined) inputs[name] = value;
  Object.assign(inputs, flags.variables);
  const config = parseConfig(inputs, embedded, dir, flags.headers ?? []);
  const strict = (flags.strict ?? false) || parseStrict(inputs.CONFORMANCE_STRICT);
  const { file } = loadWaivers(inputs, dir);
  const selection = resolveSelection(flags);
  // A case is of one property of one probe: replaying it across probes would skip the others' properties.
  if (flags.replayCase !== undefined && selection?.probes.length !== 1)
    throw new ConfigError(
      '--case replays one case of one probe: give the --probe <id> of the finding with it (its replay line does)',
    );
  const requireExercised =
    flags.requireExercised !== undefined
      ? parseRequireExercised(flags.requireExercised)
      : parseRequireExercised(inputs.CONFORMANCE_REQUIRE_EXERCISED);
  const path = (name: string, fallback: string): string => {
    const value = inputs[name]?.trim();
    return value ? resolve(dir, value) : fallback;
  };
  return {
    dir,
    envFile: dotenv.file,
    config,
    waivers: file ?? null,
    strict,
    // Below the directory the run was started from, never in the package: installed, the
    // package's directory is npm's, not the user's (in the repository, run from its root, the
    // project's reports/).
    reportsDir: path('CONFORMANCE_REPORTS_DIR', join(dir, 'reports')),
    resultsDir: path('CONFORMANCE_RESULTS_DIR', join(dir, 'test-results', 'conformance')),
    probes: selection ? selection.probes : null,
    selection,
    requireExercised,
    replayCase: flags.replayCase === undefined ? null : parseReplayCase(flags.replayCase),
    settings: replaySettings(config, strict, inputs),
  };
}

/** Which .env a run read, for the first line it prints: its path, or that the directory has none. */
export function dotenvLine(run: Pick<ResolvedRun, 'dir' | 'envFile'>): string {
  return escapeControls(run.envFile ? `.env read: ${run.envFile}` : `no .env read (none in ${run.dir})`);
}

export function encodeRun(run: ResolvedRun): string {
  return JSON.stringify(run);
}

/** The resolved configuration handed down in `env`, or undefined if there is none. */
export function decodeRun(env: Env = process.env): ResolvedRun | undefined {
  const text = env[RESOLVED_VARIABLE];
  if (text === undefined || text === '') return undefined;
  let run: ResolvedRun;
  try {
    run = JSON.parse(text) as ResolvedRun;
  } catch {
    throw new Error(`${RESOLVED_VARIABLE} does not hold a resolved configuration (not JSON)`);
  }
  if (
    typeof run !== 'object' ||
    run === null ||
    typeof run.dir !== 'string' ||
    typeof run.config !== 'object'
  )
    throw new Error(`${RESOLVED_VARIABLE} does not hold a resolved configuration`);
  return run;
}

/** The resolved configuration of this process; it must have been handed down. */
export function resolvedRun(env: Env = process.env): ResolvedRun {
  const run = decodeRun(env);
  if (run === undefined)
    throw new Error(`${RESOLVED_VARIABLE} is not set: run the suite through npm run conformance`);
  return run;
}

/** Hands `run` down to this process's children (global setup, workers, the reporter). */
export function handDown(run: ResolvedRun, env: NodeJS.ProcessEnv = process.env): void {
  env[RESOLVED_VARIABLE] = encodeRun(run);
}

/**
 * The environment of a Playwright process: `env` without any configuration variable, with the
 * resolved configuration.
 */
export function playwrightEnv(run: ResolvedRun, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  for (const name of Object.keys(out)) if (isConfigVariable(name)) delete out[name];
  out[RESOLVED_VARIABLE] = encodeRun(run);
  return out;
}

/**
 * For the Playwright configuration: the configuration handed down (by the CLI, or by the first
 * load of the configuration in this run), or, when there is none (`npm run conformance:shard`
 * runs Playwright directly), the configuration resolved here, once, and handed down.
 */
export function resolveOnce(embedded: EmbeddedTarget, env: NodeJS.ProcessEnv = process.env): ResolvedRun {
  const given = decodeRun(env);
  if (given !== undefined) return given;
  const run = resolveRun(env, invocationDirectory(env), embedded);
  for (const name of Object.keys(env)) if (isConfigVariable(name)) delete env[name];
  handDown(run, env);
  return run;
}
