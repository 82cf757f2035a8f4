/**
 * `--version` (or `-V`): the package's version, from its package.json. Every command answers it,
 * before reading anything else of its command line, so `payflow-conformance run --version` says
 * which copy of the suite a shell runs as `payflow-conformance --version` does.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PACKAGE_ROOT } from '../config/layout.ts';

/** The version of this copy of the suite (its package.json). */
export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string })
    .version;
}

/** Whether `args` ask for the version: it is printed then, and the command does nothing else. */
export function printedVersion(args: readonly string[]): boolean {
  if (!args.includes('--version') && !args.includes('-V')) return false;
  console.log(packageVersion());
  return true;
}
