import type { PolitenessReport } from '../transport/limiter.ts';

/** One line on the pace a run kept: its effective rate, what was in flight, and the back-offs. */
export function paceLine(pace: PolitenessReport): string {
  const kind = pace.adaptive ? 'adaptive' : 'fixed limits';
  const backoffs = pace.backoffs.length;
  const reasons = [...new Set(pace.backoffs.map((b) => b.reason))].join(', ');
  return (
    `${pace.effectiveRps.toFixed(1)} requests/s while sending (${kind}), at most ${pace.maxInFlight} in flight; ` +
    (backoffs === 0 ? 'no back-off' : `${backoffs} back-off(s) (${reasons}): see the report`)
  );
}
