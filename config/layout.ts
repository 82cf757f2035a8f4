/**
 * Where the running copy of the suite is. In a clone the TypeScript runs as it is (tsx, or
 * Playwright's own compiler); the package ships it compiled to JavaScript in dist/ (`npm run
 * build`, tsconfig.build.json), with the tree mirrored and package.json one level up. Whatever
 * names a module of the suite by path (the Playwright configuration, its global setup and reporter,
 * the replay command) asks here, so both forms run the same way.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(import.meta.url);

/** Whether this is the compiled package (dist/.../*.js), not the TypeScript source. */
export const COMPILED = here.endsWith('.js');

/** The extension of the suite's modules as they run: '.js' compiled, '.ts' in a clone. */
export const MODULE_EXTENSION = COMPILED ? '.js' : '.ts';

/** The root of the suite's module tree: the clone, or its dist/ directory. */
export const CODE_ROOT = join(dirname(here), '..');

/** The directory of the package's package.json: the clone, or the installed package. */
export const PACKAGE_ROOT = COMPILED ? join(CODE_ROOT, '..') : CODE_ROOT;

/**
 * The spec file of the write lanes, without its extension (tests/conformance/0-writes.spec.ts;
 * .js in the package). Playwright queues the files of a project in name order (localeCompare:
 * a digit before any letter), so the lanes, the long pole of a write run, are the first groups
 * the workers take, with no project of their own: a worker of a project of its own could not
 * take a read when its lane ended first (the embedded server), and Playwright started a new
 * worker for the reads left, a second of start-up on the run's critical path.
 */
export const WRITES_SPEC_NAME = '0-writes.spec';

/** That file's path, as it runs: one group per lane to suite/work-groups.ts. */
export const WRITE_LANES = /[\\/]0-writes\.spec\.[jt]s$/;

/**
 * The path of a module of the suite as it runs, from its source path relative to the root
 * ('reporter/conformance-reporter.ts' is dist/reporter/conformance-reporter.js when compiled).
 */
export function modulePath(source: string): string {
  return join(CODE_ROOT, COMPILED ? source.replace(/\.ts$/, '.js') : source);
}

/**
 * The script of the `payflow-conformance` command of this copy: the package's bin (the compiled
 * bin/cli.js), or in a clone bin/payflow-conformance.mjs, which runs bin/cli.ts through tsx.
 */
export const COMMAND_SCRIPT = COMPILED
  ? modulePath('bin/cli.ts')
  : join(PACKAGE_ROOT, 'bin', 'payflow-conformance.mjs');
