/**
 * Inputs are checked before they are read (config/input-files.ts): a FIFO, a device or a
 * directory named as a .env, ACCOUNT_FIXTURE, waiver or HAR file is refused by name (exit 2),
 * instead of blocking forever or reading gigabytes; every such file has a size cap; a reports
 * directory that cannot be created (/proc/xx) is refused instead of retried forever. A HAR file
 * is read in UTF-8 with or without a byte order mark and in UTF-16, UTF-32 is refused naming it;
 * text quoted from it in an error is escaped; a URL of 10 MB is counted and not judged, without
 * a stack overflow.
 *
 * `merge`'s blob directory likewise (bin/blob-inputs.ts): a FIFO named *.zip blocked Playwright's
 * merge-reports forever.
 *
 * Mostly in-process; three runs of the commands check the exit status and the one line, one of each
 * command: `validate` of a HAR whose first bytes are escape sequences (a HarError, its text
 * escaped), `conformance` in a directory whose .env is a FIFO (a ConfigError, without blocking),
 * `merge` of a blob directory holding a FIFO named shard-1.zip.
 *
 * What was traded for time (issue 20): `validate /dev/zero` and CONFORMANCE_REPORTS_DIR=/proc/xx
 * are no longer runs of their own. Each is the function its command calls, in-process: validate's
 * judgeHarFile (bin/validate.ts) refuses /dev/zero with an InputFileError, which the command turns
 * into its one line in the same catch as the HarError of the run kept; the CLI's lockReportsDir
 * (bin/reports-lock.ts) refuses /proc/xx with a ConfigError, which the CLI turns into its one line
 * through the same orFail (bin/run-support.ts) as the .env's of the run kept.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ConfigError } from '../../config/error.ts';
import { EMBEDDED_TARGET } from '../../config/embedded.ts';
import { ensureDirectory, INPUT_CAPS, InputFileError, readInputFile } from '../../config/input-files.ts';
import { resolveRun } from '../../run/resolve.ts';
import { lockReportsDir } from '../../bin/reports-lock.ts';
import { checkBlobDirectory } from '../../bin/blob-inputs.ts';
import { judgeHarFile, parseValidateFlags, resolveValidateRun } from '../../bin/validate.ts';
import { TrafficValidation } from '../../engine/validate.ts';
import { hasControls } from '../../exchange/escape.ts';
import { decodeHar, exchangesOfHar, HarError, LONG_URL_CHARS, parseHar } from '../../exchange/har.ts';
import { REFERENCE_COUNTERPARTY } from '../../servers/reference.ts';
import { nodeTs, removeTemporaryDirectories, temporaryDirectory, type ProcessRun } from './cli-fixtures.ts';

test.afterAll(removeTemporaryDirectories);

/** A named pipe: reading one with no writer blocks forever. */
function fifo(dir: string, name: string): string {
  const path = join(dir, name);
  const made = spawnSync('mkfifo', [path]);
  expect(made.status, String(made.stderr)).toBe(0);
  return path;
}

/** What `fn` throws (it must throw). */
function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('did not throw');
}

/** A HAR file with one GET of `url`, answered 200 with `{}`. */
function harText(url: string): string {
  return JSON.stringify({
    log: {
      version: '1.2',
      creator: { name: 'test', version: '1' },
      entries: [
        {
          startedDateTime: '2026-01-01T00:00:00.000Z',
          time: 1,
          request: {
            method: 'GET',
            url,
            httpVersion: 'HTTP/1.1',
            cookies: [],
            headers: [],
            queryString: [],
            headersSize: -1,
            bodySize: 0,
          },
          response: {
            status: 200,
            statusText: 'OK',
            httpVersion: 'HTTP/1.1',
            cookies: [],
            headers: [{ name: 'Content-Type', value: 'application/json' }],
            content: { size: 2, mimeType: 'application/json', text: '{}' },
            redirectURL: '',
            headersSize: -1,
            bodySize: 2,
          },
          cache: {},
          timings: { send: 0, wait: 1, receive: 0 },
        },
      ],
    },
  });
}

const URL_OF_ENTRY = `http://127.0.0.1:9/api/v1/counterparties/${REFERENCE_COUNTERPARTY}`;

