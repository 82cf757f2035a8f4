/**
 * One configuration per run, resolved once. The process the user started resolves it (the CLI,
 * or the Playwright runner of `npm run conformance:shard`, or the merge): flags, then the real
 * environment, then the .env file of the directory the run was started from; a variable set to
 * the empty string counts as set. Relative paths are resolved against that directory too. The
 * result travels to every Playwright process (run/hand-down.ts), and they read nothing else: no
 * .env, no raw variable. So what the first line of a run says (its target, its mode) is what
 * its requests obey.
 */
import { join, resolve } from 'node:path';
import { parseRequireExercised, parseStrict, type RequireExercised } from '../config/gate.ts';
import { loadWaivers } from '../config/waivers.ts';
import { headerVariable } from '../config/headers.ts';
import { POLITENESS_VARIABLE_NAMES } from '../config/config.ts';
import { parseConfig, type EmbeddedTarget, type SuiteConfig } from '../config/config.ts';
import { ConfigError, type Env } from '../config/error.ts';
import {
  parseReplayCase,
  resolveSelection,
  type ReplayCase,
  type Selection,
  type SelectionFlags,
} from '../config/selection.ts';
import { CONFIG_VARIABLES, readDotenv } from '../config/sources.ts';
import { flagOf } from '../config/flags.ts';
import { pathFrom } from '../config/command.ts';
import {
  checkMisspelled,
  chooseTarget,
  type SettingSource,
  type Sources,
  type TargetChoice,
} from '../config/target.ts';
import { SELECTABLE } from '../probes/described.ts';
import { itemFixturesJson } from '../generators/item-fixtures.ts';
import { own } from '../exchange/own.ts';
import { chosenWriters, parseReportNames } from '../reporter/writers.ts';

export interface ResolvedRun {
  /** The directory the run was started from: its .env was read, relative paths resolve against it. */
  dir: string;
  /** The .env file read (absolute), or null when that directory has none. */
  envFile: string | null;
  /** The target and the run's settings. Global setup fills in the embedded server's URL. */
  config: SuiteConfig;
  /** What the target is, for the report (set by global setup, or by the merge). */
  targetKind?: string;
  /**
   * Which target a run judges and why (config/target.ts): set for a run, absent for a validation
   * or a merge, which start no target of their own.
   */
  target?: TargetChoice;
  /** The waiver file (absolute), null: none. */
  waivers: string | null;
  strict: boolean;
  /** Where the reports go, and Playwright's own results (absolute). */
  reportsDir: string;
  /** The reports chosen by name (CONFORMANCE_REPORT, --report: reporter/writers.ts); null: every one. */
  reports: string[] | null;
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
  /**
   * A run, which judges a target it chooses (config/target.ts): the embedded server only when
   * asked for or when no setting of a deployment is given. Validation and merging start none.
   */
  choosesTarget?: boolean;
}

/** The variables of the run's limits: a replay line repeats the ones that were set. */
const POLITENESS_NAMES = CONFIG_VARIABLES.filter((name) => POLITENESS_VARIABLE_NAMES.has(name));
/**
 * The settings a replay line carries: the target, references, fixture, seed, runs, account budget
 * and strictness as this run resolved them, each written out (an empty value where the run had
 * none, so a .env where the replay is pasted cannot change them), and the limits that were set.
 * Never the token. The fixture is written as JSON, so the line does not depend on a file.
 */
