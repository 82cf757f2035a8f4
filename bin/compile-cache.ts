/**
 * Node's compile cache for the command and the processes it starts (Node 22.1 and later; Node 20
 * has none, and runs as before). A run starts three or four Node processes (the command,
 * Playwright's runner, its workers), each compiling Playwright's bundles and the suite's modules
 * anew; with the cache every run after the first reads what an earlier
 * one compiled, keyed by the code itself, so nothing stale is read.
 *
 * Where: NODE_COMPILE_CACHE when the user set it (and none with NODE_DISABLE_COMPILE_CACHE);
 * else, in a clone, its node_modules/.cache (as `npm test` does, scripts/test.ts); else, the
 * installed package, the user's own cache directory ($XDG_CACHE_HOME, else ~/.cache). Not the
 * system's temporary directory: another user of the machine could leave compiled code there for
 * these processes to run.
 */
import module from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { COMPILED, PACKAGE_ROOT } from '../config/layout.ts';

/** The cache directory for `env` (see above), or undefined when the cache is turned off. */
export function compileCacheDir(
  env: NodeJS.ProcessEnv,
  compiled: boolean = COMPILED,
  home: () => string = homedir,
): string | undefined {
  if (env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  if (env.NODE_COMPILE_CACHE) return env.NODE_COMPILE_CACHE;
  if (!compiled) return join(PACKAGE_ROOT, 'node_modules', '.cache', 'payflow-node-compile-cache');
  return join(env.XDG_CACHE_HOME || join(home(), '.cache'), 'payflow-conformance', 'node-compile-cache');
}

/** `env` with NODE_COMPILE_CACHE set for the processes started with it (see above). */
export function withCompileCache(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const dir = compileCacheDir(env);
  return dir === undefined ? env : { ...env, NODE_COMPILE_CACHE: dir };
}

/**
 * Turns the cache on for the modules this process loads from now on (the command's own, loaded
 * when it is chosen: bin/cli.ts). Quietly nothing on Node 20, or when the directory cannot be
 * made: the cache only saves time.
 */
export function enableCompileCache(env: NodeJS.ProcessEnv = process.env): void {
  const enable = (module as { enableCompileCache?: (dir?: string) => unknown }).enableCompileCache;
  const dir = compileCacheDir(env);
  if (typeof enable !== 'function' || dir === undefined) return;
  try {
    enable(dir);
  } catch {
    // Not ours to fail a run over.
  }
}
