/**
 * npm run mutation:triage: reads the last run's reports/mutation/mutation.json and the triage
 * (mutation/triage.yaml), prints the figures and the score over the mutants not triaged as
 * equivalent or silent, and fails (exit 1) when a mutant the suite did not detect has no triage
 * entry, when a killed-now entry's mutant still survives, or when the score is under 90 %.
 * For each untriaged mutant it prints an entry to fill in. Exit 2: no report (run npm run
 * mutation first) or a malformed triage file.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GALLERY, CLEAN_GALLERY } from '../servers/gallery/index.ts';
import {
  entryTemplate,
  loadTriage,
  summarize,
  triageProblems,
  type MutationReport,
  type ScoreSummary,
} from './triage.ts';

export const ROOT = join(import.meta.dirname, '..');
export const REPORT = join(ROOT, 'reports', 'mutation', 'mutation.json');
export const RUN_RECORD = join(ROOT, 'reports', 'mutation', 'run.json');
export const TRIAGE = join(ROOT, 'mutation', 'triage.yaml');
export const INTERFACE = join(ROOT, '..', 'shared', 'interface.md');
/**
 * The last recorded run's figures, kept in the repository (reports/ is not): npm run mutation
 * writes it, npm run bench and the README quote it.
 */
export const SCORE_RECORD = join(ROOT, 'mutation', 'score.json');

/** What mutation/score.json holds. */
export interface ScoreRecord {
  startedAt: string;
  commit: string;
  dirty: boolean;
  wallMs: number;
  args: string[];
  total: number;
  byStatus: Record<string, number>;
  equivalentOrSilent: number;
  missed: number;
  untriaged: number;
  /** Over the mutants not triaged equivalent or silent, in percent. */
  score: number;
  strykerScore: number;
  shouldOnly: number;
}

export function scoreRecord(summary: ScoreSummary, record: RunRecord): ScoreRecord {
  return {
    startedAt: record.startedAt,
    commit: record.commit,
    dirty: record.dirty,
    wallMs: record.wallMs,
    args: record.args,
    total: summary.total,
    byStatus: summary.byStatus,
    equivalentOrSilent: summary.equivalent.length,
    missed: summary.missed.length,
    untriaged: summary.untriaged.length,
    score: Math.round(summary.score * 100) / 100,
    strykerScore: Math.round(summary.strykerScore * 100) / 100,
    shouldOnly: summary.shouldOnly,
  };
}

/** The last recorded score, or undefined when none was recorded. */
export function lastScore(): ScoreRecord | undefined {
  return existsSync(SCORE_RECORD)
    ? (JSON.parse(readFileSync(SCORE_RECORD, 'utf8')) as ScoreRecord)
    : undefined;
}
/** The least score over non-equivalent mutants the project holds itself to. */
export const MIN_SCORE = 90;

/** What npm run mutation records beside the report (mutation/run.ts). */
export interface RunRecord {
  commit: string;
  dirty: boolean;
  startedAt: string;
  wallMs: number;
  args: string[];
  exitCode: number | null;
}

export function galleryIds(): Set<string> {
  return new Set([...GALLERY, ...CLEAN_GALLERY].map((v) => v.id));
}

/** The summary of the last run, or undefined when there is no report. */
export function lastRun(): { summary: ScoreSummary; record?: RunRecord } | undefined {
  if (!existsSync(REPORT)) return undefined;
  const report = JSON.parse(readFileSync(REPORT, 'utf8')) as MutationReport;
  const summary = summarize(report, loadTriage(TRIAGE));
  const record = existsSync(RUN_RECORD)
    ? (JSON.parse(readFileSync(RUN_RECORD, 'utf8')) as RunRecord)
    : undefined;
  return { summary, ...(record ? { record } : {}) };
}