function replaySettings(
  config: SuiteConfig,
  strict: boolean,
  inputs: Env,
  reportsDir: string,
): Record<string, string> {
  const out: Record<string, string> = {
    API_BASE_URL: config.baseURL ?? '',
    // The embedded server asked for by name: beside the other settings written out, an empty
    // API_BASE_URL alone would be a deployment left out (config/target.ts), exit 2.
    ...(config.baseURL === undefined ? { CONFORMANCE_EMBEDDED: '1' } : {}),
    COUNTERPARTY_REF: config.counterpartyRef,
    WRITABLE_COUNTERPARTY_REF: config.writableRefs?.join(',') ?? '',
    ACCOUNT_FIXTURE:
      config.accountFixtures === undefined || config.accountFixtures.length === 0
        ? ''
        : JSON.stringify(
            config.accountFixtures.length === 1 ? config.accountFixtures[0] : config.accountFixtures,
          ),
    CONFORMANCE_ACCOUNT_BUDGET: String(config.accountBudget),
    ITEM_FIXTURES: config.itemFixtures === undefined ? '' : itemFixturesJson(config.itemFixtures),
    CONFORMANCE_SEED: String(config.seed),
    CONFORMANCE_RUNS: String(config.runs),
    CONFORMANCE_SETTLE_MS: String(config.settleMs),
    CONFORMANCE_STRICT: strict ? '1' : '0',
    // As the user names it from the run's directory: a replay writes its reports below it.
    CONFORMANCE_REPORTS_DIR: reportsDir,
  };
  // The embedded server's own fixtures (forty of them) are its default: a replay against it gets
  // them without a line of JSON.
  if (config.baseURL === undefined && (inputs.ACCOUNT_FIXTURE ?? '') === '' && config.accountFixtures)
    delete out.ACCOUNT_FIXTURE;
  if (config.baseURL === undefined && (inputs.ITEM_FIXTURES ?? '') === '' && config.itemFixtures)
    delete out.ITEM_FIXTURES;
  for (const name of POLITENESS_NAMES) {
    const value = inputs[name];
    if (value !== undefined && value !== '') out[name] = value;
  }
  // Extra headers as their variables; a secret one is left out, as the token is: the shell the
  // line is pasted into holds it.
  return {
    ...out,
    ...Object.fromEntries(
      config.extraHeaders.filter((h) => !h.secret).map((h) => [headerVariable(h.name, false), h.value]),
    ),
  };
}

/** Every name of the environment and of the .env file, with where it is, for checkMisspelled. */
function misspellingCandidates(env: Env, dotenv: { file: string | null; values: Env }): [string, string][] {
  return [
    ...Object.keys(dotenv.values).map((name): [string, string] => [name, `in ${dotenv.file ?? '.env'}`]),
    ...Object.keys(env).map((name): [string, string] => [name, 'in the environment']),
  ];
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
  // Null-prototype maps: a variable may be named __proto__.
  const inputs: Env = Object.create(null) as Env;
  const sources = new Map<string, { source: SettingSource; file?: string | null }>();
  const take = (values: Env, source: SettingSource): void => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) continue;
      inputs[name] = value;
      sources.set(name, source === '.env' ? { source, file: dotenv.file } : { source });
    }
  };
  take(dotenv.values, '.env');
  take(env, 'environment');
  take(flags.variables ?? {}, 'flag');
  checkMisspelled(misspellingCandidates(env, dotenv), CONFIG_VARIABLES);
  const target = flags.choosesTarget
    ? chooseTarget(inputs, sources as Sources, flagOf, flags.headers ?? [])
    : undefined;
  const config = parseConfig(inputs, embedded, dir, flags.headers ?? []);
  const strict = (flags.strict ?? false) || parseStrict(inputs.CONFORMANCE_STRICT);
  const { file } = loadWaivers(inputs, dir);
  const selection = resolveSelection(flags, SELECTABLE);
  // A case is of one property of one probe: replaying it across probes would skip the others' properties.
  if (flags.replayCase !== undefined && selection?.probes.length !== 1)
    throw new ConfigError(
      '--case replays one case of one probe: give the --probe <id> of the finding with it (its replay line does)',
    );
  const requireExercised =
    flags.requireExercised !== undefined
      ? parseRequireExercised(flags.requireExercised)
      : parseRequireExercised(inputs.CONFORMANCE_REQUIRE_EXERCISED);
  const reports = parseReportNames(inputs.CONFORMANCE_REPORT);
  // An unknown name is exit 2 now, before anything is sent, not a report missing at the end.
  chosenWriters(reports);
  const path = (name: string, fallback: string): string => {
    const value = own(inputs, name)?.trim();
    return value ? resolve(dir, value) : fallback;
  };
  // Below the directory the run was started from, never in the package: installed, the
  // package's directory is npm's, not the user's (in the repository, run from its root, the
  // project's reports/).
  const reportsDir = path('CONFORMANCE_REPORTS_DIR', join(dir, 'reports'));
  return {
    dir,
    envFile: dotenv.file,
    ...(target ? { target } : {}),
    config,
    waivers: file ?? null,
    strict,
    reportsDir,
    resultsDir: path('CONFORMANCE_RESULTS_DIR', join(dir, 'test-results', 'conformance')),
    reports,
    probes: selection ? selection.probes : null,
    selection,
    requireExercised,
    replayCase: flags.replayCase === undefined ? null : parseReplayCase(flags.replayCase),
    settings: replaySettings(config, strict, inputs, pathFrom(dir, reportsDir)),
  };
}
