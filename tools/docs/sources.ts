/**
 * The one module through which the generated tables of docs/ read the code's registries: the
 * configuration variables (the list the CLI derives its flags from), the probes and the
 * operations each calls, the oracles, the requirement catalogue, the operations of the spec and
 * the layers of the house (scripts/layers.ts, whose import rule the type check runs) and the
 * report writers.
 * Everything else in tools/docs/ works on the plain rows this module returns, so when a registry
 * moves, only the imports and the mapping below change.
 *
 * It also names the variables the code reads besides the configuration (the process
 * environment, the suite's own hand-over between its processes, the project's tools), so the
 * configuration page lists every variable the code reads: tests/self/docs-tables.spec.ts scans
 * the source for variables read and fails on one listed nowhere here.
 */
import { VARIABLE_HELP, flagOf } from '../../config/flags.ts';
import { HEADER_PREFIX, SECRET_HEADER_PREFIX } from '../../config/headers.ts';
import { CONFIG_VARIABLES } from '../../config/sources.ts';
import { EMBEDDED_SERVER_VARIABLE, RESOLVED_VARIABLE } from '../../run/hand-down.ts';
import { TIMELINE_ENV } from '../../reporter/timeline.ts';
import { ORACLES, oracleFile } from '../../oracles/index.ts';
import { PROBES, probeFile } from '../../probes/index.ts';
import { RECOVERY_ENV } from '../../probes/recovery.ts';
import { END_EXCHANGES_ENV, END_RESTORE_ENV } from '../../engine/baseline.ts';
import { REPORTS_STAGING_ENV, RESULTS_STAGING_ENV } from '../../reporter/report-set.ts';
import { WRITE_FAILURE_ENV } from '../../reporter/disk-errors.ts';
import { OUTCOME_ENV } from '../../reporter/outcome.ts';
import { LIVE_PROGRESS_ENV } from '../../reporter/live.ts';
import { REPORT_WRITERS, SOURCE_COMMANDS } from '../../reporter/writers.ts';
import { compareSections, sectionTitle } from '../../reporter/sections.ts';
import { spec } from '../../spec/index.ts';
import { REQUIREMENTS } from '../../spec/requirements.ts';
import { LAYERS, mayImport } from '../../scripts/layers.ts';
import { PACE_ENV } from '../../transport/session.ts';
import { INTERRUPTED_ENV } from '../../transport/stop.ts';

/** A variable of the configuration: set by its flag, the environment or .env. */
export interface ConfigVariableRow {
  /** The variable, or a family of them written with a placeholder: CONFORMANCE_HEADER_<NAME>. */
  name: string;
  /** Its flag as --help shows it (`--base-url <url>`), or '' when it has none. */
  flag: string;
  /** How --help groups it: target, inputs, politeness, gate. */
  group: string;
  /** What it sets, with its default, in one line. */
  help: string;
}

/** Who reads a variable that is not part of the configuration. */
export type OtherVariableKind = 'process' | 'internal' | 'development';

/** A variable the code (or a library it uses) reads that is not part of the configuration. */
export interface OtherVariableRow {
  name: string;
  kind: OtherVariableKind;
  /** Who reads it: a file of the project, or the library or runtime that does. */
  readBy: string;
  help: string;
  /**
   * Read by a library or the runtime, not by the project's source: the scan of the source
   * cannot find it, and does not need to.
   */
  external?: true;
}

export interface ProbeRow {
  id: string;
  file: string;
  group: string;
  access: 'read' | 'write';
  /** Where a write probe runs: beside the reads, in a lane, or split across the lanes. */
  placement: 'beside the reads' | 'in a lane' | 'split across lanes' | '';
  operations: readonly string[];
  /** The requirements it judges itself. */
  judges: readonly string[];
  /** The requirements it aims at, for the oracles to judge on its traffic. */
  aims: readonly string[];
  title: string;
}

