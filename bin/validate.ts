/**
 * payflow-conformance validate (bin/cli.ts), npm run validate: judges traffic the suite did not send, with the same oracles and the same
 * reports as a run (those of the record, and with --proxy the traffic's exchanges.har; `--report`
 * chooses among them: reporter/writers.ts).
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
 *       An exchange the target does not complete within CONFORMANCE_TIMEOUT_MS is answered 504;
 *       a target that is the proxy itself is refused (exit 2), a request that comes back 508.
 *
 * Exit status: 0 the gate passed, 1 it failed (a MUST requirement failed, or a SHOULD one in
 * strict mode), 2 configuration or usage error, a malformed HAR file, a reports directory that
 * is full, read-only or not this user's (one line says where and why), or a report chosen that
 * could not be written (the others are written; one line says which and why).
 */
import { EMBEDDED_TARGET } from '../config/embedded.ts';
import { ConfigError, type Env } from '../config/error.ts';
import type { ConfigVariable } from '../config/flags.ts';
import { resolveRun, type ResolvedRun } from '../run/resolve.ts';
import { dotenvLine, invocationDirectory } from '../config/sources.ts';
import { TrafficValidation, type TrafficRecord } from '../engine/validate.ts';
import { Redactor, type Secret } from '../exchange/redact.ts';
import { learnCredentials, redactExchange } from '../exchange/redact-exchange.ts';
import type { Exchange } from '../exchange/exchange.ts';
import { decodeHar, exchangesOfHar, HarError, parseHar } from '../exchange/har.ts';
import { harFileText, type HarKept } from '../exchange/har-file.ts';
import { BodyBudget, keptExchange } from '../exchange/kept.ts';
import { INPUT_CAPS, InputFileError, readInputFile } from '../config/input-files.ts';
import { basePathOf } from '../exchange/route.ts';
import { redactText, type SecretInput } from '../exchange/redactors.ts';
import { checkOwnPaths, createStaging } from '../reporter/report-set.ts';
import { chosenWriters, reportPaths, type ReportSource } from '../reporter/writers.ts';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { buildRecord } from '../reporter/build-record.ts';
import { gatePassed } from '../reporter/gate.ts';
import type { ConformanceRecord } from '../reporter/record.ts';
import { formatSummary, summaryColour } from '../reporter/console.ts';
import { displayPath, loadWaivers, NO_WAIVERS } from '../config/waivers.ts';
import { unwrittenLine, writeReports, type WrittenReports } from '../reporter/write-reports.ts';
import { asDiskError, probeWritable, reportsOutput } from '../reporter/disk-errors.ts';
import { spec } from '../spec/index.ts';
import { ProxyLoopError, ValidatingProxy } from '../transport/proxy.ts';
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
import { lockReportsDir } from './reports-lock.ts';
import { endWith, failures, isEntryPoint, oneLine, type Fail, type OrFail } from './run-support.ts';
import { printedVersion } from './version.ts';
import { violationLine } from '../reporter/live.ts';

/** Exit 2 with one line on stderr (usage, configuration, a malformed HAR file). */
const validate = failures('validate');
const fail: Fail = validate.fail;
const orFail: OrFail = validate.orFail;

/** The configuration variables validation reads (the rest are the suite's). */
const VALIDATE_VARIABLES = [
  'CONFORMANCE_REPORTS_DIR',
  'CONFORMANCE_REPORT',
  'CONFORMANCE_WAIVERS',
  'CONFORMANCE_MAX_RESPONSE_BYTES',
  // The proxy's bound on each exchange with the target.
  'CONFORMANCE_TIMEOUT_MS',
] as const satisfies readonly ConfigVariable[];

export interface ValidateFlags {
  har?: string;
  baseURL?: string;
  proxy: boolean;
  port: number;
  duration?: number;
  strict: boolean;
  /** The configuration variables the flags set, over the environment and .env. */
  variables: Env;
}

function number(name: string, v: string, max: number): number {
  const n = Number(v);
  if (!/^\d+(\.\d+)?$/.test(v) || n > max)
    throw new UsageError(`${name} must be a number from 0 to ${max}, not '${v}'`);
  return n;
}

