/**
 * payflow-conformance merge (bin/cli.ts), npm run conformance:merge [-- --strict] [-- <blob-dir>]: merges the blob reports of a
 * sharded run into the reports one machine writes (those `--report` chooses: reporter/writers.ts)
 * and turns the gate's verdict into the exit status, like
 * `npm run conformance`:
 *   0  the gate passed, 1 the gate failed, 2 configuration or usage error (a blob directory
 *      holding a FIFO or a device among them: bin/blob-inputs.ts) or a report chosen that could
 *      not be written, 130/143 interrupted by
 *      SIGINT/SIGTERM (Playwright's process group ended with it: bin/child-group.ts)
 *
 * Each shard ran `npx playwright test --config playwright.config.ts --shard=i/n --reporter=blob`
 * with the same configuration and the same CONFORMANCE_SEED; this step needs that
 * configuration too (the target, the seed, the waivers), since blobs hold only the outcomes.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { EMBEDDED_TARGET } from '../config/embedded.ts';
import { resolveRun } from '../run/resolve.ts';
import { playwrightEnv } from '../run/hand-down.ts';
import { dotenvLine, invocationDirectory } from '../config/sources.ts';
import { chosenWriters, RECORD_FILE, reportPaths, RUN_SOURCES } from '../reporter/writers.ts';
import { checkOwnPaths, createStaging } from '../reporter/report-set.ts';
import { OUTCOME_ENV, outcomeFile, outcomeIn } from '../reporter/outcome.ts';
import { headerSecrets } from '../exchange/extra-headers.ts';
import { secretsFromEnv } from '../exchange/redactors.ts';
import { lockReportsDir } from './reports-lock.ts';
import { checkBlobDirectory } from './blob-inputs.ts';
import { GroupGuard } from './child-group.ts';
import { checkWritable, runOutputs, writeFailureAfter, writeFailureFile } from './write-failure.ts';
import { WRITE_FAILURE_ENV } from '../reporter/disk-errors.ts';
import { exitWithGate, fail, isEntryPoint, orFail, runMain, runPlaywright } from './run-support.ts';
import { modulePath } from '../config/layout.ts';
import {
  configurationFlags,
  formatFlags,
  parseArgs,
  reportsHelp,
  strictFlag,
  tokenHelp,
  UsageError,
  type Flag,
} from './args.ts';
import type { Env } from '../config/error.ts';
import { printedVersion } from './version.ts';

/** How long Playwright's merge has after SIGTERM before SIGKILL: it sends nothing, restores nothing. */
const MERGE_STOP_GRACE_MS = 2000;

interface Flags {
  strict: boolean;
  blobDir?: string;
  /** The configuration variables the flags set, over the environment and .env. */
  variables: Env;
}

/** The flags of `merge`: those of a run's configuration (the shards'), and --strict. */
function mergeFlags(flags: Flags): Flag[] {
  return [...configurationFlags(flags.variables), strictFlag(() => (flags.strict = true))];
}

/** --help of `merge` (and of `npm run conformance:merge -- --help`). */
export function mergeUsage(): string {
  return `usage: payflow-conformance merge [options] [<blob-dir>]
       npm run conformance:merge -- [options] [<blob-dir>]   (in the repository)

Merges the blob reports (*.zip) in <blob-dir> (default: blob-report) of a sharded conformance
run into the reports (reports/ of the directory you run it from, or --reports-dir) and exits
with the gate's verdict. It needs the configuration the shards ran with (the target, the
references, the runs and, required here, the seed every shard used), from the same flags,
environment variables or .env as \`run\`.

${tokenHelp()}

${formatFlags(mergeFlags({ strict: false, variables: {} }))}

${reportsHelp()}

Exit status: 0 the gate passed, 1 the gate failed, 2 configuration error or a report chosen that
could not be written, 130/143 interrupted (SIGINT/SIGTERM: the merge is stopped, the previous
reports are left as they were).`;
}

