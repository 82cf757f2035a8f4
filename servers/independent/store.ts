/**
 * The state of the independent implementation: counterparties (section 2) and the bills,
 * mandates and collections of section 4.3, seeded afresh for every server instance, and how a
 * counterparty is presented on the wire.
 */
import type { AccountInput, AddressPatch, CounterpartyPatch } from './validation.ts';
import { weakEtag } from './wire.ts';

export const INDEPENDENT_TOKEN = 'independent-7c1e4b-token';

/** Readable counterparty carrying every optional field, an address and accounts of every kind. */
export const INDEPENDENT_COUNTERPARTY = 'IND-Vendor_000417';

/** Counterparty the conformance suite may modify. */
export const INDEPENDENT_WRITABLE_COUNTERPARTY = 'ind-writable-cp-77';

/** The account a client must send to be accepted (this implementation's identifier shape). */
export const INDEPENDENT_ACCOUNT_FIXTURE: {
  accountIdentifier: Record<string, unknown>;
  branchIdentifier?: Record<string, unknown>;
  country?: string;
  currency?: string;
} = {
  accountIdentifier: { scheme: 'IBAN', number: 'NL91ABNA0417164300' },
  country: 'NL',
  currency: 'EUR',
};

/**
 * The items a client of this service may name, and bodies it accepts (a suite's ITEM_FIXTURES):
 * its bill and mandate, a client-chosen bill identifier, a mandate of the counterparty it holds, a
 * collection against the mandate the client creates, documents as a form.
 */
export const INDEPENDENT_ITEM_FIXTURES = {
  read: { bill: 'BILL-2024-0001', mandate: 'MND-0001' },
  create: {
    bill: {
      uniqueReferenceIdentifier: 'INV-{{unique}}',
      counterpartyReference: INDEPENDENT_COUNTERPARTY,
      currencyCode: 'EUR',
      openAmount: 310,
      dueDate: '2027-03-31',
    },
    mandate: {
      counterpartyReference: INDEPENDENT_COUNTERPARTY,
      mode: 'CORE',
      type: 'ONE_OFF',
      currency: 'EUR',
    },
    directDebit: { mandateReference: '{{mandateReference}}', currency: 'EUR', amount: 310 },
  },
  updateBill: { status: 'PAID', openAmount: 0 },
  document: { kind: 'multipart' as const, field: 'file' },
};

export interface StoredAccount {
  /** This service's own identifier of the account (not a field of the document). */
  id: string;
  /** Order of creation, the tie-break of the newest-first order. */
  seq: number;
  state: 'ACTIVE' | 'INACTIVE';
  verificationStatus?: 'VERIFIED' | 'UNVERIFIED' | 'FAILED';
  createdAt: string;
  updatedAt: string;
  lastVerifiedAt?: string;
  accountType: 'BANK_ACCOUNT';
  accountCategory: string;
  country?: string;
  currency?: string;
  name?: string;
  accountIdentifier: Record<string, unknown>;
  branchIdentifier?: Record<string, unknown>;
}

export interface StoredCounterparty {
  counterpartyReference: string;
  state: 'ACTIVE' | 'INACTIVE';
  createdAt: string;
  updatedAt: string;
  accountHolderName: string;
  emailAddress?: string;
  mobileNumber?: string;
  remarks?: string;
  createdBy?: string;
  address?: AddressPatch;
  counterpartyAccounts: StoredAccount[];
}

/** Now, as `YYYY-MM-DDThh:mm:ssZ` (second precision, UTC). */
export function timestamp(now: Date = new Date()): string {
  return now.toISOString().slice(0, 19) + 'Z';
}

/** The later of two timestamps of the same fixed format (they compare as strings). */
function later(a: string, b: string): string {
  return a >= b ? a : b;
}

type SeedAccount = Omit<StoredAccount, 'id' | 'seq'>;
type SeedCounterparty = Omit<StoredCounterparty, 'counterpartyAccounts'> & {
  counterpartyAccounts: SeedAccount[];
};

/** A display name of this service's own, outside the document, with non-ASCII characters. */
const TRADING_NAMES: Record<string, string> = {
  [INDEPENDENT_COUNTERPARTY]: 'Harbour Fréight Logistics — Hâvre 港',
};

