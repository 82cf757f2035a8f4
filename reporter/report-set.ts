/**
 * The files the suite writes into a directory the user names (the reports directory, and
 * Playwright's results directory): written into a staging directory inside it first, then moved
 * in file by file, once every one of them is written. A run that is killed, or fails before its
 * reports are complete, leaves the previous ones as they were; an interrupted run that gets to
 * write its partial reports replaces them, marked as interrupted.
 *
 * The suite replaces only what it wrote. Each directory keeps a manifest (MANIFEST) of the files
 * the suite put there; a new set replaces those files, and removes the ones of the previous set
 * it lacks (never a mix of two runs), and touches nothing else: a file of the user's beside the
 * reports, or in a subdirectory such as playwright/, stays. A path the new set needs that holds
 * something the suite did not write (a junit.xml of the user's, a playwright/ that is a file, a
 * link) is never written over: a run is refused before its first request (checkOwnPaths, exit 2),
 * and a set that meets one at the end is not moved in at all. The input of a validation
 * (`protect`) is neither written over nor removed, so a run's exchanges.har survives any number
 * of validations of it.
 */
import {
  lstatSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { dirname, isAbsolute, join, normalize, resolve, sep } from 'node:path';
import { ConfigError } from '../config/error.ts';
import { ensureDirectory, readInputFile, shownPath } from '../config/input-files.ts';
import { REPORT_FILES } from './files.ts';

/** Playwright's HTML report, a directory of the set. */
export const PLAYWRIGHT_REPORT_DIR = 'playwright';

/** The files a report set always holds (Playwright's HTML report adds what it needs below playwright/). */
export const REPORT_PATHS: readonly string[] = [
  REPORT_FILES.json,
  REPORT_FILES.html,
  REPORT_FILES.junit,
  REPORT_FILES.har,
  `${PLAYWRIGHT_REPORT_DIR}/index.html`,
];

/** The files Playwright's runner writes into its output directory whatever the tests do. */
export const RESULTS_PATHS: readonly string[] = ['.last-run.json'];

/** The prefix of staging directories. */
export const STAGING_PREFIX = '.staging-';

/** The manifest of a directory: the files the suite wrote there (relative paths, `/` separated). */
export const MANIFEST = '.conformance-files.json';

const MANIFEST_CAP = 4 * 1024 * 1024;

/** A set that cannot be moved in without writing over what the suite did not write. */
export class ForeignFilesError extends ConfigError {}

/** Creates a staging directory inside `dir` (so that a rename moves its files in), and `dir` if need be. */
export function createStaging(dir: string, what = 'the reports directory'): string {
  ensureDirectory(dir, what);
  return mkdtempSync(join(dir, STAGING_PREFIX));
}

/** A relative path of the manifest that stays inside the directory, or undefined. */
function insidePath(rel: unknown): string | undefined {
  if (typeof rel !== 'string' || rel === '' || isAbsolute(rel)) return undefined;
  const n = normalize(rel).split(sep).join('/');
  if (n === '..' || n.startsWith('../') || n === '.' || n === MANIFEST) return undefined;
  return n;
}

/**
 * The files the suite wrote in `dir`, as its manifest lists them. A missing or unreadable
 * manifest lists none: then nothing there is the suite's to replace.
 */
export function ownFiles(dir: string): Set<string> {
  try {
    const parsed = JSON.parse(
      readInputFile(join(dir, MANIFEST), 'the manifest', MANIFEST_CAP).toString('utf8'),
    ) as {
      files?: unknown;
    };
    if (!Array.isArray(parsed.files)) return new Set();
    return new Set(parsed.files.map(insidePath).filter((p): p is string => p !== undefined));
  } catch {
    return new Set();
  }
}

function writeManifest(dir: string, files: Iterable<string>): void {
  const draft = join(dir, `${MANIFEST}.${process.pid}.tmp`);
  writeFileSync(
    draft,
    `${JSON.stringify({ tool: 'payflow-conformance', files: [...files].sort() }, null, 1)}\n`,
  );
  renameSync(draft, join(dir, MANIFEST));
}

function lstat(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function sameFile(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return false;
  }
}

/**
 * What stands in the way of writing `rel` into `dir`: undefined when nothing does (free, or a
 * file of the suite's own), else why. A directory on the way must be a real directory (not a
 * link, which could lead out of `dir`); the file itself must be absent or the suite's.
 */
function obstacle(
  dir: string,
  rel: string,
  own: ReadonlySet<string>,
  protect: readonly string[],
): string | undefined {
  const parts = rel.split('/');
  for (let i = 1; i < parts.length; i++) {
    const at = join(dir, ...parts.slice(0, i));
    const s = lstat(at);
    if (s === undefined) return undefined;
    if (!s.isDirectory()) return `${shownPath(at)} is not a directory the suite made`;
  }
  const target = join(dir, ...parts);
  if (protect.some((p) => sameFile(p, target))) return `${shownPath(target)} is the input being validated`;
  const s = lstat(target);
  if (s === undefined) return undefined;
  if (s.isFile() && own.has(rel)) return undefined;
  return `${shownPath(target)} was not written by the suite`;
}

/**
 * Throws a ForeignFilesError (exit 2, before any request) when one of `paths` (relative to `dir`)
 * holds something the suite did not write, or is the input of a validation.
 */
export function checkOwnPaths(
  dir: string,
  paths: readonly string[],
  what: string,
  protect: readonly string[] = [],
): void {
  const own = ownFiles(dir);
  const found = paths.map((p) => obstacle(dir, p, own, protect)).filter((o): o is string => o !== undefined);
  if (found.length > 0)
    throw new ForeignFilesError(
      `${what} ${shownPath(dir)} holds what the suite would have to replace but did not write: ${found.join('; ')}; ` +
        'move it away, or choose another directory (the suite replaces only its own files)',
    );
}

/** Every file below `dir`, as relative paths with `/`. */
function filesBelow(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...filesBelow(join(dir, entry.name), rel));
    else out.push(rel);
  }
  return out;
}

