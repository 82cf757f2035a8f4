/**
 * The triage of surviving mutants (mutation/triage.yaml, issue 22) is well formed without running
 * Stryker: every entry has a verdict and a reason, every silent entry quotes interface.md word
 * for word, every killed-now entry names a variant of the gallery (which gallery.spec.ts proves
 * caught by exactly what it declares), and no mutant is triaged twice. The keying the file rests
 * on (member, collapsed text, abbreviation) and the score are tested directly on a small report.
 * Whether every survivor of the last run has an entry is npm run mutation:triage's business: it
 * needs a mutation run, which npm test does not make.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { galleryIds, INTERFACE, TRIAGE } from '../../mutation/check.ts';
import {
  keyOf,
  keyText,
  loadTriage,
  memberAt,
  mutantKey,
  summarize,
  triageProblems,
  type MutationReport,
  type TriageEntry,
} from '../../mutation/triage.ts';

const interfaceText = readFileSync(INTERFACE, 'utf8');

test('mutation/triage.yaml: every entry is well formed, quotes interface.md verbatim and names existing variants', () => {
  const entries = loadTriage(TRIAGE);
  expect(entries.length).toBeGreaterThan(0);
  expect(triageProblems(entries, galleryIds(), interfaceText)).toEqual([]);
  for (const e of entries) {
    if (e.verdict === 'equivalent' || e.verdict === 'silent') expect(e.reason.length).toBeGreaterThan(20);
  }
});

test('triage problems name a missing quote, a quote not in the document and an unknown variant', () => {
  const base: TriageEntry = {
    file: 'servers/reference.ts',
    in: 'lifecycleHeaders',
    mutator: 'ObjectLiteral',
    original: '{ a: 1 }',
    replacement: '{}',
    verdict: 'silent',
    reason: 'the headers appear when applicable, so none is allowed',
  };
  const ids = new Set(['known-variant']);
  expect(triageProblems([base], ids, interfaceText)).toEqual([
    expect.stringContaining('quotes the sentence of interface.md'),
  ]);
  expect(triageProblems([{ ...base, quote: 'both appear when applicable.' }], ids, interfaceText)).toEqual(
    [],
  );
  expect(
    triageProblems([{ ...base, quote: 'both appear whenever applicable.' }], ids, interfaceText),
  ).toEqual([expect.stringContaining('not word for word')]);
  const killed = { ...base, verdict: 'killed-now' as const, variant: 'no-such-variant' };
  expect(triageProblems([killed], ids, interfaceText)).toEqual([
    expect.stringContaining('no gallery variant'),
  ]);
  expect(triageProblems([{ ...killed, variant: 'known-variant' }], ids, interfaceText)).toEqual([]);
  expect(
    triageProblems(
      [base, base].map((e) => ({ ...e, quote: 'both appear when applicable.' })),
      ids,
      interfaceText,
    ),
  ).toEqual([expect.stringContaining('triaged twice')]);
});

test('a mutant is keyed by its member and text, not its line; long originals are abbreviated with a hash', () => {
  const source = [
    'export function helper(x: number): number {',
    '  return x + 1;',
    '}',
    'export class S {',
    '  protected async handle(a: string): Promise<void> {',
    '    if (a === "x") return;',
    '  }',
    '  private readonly table = new Map<string, number>();',
    '  get size(): number {',
    '    return 0;',
    '  }',
    '}',
  ].join('\n');
  expect(memberAt(source, 2)).toBe('helper');
  expect(memberAt(source, 6)).toBe('handle');
  expect(memberAt(source, 8)).toBe('table');
  expect(memberAt(source, 10)).toBe('size');
  const mutant = {
    id: '1',
    mutatorName: 'ConditionalExpression',
    replacement: 'false',
    status: 'Survived',
    location: { start: { line: 6, column: 9 }, end: { line: 6, column: 18 } },
  };
  const key = mutantKey('s.ts', source, mutant);
  expect(JSON.parse(key)).toEqual(['s.ts', 'handle', 'ConditionalExpression', 'a === "x"', 'false']);
  // Lines added above move the line, not the key.
  const moved = `// a comment\n${source}`;
  expect(
    mutantKey('s.ts', moved, {
      ...mutant,
      location: { start: { line: 7, column: 9 }, end: { line: 7, column: 18 } },
    }),
  ).toBe(key);
  const long = `{ ${'x = 1; '.repeat(40)} }`;
  expect(keyText(long).length).toBeLessThan(100);
  expect(keyText(keyText(long))).toBe(keyText(long));
  expect(keyText('a \n   b')).toBe('a b');
});

test('the score leaves out mutants triaged equivalent or silent, and counts the untriaged and the claimed', () => {
  const source = 'export function f(a: number): number {\n  return a > 1 ? 2 : 3;\n}\n';
  const at = (c1: number, c2: number) => ({ start: { line: 2, column: c1 }, end: { line: 2, column: c2 } });
  const report: MutationReport = {
    files: {
      'f.ts': {
        source,
        mutants: [
          {
            id: '1',
            mutatorName: 'EqualityOperator',
            replacement: 'a >= 1',
            status: 'Survived',
            location: at(10, 15),
          },
          {
            id: '2',
            mutatorName: 'ConditionalExpression',
            replacement: 'true',
            status: 'Survived',
            location: at(10, 15),
          },
          {
            id: '3',
            mutatorName: 'ConditionalExpression',
            replacement: 'false',
            status: 'Killed',
            statusReason: 'MUST x',
            location: at(10, 15),
          },
          {
            id: '4',
            mutatorName: 'NumberLiteral',
            replacement: '0',
            status: 'Timeout',
            location: at(18, 19),
          },
          {
            id: '5',
            mutatorName: 'NumberLiteral',
            replacement: '4',
            status: 'Killed',
            statusReason: 'SHOULD y (o): warned',
            location: at(22, 23),
          },
        ],
      },
    },
  };
  const entry = (m: string, replacement: string, verdict: TriageEntry['verdict']): TriageEntry => ({
    file: 'f.ts',
    in: 'f',
    mutator: m,
    original: 'a > 1',
    replacement,
    verdict,
    reason: 'r',
  });
  const s = summarize(report, [
    entry('EqualityOperator', 'a >= 1', 'equivalent'),
    entry('NumberLiteral', '9', 'equivalent'),
  ]);
  expect(s.detected).toBe(3);
  expect(s.equivalent.map((r) => r.replacement)).toEqual(['a >= 1']);
  expect(s.untriaged.map((r) => r.replacement)).toEqual(['true']);
  expect(s.score).toBeCloseTo(75);
  expect(s.strykerScore).toBeCloseTo(60);
  expect(s.shouldOnly).toBe(1);
  expect(s.stale.map((e) => e.replacement)).toEqual(['9']);
  const claimed = summarize(report, [entry('ConditionalExpression', 'true', 'killed-now')]);
  expect(claimed.claimedKilled.map((r) => r.replacement)).toEqual(['true']);
  expect(keyOf(entry('EqualityOperator', 'a >= 1', 'equivalent'))).toBe(s.equivalent[0]!.key);
});