function seedCounterparties(): SeedCounterparty[] {
  return [
    {
      counterpartyReference: INDEPENDENT_COUNTERPARTY,
      state: 'ACTIVE',
      createdAt: '2023-03-14T08:21:05Z',
      updatedAt: '2024-11-02T17:45:59Z',
      accountHolderName: 'Harbour Freight Logistics BV',
      emailAddress: 'payables.team@harbour-freight.example.nl',
      mobileNumber: '31612345678',
      remarks: 'Preferred vendor, net-30 terms, ref. Q4',
      createdBy: 'API',
      address: { addressLine: 'Keizersgracht 221, Unit 3B', postalCode: '1016 DV', country: 'NL' },
      counterpartyAccounts: [
        {
          state: 'ACTIVE',
          verificationStatus: 'VERIFIED',
          createdAt: '2023-03-14T08:21:05Z',
          updatedAt: '2023-03-15T09:00:00Z',
          lastVerifiedAt: '2023-03-15T09:00:00Z',
          accountType: 'BANK_ACCOUNT',
          accountCategory: 'BUSINESS',
          country: 'GB',
          currency: 'GBP',
          name: 'Harbour Freight UK Ltd',
          accountIdentifier: { scheme: 'ACCOUNT_NUMBER', number: '31926819' },
          branchIdentifier: { type: 'SORT', code: '601613' },
        },
        {
          state: 'ACTIVE',
          verificationStatus: 'UNVERIFIED',
          createdAt: '2024-01-09T12:00:41Z',
          updatedAt: '2024-01-09T12:00:41Z',
          accountType: 'BANK_ACCOUNT',
          accountCategory: 'BUSINESS',
          country: 'US',
          currency: 'USD',
          name: 'Harbour Freight US Inc',
          accountIdentifier: { scheme: 'ACCOUNT_NUMBER', number: '000123456789' },
          branchIdentifier: { type: 'ROUTING', code: '021000021' },
        },
        {
          state: 'INACTIVE',
          verificationStatus: 'FAILED',
          createdAt: '2024-06-30T23:59:59Z',
          updatedAt: '2024-11-02T17:45:59Z',
          lastVerifiedAt: '2024-07-01T00:10:00Z',
          accountType: 'BANK_ACCOUNT',
          accountCategory: 'PERSONAL',
          country: 'NL',
          currency: 'EUR',
          name: 'J de Vries - old account',
          accountIdentifier: { scheme: 'IBAN', number: 'NL91ABNA0417164300' },
        },
      ],
    },
    {
      counterpartyReference: INDEPENDENT_WRITABLE_COUNTERPARTY,
      state: 'ACTIVE',
      createdAt: '2022-12-31T23:00:00Z',
      updatedAt: '2023-01-01T00:00:00Z',
      accountHolderName: 'Writable Test Counterparty',
      emailAddress: 'writable@example.org',
      createdBy: 'web',
      address: { addressLine: '1 Test Street', postalCode: 'SW1A 1AA', country: 'GB' },
      counterpartyAccounts: [
        {
          state: 'ACTIVE',
          createdAt: '2023-01-01T00:00:00Z',
          updatedAt: '2023-01-01T00:00:00Z',
          accountType: 'BANK_ACCOUNT',
          accountCategory: 'PERSONAL',
          country: 'DE',
          currency: 'EUR',
          name: 'Writable main account',
          accountIdentifier: { scheme: 'IBAN', number: 'DE89370400440532013000' },
        },
      ],
    },
    {
      counterpartyReference: 'ind-inactive-001',
      state: 'INACTIVE',
      createdAt: '2021-05-05T05:05:05Z',
      updatedAt: '2021-06-06T06:06:06Z',
      accountHolderName: 'Dormant Supplier',
      counterpartyAccounts: [],
    },
  ];
}

export interface Mandate extends Record<string, unknown> {
  mandateReference: string;
  status: string;
}

export class Store {
  readonly counterparties = new Map<string, StoredCounterparty>();
  readonly bills = new Map<string, Record<string, unknown>>();
  readonly mandates = new Map<string, Mandate>();
  readonly collections = new Map<string, Record<string, unknown>>();
  private sequence = 1000;
  private accountSequence = 0;

  constructor() {
    for (const seed of seedCounterparties()) {
      const cp: StoredCounterparty = {
        ...seed,
        counterpartyAccounts: seed.counterpartyAccounts.map((a) => this.withId(a)),
      };
      this.counterparties.set(cp.counterpartyReference, cp);
    }
    this.bills.set('BILL-2024-0001', {
      uniqueReferenceIdentifier: 'BILL-2024-0001',
      status: 'OPEN',
      counterpartyReference: INDEPENDENT_COUNTERPARTY,
      currencyCode: 'EUR',
      dueDate: '2025-01-31',
    });
    this.mandates.set('MND-0001', { mandateReference: 'MND-0001', status: 'ACTIVE', mode: 'CORE' });
  }

  private withId(account: SeedAccount): StoredAccount {
    this.accountSequence += 1;
    return {
      id: `acc_${this.accountSequence.toString(36).padStart(6, '0')}`,
      seq: this.accountSequence,
      ...account,
    };
  }

  nextId(prefix: string): string {
    this.sequence += 1;
    return `${prefix}-${this.sequence}`;
  }

