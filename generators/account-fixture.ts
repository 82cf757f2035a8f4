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
 * The account of the embedded reference server, which accepts any identifier object: neither
 * country nor currency is pinned, so runs against it exercise every listed country and currency.
 */
export const DEFAULT_ACCOUNT_FIXTURE: AccountFixture = Object.freeze({
  accountIdentifier: Object.freeze({ type: 'IBAN', value: 'DE89370400440532013000' }),
}) as AccountFixture;

const KNOWN_KEYS = ['accountIdentifier', 'branchIdentifier', 'country', 'currency'];

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

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
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    const reason = (e instanceof Error ? e.message : String(e)).split('\n')[0];
    fail(`not valid JSON (${reason})`);
  }
  return checkAccountFixture(value);
}
