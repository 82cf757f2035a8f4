/**
 * What is printed while traffic flows, before any report: one line per violation the validating
 * proxy judges, as it judges it (bin/validate.ts), so that a person watching the proxy sees a
 * violation when the client causes it, not only when the proxy stops; and, on a terminal, a line
 * rewritten in place while a probe runs long (LiveLine), so that a run is never silent for the
 * twenty seconds a long probe takes.
 */
import type { Finding } from '../engine/types.ts';
import { escapeControls } from '../exchange/escape.ts';
import { REQUIREMENTS } from '../spec/requirements.ts';

const LEVELS = new Map<string, string>(REQUIREMENTS.map((r) => [r.id, r.level]));

/** The path (and query) of a URL as sent; the text itself when it is no absolute URL. */
function pathOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.pathname}${u.search}`;
  } catch {
    return url;
  }
}

/**
 * One line for a finding: its level and requirement, the method and path of the request that
 * shows it and what it was answered, the exchange's number in the session, and what went wrong.
 * What came from the target is escaped: the line goes to a terminal.
 */
export function violationLine(f: Finding): string {
  const level = LEVELS.get(f.requirement) ?? '?';
  const request = f.request
    ? `${f.request.method} ${pathOf(f.request.url)}`
    : (f.context
        ?.at(-1)
        ?.request.replace(/^(\S+) (\S+)$/, (_, m: string, u: string) => `${m} ${pathOf(u)}`) ?? 'no request');
  const answered = f.status === undefined ? '' : f.status === 0 ? ' -> no answer' : ` -> ${f.status}`;
  const where = f.proxied !== undefined ? ` (exchange ${f.proxied})` : '';
  return escapeControls(`✗ ${level} ${f.requirement}: ${request}${answered}${where}: ${f.message}`);
}

/** What a probe running now has done so far (suite/live-progress.ts writes it from the worker). */
export interface ProbeProgress {
  probe: string;
  /** When it started (epoch ms). */
  startedAt: number;
  requests: number;
  findings: number;
}

/** How long a probe runs before its progress is shown: the short ones end first. */
export const LIVE_AFTER_MS = 2000;

/**
 * The progress of the probes that have run LIVE_AFTER_MS or more at `now`, on one line: each
 * probe's requests sent and findings so far, and for how long it has run; undefined when none has.
 */
export function progressText(running: readonly ProbeProgress[], now: number): string | undefined {
  const long = running
    .filter((p) => now - p.startedAt >= LIVE_AFTER_MS)
    .sort((a, b) => a.startedAt - b.startedAt || a.probe.localeCompare(b.probe));
  if (long.length === 0) return undefined;
  return `  … ${long
    .map(
      (p) =>
        `${p.probe}: ${p.requests} request(s), ${p.findings} finding(s) so far, ${Math.floor((now - p.startedAt) / 1000)} s`,
    )
    .join(' | ')}`;
}

/** Erases the terminal's current line (ECMA-48 EL 2). */
const ERASE_LINE = '\x1b[2K';

/**
 * The live progress line of a run on a terminal: tick() (on a timer) shows, or rewrites in place,
 * the progress of the probes running long; clear() erases it before any other line is printed.
 * Each write ends with a carriage return, so the cursor stays at the start of the line the next
 * write replaces (and a stream that passes lines through whole, as the CLI's redaction does,
 * passes it at once). Not on a terminal it writes nothing: a log or a pipe gets no rewritten line.
 */
export class LiveLine {
  private shown = false;

  constructor(
    private readonly options: {
      /** Whether the output is a terminal, and its width in columns (0: unknown). */
      tty: boolean;
      columns?: number;
      write: (text: string) => void;
      now: () => number;
      /** The probes running now. */
      read: () => readonly ProbeProgress[];
    },
  ) {}

  tick(): void {
    if (!this.options.tty) return;
    const text = progressText(this.options.read(), this.options.now());
    if (text === undefined) return this.clear();
    // One row: a line that wrapped could not be rewritten by a carriage return.
    const width = this.options.columns ?? 0;
    const fitted = width > 1 && text.length > width - 1 ? `${text.slice(0, width - 2)}…` : text;
    this.options.write(`${ERASE_LINE}${escapeControls(fitted)}\r`);
    this.shown = true;
  }

  clear(): void {
    if (!this.shown) return;
    this.options.write(`${ERASE_LINE}\r`);
    this.shown = false;
  }
}

/**
 * Set by the CLI for the Playwright processes of a run whose output is a terminal (bin/run-support.ts):
 * the terminal's width in columns. Its output reaches the terminal through the CLI's pipe, where
 * no process of the run can see that it is one. Absent: no live line.
 */
export const LIVE_PROGRESS_ENV = 'CONFORMANCE_LIVE_PROGRESS';

/** LIVE_PROGRESS_ENV for an output stream: its width when it is a terminal, nothing otherwise. */
export function liveProgressEnv(out: { isTTY?: boolean; columns?: number }): Record<string, string> {
  return out.isTTY === true ? { [LIVE_PROGRESS_ENV]: String(out.columns ?? 0) } : {};
}
