/**
 * What the document states between the fields of an added account (interface.md §2.3, §4.2),
 * and what it leaves inside them.
 *
 * Rules:
 * - country is required when accountType is BANK_ACCOUNT (§4.2's table; the spec's if/then, read
 *   from there): an account whose accountType is something else breaks that enum, not this.
 * - a branch identifier of type SORT goes with currency GBP, one of type ROUTING with USD: "each
 *   matched to the account currency" (§2.3) is a statement, so a MUST. The field that carries the
 *   type is not shown, so the type is recognised only where a top-level string member of the
 *   branch identifier is exactly SORT or ROUTING; otherwise the relation is not judged.
 *
 * Left open, never valid:
 * - the inner fields of accountIdentifier and branchIdentifier ("inner fields: not shown"), unless
 *   the caller vouches for the identifier (ModelOptions.knownAccounts: the suite's account
 *   fixture): a branch identifier counts as vouched only together with its account identifier;
 * - a recognised branch identifier on an account without a currency: what it is matched to is
 *   not in the request;
 * - an account country the request's pattern allows but the country list lacks (UK, the v1.1.0
 *   change note's code): §4.2 asks only for two capitals, §2.2 says the list is "used for ...
 *   account country", and a returned account must carry a listed one; the document does not
 *   settle which holds for a request, so neither valid nor broken (as the generators decide).
 *
 * Not asserted: that a SORT code has 6 digits or a ROUTING number 9 (where they are written is
 * not shown), any tie between an account's country and its currency (none is stated).
 */
import { spec } from '../spec/index.ts';
import { Q } from './quotes.ts';
import { bodyWith, patchRequest, sampleAt, SAMPLE_ACCOUNTS } from './samples.ts';
import { kebab, siteAt, walkInstance } from './schema-sites.ts';
import type { KnownAccount, OpenCase, OpenPoint, RequestRule, RuleCase } from './types.ts';
import type { Family } from './view.ts';
import { isObject, own, ownOf } from '../exchange/own.ts';
import { operationIdOf } from '../spec/operations.ts';

/** The PATCH of a counterparty, whose body schema the spec shows (§4.2). */
const PATCH = operationIdOf('counterparty', 'update');

const ITEM = ['counterpartyAccounts', '[]'];
const item = siteAt(ITEM)!.node;
const condition = (item.if ?? {}) as {
  properties?: Record<string, { const?: unknown }>;
  required?: string[];
};
const consequence = (item.then ?? {}) as { required?: string[] };

/** The if/then of an account item, as the spec writes it: which member, which value, what it needs. */
const WHEN = Object.entries(condition.properties ?? {}).map(([name, c]) => [name, c.const] as const);
const NEEDS = consequence.required ?? [];
if (WHEN.length !== 1 || NEEDS.length === 0)
  throw new Error('requests: the account item no longer has the one if/then relations.ts reads');
const [WHEN_NAME, WHEN_VALUE] = WHEN[0]!;

export const REQUIRED_WHEN: RequestRule = {
  id: `patch-account-${NEEDS.map(kebab).join('-')}-required-for-${kebab(String(WHEN_VALUE))}`,
  level: 'MUST',
  refusal: 'required',
  where: {
    in: 'relation',
    pointers: [`/counterpartyAccounts/*/${WHEN_NAME}`, ...NEEDS.map((n) => `/counterpartyAccounts/*/${n}`)],
  },
  operations: [PATCH],
  statement: `An account whose ${WHEN_NAME} is ${String(WHEN_VALUE)} carries ${NEEDS.join(', ')}.`,
  quotes: [Q.accountCountryRow, Q.accountTypeRow],
};

/** The branch identifier types the document names, and the currency each goes with (§2.3). */
export const BRANCH_CURRENCY: Readonly<Record<string, string>> = { SORT: 'GBP', ROUTING: 'USD' };

export const BRANCH_MATCHES_CURRENCY: RequestRule = {
  id: 'patch-account-branch-identifier-currency',
  level: 'MUST',
  refusal: 'required',
  where: {
    in: 'relation',
    pointers: ['/counterpartyAccounts/*/branchIdentifier', '/counterpartyAccounts/*/currency'],
  },
  operations: [PATCH],
  statement: 'A branch identifier of type SORT is on a GBP account, one of type ROUTING on a USD account.',
  quotes: [Q.branchRow, Q.branchRequestRow, Q.currencyRow],
  rationale:
    'Judged where the type is recognisable: a top-level string member of the branch identifier that is exactly SORT or ROUTING (the field that carries it is not shown).',
};

const open = (id: string, pointer: string, statement: string, quotes: OpenPoint['quotes']): OpenPoint => ({
  id,
  where: { in: 'body', pointer },
  operations: [PATCH],
  statement,
  quotes,
});

export const IDENTIFIER_NOT_SHOWN = open(
  'patch-account-identifier-not-shown',
  '/counterpartyAccounts/*/accountIdentifier',
  'An account identifier nobody vouched for: its inner fields are not shown, so whether it is one the deployment accepts is open.',
  [Q.accountIdentifierRow],
);
export const BRANCH_NOT_SHOWN = open(
  'patch-branch-identifier-not-shown',
  '/counterpartyAccounts/*/branchIdentifier',
  'A branch identifier nobody vouched for (with its account identifier): its inner fields are not shown.',
  [Q.branchRow],
);
export const BRANCH_CURRENCY_ABSENT = open(
  'patch-account-branch-identifier-currency-absent',
  '/counterpartyAccounts/*/currency',
  'A SORT or ROUTING branch identifier on an account that names no currency: what it must match is not in the request.',
  [Q.branchRow],
);
export const COUNTRY_UNLISTED = open(
  'patch-account-country-unlisted',
  '/counterpartyAccounts/*/country',
  'An account country of two capitals that the country list lacks (UK): the request row asks only for the pattern, the list is "used for ... account country"; the document does not settle which binds a request.',
  [Q.accountCountryRow, Q.countryList, Q.ukNote, Q.accountCountryResponseRow],
);

