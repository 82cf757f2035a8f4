/**
 * Whether a module is the script node was started with: on its own, with nothing but node:fs and
 * node:url, so that a small script (bin/action.ts, run twice by every run step of the Action)
 * loads no more than it needs (bin/run-support.ts, which re-exports it, loads the reporter).
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Whether the module of `moduleURL` is the script node was started with (not imported by
 * bin/cli.ts): bin/conformance.ts, bin/validate.ts and bin/merge-shards.ts run their command then.
 */
export function isEntryPoint(moduleURL: string): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(moduleURL));
  } catch {
    return false;
  }
}
