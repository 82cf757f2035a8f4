/**
 * The replay line of a finding: every setting of the run but the token (target, references,
 * fixture, seed, runs, account budget, strictness, the limits that were set), the one probe that
 * sent the exchange it rests on, and, for a finding of a property, the one case that shows it
 * (`--case '<property>@<fast-check path>'`, engine/property.ts). Pasted into a shell with only
 * API_TOKEN set, it runs that probe alone and fails the same way; against a deployment it refuses
 * to run without API_TOKEN (exit 2). Each setting is written out, an empty one too, so a .env
 * where it is pasted cannot change the run. It runs as printed from the directory the run was
 * started from (the command as config/command.ts writes it), and writes its reports to a
 * directory of its own below the run's (reports/replay-<probe>-<case>/), never over them.
 */
import { commandPrefix } from '../config/command.ts';
import type { Finding } from '../engine/types.ts';
import { shellQuote } from '../exchange/curl.ts';

/**
 * The command a replay line runs: this copy of the suite's command as it runs from the directory
 * the run was started from (config/command.ts: `npx payflow-conformance` installed, `node
 * bin/payflow-conformance.mjs` in a clone), with `run`. `command`: the record's, when it has one.
 */
export function replayPrefix(command: string = commandPrefix(process.cwd())): string {
  return `${command} run`;
}

/** The reports directory of a replay, when the record does not say the run's (a record of an older run). */
const DEFAULT_REPORTS_DIR = 'reports';

/**
 * Where a replay writes its reports: a directory of its own below the run's reports directory,
 * named after what it replays (`replay-<probe>`, `replay-<probe>-<case path>`, `replay-seed-<n>`),
 * so that pasting the line never writes over the reports it was read from.
 */
export function replayReportsDir(runReportsDir: string | undefined, name: string): string {
  const base = runReportsDir === undefined || runReportsDir === '' ? DEFAULT_REPORTS_DIR : runReportsDir;
  const slug = name.replace(/[^A-Za-z0-9_.-]+/g, '-').replace(/^-+|-+$/g, '');
  return `${base.replace(/[\\/]+$/, '')}/replay-${slug}`;
}

/** The record's part a replay line is written from. */
export interface ReplaySource {
  seed: number;
  /** Every setting of the run but the token (run/resolve.ts), its reports directory among them. */
  settings?: Record<string, string>;
  /** The command that starts the suite from the run's directory (config/command.ts). */
  command?: string;
}

/**
 * The line that runs the whole run again, with its settings and seed, its reports written to
 * `replay-seed-<n>` below the run's.
 */
export function runReplayLine(record: ReplaySource): string {
  const settings = {
    ...(record.settings ?? { CONFORMANCE_SEED: String(record.seed) }),
    CONFORMANCE_REPORTS_DIR: replayReportsDir(
      record.settings?.CONFORMANCE_REPORTS_DIR,
      `seed-${record.seed}`,
    ),
  };
  return `${envAssignments(settings)} ${replayPrefix(record.command)}`;
}

/** A word of a shell line: as is when it is plain, quoted otherwise. */
function quote(value: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(value) ? value : shellQuote(value);
}

/** `NAME=value NAME=value`, each value quoted for the shell. */
export function envAssignments(settings: Readonly<Record<string, string>>): string {
  return Object.entries(settings)
    .map(([name, value]) => `${name}=${value === '' ? '' : quote(value)}`)
    .join(' ');
}

/**
 * The command that runs again the one probe (and case) that sent a finding's exchange, with the
 * run's settings; undefined for recorded traffic (a HAR file, a proxy), which is not the suite's
 * to replay. `settings` missing (a record of an older run): the seed alone.
 */
export function replayLine(record: ReplaySource, f: Finding & { probe?: string }): string | undefined {
  if (f.harEntry !== undefined || f.proxied !== undefined) return undefined;
  const probe = f.sentBy ?? f.probe;
  if (probe === undefined) return undefined;
  const seed = String(f.seed ?? record.seed);
  const oneCase = f.property !== undefined && f.path !== undefined;
  const settings = {
    ...(record.settings ?? {}),
    CONFORMANCE_SEED: seed,
    CONFORMANCE_REPORTS_DIR: replayReportsDir(
      record.settings?.CONFORMANCE_REPORTS_DIR,
      oneCase ? `${probe}-${f.path}` : probe,
    ),
  };
  const replayCase = oneCase ? ` --case ${quote(`${f.property}@${f.path}`)}` : '';
  return `${envAssignments(settings)} ${replayPrefix(record.command)} --probe ${probe}${replayCase}`;
}
