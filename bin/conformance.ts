/**
 * payflow-conformance run (bin/cli.ts), npm run conformance: resolves the configuration once
 * (run/resolve.ts: flags, then the
 * environment, then the .env of the directory it was run from) and validates it, the waiver file
 * too; takes the reports directory (writable, and no other run in it); checks that the target
 * can be reached (bin/preflight.ts), or starts the embedded reference server; runs the Playwright
 * suite, handing it the resolved configuration and nothing else (its runner was started first and
 * loaded Playwright meanwhile: bin/warm-runner.ts); and turns the gate's verdict, as the reporter hands it on
 * (reporter/outcome.ts), into the exit status:
 *   0  the gate passed: no MUST requirement failed (waived ones aside); SHOULD failures are
 *      warnings, unless in strict mode (--strict or CONFORMANCE_STRICT=1)
 *   1  the gate failed: a MUST requirement failed (or a SHOULD one in strict mode), or a check
 *      could not complete
 *   2  configuration or usage error (one line on stderr says what to fix), or a report chosen
 *      (--report) that could not be written: the others are written, one line says which and why
 *   130, 143  interrupted by SIGINT, SIGTERM: the run stopped sending, restored the writable
 *      counterparty's details and wrote a partial report (bin/interrupt.ts)
 */
import { join } from 'node:path';
import { EMBEDDED_TARGET } from '../config/embedded.ts';
import { resolveRun, type RunFlags } from '../run/resolve.ts';
import { EMBEDDED_SERVER_VARIABLE, playwrightEnv } from '../run/hand-down.ts';
import { dotenvLine, invocationDirectory } from '../config/sources.ts';
import { checkOwnPaths, RESULTS_PATHS } from '../reporter/report-set.ts';
import { PROBE_CATALOG } from '../probes/described.ts';
import { chosenWriters, RECORD_FILE, reportPaths, RUN_SOURCES } from '../reporter/writers.ts';
import { RunGuard } from './interrupt.ts';
import { headerSecrets } from '../exchange/extra-headers.ts';
import { secretsFromEnv, type SecretInput } from '../exchange/redactors.ts';
import { spec } from '../spec/index.ts';
import { preflight } from './preflight.ts';
import { lockReportsDir } from './reports-lock.ts';
import { checkWritable, runOutputs } from './write-failure.ts';
import {
  exitWithGate,
  fail,
  isEntryPoint,
  orFail,
  passOutput,
  PLAYWRIGHT_CLI,
  playwrightProcessEnv,
  ROOT,
  runMain,
} from './run-support.ts';
import { takeRunner } from './warm-runner.ts';
import { modulePath } from '../config/layout.ts';
import { mark, startTimeline } from '../reporter/timeline.ts';
import {
  configurationFlags,
  embeddedFlag,
  formatFlags,
  parseArgs,
  reportsHelp,
  strictFlag,
  tokenHelp,
  UsageError,
  type Flag,
} from './args.ts';
import type { Env } from '../config/error.ts';
import { selectionFlags, type SelectionFlagValues } from './selection-flags.ts';
import { printedVersion } from './version.ts';

/** The flags of `run`: the configuration variables', --strict and --probe. */
function runFlags(flags: Flags): Flag[] {
  const known = PROBE_CATALOG.map((p) => p.id);
  return [
    embeddedFlag(flags.variables),
    ...configurationFlags(flags.variables),
    strictFlag(() => (flags.strict = true)),
    {
      name: '--header',
      value: "'Name: value'",
      group: 'The target',
      help:
        'an extra header on every request (repeatable), e.g. a tenant; over CONFORMANCE_HEADER_<NAME>.\n' +
        "A secret one (a gateway's API key) goes in CONFORMANCE_SECRET_HEADER_<NAME> (X_API_KEY\n" +
        'for X-Api-Key), never on the command line; reports show it as that variable',
      needs: "a header: --header 'Name: value'",
      apply: (value) => {
        if (value === undefined || value === '') throw new UsageError("--header needs 'Name: value'");
        flags.headers.push(value);
      },
    },
    {
      name: '--probe',
      value: '<id>',
      group: 'Selection',
      help:
        'run only this probe (repeatable); the requirements outside the selection that nothing\n' +
        'judged are reported as not selected. Probe ids: docs/what-is-checked.md. A\n' +
        "finding's replay line runs its probe alone with every setting of the run but the token",
      needs: `a probe id; known probes: ${known.join(', ')}`,
      apply: (id) => {
        if (id === undefined || id === '' || id.startsWith('-'))
          throw new UsageError(`--probe needs a probe id; known probes: ${known.join(', ')}`);
        if (!known.includes(id))
          throw new UsageError(`unknown probe '${id}' (--probe); known probes: ${known.join(', ')}`);
        if (!flags.probes.includes(id)) flags.probes.push(id);
      },
    },
    ...selectionFlags(flags.selection),
  ];
}

