/**
 * npm run conformance: resolves the configuration once (config/resolve.ts: flags, then the
 * environment, then the .env of the directory it was run from) and validates it, the waiver file
 * too; takes the reports directory (writable, and no other run in it); checks that the target
 * can be reached (bin/preflight.ts); runs the Playwright suite, handing it the resolved
 * configuration and nothing else; and turns the gate's verdict into the exit status:
 *   0  the gate passed: no MUST requirement failed (waived ones aside); SHOULD failures are
 *      warnings, unless in strict mode (--strict or CONFORMANCE_STRICT=1)
 *   1  the gate failed: a MUST requirement failed (or a SHOULD one in strict mode), or a check
 *      could not complete
 *   2  configuration or usage error (one line on stderr says what to fix)
 *   130, 143  interrupted by SIGINT, SIGTERM: the run stopped sending, restored the writable
 *      counterparty's details and wrote a partial report (bin/interrupt.ts)
 */
import { join } from 'node:path';
import { EMBEDDED_TARGET } from '../config/embedded.ts';
import { invocationDirectory, playwrightEnv, resolveRun } from '../config/resolve.ts';
import { PROBES } from '../probes/index.ts';
import { REPORT_FILES } from '../reporter/files.ts';
import { RunGuard } from './interrupt.ts';
import { secretsFromEnv } from '../reporter/redact.ts';
import { spec } from '../spec/index.ts';
import { preflight } from './preflight.ts';
import { lockReportsDir } from './reports-lock.ts';
import { exitFromRecord, fail, orFail, ROOT, runPlaywright } from './run-support.ts';

const USAGE = `usage: npm run conformance [-- [--strict] [--probe <id>]... | --help]

Runs the payflow conformance suite against API_BASE_URL, or against the embedded reference
server when API_BASE_URL is unset. Configuration comes from the flags, then the environment,
then the .env file of the directory you run it from (README.md says what each one does):
  target      API_BASE_URL, API_TOKEN, COUNTERPARTY_REF, WRITABLE_COUNTERPARTY_REF,
              ACCOUNT_FIXTURE, CONFORMANCE_ACCOUNT_BUDGET, CONFORMANCE_SETTLE_MS
  inputs      CONFORMANCE_SEED, CONFORMANCE_RUNS
  politeness  CONFORMANCE_RPS, CONFORMANCE_CONCURRENCY, CONFORMANCE_TIMEOUT_MS,
              CONFORMANCE_MAX_REQUESTS, CONFORMANCE_RETRIES, CONFORMANCE_MAX_RETRY_WAIT_MS,
              CONFORMANCE_MAX_RESPONSE_BYTES, CONFORMANCE_RUN_TIMEOUT_MS
  gate        CONFORMANCE_WAIVERS (default: conformance-waivers.yaml if it exists; none: no
              waivers), CONFORMANCE_STRICT, CONFORMANCE_REPORTS_DIR
  --strict      SHOULD failures fail the gate too (same as CONFORMANCE_STRICT=1)
  --probe <id>  run only this probe (repeatable); the requirements no selected probe
                exercises are reported as not exercised. Replay a finding with
                CONFORMANCE_SEED=<seed> npm run conformance -- --probe <id>
Exit status: 0 the gate passed, 1 a MUST requirement failed (or, strict, a SHOULD one) or a
check could not complete, 2 configuration or usage error, 130/143 interrupted (SIGINT/SIGTERM).`;

interface Flags {
  help: boolean;
  strict: boolean;
  probes: string[];
}

function parseFlags(args: readonly string[]): Flags {
  const flags: Flags = { help: false, strict: false, probes: [] };
  const known = PROBES.map((p) => p.id);
  const probe = (id: string | undefined): void => {
    if (id === undefined || id === '' || id.startsWith('-'))
      fail(`--probe needs a probe id; known probes: ${known.join(', ')}`);
    if (!known.includes(id)) fail(`unknown probe '${id}' (--probe); known probes: ${known.join(', ')}`);
    if (!flags.probes.includes(id)) flags.probes.push(id);
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--help' || arg === '-h') flags.help = true;
    else if (arg === '--strict') flags.strict = true;
    else if (arg === '--probe') probe(args[++i]);
    else if (arg.startsWith('--probe=')) probe(arg.slice('--probe='.length));
    else fail(`unknown argument ${arg} (see --help)`);
  }
  return flags;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(USAGE);
    return;
  }
  const flags = parseFlags(args);
  const run = orFail(() =>
    resolveRun(process.env, invocationDirectory(), EMBEDDED_TARGET, {
      strict: flags.strict,
      probes: flags.probes,
    }),
  );
  const { config } = run;
  // Before the first request: the reports directory must be writable, and this run's alone.
  orFail(() => lockReportsDir(run.reportsDir));
  let note: string | undefined;
  if (config.baseURL !== undefined) {
    const target = {
      baseURL: config.baseURL,
      token: config.token,
      counterpartyRef: config.counterpartyRef,
      timeoutMs: config.politeness.timeoutMs,
    };
    note = await preflight(target).catch((error: unknown) => fail((error as Error).message));
  }

  console.log(
    `payflow-conformance: interface ${spec().version}, target ${config.baseURL ?? 'embedded reference server'}, ` +
      `${config.writableRef ? `write mode on ${(config.writableRefs ?? [config.writableRef]).join(', ')}` : 'read-only'}, seed ${config.seed}` +
      `${config.seedGiven ? ' (given)' : ''}, ${config.runs} case(s) per property` +
      `${run.strict ? ', strict' : ''}` +
      `${run.probes ? `, only --probe ${run.probes.join(', ')}` : ''}`,
  );
  if (note !== undefined) console.log(note);
  // The previous reports stay until a new set replaces them whole.
  const guard = new RunGuard(run.reportsDir);
  const code = await runPlaywright(
    ['test', '--config', join(ROOT, 'playwright.config.ts')],
    { ...playwrightEnv(run), ...guard.env() },
    config.baseURL !== undefined ? secretsFromEnv({ API_TOKEN: config.token }) : [],
    { detached: true, onSpawn: (child) => guard.watch(child) },
  );
  if (!guard.finish(run.reportsDir))
    fail(
      `the suite did not complete (playwright exited ${code}); the previous reports are left as they were`,
    );
  exitFromRecord(join(run.reportsDir, REPORT_FILES.json), code, 'the suite');
}

main().catch((error: unknown) => {
  fail(`unexpected error: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`);
});
