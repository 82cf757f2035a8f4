/**
 * npm run conformance: validates the configuration (the waiver file too), checks that the
 * target answers, runs the Playwright suite and turns the gate's verdict into the exit status:
 *   0  the gate passed: no MUST requirement failed (waived ones aside); SHOULD failures are
 *      warnings, unless in strict mode (--strict or CONFORMANCE_STRICT=1)
 *   1  the gate failed: a MUST requirement failed (or a SHOULD one in strict mode), or a check
 *      could not complete
 *   2  configuration or usage error (one line on stderr says what to fix)
 *   130, 143  interrupted by SIGINT, SIGTERM: the run stopped sending, restored the writable
 *      counterparty's details and wrote a partial report (bin/interrupt.ts)
 */
import { join, resolve } from 'node:path';
import { loadEnvFile, parseConfig } from '../config/config.ts';
import { EMBEDDED_TARGET } from '../config/embedded.ts';
import { REPORT_FILES } from '../reporter/files.ts';
import { RunGuard } from './interrupt.ts';
import { secretsFromEnv } from '../reporter/redact.ts';
import { spec } from '../spec/index.ts';
import { exitFromRecord, fail, gateEnv, orFail, ROOT, runPlaywright } from './run-support.ts';

const USAGE = `usage: npm run conformance [-- --strict | --help]

Runs the payflow conformance suite against API_BASE_URL, or against the embedded reference
server when API_BASE_URL is unset. Configuration comes from the environment and .env
(README.md says what each one does):
  target      API_BASE_URL, API_TOKEN, COUNTERPARTY_REF, WRITABLE_COUNTERPARTY_REF,
              ACCOUNT_FIXTURE, CONFORMANCE_ACCOUNT_BUDGET
  inputs      CONFORMANCE_SEED, CONFORMANCE_RUNS
  politeness  CONFORMANCE_RPS, CONFORMANCE_CONCURRENCY, CONFORMANCE_TIMEOUT_MS,
              CONFORMANCE_MAX_REQUESTS, CONFORMANCE_RETRIES, CONFORMANCE_MAX_RETRY_WAIT_MS,
              CONFORMANCE_MAX_RESPONSE_BYTES, CONFORMANCE_RUN_TIMEOUT_MS
  gate        CONFORMANCE_WAIVERS (default: conformance-waivers.yaml if it exists; none: no
              waivers), CONFORMANCE_STRICT, CONFORMANCE_REPORTS_DIR
  --strict   SHOULD failures fail the gate too (same as CONFORMANCE_STRICT=1)
Exit status: 0 the gate passed, 1 a MUST requirement failed (or, strict, a SHOULD one) or a
check could not complete, 2 configuration error, 130/143 interrupted (SIGINT/SIGTERM).`;

async function preflight(baseURL: string, token: string, reference: string): Promise<void> {
  const url = `${baseURL}/api/v1/counterparties/${encodeURIComponent(reference)}`;
  try {
    await fetch(url, {
      headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' },
      redirect: 'manual',
      signal: AbortSignal.timeout(15_000),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const reason =
      (error as Error).name === 'TimeoutError'
        ? 'no answer within 15 s'
        : (cause?.code ?? cause?.message ?? (error as Error).message);
    fail(`cannot reach API_BASE_URL ${baseURL} (${reason}); check the URL and that the deployment is up`);
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(USAGE);
    return;
  }
  const unknown = args.find((a) => a !== '--strict');
  if (unknown !== undefined) fail(`unknown argument ${unknown} (see --help)`);
  loadEnvFile(process.cwd());
  const config = orFail(() => parseConfig(process.env, EMBEDDED_TARGET));
  const gate = gateEnv(process.env, process.cwd(), args.includes('--strict'));
  if (config.baseURL !== undefined) await preflight(config.baseURL, config.token, config.counterpartyRef);

  console.log(
    `payflow-conformance: interface ${spec().version}, target ${config.baseURL ?? 'embedded reference server'}, ` +
      `${config.writableRef ? `write mode on ${config.writableRef}` : 'read-only'}, seed ${config.seed}` +
      `${config.seedGiven ? ' (given)' : ''}, ${config.runs} case(s) per property` +
      `${gate.CONFORMANCE_STRICT === '1' ? ', strict' : ''}`,
  );
  const reportsDir = resolve(process.env.CONFORMANCE_REPORTS_DIR || join(ROOT, 'reports'));
  const REPORT = join(reportsDir, REPORT_FILES.json);
  // The previous reports stay until a new set replaces them whole.
  const guard = new RunGuard(reportsDir);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CONFORMANCE_SEED: String(config.seed),
    CONFORMANCE_RUNS: String(config.runs),
    CONFORMANCE_REPORTS_DIR: reportsDir,
    ...gate,
    ...guard.env(),
  };
  const code = await runPlaywright(
    ['test', '--config', join(ROOT, 'playwright.config.ts')],
    env,
    config.baseURL !== undefined ? secretsFromEnv({ API_TOKEN: config.token }) : [],
    { detached: true, onSpawn: (child) => guard.watch(child) },
  );
  if (!guard.finish(reportsDir))
    fail(
      `the suite did not complete (playwright exited ${code}); the previous reports are left as they were`,
    );
  exitFromRecord(REPORT, code, 'the suite');
}

main().catch((error: unknown) => {
  fail(`unexpected error: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`);
});
