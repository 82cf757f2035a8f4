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
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseDotenv } from 'dotenv';
import { parseStrict } from '../reporter/gate.ts';
import { loadWaivers } from '../reporter/waivers.ts';
import { ConfigError, parseConfig, type EmbeddedTarget, type Env, type SuiteConfig } from './config.ts';

/** The environment variable holding the resolved configuration (JSON) for the Playwright processes. */
export const RESOLVED_VARIABLE = 'CONFORMANCE_RESOLVED_CONFIG';

/** The project's root: the default reports/ and test-results/ are below it. */
export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

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
] as const;

export interface ResolvedRun {
  /** The directory the run was started from: its .env was read, relative paths resolve against it. */
  dir: string;
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
  /** The probes the run is limited to (--probe); null: every probe. */
  probes: string[] | null;
  /** Fixed by global setup for the workers: the shared request ledger, the deadline, the worker count. */
  state?: { dir: string; deadline: number; processes: number };
}

/**
 * The directory the user ran the command from: npm runs a script in the package's root, so under
 * `npm run` it is the directory npm was invoked from (INIT_CWD); otherwise the working directory.
 */
export function invocationDirectory(env: Env = process.env, cwd: string = process.cwd()): string {
  const manifest = env.npm_package_json;
  if (env.INIT_CWD && manifest && sameFile(manifest, join(PROJECT_ROOT, 'package.json'))) return env.INIT_CWD;
  return cwd;
}

function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/**
 * The variables of a run: those of `env` (the real environment, where an empty value is a value)
 * over those of `dir`/.env.
 */
export function configurationInputs(env: Env, dir: string): Env {
  const file = join(dir, '.env');
  let fromFile: Env = {};
  if (existsSync(file)) {
    try {
      fromFile = parseDotenv(readFileSync(file));
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'unreadable';
      throw new ConfigError(`the .env file ${file} cannot be read (${code})`);
    }
  }
  const out: Env = { ...fromFile };
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value;
  return out;
}

export interface RunFlags {
  /** --strict */
  strict?: boolean;
  /** --probe, each a known probe id; undefined or empty: every probe. */
  probes?: readonly string[];
}

/**
 * Resolves the run's configuration from `env` and `dir`/.env (see configurationInputs) and the
 * flags. Throws a ConfigError (one line) on any problem, the waiver file's included.
 */
export function resolveRun(
  env: Env,
  dir: string,
  embedded: EmbeddedTarget,
  flags: RunFlags = {},
): ResolvedRun {
  const inputs = configurationInputs(env, dir);
  const config = parseConfig(inputs, embedded, dir);
  const strict = (flags.strict ?? false) || parseStrict(inputs.CONFORMANCE_STRICT);
  const { file } = loadWaivers(inputs, dir);
  const path = (name: string, fallback: string): string => {
    const value = inputs[name]?.trim();
    return value ? resolve(dir, value) : fallback;
  };
  return {
    dir,
    config,
    waivers: file ?? null,
    strict,
    reportsDir: path('CONFORMANCE_REPORTS_DIR', join(PROJECT_ROOT, 'reports')),
    resultsDir: path('CONFORMANCE_RESULTS_DIR', join(PROJECT_ROOT, 'test-results', 'conformance')),
    probes: flags.probes && flags.probes.length > 0 ? [...flags.probes] : null,
  };
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
  for (const name of CONFIG_VARIABLES) delete out[name];
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
  for (const name of CONFIG_VARIABLES) delete env[name];
  handDown(run, env);
  return run;
}
