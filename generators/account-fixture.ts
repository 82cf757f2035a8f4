/**
 * The account a deployment accepts. The interface document does not show the inner fields of
 * `accountIdentifier` and `branchIdentifier` (section 2.3), so a generated account cannot invent
 * them: a deployment supplies a valid account through configuration (env var ACCOUNT_FIXTURE, a
 * JSON object), and the account generators take it from `constraints.accountFixture`.
 *
 * The fixture's optional `country` and `currency` pin the generated accounts' country and currency,
 * since a service may check them against the identifier (an IBAN names its country). A
 * `branchIdentifier` needs a `currency`, because the document matches SORT to GBP and ROUTING to USD.
 */
import { spec } from '../spec/index.ts';
import { isObject, ownOf } from '../exchange/own.ts';

export interface AccountFixture {
  /** A valid account identifier for the deployment under test; inner fields not shown in the document. */
  accountIdentifier: Record<string, unknown>;
  /** An optional branch identifier that goes with the account identifier. */
  branchIdentifier?: Record<string, unknown>;
  /** The bank country of the account: pins the generated accounts' country. */
  country?: string;
  /** The account currency: pins the generated accounts' currency. */
  currency?: string;
}

/**
 * The most accounts a run may add to the writable counterparty when CONFORMANCE_ACCOUNT_BUDGET
 * does not say (an account a PATCH adds cannot be removed again): the default of the configuration
 * and of the account-adding probe alike, so it sits below both.
 */
export const DEFAULT_ACCOUNT_BUDGET = 40;

/**
 * The account of the embedded reference server, which accepts any identifier object: neither
 * country nor currency is pinned, so runs against it exercise every listed country and currency.
 */
export const DEFAULT_ACCOUNT_FIXTURE: AccountFixture = Object.freeze({
  accountIdentifier: Object.freeze({ type: 'IBAN', value: 'DE89370400440532013000' }),
}) as AccountFixture;

/** A German IBAN of bank 37040044 and a ten-digit account number, with its check digits. */
function germanIban(account: number): string {
  const bban = `37040044${String(account).padStart(10, '0')}`;
  const check = 98 - Number(BigInt(`${bban}131400`) % 97n);
  return `DE${String(check).padStart(2, '0')}${bban}`;
}

/**
 * The embedded server's list: one identifier per account a run may add by default (the first is
 * DEFAULT_ACCOUNT_FIXTURE), so that no run repeats an identifier.
 */
export const DEFAULT_ACCOUNT_FIXTURES: readonly AccountFixture[] = Object.freeze(
  Array.from({ length: 40 }, (_, i) =>
    i === 0
      ? DEFAULT_ACCOUNT_FIXTURE
      : (Object.freeze({
          accountIdentifier: Object.freeze({ type: 'IBAN', value: germanIban(532013000 + i) }),
        }) as AccountFixture),
  ),
);

const KNOWN_KEYS = ['accountIdentifier', 'branchIdentifier', 'country', 'currency'];

function fail(message: string): never {
  throw new Error(`ACCOUNT_FIXTURE: ${message}`);
}

/** Checks an already parsed fixture; throws an Error with a one-line message when it is unusable. */
export function checkAccountFixture(value: unknown): AccountFixture {
  if (!isObject(value)) fail('expected a JSON object like {"accountIdentifier":{...}}');
  const unknown = Object.keys(value).filter((k) => !KNOWN_KEYS.includes(k));
  if (unknown.length > 0)
    fail(`unknown key ${JSON.stringify(unknown[0])}; allowed: ${KNOWN_KEYS.join(', ')}`);
  if (!('accountIdentifier' in value)) fail('missing "accountIdentifier" (a JSON object)');
  if (!isObject(value.accountIdentifier)) fail('"accountIdentifier" must be a JSON object');
  const fixture: AccountFixture = { accountIdentifier: value.accountIdentifier };
  if (value.branchIdentifier !== undefined) {
    if (!isObject(value.branchIdentifier)) fail('"branchIdentifier" must be a JSON object');
    if (value.currency === undefined)
      fail('a "branchIdentifier" needs a "currency" (SORT goes with GBP, ROUTING with USD)');
    fixture.branchIdentifier = value.branchIdentifier;
  }
  if (value.country !== undefined) {
    const countries = spec().schema('Country').enum ?? [];
    if (typeof value.country !== 'string' || !countries.includes(value.country)) {
      fail(`"country" ${JSON.stringify(value.country)} is not in the document's country list`);
    }
    fixture.country = value.country;
  }
  if (value.currency !== undefined) {
    const currencies = spec().schema('Currency').enum ?? [];
    if (typeof value.currency !== 'string' || !currencies.includes(value.currency)) {
      fail(`"currency" ${JSON.stringify(value.currency)} is not one of ${currencies.join(', ')}`);
    }
    fixture.currency = value.currency;
  }
  return fixture;
}

/**
 * Parses the JSON text of an account fixture (the value of env var ACCOUNT_FIXTURE). Throws an
 * Error with a one-line, user-facing message on malformed JSON or an unusable fixture.
 */
export function parseAccountFixture(text: string): AccountFixture {
  return checkAccountFixture(parseJson(text));
}

/** The JSON value of `text`; malformed JSON fails with one line naming why. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    const reason = (e instanceof Error ? e.message : String(e)).split('\n')[0];
    return fail(`not valid JSON (${reason})`);
  }
}

/**
 * Parses ACCOUNT_FIXTURE's JSON text: one fixture (an object) or a non-empty list of them (an
 * array), so that a service refusing a second account with an identifier it holds can be given
 * one identifier per account the suite adds. Errors name the item of the list.
 */
export function parseAccountFixtures(text: string): AccountFixture[] {
  const value = parseJson(text);
  if (!Array.isArray(value)) return [checkAccountFixture(value)];
  if (value.length === 0) fail('the list is empty; give at least one fixture');
  return value.map((item, i) => {
    try {
      return checkAccountFixture(item);
    } catch (error) {
      throw new Error((error as Error).message.replace(/^ACCOUNT_FIXTURE:/, `ACCOUNT_FIXTURE[${i}]:`));
    }
  });
}

/** What identifies an account the suite adds: its identifier and branch identifier, as sent. */
export function identifierKey(account: { accountIdentifier?: unknown; branchIdentifier?: unknown }): string {
  const key = (v: unknown): string =>
    isObject(v)
      ? `{${Object.keys(v)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${key(ownOf(v, k))}`)
          .join(',')}}`
      : JSON.stringify(v ?? null);
  return key({ accountIdentifier: account.accountIdentifier, branchIdentifier: account.branchIdentifier });
}

/**
 * An account item carrying another fixture's identifiers (and its country and currency where it
 * pins them; a branch identifier always comes with the fixture's currency).
 */
export function withAccountFixture<A extends object>(account: A, fixture: AccountFixture): A {
  const { branchIdentifier: _old, ...rest } = account as Record<string, unknown>;
  return {
    ...rest,
    accountIdentifier: structuredClone(fixture.accountIdentifier),
    ...(fixture.branchIdentifier ? { branchIdentifier: structuredClone(fixture.branchIdentifier) } : {}),
    ...(fixture.country !== undefined ? { country: fixture.country } : {}),
    ...(fixture.currency !== undefined ? { currency: fixture.currency } : {}),
  } as A;
}
