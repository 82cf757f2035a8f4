/**
 * Valid and invalid `counterpartyDetails` of PATCH /api/v1/counterparties/{ref} (interface.md
 * sections 2.1, 2.2 and 4.2). Every field is read from spec/openapi.yaml through generators/fields.ts.
 * Valid arbitraries produce plain values; invalid ones produce `Labelled<unknown>` values that break
 * exactly one rule, named by `rule.field` (a path such as 'counterpartyDetails.remarks') and
 * `rule.keyword` (the JSON Schema keyword).
 */
import fc from 'fast-check';
import { spec, type SchemaNode } from '../spec/index.ts';
import { breaks, invertibleMap, isLabelled, labelled, sameLabelled, showChar } from './labelled.ts';
import {
  DELIBERATE_BAD_COUNTRIES,
  badEnum,
  enumField,
  enumRule,
  invalidStringField,
  labelledFrom,
  asString,
  badEmailFormatExamples,
  emailOfLength,
  fillString,
  notInEnum,
  nullValue,
  patternString,
  stringField,
  stringWith,
  unlistedCountry,
  validCountry,
  validEmail,
  withBrokenField,
  withUnknownProperty,
  wrongType,
  COUNTRIES,
  type L,
  type StringField,
} from './fields.ts';
import { PROTOTYPE_NAMES } from './prototype-names.ts';
import { takeOwn } from '../exchange/own.ts';

const details = (prop: string): SchemaNode => spec().property('PatchCounterpartyDetails', prop);
const address = (prop: string): SchemaNode => spec().property('Address', prop);

export const HOLDER_NAME = stringField(details('accountHolderName'), 'counterpartyDetails.accountHolderName');
export const EMAIL = stringField(details('emailAddress'), 'counterpartyDetails.emailAddress');
export const MOBILE = stringField(details('mobileNumber'), 'counterpartyDetails.mobileNumber');
export const REMARKS = stringField(details('remarks'), 'counterpartyDetails.remarks');
export const ADDRESS_LINE = stringField(address('addressLine'), 'counterpartyDetails.address.addressLine');
export const POSTAL_CODE = stringField(address('postalCode'), 'counterpartyDetails.address.postalCode');
export const ADDRESS_COUNTRY = enumField(
  address('country'),
  'counterpartyDetails.address.country',
  'Country',
);

/** The properties counterpartyDetails permits (section 4.2). */
export const DETAIL_PROPERTIES: readonly string[] = Object.keys(
  spec().schema('PatchCounterpartyDetails').properties ?? {},
);
/** The minimum number of properties of counterpartyDetails. */
export const DETAILS_MIN_PROPERTIES: number = spec().schema('PatchCounterpartyDetails').minProperties ?? 0;

const REFERENCE = stringField(
  spec().schema('CounterpartyReference'),
  'counterpartyDetails.counterpartyReference',
);

// ---------------------------------------------------------------------------------------------
// Valid strings
// ---------------------------------------------------------------------------------------------

export function validAccountHolderName(): fc.Arbitrary<string> {
  return patternString(HOLDER_NAME, HOLDER_NAME.minLength, HOLDER_NAME.maxLength);
}
export function validMobileNumber(): fc.Arbitrary<string> {
  return patternString(MOBILE, MOBILE.minLength, MOBILE.maxLength);
}
export function validRemarks(): fc.Arbitrary<string> {
  return patternString(REMARKS, REMARKS.minLength, REMARKS.maxLength);
}
export function validAddressLine(): fc.Arbitrary<string> {
  return patternString(ADDRESS_LINE, ADDRESS_LINE.minLength, ADDRESS_LINE.maxLength);
}
export function validPostalCode(): fc.Arbitrary<string> {
  return patternString(POSTAL_CODE, POSTAL_CODE.minLength, POSTAL_CODE.maxLength);
}

export type Address = { addressLine?: string; postalCode?: string; country?: string };
export type PatchDetails = {
  accountHolderName?: string;
  emailAddress?: string;
  mobileNumber?: string;
  remarks?: string;
  address?: Address;
};

const nonEmpty = (o: object): boolean => Object.keys(o).length > 0;

/**
 * Addresses with at least one of their fields (the schema would accept `{}`, but the document
 * describes an address as its fields, so the empty address is left out of the valid values).
 */
export function validAddress(): fc.Arbitrary<Address> {
  return fc
    .record(
      { addressLine: validAddressLine(), postalCode: validPostalCode(), country: validCountry() },
      { requiredKeys: [] },
    )
    .filter(nonEmpty);
}

