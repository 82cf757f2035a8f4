/**
 * The size bounds (scripts/sizes.ts), which the type check of the static checks runs: a function
 * of 121 lines and a file of 501 are reported, one line fewer is not; a function is named as its
 * declaration, its variable or its property names it; an exception holds up to its own length
 * and no further; the unbounded folders are left alone; and the project keeps the bounds.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import ts from 'typescript';
import {
  fileSizeFindings,
  formatSizeFinding,
  MAX_FILE_LINES,
  MAX_FUNCTION_LINES,
  sizeFindings,
} from '../../scripts/sizes.ts';

const ROOT = join(import.meta.dirname, '..', '..');

const parse = (path: string, text: string): ts.SourceFile =>
  ts.createSourceFile(join(ROOT, path), text, ts.ScriptTarget.ES2022, true);

/** A function's text of exactly `lines` lines, written as `head` (`function f() {`, `f: () => {`...). */
function body(head: string, lines: number, close = '}'): string {
  return [head, ...Array.from({ length: lines - 2 }, (_, i) => `  void ${i};`), close].join('\n');
}

test('a function over 120 lines is reported, one of 120 is not, whatever its kind', () => {
  expect(MAX_FUNCTION_LINES).toBe(120);
  const text = [
    body('export function long() {', 121),
    body('export function fits() {', 120),
    body('export const arrow = () => {', 121, '};'),
    'export class C {',
    body('  method(): void {', 121, '  }'),
    '}',
    'export const table = {',
    body('  entry: function () {', 121, '  },'),
    '};',
    body('[1].map(() => {', 121, '});'),
  ].join('\n');
  // The file itself is over its bound too: its own finding comes first.
  const [file, ...found] = fileSizeFindings(parse('engine/x.ts', text), 'engine/x.ts', new Map());
  expect(file).toMatchObject({ name: 'file', lines: 729 });
  expect(found.map((f) => `${f.name} ${f.lines}`)).toEqual([
    'long 121',
    'arrow 121',
    'method 121',
    'entry 121',
    '(anonymous, line 609) 121',
  ]);
  expect(formatSizeFinding(found[0]!)).toBe(
    'engine/x.ts:1: function long has 121 lines, over 120: split it by its ideas (see scripts/sizes.ts)',
  );
});

test('an exception holds up to the length it names, and no further', () => {
  const file = parse('engine/x.ts', body('export function long() {', 130));
  expect(fileSizeFindings(file, 'engine/x.ts', new Map([['engine/x.ts long', 130]]))).toEqual([]);
  expect(fileSizeFindings(file, 'engine/x.ts', new Map([['engine/x.ts long', 129]]))[0]).toMatchObject({
    lines: 130,
    bound: 129,
  });
  // Another file's function of the same name has no exception.
  expect(fileSizeFindings(file, 'engine/y.ts', new Map([['engine/x.ts long', 130]]))).toHaveLength(1);
});

test('a file over 500 lines is reported outside servers/, spec/ and tests/', () => {
  expect(MAX_FILE_LINES).toBe(500);
  const lines = (n: number): string =>
    Array.from({ length: n }, (_, i) => `export const v${i} = ${i};`).join('\n');
  const files = [
    parse('engine/long.ts', `${lines(501)}\n`),
    parse('engine/fits.ts', `${lines(500)}\n`),
    parse('servers/long.ts', lines(501)),
    parse('spec/long.ts', lines(501)),
    parse('tests/self/long.spec.ts', lines(501)),
  ];
  expect(sizeFindings(files, ROOT).map((f) => `${f.file} ${f.name} ${f.lines}`)).toEqual([
    'engine/long.ts file 501',
  ]);
});

test('the project keeps the bounds, and the type check runs them', () => {
  const parsed = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: () => {},
    },
  )!;
  const sources = parsed.fileNames.map((f) => parse(f.slice(ROOT.length + 1), readFileSync(f, 'utf8')));
  expect(sources.length).toBeGreaterThan(300);
  expect(sizeFindings(sources, ROOT).map(formatSizeFinding)).toEqual([]);
  expect(readFileSync(join(ROOT, 'scripts', 'typecheck.ts'), 'utf8')).toContain('sizeFindings(');
});