/** The flags of `validate`. */
function validateFlags(flags: ValidateFlags): Flag[] {
  const group = 'Validation';
  return [
    {
      name: '--base-url',
      value: '<url>',
      variable: 'API_BASE_URL (with --proxy)',
      group,
      help:
        "with a HAR file: where the interface starts in the HAR's URLs (default: the first\n" +
        '/api/v1/ of each URL); with --proxy: the target the proxy forwards to',
      apply: (v) => (flags.baseURL = v),
    },
    {
      name: '--proxy',
      group,
      help: 'a reverse proxy on 127.0.0.1 in front of the target: point the client at it; the\nreports are written when it stops (SIGINT, SIGTERM, or --duration)',
      apply: () => (flags.proxy = true),
    },
    {
      name: '--port',
      value: '<n>',
      group,
      help: "the proxy's port (default 8080; 0: a free port, printed)",
      apply: (v) => (flags.port = Math.floor(number('--port', v!, 65535))),
    },
    {
      name: '--duration',
      value: '<s>',
      group,
      help: 'stop the proxy after this many seconds',
      apply: (v) => (flags.duration = number('--duration', v!, 86_400)),
    },
    ...configurationFlags(flags.variables, VALIDATE_VARIABLES),
    strictFlag(() => (flags.strict = true)),
  ];
}

function emptyFlags(): ValidateFlags {
  return { proxy: false, port: 8080, strict: false, variables: {} };
}

/** --help of `validate` (and of `npm run validate -- --help`). */
export function validateUsage(): string {
  return `usage: payflow-conformance validate <file.har> [options]
       payflow-conformance validate --proxy [options]
       npm run validate -- ...                   (in the repository)

Judges traffic the suite did not send with the suite's oracles, and writes the same reports
as a run (but Playwright's) to reports/ of the directory you run it from.
  <file.har>   a HAR 1.2 file (Playwright's recordHar, a browser's devtools, mitmproxy, a run's
               reports/exchanges.har): every exchange below /api/v1/ is judged, the others counted
Requirements no exchange exercised are "not exercised", never passed; those only a probe's plan
judges are not exercised in validation. Settings come from the flags, else the environment,
else .env, as for \`run\`.

${tokenHelp('with --proxy: the bearer token, redacted in the reports')}

${formatFlags(validateFlags(emptyFlags()))}

${reportsHelp()}

Exit status: 0 the gate passed, 1 a MUST requirement failed (or, strict, a SHOULD one),
2 configuration or usage error, a malformed HAR file, or a report chosen that could not be
written.`;
}

/** The flags of `validate` from `args`: a UsageError, its message the line the command prints, when they are wrong. */
export function parseValidateFlags(args: readonly string[]): ValidateFlags {
  const flags = emptyFlags();
  parseArgs(args, validateFlags(flags), (arg) => {
    if (flags.har !== undefined) throw new UsageError(`one HAR file at a time: ${flags.har} and ${arg}`);
    flags.har = arg;
  });
  if (flags.proxy && flags.har !== undefined) throw new UsageError('give a HAR file or --proxy, not both');
  if (!flags.proxy && flags.har === undefined)
    throw new UsageError('give a HAR file, or --proxy (see --help)');
  if (flags.baseURL !== undefined) {
    try {
      new URL(flags.baseURL);
    } catch {
      throw new UsageError(`--base-url is not a URL: '${flags.baseURL}'`);
    }
  }
  return flags;
}

/**
 * The run's configuration as `validate` resolves it from `env` and the directory it runs from
 * (`dir`): a ConfigError when it is wrong.
 */
export function resolveValidateRun(flags: ValidateFlags, env: Env, dir: string): ResolvedRun {
  // Validation reads no counterparty: COUNTERPARTY_REF, required of a suite run with
  // API_BASE_URL, is not asked for.
  const withRef =
    env.COUNTERPARTY_REF === undefined ? { ...env, COUNTERPARTY_REF: 'not-read-by-validation' } : env;
  // With --proxy, --base-url is the target (API_BASE_URL); with a HAR file, only where the
  // interface starts in its URLs.
  const variables: Env = {
    ...flags.variables,
    ...(flags.proxy && flags.baseURL !== undefined ? { API_BASE_URL: flags.baseURL } : {}),
  };
  return resolveRun(withRef, dir, EMBEDDED_TARGET, { strict: flags.strict, variables });
}

/** What a validation found: its record (every secret redacted) and whether the gate passed (exit 0, else 1). */
export interface ValidationResult {
  record: ConformanceRecord;
  passed: boolean;
  secrets: readonly SecretInput[];
}

