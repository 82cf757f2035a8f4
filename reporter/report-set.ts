/**
 * The files the suite writes into a directory the user names (the reports directory, and
 * Playwright's results directory): written into a staging directory inside it first, then moved
 * in file by file, once every one of them is written. A run that is killed, or fails before its
 * reports are complete, leaves the previous ones as they were; an interrupted run that gets to
 * write its partial reports replaces them, marked as interrupted.
 *
 * The suite replaces only what it wrote. Each directory keeps a manifest (reporter/manifest.ts)
 * of the files the suite put there, with the size and hash of each as written; a file counts as
 * the suite's only while its content is still that. A new set replaces those files, and removes
 * the ones of the previous set it lacks (never a mix of two runs), and touches nothing else: a
 * file of the user's beside the reports, or in a subdirectory such as playwright/, stays, and so
 * does a listed file whose content changed since (the user's, put in its place), which the run
 * says it left. A path the new set needs that holds something the suite did not write, or no
 * longer what it wrote (a junit.xml of the user's, a playwright/ that is a file, a link), is
 * never written over: a run is refused before its first request (checkOwnPaths, exit 2), and a
 * set that meets one at the end is not moved in at all. The input of a validation (`protect`) is
 * neither written over nor removed, so a run's exchanges.har survives any number of validations
 * of it.
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
  type Stats,
} from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ConfigError } from '../config/error.ts';
import { ensureDirectory, shownPath } from '../config/input-files.ts';
import {
  digestOf,
  readManifest,
  STAGING_PREFIX,
  stillAsWritten,
  unhashedNames,
  verifiedEntries,
  writeManifest,
  type Manifest,
} from './manifest.ts';

export { MANIFEST, STAGING_PREFIX } from './manifest.ts';

/** The files Playwright's runner writes into its output directory whatever the tests do. */
export const RESULTS_PATHS: readonly string[] = ['.last-run.json'];

/** A set that cannot be moved in without writing over what the suite did not write. */
export class ForeignFilesError extends ConfigError {}

/** Creates a staging directory inside `dir` (so that a rename moves its files in), and `dir` if need be. */
export function createStaging(dir: string, what = 'the reports directory'): string {
  ensureDirectory(dir, what);
  return mkdtempSync(join(dir, STAGING_PREFIX));
}

/**
 * The files in `dir` that are the suite's: those its manifest lists whose content is still what
 * the suite wrote (reporter/manifest.ts). A missing or unreadable manifest lists none: then
 * nothing there is the suite's to replace.
 */
export function ownFiles(dir: string): Set<string> {
  return new Set(verifiedEntries(dir, readManifest(dir)).keys());
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
 * file of the suite's own, still as it wrote it), else why. A directory on the way must be a real
 * directory (not a link, which could lead out of `dir`); the file itself must be absent or the
 * suite's.
 */
function obstacle(
  dir: string,
  rel: string,
  manifest: Manifest,
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
  if (lstat(target) === undefined) return undefined;
  const written = manifest.get(rel);
  if (written === undefined) return `${shownPath(target)} was not written by the suite`;
  if (!stillAsWritten(dir, rel, written))
    return `${shownPath(target)} is no longer what the suite wrote there (its content changed since)`;
  return undefined;
}

/**
 * Throws a ForeignFilesError (exit 2, before any request) when one of `paths` (relative to `dir`)
 * holds something the suite did not write, or no longer what it wrote, or is the input of a
 * validation.
 */
export function checkOwnPaths(
  dir: string,
  paths: readonly string[],
  what: string,
  protect: readonly string[] = [],
): void {
  const manifest = readManifest(dir);
  const found = paths
    .map((p) => obstacle(dir, p, manifest, protect))
    .filter((o): o is string => o !== undefined);
  if (found.length === 0) return;
  // An earlier version's manifest named its files without hashes: this run cannot tell them
  // from the user's, and says so rather than leave the user wondering.
  const unhashed = paths.some((p) => unhashedNames(dir).has(p))
    ? ` (its manifest, of an earlier version of the suite, records no content hashes to check them by: remove the files it lists once)`
    : '';
  throw new ForeignFilesError(
    `${what} ${shownPath(dir)} holds what the suite would have to replace but did not write: ${found.join('; ')}; ` +
      `move it away, or choose another directory (the suite replaces only its own files)${unhashed}`,
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

/** Says one line on stderr, as the commands do. */
function sayOnStderr(line: string): void {
  process.stderr.write(`conformance: ${line}\n`);
}

/**
 * Moves the files of `staging` into `dir`, file by file, and removes `staging`: each replaces the
 * suite's own file of that name; the suite's files of the previous set that the new one lacks are
 * removed, but for `protect` (the input of a validation), which stays. A file the manifest lists
 * whose content is no longer what the suite wrote is left where it is, unlisted, and `say` is told
 * (by default a line on stderr). Nothing else in `dir` is touched. Synchronous from end to end (a
 * signal handler cannot run in the middle of it). Throws a ForeignFilesError, having moved
 * nothing, when a file of the set would replace something the suite did not write.
 */
export function commitFiles(
  staging: string,
  dir: string,
  options: { what?: string; protect?: readonly string[]; say?: (line: string) => void } = {},
): void {
  const what = options.what ?? 'the reports directory';
  const protect = (options.protect ?? []).map((p) => resolve(p));
  const say = options.say ?? sayOnStderr;
  ensureDirectory(dir, what);
  const listed = readManifest(dir);
  const own = verifiedEntries(dir, listed);
  const incoming = filesBelow(staging);
  checkOwnPaths(dir, incoming, what, protect);
  const arriving: Manifest = new Map();
  for (const rel of incoming) {
    const written = digestOf(join(staging, ...rel.split('/')));
    // Not a regular file (Playwright writes none other): moved in, but never the suite's to remove.
    if (written !== undefined) arriving.set(rel, written);
  }
  // Listed before they move, so that a process killed half way leaves every file it wrote listed.
  writeManifest(dir, new Map([...own, ...arriving]));
  for (const rel of incoming) {
    const target = join(dir, ...rel.split('/'));
    ensureDirectory(dirname(target), what);
    renameSync(join(staging, ...rel.split('/')), target);
  }
  const kept: Manifest = new Map(arriving);
  for (const [rel, written] of listed) {
    if (kept.has(rel)) continue;
    const target = join(dir, ...rel.split('/'));
    if (protect.some((p) => sameFile(p, target))) {
      if (own.has(rel)) kept.set(rel, written);
      continue;
    }
    if (own.has(rel)) {
      unlinkSync(target);
      pruneEmpty(dir, rel);
    } else if (lstat(target) !== undefined)
      say(
        `left ${shownPath(target)} in place: ${what}'s manifest lists it, but its content is not what the suite wrote there (yours now, or the manifest was edited)`,
      );
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
  variable: typeof REPORTS_STAGING_ENV | typeof RESULTS_STAGING_ENV,
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
