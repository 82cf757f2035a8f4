/**
 * Writes the chosen reports of a run (reporter/writers.ts) with every secret redacted, into a
 * staging directory whose files then replace the suite's own (reporter/report-set.ts), or straight
 * into the output directory. The one path by which the conformance reporter (a run, a merge), the
 * validator and the partial report of a run stopped before its start write reports.
 *
 * Each writer is kept apart, as Playwright's reporter multiplexer keeps its reporters: one that
 * throws (a fault of the suite's) loses no other. Its partial file is dropped, the others are
 * written and moved in, and the result names it with why, so that the command says so and exits 2
 * (a gate that passes without a report the user asked for must not look green). The previous set's
 * file of that name goes with the rest of the previous set: a stale report never stands beside a
 * new one. A disk that is full or read-only is not a writer's fault and no report would be safe on
 * it: a DiskError naming the output directory (reporter/disk-errors.ts), and nothing is moved in.
 */
import { closeSync, existsSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDirectory } from '../config/input-files.ts';
import { escapeControls } from '../exchange/escape.ts';
import { redactText, type SecretInput } from '../exchange/redactors.ts';
import { asDiskError, DiskError, reportsOutput } from './disk-errors.ts';
import { commitFiles } from './report-set.ts';
import { REPORT_WRITERS, type ReportContent, type ReportWriter } from './writers.ts';

/** A report that could not be written, and why (one line). */
export interface UnwrittenReport {
  name: string;
  files: readonly string[];
  error: string;
}

export interface WrittenReports {
  /** The files written, as paths in the output directory, in the writers' order. */
  written: string[];
  /** The chosen reports that could not be written. */
  unwritten: UnwrittenReport[];
}

export interface WriteOptions {
  outputDir: string;
  stagingDir?: string;
  secrets: readonly SecretInput[];
  /** The reports chosen (`--report`), in the list's order; default every one. */
  writers?: readonly ReportWriter[];
  /** Whether Playwright's own reporter wrote its report into the staging directory (a run, a merge). */
  playwright?: boolean;
  /** Files neither written over nor removed: the input of a validation. */
  protect?: readonly string[];
  /** Writes one file from its pieces (the self-tests inject a disk that fails, or a writer that throws). */
  writeFile?: (path: string, pieces: Iterable<string>) => void;
}

/** Writes each piece to the file, one after another. */
function writePieces(path: string, pieces: Iterable<string>): void {
  const fd = openSync(path, 'w');
  try {
    for (const piece of pieces) writeSync(fd, piece);
  } finally {
    closeSync(fd);
  }
}

/** The first line of what a writer threw, as the line that names it says it. */
function errorLine(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return escapeControls(text.split('\n')[0] ?? text);
}

export async function writeReports(content: ReportContent, options: WriteOptions): Promise<WrittenReports> {
  try {
    return await writeAll(content, options);
  } catch (error) {
    const out = reportsOutput(options.outputDir);
    throw asDiskError(error, out, `${out.holds} could not be written`);
  }
}

async function writeAll(content: ReportContent, options: WriteOptions): Promise<WrittenReports> {
  const dir = options.stagingDir ?? options.outputDir;
  const writeFile = options.writeFile ?? writePieces;
  const out = reportsOutput(options.outputDir);
  const result: WrittenReports = { written: [], unwritten: [] };
  ensureDirectory(dir, 'the reports directory');
  const writers: readonly ReportWriter[] = options.writers ?? REPORT_WRITERS;
  for (const writer of writers) {
    if (writer.source === 'traffic' && content.har === undefined) continue;
    if (writer.source === 'playwright') {
      if (!options.playwright) continue;
      const missing = writer.files.filter((f) => !existsSync(join(dir, f)));
      if (missing.length === 0) result.written.push(...writer.files.map((f) => join(options.outputDir, f)));
      else
        result.unwritten.push({
          name: writer.name,
          files: writer.files,
          error: `Playwright's reporter wrote no ${missing.join(', ')}`,
        });
      continue;
    }
    try {
      const texts = (await writer.render?.(content)) ?? [];
      const files = writer.files.slice(0, texts.length);
      const redacted = redactedAlready(writer.redactedWith?.(content), options.secrets);
      files.forEach((file, i) =>
        writeFile(join(dir, file), redacted ? texts[i]! : redactedPieces(texts[i]!, options.secrets)),
      );
      result.written.push(...files.map((file) => join(options.outputDir, file)));
    } catch (error) {
      // The disk's, not the writer's: no report is safe on it (see above).
      if (asDiskError(error, out) instanceof DiskError) throw error;
      for (const file of writer.files) rmSync(join(dir, file), { force: true });
      result.unwritten.push({
        name: writer.name,
        files: writer.files,
        error: redactText(errorLine(error), options.secrets),
      });
    }
  }
  // Every report chosen is written, or known not to be: they replace the previous set together.
  if (options.stagingDir)
    commitFiles(options.stagingDir, options.outputDir, { protect: options.protect ?? [] });
  return result;
}

/**
 * Whether a text redacted with `done` needs no more: `done` are the secrets the reports are
 * written with (the same list, so the same redactor: exchange/redactors.ts redactorOf).
 */
function redactedAlready(done: readonly SecretInput[] | undefined, secrets: readonly SecretInput[]): boolean {
  return done !== undefined && JSON.stringify(done) === JSON.stringify(secrets);
}

function* redactedPieces(pieces: Iterable<string>, secrets: readonly SecretInput[]): Generator<string> {
  for (const piece of pieces) yield redactText(piece, secrets);
}

/**
 * The one line a command says (and exits 2 with) when reports could not be written: which, and
 * why; the others were written.
 */
export function unwrittenLine(unwritten: readonly UnwrittenReport[]): string {
  const [one] = unwritten;
  const which =
    unwritten.length === 1 && one !== undefined
      ? `the ${one.name} report (${one.files.join(', ')}) was not written: ${one.error}`
      : `${unwritten.length} reports were not written: ${unwritten.map((u) => `${u.name} (${u.files.join(', ')}): ${u.error}`).join('; ')}`;
  return `${which}; every other report chosen was written`;
}