/** Builds the record of a finished validation, redacted, and its gate. */
function validationResult(
  run: ResolvedRun,
  validation: TrafficValidation,
  secrets: readonly SecretInput[],
  startedAt: Date,
  kept?: HarKept,
): ValidationResult {
  const { outcome, coverage, traffic } = validation.finish();
  const waivers = loadWaivers({ CONFORMANCE_WAIVERS: run.waivers ?? NO_WAIVERS }, run.dir);
  const wrote = Object.keys(outcome.judged).some((id) => id.startsWith('patch')) ? 'write' : 'read-only';
  const record = buildRecord({
    outcomes: [outcome],
    incomplete: [],
    run: { baseURL: traffic.source, targetKind: kindOf(traffic) },
    startedAt,
    durationMs: Date.now() - startedAt.getTime(),
    waivers: { ...waivers, file: waivers.file && displayPath(waivers.file, run.dir) },
    strict: run.strict,
    expectedProbes: [],
    coverage,
    traffic,
    mode: wrote,
    ...(kept ? { kept } : {}),
  });
  const redacted = JSON.parse(redactText(JSON.stringify(record), secrets)) as typeof record;
  return { record: redacted, passed: gatePassed(record), secrets };
}

/**
 * Writes the reports of a validation, prints the summary, ends the process with 0 or 1, or 2 when
 * a report chosen could not be written.
 */
async function report(
  run: ResolvedRun,
  result: ValidationResult,
  har?: string,
  input?: string,
): Promise<void> {
  const { record: redacted, secrets } = result;
  let reports: WrittenReports;
  let staging: string | undefined;
  try {
    staging = createStaging(run.reportsDir);
    reports = await writeReports(
      { record: redacted, ...(har !== undefined ? { har } : {}) },
      {
        outputDir: run.reportsDir,
        stagingDir: staging,
        secrets,
        writers: chosenWriters(run.reports),
        // The HAR being validated may be a run's reports/exchanges.har: it stays, whatever replaces the rest.
        ...(input !== undefined ? { protect: [input] } : {}),
      },
    );
  } catch (error) {
    // Nothing moved in: what was written of the set goes (on a full disk, it holds the space left).
    if (staging !== undefined) rmSync(staging, { recursive: true, force: true });
    const disk = asDiskError(error, reportsOutput(run.reportsDir), 'the reports could not be written');
    if (disk instanceof ConfigError || disk instanceof InputFileError) fail(disk.message);
    throw error;
  }
  console.log(
    redactText(
      formatSummary(
        redacted,
        reports.written.map((p) => displayPath(p, run.dir)),
        { colour: summaryColour(process.env, process.stdout.isTTY === true), unwritten: reports.unwritten },
      ),
      secrets,
    ),
  );
  if (reports.unwritten.length > 0) {
    process.stderr.write(`validate: ${oneLine(unwrittenLine(reports.unwritten))}\n`);
    endWith(2);
    return;
  }
  endWith(result.passed ? 0 : 1);
}

/** What validation writes its reports from: the record, and with --proxy the traffic. */
export function validationSources(flags: Pick<ValidateFlags, 'proxy'>): ReportSource[] {
  return flags.proxy ? ['record', 'traffic'] : ['record'];
}

function kindOf(t: TrafficRecord): string {
  return t.kind === 'har' ? 'HAR file' : 'validating proxy';
}

function inScope(baseURL: string | undefined): (url: string) => boolean {
  if (baseURL === undefined) return () => true;
  const base = baseURL.replace(/\/+$/, '');
  return (url) => url.startsWith(`${base}/`);
}

/**
 * Judges the HAR file `file` (as the user named it, relative to the directory they ran from) as
 * `validate <file>` does, writing nothing: a HarError or InputFileError, its message the line the
 * command prints, when the file cannot be read.
 */
export function judgeHarFile(run: ResolvedRun, flags: ValidateFlags, file: string): ValidationResult {
  const path = resolve(run.dir, file);
  const startedAt = new Date();
  const bytes = readInputFile(path, 'the HAR file', INPUT_CAPS.har);
  const exchanges = exchangesOfHar(parseHar(decodeHar(bytes, file), file), file);
  // Every credential of the file (every Authorization value, duplicates and comma-joined ones
  // included; Proxy-Authorization; cookies; API keys), redacted wherever it stands.
  const redactor = new Redactor([], { userinfo: false });
  if (run.config.token) redactor.addToken(run.config.token);
  for (const ex of exchanges) learnCredentials(redactor, ex);
  const validation = new TrafficValidation(
    'har',
    file,
    flags.baseURL ? basePathOf(flags.baseURL) : '',
    inScope(flags.baseURL),
    run.config.settleMs,
  );
  for (const ex of exchanges) validation.add(redactExchange(ex, redactor));
  return validationResult(run, validation, redactor.list(), startedAt);
}

/** Validates the HAR file `file` (as the user named it, relative to the directory they ran from). */
async function validateHar(run: ResolvedRun, flags: ValidateFlags, file: string): Promise<void> {
  let result: ValidationResult;
  try {
    result = judgeHarFile(run, flags, file);
  } catch (error) {
    if (error instanceof HarError || error instanceof InputFileError) fail(error.message);
    throw error;
  }
  await report(run, result, undefined, resolve(run.dir, file));
}