test.describe('a file is read only once it is a regular file within its cap', () => {
  test('a FIFO, a character device and a directory are refused by name, before any read', () => {
    const dir = temporaryDirectory('payflow-inputs-');
    // On the code before this check, the FIFO read blocks this worker until the test times out.
    for (const [path, kind] of [
      [fifo(dir, 'pipe'), 'a FIFO (named pipe)'],
      ['/dev/zero', 'a character device'],
      [dir, 'a directory'],
    ] as const) {
      const error = thrown(() => readInputFile(path, 'the thing', INPUT_CAPS.fixture));
      expect(error).toBeInstanceOf(InputFileError);
      expect(error.message).toBe(`the thing ${path} is ${kind}, not a regular file`);
    }
  });

  test('a file over its cap is refused; one whose size the system does not report is read to the cap', () => {
    const dir = temporaryDirectory('payflow-inputs-');
    const big = join(dir, 'big');
    writeFileSync(big, Buffer.alloc(2049, 'a'));
    expect(thrown(() => readInputFile(big, 'the file', 2048)).message).toBe(
      `the file ${big} is larger than the 2048 bytes the suite reads of such a file`,
    );
    expect(readInputFile(big, 'the file', 2049)).toHaveLength(2049);
    // /proc reports a size of 0 for its files: the read still stops at the cap.
    expect(thrown(() => readInputFile('/proc/self/status', 'the file', 16)).message).toMatch(
      /is larger than the 16 bytes/,
    );
    expect(readInputFile('/proc/self/status', 'the file', INPUT_CAPS.env).toString()).toMatch(/^Name:/);
  });

  test('a directory is created level by level; one that cannot be (below /proc, below a file) is an error at once', () => {
    const dir = temporaryDirectory('payflow-inputs-');
    ensureDirectory(join(dir, 'a', 'b', 'c'), 'the directory');
    ensureDirectory(join(dir, 'a', 'b', 'c'), 'the directory');
    // Node's recursive mkdir retries /proc/xx forever.
    expect(thrown(() => ensureDirectory('/proc/xx/reports', 'the reports directory')).message).toMatch(
      /^the reports directory \/proc\/xx\/reports cannot be created \(ENOENT at \/proc\/xx\)$/,
    );
    writeFileSync(join(dir, 'file'), '');
    expect(thrown(() => ensureDirectory(join(dir, 'file', 'x'), 'the directory')).message).toMatch(
      /cannot be created \(ENOTDIR at /,
    );
  });

  test('the configuration: a .env, ACCOUNT_FIXTURE and waiver file that are no regular file, or too large, are configuration errors', () => {
    const refused = (env: Record<string, string>, dir: string): string => {
      const error = thrown(() => resolveRun(env, dir, EMBEDDED_TARGET));
      expect(error, error.stack).toBeInstanceOf(ConfigError);
      return error.message;
    };
    const withFifoEnv = temporaryDirectory('payflow-inputs-');
    fifo(withFifoEnv, '.env');
    expect(refused({}, withFifoEnv)).toBe(
      `the .env file ${join(withFifoEnv, '.env')} is a FIFO (named pipe), not a regular file`,
    );
    const withBigEnv = temporaryDirectory('payflow-inputs-');
    writeFileSync(join(withBigEnv, '.env'), Buffer.alloc(INPUT_CAPS.env + 1, '#'));
    expect(refused({}, withBigEnv)).toMatch(/^the \.env file .* is larger than the 1 MiB the suite reads/);
    const plain = temporaryDirectory('payflow-inputs-');
    expect(refused({ ACCOUNT_FIXTURE: '/dev/zero' }, plain)).toBe(
      'ACCOUNT_FIXTURE /dev/zero is a character device, not a regular file',
    );
    expect(refused({ ACCOUNT_FIXTURE: fifo(plain, 'fixture.json') }, plain)).toMatch(/is a FIFO/);
    expect(refused({ CONFORMANCE_WAIVERS: fifo(plain, 'waivers.yaml') }, plain)).toMatch(
      /^the waiver file .*waivers\.yaml is a FIFO \(named pipe\), not a regular file$/,
    );
    // The default waiver file too.
    fifo(plain, 'conformance-waivers.yaml');
    expect(refused({}, plain)).toMatch(/conformance-waivers\.yaml is a FIFO/);
  });
});

test("merge's blob directory: a FIFO, a device or a directory named *.zip, and a FIFO where Playwright writes, are refused by name before anything is read", () => {
  const root = temporaryDirectory('payflow-blobs-');
  const blobs = (name: string, setup: (dir: string) => void): string => {
    const dir = join(root, name);
    mkdirSync(dir);
    writeFileSync(join(dir, 'shard-1.zip'), 'a blob report');
    setup(dir);
    return dir;
  };
  const cases: [string, (dir: string) => void, RegExp][] = [
    [
      'a FIFO named *.zip',
      (d) => fifo(d, 'x.zip'),
      /^the blob report \S+\/x\.zip is a FIFO \(named pipe\), not a regular file$/,
    ],
    [
      'a link to a device named *.zip',
      (d) => symlinkSync('/dev/zero', join(d, 'zero.zip')),
      /^the blob report \S+\/zero\.zip is a character device, not a regular file$/,
    ],
    [
      'a directory named *.zip',
      (d) => mkdirSync(join(d, 'dir.zip')),
      /dir\.zip is a directory, not a regular file$/,
    ],
    [
      'a FIFO beside the blobs',
      (d) => fifo(d, 'report.jsonl'),
      /report\.jsonl is a FIFO \(named pipe\): merge reads only regular files/,
    ],
    [
      'a FIFO in resources/',
      (d) => (mkdirSync(join(d, 'resources')), fifo(join(d, 'resources'), 'a.png')),
      /resources\/a\.png is a FIFO/,
    ],
    [
      'resources/ that is a file',
      (d) => writeFileSync(join(d, 'resources'), ''),
      /resources is not a directory: merge extracts/,
    ],
  ];
  for (const [name, setup, line] of cases) {
    const error = thrown(() => checkBlobDirectory(blobs(name.replace(/\W+/g, '-'), setup)));
    expect(error, name).toBeInstanceOf(ConfigError);
    expect(error.message, name).toMatch(line);
  }
  expect(thrown(() => checkBlobDirectory(fifo(root, 'blob-fifo'))).message).toMatch(
    /^the blob directory \S+\/blob-fifo is a FIFO \(named pipe\), not a directory$/,
  );
  expect(checkBlobDirectory(blobs('plain', (d) => mkdirSync(join(d, 'resources'))))).toEqual(['shard-1.zip']);
});

test('the functions the commands call refuse a device as the HAR file and a reports directory below /proc, naming them', () => {
  // What `validate /dev/zero` reads it with (on the code before the check, it read forever).
  const dir = temporaryDirectory('payflow-inputs-');
  const flags = parseValidateFlags(['/dev/zero']);
  const error = thrown(() => judgeHarFile(resolveValidateRun(flags, {}, dir), flags, '/dev/zero'));
  expect(error).toBeInstanceOf(InputFileError);
  expect(error.message).toBe('the HAR file /dev/zero is a character device, not a regular file');
  // What `conformance` with CONFORMANCE_REPORTS_DIR=/proc/xx takes its reports directory with,
  // before any request (a recursive mkdir retries /proc/xx forever).
  const refused = thrown(() => lockReportsDir('/proc/xx'));
  expect(refused).toBeInstanceOf(ConfigError);
  expect(refused.message).toMatch(/^the reports directory \/proc\/xx cannot be written \(ENOENT\)/);
});

test.describe('HAR files', () => {
  const text = harText(URL_OF_ENTRY);
  const urls = (decoded: string): string[] =>
    exchangesOfHar(parseHar(decoded, 'x.har'), 'x.har').map((e) => e.request.url);

  test('UTF-8 with or without a byte order mark, and UTF-16 either way round, read as the same entries', () => {
    const utf16be = Buffer.from(text, 'utf16le').swap16();
    for (const [name, bytes] of [
      ['UTF-8', Buffer.from(text)],
      ['UTF-8 with BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])],
      ['UTF-16LE with BOM', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])],
      ['UTF-16LE without BOM', Buffer.from(text, 'utf16le')],
      ['UTF-16BE with BOM', Buffer.concat([Buffer.from([0xfe, 0xff]), utf16be])],
      ['UTF-16BE without BOM', utf16be],
    ] as const)
      expect(urls(decodeHar(bytes, 'x.har')), name).toEqual([URL_OF_ENTRY]);
    const utf32 = Buffer.concat([Buffer.from([0xff, 0xfe, 0, 0]), Buffer.alloc(8)]);
    expect(thrown(() => decodeHar(utf32, 'x.har')).message).toBe(
      'x.har: not a HAR file: the text is UTF-32; save it as UTF-8',
    );
  });

  test('text quoted from the file in an error is escaped: no raw escape sequence or NUL reaches the terminal', () => {
    const error = thrown(() => parseHar(`\x1b[2J\x1b]0;pwned\x07${text}`, 'x.har'));
    expect(error).toBeInstanceOf(HarError);
    expect(hasControls(error.message), error.message).toBe(false);
    expect(error.message).toContain('\\x1b');
  });

  test('a URL of 10 MB is counted and not judged, without a stack overflow', () => {
    const long = `${URL_OF_ENTRY}${'A'.repeat(10 * 1024 * 1024)}`;
    const validation = new TrafficValidation('har', 'long.har');
    // On the code before, the HAR schema's uri format overflowed the stack here.
    for (const ex of exchangesOfHar(parseHar(harText(long), 'long.har'), 'long.har')) validation.add(ex);
    validation.add(exchangesOfHar(parseHar(text, 'x.har'), 'x.har')[0]!);
    const { traffic, outcome } = validation.finish();
    expect(traffic).toMatchObject({ exchanges: 2, judged: 1, longURL: 1 });
    expect(outcome.notes.join('\n')).toContain(
      `not judged: its URL has ${long.length} characters, more than the ${LONG_URL_CHARS} judged`,
    );
    // Past the cap the WHATWG parser judges the URL's form: a malformed one is still refused.
    expect(() => parseHar(harText(`http://[::1${'A'.repeat(LONG_URL_CHARS)}`), 'bad.har')).toThrow(HarError);
  });
});

