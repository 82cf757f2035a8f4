/**
 * What `merge` (bin/merge-shards.ts) checks of its blob directory before Playwright reads it:
 * Playwright's merge-reports opens every `*.zip` in it and writes its working files (the
 * extracted `.jsonl` and `resources/`) into the same directory. A FIFO named `x.zip` blocked it
 * forever, and one under a name Playwright writes would block its write; a device never ends.
 * So the directory must be a directory, every `*.zip` a regular file (a link to one is followed),
 * `resources` a directory if it is there, and nothing in it or in `resources/` a FIFO, socket or
 * device. Each is refused by name, before anything is read.
 */
import { readdirSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { ConfigError } from '../config/error.ts';
import { kindOf, shownPath } from '../config/input-files.ts';

/** The directory of the blob reports' resources, which Playwright extracts into the blob directory. */
const RESOURCES = 'resources';

function stat(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function special(stats: Stats): boolean {
  return !stats.isFile() && !stats.isDirectory();
}

/** The entries of `dir` with what each is (a dangling link: undefined), refusing a special one. */
function checkedEntries(dir: string, top = dir): { name: string; stats: Stats | undefined }[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    throw new ConfigError(
      `the blob directory ${shownPath(dir)} cannot be read (${(error as { code?: string }).code ?? String(error)})`,
    );
  }
  const entries = names.sort().map((name) => ({ name, stats: stat(join(dir, name)) }));
  for (const { name, stats } of entries) {
    // A blob report is refused as one, below.
    if (stats !== undefined && special(stats) && !(dir === top && name.endsWith('.zip')))
      throw new ConfigError(
        `${shownPath(join(dir, name))} is ${kindOf(stats)}: merge reads only regular files and writes its working files beside them; remove it from the blob directory`,
      );
  }
  return entries;
}

/**
 * The blob reports (`*.zip`) of `blobDir`, once it and they are what merge expects; else a
 * ConfigError naming what is not (exit 2).
 */
export function checkBlobDirectory(blobDir: string): string[] {
  const dir = stat(blobDir);
  if (dir === undefined)
    throw new ConfigError(
      `the blob directory ${shownPath(blobDir)} does not exist (the shards write blob-report/ by default)`,
    );
  if (!dir.isDirectory())
    throw new ConfigError(`the blob directory ${shownPath(blobDir)} is ${kindOf(dir)}, not a directory`);
  const entries = checkedEntries(blobDir);
  const blobs: string[] = [];
  for (const { name, stats } of entries) {
    if (name === RESOURCES) {
      if (stats !== undefined && !stats.isDirectory())
        throw new ConfigError(
          `${shownPath(join(blobDir, name))} is not a directory: merge extracts the blob reports' resources into a directory of that name; remove it`,
        );
      if (stats !== undefined) checkedEntries(join(blobDir, name), blobDir);
    }
    if (!name.endsWith('.zip')) continue;
    if (stats === undefined)
      throw new ConfigError(
        `the blob report ${shownPath(join(blobDir, name))} cannot be read (a dangling link?)`,
      );
    if (!stats.isFile())
      throw new ConfigError(
        `the blob report ${shownPath(join(blobDir, name))} is ${kindOf(stats)}, not a regular file`,
      );
    blobs.push(name);
  }
  if (blobs.length === 0) throw new ConfigError(`no blob reports (*.zip) in ${shownPath(blobDir)}`);
  return blobs;
}