export interface OracleRow {
  id: string;
  file: string;
  kind: 'exchange' | 'patch' | 'pair' | 'metadata';
  requirements: readonly string[];
  /** For each requirement: what it is judged on (why a run may have given it nothing). */
  unexercised: Readonly<Record<string, string>>;
}

export interface RequirementRow {
  id: string;
  /** The section of interface.md it is grouped under, and that section's heading. */
  group: string;
  groupTitle: string;
  level: 'MUST' | 'SHOULD';
  statement: string;
  /** The words it rests on most directly, and where they are. */
  quote: { source: string; text: string };
}

export interface OperationRow {
  operationId: string;
  method: string;
  path: string;
  summary: string;
}

/** A report format (reporter/writers.ts): what `--report` names, the files it writes, who writes it. */
export interface ReportRow {
  name: string;
  files: readonly string[];
  about: string;
  /** The commands that write it. */
  commands: string;
}

export function reports(): ReportRow[] {
  return REPORT_WRITERS.map((w) => ({
    name: w.name,
    files: w.files,
    about: w.about,
    commands: SOURCE_COMMANDS[w.source],
  }));
}

export interface LayerRow {
  floor: number;
  room: string;
  holds: string;
  /** What it may import, in words (Markdown). */
  imports: string;
}

export function configVariables(): ConfigVariableRow[] {
  const rows: ConfigVariableRow[] = CONFIG_VARIABLES.map((name) => {
    const h = VARIABLE_HELP[name];
    const flag = h.environmentOnly
      ? ''
      : (h.switchFlag ?? `${flagOf(name)}${h.value === undefined ? '' : ` ${h.value}`}`);
    return { name, flag, group: h.group, help: h.help };
  });
  rows.push(
    {
      name: `${HEADER_PREFIX}<NAME>`,
      flag: "--header '<Name>: <value>'",
      group: 'target',
      help: 'an extra header on every request (a tenant); `<NAME>` is the header name with `-` as `_`',
    },
    {
      name: `${SECRET_HEADER_PREFIX}<NAME>`,
      flag: '',
      group: 'target',
      help: "a secret extra header (a gateway's API key): shown as the variable in every report",
    },
  );
  return rows;
}

/** The variables the code reads besides the configuration, in the order the page lists them. */
export function otherVariables(): OtherVariableRow[] {
  return [...runVariables(), ...developmentVariables()];
}

const internal = (name: string, readBy: string, help: string): OtherVariableRow => ({
  name,
  kind: 'internal',
  readBy,
  help,
});

