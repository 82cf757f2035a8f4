/**
 * What runs a probe, compiled once for every later run of a clone. In a clone Playwright compiles
 * the suite's TypeScript itself (Babel) and keeps what it compiled on disk, but only what its
 * runner loads: a worker compiles and never writes (Playwright's transform cache). The runner
 * loads none of what runs a probe (suite/define.ts loads it in the worker), so every worker of
 * every run compiled the engine, the probes, the oracles and the generators anew: 3 to 5 s of
 * CPU a worker on the project's machine. So at the end of a run the runner loads those modules once, which writes them to
 * Playwright's cache, unless it did so already for these very sources (a stamp in that cache,
 * gone with it). The installed package runs compiled JavaScript and compiles nothing.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The folders of the modules a worker loads, as suite/define.ts's runtime() reaches them. */
const FOLDERS = [
  'config',
  'engine',
  'exchange',
  'generators',
  'oracles',
  'probes',
  'reporter',
  'requests',
  'run',
  'spec',
  'suite',
  'transport',
];

const STAMP = 'payflow-worker-modules.stamp';

/** Playwright's transform cache (its own rule: the variables it reads, else the temporary directory). */
export function playwrightCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const given = env.PLAYWRIGHT_TRANSFORM_CACHE_DIR || env.PWTEST_CACHE_DIR;
  if (given) return given;
  const uid = process.geteuid?.();
  return join(
    tmpdir(),
    uid === undefined ? 'playwright-transform-cache' : `playwright-transform-cache-${uid}`,
  );
}

/** A digest of the suite's TypeScript below `root` and of the Playwright that compiles it. */
export function sourcesDigest(root: string): string {
  const hash = createHash('sha256');
  const version = (createRequire(import.meta.url)('@playwright/test/package.json') as { version: string })
    .version;
  hash.update(`playwright ${version}\n`);
  for (const folder of FOLDERS) {
    let names: string[];
    try {
      names = readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' });
    } catch {
      continue;
    }
    for (const name of names.filter((n) => n.endsWith('.ts')).sort()) {
      hash.update(`${folder}/${name}\n`);
      hash.update(readFileSync(join(root, folder, name)));
    }
  }
  return hash.digest('hex');
}

/**
 * Loads the modules (`load`) unless the stamp in `cacheDir` says these sources were loaded
 * already, then stamps them. Whether it loaded them. Never fails the run: the cache only saves
 * time.
 */
export async function compileWorkerModules(
  load: () => Promise<unknown>,
  digest: string,
  cacheDir: string = playwrightCacheDir(),
): Promise<boolean> {
  const stamp = join(cacheDir, STAMP);
  try {
    if (readFileSync(stamp, 'utf8') === digest) return false;
  } catch {
    // No stamp: never loaded, or the cache was cleared.
  }
  try {
    await load();
    writeFileSync(stamp, digest);
    return true;
  } catch {
    return false;
  }
}
