/**
 * What the run's answers say about the user's setup rather than about the deployment. When no
 * request sent with API_TOKEN succeeded and most of them were refused (401, or 403), the checks
 * that needed the token fail as if the deployment broke its interface; the cause is almost always
 * the token, so the summary and the reports say so. "Most", not "all": a request the deployment
 * cannot route (a reference holding a raw slash) is answered 404 before any token is looked at.
 */
import type { ProbeOutcome } from '../engine/types.ts';
import type { TokenAnswers } from '../transport/client.ts';

/** The lines of advice for a run with these outcomes (empty: nothing to say). */
export function setupHints(outcomes: readonly Pick<ProbeOutcome, 'tokenAnswers'>[]): string[] {
  const t: TokenAnswers = { answered: 0, succeeded: 0, unauthorized: 0, forbidden: 0 };
  for (const o of outcomes) {
    t.answered += o.tokenAnswers?.answered ?? 0;
    t.succeeded += o.tokenAnswers?.succeeded ?? 0;
    t.unauthorized += o.tokenAnswers?.unauthorized ?? 0;
    t.forbidden += o.tokenAnswers?.forbidden ?? 0;
  }
  const refused = t.unauthorized + t.forbidden;
  if (t.succeeded > 0 || refused === 0 || refused * 2 < t.answered) return [];
  const status = t.forbidden === 0 ? '401' : t.unauthorized === 0 ? '403' : '401 or 403';
  const cause =
    t.forbidden === 0
      ? 'API_TOKEN looks wrong or expired'
      : t.unauthorized === 0
        ? 'API_TOKEN is refused; it may lack the permissions the suite needs'
        : 'API_TOKEN looks wrong, expired or without the permissions the suite needs';
  const what =
    refused === t.answered
      ? `every request sent with API_TOKEN (${t.answered}) was answered ${status}`
      : `no request sent with API_TOKEN succeeded, and ${refused} of ${t.answered} were answered ${status}`;
  return [`${what}: ${cause}`];
}
