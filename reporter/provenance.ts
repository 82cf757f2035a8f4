/**
 * Where a finding comes from, named with the file that defines each judge and sender (read from
 * the catalogs: no oracle or probe is loaded), for every renderer and the check's own error.
 */
import type { Finding } from '../engine/types.ts';
import { oracleFileOf } from '../oracles/described.ts';
import { probeFileOf } from '../probes/described.ts';
import { roleLabel } from './sentences.ts';

/** "oracle x (oracles/x.ts)" or "probe y (probes/z.ts)": one hop from a report line to the code. */
export function judgeName(id: string): string {
  const oracle = oracleFileOf(id);
  if (oracle) return `oracle ${id} (${oracle})`;
  const probe = probeFileOf(id);
  return probe ? `probe ${id} (${probe})` : id;
}

/** Who judged a finding and who sent the exchange it rests on, in one line. */
export function provenance(f: Finding & { probe?: string }): string {
  if (f.harEntry !== undefined)
    return `judged by ${judgeName(f.judgedBy)}, on HAR entry ${f.harEntry} (log.entries[${f.harEntry}])`;
  if (f.proxied !== undefined) return `judged by ${judgeName(f.judgedBy)}, on proxied exchange ${f.proxied}`;
  const sent = f.sentBy ?? f.probe;
  // A role is a phrase of any kind ("PATCH", "the plain reference", "with the valid token …"):
  // it is quoted as the exchange's label, never fitted into the sentence.
  const exchange = f.role ? `the exchange ${roleLabel(f.role)}` : 'an exchange';
  if (!sent) return `judged by ${judgeName(f.judgedBy)}`;
  if (sent === f.judgedBy) return `judged by ${judgeName(f.judgedBy)}, on ${exchange} it sent`;
  return `judged by ${judgeName(f.judgedBy)}, on ${exchange} sent by ${judgeName(sent)}`;
}