/** Removes the directories of `rel` below `dir` that are left empty, deepest first. */
function pruneEmpty(dir: string, rel: string): void {
  const parts = rel.split('/').slice(0, -1);
  while (parts.length > 0) {
    try {
      rmdirSync(join(dir, ...parts));
    } catch {
      return; // Not empty (a file of the user's, say), or gone.
    }
    parts.pop();
  }
}

/**
 * Moves the files of `staging` into `dir`, file by file, and removes `staging`: each replaces the
 * suite's own file of that name; the suite's files of the previous set that the new one lacks are
 * removed, but for `protect` (the input of a validation), which stays. Nothing else in `dir` is
 * touched. Synchronous from end to end (a signal handler cannot run in the middle of it). Throws a
 * ForeignFilesError, having moved nothing, when a file of the set would replace something the
 * suite did not write.
 */
export function commitFiles(
  staging: string,
  dir: string,
  options: { what?: string; protect?: readonly string[] } = {},
): void {
  const what = options.what ?? 'the reports directory';
  const protect = (options.protect ?? []).map((p) => resolve(p));
  ensureDirectory(dir, what);
  const own = ownFiles(dir);
  const incoming = filesBelow(staging);
  checkOwnPaths(dir, incoming, what, protect);
  // Listed before they move, so that a process killed half way leaves every file it wrote listed.
  writeManifest(dir, new Set([...own, ...incoming]));
  for (const rel of incoming) {
    const target = join(dir, ...rel.split('/'));
    ensureDirectory(dirname(target), what);
    renameSync(join(staging, ...rel.split('/')), target);
  }
  const kept = new Set(incoming);
  for (const rel of own) {
    if (kept.has(rel)) continue;
    const target = join(dir, ...rel.split('/'));
    const s = lstat(target);
    if (protect.some((p) => sameFile(p, target))) {
      kept.add(rel);
      continue;
    }
    if (s?.isFile()) unlinkSync(target);
    pruneEmpty(dir, rel);
  }
  writeManifest(dir, kept);
  rmSync(staging, { recursive: true, force: true });
}

/** The staging directory of the reports, set by the command that runs Playwright. */
export const REPORTS_STAGING_ENV = 'CONFORMANCE_REPORTS_STAGING';
/** The staging directory of Playwright's results (its outputDir), likewise. */
export const RESULTS_STAGING_ENV = 'CONFORMANCE_RESULTS_STAGING';

/**
 * For a Playwright configuration: the staging directory handed down in `variable` (by the
 * command, or by this configuration's first load in the runner, for its workers), or, when there
 * is none (Playwright run without the command), one created in `dir` and handed down. At the exit
 * of the process that created it, what it still holds is moved in (`commit`: Playwright's results,
 * written until the runner's very end) or dropped (`drop`: reports the reporter did not get to
 * move in).
 */
export function stagingFromEnv(
  variable: string,
  dir: string,
  what: string,
  atExit: 'commit' | 'drop',
  env: NodeJS.ProcessEnv = process.env,
): string {
  const given = env[variable];
  if (given) return given;
  const staging = createStaging(dir, what);
  env[variable] = staging;
  process.on('exit', () => {
    if (lstat(staging) === undefined) return;
    if (atExit === 'commit') {
      try {
        commitFiles(staging, dir, { what });
      } catch (error) {
        process.stderr.write(`conformance: ${(error as Error).message}\n`);
      }
    }
    rmSync(staging, { recursive: true, force: true });
  });
  return staging;
}