/** --help of `run` (and of `npm run conformance -- --help`). */
export function runUsage(): string {
  return `usage: payflow-conformance run [options]
       npm run conformance -- [options]          (in the repository)

Runs the payflow conformance suite against a deployment (--base-url, API_BASE_URL), or against
the embedded reference server when none is given, and exits with the gate's verdict. Each
setting comes from its flag, else from its environment variable, else from the .env file of the
directory you run it from; relative paths resolve against that directory, and the reports go to
its reports/ unless --reports-dir says otherwise. docs/configuration.md says what each setting
does.

${tokenHelp()}

${formatFlags(runFlags(emptyFlags()))}

${reportsHelp()}

Exit status: 0 the gate passed (the headline says how many MUST requirements were not
exercised, if any), 1 a MUST requirement failed (or, strict, a SHOULD one), a check could not
complete, or (--require-exercised) a selected requirement was not exercised; 2 configuration or
usage error, a token the target does not accept (401 with it as without it), a target that is
not the one meant (COUNTERPARTY_REF not found there, not the interface, a redirect), or a
report chosen that could not be written; 130/143 interrupted (SIGINT/SIGTERM).`;
}

/** What the command line of `run` says (parseRunArgs). */
export interface Flags {
  strict: boolean;
  probes: string[];
  headers: string[];
  selection: SelectionFlagValues;
  /** The configuration variables the flags set, over the environment and .env. */
  variables: Env;
}

function emptyFlags(): Flags {
  return { strict: false, probes: [], headers: [], variables: {}, selection: {} };
}

/**
 * The command line of `run` read against its flags, as runCommand reads it: a UsageError, its
 * message the line the command prints, when it is wrong.
 */
export function parseRunArgs(args: readonly string[]): Flags {
  const flags = emptyFlags();
  parseArgs(args, runFlags(flags));
  return flags;
}

/** The flags of the command line as run/resolve.ts takes them (resolveRun's `flags`). */
export function runFlagsOf(flags: Flags): RunFlags {
  return {
    strict: flags.strict,
    probes: flags.probes,
    headers: flags.headers,
    variables: flags.variables,
    choosesTarget: true,
    ...flags.selection,
  };
}

/**
 * The embedded reference server on a port of its own; loaded only for an embedded run (a run
 * against a deployment needs none of it).
 */
async function startEmbeddedServer(token: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const { ReferenceServer } = await import('../servers/reference.ts');
  const server = new ReferenceServer({ token });
  return { url: await server.start(0), stop: () => server.stop() };
}

