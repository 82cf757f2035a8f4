/**
 * The static checks of `npm test` (types, ESLint, Prettier, the spec). Each is a single-threaded
 * process of 1 to 9 s of CPU. Run on their own (`npm run checks`, the quick tier) they go side by
 * side, about half the time on two cores; `npm test` (scripts/test.ts) runs them one after
 * another beside the self-tests, in the CPU those leave idle. Each check's
 * output is printed whole once it ends, in this order, with its time; the exit status is the
 * first failing check's, or 0.
 *
 *   node --import tsx scripts/static-checks.ts             every check
 *   node --import tsx scripts/static-checks.ts lint types  some of them
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { isEntryPoint } from '../bin/entry-point.ts';
import { own } from '../exchange/own.ts';

const ROOT = join(import.meta.dirname, '..');
const bin = (name: string): string => join(ROOT, 'node_modules', '.bin', name);

/** Whether this Node runs a .ts file as it is (type stripping, on by default since 22.18). */
function stripsTypes(): boolean {
  return Boolean((process.features as { typescript?: string | false }).typescript);
}

/** The checks, by name: the command and what it proves. */
export const CHECKS: Record<string, { command: string; args: string[]; what: string }> = {
  // tsc's diagnostics and the data-key rule (scripts/data-keys.ts), on one program. Where Node
  // strips types itself (22.18 and later), without tsx: its hooks on require() take some 0.4 s of
  // CPU to load the compiler.
  types: {
    command: process.execPath,
    args: [...(stripsTypes() ? [] : ['--import', 'tsx']), join(ROOT, 'scripts', 'typecheck.ts')],
    what: 'tsc --noEmit and the data-key rule',
  },
  lint: { command: bin('eslint'), args: ['.'], what: 'eslint .' },
  format: { command: bin('prettier'), args: ['--check', '.'], what: 'prettier --check .' },
  spec: {
    command: process.execPath,
    args: ['--import', 'tsx', join(ROOT, 'scripts', 'validate-spec.ts')],
    what: 'scripts/validate-spec.ts',
  },
};

export interface CheckResult {
  name: string;
  code: number;
  output: string;
  ms: number;
}

/** Runs one check. */
function run(name: string): Promise<CheckResult> {
  const check = own(CHECKS, name)!;
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(check.command, check.args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', (error) => {
      output += `${error.message}\n`;
    });
    child.on('close', (code, signal) =>
      resolve({ name, code: code ?? (signal ? 1 : 0), output, ms: performance.now() - started }),
    );
  });
}

/** Runs the checks `names`: side by side, or (`sequential`) one after another. */
export async function runChecks(
  names: readonly string[],
  options: { sequential?: boolean } = {},
): Promise<CheckResult[]> {
  if (!options.sequential) return Promise.all(names.map(run));
  const results: CheckResult[] = [];
  for (const name of names) results.push(await run(name));
  return results;
}

/** Prints the results, in order, each with its output. */
export function printChecks(results: readonly CheckResult[]): void {
  for (const r of results) {
    const status = r.code === 0 ? 'ok' : `FAILED (exit ${r.code})`;
    process.stdout.write(`\n> ${own(CHECKS, r.name)!.what}: ${status} in ${(r.ms / 1000).toFixed(1)} s\n`);
    if (r.output.trim() !== '') process.stdout.write(r.output.endsWith('\n') ? r.output : `${r.output}\n`);
  }
}

if (isEntryPoint(import.meta.url)) {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((name) => !Object.hasOwn(CHECKS, name));
  if (unknown.length > 0) {
    process.stderr.write(
      `static-checks: unknown check(s) ${unknown.join(', ')}; known: ${Object.keys(CHECKS).join(', ')}\n`,
    );
    process.exit(2);
  }
  const results = await runChecks(asked.length > 0 ? asked : Object.keys(CHECKS));
  printChecks(results);
  const failed = results.find((r) => r.code !== 0);
  process.exit(failed ? failed.code : 0);
}
