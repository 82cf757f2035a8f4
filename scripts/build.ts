/**
 * npm run build (run by `npm pack` and `npm publish` as prepack): the package as it ships, in
 * dist/. tsc compiles what tsconfig.build.json includes (every module but the project's own
 * tests, bench, scripts, the gallery and the independent server, chosen by directory, so a moved
 * file needs no edit here) to JavaScript with source maps, the relative `.ts` imports rewritten
 * to `.js`. The data files the compiled modules read beside themselves (spec/openapi.yaml,
 * reporter/conformance-record.schema.json, ...: every .json, .yaml or .yml file in a directory
 * that holds a compiled module, the root's own configuration files aside) are copied next to them.
 * dist/ is made afresh each time, so nothing of an earlier build or a removed module lingers.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';

const ROOT = join(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist');
const DATA = /\.(json|ya?ml)$/;

/**
 * PAYFLOW_BUILD_TYPECHECK=0: compile without checking the types (tsc --noCheck), which emits the
 * same files in about half the time. For a build whose sources were type-checked by the same
 * invocation already: the self-tests pack the project during `npm test`, which runs
 * `npm run typecheck` first (tests/self/pack-fixtures.ts). Any other value, or none: checked.
 */
function skipTypeCheck(): boolean {
  return process.env.PAYFLOW_BUILD_TYPECHECK === '0';
}

rmSync(DIST, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(
  process.execPath,
  [tsc, '-p', join(ROOT, 'tsconfig.build.json'), ...(skipTypeCheck() ? ['--noCheck'] : [])],
  { stdio: 'inherit' },
);
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

/** Every directory below `dir`, `dir` included. */
function directories(dir: string): string[] {
  return [
    dir,
    ...readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .flatMap((e) => directories(join(dir, e.name))),
  ];
}

let copied = 0;
for (const out of directories(DIST)) {
  if (out === DIST) continue; // the root's .json files are the project's configuration, not data
  const source = join(ROOT, relative(DIST, out));
  for (const name of readdirSync(source)) {
    if (!DATA.test(name) || !statSync(join(source, name)).isFile()) continue;
    copyFileSync(join(source, name), join(out, name));
    copied++;
  }
}

const bin = join(DIST, 'bin', 'cli.js');
if (!existsSync(bin)) throw new Error('the build has no dist/bin/cli.js, the package bin');
chmodSync(bin, 0o755);
// On stderr: `npm pack --json` runs this first, and its stdout is the JSON.
console.error(`build: dist/ compiled, ${copied} data file(s) copied beside the modules`);