function detailsRecord(): fc.Arbitrary<PatchDetails> {
  return fc.record(
    {
      accountHolderName: validAccountHolderName(),
      emailAddress: validEmail(EMAIL),
      mobileNumber: validMobileNumber(),
      remarks: validRemarks(),
      address: validAddress(),
    },
    { requiredKeys: [] },
  );
}

/** Valid counterpartyDetails: every field alone and in every combination, at least one field. */
export function validPatchDetails(): fc.Arbitrary<PatchDetails> {
  return detailsRecord().filter((d) => Object.keys(d).length >= Math.max(1, DETAILS_MIN_PROPERTIES));
}

// ---------------------------------------------------------------------------------------------
// Invalid details
// ---------------------------------------------------------------------------------------------

/** Remarks that break one rule: length, a forbidden character, a leading or trailing space, type, null. */
export function invalidRemarks(): fc.Arbitrary<L> {
  return invalidStringField(REMARKS);
}
export function invalidAccountHolderName(): fc.Arbitrary<L> {
  return invalidStringField(HOLDER_NAME);
}
export function invalidEmail(): fc.Arbitrary<L> {
  return invalidStringField(EMAIL);
}
export function invalidMobileNumber(): fc.Arbitrary<L> {
  return invalidStringField(MOBILE);
}
export function invalidAddressLine(): fc.Arbitrary<L> {
  return invalidStringField(ADDRESS_LINE);
}
export function invalidPostalCode(): fc.Arbitrary<L> {
  return invalidStringField(POSTAL_CODE);
}

/** address.country outside the country list: deliberate values, lower-case members, unlisted codes. */
export function invalidAddressCountry(): fc.Arbitrary<L> {
  const f = ADDRESS_COUNTRY;
  return fc.oneof(
    badEnum(f, notInEnum(f, DELIBERATE_BAD_COUNTRIES)),
    labelledFrom(unlistedCountry(), (v) => labelled(v, enumRule(f, v)), asString),
    wrongType(f.field, 'string'),
    nullValue(f.field, 'string'),
  );
}

/** Addresses with one broken field (the others valid or absent), or an address that is not an object. */
export function invalidAddress(): fc.Arbitrary<L> {
  const base = fc.record(
    { addressLine: validAddressLine(), postalCode: validPostalCode(), country: validCountry() },
    { requiredKeys: [] },
  );
  const field = 'counterpartyDetails.address';
  return fc.oneof(
    withBrokenField('addressLine', invalidAddressLine(), base),
    withBrokenField('postalCode', invalidPostalCode(), base),
    withBrokenField('country', invalidAddressCountry(), base),
    wrongType(field, 'object'),
    nullValue(field, 'object'),
  );
}

/** A property that the document names but forbids in counterpartyDetails, with a plausible value. */
function forbiddenDetail(key: string, values: fc.Arbitrary<string>, why: string): fc.Arbitrary<L> {
  return invertibleMap(
    fc.tuple(values, detailsRecord()),
    ([v, o]) =>
      labelled({ ...o, [key]: v }, breaks(`counterpartyDetails.${key}`, 'additionalProperties', why)),
    (v) => {
      if (!isLabelled(v) || v.value === null || typeof v.value !== 'object') return [];
      const taken = takeOwn(v.value as Record<string, unknown>, key);
      return typeof taken?.value === 'string'
        ? [[taken.value, taken.rest as PatchDetails] as [string, PatchDetails]]
        : [];
    },
    sameLabelled,
  );
}

/** counterpartyReference inside counterpartyDetails: the reference is immutable. */
export function detailsWithReference(): fc.Arbitrary<L> {
  return forbiddenDetail(
    'counterpartyReference',
    patternString(REFERENCE, REFERENCE.minLength, REFERENCE.maxLength),
    'counterpartyReference is immutable and not a permitted property of counterpartyDetails',
  );
}

/** The channels the document names as createdBy values (section 2.1). */
export const CREATED_BY_VALUES: readonly string[] = ['API', 'web', 'link'];

/** createdBy inside counterpartyDetails: filled by the service, not writable by the client. */
export function detailsWithCreatedBy(): fc.Arbitrary<L> {
  return forbiddenDetail(
    'createdBy',
    fc.constantFrom(...CREATED_BY_VALUES),
    'createdBy is filled by the service and not a permitted property of counterpartyDetails',
  );
}