/** The figures in a few lines. */
export function describe(summary: ScoreSummary, record?: RunRecord): string[] {
  const s = summary.byStatus;
  const lines = [
    `${summary.total} mutants: ${s.Killed ?? 0} killed, ${s.Timeout ?? 0} timed out, ${s.Survived ?? 0} survived, ${s.NoCoverage ?? 0} no coverage` +
      (s.RuntimeError || s.CompileError || s.Ignored
        ? `, ${s.RuntimeError ?? 0} runtime errors, ${s.CompileError ?? 0} compile errors, ${s.Ignored ?? 0} ignored`
        : ''),
    `${summary.equivalent.length} triaged equivalent or silent, ${summary.missed.length} triaged missed (open blind spots); ${summary.shouldOnly} detected by a SHOULD warning alone`,
    `score over non-equivalent mutants: ${summary.score.toFixed(2)} % (Stryker's score over all: ${summary.strykerScore.toFixed(2)} %)`,
  ];
  if (record)
    lines.push(
      `run: commit ${record.commit.slice(0, 12)}${record.dirty ? ' (uncommitted changes)' : ''}, ${record.startedAt}, ${(record.wallMs / 60000).toFixed(1)} min wall`,
    );
  return lines;
}

function main(): number {
  // Beside a clone (CI on GitHub) ../shared may be absent: the quotes are then not checked here
  // (npm test checks them where the document is).
  const interfaceText = existsSync(INTERFACE) ? readFileSync(INTERFACE, 'utf8') : undefined;
  if (interfaceText === undefined) console.log(`${INTERFACE} not found: the triage's quotes are not checked`);
  const entries = loadTriage(TRIAGE);
  const problems = triageProblems(entries, galleryIds(), interfaceText);
  if (problems.length > 0) {
    console.error(`mutation/triage.yaml is malformed:\n  ${problems.join('\n  ')}`);
    return 2;
  }
  const run = lastRun();
  if (!run) {
    console.error(`No ${REPORT}: run npm run mutation first.`);
    return 2;
  }
  const { summary, record } = run;
  for (const line of describe(summary, record)) console.log(line);
  // --record (npm run mutation passes it): keep the figures in mutation/score.json.
  if (process.argv.includes('--record') && record) {
    writeFileSync(SCORE_RECORD, `${JSON.stringify(scoreRecord(summary, record), null, 2)}\n`);
    console.log(`recorded in ${SCORE_RECORD}`);
  }
  let failed = false;
  if (summary.untriaged.length > 0) {
    failed = true;
    console.log(`\n${summary.untriaged.length} mutant(s) the suite did not detect have no triage entry:`);
    for (const r of summary.untriaged) console.log(entryTemplate(r));
  }
  if (summary.claimedKilled.length > 0) {
    failed = true;
    console.log(`\n${summary.claimedKilled.length} mutant(s) triaged killed-now still go undetected:`);
    for (const r of summary.claimedKilled)
      console.log(
        `  ${r.file}:${r.line} ${r.mutator} ${r.original} -> ${r.replacement} (${r.entry!.variant})`,
      );
  }
  if (summary.contradicted.length > 0) {
    console.log(
      `\n${summary.contradicted.length} mutant(s) triaged equivalent or silent are detected: re-read the entry (or the check that detects it):`,
    );
    for (const r of summary.contradicted)
      console.log(`  ${r.file}:${r.line} ${r.mutator} ${r.original} -> ${r.replacement}`);
  }
  if (summary.stale.length > 0) {
    console.log(
      `\n${summary.stale.length} triage entr(ies) match no mutant of this report (the code moved on, or a partial run):`,
    );
    for (const e of summary.stale)
      console.log(`  ${e.file} ${e.in} ${e.mutator} ${e.original} -> ${e.replacement}`);
  }
  if (summary.score < MIN_SCORE) {
    failed = true;
    console.log(`\nThe score over non-equivalent mutants is under ${MIN_SCORE} %.`);
  }
  return failed ? 1 : 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.exitCode = main();
