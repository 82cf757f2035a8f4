/**
 * The report formats, listed once (REPORT_WRITERS). A writer has the name `--report` chooses it
 * by, the files it writes (relative to the reports directory), one line saying what it is (for
 * --help and the generated table of docs/reports-and-gate.md), where its content comes from
 * (which says which command writes it), and how it renders its files from the run's record.
 * Every other list of report files derives from this one: the paths a command checks before it
 * starts and replaces at its end (reportPaths), the console's "Reports:" line (the files written),
 * the outputs of `validate`, the Action's outputs, the docs' table. write-reports.ts writes the
 * chosen writers through one path, each apart, so that one that fails loses no other.
 *
 * A renderer is loaded when its report is written (a dynamic import), not with this list: the
 * command's process reads the list to check `--report` and the paths, and loads no renderer
 * (tests/self/catalogs.spec.ts).
 */
import { ConfigError } from '../config/error.ts';
import type { SecretInput } from '../exchange/redactors.ts';
import type { ConformanceRecord } from './record.ts';

/** What the writers write from. */
export interface ReportContent {
  /** The run's record, every secret redacted (reporter/build-record.ts). */
  record: ConformanceRecord;
  /** The traffic as a HAR file's text (exchange/har-file.ts); absent when the command has none to write. */
  har?: string;
  /**
   * The secrets the HAR file's text was redacted with as it was built, if it was (a run's, entry
   * by entry as each check ended: reporter/traffic-digest.ts). When they are the ones the reports
   * are written with, it is written as it is rather than searched a second time.
   */
  harRedactedWith?: readonly SecretInput[];
}

/**
 * Where a report's content comes from, and so which commands write it:
 *   - record: the run's record, which every command builds (run, merge, validate);
 *   - traffic: the traffic the suite sent or proxied (run, merge, validate --proxy; a validation
 *     of a HAR file writes none: the file is its input);
 *   - playwright: Playwright's own reporter, which playwright.config.ts configures (run, merge).
 */
export type ReportSource = 'record' | 'traffic' | 'playwright';

/** The commands that write a report of each source, as --help and the docs say it. */
export const SOURCE_COMMANDS: Record<ReportSource, string> = {
  record: 'run, merge, validate',
  traffic: 'run, merge, validate --proxy',
  playwright: 'run, merge',
};

export interface ReportWriter {
  /** What `--report` names it by. */
  readonly name: string;
  /** The files it writes, relative to the reports directory. */
  readonly files: readonly string[];
  /** What it is, in one line. */
  readonly about: string;
  readonly source: ReportSource;
  /**
   * The text of each of its files, in the order of `files`, each in pieces that are redacted and
   * written one after another; none when the content holds nothing for it. Absent for a report
   * another reporter writes (Playwright's), which is only listed here, for its paths and for
   * `--report`.
   */
  readonly render?: (content: ReportContent) => Promise<readonly Iterable<string>[]>;
  /** The secrets its text was redacted with already, if it was (write-reports.ts redacts it otherwise). */
  readonly redactedWith?: (content: ReportContent) => readonly SecretInput[] | undefined;
}

/** Playwright's HTML report, a directory of the set. */
export const PLAYWRIGHT_REPORT_DIR = 'playwright';

/** The HAR file is redacted in pieces of about this many characters, cut after a line. */
const HAR_PIECE_CHARS = 1024 * 1024;

/**
 * The HAR file's text in pieces cut after a line. It may be a hundred MiB and more: the redaction
 * (which decodes what it reads) then holds one piece, not the whole again. A JSON string holds no
 * raw line break, so no secret spans two pieces.
 */
export function* linePieces(text: string, pieceChars = HAR_PIECE_CHARS): Generator<string> {
  for (let at = 0; at < text.length;) {
    const cut = text.indexOf('\n', Math.min(text.length, at + pieceChars));
    const end = cut === -1 ? text.length : cut + 1;
    yield text.slice(at, end);
    at = end;
  }
}

/** Every report format, in the order the console lists their files. */
export const REPORT_WRITERS = [
  {
    name: 'html',
    files: ['conformance.html'],
    about: 'one self-contained page: the verdict, the evidence of every failure, every requirement',
    source: 'record',
    render: async ({ record }) => [[(await import('./html.ts')).renderHtml(record)]],
  },
  {
    name: 'json',
    files: ['conformance.json'],
    about: 'the machine-readable record (reporter/conformance-record.schema.json)',
    source: 'record',
    render: async ({ record }) => [[`${JSON.stringify(record, null, 2)}\n`]],
  },
  {
    name: 'junit',
    files: ['junit.xml'],
    about: 'one test case per requirement, one suite per section of interface.md',
    source: 'record',
    render: async ({ record }) => [[(await import('./junit.ts')).renderJunit(record)]],
  },
  {
    name: 'har',
    files: ['exchanges.har'],
    about: 'every exchange as HAR 1.2, the token redacted; `validate` reads it',
    source: 'traffic',
    render: async ({ har }) => (har === undefined ? [] : [linePieces(har)]),
    redactedWith: ({ harRedactedWith }) => harRedactedWith,
  },
  {
    name: 'playwright',
    files: [`${PLAYWRIGHT_REPORT_DIR}/index.html`],
    about: "Playwright's own HTML report, one test per probe",
    source: 'playwright',
  },
] as const satisfies readonly ReportWriter[];

/** The name of a report format. */
export type ReportName = (typeof REPORT_WRITERS)[number]['name'];

/** Every report format's name, in the list's order. */
export const REPORT_NAMES: readonly ReportName[] = REPORT_WRITERS.map((w) => w.name);

/** The writer named `name`. */
export function writerNamed(name: ReportName): ReportWriter {
  return REPORT_WRITERS.find((w) => w.name === name)!;
}

/** The record's file (conformance.json): what the Action reads its outputs from. */
export const RECORD_FILE = writerNamed('json').files[0]!;
/** The page's file (conformance.html). */
export const PAGE_FILE = writerNamed('html').files[0]!;

/** Where the choice of reports is made, for its errors. */
const CHOICE = '--report, CONFORMANCE_REPORT';

/**
 * The writers of the formats `names` chooses (null: every one), in the list's order. An unknown
 * name is a ConfigError (exit 2) naming the known ones.
 */
export function chosenWriters(names: readonly string[] | null): ReportWriter[] {
  if (names === null) return [...REPORT_WRITERS];
  for (const name of names)
    if (!(REPORT_NAMES as readonly string[]).includes(name))
      throw new ConfigError(
        `unknown report '${name}' (${CHOICE}); known reports: ${REPORT_NAMES.join(', ')}`,
      );
  return REPORT_WRITERS.filter((w) => names.includes(w.name));
}

/**
 * The report formats a comma-separated value names (`html,json`): null when it is unset or empty
 * (every format). Names are checked by chosenWriters.
 */
export function parseReportNames(value: string | undefined): string[] | null {
  if (value === undefined || value.trim() === '') return null;
  const names = value.split(',').map((n) => n.trim().toLowerCase());
  if (names.some((n) => n === ''))
    throw new ConfigError(
      `an empty name in '${value}' (${CHOICE}): give report names separated by commas, e.g. html,json`,
    );
  return [...new Set(names)];
}

/** The files `writers` write from the content of `sources`, relative to the reports directory. */
export function reportPaths(writers: readonly ReportWriter[], sources: readonly ReportSource[]): string[] {
  return writers.filter((w) => sources.includes(w.source)).flatMap((w) => [...w.files]);
}

/** Every source: what a run and a merge write from. */
export const RUN_SOURCES: readonly ReportSource[] = ['record', 'traffic', 'playwright'];
