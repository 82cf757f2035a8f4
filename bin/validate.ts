/**
 * npm run validate: judges traffic the suite did not send, with the same oracles and the same
 * reports (conformance.json, conformance.html, junit.xml) as a run.
 *
 *   npm run validate -- <file.har> [--base-url URL] [--strict]
 *       every entry of a HAR 1.2 file (Playwright's recordHar, a browser's devtools, mitmproxy,
 *       the suite's own reports/exchanges.har) below /api/v1/ is judged; the others are counted
 *       and listed. --base-url says where the interface starts (entries not below it are outside
 *       it); default: the first /api/v1/ of each URL.
 *   npm run validate -- --proxy [--port N] [--duration S] [--strict]
 *       a reverse proxy on 127.0.0.1:N (default 8080; 0: a free port) in front of API_BASE_URL
 *       (configuration resolved as the CLI does), forwarding everything unchanged and judging each
 *       exchange; the reports are written when it is stopped (SIGINT, SIGTERM) or after S seconds.
 *
 * Exit status: 0 the gate passed, 1 it failed (a MUST requirement failed, or a SHOULD one in
 * strict mode), 2 configuration or usage error, or a malformed HAR file (one line says where and why).
 */
import { readFileSync } from 'node:fs';
import { EMBEDDED_TARGET } from '../config/embedded.ts';
import { ConfigError } from '../config/config.ts';
import { invocationDirectory, resolveRun, type ResolvedRun } from '../config/resolve.ts';
import { bearerTokens, redactExchange, TrafficValidation, type TrafficRecord } from '../engine/validate.ts';
import type { Exchange } from '../exchange/exchange.ts';
import { exchangesOfHar, harOfExchanges, HarError, parseHar } from '../exchange/har.ts';
import { basePathOf } from '../exchange/route.ts';
import { redactText } from '../reporter/redact.ts';
import { createStaging } from '../reporter/report-set.ts';
import { buildRecord, formatSummary } from '../reporter/summary.ts';
import { displayPath, loadWaivers, NO_WAIVERS } from '../reporter/waivers.ts';
import { writeReports } from '../reporter/write-reports.ts';
import { spec } from '../spec/index.ts';
import { ValidatingProxy } from '../transport/proxy.ts';
import { lockReportsDir } from './reports-lock.ts';

/** Prints one line on stderr and exits 2 (usage, configuration, a malformed HAR file). */
function fail(message: string): never {
  process.stderr.write(`validate: ${message.split('\n')[0]}\n`);
  process.exit(2);
}

/** Runs `fn`, turning a ConfigError into exit 2 with its one line. */
function orFail<T>(fn: () => T): T {
  try {
    return fn();
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
}

const USAGE = `usage: npm run validate -- <file.har> [--base-url URL] [--strict]
       npm run validate -- --proxy [--port N] [--duration S] [--strict]

Judges traffic the suite did not send with the suite's oracles, and writes the same reports
(CONFORMANCE_REPORTS_DIR, default reports/: conformance.json, conformance.html, junit.xml).
  <file.har>      a HAR 1.2 file: every exchange below /api/v1/ is judged, the others counted
  --base-url URL  where the interface starts in the HAR's URLs (default: the first /api/v1/)
  --proxy         a reverse proxy on 127.0.0.1 in front of API_BASE_URL: point the client at it;
                  the reports are written when it stops (SIGINT, SIGTERM, or --duration)
  --port N        the proxy's port (default 8080; 0: a free port, printed)
  --duration S    stop the proxy after S seconds
  --strict        SHOULD failures fail the gate too
Requirements no exchange exercised are "not exercised", never passed; those only a probe's plan
judges are not exercised in validation.
Exit status: 0 the gate passed, 1 a MUST requirement failed (or, strict, a SHOULD one),
2 configuration or usage error, or a malformed HAR file.`;

interface Flags {
  har?: string;
  baseURL?: string;
  proxy: boolean;
  port: number;
  duration?: number;
  strict: boolean;
}

function parseFlags(args: readonly string[]): Flags {
  const flags: Flags = { proxy: false, port: 8080, strict: false };
  const value = (name: string, v: string | undefined): string => {
    if (v === undefined || v === '' || v.startsWith('--')) fail(`${name} needs a value (see --help)`);
    return v;
  };
  const number = (name: string, v: string, max: number): number => {
    const n = Number(v);
    if (!/^\d+(\.\d+)?$/.test(v) || n > max) fail(`${name} must be a number from 0 to ${max}, not '${v}'`);
    return n;
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [name, inline] =
      arg.startsWith('--') && arg.includes('=')
        ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
        : [arg, undefined];
    const next = (): string => value(name, inline ?? args[++i]);
    if (name === '--strict') flags.strict = true;
    else if (name === '--proxy') flags.proxy = true;
    else if (name === '--base-url') flags.baseURL = next();
    else if (name === '--port') flags.port = Math.floor(number('--port', next(), 65535));
    else if (name === '--duration') flags.duration = number('--duration', next(), 86_400);
    else if (arg.startsWith('-')) fail(`unknown argument ${arg} (see --help)`);
    else if (flags.har !== undefined) fail(`one HAR file at a time: ${flags.har} and ${arg}`);
    else flags.har = arg;
  }
  if (flags.proxy && flags.har !== undefined) fail('give a HAR file or --proxy, not both');
  if (!flags.proxy && flags.har === undefined) fail('give a HAR file, or --proxy (see --help)');
  if (flags.baseURL !== undefined) {
    try {
      new URL(flags.baseURL);
    } catch {
      fail(`--base-url is not a URL: '${flags.baseURL}'`);
    }
  }
  return flags;
}

/** Builds the record of a validation, writes the reports, prints the summary, exits 0 or 1. */
function report(
  run: ResolvedRun,
  validation: TrafficValidation,
  secrets: readonly string[],
  startedAt: Date,
  har?: string,
): never {
  const { outcome, coverage, traffic } = validation.finish();
  const waivers = loadWaivers({ CONFORMANCE_WAIVERS: run.waivers ?? NO_WAIVERS }, run.dir);
  const wrote = Object.keys(outcome.judged).some((id) => id.startsWith('patch')) ? 'write' : 'read-only';
  const record = buildRecord({
    outcomes: [outcome],
    incomplete: [],
    env: { API_BASE_URL: traffic.source, CONFORMANCE_TARGET_KIND: kindOf(traffic) },
    startedAt,
    durationMs: Date.now() - startedAt.getTime(),
    waivers: { ...waivers, file: waivers.file && displayPath(waivers.file, run.dir) },
    strict: run.strict,
    expectedProbes: [],
    coverage,
    traffic,
    mode: wrote,
  });
  const redacted = JSON.parse(redactText(JSON.stringify(record), secrets)) as typeof record;
  const written = writeReports(redacted, {
    outputDir: run.reportsDir,
    stagingDir: createStaging(run.reportsDir),
    secrets,
    ...(har !== undefined ? { har } : {}),
  });
  console.log(
    redactText(
      formatSummary(
        redacted,
        written.map((p) => displayPath(p, run.dir)),
      ),
      secrets,
    ),
  );
  process.exit(record.verdict === 'pass' ? 0 : 1);
}

function kindOf(t: TrafficRecord): string {
  return t.kind === 'har' ? 'HAR file' : 'validating proxy';
}

function inScope(baseURL: string | undefined): (url: string) => boolean {
  if (baseURL === undefined) return () => true;
  const base = baseURL.replace(/\/+$/, '');
  return (url) => url.startsWith(`${base}/`);
}

function validateHar(run: ResolvedRun, flags: Flags, file: string): never {
  const startedAt = new Date();
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    fail(`${file}: cannot be read (${(error as { code?: string }).code ?? 'unknown error'})`);
  }
  let exchanges: Omit<Exchange, 'id'>[];
  try {
    exchanges = exchangesOfHar(parseHar(text, file), file);
  } catch (error) {
    if (error instanceof HarError) fail(error.message);
    throw error;
  }
  const tokens = new Set<string>();
  if (run.config.token) tokens.add(run.config.token);
  for (const ex of exchanges) for (const t of bearerTokens(ex.request.headers)) tokens.add(t);
  const secrets = [...tokens].sort((a, b) => b.length - a.length);
  const validation = new TrafficValidation(
    'har',
    file,
    flags.baseURL ? basePathOf(flags.baseURL) : '',
    inScope(flags.baseURL),
    run.config.settleMs,
  );
  for (const ex of exchanges) validation.add(redactExchange(ex, secrets));
  report(run, validation, secrets, startedAt);
}