/**
 * Runs a command of the project in `cwd` with PATH and HOME and `env`. The 60 s kill is a guard
 * against a hang (the failure these tests catch: a FIFO read blocks forever), not a time
 * bound.
 */
async function command(args: string[], cwd: string, env: Record<string, string> = {}): Promise<ProcessRun> {
  const child = spawn(process.execPath, args, {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? cwd, ...env },
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number>((resolve) => child.on('close', (c) => resolve(c ?? -1)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

test('through the commands: a HAR file, a .env and a blob report refused, each exit 2 with one escaped line, and nothing written', async () => {
  test.setTimeout(120_000);
  const work = temporaryDirectory('payflow-inputs-cli-');
  const hostile = join(work, 'hostile.har');
  writeFileSync(hostile, `\x1b[2J\x1b]0;pwned\x07\u0000${harText(URL_OF_ENTRY)}`);
  const dotenvDir = join(work, 'with-fifo-env');
  mkdirSync(dotenvDir);
  fifo(dotenvDir, '.env');
  const blobDir = join(work, 'blob-report');
  mkdirSync(blobDir);
  fifo(blobDir, 'shard-1.zip');
  const cases: { name: string; args: string[]; cwd: string; line: RegExp; env?: Record<string, string> }[] = [
    {
      name: 'a HAR starting with escape sequences',
      args: nodeTs('bin/validate.ts', hostile),
      cwd: work,
      line: /^validate: .*hostile\.har: not a HAR file: not JSON \(Unexpected token '\\x1b', .*\\x1b\]0;pw/,
    },
    {
      name: 'a FIFO as .env',
      args: nodeTs('bin/conformance.ts'),
      cwd: dotenvDir,
      line: /^conformance: the \.env file .*with-fifo-env\/\.env is a FIFO \(named pipe\), not a regular file$/,
    },
    {
      // Before, merge handed it to Playwright, which blocked on it forever.
      name: 'a FIFO named *.zip as a blob report',
      args: nodeTs('bin/merge-shards.ts'),
      cwd: work,
      env: { CONFORMANCE_SEED: '7' },
      line: /^conformance: the blob report \S+\/blob-report\/shard-1\.zip is a FIFO \(named pipe\), not a regular file$/,
    },
  ];
  for (const c of cases) {
    const r = await command(c.args, c.cwd, c.env);
    expect(r.code, `${c.name}: ${r.stdout}${r.stderr}`).toBe(2);
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines, c.name).toHaveLength(1);
    expect(lines[0], c.name).toMatch(c.line);
    expect(hasControls(lines[0]!), c.name).toBe(false);
  }
  for (const dir of [work, dotenvDir])
    expect(existsSync(join(dir, 'reports', 'conformance.json'))).toBe(false);
});