export function emptyDetailsRule(): L['rule'] {
  return breaks(
    'counterpartyDetails',
    'minProperties',
    `counterpartyDetails {} has 0 properties < minProperties ${DETAILS_MIN_PROPERTIES}`,
  );
}

/** Deliberate unknown names: response-only fields and near-misses of permitted ones. */
export const DELIBERATE_UNKNOWN_DETAILS: readonly string[] = [
  'state',
  'createdAt',
  'counterpartyAccounts',
  'email',
  'Remarks',
];

/**
 * counterpartyDetails that break one rule: a broken field (the other fields valid or absent),
 * an unknown property, counterpartyReference or createdBy, an empty object, or not an object.
 */
export function invalidPatchDetails(): fc.Arbitrary<L> {
  const base = detailsRecord();
  return fc.oneof(
    withBrokenField('accountHolderName', invalidAccountHolderName(), base),
    withBrokenField('emailAddress', invalidEmail(), base),
    withBrokenField('mobileNumber', invalidMobileNumber(), base),
    withBrokenField('remarks', invalidRemarks(), base),
    withBrokenField('address', invalidAddress(), base),
    withUnknownProperty('counterpartyDetails', DETAIL_PROPERTIES, DELIBERATE_UNKNOWN_DETAILS, base),
    detailsWithReference(),
    detailsWithCreatedBy(),
    labelledFrom(
      fc.constant(null),
      () => labelled({}, emptyDetailsRule()),
      (v) =>
        v !== null && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length === 0 ? [null] : [],
    ),
    wrongType('counterpartyDetails', 'object'),
    nullValue('counterpartyDetails', 'object'),
  );
}

// ---------------------------------------------------------------------------------------------
// Boundary examples, run before the random cases
// ---------------------------------------------------------------------------------------------

/**
 * Valid details at the edges: every string field at its exact length bounds, cycling through every
 * character its pattern allows (apostrophes, commas and hyphens in remarks; `# / : ? '` in address
 * lines; spaces in holder names), 16-digit mobile numbers, email addresses of 6 and 255
 * characters, every country of the list (GB included), and all fields at once.
 */
export function validPatchDetailsExamples(): PatchDetails[] {
  const bounds = (key: keyof PatchDetails, f: StringField): PatchDetails[] => {
    const full = Math.ceil((f.allowed.length + f.separators.length) / f.maxLength);
    return [
      { [key]: fillString(f, f.minLength) },
      ...Array.from({ length: full }, (_, i) => ({ [key]: fillString(f, f.maxLength, i * f.maxLength) })),
    ];
  };
  const addressBounds = (key: keyof Address, f: StringField): PatchDetails[] =>
    bounds(key as keyof PatchDetails, f).map((d) => ({ address: d as Address }));
  return [
    ...bounds('accountHolderName', HOLDER_NAME),
    ...bounds('mobileNumber', MOBILE),
    ...bounds('remarks', REMARKS),
    { emailAddress: emailOfLength(EMAIL.minLength) },
    { emailAddress: emailOfLength(EMAIL.maxLength, 'x', 'y') },
    { emailAddress: "o'neill+payables@acme-supplies.example" },
    ...addressBounds('addressLine', ADDRESS_LINE),
    ...addressBounds('postalCode', POSTAL_CODE),
    { accountHolderName: 'Jane  Doe-Smith Ltd' },
    { remarks: "O'Neill, net-30 terms. Pay by 5th" },
    { mobileNumber: '4477009001234567' },
    {
      address: {
        addressLine: "Flat #4, 221/B Baker Street: door? 'A' (rear) @reception",
        postalCode: 'NW1 6XE',
      },
    },
    ...COUNTRIES.map((country) => ({ address: { country } })),
    {
      accountHolderName: 'Boundary Holder',
      emailAddress: 'jane.doe@example.com',
      mobileNumber: '49301234567',
      remarks: 'all fields at once',
      address: { addressLine: '1 Main St', postalCode: '10115', country: 'DE' },
    },
  ];
}

/**
 * Invalid details at the edges: every string field one past each length bound, a forbidden
 * character of each kind, leading and trailing spaces in remarks, every email format break,
 * unlisted and lower-case countries (UK included), forbidden and unknown properties, wrong types
 * and null.
 */
