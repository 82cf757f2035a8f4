/**
 * Never delete what the suite did not write (reporter/report-set.ts): reports and Playwright's
 * results are written to a staging directory and moved in file by file; the suite replaces only
 * the files its manifest lists; a path it needs that holds something it did not write is exit 2
 * before any request; `validate` never writes over, nor removes, the HAR it validates.
 *
 * The rules in-process, then the command: one run into directories holding files of the user's,
 * one refused, and two validations of that run's exchanges.har.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { ConfigError } from '../../config/error.ts';
import {
  checkOwnPaths,
  commitFiles,
  createStaging,
  ForeignFilesError,
  MANIFEST,
  ownFiles,
} from '../../reporter/report-set.ts';
import { REPORT_WRITERS, reportPaths, RUN_SOURCES } from '../../reporter/writers.ts';

/** Every file a run writes into the reports directory. */
const REPORT_PATHS = reportPaths(REPORT_WRITERS, RUN_SOURCES);
import { nodeTs, removeTemporaryDirectories, runCli, runNode, temporaryDirectory } from './cli-fixtures.ts';

test.afterAll(removeTemporaryDirectories);

/** Writes `files` (relative path to content) below `dir`. */
function put(dir: string, files: Record<string, string>): void {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(join(dir, rel, '..'), { recursive: true });
    writeFileSync(join(dir, rel), content);
  }
}

/** A set the suite writes into `dir`: staged, then moved in. */
function commit(dir: string, files: Record<string, string>, protect: string[] = []): void {
  const staging = createStaging(dir);
  put(staging, files);
  commitFiles(staging, dir, { protect });
}

const read = (dir: string, rel: string): string => readFileSync(join(dir, rel), 'utf8');