/** What a run reads besides its configuration: the process environment, the suite's own hand-over. */
function runVariables(): OtherVariableRow[] {
  return [
    {
      name: 'HTTPS_PROXY, HTTP_PROXY, NO_PROXY',
      kind: 'process',
      readBy: "undici's EnvHttpProxyAgent",
      help: 'an egress proxy (either case), from the process environment only, never .env',
      external: true,
    },
    {
      name: 'NODE_EXTRA_CA_CERTS',
      kind: 'process',
      readBy: 'Node.js',
      help: "a private CA's PEM file, read when the command starts",
      external: true,
    },
    {
      name: 'INIT_CWD',
      kind: 'process',
      readBy: 'config/sources.ts',
      help: 'set by npm: the directory `npm run` was started from (its `.env` is read)',
    },
    {
      name: 'npm_package_json',
      kind: 'process',
      readBy: 'config/sources.ts',
      help: "set by npm: tells this project's `npm run` from a user's project's",
    },
    {
      name: 'NODE_OPTIONS',
      kind: 'process',
      readBy: 'bin/run-support.ts',
      help: "an installed copy adds --enable-source-maps to it for the suite's Playwright processes",
    },
    internal(
      RESOLVED_VARIABLE,
      'run/hand-down.ts',
      'the resolved configuration, as JSON, for every Playwright process',
    ),
    internal('CONFORMANCE_RUN_STATE', 'suite/global-setup.ts', "the run's shared state directory"),
    internal('CONFORMANCE_CLI_PID', 'suite/target.ts', "the CLI's pid: workers stop when it is gone"),
    internal(REPORTS_STAGING_ENV, 'playwright.config.ts', "the staging directory of the run's reports"),
    internal(RESULTS_STAGING_ENV, 'playwright.config.ts', "the staging directory of Playwright's results"),
    internal(
      WRITE_FAILURE_ENV,
      'reporter/disk-errors.ts',
      'where the reporter leaves the line of a report it could not write (full or read-only disk)',
    ),
    internal(
      OUTCOME_ENV,
      'reporter/outcome.ts',
      "where the reporter leaves the gate's verdict and the reports it could not write, for the command",
    ),
    internal(
      RECOVERY_ENV,
      'suite/conformance-reporter.ts',
      "global teardown's restores of a dead worker, or after a stop",
    ),
    internal(
      END_RESTORE_ENV,
      'suite/conformance-reporter.ts',
      "global teardown's restore, at the end of the run, of what the write checks handed on",
    ),
    internal(
      END_EXCHANGES_ENV,
      'suite/conformance-reporter.ts',
      "the exchanges of global teardown's restores, for exchanges.har",
    ),
    internal(PACE_ENV, 'suite/conformance-reporter.ts', "the run's pace, for the report"),
    internal(INTERRUPTED_ENV, 'transport/stop.ts', 'why and how the run was interrupted'),
    internal(
      LIVE_PROGRESS_ENV,
      'suite/live-progress.ts',
      "set when the CLI's output is a terminal, to its width: the live progress line while a probe runs",
    ),
    internal(
      TIMELINE_ENV,
      'reporter/timeline.ts',
      "when each step of the run's start-up came, for the record's `durations`",
    ),
    internal(
      EMBEDDED_SERVER_VARIABLE,
      'suite/global-setup.ts',
      'the URL of the embedded reference server the CLI started beside the runner',
    ),
    {
      name: 'GITHUB_OUTPUT',
      kind: 'process',
      readBy: 'bin/action.ts',
      help: "set by GitHub Actions: the file the Action's outputs are appended to",
    },
    {
      name: 'INPUT_REPORTS_DIR',
      kind: 'internal',
      readBy: 'bin/action.ts',
      help: "set by action.yml: the Action's reports-dir input, where the run's conformance.json is read",
    },
    {
      name: 'NO_COLOR',
      kind: 'process',
      readBy: 'reporter/console.ts',
      help: 'set and not empty: the console headline is never coloured',
    },
    {
      name: 'FORCE_COLOR',
      kind: 'process',
      readBy: 'reporter/console.ts',
      help: 'set (not 0 or false): the console headline is coloured even when the output is not a terminal',
    },
  ];
}

