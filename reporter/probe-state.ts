/**
 * What a probe did in a run, in one state and one line, for every renderer (the progress line,
 * the report's table of probes): skipped, sent nothing (with why), could not complete, found
 * something, or sent its requests and found nothing. A probe that sent nothing is never shown as
 * a clean pass: it judged nothing.
 */
import type { ProbeOutcome } from '../engine/types.ts';
import { counted } from './sentences.ts';

export type ProbeState = 'skipped' | 'sent-nothing' | 'incomplete' | 'found' | 'clean';

type Outcome = Pick<
  ProbeOutcome,
  'status' | 'skipReason' | 'requests' | 'incomplete' | 'notApplicable' | 'notes'
> & { findings: readonly unknown[] | number };

/** The state of a probe's outcome; `incomplete`: why its check did not complete, when the outcome does not say. */
export function probeState(o: Outcome, incomplete?: string): ProbeState {
  if (o.status === 'skipped') return 'skipped';
  if (incomplete !== undefined || o.incomplete !== undefined) return 'incomplete';
  const findings = typeof o.findings === 'number' ? o.findings : o.findings.length;
  if (findings > 0) return 'found';
  return o.requests === 0 ? 'sent-nothing' : 'clean';
}

/**
 * Why a probe that ran sent nothing: what it could not judge and why (no ITEM_FIXTURES, ...),
 * else its notes, else that it gave no reason.
 */
export function whyNothingSent(o: Pick<ProbeOutcome, 'notApplicable' | 'notes'>): string {
  const reasons = [...new Set(o.notApplicable.map((n) => n.reason))];
  if (reasons.length > 0) return reasons.join('; ');
  if (o.notes.length > 0) return o.notes.join('; ');
  return 'the probe gave no reason';
}

/** The status of a probe as the report's table of probes says it. */
export function probeStatusText(o: Outcome & { findings: readonly unknown[] | number }): string {
  switch (probeState(o)) {
    case 'skipped':
      return `skipped: ${o.skipReason ?? 'no reason given'}`;
    case 'sent-nothing':
      return `sent nothing: ${whyNothingSent(o)}`;
    case 'incomplete':
      return `could not complete: ${o.incomplete ?? 'no reason given'}`;
    case 'found':
      return `ran, ${counted(typeof o.findings === 'number' ? o.findings : o.findings.length, 'finding')}`;
    case 'clean':
      return 'ran, no finding';
  }
}