  /**
   * Applies a validated patch in one step: details merged field by field (address included),
   * accounts appended, updatedAt moved to now (never backwards).
   */
  applyPatch(cp: StoredCounterparty, patch: CounterpartyPatch): void {
    const now = timestamp();
    const details = patch.details ?? {};
    if (details.accountHolderName !== undefined) cp.accountHolderName = details.accountHolderName;
    if (details.emailAddress !== undefined) cp.emailAddress = details.emailAddress;
    if (details.mobileNumber !== undefined) cp.mobileNumber = details.mobileNumber;
    if (details.remarks !== undefined) cp.remarks = details.remarks;
    if (details.address !== undefined) cp.address = { ...(cp.address ?? {}), ...details.address };
    for (const input of patch.accounts ?? [])
      cp.counterpartyAccounts.push(this.withId(newAccount(input, now)));
    cp.updatedAt = later(now, cp.updatedAt);
  }
}

function newAccount(input: AccountInput, now: string): SeedAccount {
  const account: SeedAccount = {
    state: 'ACTIVE',
    verificationStatus: 'UNVERIFIED',
    createdAt: now,
    updatedAt: now,
    accountType: input.accountType,
    accountCategory: input.accountCategory,
    country: input.country,
    name: input.name,
    accountIdentifier: { ...input.accountIdentifier },
  };
  if (input.currency !== undefined) account.currency = input.currency;
  if (input.branchIdentifier !== undefined) account.branchIdentifier = { ...input.branchIdentifier };
  return account;
}

/** The weak entity tag of a counterparty's current state. */
export function counterpartyEtag(cp: StoredCounterparty): string {
  return weakEtag(cp);
}

export interface PresentOptions {
  /** The id of the response, sent in the body and in X-Request-Id. */
  requestId: string;
  /** Put the request id into the address too (see IndependentOptions.addressRequestId). */
  addressRequestId: boolean;
}

/** The address as sent: the documented fields, and fields of this service's own. */
function presentAddress(address: AddressPatch, options: PresentOptions): Record<string, unknown> {
  const out: Record<string, unknown> = { ...address };
  out.formatted = [address.addressLine, address.postalCode, address.country]
    .filter((part) => part !== undefined)
    .join(', ');
  out.metadata = { normalised: true };
  if (options.addressRequestId) out.requestId = options.requestId;
  return out;
}

/** An account as sent: the documented fields, and fields of this service's own. */
function presentAccount(
  account: StoredAccount,
  self: string,
  options: PresentOptions,
): Record<string, unknown> {
  const { id, seq: _seq, ...documented } = account;
  const out: Record<string, unknown> = JSON.parse(JSON.stringify(documented)) as Record<string, unknown>;
  out.accountId = id;
  out.etag = weakEtag(account);
  out._links = { counterparty: { href: self } };
  out.metadata = { source: account.createdAt < '2025-01-01T00:00:00Z' ? 'migration' : 'api' };
  out.requestId = options.requestId;
  return out;
}

/** Newest first: by createdAt, latest first, then the later-created first. */
export function newestFirst(a: StoredAccount, b: StoredAccount): number {
  return b.createdAt.localeCompare(a.createdAt) || b.seq - a.seq;
}

/**
 * The counterparty as sent on the wire (section 2.1): a copy, accounts newest first, with fields
 * of this service's own that the document does not list (`_links`, `etag`, `metadata`, and a
 * `requestId` that differs on every response). A client (and the suite) judges the documented
 * fields only. Key order is the serialiser's business (sorted).
 */
export function present(cp: StoredCounterparty, options: PresentOptions): Record<string, unknown> {
  const self = `/api/v1/counterparties/${cp.counterpartyReference}`;
  const out: Record<string, unknown> = {
    counterpartyReference: cp.counterpartyReference,
    state: cp.state,
    accountHolderName: cp.accountHolderName,
    createdAt: cp.createdAt,
    updatedAt: cp.updatedAt,
  };
  if (cp.emailAddress !== undefined) out.emailAddress = cp.emailAddress;
  if (cp.mobileNumber !== undefined) out.mobileNumber = cp.mobileNumber;
  if (cp.remarks !== undefined) out.remarks = cp.remarks;
  if (cp.createdBy !== undefined) out.createdBy = cp.createdBy;
  if (cp.address !== undefined) out.address = presentAddress(cp.address, options);
  out.counterpartyAccounts = [...cp.counterpartyAccounts]
    .sort(newestFirst)
    .map((a) => presentAccount(a, self, options));
  out._links = {
    self: { href: self },
    describedby: { href: 'https://independent.payflow.invalid/docs/counterparty' },
  };
  out.etag = counterpartyEtag(cp);
  const tradingName = Object.hasOwn(TRADING_NAMES, cp.counterpartyReference)
    ? TRADING_NAMES[cp.counterpartyReference]
    : undefined;
  out.metadata = {
    accountCount: cp.counterpartyAccounts.length,
    ...(tradingName !== undefined ? { tradingName } : {}),
  };
  out.requestId = options.requestId;
  return out;
}
