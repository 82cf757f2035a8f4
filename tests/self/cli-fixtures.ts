/**
 * Fixtures of the CLI and report self-tests: runners of the CLI, the Playwright CLI and the merge
 * script in temporary directories; a recording proxy that counts what reaches a target; a faulty
 * server that breaks several requirements at once (with evidence of every kind: a shrunk
 * generated input, a schema violation, a SHOULD warning) and echoes markup and, if asked, the
 * bearer token back to the suite; and a leak scan that also reads the zip archives Playwright writes.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
} from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { inflateRawSync } from 'node:zlib';
import {
  REFERENCE_COUNTERPARTY,
  ReferenceServer,
  SUNSET_HEADER,
  WRITABLE_COUNTERPARTY,
  type RequestContext,
} from '../../servers/reference.ts';
import { buildRecord } from '../../reporter/build-record.ts';
import type { ConformanceRecord } from '../../reporter/record.ts';
import { forward } from '../../servers/forward.ts';

export const ROOT = join(import.meta.dirname, '..', '..');
const TSX = join(ROOT, 'node_modules', 'tsx', 'dist', 'cli.mjs');
/** tsx's loader, for `node --import` (how `npm run validate` runs, in one process). */
export const TSX_LOADER = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

/** A token no report may contain: recognisable wherever it leaks. */
export const SECRET_TOKEN = 'tok-SECRET-3d9f1c2b7a5e4f60';

/** Markup a server sends back, which a report must show as text and never run. */
export const INJECTED_MARKUP =
  '<script>document.title="pwned"</script><img src=x onerror="document.title=1">';

/**
 * Wrong in four ways: references of length 2 pass validation (reference-invalid-400, found by
 * a generated and shrunk input), timestamps carry milliseconds (timestamp-format), Sunset is
 * an HTTP-date (sunset-document-format, SHOULD), and a 404 body echoes markup and, with
 * `echoAuthorization`, the Authorization header (the bearer token) the request carried.
 */
export class ShowcaseServer extends ReferenceServer {
  constructor(
    token: string,
    private readonly echoAuthorization = false,
  ) {
    super({ token });
  }

  protected override isValidReference(reference: string): boolean {
    return reference.length === 2 ? /^[-_a-zA-Z0-9]+$/.test(reference) : super.isValidReference(reference);
  }

  protected override formatTimestamp(stored: string): string {
    return new Date(stored).toISOString();
  }

  protected override lifecycleHeaders(): Record<string, string> {
    return { ...super.lifecycleHeaders(), Sunset: new Date(SUNSET_HEADER).toUTCString() };
  }

  protected override counterpartyNotFound(ctx: RequestContext): void {
    this.sendError(
      ctx.res,
      404,
      'COUNTERPARTY_NOT_FOUND',
      `No counterparty ${INJECTED_MARKUP}` +
        (this.echoAuthorization
          ? ` (you sent Authorization: ${ctx.req.headers.authorization ?? 'none'})`
          : ''),
    );
  }
}

export interface ProcessRun {
  code: number;
  stdout: string;
  stderr: string;
}

export interface CliRun extends ProcessRun {
  /** The temporary working directory; reports/ and test-results/ below it. */
  work: string;
  reports: string;
  results: string;
  /** Wall time of the run, in milliseconds. */
  ms: number;
}

/**
 * The environment of a child: PATH and HOME (and Node's compile cache, which holds no setting:
 * scripts/test.ts), then `env` (an undefined value removes a variable).
 */
export function childEnv(env: Record<string, string | undefined>): Record<string, string> {
  const merged: Record<string, string | undefined> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? tmpdir(),
    NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE,
    ...env,
  };
  return Object.fromEntries(Object.entries(merged).filter((e): e is [string, string] => e[1] !== undefined));
}

/** Runs node with `args` (asynchronously: servers of the test run in this process). */
export async function runNode(
  args: string[],
  env: Record<string, string | undefined>,
  cwd: string,
): Promise<ProcessRun> {
  return collected(spawn(process.execPath, args, { cwd, env: childEnv(env) }));
}

