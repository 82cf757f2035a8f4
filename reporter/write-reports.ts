/**
 * Writes the report files of a record (conformance.json first, then conformance.html and
 * junit.xml, and the traffic as exchanges.har when given) with every secret redacted, into a
 * staging directory whose files then replace the suite's own (reporter/report-set.ts), or straight
 * into the output directory. Shared by the conformance reporter and the validator. A disk that
 * is full or read-only is a DiskError naming the output directory (reporter/disk-errors.ts).
 */
import { closeSync, existsSync, openSync, writeFileSync, writeSync } from 'node:fs';
import { ensureDirectory } from '../config/input-files.ts';
import { join } from 'node:path';
import { REPORT_FILES } from './files.ts';
import { renderHtml } from './html.ts';
import { renderJunit } from './junit.ts';
import { redactText, type SecretInput } from '../exchange/redactors.ts';
import { commitFiles, PLAYWRIGHT_REPORT_DIR } from './report-set.ts';
import { asDiskError, reportsOutput } from './disk-errors.ts';
import type { ConformanceRecord } from './summary.ts';

/** The HAR file is redacted in pieces of about this many characters, cut after a line. */
const PIECE_CHARS = 1024 * 1024;

export function writeReports(
  record: ConformanceRecord,
  options: {
    outputDir: string;
    stagingDir?: string;
    secrets: readonly SecretInput[];
    /** The traffic as a HAR file's text (exchange/har.ts). */
    har?: string;
    /** Files neither written over nor removed: the input of a validation. */
    protect?: readonly string[];
    /** Writes one file (the self-tests inject a disk that fails). */
    writeFile?: (path: string, text: string) => void;
  },
): string[] {
  try {
    return writeAll(record, options);
  } catch (error) {
    const out = reportsOutput(options.outputDir);
    throw asDiskError(error, out, `${out.holds} could not be written`);
  }
}

function writeAll(record: ConformanceRecord, options: Parameters<typeof writeReports>[1]): string[] {
  const dir = options.stagingDir ?? options.outputDir;
  const writeFile = options.writeFile ?? ((path: string, text: string) => writeFileSync(path, text));
  const write = (name: string, text: string): string => {
    writeFile(join(dir, name), redactText(text, options.secrets));
    return join(options.outputDir, name);
  };
  // The HAR file may be a hundred MiB and more: redacted and written a few lines at a time, so
  // that the redaction (which decodes what it reads) holds one piece of it, not the whole again.
  // A JSON string holds no raw line break, so no secret spans two lines.
  const writeLines = (name: string, text: string): string => {
    const fd = openSync(join(dir, name), 'w');
    try {
      for (let at = 0; at < text.length;) {
        const cut = text.indexOf('\n', Math.min(text.length, at + PIECE_CHARS));
        const end = cut === -1 ? text.length : cut + 1;
        writeSync(fd, redactText(text.slice(at, end), options.secrets));
        at = end;
      }
    } finally {
      closeSync(fd);
    }
    return join(options.outputDir, name);
  };
  ensureDirectory(dir, 'the reports directory');
  // The record first: the exit status is derived from it, whatever happens to the others.
  const json = write(REPORT_FILES.json, `${JSON.stringify(record, null, 2)}\n`);
  const written = [
    write(REPORT_FILES.html, renderHtml(record)),
    json,
    write(REPORT_FILES.junit, renderJunit(record)),
  ];
  if (options.har !== undefined) written.push(writeLines(REPORT_FILES.har, options.har));
  if (existsSync(join(dir, PLAYWRIGHT_REPORT_DIR, 'index.html')))
    written.push(join(options.outputDir, PLAYWRIGHT_REPORT_DIR, 'index.html'));
  // Every report is written: they replace the previous set together.
  if (options.stagingDir)
    commitFiles(options.stagingDir, options.outputDir, { protect: options.protect ?? [] });
  return written;
}
