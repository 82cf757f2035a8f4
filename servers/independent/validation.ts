/**
 * Validation rules of the independent implementation, hand-coded from interface.md (sections 2.1
 * to 2.3, 4.1 and 4.2). Nothing here is derived from the project's spec or generators.
 *
 * Choices the document leaves open, made here on purpose:
 * - an account identifier is `{ "scheme": "IBAN", "number": <IBAN, mod-97 checked> }` or
 *   `{ "scheme": "ACCOUNT_NUMBER", "number": <6 to 17 digits> }`; the latter needs a branch identifier;
 * - a branch identifier is `{ "type": "SORT", "code": <6 digits> }` (currency GBP) or
 *   `{ "type": "ROUTING", "code": <9 digits, ABA check digit> }` (currency USD);
 * - unknown properties are rejected everywhere in a PATCH body, accounts included;
 * - an account country outside the country list of section 2.2 is rejected.
 */

/** One problem in a request, located by a JSON Pointer (RFC 6901) into the body. */
export interface Issue {
  pointer: string;
  detail: string;
}

export const COUNTRIES: readonly string[] = [
  'IN', 'DE', 'AT', 'GB', 'BE', 'BG', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'GR', 'HU', 'IE', 'IT', 'LV',
  'LT', 'LU', 'MT', 'NL', 'PL', 'PT', 'RO', 'SK', 'SI', 'ES', 'SE', 'CH', 'SM', 'VA', 'AD', 'MC', 'IS', 'NO',
  'LI', 'US',
]; // prettier-ignore

export const CURRENCIES: readonly string[] = ['EUR', 'USD', 'GBP'];
export const ACCOUNT_CATEGORIES: readonly string[] = ['PERSONAL', 'BUSINESS'];

export const REFERENCE_PATTERN = /^[-_a-zA-Z0-9]+$/;
const NAME_PATTERN = /^[-_ a-zA-Z0-9]+$/;
const DIGITS_PATTERN = /^[0-9]*$/;
const REMARKS_PATTERN = /^[A-Za-z0-9_.,'-]+( +[A-Za-z0-9_.,'-]+)*$/;
const ADDRESS_LINE_PATTERN = /^[ a-zA-Z0-9!@#$&()_+\-./:,?']+$/;
const POSTAL_CODE_PATTERN = /^[A-Za-z0-9 -]*$/;
const UPPER_PATTERN = /^[A-Z]*$/;

/** Its own: the independent server imports nothing of the project. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function has(value: Record<string, unknown>, key: string): boolean {
  return Object.hasOwn(value, key);
}

/** Length as JSON Schema counts it: Unicode code points, not UTF-16 units. */
export function codePointLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

interface StringRule {
  min: number;
  max: number;
  pattern?: RegExp;
  oneOf?: readonly string[];
  extra?: (text: string) => string | undefined;
}

function checkString(value: unknown, pointer: string, rule: StringRule, issues: Issue[]): value is string {
  if (typeof value !== 'string') {
    issues.push({ pointer, detail: 'must be a string' });
    return false;
  }
  const before = issues.length;
  const length = codePointLength(value);
  if (length < rule.min || length > rule.max) {
    issues.push({ pointer, detail: `length must be between ${rule.min} and ${rule.max}, got ${length}` });
  } else if (rule.pattern && !rule.pattern.test(value)) {
    issues.push({ pointer, detail: `must match ${String(rule.pattern)}` });
  } else if (rule.oneOf && !rule.oneOf.includes(value)) {
    issues.push({ pointer, detail: `must be one of ${rule.oneOf.join(', ')}` });
  } else if (rule.extra) {
    const problem = rule.extra(value);
    if (problem) issues.push({ pointer, detail: problem });
  }
  return issues.length === before;
}

function rejectUnknown(
  value: Record<string, unknown>,
  allowed: readonly string[],
  pointer: string,
  issues: Issue[],
): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      issues.push({ pointer: `${pointer}/${escapePointer(key)}`, detail: 'property is not allowed here' });
    }
  }
}

// ---------------------------------------------------------------------------------------------
// e-mail: the Mailbox of RFC 5321 section 4.1.2, restricted to a dot-atom local part and a
// domain of at least two hostname labels (no quoted local parts, no address literals).

const ATOM = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
const LOCAL_PART = new RegExp(`^${ATOM}(?:\\.${ATOM})*$`);
const DOMAIN_LABEL = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