test.describe('the suite replaces only its own files', () => {
  test("the user's files beside the reports and inside playwright/ stay; the suite's previous ones are replaced or removed", () => {
    const dir = join(temporaryDirectory('payflow-files-'), 'proj');
    put(dir, { 'playwright/my.spec.ts': 'mine', 'notes.txt': 'mine' });
    commit(dir, {
      'conformance.json': 'run 1',
      'playwright/index.html': 'run 1',
      'playwright/data/a.zip': '1',
    });
    commit(dir, { 'conformance.json': 'run 2', 'playwright/index.html': 'run 2' });
    expect(read(dir, 'conformance.json')).toBe('run 2');
    expect(read(dir, 'playwright/index.html')).toBe('run 2');
    expect(existsSync(join(dir, 'playwright', 'data'))).toBe(false);
    expect(read(dir, 'playwright/my.spec.ts')).toBe('mine');
    expect(read(dir, 'notes.txt')).toBe('mine');
    expect([...ownFiles(dir)].sort()).toEqual(['conformance.json', 'playwright/index.html']);
    expect(readdirSync(dir).filter((n) => n.startsWith('.staging-'))).toEqual([]);
  });

  test('a file of the set where the user has one of their own: refused, and nothing moved', () => {
    const dir = join(temporaryDirectory('payflow-files-'), 'proj');
    put(dir, { 'junit.xml': 'mine' });
    const staging = createStaging(dir);
    put(staging, { 'conformance.json': 'new', 'junit.xml': 'new' });
    let error: unknown;
    try {
      commitFiles(staging, dir);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ForeignFilesError);
    expect((error as Error).message).toContain(`${join(dir, 'junit.xml')} was not written by the suite`);
    expect(read(dir, 'junit.xml')).toBe('mine');
    expect(existsSync(join(dir, 'conformance.json'))).toBe(false);
    // Before a run: the same check, a configuration error (exit 2).
    expect(() => checkOwnPaths(dir, REPORT_PATHS, 'the reports directory')).toThrow(ConfigError);
  });

  test('a playwright/ that is a file or a link, and a manifest naming paths outside: nothing is written through or removed outside', () => {
    const root = temporaryDirectory('payflow-files-');
    const dir = join(root, 'proj');
    const outside = join(root, 'outside');
    put(outside, { 'index.html': 'mine', 'victim.txt': 'mine' });
    mkdirSync(dir);
    symlinkSync(outside, join(dir, 'playwright'));
    expect(() => checkOwnPaths(dir, REPORT_PATHS, 'the reports directory')).toThrow(
      /playwright is not a directory the suite made/,
    );
    // A manifest someone edited: entries leading out of the directory are not the suite's.
    writeFileSync(join(dir, MANIFEST), JSON.stringify({ files: ['../outside/victim.txt', '/etc/hostname'] }));
    commit(dir, { 'conformance.json': 'new' });
    expect(read(outside, 'victim.txt')).toBe('mine');
    expect(read(outside, 'index.html')).toBe('mine');
  });

  test("a forged manifest listing a user's file: the file stays, and the run says it left it", () => {
    // A manifest of names alone (as one was written before it recorded hashes), and one whose
    // entries carry a size and a hash that are not those of the files they name.
    const forged = [
      { files: ['notes.txt', 'keep/plan.md'] },
      {
        files: [
          { path: 'notes.txt', size: 4, sha256: 'a'.repeat(64) },
          { path: 'keep/plan.md', size: 99, sha256: 'b'.repeat(64) },
        ],
      },
    ];
    for (const manifest of forged) {
      const dir = join(temporaryDirectory('payflow-files-'), 'proj');
      put(dir, { 'notes.txt': 'mine', 'keep/plan.md': 'mine too' });
      writeFileSync(join(dir, MANIFEST), JSON.stringify(manifest));
      const said: string[] = [];
      const staging = createStaging(dir);
      put(staging, { 'conformance.json': 'new' });
      commitFiles(staging, dir, { say: (line) => said.push(line) });
      expect(read(dir, 'notes.txt')).toBe('mine');
      expect(read(dir, 'keep/plan.md')).toBe('mine too');
      expect([...ownFiles(dir)]).toEqual(['conformance.json']);
      if (typeof manifest.files[0] === 'object')
        expect(said).toEqual([
          expect.stringMatching(/^left \S+\/proj\/notes\.txt in place: .*not what the suite wrote there/),
          expect.stringMatching(/^left \S+\/proj\/keep\/plan\.md in place: /),
        ]);
      // Before a run, a listed file of the user's where the run writes is refused, not replaced.
      writeFileSync(join(dir, MANIFEST), JSON.stringify(manifest));
      expect(() => checkOwnPaths(dir, ['notes.txt'], 'the reports directory')).toThrow(
        typeof manifest.files[0] === 'object'
          ? /notes\.txt is no longer what the suite wrote there/
          : /notes\.txt was not written by the suite; .*records no content hashes to check them by/,
      );
    }
  });

  test("a user's file in place of one the suite wrote: left alone when the set lacks it, refused when the set needs it", () => {
    const dir = join(temporaryDirectory('payflow-files-'), 'proj');
    commit(dir, { 'conformance.json': 'run 1', 'junit.xml': 'run 1', 'playwright/index.html': 'run 1' });
    // The same size, another content: only the hash tells them apart.
    writeFileSync(join(dir, 'junit.xml'), 'mine!');
    writeFileSync(join(dir, 'playwright', 'index.html'), 'mine!');
    const said: string[] = [];
    const staging = createStaging(dir);
    put(staging, { 'conformance.json': 'run 2' });
    commitFiles(staging, dir, { say: (line) => said.push(line) });
    expect(read(dir, 'conformance.json')).toBe('run 2');
    expect(read(dir, 'junit.xml')).toBe('mine!');
    expect(read(dir, 'playwright/index.html')).toBe('mine!');
    expect(said).toHaveLength(2);
    expect(said[0]).toContain(`left ${join(dir, 'junit.xml')} in place`);
    expect([...ownFiles(dir)]).toEqual(['conformance.json']);

    // Replaced once more by the user after a run that wrote it: a set that needs it is refused.
    commit(dir, { 'conformance.json': 'run 3' });
    writeFileSync(join(dir, 'conformance.json'), 'my copy');
    expect(() => checkOwnPaths(dir, REPORT_PATHS, 'the reports directory')).toThrow(
      /conformance\.json is no longer what the suite wrote there/,
    );
    const refused = createStaging(dir);
    put(refused, { 'conformance.json': 'run 4' });
    expect(() => commitFiles(refused, dir)).toThrow(ForeignFilesError);
    expect(read(dir, 'conformance.json')).toBe('my copy');
  });

  test("a listed file reached through a link out of the directory is not the suite's, whatever its hash", () => {
    const root = temporaryDirectory('payflow-files-');
    const dir = join(root, 'proj');
    const outside = join(root, 'outside');
    commit(dir, { 'conformance.json': 'run 1', 'playwright/data/a.zip': 'zip' });
    // playwright/ swapped for a link to a directory holding a file of the same content.
    put(outside, { 'data/a.zip': 'zip' });
    rmSync(join(dir, 'playwright'), { recursive: true });
    symlinkSync(outside, join(dir, 'playwright'));
    commit(dir, { 'conformance.json': 'run 2' });
    expect(read(outside, 'data/a.zip')).toBe('zip');
    expect([...ownFiles(dir)]).toEqual(['conformance.json']);
  });

  test("the input of a validation is neither written over nor removed, though it is the suite's", () => {
    const dir = join(temporaryDirectory('payflow-files-'), 'reports');
    commit(dir, { 'conformance.json': 'run', 'exchanges.har': 'the run', 'playwright/index.html': 'run' });
    const har = join(dir, 'exchanges.har');
    for (let i = 0; i < 3; i++) commit(dir, { 'conformance.json': `validation ${i}` }, [har]);
    expect(read(dir, 'exchanges.har')).toBe('the run');
    expect(read(dir, 'conformance.json')).toBe('validation 2');
    expect(ownFiles(dir).has('exchanges.har')).toBe(true);
    expect(() => checkOwnPaths(dir, ['exchanges.har'], 'the reports directory', [har])).toThrow(
      /is the input being validated/,
    );
  });
});

