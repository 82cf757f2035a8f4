/**
 * A Playwright reporter that folds each check's outcome (attached to its test as JSON) into
 * requirement verdicts, writes reports/conformance.json and prints the summary. It reads only
 * attachments, so it works the same on merged shard reports.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { FullConfig, FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';
import type { CheckOutcome } from '../checks/types.ts';
import { buildRecord, formatSummary, type IncompleteCheck } from './summary.ts';

const OUTCOME_ATTACHMENT = 'conformance-outcome';

export interface ConformanceReporterOptions {
  outputFile?: string;
}

export default class ConformanceReporter implements Reporter {
  private readonly outcomes = new Map<string, CheckOutcome>();
  private readonly incomplete = new Map<string, IncompleteCheck>();
  private startedAt = new Date();
  private readonly outputFile: string;

  constructor(options: ConformanceReporterOptions = {}) {
    this.outputFile = resolve(options.outputFile ?? 'reports/conformance.json');
  }

  onBegin(_config: FullConfig): void {
    this.startedAt = new Date();
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const attachment = result.attachments.find((a) => a.name === OUTCOME_ATTACHMENT && a.body);
    if (attachment?.body) {
      this.outcomes.set(test.id, JSON.parse(attachment.body.toString('utf8')) as CheckOutcome);
      this.incomplete.delete(test.id);
    } else if (result.status !== 'passed' && result.status !== 'skipped') {
      const error = (result.error?.message ?? result.status).split('\n')[0] ?? result.status;
      this.incomplete.set(test.id, {
        test: test.title,
        error: `did not complete (${result.status}): ${error}`,
      });
    }
  }

  onEnd(result: FullResult): void {
    const record = buildRecord({
      outcomes: [...this.outcomes.values()],
      incomplete: [...this.incomplete.values()],
      env: process.env,
      startedAt: this.startedAt,
      durationMs: result.duration,
    });
    mkdirSync(dirname(this.outputFile), { recursive: true });
    writeFileSync(this.outputFile, `${JSON.stringify(record, null, 2)}\n`);
    console.log(formatSummary(record));
  }

  printsToStdio(): boolean {
    return true;
  }
}
