/**
 * The sentences the reports make from a record's structured parts: how many findings of how many
 * causes, what one cause is, who judged a requirement on whose exchanges, and what an exchange
 * was for. Each part may be missing or plural, and each sentence is written for every
 * combination (tests/self/report-statements.spec.ts enumerates them), so that none reads with
 * a hole ("on the with the valid token …") or a "(s)". Renderers escape the result.
 */

/** "1 finding", "8 findings", "no finding". */
export function counted(n: number, noun: string, plural = `${noun}s`): string {
  return n === 0 ? `no ${noun}` : `${n} ${n === 1 ? noun : plural}`;
}

/** "a, b and c". */
export function listed(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]!}`;
}

/**
 * What an exchange was for in its probe, as a label: roles are phrases of every kind ("PATCH",
 * "read after PATCH", "the plain reference", "with the valid token under the scheme written
 * "bearer""), so a sentence quotes one rather than fitting it into its grammar.
 */
export function roleLabel(role: string): string {
  return `“${role}”`;
}

/** A requirement's findings in one phrase: "1 finding", "8 findings of one cause", "9 findings of 2 causes". */
export function findingsPhrase(findings: number, causes: number): string {
  if (findings <= 1 || causes === 0) return counted(findings, 'finding');
  return `${counted(findings, 'finding')} of ${causes === 1 ? 'one cause' : counted(causes, 'cause')}`;
}

/** One cause of findings: "8 times: getCounterparty answered 500", "once: getCounterparty got no answer". */
export function causeSentence(cause: { count: number; operation: string; status: number }): string {
  const times = cause.count === 1 ? 'Once' : cause.count === 2 ? 'Twice' : `${cause.count} times`;
  const answer = cause.status > 0 ? `answered ${cause.status}` : 'got no answer';
  return `${times}: ${cause.operation} ${answer}`;
}

/**
 * Who judged a requirement in the run and on whose exchanges. `oracles`: those that judge it;
 * `probes`: those whose exchanges were judged for it (engine/verdicts.ts judgingProbes); `traffic`:
 * the record judges traffic the suite did not send (no probe sent it).
 */
export function judgedSentence(parts: {
  judged: number;
  oracles: readonly string[];
  probes: readonly string[];
  traffic?: boolean;
}): string {
  if (parts.judged === 0) return 'Not judged in this run.';
  const by =
    parts.oracles.length > 0
      ? ` by ${parts.oracles.length === 1 ? 'oracle' : 'oracles'} ${listed(parts.oracles)}`
      : '';
  const on = parts.traffic
    ? ' on the traffic recorded'
    : parts.probes.length > 0
      ? ` on exchanges sent by ${parts.probes.length === 1 ? 'probe' : 'probes'} ${listed(parts.probes)}`
      : '';
  const senderJudged =
    parts.probes.length > 0 && !parts.traffic && parts.oracles.length === 0
      ? ` (judged by ${parts.probes.length === 1 ? 'that probe' : 'those probes'})`
      : '';
  return `${counted(parts.judged, 'judgement')}${by}${on}${senderJudged}.`;
}
