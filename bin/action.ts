/**
 * The scripts of the GitHub Action (action.yml), run by its run step with the built package
 * (dist/bin/action.js), so that no input is ever spliced into shell code and the logic is tested
 * (tests/self/action-scripts.spec.ts):
 *
 *   action.js args <line> <file>
 *                       writes the words of <line> (the args input; bin/shell-words.ts) into
 *                       <file>, each ended by a NUL, for bash's `read -d ''`; an unclosed quote, or
 *                       a --report (the report input chooses the reports), is exit 2 with an
 *                       ::error:: line
 *   action.js report <list>
 *                       prints the --report value of the run: the report input, with json added
 *                       (the outputs are read from conformance.json); empty: every report
 *   action.js outputs <status>
 *                       appends the step's outputs to $GITHUB_OUTPUT: the suite's exit status and,
 *                       from the run's conformance.json in INPUT_REPORTS_DIR (when it was written),
 *                       the verdict, the counts and the report paths
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConformanceRecord } from '../reporter/record.ts';
import { PAGE_FILE, RECORD_FILE } from '../reporter/writers.ts';
import { isEntryPoint } from './entry-point.ts';
import { shellWords, ShellWordsError } from './shell-words.ts';

/** The Action's outputs of a run that ended with `status`, its record read from `reportsDir`. */
export function actionOutputs(status: number, reportsDir: string): Record<string, string> {
  const dir = reportsDir === '' ? 'reports' : reportsDir;
  const record = join(dir, RECORD_FILE);
  const out: Record<string, string> = { 'exit-status': String(status) };
  if (!existsSync(record)) return { ...out, verdict: '' };
  const r = JSON.parse(readFileSync(record, 'utf8')) as ConformanceRecord;
  const sum = (status: 'passed' | 'failed' | 'warned' | 'not-exercised'): number =>
    (r.counts.MUST[status] ?? 0) + (r.counts.SHOULD[status] ?? 0);
  return {
    ...out,
    verdict: r.verdict,
    passed: String(sum('passed')),
    failed: String(sum('failed')),
    warned: String(sum('warned')),
    'not-exercised': String(sum('not-exercised')),
    'must-failed': String(r.counts.MUST.failed ?? 0),
    'must-not-exercised': String(r.counts.MUST['not-exercised'] ?? 0),
    report: join(dir, PAGE_FILE),
    record,
  };
}

/**
 * The --report value of the Action's run for its report input: the input with json added, since
 * the step's outputs are read from conformance.json; empty (every report) as it is. A name the
 * command does not know is left for it to refuse (exit 2, naming the known ones).
 */
export function actionReports(input: string): string {
  if (input.trim() === '') return '';
  const names = input.split(',').map((n) => n.trim().toLowerCase());
  return names.includes('json') ? input : `${input},json`;
}

/** Why the words of the args input cannot be passed on, or undefined: a --report in them. */
export function argsRefusal(words: readonly string[]): string | undefined {
  return words.some((w) => w === '--report' || w.startsWith('--report='))
    ? 'the args input may not hold --report: give the reports in the report input, which always adds json (the outputs are read from conformance.json)'
    : undefined;
}

/** `name=value` lines for $GITHUB_OUTPUT (no value holds a line break: they are numbers and paths). */
export function outputLines(outputs: Record<string, string>): string {
  return Object.entries(outputs)
    .map(([name, value]) => `${name}=${value.replace(/[\r\n]/g, ' ')}\n`)
    .join('');
}

function main(argv: readonly string[]): number {
  const [command, ...rest] = argv;
  if (command === 'args' && rest.length === 2) {
    try {
      const words = shellWords(rest[0]!);
      const refusal = argsRefusal(words);
      if (refusal !== undefined) {
        console.log(`::error::${refusal}`);
        return 2;
      }
      writeFileSync(rest[1]!, words.map((w) => `${w}\0`).join(''));
      return 0;
    } catch (error) {
      if (!(error instanceof ShellWordsError)) throw error;
      console.log(`::error::the args input is not a shell-quoted list: ${error.message}`);
      return 2;
    }
  }
  if (command === 'report' && rest.length === 1) {
    console.log(actionReports(rest[0]!));
    return 0;
  }
  if (command === 'outputs' && rest.length === 1 && /^\d+$/.test(rest[0]!)) {
    const file = process.env.GITHUB_OUTPUT;
    const lines = outputLines(actionOutputs(Number(rest[0]), process.env.INPUT_REPORTS_DIR ?? 'reports'));
    if (file) appendFileSync(file, lines);
    else process.stdout.write(lines);
    return 0;
  }
  console.error(
    'usage: action.js args <line> <file> | action.js report <list> | action.js outputs <exit status>',
  );
  return 2;
}

if (isEntryPoint(import.meta.url)) process.exitCode = main(process.argv.slice(2));