/** A child's exit status and everything it wrote, once it has ended. */
export async function collected(child: ChildProcessWithoutNullStreams): Promise<ProcessRun> {
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
  return { code, stdout, stderr };
}

/** A TypeScript entry point run the way npm scripts run it (tsx). */
export function tsx(script: string, ...args: string[]): string[] {
  return [TSX, join(ROOT, script), ...args];
}

/**
 * A TypeScript entry point run by node with tsx's loader (`node --import tsx`, as `npm run
 * validate` runs): one process, where tsx's command starts node a second time to relay signals
 * to it (some 0.15 s of CPU a run). The tests of what the relay does (interruption) use tsx().
 */
export function nodeTs(script: string, ...args: string[]): string[] {
  return ['--import', TSX_LOADER, script.startsWith('/') ? script : join(ROOT, script), ...args];
}

/** The Playwright CLI. */
export function playwrightCli(...args: string[]): string[] {
  return [join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js'), ...args];
}

/** The suite run by Playwright's CLI alone, as a shard or a listing runs it: `test` with its configuration. */
export function suiteTest(...args: string[]): string[] {
  return playwrightCli('test', '--config', join(ROOT, 'playwright.config.ts'), ...args);
}

/**
 * The settings of every run of the report self-tests: a fixed seed, a small case count, no rate
 * limit (the target is a local test server, not a deployment to be gentle with), and one request
 * in flight, so one worker process: each worker loads and compiles the whole suite (some 2 s of
 * CPU), and what these runs prove does not need two. The tests of what two workers share set
 * CONFORMANCE_CONCURRENCY=2 themselves.
 */
export const RUN_SETTINGS = {
  CONFORMANCE_SEED: '7',
  CONFORMANCE_RUNS: '15',
  CONFORMANCE_RPS: '0',
  CONFORMANCE_CONCURRENCY: '1',
};

const temporary: string[] = [];

/** A fresh temporary directory, removed by removeTemporaryDirectories(). */
export function temporaryDirectory(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  temporary.push(dir);
  return dir;
}

/** Removes the temporary directories this worker created. */
export function removeTemporaryDirectories(): void {
  for (const dir of temporary.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/**
 * Runs `npm run conformance` (bin/conformance.ts) in a fresh temporary directory, or in `cwd`;
 * `project`: the CLI of that copy of the project (projectCopy()) instead of this one. The CLI
 * runs under `node --import tsx` (nodeTs()); `viaTsx`: under tsx's command, as the npm script
 * starts it.
 */
export async function runCli(
  env: Record<string, string | undefined>,
  options: {
    args?: string[];
    setup?: (work: string) => void;
    cwd?: string;
    project?: string;
    viaTsx?: boolean;
  } = {},
): Promise<CliRun> {
  const work = temporaryDirectory('payflow-cli-');
  options.setup?.(work);
  const reports = join(work, 'reports');
  const results = join(work, 'test-results');
  const started = performance.now();
  const run = await runNode(
    options.viaTsx
      ? [TSX, join(options.project ?? ROOT, 'bin', 'conformance.ts'), ...(options.args ?? [])]
      : nodeTs(join(options.project ?? ROOT, 'bin', 'conformance.ts'), ...(options.args ?? [])),
    { CONFORMANCE_REPORTS_DIR: reports, CONFORMANCE_RESULTS_DIR: results, ...RUN_SETTINGS, ...env },
    options.cwd ?? work,
  );
  return { ...run, work, reports, results, ms: performance.now() - started };
}

/** The environment pointing the CLI at a server started with `token`. */
export function targetEnv(baseURL: string, token: string, write = true): Record<string, string | undefined> {
  return {
    API_BASE_URL: baseURL,
    API_TOKEN: token,
    COUNTERPARTY_REF: REFERENCE_COUNTERPARTY,
    WRITABLE_COUNTERPARTY_REF: write ? WRITABLE_COUNTERPARTY : undefined,
  };
}

/** What of the project a copy leaves out: installed, generated or local files. */
const NOT_COPIED = new Set([
  'node_modules',
  'dist',
  '.git',
  '.env',
  'reports',
  'test-results',
  'blob-report',
  'playwright-report',
  'all-blob-reports',
  // Stryker's sandboxes while npm run mutation runs in this clone: copies of the whole project,
  // whose replay and CLI runs then failed in the self-tests run beside it.
  '.stryker-tmp',
]);

/** This worker's copy of the project (projectCopy()), made on first use. */
let workerCopy: string | undefined;

/**
 * A copy of the project in a temporary directory, its node_modules a link to this one's: a
 * project root of its own, where a test may put a .env without touching this one.
 *
 * One copy per worker process, reset for each test that asks for it (its .env and whatever a
 * run generated in it removed; no test changes the project's own files in it). tsx and Playwright cache
 * what they compile by the file's path, so a fresh copy per test compiled the whole suite again
 * in each of its processes (some 2.5 s of CPU per run); the same copy's later runs start warm.
 * Tests of a worker run one at a time, so no two share it at once. Removed when the worker exits.
 */
export function projectCopy(): string {
  if (workerCopy !== undefined && existsSync(workerCopy)) {
    for (const name of readdirSync(workerCopy))
      if (NOT_COPIED.has(name) && name !== 'node_modules')
        rmSync(join(workerCopy, name), { recursive: true, force: true });
    return workerCopy;
  }
  const copy = mkdtempSync(join(tmpdir(), 'payflow-project-'));
  for (const name of readdirSync(ROOT)) {
    if (!NOT_COPIED.has(name)) cpSync(join(ROOT, name), join(copy, name), { recursive: true });
  }
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  workerCopy = copy;
  process.once('exit', () => rmSync(copy, { recursive: true, force: true }));
  return copy;
}

/** Every file below `dir`, recursively. */
export function filesBelow(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesBelow(path));
    else out.push(path);
  }
  return out;
}

/** Reads a JSON report. */
export function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/**
 * The entries of a zip archive (Playwright's HTML report embeds one, and so is a blob report),
 * read through the central directory: stored and deflated entries.
 */
export function zipEntries(zip: Buffer): Map<string, Buffer> {
  const entries = new Map<string, Buffer>();
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('not a zip archive');
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error('bad central directory');
    const method = zip.readUInt16LE(at + 10);
    const compressed = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    const dataStart = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const data = zip.subarray(dataStart, dataStart + compressed);
    entries.set(name, method === 8 ? inflateRawSync(data) : Buffer.from(data));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/**
 * The contents of a file as a leak scan sees them: the bytes, plus every entry of the zip
 * archive a zip file or Playwright's HTML report (which embeds one in base64) holds.
 */
export function scannableContents(path: string): { where: string; bytes: Buffer }[] {
  const bytes = readFileSync(path);
  const out: { where: string; bytes: Buffer }[] = [{ where: path, bytes }];
  let zip: Buffer | undefined;
  if (path.endsWith('.zip')) zip = bytes;
  else if (path.endsWith('.html')) {
    const embedded = /data:application\/zip;base64,([A-Za-z0-9+/=]+)/.exec(bytes.toString('latin1'));
    if (embedded?.[1]) zip = Buffer.from(embedded[1], 'base64');
  }
  if (zip) for (const [name, entry] of zipEntries(zip)) out.push({ where: `${path}!${name}`, bytes: entry });
  return out;
}

/**
 * A proxy on 127.0.0.1 before `target` that records when each request arrived, its method, and
 * how many were in flight; with no target it answers every request 200 {} itself.
 */
export async function recordingProxy(target: string): Promise<{
  url: string;
  arrivals: number[];
  methods: Set<string>;
  /** Every request, with its body as text. */
  requests: { method: string; url: string; body: string }[];
  maxInFlight: () => number;
  close: () => Promise<void>;
}> {
  const arrivals: number[] = [];
  const methods = new Set<string>();
  const requests: { method: string; url: string; body: string }[] = [];
  let inFlight = 0;
  let max = 0;
  const server: Server = createServer((req, res) => {
    arrivals.push(performance.now());
    methods.add(req.method ?? '?');
    const seen = { method: req.method ?? '?', url: req.url ?? '', body: '' };
    requests.push(seen);
    req.on('data', (chunk: Buffer) => (seen.body += chunk.toString()));
    inFlight++;
    max = Math.max(max, inFlight);
    res.on('close', () => inFlight--);
    if (!target) {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{}');
      return;
    }
    forward(target, req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    methods,
    requests,
    maxInFlight: () => max,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** What `validate <file.har>` comes to, judged in this process (validateInProcess). */
export interface InProcessValidation {
  /** The status the command exits with: 0 the gate passed, 1 it failed, 2 it printed `line`. */
  code: 0 | 1 | 2;
  /** On exit 2: the one line the command prints after `validate: `. */
  line?: string;
  /** The record the command writes as conformance.json (secrets redacted). */
  record?: import('../../reporter/record.ts').ConformanceRecord;
  /** The summary the command prints (no report paths, no colour). */
  summary?: string;
}

/**
 * `npm run validate -- <args>` for a HAR file, in this process and writing nothing: the
 * functions the command calls (bin/validate.ts: parseValidateFlags, resolveValidateRun,
 * judgeHarFile; the summary of reporter/console.ts), and the errors it turns into exit 2 with
 * one line (usage, configuration, a HAR file that cannot be read). `env` is its whole
 * environment, `dir` the directory it runs from. A process costs some 1.1 s of CPU, mostly
 * module loading; the tests that need the command itself (exit status, files, stderr) spawn it.
 */
export async function validateInProcess(
  args: string[],
  env: Record<string, string> = {},
  dir = temporaryDirectory('payflow-validate-'),
): Promise<InProcessValidation> {
  // Loaded when first used: most specs importing these fixtures never validate.
  const [command, args_, errors, har, inputs, support, console_] = await Promise.all([
    import('../../bin/validate.ts'),
    import('../../bin/args.ts'),
    import('../../config/error.ts'),
    import('../../exchange/har.ts'),
    import('../../config/input-files.ts'),
    import('../../bin/run-support.ts'),
    import('../../reporter/console.ts'),
  ]);
  try {
    const flags = command.parseValidateFlags(args);
    const run = command.resolveValidateRun(flags, env, dir);
    const { record, passed } = command.judgeHarFile(run, flags, flags.har!);
    return { code: passed ? 0 : 1, record, summary: console_.formatSummary(record, [], { colour: false }) };
  } catch (error) {
    if (
      error instanceof args_.UsageError ||
      error instanceof errors.ConfigError ||
      error instanceof har.HarError ||
      error instanceof inputs.InputFileError
    )
      return { code: 2, line: support.oneLine(error.message) };
    throw error;
  }
}

/**
 * What `npm run conformance -- <args>` resolves before it takes the reports directory, in this
 * process: the command line as runCommand reads it (bin/conformance.ts parseRunArgs, runFlagsOf)
 * and the configuration resolved from `env` over `dir`/.env (run/resolve.ts resolveRun). Throws
 * the UsageError or ConfigError whose message is the one line the command prints (exit 2): the
 * tests of what one setting or flag does call this, the few that need the command itself spawn it.
 */
export async function resolveAsCli(
  args: string[],
  env: Record<string, string | undefined>,
  dir: string,
): Promise<import('../../run/resolve.ts').ResolvedRun> {
  // Loaded when first used: most specs importing these fixtures never resolve a run.
  const [command, resolve, embedded] = await Promise.all([
    import('../../bin/conformance.ts'),
    import('../../run/resolve.ts'),
    import('../../config/embedded.ts'),
  ]);
  return resolve.resolveRun(
    env,
    dir,
    embedded.EMBEDDED_TARGET,
    command.runFlagsOf(command.parseRunArgs(args)),
  );
}

/** The record of a run that sent nothing, for tests of how reports are written rather than what they say. */
export function emptyRecord(): ConformanceRecord {
  return buildRecord({
    outcomes: [],
    incomplete: [],
    run: { baseURL: 'http://127.0.0.1:1' },
    startedAt: new Date(0),
    durationMs: 1,
  });
}
