/**
 * A file of probes/ and the probes it defines, as the registry (probes/index.ts) lists it. The
 * file's path is read from the module itself, so the "probe x (probes/y.ts)" of a report line
 * cannot drift from where x is defined.
 */
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Probe } from '../engine/probe-api.ts';

export interface ProbeFamily {
  /** The file, from the project's root: probes/<name>.ts. */
  readonly file: string;
  /** Its probes, in the order the suite runs them. */
  readonly probes: readonly Probe[];
}

/**
 * The probes of the module at `moduleUrl` (its import.meta.url). A compiled copy (probes/x.js)
 * names its source, probes/x.ts, which is what a reader of the report opens.
 */
export function family(moduleUrl: string, probes: readonly Probe[]): ProbeFamily {
  return { file: `probes/${basename(fileURLToPath(moduleUrl)).replace(/\.[cm]?js$/, '.ts')}`, probes };
}
