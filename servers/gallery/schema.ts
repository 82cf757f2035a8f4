/**
 * Faults of the counterparty returned by GET (and PATCH): fields, enums, timestamps, address,
 * accounts, the echoed reference and the media type (interface.md §2.1–2.3, §4.1).
 */
import { spec } from '../../spec/index.ts';
import { ReferenceServer, type Address, type Counterparty, type CounterpartyAccount } from '../reference.ts';
import type { Variant } from './types.ts';

/** A server whose response mapper passes the body through `edit` after the reference mapping. */
function presenting(edit: (body: Counterparty) => Record<string, unknown>): () => ReferenceServer {
  return () =>
    new (class extends ReferenceServer {
      protected override present(cp: Counterparty): Record<string, unknown> {
        return edit(super.present(cp) as Counterparty);
      }
    })();
}

/** A counterparty body with every account passed through `edit`. */
export function eachAccount(
  edit: (account: CounterpartyAccount) => Record<string, unknown>,
): (body: Counterparty) => Record<string, unknown> {
  return (body) =>
    body.counterpartyAccounts ? { ...body, counterpartyAccounts: body.counterpartyAccounts.map(edit) } : body;
}

/** A server whose response mapper edits every account. */
function presentingAccounts(
  edit: (account: CounterpartyAccount) => Record<string, unknown>,
): () => ReferenceServer {
  return presenting(eachAccount(edit));
}

/** A server whose response mapper edits the address. */
function presentingAddress(edit: (address: Address) => Record<string, unknown>): () => ReferenceServer {
  return presenting((body) => (body.address ? { ...body, address: edit(body.address) } : body));
}

/** A server that writes every timestamp with `format`. */
function timestamps(format: (stored: string) => string): () => ReferenceServer {
  return () =>
    new (class extends ReferenceServer {
      protected override formatTimestamp(stored: string): string {
        return format(stored);
      }
    })();
}

/** A server that sends JSON with another (or no) Content-Type. */
function mediaType(type: string | undefined): () => ReferenceServer {
  return () =>
    new (class extends ReferenceServer {
      protected override jsonMediaType(): string | undefined {
        return type;
      }
    })();
}

/**
 * The response mapper serves PATCH as well as GET, so a fault that rewrites a field the patch sent
 * also breaks what the update returns: those variants trip the PATCH requirement too.
 */
export const SCHEMA_VARIANTS: Variant[] = [
  /** Timestamps go through Date#toISOString and keep their milliseconds. */
  {
    id: 'fractional-second-timestamps',
    fault:
      'Timestamps are written with Date#toISOString and carry fractional seconds (2023-03-14T09:26:53.000Z).',
    trips: ['timestamp-format'],
    create: timestamps((stored) => new Date(stored).toISOString()),
  },
  /** Timestamps are written with a +00:00 offset instead of Z. */
  {
    id: 'offset-timestamps',
    fault: 'Timestamps carry the offset +00:00 instead of Z.',
    trips: ['timestamp-format'],
    create: timestamps((stored) => stored.replace(/Z$/, '+00:00')),
  },
  /** The response mapper drops accountHolderName, a required field. */
  {
    id: 'missing-account-holder-name',
    fault: 'The required field accountHolderName is missing from the returned counterparty.',
    trips: ['counterparty-schema', 'patch-sent-fields-applied'],
    create: presenting(({ accountHolderName: _dropped, ...rest }) => rest),
  },
  /** The counterparty state is returned in lower case ('active'). */
  {
    id: 'lower-case-state',
    fault: "The counterparty state is returned in lower case ('active'), outside the enum ACTIVE/INACTIVE.",
    trips: ['counterparty-schema'],
    create: presenting((body) => ({ ...body, state: body.state.toLowerCase() })),
  },
  /** mobileNumber is returned in E.164 form with a leading '+'. */
  {
    id: 'mobile-number-plus',
    fault: "mobileNumber is returned in E.164 form with a leading '+', outside the digits-only pattern.",
    trips: ['counterparty-schema', 'patch-sent-fields-applied'],
    create: presenting((body) =>
      body.mobileNumber ? { ...body, mobileNumber: `+${body.mobileNumber}` } : body,
    ),
  },
  /** Accounts are returned without accountType, a required field. */
  {
    id: 'account-missing-type',
    fault: 'Counterparty accounts are returned without the required field accountType.',
    trips: ['account-schema'],
    create: presentingAccounts(({ accountType: _dropped, ...rest }) => rest),
  },
  /** Account currencies are decoded by index with the bill currency list, so EUR comes back as INR. */
  {
    id: 'account-currency-inr',
    fault:
      'Account currencies are decoded with the bill currency list (INR, USD, EUR, GBP), so EUR comes back as INR.',
    trips: ['account-schema', 'patch-accounts-appended'],
    create: () => {
      const accountCodes = spec().schema('Currency').enum!;
      const billCodes = spec().schema('BillCurrencyCode').enum!;
      return presentingAccounts((a) =>
        a.currency ? { ...a, currency: billCodes[accountCodes.indexOf(a.currency)] } : a,
      )();
    },
  },
  /** The v1.1.0 region code UK is returned as the address country, which the list does not hold. */
  {
    id: 'address-country-uk',
    fault:
      'The address country of the United Kingdom is returned as UK (the v1.1.0 region code) instead of GB.',
    trips: ['address-schema', 'patch-sent-fields-applied'],
    create: presentingAddress((address) =>
      address.country === 'GB' ? { ...address, country: 'UK' } : address,
    ),
  },
  /** A multi-line address is returned with a newline, a character the addressLine pattern forbids. */
  {
    id: 'address-line-newline',
    fault: 'The address line is returned with a newline between its lines, outside the addressLine pattern.',
    trips: ['address-schema', 'patch-sent-fields-applied'],
    create: presentingAddress((address) => ({
      ...address,
      addressLine: address.addressLine?.replace(', ', '\n'),
    })),
  },
  /** The reference is normalised to upper case in the response. */
  {
    id: 'reference-upper-cased',
    fault:
      'The returned counterpartyReference is upper-cased, so it is not the reference that was asked for.',
    trips: ['counterparty-reference-echo'],
    create: presenting((body) => ({
      ...body,
      counterpartyReference: body.counterpartyReference.toUpperCase(),
    })),
  },
  /** The response mapper drops counterpartyReference (the client "already knows it"). */
  {
    id: 'reference-omitted',
    fault:
      'The returned counterparty lacks counterpartyReference, a required field that must echo the reference.',
    trips: ['counterparty-schema', 'counterparty-reference-echo'],
    create: presenting(({ counterpartyReference: _dropped, ...rest }) => rest),
  },
  /** JSON is sent as text/plain. */
  {
    id: 'text-plain-content-type',
    fault: 'JSON bodies are sent with Content-Type: text/plain.',
    trips: ['counterparty-json', 'response-json-media-type'],
    create: mediaType('text/plain; charset=utf-8'),
  },
  /** JSON is sent without any Content-Type. */
  {
    id: 'missing-content-type',
    fault: 'JSON bodies are sent without a Content-Type header.',
    trips: ['counterparty-json', 'response-json-media-type'],
    create: mediaType(undefined),
  },
];
