/**
 * npm run conformance:merge [-- --strict] [-- <blob-dir>]: merges the blob reports of a
 * sharded run into the reports one machine writes (reports/conformance.json, .html, junit.xml,
 * reports/playwright/) and turns the gate's verdict into the exit status, like
 * `npm run conformance`:
 *   0  the gate passed, 1 the gate failed, 2 configuration or usage error
 *
 * Each shard ran `npx playwright test --config playwright.config.ts --shard=i/n --reporter=blob`
 * with the same configuration and the same CONFORMANCE_SEED; this step needs that
 * configuration too (the target, the seed, the waivers), since blobs hold only the outcomes.
 */
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EMBEDDED_TARGET } from '../config/embedded.ts';
import { invocationDirectory, playwrightEnv, resolveRun } from '../config/resolve.ts';
import { REPORT_FILES } from '../reporter/files.ts';
import { createStaging } from '../reporter/report-set.ts';
import { secretsFromEnv } from '../reporter/redact.ts';
import { lockReportsDir } from './reports-lock.ts';
import { exitFromRecord, fail, orFail, ROOT, runPlaywright } from './run-support.ts';

const USAGE = `usage: npm run conformance:merge -- [--strict] [<blob-dir>]

Merges the blob reports (*.zip) in <blob-dir> (default: blob-report) of a sharded conformance
run into CONFORMANCE_REPORTS_DIR (default: reports/) and exits with the gate's verdict.
The environment must hold the configuration the shards ran with: API_BASE_URL, API_TOKEN,
COUNTERPARTY_REF, WRITABLE_COUNTERPARTY_REF, CONFORMANCE_RUNS and, required here, the
CONFORMANCE_SEED every shard used; CONFORMANCE_WAIVERS and CONFORMANCE_STRICT as for a run.
Exit status: 0 the gate passed, 1 the gate failed, 2 configuration error.`;

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(USAGE);
    return;
  }
  const options = args.filter((a) => a.startsWith('-'));
  const unknown = options.find((a) => a !== '--strict');
  if (unknown !== undefined) fail(`unknown argument ${unknown} (see --help)`);
  const positional = args.filter((a) => !a.startsWith('-'));
  if (positional.length > 1) fail(`expected one blob directory, got ${positional.length} (see --help)`);
  const cwd = invocationDirectory();
  const blobDir = resolve(cwd, positional[0] ?? 'blob-report');

  const run = orFail(() =>
    resolveRun(process.env, cwd, EMBEDDED_TARGET, { strict: args.includes('--strict') }),
  );
  const { config } = run;
  if (!config.seedGiven)
    fail('CONFORMANCE_SEED is required to merge shards: set it to the seed every shard ran with');
  if (!existsSync(blobDir) || !statSync(blobDir).isDirectory())
    fail(`the blob directory ${blobDir} does not exist (the shards write blob-report/ by default)`);
  const blobs = readdirSync(blobDir).filter((f) => f.endsWith('.zip'));
  if (blobs.length === 0) fail(`no blob reports (*.zip) in ${blobDir}`);

  orFail(() => lockReportsDir(run.reportsDir));
  // The previous reports stay until the merged set replaces them whole (reporter/report-set.ts).
  const staging = createStaging(run.reportsDir);
  console.log(
    `payflow-conformance: merging ${blobs.length} blob report(s) from ${blobDir}, seed ${config.seed}` +
      `${run.strict ? ', strict' : ''}`,
  );
  const targetKind =
    config.baseURL !== undefined ? 'configured deployment' : 'embedded reference server, one per shard';
  const code = await runPlaywright(
    ['merge-reports', '--config', join(ROOT, 'playwright.merge.config.ts'), blobDir],
    { ...playwrightEnv({ ...run, targetKind }), CONFORMANCE_REPORTS_STAGING: staging },
    config.baseURL !== undefined ? secretsFromEnv({ API_TOKEN: config.token }) : [],
  );
  // The reporter removes the staging directory once its set is in place.
  const written = !existsSync(staging);
  rmSync(staging, { recursive: true, force: true });
  if (!written)
    fail(
      `the merge did not complete (playwright exited ${code}); the previous reports are left as they were`,
    );
  exitFromRecord(join(run.reportsDir, REPORT_FILES.json), code, 'the merge');
}

main().catch((error: unknown) => {
  fail(`unexpected error: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`);
});