export function emailProblem(text: string): string | undefined {
  const at = text.lastIndexOf('@');
  if (at <= 0 || at === text.length - 1) return 'must be an e-mail address local@domain';
  const local = text.slice(0, at);
  const domain = text.slice(at + 1);
  if (local.length > 64) return 'the local part of an e-mail address holds at most 64 characters';
  if (!LOCAL_PART.test(local)) return 'the local part of the e-mail address is not a dot-atom';
  const labels = domain.split('.');
  if (labels.length < 2) return 'the e-mail domain must have at least two labels';
  if (!labels.every((label) => DOMAIN_LABEL.test(label))) return 'the e-mail domain is not a host name';
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Counterparty details (section 2.1, 2.2 and the counterpartyDetails of 4.2).

export interface AddressPatch {
  addressLine?: string;
  postalCode?: string;
  country?: string;
}

export interface DetailsPatch {
  accountHolderName?: string;
  emailAddress?: string;
  mobileNumber?: string;
  remarks?: string;
  address?: AddressPatch;
}

const DETAIL_FIELDS = ['accountHolderName', 'emailAddress', 'mobileNumber', 'remarks', 'address'] as const;
const ADDRESS_FIELDS = ['addressLine', 'postalCode', 'country'] as const;

export const RULES = {
  accountHolderName: { min: 3, max: 90, pattern: NAME_PATTERN },
  emailAddress: { min: 6, max: 255, extra: emailProblem },
  mobileNumber: { min: 5, max: 16, pattern: DIGITS_PATTERN },
  remarks: { min: 3, max: 90, pattern: REMARKS_PATTERN },
  addressLine: { min: 1, max: 210, pattern: ADDRESS_LINE_PATTERN },
  postalCode: { min: 1, max: 16, pattern: POSTAL_CODE_PATTERN },
  country: { min: 2, max: 2, oneOf: COUNTRIES },
  accountName: { min: 3, max: 90, pattern: NAME_PATTERN },
} satisfies Record<string, StringRule>;

function validateAddress(value: unknown, pointer: string, issues: Issue[]): AddressPatch | undefined {
  if (!isPlainObject(value)) {
    issues.push({ pointer, detail: 'must be an object' });
    return undefined;
  }
  rejectUnknown(value, ADDRESS_FIELDS, pointer, issues);
  const address: AddressPatch = {};
  for (const field of ADDRESS_FIELDS) {
    if (!has(value, field)) continue;
    const text = value[field];
    if (checkString(text, `${pointer}/${field}`, RULES[field], issues)) address[field] = text;
  }
  return address;
}

function validateDetails(value: unknown, issues: Issue[]): DetailsPatch | undefined {
  const pointer = '/counterpartyDetails';
  if (!isPlainObject(value)) {
    issues.push({ pointer, detail: 'must be an object' });
    return undefined;
  }
  if (Object.keys(value).length === 0) {
    issues.push({ pointer, detail: 'must hold at least 1 property' });
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (key === 'counterpartyReference') {
      issues.push({ pointer: `${pointer}/${key}`, detail: 'counterpartyReference is immutable' });
    } else if (key === 'createdBy') {
      issues.push({ pointer: `${pointer}/${key}`, detail: 'createdBy is filled by the service' });
    } else if (!(DETAIL_FIELDS as readonly string[]).includes(key)) {
      issues.push({ pointer: `${pointer}/${escapePointer(key)}`, detail: 'property is not allowed here' });
    }
  }
  const details: DetailsPatch = {};
  for (const field of ['accountHolderName', 'emailAddress', 'mobileNumber', 'remarks'] as const) {
    if (!has(value, field)) continue;
    const text = value[field];
    if (checkString(text, `${pointer}/${field}`, RULES[field], issues)) details[field] = text;
  }
  if (has(value, 'address')) {
    const address = validateAddress(value.address, `${pointer}/address`, issues);
    if (address) details.address = address;
  }
  return details;
}

// ---------------------------------------------------------------------------------------------
// Accounts (the counterpartyAccounts of 4.2, with this implementation's identifier shapes).

export interface AccountInput {
  accountType: 'BANK_ACCOUNT';
  accountCategory: string;
  name: string;
  accountIdentifier: { scheme: string; number: string };
  country: string;
  currency?: string;
  branchIdentifier?: { type: string; code: string };
}

const ACCOUNT_FIELDS = [
  'accountType',
  'accountCategory',
  'name',
  'accountIdentifier',
  'country',
  'currency',
  'branchIdentifier',
] as const;

/** ISO 13616 check: rearranged, letters as numbers, remainder 1 modulo 97. */
export function ibanIsValid(iban: string): boolean {
  if (!/^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const ch of rearranged) {
    const digits = /[0-9]/.test(ch) ? ch : String(ch.charCodeAt(0) - 55);
    for (const d of digits) remainder = (remainder * 10 + Number(d)) % 97;
  }
  return remainder === 1;
}

/** ABA routing number check digit: 3, 7, 1 weights, sum divisible by 10. */
export function routingNumberIsValid(code: string): boolean {
  if (!/^[0-9]{9}$/.test(code)) return false;
  const weights = [3, 7, 1, 3, 7, 1, 3, 7, 1];
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += Number(code[i]) * weights[i]!;
  return sum % 10 === 0;
}

function validateIdentifier(
  value: unknown,
  pointer: string,
  issues: Issue[],
): AccountInput['accountIdentifier'] | undefined {
  if (!isPlainObject(value)) {
    issues.push({ pointer, detail: 'must be an object { "scheme": "IBAN", "number": "<IBAN>" }' });
    return undefined;
  }
  rejectUnknown(value, ['scheme', 'number'], pointer, issues);
  const { scheme, number } = value;
  if (scheme !== 'IBAN' && scheme !== 'ACCOUNT_NUMBER') {
    issues.push({ pointer: `${pointer}/scheme`, detail: 'must be IBAN or ACCOUNT_NUMBER' });
    return undefined;
  }
  if (typeof number !== 'string') {
    issues.push({ pointer: `${pointer}/number`, detail: 'must be a string' });
    return undefined;
  }
  if (scheme === 'IBAN' && !ibanIsValid(number)) {
    issues.push({
      pointer: `${pointer}/number`,
      detail: 'must be an IBAN (upper case, no spaces, valid check digits)',
    });
    return undefined;
  }
  if (scheme === 'ACCOUNT_NUMBER' && !/^[0-9]{6,17}$/.test(number)) {
    issues.push({ pointer: `${pointer}/number`, detail: 'must be 6 to 17 digits' });
    return undefined;
  }
  return { scheme, number };
}

function validateBranch(value: unknown, pointer: string, issues: Issue[]): AccountInput['branchIdentifier'] {
  if (!isPlainObject(value)) {
    issues.push({ pointer, detail: 'must be an object { "type": "SORT" | "ROUTING", "code": "..." }' });
    return undefined;
  }
  rejectUnknown(value, ['type', 'code'], pointer, issues);
  const { type, code } = value;
  if (type === 'SORT') {
    if (typeof code === 'string' && /^[0-9]{6}$/.test(code)) return { type, code };
    issues.push({ pointer: `${pointer}/code`, detail: 'a SORT code is 6 digits' });
  } else if (type === 'ROUTING') {
    if (typeof code === 'string' && routingNumberIsValid(code)) return { type, code };
    issues.push({
      pointer: `${pointer}/code`,
      detail: 'a ROUTING number is 9 digits with a valid check digit',
    });
  } else {
    issues.push({ pointer: `${pointer}/type`, detail: 'must be SORT or ROUTING' });
  }
  return undefined;
}

function validateAccount(value: unknown, pointer: string, issues: Issue[]): AccountInput | undefined {
  if (!isPlainObject(value)) {
    issues.push({ pointer, detail: 'must be an object' });
    return undefined;
  }
  const before = issues.length;
  rejectUnknown(value, ACCOUNT_FIELDS, pointer, issues);
  for (const field of ['accountType', 'accountCategory', 'name', 'accountIdentifier', 'country'] as const) {
    if (!has(value, field)) issues.push({ pointer: `${pointer}/${field}`, detail: 'is required' });
  }
  const type = value.accountType;
  if (has(value, 'accountType') && type !== 'BANK_ACCOUNT') {
    issues.push({ pointer: `${pointer}/accountType`, detail: 'must be BANK_ACCOUNT' });
  }
  const category = value.accountCategory;
  if (has(value, 'accountCategory')) {
    checkString(
      category,
      `${pointer}/accountCategory`,
      { min: 1, max: 20, oneOf: ACCOUNT_CATEGORIES },
      issues,
    );
  }
  if (has(value, 'name')) checkString(value.name, `${pointer}/name`, RULES.accountName, issues);
  const country = value.country;
  if (
    has(value, 'country') &&
    checkString(country, `${pointer}/country`, { min: 2, max: 2, pattern: UPPER_PATTERN }, issues)
  ) {
    if (!COUNTRIES.includes(country)) {
      issues.push({
        pointer: `${pointer}/country`,
        detail: `${country} is not in the supported country list`,
      });
    }
  }
  const currency = value.currency;
  if (has(value, 'currency'))
    checkString(currency, `${pointer}/currency`, { min: 3, max: 3, oneOf: CURRENCIES }, issues);
  const identifier = has(value, 'accountIdentifier')
    ? validateIdentifier(value.accountIdentifier, `${pointer}/accountIdentifier`, issues)
    : undefined;
  const branch = has(value, 'branchIdentifier')
    ? validateBranch(value.branchIdentifier, `${pointer}/branchIdentifier`, issues)
    : undefined;
  if (branch?.type === 'SORT' && currency !== 'GBP') {
    issues.push({ pointer: `${pointer}/branchIdentifier`, detail: 'a SORT code goes with currency GBP' });
  }
  if (branch?.type === 'ROUTING' && currency !== 'USD') {
    issues.push({
      pointer: `${pointer}/branchIdentifier`,
      detail: 'a ROUTING number goes with currency USD',
    });
  }
  if (identifier?.scheme === 'ACCOUNT_NUMBER' && !has(value, 'branchIdentifier')) {
    issues.push({
      pointer: `${pointer}/branchIdentifier`,
      detail: 'an ACCOUNT_NUMBER needs a branch identifier',
    });
  }
  if (issues.length !== before || !identifier) return undefined;
  const account: AccountInput = {
    accountType: 'BANK_ACCOUNT',
    accountCategory: category as string,
    name: value.name as string,
    accountIdentifier: identifier,
    country: country as string,
  };
  if (typeof currency === 'string') account.currency = currency;
  if (branch) account.branchIdentifier = branch;
  return account;
}

// ---------------------------------------------------------------------------------------------

export interface CounterpartyPatch {
  details?: DetailsPatch;
  accounts?: AccountInput[];
}

/** Validates a parsed PATCH body as a whole; returns every issue found, or the patch. */
export function validatePatch(body: unknown): { patch: CounterpartyPatch } | { issues: Issue[] } {
  const issues: Issue[] = [];
  if (!isPlainObject(body)) return { issues: [{ pointer: '', detail: 'the body must be a JSON object' }] };
  rejectUnknown(body, ['counterpartyDetails', 'counterpartyAccounts'], '', issues);
  if (!has(body, 'counterpartyDetails') && !has(body, 'counterpartyAccounts')) {
    issues.push({ pointer: '', detail: 'send counterpartyDetails, counterpartyAccounts or both' });
  }
  const patch: CounterpartyPatch = {};
  if (has(body, 'counterpartyDetails')) patch.details = validateDetails(body.counterpartyDetails, issues);
  if (has(body, 'counterpartyAccounts')) {
    const list = body.counterpartyAccounts;
    if (!Array.isArray(list)) {
      issues.push({ pointer: '/counterpartyAccounts', detail: 'must be an array' });
    } else if (list.length === 0) {
      issues.push({ pointer: '/counterpartyAccounts', detail: 'must hold at least 1 item' });
    } else {
      const accounts: AccountInput[] = [];
      list.forEach((item, i) => {
        const account = validateAccount(item, `/counterpartyAccounts/${i}`, issues);
        if (account) accounts.push(account);
      });
      patch.accounts = accounts;
    }
  }
  return issues.length > 0 ? { issues } : { patch };
}

/** Validates a decoded counterparty reference (section 4.1); returns the problem, if any. */
export function referenceProblem(reference: string): string | undefined {
  const length = codePointLength(reference);
  if (length < 3 || length > 90) return `the counterparty reference holds 3 to 90 characters, got ${length}`;
  if (!REFERENCE_PATTERN.test(reference))
    return `the counterparty reference must match ${String(REFERENCE_PATTERN)}`;
  return undefined;
}
