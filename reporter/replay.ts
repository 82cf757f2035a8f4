/**
 * The replay line of a finding: every setting of the run but the token (target, references,
 * fixture, seed, runs, account budget, strictness, the limits that were set), the one probe that
 * sent the exchange it rests on, and, for a finding of a property, the one case that shows it
 * (`--case '<property>@<fast-check path>'`, engine/property.ts). Pasted into a shell with only
 * API_TOKEN set, it runs that probe alone and fails the same way; against a deployment it refuses
 * to run without API_TOKEN (exit 2). Each setting is written out, an empty one too, so a .env
 * where it is pasted cannot change the run.
 */
import { COMMAND_SCRIPT } from '../config/layout.ts';
import type { Finding } from '../engine/types.ts';
import { shellQuote } from '../exchange/curl.ts';

/**
 * The command a replay line runs: this copy of the suite's command (config/layout.ts: the
 * package's compiled bin, or bin/payflow-conformance.mjs in a clone) with `run`, by its absolute
 * path, so the line works wherever it is pasted, from a clone or from an installed package alike.
 */
export function replayPrefix(script: string = COMMAND_SCRIPT): string {
  return `node ${quote(script)} run`;
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
export function replayLine(
  record: { seed: number; settings?: Record<string, string> },
  f: Finding & { probe?: string },
): string | undefined {
  if (f.harEntry !== undefined || f.proxied !== undefined) return undefined;
  const probe = f.sentBy ?? f.probe;
  if (probe === undefined) return undefined;
  const seed = String(f.seed ?? record.seed);
  const settings = { ...(record.settings ?? {}), CONFORMANCE_SEED: seed };
  const replayCase =
    f.property !== undefined && f.path !== undefined ? ` --case ${quote(`${f.property}@${f.path}`)}` : '';
  return `${envAssignments(settings)} ${replayPrefix()} --probe ${probe}${replayCase}`;
}