test('through the command: a run keeps the files of the user in the directories it is given, refuses one it would overwrite, and validating its exchanges.har twice keeps it', async () => {
  test.setTimeout(180_000);
  const work = temporaryDirectory('payflow-files-cli-');
  put(work, { 'proj/playwright/my.spec.ts': 'mine', 'proj/notes.md': 'mine', 'res/notes.txt': 'mine' });
  // Against the embedded server, one probe: what matters is what is written where.
  const args = [
    '--probe',
    'known-counterparty',
    '--runs',
    '3',
    '--reports-dir',
    'proj',
    '--results-dir',
    'res',
  ];
  const run = await runCli({}, { args, cwd: work });
  expect(run.code, run.stdout + run.stderr).toBe(0);
  expect(read(work, 'proj/playwright/my.spec.ts')).toBe('mine');
  expect(read(work, 'proj/notes.md')).toBe('mine');
  // Playwright empties its output directory: the suite's is a staging directory inside res/.
  expect(read(work, 'res/notes.txt')).toBe('mine');
  expect(existsSync(join(work, 'proj', 'playwright', 'index.html'))).toBe(true);
  const har = read(work, 'proj/exchanges.har');

  // Twice, as the README shows it: the HAR stays, and the second validation works as the first.
  for (const round of [1, 2]) {
    const v = await runNode(
      nodeTs('bin/validate.ts', 'proj/exchanges.har', '--reports-dir', 'proj'),
      {},
      work,
    );
    expect(v.code, `validation ${round}: ${v.stdout}${v.stderr}`).toBe(0);
    expect(read(work, 'proj/exchanges.har'), `validation ${round}`).toBe(har);
  }
  expect(read(work, 'proj/playwright/my.spec.ts')).toBe('mine');

  // A junit.xml of the user's where the run would write its own: exit 2, before any request.
  put(work, { 'ci/junit.xml': 'mine' });
  const refused = await runCli({}, { args: [...args, '--reports-dir', 'ci'], cwd: work });
  expect(refused.code, refused.stdout + refused.stderr).toBe(2);
  expect(refused.stderr.trim()).toMatch(
    /^conformance: the reports directory \S+\/ci holds what the suite would have to replace but did not write: \S+\/ci\/junit\.xml was not written by the suite;/,
  );
  expect(read(work, 'ci/junit.xml')).toBe('mine');
  expect(readdirSync(join(work, 'ci'))).toEqual(['junit.xml']);

  // A junit.xml of the user's in place of the one the suite wrote: refused the same way, naming it.
  writeFileSync(join(work, 'proj', 'junit.xml'), 'mine');
  const replaced = await runCli({}, { args, cwd: work });
  expect(replaced.code, replaced.stdout + replaced.stderr).toBe(2);
  expect(replaced.stderr.trim()).toMatch(
    /^conformance: the reports directory \S+\/proj holds .*\/proj\/junit\.xml is no longer what the suite wrote there/,
  );
  expect(read(work, 'proj/junit.xml')).toBe('mine');
});
