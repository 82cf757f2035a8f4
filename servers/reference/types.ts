/**
 * The shapes the reference server stores and the seed data is written in: a counterparty as
 * interface.md §2 describes it (fields of a deployment's own allowed), and a PATCH body once it
 * validated. Apart from the server so that the seed data (seed.ts) and the server both import it
 * and neither imports the other.
 */
export interface Address {
  addressLine?: string;
  postalCode?: string;
  country?: string;
  [field: string]: unknown;
}

export interface CounterpartyAccount {
  state: string;
  verificationStatus?: string;
  createdAt: string;
  updatedAt: string;
  lastVerifiedAt?: string;
  accountType: string;
  accountCategory: string;
  country?: string;
  currency?: string;
  name?: string;
  accountIdentifier: Record<string, unknown>;
  branchIdentifier?: Record<string, unknown>;
  [field: string]: unknown;
}

export interface Counterparty {
  counterpartyReference: string;
  state: string;
  createdAt: string;
  updatedAt: string;
  accountHolderName: string;
  emailAddress?: string;
  mobileNumber?: string;
  remarks?: string;
  createdBy?: string;
  address?: Address;
  counterpartyAccounts?: CounterpartyAccount[];
  [field: string]: unknown;
}

/** The body of a PATCH once it validated against PatchCounterpartyRequest. */
export interface CounterpartyPatch {
  counterpartyDetails?: Partial<
    Pick<Counterparty, 'accountHolderName' | 'emailAddress' | 'mobileNumber' | 'remarks' | 'address'>
  >;
  counterpartyAccounts?: Record<string, unknown>[];
}