const COUNTRIES: readonly string[] = spec().schema('Country').enum ?? [];
const countryCheck = spec().compile(spec().property('PatchCounterpartyAccount', 'country'));

/** A canonical text of a JSON value (keys sorted), for comparing identifiers. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(ownOf(v, k))}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'undefined';
}

/** The type a branch identifier names (SORT, ROUTING), if exactly one known type is written in it. */
export function branchType(branch: unknown): string | undefined {
  if (branch === null || typeof branch !== 'object' || Array.isArray(branch)) return undefined;
  const named = new Set(
    Object.values(branch).filter(
      (v): v is string => typeof v === 'string' && Object.hasOwn(BRANCH_CURRENCY, v),
    ),
  );
  return named.size === 1 ? [...named][0] : undefined;
}

function vouched(
  known: readonly KnownAccount[],
  account: Record<string, unknown>,
): { identifier: boolean; branch: boolean } {
  const id = canonical(account.accountIdentifier);
  const branch = account.branchIdentifier === undefined ? undefined : canonical(account.branchIdentifier);
  const same = known.filter((k) => canonical(k.accountIdentifier) === id);
  return {
    identifier: same.length > 0,
    branch: same.some(
      (k) => (k.branchIdentifier === undefined ? undefined : canonical(k.branchIdentifier)) === branch,
    ),
  };
}

export const RELATIONS: Family = {
  name: 'relations',
  rules: [REQUIRED_WHEN, BRANCH_MATCHES_CURRENCY],
  open: [IDENTIFIER_NOT_SHOWN, BRANCH_NOT_SHOWN, BRANCH_CURRENCY_ABSENT, COUNTRY_UNLISTED],
  judge(view, sink) {
    if (view.operationId !== PATCH) return;
    const json = view.json();
    if (json.state !== 'json') return;
    const known = view.options.knownAccounts ?? [];
    walkInstance(json.value, (site, account, pointer) => {
      if (site.path.join('.') !== ITEM.join('.') || !isObject(account)) return;
      if (
        ownOf(account, WHEN_NAME) === WHEN_VALUE &&
        (condition.required ?? []).every((n) => Object.hasOwn(account, n))
      )
        for (const n of NEEDS)
          if (!Object.hasOwn(account, n))
            sink.breach(
              REQUIRED_WHEN,
              `${pointer}/${n}`,
              `an account of ${WHEN_NAME} ${String(WHEN_VALUE)} without ${n}`,
            );
      const type = branchType(account.branchIdentifier);
      if (type !== undefined) {
        if (account.currency === undefined)
          sink.open(
            BRANCH_CURRENCY_ABSENT,
            `${pointer}/currency`,
            `a ${type} branch identifier, no currency`,
          );
        else if (typeof account.currency === 'string' && account.currency !== own(BRANCH_CURRENCY, type))
          sink.breach(
            BRANCH_MATCHES_CURRENCY,
            `${pointer}/branchIdentifier`,
            `a ${type} branch identifier on a ${account.currency} account, not ${own(BRANCH_CURRENCY, type)}`,
          );
      }
      const v = vouched(known, account);
      if (isObject(account.accountIdentifier) && !v.identifier)
        sink.open(
          IDENTIFIER_NOT_SHOWN,
          `${pointer}/accountIdentifier`,
          'an account identifier nobody vouched for',
        );
      if (isObject(account.branchIdentifier) && !(v.identifier && v.branch))
        sink.open(BRANCH_NOT_SHOWN, `${pointer}/branchIdentifier`, 'a branch identifier nobody vouched for');
      const c = account.country;
      if (typeof c === 'string' && countryCheck(c) && !COUNTRIES.includes(c))
        sink.open(COUNTRY_UNLISTED, `${pointer}/country`, `the country ${c} is not on the list`);
    });
  },
  cases(): RuleCase[] {
    const base = sampleAt(ITEM) as Record<string, unknown>;
    const { [NEEDS[0]!]: _dropped, ...without } = base;
    const sort = { ...base, ...SAMPLE_ACCOUNTS[1], currency: 'GBP' };
    return [
      {
        rule: REQUIRED_WHEN.id,
        holds: patchRequest(bodyWith(ITEM, base)),
        breaks: patchRequest(bodyWith(ITEM, without)),
      },
      {
        rule: BRANCH_MATCHES_CURRENCY.id,
        holds: patchRequest(bodyWith(ITEM, sort)),
        breaks: patchRequest(bodyWith(ITEM, { ...sort, currency: 'USD' })),
      },
    ];
  },
  openCases(): OpenCase[] {
    const base = sampleAt(ITEM) as Record<string, unknown>;
    const with_ = (extra: Record<string, unknown>) => patchRequest(bodyWith(ITEM, { ...base, ...extra }));
    return [
      {
        point: IDENTIFIER_NOT_SHOWN.id,
        request: with_({ accountIdentifier: { type: 'IBAN', value: 'GB33BUKB20201555555555' } }),
      },
      { point: BRANCH_NOT_SHOWN.id, request: with_({ branchIdentifier: { bankCode: '37040044' } }) },
      { point: BRANCH_CURRENCY_ABSENT.id, request: with_({ ...SAMPLE_ACCOUNTS[1] }) },
      { point: COUNTRY_UNLISTED.id, request: with_({ country: 'UK' }) },
    ];
  },
};