/** \`payflow-conformance merge\` and \`npm run conformance:merge\`: exits with the gate's status. */
export async function mergeCommand(args: readonly string[]): Promise<void> {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(mergeUsage());
    return;
  }
  if (printedVersion(args)) return;
  const flags: Flags = { strict: false, variables: {} };
  orFail(() =>
    parseArgs(args, mergeFlags(flags), (arg) => {
      if (flags.blobDir !== undefined)
        throw new UsageError('expected one blob directory, got 2 or more (see --help)');
      flags.blobDir = arg;
    }),
  );
  const cwd = invocationDirectory();
  const blobDir = resolve(cwd, flags.blobDir ?? 'blob-report');

  const run = orFail(() =>
    resolveRun(process.env, cwd, EMBEDDED_TARGET, { strict: flags.strict, variables: flags.variables }),
  );
  const { config } = run;
  if (!config.seedGiven)
    fail('CONFORMANCE_SEED is required to merge shards: set it to the seed every shard ran with');
  // Before Playwright opens anything: a FIFO named *.zip blocked it forever.
  const blobs = orFail(() => checkBlobDirectory(blobDir));

  orFail(() => lockReportsDir(run.reportsDir));
  const writes = reportPaths(chosenWriters(run.reports), RUN_SOURCES);
  orFail(() => checkOwnPaths(run.reportsDir, writes, 'the reports directory'));
  const outputs = runOutputs(run.reportsDir);
  orFail(() => checkWritable(outputs));
  // Where Playwright's runner leaves the line of a write that failed (bin/write-failure.ts).
  const base = join(tmpdir(), `payflow-merge-${randomBytes(8).toString('hex')}`);
  const handOver = writeFailureFile(base);
  // Where the reporter leaves the gate's verdict and the reports it could not write (reporter/outcome.ts).
  const outcome = outcomeFile(base);
  process.on('exit', () => {
    rmSync(handOver, { force: true });
    rmSync(outcome, { force: true });
  });
  const made: { staging?: string } = {};
  // Playwright runs in a process group of its own, which a signal to this command ends
  // (bin/child-group.ts); the previous reports stay unless the merged set was already in place.
  const guard = new GroupGuard({
    what: 'the merge',
    graceMs: MERGE_STOP_GRACE_MS,
    say: (line) => process.stderr.write(`conformance: ${line}\n`),
    cleanup: (signal) => {
      const { staging } = made;
      const written = staging !== undefined && !existsSync(staging);
      if (staging !== undefined) rmSync(staging, { recursive: true, force: true });
      process.stderr.write(
        `conformance: interrupted by ${signal}: ${written ? 'the merged reports were written before it stopped' : 'the previous reports are left as they were'}\n`,
      );
    },
  });
  // The previous reports stay until the merged set replaces them (reporter/report-set.ts).
  const staging = (made.staging = orFail(() => createStaging(run.reportsDir)));
  console.log(
    `payflow-conformance: merging ${blobs.length} blob report(s) from ${blobDir}, seed ${config.seed}` +
      `${run.strict ? ', strict' : ''}; ${dotenvLine(run)}`,
  );
  const targetKind =
    config.baseURL !== undefined ? 'configured deployment' : 'embedded reference server, one per shard';
  const code = await runPlaywright(
    ['merge-reports', '--config', modulePath('playwright.merge.config.ts'), blobDir],
    {
      ...playwrightEnv({ ...run, targetKind }),
      CONFORMANCE_REPORTS_STAGING: staging,
      [WRITE_FAILURE_ENV]: handOver,
      [OUTCOME_ENV]: outcome,
    },
    config.baseURL !== undefined
      ? [...secretsFromEnv({ API_TOKEN: config.token }), ...headerSecrets(config.extraHeaders)]
      : [],
    { detached: true, onSpawn: (child) => guard.watch(child) },
  );
  guard.dispose();
  // The reporter removes the staging directory once its set is in place.
  const written = !existsSync(staging);
  // Before the staging directory goes: on a full disk, it holds what space was left.
  const failure = written ? undefined : writeFailureAfter(handOver, outputs);
  rmSync(staging, { recursive: true, force: true });
  if (failure !== undefined) fail(failure);
  if (!written)
    fail(
      `the merge did not complete (playwright exited ${code}); the previous reports are left as they were`,
    );
  exitWithGate(outcomeIn(outcome), join(run.reportsDir, RECORD_FILE), code, 'the merge');
}

if (isEntryPoint(import.meta.url)) runMain(() => mergeCommand(process.argv.slice(2)));
