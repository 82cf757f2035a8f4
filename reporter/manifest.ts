/**
 * The manifest of a directory the suite writes into (reporter/report-set.ts): each file the suite
 * put there, with its size and SHA-256 as written. It is a file in a directory the user owns, so
 * it is read as a claim, never trusted: a listed file counts as the suite's only while its content
 * is still what the suite wrote (same size, same hash), it is a regular file (not a link), and
 * every directory on its way is a real directory inside. A file the user put in place of one the
 * suite wrote, or one a forged manifest lists, fails that check and is left alone. A path that
 * leads out of the directory (absolute, `..`) is no entry at all.
 *
 * A manifest without hashes (written before they were recorded) lists nothing the suite can tell
 * from the user's files: none of them counts as the suite's.
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
  type Stats,
} from 'node:fs';
import { isAbsolute, join, normalize, sep } from 'node:path';
import { readInputFile } from '../config/input-files.ts';

/** The manifest's name in its directory. */
export const MANIFEST = '.conformance-files.json';

/** The prefix of staging directories (reporter/report-set.ts): never a file of a set. */
export const STAGING_PREFIX = '.staging-';

const MANIFEST_CAP = 4 * 1024 * 1024;
const SHA256 = /^[0-9a-f]{64}$/;

/** What the suite wrote at a path: its size and SHA-256 (hex). */
export interface Written {
  size: number;
  sha256: string;
}

/** The entries of a manifest: relative paths (`/` separated) to what was written there. */
export type Manifest = Map<string, Written>;

/** A relative path of a manifest that stays inside its directory, or undefined. */
export function insidePath(rel: unknown): string | undefined {
  if (typeof rel !== 'string' || rel === '' || rel.includes('\0') || isAbsolute(rel)) return undefined;
  const n = normalize(rel).split(sep).join('/');
  if (n === '..' || n.startsWith('../') || n === '.' || n === MANIFEST) return undefined;
  if (n.split('/').some((part) => part.startsWith(STAGING_PREFIX))) return undefined;
  return n;
}

/** The `files` list of the manifest of `dir`, as it stands (an empty list when there is none). */
function listed(dir: string): unknown[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readInputFile(join(dir, MANIFEST), 'the manifest', MANIFEST_CAP).toString('utf8'));
  } catch {
    return [];
  }
  const files = (parsed as { files?: unknown } | null)?.files;
  return Array.isArray(files) ? (files as unknown[]) : [];
}

/**
 * The paths a manifest of `dir` lists by name alone, as one written before hashes were recorded
 * did: none of them can be told from a file of the user's (an error says so).
 */
export function unhashedNames(dir: string): Set<string> {
  return new Set(
    listed(dir)
      .map((entry) => (typeof entry === 'string' ? insidePath(entry) : undefined))
      .filter((rel): rel is string => rel !== undefined),
  );
}

/** The manifest of `dir`: empty when there is none, or it cannot be read, or it records no hashes. */
export function readManifest(dir: string): Manifest {
  const manifest: Manifest = new Map();
  for (const entry of listed(dir)) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { path, size, sha256 } = entry as { path?: unknown; size?: unknown; sha256?: unknown };
    const rel = insidePath(path);
    if (rel === undefined || !Number.isSafeInteger(size) || (size as number) < 0) continue;
    if (typeof sha256 !== 'string' || !SHA256.test(sha256)) continue;
    manifest.set(rel, { size: size as number, sha256 });
  }
  return manifest;
}

/** Writes the manifest of `dir` (aside, then renamed into place: a reader sees all of it or none). */
export function writeManifest(dir: string, manifest: Manifest): void {
  const files = [...manifest.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, w]) => ({ path, size: w.size, sha256: w.sha256 }));
  const draft = join(dir, `${MANIFEST}.${process.pid}.tmp`);
  try {
    writeFileSync(draft, `${JSON.stringify({ tool: 'payflow-conformance', version: 2, files }, null, 1)}\n`);
    renameSync(draft, join(dir, MANIFEST));
  } finally {
    rmSync(draft, { force: true });
  }
}

function lstat(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/**
 * The size and SHA-256 of the regular file at `path`, read in chunks (a HAR may be large); undefined
 * when it is no regular file (a link, a FIFO, a directory) or cannot be read. Opened without
 * following a link and without blocking, and checked again once open.
 */
export function digestOf(path: string): Written | undefined {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return undefined;
    const hash = createHash('sha256');
    const chunk = Buffer.alloc(1024 * 1024);
    let size = 0;
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      hash.update(chunk.subarray(0, n));
      size += n;
    }
    return { size, sha256: hash.digest('hex') };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/**
 * Whether `rel` below `dir` is still what the suite wrote there (`written`): every directory on its
 * way a real directory (no link that could lead out), the file itself a regular file of that size
 * and hash.
 */
export function stillAsWritten(dir: string, rel: string, written: Written): boolean {
  const parts = rel.split('/');
  for (let i = 1; i < parts.length; i++) {
    if (!lstat(join(dir, ...parts.slice(0, i)))?.isDirectory()) return false;
  }
  const path = join(dir, ...parts);
  const s = lstat(path);
  // The size first: a file that changed size is not read at all.
  if (!s?.isFile() || s.size !== written.size) return false;
  const now = digestOf(path);
  return now !== undefined && now.size === written.size && now.sha256 === written.sha256;
}

/** The entries of `manifest` whose files in `dir` are still what the suite wrote. */
export function verifiedEntries(dir: string, manifest: Manifest): Manifest {
  return new Map([...manifest].filter(([rel, written]) => stillAsWritten(dir, rel, written)));
}
