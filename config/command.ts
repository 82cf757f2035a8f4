/**
 * The command a line the suite prints starts with (serve's next steps, a finding's replay line,
 * the run's replay line), so that it runs as printed from the directory the user ran the suite
 * from. Where this copy of the suite lives decides it:
 *   - below a node_modules directory, it is an installed package, whose bin npm linked:
 *     `npx payflow-conformance` (npx finds the project's bin from any directory of the project);
 *   - otherwise it is a clone, which puts no `payflow-conformance` on PATH (a printed `npx
 *     payflow-conformance` there would ask the registry for a package of that name, or fail):
 *     `node <its bin/payflow-conformance.mjs>`, written relative to the user's directory when it
 *     is below it (`node bin/payflow-conformance.mjs` from the clone's root), absolute otherwise.
 */
import { isAbsolute, relative, sep } from 'node:path';
import { COMMAND_SCRIPT, PACKAGE_ROOT } from './layout.ts';

/** The package's name, which is its bin's (package.json "bin"). */
export const COMMAND_NAME = 'payflow-conformance';

/** Whether the copy of the suite at `packageRoot` is an installed package (in a node_modules). */
export function isInstalled(packageRoot: string = PACKAGE_ROOT): boolean {
  return packageRoot.split(/[\\/]/).includes('node_modules');
}

/** A path as a word of a shell line: as is when it is plain, in single quotes otherwise. */
function shellWord(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

/** `path` as the user at `from` names it: relative when it is below `from`, else absolute. */
export function pathFrom(from: string, path: string): string {
  const rel = relative(from, path);
  if (rel === '') return '.';
  return rel.startsWith(`..${sep}`) || rel === '..' || isAbsolute(rel) ? path : rel;
}

/**
 * The command that starts this copy of the suite, from the directory `from`: `npx
 * payflow-conformance` installed, `node <script>` in a clone.
 */
export function commandPrefix(
  from: string,
  where: { packageRoot: string; script: string } = { packageRoot: PACKAGE_ROOT, script: COMMAND_SCRIPT },
): string {
  if (isInstalled(where.packageRoot)) return `npx ${COMMAND_NAME}`;
  return `node ${shellWord(pathFrom(from, where.script))}`;
}
