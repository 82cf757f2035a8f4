/**
 * The data every fresh reference server holds: the fixture a run against the embedded server is
 * configured with (config/embedded.ts names the token, the readable and the writable
 * counterparties), as a deployment's data would be. It is data, not behaviour, so mutation
 * testing (mutation/) does not mutate this module: a mutant here would change what the suite is
 * pointed at, not what the server does with a request.
 */
import type { Counterparty } from './types.ts';

export const REFERENCE_TOKEN = 'reference-token';
/** Has every optional field and several account shapes. */
export const REFERENCE_COUNTERPARTY = 'ACME-Supplies_0001';
/** Only the required fields. */
export const MINIMAL_COUNTERPARTY = 'min-cp-002';
/** For write tests. */
export const WRITABLE_COUNTERPARTY = 'conformance-writable-01';
/** Writable counterparties for parallel lanes of write tests (WRITABLE_COUNTERPARTY_REF=a,b,...), the first being WRITABLE_COUNTERPARTY. */
export const WRITABLE_COUNTERPARTIES = [1, 2, 3, 4].map((n) => `conformance-writable-0${n}`);

/** A bill, a mandate and a collection every fresh server holds (ITEM_FIXTURES' read part, embedded). */
export const SEED_ITEM_REFS = {
  bill: 'BILL-SEED-0001',
  mandate: 'MANDATE-SEED-0001',
  collection: 'COLLECTION-SEED-0001',
} as const;

/** The items of SEED_ITEM_REFS as stored (the payloads are not shown: what a deployment's would carry). */
export function seedItems(): {
  bills: Record<string, unknown>[];
  mandates: Record<string, unknown>[];
  collections: Record<string, unknown>[];
} {
  const at = '2025-03-01T10:00:00Z';
  return {
    bills: [
      {
        uniqueReferenceIdentifier: SEED_ITEM_REFS.bill,
        counterpartyReference: REFERENCE_COUNTERPARTY,
        status: 'OPEN',
        currencyCode: 'EUR',
        totalAmount: 250,
        openAmount: 250,
        dueDate: '2025-04-30',
        createdAt: at,
        updatedAt: at,
      },
    ],
    mandates: [
      {
        mandateReference: SEED_ITEM_REFS.mandate,
        counterpartyReference: REFERENCE_COUNTERPARTY,
        status: 'ACTIVE',
        mode: 'CORE',
        type: 'RECURRING',
        createdAt: at,
        updatedAt: at,
      },
    ],
    collections: [
      {
        collectionReference: SEED_ITEM_REFS.collection,
        mandateReference: SEED_ITEM_REFS.mandate,
        amount: 99.95,
        currency: 'EUR',
        createdAt: at,
        updatedAt: at,
      },
    ],
  };
}

/** The counterparties every fresh server starts with (each is checked against the spec when stored). */
export function seedCounterparties(): Counterparty[] {
  return [
    {
      counterpartyReference: REFERENCE_COUNTERPARTY,
      state: 'ACTIVE',
      createdAt: '2023-03-14T09:26:53Z',
      updatedAt: '2025-02-01T12:00:00Z',
      accountHolderName: 'ACME Supplies Ltd',
      emailAddress: 'accounts.payable@acme-supplies.example',
      mobileNumber: '447700900123',
      remarks: "Preferred supplier, net-30 terms, O'Neill approves",
      createdBy: 'API',
      address: { addressLine: 'Unit 4, 221 Harbour Road', postalCode: 'BS1 5TT', country: 'GB' },
      counterpartyAccounts: [
        {
          state: 'ACTIVE',
          verificationStatus: 'VERIFIED',
          createdAt: '2023-03-14T09:30:00Z',
          updatedAt: '2024-11-05T08:15:42Z',
          lastVerifiedAt: '2024-11-05T08:15:42Z',
          accountType: 'BANK_ACCOUNT',
          accountCategory: 'BUSINESS',
          country: 'GB',
          currency: 'GBP',
          name: 'ACME Supplies GBP operating',
          accountIdentifier: { type: 'ACCOUNT_NUMBER', value: '31926819' },
          branchIdentifier: { type: 'SORT', value: '401276' },
        },
        {
          state: 'ACTIVE',
          verificationStatus: 'UNVERIFIED',
          createdAt: '2024-06-01T10:00:00Z',
          updatedAt: '2024-06-01T10:00:00Z',
          accountType: 'BANK_ACCOUNT',
          accountCategory: 'BUSINESS',
          country: 'US',
          currency: 'USD',
          name: 'ACME Supplies USD',
          accountIdentifier: { type: 'ACCOUNT_NUMBER', value: '000123456789' },
          branchIdentifier: { type: 'ROUTING', value: '021000021' },
        },
        {
          state: 'INACTIVE',
          verificationStatus: 'FAILED',
          createdAt: '2023-09-20T16:45:10Z',
          updatedAt: '2023-09-21T07:02:33Z',
          lastVerifiedAt: '2023-09-21T07:02:33Z',
          accountType: 'BANK_ACCOUNT',
          accountCategory: 'PERSONAL',
          country: 'DE',
          currency: 'EUR',
          name: 'ACME Supplies EUR',
          accountIdentifier: { type: 'IBAN', value: 'DE89370400440532013000' },
        },
      ],
    },
    {
      counterpartyReference: MINIMAL_COUNTERPARTY,
      state: 'INACTIVE',
      createdAt: '2024-01-02T03:04:05Z',
      updatedAt: '2024-01-02T03:04:05Z',
      accountHolderName: 'Minimal Counterparty',
    },
    ...WRITABLE_COUNTERPARTIES.map((counterpartyReference): Counterparty => ({
      counterpartyReference,
      state: 'ACTIVE',
      createdAt: '2024-05-06T07:08:09Z',
      updatedAt: '2024-05-06T07:08:09Z',
      accountHolderName: 'Conformance Writable Ltd',
      emailAddress: 'conformance@example.com',
      remarks: 'Used by write tests',
      createdBy: 'web',
      counterpartyAccounts: [
        {
          state: 'ACTIVE',
          verificationStatus: 'UNVERIFIED',
          createdAt: '2024-05-06T07:08:09Z',
          updatedAt: '2024-05-06T07:08:09Z',
          accountType: 'BANK_ACCOUNT',
          accountCategory: 'BUSINESS',
          country: 'NL',
          currency: 'EUR',
          name: 'Conformance Writable EUR',
          accountIdentifier: { type: 'IBAN', value: 'NL91ABNA0417164300' },
        },
      ],
    })),
  ];
}
