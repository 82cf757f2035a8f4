/**
 * The static checks of `npm test` (types, ESLint, Prettier, the spec), run at once rather than one
 * after another: each is a single-threaded process of 1 to 9 s, so on two cores running them
 * side by side takes about half the time (issue 20: npm test within three minutes). Each check's
 * output is printed whole once it ends, in this order, with its time; the exit status is the
 * first failing check's, or 0.
 *
 *   npx tsx scripts/static-checks.ts            every check
 *   npx tsx scripts/static-checks.ts lint types  some of them
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const bin = (name: string): string => join(ROOT, 'node_modules', '.bin', name);

/** The checks, by name: the command and what it proves. */
const CHECKS: Record<string, { command: string; args: string[]; what: string }> = {
  types: { command: bin('tsc'), args: ['--noEmit'], what: 'tsc --noEmit' },
  lint: { command: bin('eslint'), args: ['.'], what: 'eslint .' },
  format: { command: bin('prettier'), args: ['--check', '.'], what: 'prettier --check .' },
  spec: {
    command: process.execPath,
    args: ['--import', 'tsx', join(ROOT, 'scripts', 'validate-spec.ts')],
    what: 'scripts/validate-spec.ts',
  },
};

interface Result {
  name: string;
  code: number;
  output: string;
  ms: number;
}

function run(name: string): Promise<Result> {
  const check = CHECKS[name]!;
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

const asked = process.argv.slice(2);
const unknown = asked.filter((name) => !(name in CHECKS));
if (unknown.length > 0) {
  process.stderr.write(
    `static-checks: unknown check(s) ${unknown.join(', ')}; known: ${Object.keys(CHECKS).join(', ')}\n`,
  );
  process.exit(2);
}
const names = asked.length > 0 ? asked : Object.keys(CHECKS);
const results = await Promise.all(names.map(run));
for (const r of results) {
  const status = r.code === 0 ? 'ok' : `FAILED (exit ${r.code})`;
  process.stdout.write(`\n> ${CHECKS[r.name]!.what}: ${status} in ${(r.ms / 1000).toFixed(1)} s\n`);
  if (r.output.trim() !== '') process.stdout.write(r.output.endsWith('\n') ? r.output : `${r.output}\n`);
}
const failed = results.find((r) => r.code !== 0);
process.exit(failed ? failed.code : 0);
