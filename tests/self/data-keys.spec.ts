/**
 * The data-key rule (scripts/data-keys.ts), which the type check of the static checks runs: it
 * reports every lookup of a deliberate violation (tests/self/data-keys-fixture.ts) and none of the
 * same lookups written safely, and it finds nothing in the project. One program serves both (the
 * project's, as tsconfig.json names its files, the fixture among them): some 3 s of CPU.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import {
  dataKeyFindings,
  formatFinding,
  projectProgram,
  type DataKeyFinding,
} from '../../scripts/data-keys.ts';
import { CHECKS } from '../../scripts/static-checks.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const FIXTURE = join(ROOT, 'tests', 'self', 'data-keys-fixture.ts');

/** What the fixture's `// flagged: <kind>, ...` comments ask for, as `line kind`. */
function marked(text: string): string[] {
  return text.split('\n').flatMap((line, i) => {
    const kinds = /\/\/ flagged: ([\w, ]+)$/.exec(line)?.[1];
    return kinds ? kinds.split(',').map((k) => `${i + 1} ${k.trim()}`) : [];
  });
}

const shown = (findings: readonly DataKeyFinding[]): string[] =>
  findings.map((f) => `${f.line} ${f.kind}`).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));

test('the rule reports each violation of the fixture and nothing else; the project has none', () => {
  const program = projectProgram(ROOT);
  const fixture = program.getSourceFile(FIXTURE);
  expect(fixture, 'tsconfig.json includes the fixture').toBeDefined();

  const expected = marked(readFileSync(FIXTURE, 'utf8'));
  expect(expected.length).toBeGreaterThanOrEqual(10);
  const found = dataKeyFindings(program, ROOT, [fixture!]);
  expect(shown(found)).toEqual([...expected].sort((a, b) => a.localeCompare(b, 'en', { numeric: true })));
  // A finding says where, what, and what to write instead.
  expect(formatFinding(found[0]!)).toMatch(
    /^tests\/self\/data-keys-fixture\.ts:\d+: .+: .+ \(use a Map, Object\.create\(null\) or Object\.hasOwn/,
  );

  const project = dataKeyFindings(program, ROOT);
  expect(project.map(formatFinding)).toEqual([]);
  // The fixture is in that program and its findings are not the project's: the rule covers the
  // product's files, not the tests'.
  const files = program.getSourceFiles().map((f) => f.fileName);
  expect(files.some((f) => f.endsWith('requests/body-schema.ts'))).toBe(true);
});

test('the type check of the static checks runs the rule', () => {
  expect(CHECKS.types!.args.join(' ')).toContain('scripts/typecheck.ts');
});
