/**
 * Where a run's settings come from: the variables the configuration is read from, the directory
 * the user ran the command from, and the .env file there (run/resolve.ts resolves them into
 * one configuration, flags first). Also the project's own root, which a replay line names.
 */
import { realpathSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { escapeControls } from '../exchange/escape.ts';
import { ConfigError, type Env } from './error.ts';
import { HEADER_PREFIX, SECRET_HEADER_PREFIX } from './headers.ts';
import { entryExists, INPUT_CAPS, InputFileError, readInputFile } from './input-files.ts';
import { PACKAGE_ROOT } from './layout.ts';

/** The project's root (its package.json tells `npm run` of this project from another's). */
export const PROJECT_ROOT = PACKAGE_ROOT;

/**
 * Every variable the configuration is read from. The Playwright processes get none of them, only
 * the resolved configuration.
 */
export const CONFIG_VARIABLES = [
  'API_BASE_URL',
  'CONFORMANCE_EMBEDDED',
  'API_TOKEN',
  'COUNTERPARTY_REF',
  'WRITABLE_COUNTERPARTY_REF',
  'ACCOUNT_FIXTURE',
  'CONFORMANCE_ACCOUNT_BUDGET',
  'ITEM_FIXTURES',
  'CONFORMANCE_SETTLE_MS',
  'CONFORMANCE_SEED',
  'CONFORMANCE_RUNS',
  'CONFORMANCE_REPORTS_DIR',
  'CONFORMANCE_REPORT',
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

/** Which .env a run read, for the first line it prints: its path, or that the directory has none. */
export function dotenvLine(run: { dir: string; envFile: string | null }): string {
  return escapeControls(run.envFile ? `.env read: ${run.envFile}` : `no .env read (none in ${run.dir})`);
}