export function invalidPatchDetailsExamples(): L[] {
  const out: L[] = [];
  const at = (key: string, value: unknown, rule: L['rule']): L => {
    const path = key.split('.');
    const details = path.length === 1 ? { [key]: value } : { address: { [path[1]!]: value } };
    return labelled(details, rule);
  };
  const fields: [string, StringField][] = [
    ['accountHolderName', HOLDER_NAME],
    ['emailAddress', EMAIL],
    ['mobileNumber', MOBILE],
    ['remarks', REMARKS],
    ['address.addressLine', ADDRESS_LINE],
    ['address.postalCode', POSTAL_CODE],
  ];
  for (const [key, f] of fields) {
    const short = f.minLength - 1;
    const long = f.maxLength + 1;
    const sized = (n: number): string => (f.format === 'email' ? emailOfLength(n) : fillString(f, n));
    if (short >= (f.format === 'email' ? 5 : 0)) {
      out.push(
        at(
          key,
          sized(short),
          breaks(f.field, 'minLength', `${f.name} of length ${short} < minLength ${f.minLength}`),
        ),
      );
    }
    out.push(
      at(
        key,
        sized(long),
        breaks(f.field, 'maxLength', `${f.name} of length ${long} > maxLength ${f.maxLength}`),
      ),
    );
    if (f.pattern !== undefined) {
      const ascii = f.forbidden.filter((c) => c.charCodeAt(0) < 0x7f);
      for (const c of [ascii[0], ascii[ascii.length - 1], 'é']) {
        if (c === undefined || !f.forbidden.includes(c)) continue;
        out.push(
          at(
            key,
            stringWith(f, c),
            breaks(f.field, 'pattern', `${f.name} with ${showChar(c)}, outside ${f.pattern}`),
          ),
        );
      }
    }
    out.push(at(key, 42, breaks(f.field, 'type', `${f.name} is a number where a string is expected`)));
    out.push(at(key, null, breaks(f.field, 'type', `${f.name} is null where a string is expected`)));
  }
  const r = REMARKS;
  out.push(
    labelled({ remarks: ' net 30' }, breaks(r.field, 'pattern', 'remarks with a leading " " (U+0020)')),
    labelled({ remarks: 'net 30 ' }, breaks(r.field, 'pattern', 'remarks with a trailing " " (U+0020)')),
    labelled({ remarks: 'net\t30' }, breaks(r.field, 'pattern', 'remarks with "\\t" (U+0009) between words')),
  );
  for (const e of badEmailFormatExamples(EMAIL)) out.push(labelled({ emailAddress: e.value }, e.rule));
  const c = ADDRESS_COUNTRY;
  for (const v of ['UK', 'gb', 'ZZ', 'DEU']) out.push(labelled({ address: { country: v } }, enumRule(c, v)));
  out.push(
    labelled({}, emptyDetailsRule()),
    labelled(
      { remarks: 'renamed', counterpartyReference: 'ACME-renamed-0001' },
      breaks(
        'counterpartyDetails.counterpartyReference',
        'additionalProperties',
        'counterpartyReference is immutable and not a permitted property of counterpartyDetails',
      ),
    ),
    labelled(
      { createdBy: 'web' },
      breaks(
        'counterpartyDetails.createdBy',
        'additionalProperties',
        'createdBy is filled by the service and not a permitted property of counterpartyDetails',
      ),
    ),
    labelled(
      { state: 'INACTIVE' },
      breaks(
        'counterpartyDetails',
        'additionalProperties',
        'unknown property "state" in counterpartyDetails',
      ),
    ),
    labelled(
      { address: 'Unit 4, Harbour Road' },
      breaks('counterpartyDetails.address', 'type', 'address is a string where an object is expected'),
    ),
    // Names every plain object answers, each an unknown property like any other; __proto__ with an
    // object too, as a merge that assigns it would take it for the prototype. JSON.parse makes
    // __proto__ an own key, where an object literal would set the prototype.
    ...PROTOTYPE_NAMES.map((name) =>
      labelled(
        { [name]: 'x' },
        breaks(
          'counterpartyDetails',
          'additionalProperties',
          `unknown property ${JSON.stringify(name)} in counterpartyDetails`,
        ),
      ),
    ),
    labelled(
      JSON.parse('{"remarks":"net 30","__proto__":{"remarks":"from the prototype"}}') as PatchDetails,
      breaks(
        'counterpartyDetails',
        'additionalProperties',
        'unknown property "__proto__" (an object) in counterpartyDetails',
      ),
    ),
  );
  return out;
}
