/**
 * npm run conformance: validates the configuration, checks that the target answers, runs the
 * Playwright suite and turns the conformance verdict into the exit status:
 *   0  no MUST requirement failed (SHOULD failures are printed as warnings)
 *   1  at least one MUST requirement failed, or a check could not complete
 *   2  configuration or usage error (one line on stderr says what to fix)
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, loadEnvFile, parseConfig } from '../config/config.ts';
import type { ConformanceRecord } from '../reporter/summary.ts';
import { spec } from '../spec/index.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

const USAGE = `usage: npm run conformance [-- --help]

Runs the payflow conformance suite against API_BASE_URL, or against the embedded reference
server when API_BASE_URL is unset. Configuration comes from the environment and .env:
  API_BASE_URL, API_TOKEN, COUNTERPARTY_REF, WRITABLE_COUNTERPARTY_REF,
  CONFORMANCE_SEED, CONFORMANCE_RUNS (see README.md).
Exit status: 0 no MUST requirement failed, 1 a MUST requirement failed, 2 configuration error.`;

function fail(message: string): never {
  process.stderr.write(`conformance: ${message}\n`);
  process.exit(2);
}

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
  if (args.length > 0) fail(`unknown argument ${args[0]} (see --help)`);
  loadEnvFile(process.cwd());
  let config;
  try {
    config = parseConfig(process.env, { token: 'embedded', counterpartyRef: 'embedded' });
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  if (config.baseURL !== undefined) await preflight(config.baseURL, config.token, config.counterpartyRef);

  console.log(
    `payflow-conformance: interface ${spec().version}, target ${config.baseURL ?? 'embedded reference server'}, ` +
      `${config.writableRef ? `write mode on ${config.writableRef}` : 'read-only'}, seed ${config.seed}` +
      `${config.seedGiven ? ' (given)' : ''}, ${config.runs} case(s) per property`,
  );
  const reportsDir = resolve(process.env.CONFORMANCE_REPORTS_DIR || join(ROOT, 'reports'));
  const REPORT = join(reportsDir, 'conformance.json');
  rmSync(REPORT, { force: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    CONFORMANCE_SEED: String(config.seed),
    CONFORMANCE_RUNS: String(config.runs),
    CONFORMANCE_REPORTS_DIR: reportsDir,
  };
  const cli = join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js');
  const child = spawn(process.execPath, [cli, 'test', '--config', join(ROOT, 'playwright.config.ts')], {
    cwd: ROOT,
    env,
    stdio: 'inherit',
  });
  const code: number = await new Promise((resolveCode) =>
    child.on('exit', (c, signal) => resolveCode(c ?? (signal ? 2 : 0))),
  );
  if (!existsSync(REPORT))
    fail(`the suite did not complete (playwright exited ${code}); see the output above`);
  const record = JSON.parse(readFileSync(REPORT, 'utf8')) as ConformanceRecord;
  process.exit(record.verdict === 'pass' ? 0 : 1);
}

main().catch((error: unknown) => {
  fail(`unexpected error: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`);
});