async function validateProxy(run: ResolvedRun, flags: Flags): Promise<void> {
  const upstream = run.config.baseURL;
  if (upstream === undefined) fail('--proxy needs API_BASE_URL: the target the proxy stands in front of');
  const startedAt = new Date();
  const tokens = new Set<string>(run.config.token ? [run.config.token] : []);
  const secrets = (): string[] => [...tokens].sort((a, b) => b.length - a.length);
  const seen: Exchange[] = [];
  const session: { validation?: TrafficValidation } = {};
  const keep = (ex: Omit<Exchange, 'id'>): Omit<Exchange, 'id'> => {
    for (const t of bearerTokens(ex.request.headers)) tokens.add(t);
    const redacted = redactExchange(ex, secrets());
    seen.push({ ...redacted, id: seen.length + 1 });
    return redacted;
  };
  const proxy = new ValidatingProxy({
    upstream,
    maxBodyBytes: run.config.politeness.maxResponseBytes,
    onExchange: (ex) => session.validation?.add(keep(ex)),
    onOverCap: (ex) => session.validation?.overCap(keep(ex)),
  });
  let url: string;
  try {
    url = await proxy.start(flags.port);
  } catch (error) {
    fail(
      `the proxy cannot listen on 127.0.0.1:${flags.port} (${(error as { code?: string }).code ?? String(error)})`,
    );
  }
  const validation = new TrafficValidation(
    'proxy',
    `${url} -> ${upstream}`,
    basePathOf(upstream),
    undefined,
    run.config.settleMs,
  );
  session.validation = validation;
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await proxy.stop();
    const har = `${JSON.stringify(harOfExchanges(seen, spec().version), null, 1)}\n`;
    report(run, validation, secrets(), startedAt, har);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  // Listening is announced once a stop is handled.
  console.log(
    `validate: proxy listening on ${url}, forwarding to ${redactText(upstream, secrets())}; stop it with Ctrl-C${flags.duration !== undefined ? ` (or after ${flags.duration} s)` : ''}`,
  );
  if (flags.duration !== undefined) setTimeout(() => void stop(), flags.duration * 1000);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    console.log(USAGE);
    return;
  }
  const flags = parseFlags(args);
  // Validation reads no counterparty: COUNTERPARTY_REF, required of a suite run with
  // API_BASE_URL, is not asked for.
  const env =
    process.env.COUNTERPARTY_REF === undefined
      ? { ...process.env, COUNTERPARTY_REF: 'not-read-by-validation' }
      : process.env;
  const run = orFail(() => resolveRun(env, invocationDirectory(), EMBEDDED_TARGET, { strict: flags.strict }));
  orFail(() => lockReportsDir(run.reportsDir));
  if (flags.proxy) await validateProxy(run, flags);
  else validateHar(run, flags, flags.har!);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) fail(error.message);
  fail(`unexpected error: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`);
});
