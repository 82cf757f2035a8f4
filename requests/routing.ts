/**
 * Requests to the interface that target no documented operation. The document lists fourteen
 * operations and says others exist whose paths it does not show (counterparty creation and
 * listing, payout links, accounts): so a path below /api/v1/ that matches none of the listed
 * ones, or a listed path with a method it does not list, is not invalid but undetermined. The
 * target still says how a deployment with nothing there would answer (404, 405).
 *
 * A counterparty reference with a raw slash is no such case: §4.1 settles it as a routing
 * failure (path.ts holds that rule).
 */
import { Q } from './quotes.ts';
import { BASE_URL, SAMPLE_TOKEN } from './samples.ts';
import type { OpenPoint } from './types.ts';
import type { Family } from './view.ts';

export const PATH_NOT_DOCUMENTED: OpenPoint = {
  id: 'route-path-not-documented',
  where: { in: 'path', name: '(path)' },
  operations: [],
  statement:
    'A path below /api/v1/ that no listed operation has: a 404 where nothing lives there, but the document does not show every path, so the model cannot say the request is wrong.',
  quotes: [Q.notShown43, Q.otherOperations],
};

export const METHOD_NOT_DOCUMENTED: OpenPoint = {
  id: 'route-method-not-documented',
  where: { in: 'path', name: '(method)' },
  operations: [],
  statement:
    'A listed path with a method the document does not list for it (405 where the deployment has nothing else there; HEAD of a GET path is a GET without content, RFC 9110 §9.3.2): undocumented, not wrong.',
  quotes: [Q.notShown43, Q.otherOperations],
};

const auth = { Authorization: `Bearer ${SAMPLE_TOKEN}` };

export const ROUTING: Family = {
  name: 'routing',
  rules: [],
  open: [PATH_NOT_DOCUMENTED, METHOD_NOT_DOCUMENTED],
  judge(view, sink) {
    const t = view.target;
    if (t.kind === 'undocumented-path')
      sink.open(PATH_NOT_DOCUMENTED, 'path', `${view.method} of a path no listed operation has`);
    else if (t.kind === 'undocumented-method')
      sink.open(
        METHOD_NOT_DOCUMENTED,
        'method',
        `${view.method} is not listed for this path (listed: ${t.allowed.join(', ')})`,
      );
  },
  cases: () => [],
  openCases: () => [
    {
      point: PATH_NOT_DOCUMENTED.id,
      request: { method: 'POST', url: `${BASE_URL}/api/v1/counterparties`, headers: auth },
    },
    {
      point: METHOD_NOT_DOCUMENTED.id,
      request: { method: 'DELETE', url: `${BASE_URL}/api/v1/counterparties/ACME-0001`, headers: auth },
    },
  ],
};