/** What the project's own tools read: the benchmark, the build, the tests. */
function developmentVariables(): OtherVariableRow[] {
  return [
    {
      name: 'BENCH_REMOTE_MODES',
      kind: 'development',
      readBy: 'bench/bench.ts',
      help: '`write`, `lanes`, `read-only` (comma-separated): the remote runs `npm run bench` repeats',
    },
    {
      name: 'BENCH_ONLY',
      kind: 'development',
      readBy: 'bench/bench.ts',
      help: '`embedded`, `floor`, `remote`, `timing`, `proxy` or `mutation`: `npm run bench` measures (or, for `mutation`, prints) that part alone',
    },
    {
      name: 'BENCH_LATENCY_MS',
      kind: 'development',
      readBy: 'bench/bench.ts',
      help: "the remote case's latency per request (default 150)",
    },
    {
      name: 'BENCH_LOAD_SECONDS',
      kind: 'development',
      readBy: 'bench/bench.ts',
      help: 'how long autocannon loads the reference server (default 5)',
    },
    {
      name: 'BENCH_PROXY_ROUNDS',
      kind: 'development',
      readBy: 'bench/bench.ts',
      help: "requests of the validating proxy's case (default 2000)",
    },
    {
      name: 'BENCH_ROUNDS',
      kind: 'development',
      readBy: 'bench/request-model.ts',
      help: "rounds of the request model's benchmark (default 200)",
    },
    {
      name: 'V',
      kind: 'development',
      readBy: 'scripts/gallery-diff.ts',
      help: '`npm run gallery:diff` also prints what each variant tripped',
    },
    {
      name: 'PAYFLOW_BUILD_TYPECHECK',
      kind: 'development',
      readBy: 'scripts/build.ts',
      help: '`0`: `npm run build` compiles without checking the types (the self-tests pack after `npm test` checked them)',
    },
    {
      name: 'NODE_COMPILE_CACHE',
      kind: 'process',
      readBy: 'bin/compile-cache.ts, scripts/test.ts',
      help: "where Node 22 and later keep compiled code for the command's and the self-tests' processes (default: in a clone `node_modules/.cache/payflow-node-compile-cache`, installed `~/.cache/payflow-conformance/node-compile-cache`); `NODE_DISABLE_COMPILE_CACHE=1` turns it off; Node 20 has none",
    },
    {
      name: 'NODE_DISABLE_COMPILE_CACHE',
      kind: 'process',
      readBy: 'bin/compile-cache.ts',
      help: "Node's own switch: set, no process of a run uses the compile cache",
    },
    {
      name: 'XDG_CACHE_HOME',
      kind: 'process',
      readBy: 'bin/compile-cache.ts',
      help: 'where an installed copy keeps its compile cache (`$XDG_CACHE_HOME/payflow-conformance/node-compile-cache`; default `~/.cache`)',
    },
    {
      name: 'PWTEST_CACHE_DIR',
      kind: 'process',
      readBy: 'suite/worker-modules.ts',
      help: "Playwright's cache of compiled modules, where a clone's run compiles what its workers load once per change of the sources",
    },
    {
      name: 'PLAYWRIGHT_TRANSFORM_CACHE_DIR',
      kind: 'process',
      readBy: 'suite/worker-modules.ts',
      help: "Playwright's other name for that cache directory",
    },
  ];
}

export function probes(): ProbeRow[] {
  return PROBES.map((p) => ({
    id: p.id,
    file: probeFile(p.id) ?? '',
    group: p.group,
    access: p.access,
    placement:
      p.access === 'read'
        ? ''
        : p.elsewhere
          ? 'beside the reads'
          : p.splitAcrossLanes
            ? 'split across lanes'
            : 'in a lane',
    operations: [...p.operations],
    judges: p.judges,
    aims: p.requirements.filter((r) => !(p.judges as readonly string[]).includes(r)),
    title: p.title,
  }));
}

export function oracles(): OracleRow[] {
  return ORACLES.map((o) => ({
    id: o.id,
    file: oracleFile(o.id) ?? '',
    kind: o.kind,
    requirements: o.requirements,
    unexercised: o.unexercised as Record<string, string>,
  }));
}

/** The catalogue, by section of interface.md in document order (as the reports group it). */
export function requirements(): RequirementRow[] {
  const bySection = [...REQUIREMENTS].sort((a, b) => compareSections(a.group, b.group));
  return bySection.map((r) => ({
    id: r.id,
    group: r.group,
    groupTitle: sectionTitle(r.group),
    level: r.level,
    statement: r.statement,
    quote: { source: r.quotes[0]!.source, text: r.quotes[0]!.text },
  }));
}

export function operations(): OperationRow[] {
  return spec()
    .operations()
    .map((o) => ({
      operationId: o.operationId,
      method: o.method.toUpperCase(),
      path: o.path,
      summary: o.summary,
    }));
}

/** The rooms of the house, from the top floor down. */
export function layers(): LayerRow[] {
  return LAYERS.map((r) => ({ floor: r.floor, room: r.room, holds: r.holds, imports: mayImport(r) }));
}