async function validateProxy(run: ResolvedRun, flags: ValidateFlags): Promise<void> {
  const upstream = run.config.baseURL;
  if (upstream === undefined) fail('--proxy needs API_BASE_URL: the target the proxy stands in front of');
  const startedAt = new Date();
  const redactor = new Redactor([], { userinfo: false });
  if (run.config.token) redactor.addToken(run.config.token);
  const secrets = (): Secret[] => redactor.list();
  const seen: Exchange[] = [];
  // What the session keeps for its exchanges.har, within the budget of kept bodies (exchange/kept.ts).
  const budget = new BodyBudget();
  const session: { validation?: TrafficValidation } = {};
  const keep = (ex: Omit<Exchange, 'id'>): Omit<Exchange, 'id'> => {
    learnCredentials(redactor, ex);
    const redacted = redactExchange(ex, redactor);
    seen.push(keptExchange({ ...redacted, id: seen.length + 1 }, budget));
    return redacted;
  };
  const proxy = new ValidatingProxy({
    upstream,
    maxBodyBytes: run.config.politeness.maxResponseBytes,
    timeoutMs: run.config.politeness.timeoutMs,
    onExchange: (ex) => session.validation?.add(keep(ex)),
    onOverCap: (ex) => session.validation?.overCap(keep(ex)),
    onRefused: (refusal) =>
      session.validation?.refused({ ...refusal, request: redactText(refusal.request, secrets()) }),
    // Contained in its exchange: said, and the proxy goes on.
    onError: (error) =>
      process.stderr.write(
        `validate: ${oneLine(redactText(`an exchange failed: ${error.message}`, secrets()))}\n`,
      ),
  });
  let url: string;
  try {
    url = await proxy.start(flags.port);
  } catch (error) {
    if (error instanceof ProxyLoopError) fail(error.message);
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
  // Each violation as the proxy judges it, for a person watching (the reports come at the stop).
  validation.onFinding = (finding) =>
    process.stdout.write(`validate: ${redactText(violationLine(finding), secrets())}\n`);
  session.validation = validation;
  let stopping = false;
  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    await proxy.stop();
    const har = harFileText(seen, spec().version);
    await report(run, validationResult(run, validation, secrets(), startedAt, har.kept), har.text);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  // The last resort: an error no exchange contained ends the session with the reports of every
  // exchange seen so far, rather than losing them.
  const lastResort = (error: unknown): void => {
    process.stderr.write(
      `validate: ${oneLine(redactText(`unexpected error in the proxy: ${(error as Error)?.message ?? String(error)}`, secrets()))}; writing the reports of the ${seen.length} exchange(s) seen\n`,
    );
    void stop();
  };
  process.on('uncaughtException', lastResort);
  process.on('unhandledRejection', lastResort);
  // Listening is announced once a stop is handled.
  console.log(
    `validate: proxy listening on ${url}, forwarding to ${redactText(upstream, secrets())}; stop it with Ctrl-C${flags.duration !== undefined ? ` (or after ${flags.duration} s)` : ''}`,
  );
  if (flags.duration !== undefined) setTimeout(() => void stop(), flags.duration * 1000);
}

/** `payflow-conformance validate` and `npm run validate`: exits with the gate's status. */
export async function validateCommand(args: readonly string[]): Promise<void> {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(validateUsage());
    return;
  }
  if (printedVersion(args)) return;
  const flags = orFail(() => parseValidateFlags(args));
  const run = orFail(() => resolveValidateRun(flags, process.env, invocationDirectory()));
  orFail(() => lockReportsDir(run.reportsDir));
  // Full, read-only or not this user's: said now, not once the traffic is judged.
  orFail(() => probeWritable(reportsOutput(run.reportsDir)));
  console.log(`validate: ${flags.proxy ? 'proxy' : oneLine(flags.har!)}; ${dotenvLine(run)}`);
  // Validation writes the reports of the record (the proxy its traffic too), never over its input
  // nor over what the suite did not write.
  const writes = reportPaths(chosenWriters(run.reports), validationSources(flags));
  orFail(() =>
    checkOwnPaths(
      run.reportsDir,
      writes,
      'the reports directory',
      flags.har !== undefined ? [resolve(run.dir, flags.har)] : [],
    ),
  );
  if (flags.proxy) await validateProxy(run, flags);
  else await validateHar(run, flags, flags.har!);
}

if (isEntryPoint(import.meta.url))
  validateCommand(process.argv.slice(2)).catch((error: unknown) => {
    if (error instanceof ConfigError) fail(error.message);
    fail(`unexpected error: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`);
  });