/** `payflow-conformance run` and `npm run conformance`: exits with the gate's status. */
export async function runCommand(args: readonly string[]): Promise<void> {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(runUsage());
    return;
  }
  if (printedVersion(args)) return;
  startTimeline(process.env);
  // Playwright's runner loads while this process reads the configuration and checks the target.
  const runner = takeRunner(PLAYWRIGHT_CLI, ROOT, playwrightProcessEnv(process.env));
  const flags = orFail(() => parseRunArgs(args));
  const run = orFail(() =>
    resolveRun(process.env, invocationDirectory(), EMBEDDED_TARGET, runFlagsOf(flags)),
  );
  mark(process.env, 'configurationRead');
  const { config } = run;
  // Before the first request: the reports directory must be writable, and this run's alone, and
  // neither it nor the results directory may hold, where the run writes, what it did not write.
  orFail(() => lockReportsDir(run.reportsDir));
  const writes = reportPaths(chosenWriters(run.reports), RUN_SOURCES);
  orFail(() => checkOwnPaths(run.reportsDir, writes, 'the reports directory'));
  orFail(() => checkOwnPaths(run.resultsDir, RESULTS_PATHS, "Playwright's results directory"));
  // Full, read-only or not this user's: one line now rather than an error after the run.
  orFail(() => checkWritable(runOutputs(run.reportsDir, run.resultsDir)));
  console.log(
    `payflow-conformance: interface ${spec().version}, target ${config.baseURL ?? 'embedded reference server'}` +
      `${run.target ? ` (${run.target.why})` : ''}, ` +
      `${config.writableRef ? `write mode on ${(config.writableRefs ?? [config.writableRef]).join(', ')}` : 'read-only'}, seed ${config.seed}` +
      `${config.seedGiven ? ' (given)' : ''}, ${config.runs} case(s) per property` +
      `${run.strict ? ', strict' : ''}` +
      `${run.selection ? `, only ${run.selection.label} (probes ${run.selection.probes.join(', ')})` : ''}` +
      `${run.replayCase ? `, case ${run.replayCase.property}@${run.replayCase.path}` : ''}` +
      `${run.requireExercised ? `, require exercised: ${run.requireExercised}` : ''}; ${dotenvLine(run)}`,
  );
  for (const line of run.target?.unused ?? []) console.log(`note: ${line}`);
  // The previous reports stay until a new set replaces them.
  const guard = orFail(() => new RunGuard(run.reportsDir, run.resultsDir));
  const secrets: SecretInput[] =
    config.baseURL !== undefined
      ? [...secretsFromEnv({ API_TOKEN: config.token }), ...headerSecrets(config.extraHeaders)]
      : [];
  // The embedded server starts beside the runner, in this process, which has little else to do.
  const embedded = config.baseURL === undefined ? startEmbeddedServer(config.token) : undefined;
  let note: string | undefined;
  if (config.baseURL !== undefined) {
    const target = {
      baseURL: config.baseURL,
      token: config.token,
      counterpartyRef: config.counterpartyRef,
      timeoutMs: config.politeness.timeoutMs,
      extraHeaders: config.extraHeaders,
    };
    const startedAt = new Date();
    // What writes a report is loaded only if it is needed (./stopped-report.ts).
    guard.stopsBeforeStart(async (signal) =>
      (await import('./stopped-report.ts')).writeStoppedReport(
        run,
        guard.stagingDir,
        signal,
        startedAt,
        secrets,
      ),
    );
    mark(process.env, 'preflightStart');
    note = await preflight(target).catch((error: unknown) => fail((error as Error).message));
    mark(process.env, 'preflightEnd');
  }
  // Stopped during the check: the partial report is being written, and the CLI exits after it.
  if (guard.stoppedBeforeStart) return new Promise<never>(() => {});
  if (note !== undefined) console.log(note);
  const server = await embedded;
  const child = runner.hand(
    ['test', '--config', modulePath('playwright.config.ts')],
    playwrightProcessEnv({
      ...playwrightEnv(run),
      ...guard.env(),
      ...(server ? { [EMBEDDED_SERVER_VARIABLE]: server.url } : {}),
    }),
  );
  guard.watch(child);
  const code = await passOutput(child, secrets);
  await server?.stop();
  const written = guard.finish(run.reportsDir);
  if (guard.writeFailure !== undefined) fail(guard.writeFailure);
  if (!written)
    fail(
      `the suite did not complete (playwright exited ${code}); the previous reports are left as they were`,
    );
  exitWithGate(guard.outcome, join(run.reportsDir, RECORD_FILE), code, 'the suite');
}

if (isEntryPoint(import.meta.url)) runMain(() => runCommand(process.argv.slice(2)));
