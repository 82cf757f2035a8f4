/**
 * A flag for every configuration variable, derived from the one list of them (CONFIG_VARIABLES
 * in run/resolve.ts): API_BASE_URL is --base-url, CONFORMANCE_SEED is --seed, and a variable
 * added to the list gets its flag by the same rule (its name without CONFORMANCE_ or API_, in
 * lower case, with dashes). VARIABLE_HELP is typed over that list, so a new variable does not
 * compile until it has its --help line.
 *
 * A flag sets its variable for the run, over the environment and the .env file (flags, then the
 * environment, then .env: run/resolve.ts). Two are not value flags: API_TOKEN has none at all
 * (a token on the command line lands in shell history and in every process list: it is read from
 * the environment or .env only), and CONFORMANCE_STRICT is the switch --strict, which can only
 * turn strict mode on.
 */
import { CONFIG_VARIABLES } from './sources.ts';

export type ConfigVariable = (typeof CONFIG_VARIABLES)[number];

/** How --help groups the settings. */
export type FlagGroup = 'target' | 'inputs' | 'politeness' | 'gate';

export interface VariableHelp {
  group: FlagGroup;
  /** The value's placeholder in --help; absent: not a value flag (see `environmentOnly`, `switchFlag`). */
  value?: string;
  /** What it sets, with its default, in one short line. */
  help: string;
  /** Read from the environment (or .env) only, never from a flag: the token. */
  environmentOnly?: true;
  /** A switch (no value) named here instead of the derived value flag. */
  switchFlag?: string;
}

export const VARIABLE_HELP: Record<ConfigVariable, VariableHelp> = {
  API_BASE_URL: {
    group: 'target',
    value: '<url>',
    help: 'the deployment under test (unset with no other target setting: the embedded reference server)',
  },
  CONFORMANCE_EMBEDDED: {
    group: 'target',
    switchFlag: '--embedded',
    help: 'run against the embedded reference server (CONFORMANCE_EMBEDDED=1); needed beside any other target setting',
  },
  API_TOKEN: {
    group: 'target',
    environmentOnly: true,
    help: 'the bearer token: environment or .env only, never a flag (shell history, process lists)',
  },
  COUNTERPARTY_REF: {
    group: 'target',
    value: '<ref>',
    help: 'an existing counterparty the suite may read (required with a base URL)',
  },
  WRITABLE_COUNTERPARTY_REF: {
    group: 'target',
    value: '<ref,...>',
    help: 'counterparties the suite may modify, a lane each; empty or unset: a read-only run',
  },
  ACCOUNT_FIXTURE: {
    group: 'target',
    value: '<json|file>',
    help: 'the account(s) the deployment accepts: a JSON object or list, or a JSON file',
  },
  CONFORMANCE_ACCOUNT_BUDGET: {
    group: 'target',
    value: '<n>',
    help: 'the most accounts a run may add (default 40)',
  },
  ITEM_FIXTURES: {
    group: 'target',
    value: '<json|file>',
    help: 'bills, mandates, collections that exist, and bodies that create them (write mode): JSON or a JSON file',
  },
  CONFORMANCE_SEED: {
    group: 'inputs',
    value: '<n>',
    help: 'replays a run: every generated input derives from it',
  },
  CONFORMANCE_RUNS: { group: 'inputs', value: '<n>', help: 'generated cases per property (default 100)' },
  CONFORMANCE_RPS: {
    group: 'politeness',
    value: '<n>',
    help: 'the most requests per second, a hard cap (default: none; the pace adapts below it)',
  },
  CONFORMANCE_CONCURRENCY: {
    group: 'politeness',
    value: '<n>',
    help: 'the most requests in flight, a hard cap (default 64 against a deployment, 2 embedded)',
  },
  CONFORMANCE_TIMEOUT_MS: {
    group: 'politeness',
    value: '<ms>',
    help: 'the most one request may take (default 10000)',
  },
  CONFORMANCE_MAX_REQUESTS: {
    group: 'politeness',
    value: '<n>',
    help: 'the most requests a run sends, retries included (default 25000)',
  },
  CONFORMANCE_RETRIES: { group: 'politeness', value: '<n>', help: 'retries of a 429 or 503 (default 3)' },
  CONFORMANCE_MAX_RETRY_WAIT_MS: {
    group: 'politeness',
    value: '<ms>',
    help: 'the longest Retry-After waited out (default 30000)',
  },
  CONFORMANCE_MAX_RESPONSE_BYTES: {
    group: 'politeness',
    value: '<bytes>',
    help: 'the largest response body read (default 4 MiB)',
  },
  CONFORMANCE_RUN_TIMEOUT_MS: {
    group: 'politeness',
    value: '<ms>',
    help: "the whole run's time budget (default 1800000)",
  },
  CONFORMANCE_REPORTS_DIR: {
    group: 'gate',
    value: '<dir>',
    help: 'where the reports go (default: reports/ of the directory you run from)',
  },
  CONFORMANCE_REPORT: {
    group: 'gate',
    value: '<name,...>',
    help: 'the reports written, by name, comma-separated (default: every one; --help lists them)',
  },
  CONFORMANCE_RESULTS_DIR: {
    group: 'gate',
    value: '<dir>',
    help: "Playwright's own output (default: test-results/conformance/ there)",
  },
  CONFORMANCE_WAIVERS: {
    group: 'gate',
    value: '<file|none>',
    help: 'the waiver file (default: conformance-waivers.yaml if it exists)',
  },
  CONFORMANCE_STRICT: {
    group: 'gate',
    switchFlag: '--strict',
    help: 'SHOULD failures and stale waivers fail the gate too (CONFORMANCE_STRICT=1)',
  },
  CONFORMANCE_SETTLE_MS: {
    group: 'target',
    value: '<ms>',
    help: 'how long a read may trail an accepted PATCH (a read replica), 0 to 60000 (default 2000)',
  },
  CONFORMANCE_REQUIRE_EXERCISED: {
    group: 'gate',
    value: 'must|all',
    help: 'fail the gate when a selected MUST requirement (all: any selected one) was not exercised',
  },
};

/** The flag of a variable: its name without CONFORMANCE_ or API_, lower case, with dashes. */
export function flagOf(variable: string): `--${string}` {
  return `--${variable
    .replace(/^(CONFORMANCE|API)_/, '')
    .toLowerCase()
    .replaceAll('_', '-')}`;
}

export interface VariableFlag {
  flag: `--${string}`;
  variable: ConfigVariable;
  value: string;
  help: string;
  group: FlagGroup;
}

/** The value flags of `variables` (default: every variable that has one), in the list's order. */
export function variableFlags(variables: readonly ConfigVariable[] = CONFIG_VARIABLES): VariableFlag[] {
  const out: VariableFlag[] = [];
  for (const variable of variables) {
    const { value, help, group } = VARIABLE_HELP[variable];
    if (value !== undefined) out.push({ flag: flagOf(variable), variable, value, help, group });
  }
  return out;
}
