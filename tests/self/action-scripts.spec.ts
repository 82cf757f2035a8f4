/**
 * The Action's scripts (bin/action.ts, bin/shell-words.ts) directly: the words of the args input
 * as sh would split them with nothing expanded, checked against bash itself on the same lines
 * (bash with no variable set, so an expansion would show), and the outputs taken from a record.
 * The run step that uses them runs in tests/self/distribution.spec.ts.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { actionOutputs, actionReports, argsRefusal, outputLines } from '../../bin/action.ts';
import { shellWords, ShellWordsError } from '../../bin/shell-words.ts';
import { removeTemporaryDirectories, temporaryDirectory } from './cli-fixtures.ts';

test.afterAll(removeTemporaryDirectories);

/** Lines and the words sh makes of them, where sh expands nothing (no $, `, ~, glob or #). */
const CASES: [string, string[]][] = [
  ['', []],
  ['   \t\n ', []],
  ['--rps 2 --probe known-counterparty', ['--rps', '2', '--probe', 'known-counterparty']],
  ['  --rps   2  ', ['--rps', '2']],
  [`--header 'X-Tenant: acme'`, ['--header', 'X-Tenant: acme']],
  [`--header "X-Tenant: acme corp"`, ['--header', 'X-Tenant: acme corp']],
  [`--header='X-Tenant: acme'`, ['--header=X-Tenant: acme']],
  [`a'b c'd`, ['ab cd']],
  [`'' ""`, ['', '']],
  [`'it'\\''s'`, [`it's`]],
  [`"say \\"hi\\""`, ['say "hi"']],
  [`"back\\\\slash" 'back\\slash'`, ['back\\slash', 'back\\slash']],
  [`"a\\b"`, ['a\\b']],
  [`one\\ word`, ['one word']],
  ['a\\\nb', ['ab']],
  ['--rps 2 \\\n  --probe x', ['--rps', '2', '--probe', 'x']],
  ['"two\nlines"', ['two\nlines']],
  [`--grep 'a|b' --probe 'x;y'`, ['--grep', 'a|b', '--probe', 'x;y']],
];

/** Lines whose words stay as written here, where sh would expand them. */
const NOT_EXPANDED: [string, string[]][] = [
  ['$HOME "${PATH}" $(id) `id` ~ * ?.ts', ['$HOME', '${PATH}', '$(id)', '`id`', '~', '*', '?.ts']],
  ['# not a comment', ['#', 'not', 'a', 'comment']],
];

test.describe('shellWords', () => {
  for (const [line, words] of CASES)
    test(`${JSON.stringify(line)} is ${JSON.stringify(words)}, as bash splits it`, () => {
      expect(shellWords(line)).toEqual(words);
      const bash = spawnSync('bash', ['--noprofile', '--norc', '-c', `printf '%s\\0' ${line}`], {
        encoding: 'utf8',
        env: {},
      });
      const expected = words.length === 0 ? [''] : words; // printf with no word prints one
      expect(bash.stdout.split('\0').slice(0, -1)).toEqual(expected);
    });

  for (const [line, words] of NOT_EXPANDED)
    test(`${JSON.stringify(line)} expands nothing`, () => {
      expect(shellWords(line)).toEqual(words);
    });

  for (const [line, message] of [
    [`--header 'X: y`, "an unclosed ' starting at character 10"],
    [`"open`, 'an unclosed " starting at character 1'],
    [`"esc\\"`, 'an unclosed " starting at character 1'],
    ['trailing\\', 'a lone \\ at the end'],
  ] as const)
    test(`${JSON.stringify(line)} is refused: ${message}`, () => {
      expect(() => shellWords(line)).toThrow(ShellWordsError);
      expect(() => shellWords(line)).toThrow(message);
    });
});

test.describe('actionOutputs', () => {
  test('the exit status, and the verdict, counts and paths of the record in the reports directory', () => {
    const work = temporaryDirectory('payflow-action-out-');
    const dir = join(work, 'out');
    mkdirSync(dir);
    const counts = {
      MUST: { passed: 20, failed: 2, warned: 0, waived: 1, 'not-exercised': 12, 'not-selected': 0 },
      SHOULD: { passed: 5, failed: 0, warned: 3, waived: 0, 'not-exercised': 1, 'not-selected': 0 },
    };
    writeFileSync(join(dir, 'conformance.json'), JSON.stringify({ verdict: 'fail', counts }));
    expect(actionOutputs(1, dir)).toEqual({
      'exit-status': '1',
      verdict: 'fail',
      passed: '25',
      failed: '2',
      warned: '3',
      'not-exercised': '13',
      'must-failed': '2',
      'must-not-exercised': '12',
      report: join(dir, 'conformance.html'),
      record: join(dir, 'conformance.json'),
    });
  });

  test('no record (a configuration error): the exit status and an empty verdict', () => {
    const work = temporaryDirectory('payflow-action-out-');
    expect(actionOutputs(2, join(work, 'reports'))).toEqual({ 'exit-status': '2', verdict: '' });
  });

  test('as $GITHUB_OUTPUT lines, one per output, no value breaking its line', () => {
    expect(outputLines({ 'exit-status': '0', report: 'a\nb' })).toBe('exit-status=0\nreport=a b\n');
  });
});

test.describe('the report input', () => {
  test('is passed as --report with json added, which the outputs are read from; empty is every report', () => {
    expect(actionReports('')).toBe('');
    expect(actionReports('  ')).toBe('');
    expect(actionReports('html')).toBe('html,json');
    expect(actionReports('junit,har')).toBe('junit,har,json');
    expect(actionReports('html, JSON')).toBe('html, JSON');
    // A name the command does not know is the command's to refuse (exit 2, naming the known ones).
    expect(actionReports('pdf')).toBe('pdf,json');
  });

  test('args may not choose the reports: a --report there is refused', () => {
    expect(argsRefusal(['--probe', 'known-counterparty'])).toBeUndefined();
    expect(argsRefusal(['--header', 'X-Report: --report'])).toBeUndefined();
    for (const words of [['--report', 'html'], ['--report=html']])
      expect(argsRefusal(words), words.join(' ')).toContain('the args input may not hold --report');
  });
});
