/**
 * The import rule of the layers (scripts/layers.ts), which the type check of the static checks
 * runs: it reports every import of a small house that breaks each rule once
 * (tests/self/layers-fixture/) and none of the imports there that keep them, and it finds nothing
 * in the project. The declaration it reads is consistent, and every room of it holds a file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import ts from 'typescript';
import { projectProgram } from '../../scripts/data-keys.ts';
import {
  circles,
  formatLayerFinding,
  importGraph,
  LAYERS,
  layerErrors,
  layerFindings,
  mayImport,
  programLayerFindings,
  roomOf,
  type LayerFinding,
} from '../../scripts/layers.ts';
import { CHECKS } from '../../scripts/static-checks.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const FIXTURE = join(ROOT, 'tests', 'self', 'layers-fixture');

/** The fixture's files, parsed, and what their `// flagged: <kind>` comments ask for (`file:line kind`). */
function fixture(): { sources: ts.SourceFile[]; expected: string[] } {
  const names = readdirSync(FIXTURE, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  const sources: ts.SourceFile[] = [];
  const expected: string[] = [];
  for (const name of names) {
    const text = readFileSync(join(FIXTURE, name), 'utf8');
    sources.push(ts.createSourceFile(join(FIXTURE, name), text, ts.ScriptTarget.ES2022, true));
    text.split('\n').forEach((line, i) => {
      const kind = /\/\/ flagged: (\w+)$/.exec(line)?.[1];
      if (kind) expected.push(`${name.split('\\').join('/')}:${i + 1} ${kind}`);
    });
  }
  return { sources, expected: expected.sort() };
}

const shown = (findings: readonly LayerFinding[]): string[] =>
  findings.map((f) => `${f.file}:${f.line} ${f.kind}`).sort();

test('the rule reports each violation of the fixture and nothing else', () => {
  const { sources, expected } = fixture();
  // Every kind of finding, each at least once.
  expect(new Set(expected.map((e) => e.split(' ')[1]))).toEqual(
    new Set(['up', 'across', 'only', 'never', 'circle', 'room']),
  );
  const options = projectProgramOptions();
  const { files, imports } = importGraph(FIXTURE, sources, options);
  // Type-only imports, re-exports, import() and import types all count.
  expect(imports.length).toBeGreaterThanOrEqual(20);
  const found = layerFindings(files, imports);
  expect(shown(found)).toEqual(expected);

  // A finding says where, which rooms, and what the room may import instead.
  const only = found.find((f) => f.file === 'oracles/verdict.ts')!;
  expect(formatLayerFinding(only)).toBe(
    'oracles/verdict.ts:2: oracles/ (floor 2) imports transport/wire.ts of transport/ (floor 2); ' +
      'oracles/ may import only exchange/, spec/, requests/ (see scripts/layers.ts)',
  );
  expect(found.find((f) => f.kind === 'circle')!.message).toContain('engine/a.ts, engine/b.ts');
});

test('the project keeps the layers: no import back up, none forbidden, no circle; every room holds a file', () => {
  // One program (some 3 s of CPU) serves both.
  const program = projectProgram(ROOT);
  expect(programLayerFindings(program, ROOT).map(formatLayerFinding)).toEqual([]);
  // The fixture is not in the project's program, and the project's files are.
  const { files } = importGraph(ROOT, program.getSourceFiles(), program.getCompilerOptions());
  expect(files.some((f) => f.includes('layers-fixture'))).toBe(false);
  expect(files).toContain('oracles/described.ts');
  const used = new Set(files.map((f) => roomOf(f)?.room));
  expect(LAYERS.map((r) => r.room).filter((r) => !used.has(r))).toEqual([]);
});

test('the declaration holds together', () => {
  expect(layerErrors()).toEqual([]);
  const broken = layerErrors([
    { room: 'a/', floor: 1, holds: '', only: ['b/'] },
    { room: 'b/', floor: 2, holds: '', also: ['a/'], never: ['c/'] },
  ]);
  expect(broken).toEqual([
    'a/ only: b/ is above it',
    'b/ also: a/ is not on its floor',
    'b/ never: c/ is no room',
  ]);
  // A folder inside a room is a room of its own where declared; the root's files are './'.
  expect(roomOf('servers/independent/server.ts')?.room).toBe('servers/independent/');
  expect(roomOf('servers/gallery/index.ts')?.room).toBe('servers/');
  expect(roomOf('playwright.config.ts')?.room).toBe('./');
  expect(mayImport(roomOf('probes/index.ts')!)).toBe('the floors below, never `servers/`');
});

test('a circle is found whatever its length, once, and a file importing itself is one', () => {
  const edge = (from: string, to: string) => ({ from, to, line: 1 });
  expect(
    circles([edge('a', 'b'), edge('b', 'c'), edge('c', 'a'), edge('c', 'd'), edge('d', 'd'), edge('e', 'a')]),
  ).toEqual([['a', 'b', 'c'], ['d']]);
  expect(circles([edge('a', 'b'), edge('b', 'c'), edge('a', 'c')])).toEqual([]);
});

test('the type check of the static checks runs the rule', () => {
  expect(CHECKS.types!.args.join(' ')).toContain('scripts/typecheck.ts');
  expect(readFileSync(join(ROOT, 'scripts', 'typecheck.ts'), 'utf8')).toContain('programLayerFindings(');
});

/** The compiler options of tsconfig.json, which the fixture's imports are resolved with. */
function projectProgramOptions(): ts.CompilerOptions {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: () => {},
    },
  );
  return parsed!.options;
}
