/**
 * Whole request bodies of PATCH /api/v1/counterparties/{ref} (interface.md sections 4.2, 8), read
 * from the spec's PatchCounterpartyRequest: valid bodies (details only, accounts only, both) and
 * invalid bodies that break exactly one rule, including bodies whose other part is valid (a patch
 * must be applied as a whole or not at all) and texts that are not JSON at all.
 *
 * A labelled invalid value whose rule keyword is `json` carries the raw request text; every other
 * value is sent as JSON.
 */
import fc from 'fast-check';
import { spec } from '../spec/index.ts';
import type { AccountFixture } from './account-fixture.ts';
import {
  labelledFrom,
  validEmail,
  nullValue,
  withBrokenField,
  withUnknownProperty,
  wrongType,
  type L,
} from './fields.ts';
import { breaks, keeps, labelled, type Labelled } from './labelled.ts';
import { structuralEdges } from './finite-classes.ts';
import {
  invalidPatchAccount,
  invalidPatchAccountExamples,
  patchAccount,
  validPatchAccount,
  type PatchAccount,
} from './patch-accounts.ts';
import {
  EMAIL,
  invalidPatchDetails,
  invalidPatchDetailsExamples,
  REMARKS,
  validAccountHolderName,
  validAddressLine,
  validMobileNumber,
  validPatchDetails,
  validPostalCode,
  validRemarks,
  validPatchDetailsExamples,
  type PatchDetails,
} from './patch-details.ts';
import { PROTOTYPE_NAMES } from './prototype-names.ts';

export interface PatchBody {
  counterpartyDetails?: PatchDetails;
  counterpartyAccounts?: PatchAccount[];
}

const request = spec().schema('PatchCounterpartyRequest');
/** The top-level properties a patch body permits (section 4.2). */
export const BODY_PROPERTIES: readonly string[] = Object.keys(request.properties ?? {});
/** The minimum number of accounts in counterpartyAccounts. */
export const ACCOUNTS_MIN_ITEMS: number = request.properties?.counterpartyAccounts?.minItems ?? 1;
/** The rule keyword of a labelled body that is raw text, not JSON. */
export const MALFORMED_JSON = 'json';
/** The most accounts one generated valid body adds (each one stays on the writable counterparty). */
export const MAX_ACCOUNTS_PER_BODY = 2;

/** One line naming what a valid body changes, e.g. 'counterpartyDetails {remarks, address} and 1 account'. */
export function describeBody(body: PatchBody): string {
  const parts: string[] = [];
  if (body.counterpartyDetails)
    parts.push(`counterpartyDetails {${Object.keys(body.counterpartyDetails).join(', ')}}`);
  const n = body.counterpartyAccounts?.length ?? 0;
  if (n > 0) parts.push(`${n} account${n === 1 ? '' : 's'}`);
  return parts.join(' and ');
}

function validLabel(body: PatchBody): Labelled<PatchBody> {
  return labelled(body, keeps('body', 'schema', `a valid patch: ${describeBody(body)}`));
}

const unlabel = (v: unknown): PatchBody => {
  if (v !== null && typeof v === 'object' && 'value' in v) return (v as Labelled<PatchBody>).value;
  throw new Error('not a labelled body');
};

/** Valid bodies that only change details: every detail field alone and in every combination. */
export function validDetailsBody(): fc.Arbitrary<Labelled<PatchBody>> {
  return validPatchDetails().map(
    (counterpartyDetails) => validLabel({ counterpartyDetails }),
    (v) => {
      const body = unlabel(v);
      if (!body.counterpartyDetails || body.counterpartyAccounts) throw new Error('not a details body');
      return body.counterpartyDetails;
    },
  );
}

/** In how many random cases of the valid-details property one is a body of any combination. */
export const COMBINED_DETAILS_ONE_IN = 10;

/**
 * The fields a random case of the valid-details property sets alone, by the name of its part in
 * a PATCH (probes/counterparty-patch.ts DETAILS_PACKING): a field, or a field of the address.
 */
export const SINGLE_DETAIL_PARTS = [
  'accountHolderName',
  'emailAddress',
  'mobileNumber',
  'remarks',
  'address.addressLine',
  'address.postalCode',
] as const;
export type SingleDetailPart = (typeof SINGLE_DETAIL_PARTS)[number];

/**
 * The random cases of the valid-details property (probes/counterparty-patch.ts). Most set one
 * field, or one field of the address, to a random valid value: cases on different fields share a
 * PATCH (DETAILS_PACKING), with the explicit cases and with each other, so the combinations the
 * run sends are the packs', and a failing value is found and shrunk as the single field it is.
 * One in COMBINED_DETAILS_ONE_IN is a body of any combination of fields (validDetailsBody),
 * which goes alone where no pack has all its fields free: random combinations stay explored
 * without a PATCH each. Were every random case such a body, 100 random cases would take some 68
 * PATCHes of their own: on one writable counterparty at 150 ms a request, 10 s of a run.
 *
 * `weights` draws each field alone in proportion to its weight (by default all alike): the probe
 * gives the places its explicit PATCHes leave free for that field, so the random cases fill them
 * rather than a field whose places are taken, where each would need a PATCH of its own.
 */
export function validDetailsFieldBody(
  weights?: Readonly<Record<SingleDetailPart, number>>,
): fc.Arbitrary<Labelled<PatchBody>> {
  const one = (details: fc.Arbitrary<PatchDetails>): fc.Arbitrary<Labelled<PatchBody>> =>
    details.map((counterpartyDetails) => validLabel({ counterpartyDetails }));
  const fields: Record<SingleDetailPart, fc.Arbitrary<Labelled<PatchBody>>> = {
    accountHolderName: one(validAccountHolderName().map((accountHolderName) => ({ accountHolderName }))),
    emailAddress: one(validEmail(EMAIL).map((emailAddress) => ({ emailAddress }))),
    mobileNumber: one(validMobileNumber().map((mobileNumber) => ({ mobileNumber }))),
    remarks: one(validRemarks().map((remarks) => ({ remarks }))),
    'address.addressLine': one(validAddressLine().map((addressLine) => ({ address: { addressLine } }))),
    'address.postalCode': one(validPostalCode().map((postalCode) => ({ address: { postalCode } }))),
    // No country alone: the country list is finite, and every member of it is an explicit case
    // already; a random one would only take a PATCH of its own. Combined bodies draw countries.
  };
  // Every field keeps a weight of at least 1: none is left out of the exploration.
  const single = fc.oneof(
    ...SINGLE_DETAIL_PARTS.map((part) => ({
      arbitrary: fields[part],
      weight: Math.max(1, Math.round(weights?.[part] ?? 1)),
    })),
  );
  // The combined bodies come first: they hold the unmapper, so the explicit examples (bodies of
  // any shape) shrink as they did.
  return fc.oneof(
    { arbitrary: validDetailsBody(), weight: 1 },
    { arbitrary: single, weight: COMBINED_DETAILS_ONE_IN - 1 },
  );
}

function accounts(fixture: AccountFixture): fc.Arbitrary<PatchAccount[]> {
  return fc.array(validPatchAccount(fixture), {
    minLength: ACCOUNTS_MIN_ITEMS,
    maxLength: MAX_ACCOUNTS_PER_BODY,
  });
}

/** Valid bodies that add accounts: accounts only, or accounts and details together. */
export function validAccountsBody(fixture: AccountFixture): fc.Arbitrary<Labelled<PatchBody>> {
  return fc
    .record(
      { counterpartyAccounts: accounts(fixture), counterpartyDetails: validPatchDetails() },
      { requiredKeys: ['counterpartyAccounts'] },
    )
    .map(validLabel, (v) => {
      const body = unlabel(v);
      if (!body.counterpartyAccounts) throw new Error('not an accounts body');
      return { ...body, counterpartyAccounts: body.counterpartyAccounts };
    });
}

/** Valid boundary bodies that only change details (see validPatchDetailsExamples). */
export function validDetailsBodyExamples(): Labelled<PatchBody>[] {
  return [...validPatchDetailsExamples(), ...(structuralEdges() as PatchDetails[])].map(
    (counterpartyDetails) => validLabel({ counterpartyDetails }),
  );
}

/** counterpartyAccounts holding one broken item among valid ones. */
function brokenAccounts(fixture: AccountFixture): fc.Arbitrary<L> {
  return labelledFrom(
    fc.tuple(
      invalidPatchAccount(fixture),
      fc.array(validPatchAccount(fixture), { maxLength: 1 }),
      fc.boolean(),
    ),
    ([bad, others, first]) => labelled(first ? [bad.value, ...others] : [...others, bad.value], bad.rule),
    () => [],
  );
}

function emptyAccountsRule(): L['rule'] {
  return breaks(
    'counterpartyAccounts',
    'minItems',
    `counterpartyAccounts [] has 0 items < minItems ${ACCOUNTS_MIN_ITEMS}`,
  );
}

function emptyBodyRule(): L['rule'] {
  return breaks(
    'body',
    'minProperties',
    `the body {} has 0 properties < minProperties ${request.minProperties ?? 1}`,
  );
}

/** Ways to make a valid JSON text invalid, each named. */
const MALFORMATIONS: readonly { name: string; apply: (text: string) => string }[] = [
  { name: 'truncated by one character', apply: (t) => t.slice(0, -1) },
  { name: 'with a trailing comma', apply: (t) => `${t.slice(0, -1)},}` },
  { name: 'with single-quoted strings', apply: (t) => t.replaceAll('"', "'") },
  { name: 'with an unquoted key', apply: (t) => t.replace(/^\{"([^"]+)"/, '{$1') },
  { name: 'followed by a second value', apply: (t) => `${t}{}` },
  { name: 'preceded by a comment', apply: (t) => `/* patch */${t}` },
  { name: 'empty (no JSON value at all)', apply: () => '' },
];

function malformedRule(name: string): L['rule'] {
  return breaks('body', MALFORMED_JSON, `the body is ${name}: not valid JSON`);
}

/** Texts that are not JSON: a valid body's text broken one way each. */
export function malformedBody(): fc.Arbitrary<L> {
  return labelledFrom(
    fc.tuple(validPatchDetails(), fc.nat({ max: MALFORMATIONS.length - 1 })),
    ([counterpartyDetails, i]) => {
      const m = MALFORMATIONS[i]!;
      return labelled(m.apply(JSON.stringify({ counterpartyDetails })), malformedRule(m.name));
    },
    () => [],
  );
}

/** Deliberate unknown top-level names: response fields and near-misses of the permitted ones. */
export const DELIBERATE_UNKNOWN_TOP: readonly string[] = [
  'accountHolderName',
  'counterpartyAccount',
  'details',
  'state',
];

/**
 * Bodies that break exactly one rule: broken details (alone or next to valid accounts), a broken
 * account among valid ones (alone or next to valid details), empty or non-array accounts, the empty
 * body, an unknown top-level property, a body that is not an object, and text that is not JSON.
 */
export function invalidPatchBody(fixture: AccountFixture): fc.Arbitrary<L> {
  const withAccounts = fc.record({ counterpartyAccounts: accounts(fixture) }, { requiredKeys: [] });
  const withDetails = fc.record({ counterpartyDetails: validPatchDetails() }, { requiredKeys: [] });
  const emptyAccounts = labelledFrom(
    fc.constant(null),
    () => labelled([], emptyAccountsRule()),
    () => [],
  );
  return fc.oneof(
    { arbitrary: withBrokenField('counterpartyDetails', invalidPatchDetails(), withAccounts), weight: 4 },
    { arbitrary: withBrokenField('counterpartyAccounts', brokenAccounts(fixture), withDetails), weight: 3 },
    {
      arbitrary: withBrokenField(
        'counterpartyAccounts',
        fc.oneof(
          emptyAccounts,
          wrongType('counterpartyAccounts', 'array'),
          nullValue('counterpartyAccounts', 'array'),
        ),
        withDetails,
      ),
      weight: 1,
    },
    { arbitrary: fc.constant(labelled({}, emptyBodyRule())), weight: 1 },
    {
      arbitrary: withUnknownProperty('body', BODY_PROPERTIES, DELIBERATE_UNKNOWN_TOP, withDetails),
      weight: 1,
    },
    { arbitrary: fc.oneof(wrongType('body', 'object'), nullValue('body', 'object')), weight: 1 },
    { arbitrary: malformedBody(), weight: 1 },
  );
}

/** Invalid boundary bodies: every details and account boundary case, the empty forms, partial bodies, non-JSON. */
export function invalidPatchBodyExamples(fixture: AccountFixture): L[] {
  const ok = patchAccount(fixture, { name: 'Valid Account' });
  const details = invalidPatchDetailsExamples().map((d) =>
    labelled({ counterpartyDetails: d.value }, d.rule),
  );
  const accountCases = invalidPatchAccountExamples(fixture).map((a) =>
    labelled({ counterpartyAccounts: [a.value] }, a.rule),
  );
  const sample = 'net 30';
  const { country: _country, ...withoutCountry } = ok;
  const tooLong = REMARKS.maxLength + 1;
  return [
    labelled({}, emptyBodyRule()),
    labelled({ counterpartyAccounts: [] }, emptyAccountsRule()),
    labelled({ counterpartyDetails: { remarks: sample }, counterpartyAccounts: [] }, emptyAccountsRule()),
    labelled(
      { remarks: sample },
      breaks(
        'body',
        'additionalProperties',
        'unknown property "remarks" in body: details belong in counterpartyDetails',
      ),
    ),
    labelled(
      { counterpartyDetails: { remarks: sample }, state: 'INACTIVE' },
      breaks('body', 'additionalProperties', 'unknown property "state" in body'),
    ),
    ...PROTOTYPE_NAMES.map((name) =>
      labelled(
        { counterpartyDetails: { remarks: sample }, [name]: 'x' },
        breaks('body', 'additionalProperties', `unknown property ${JSON.stringify(name)} in body`),
      ),
    ),
    labelled(
      { counterpartyDetails: 'remarks' },
      breaks('counterpartyDetails', 'type', 'counterpartyDetails is a string where an object is expected'),
    ),
    labelled(
      { counterpartyDetails: null },
      breaks('counterpartyDetails', 'type', 'counterpartyDetails is null where an object is expected'),
    ),
    labelled(
      { counterpartyAccounts: ok },
      breaks('counterpartyAccounts', 'type', 'counterpartyAccounts is an object where an array is expected'),
    ),
    ...details,
    ...accountCases,
    // The valid part of a partly invalid body must not be stored either.
    labelled(
      {
        counterpartyDetails: { remarks: 'valid part of a rejected patch' },
        counterpartyAccounts: [withoutCountry],
      },
      breaks(
        'counterpartyAccounts[].country',
        'required',
        'an account without country (required when accountType is BANK_ACCOUNT)',
      ),
    ),
    labelled(
      { counterpartyDetails: { remarks: 'x'.repeat(tooLong) }, counterpartyAccounts: [ok] },
      breaks(REMARKS.field, 'maxLength', `remarks of length ${tooLong} > maxLength ${REMARKS.maxLength}`),
    ),
    labelled(
      { counterpartyDetails: { accountHolderName: 'Valid Part Ltd', remarks: 'trailing ' } },
      breaks('counterpartyDetails.remarks', 'pattern', 'remarks with a trailing " " (U+0020)'),
    ),
    labelled(
      [{ counterpartyDetails: { remarks: sample } }],
      breaks('body', 'type', 'the body is an array where an object is expected'),
    ),
    labelled(null, breaks('body', 'type', 'the body is null where an object is expected')),
    labelled(
      'counterpartyDetails',
      breaks('body', 'type', 'the body is a string where an object is expected'),
    ),
    ...MALFORMATIONS.map((m) =>
      labelled(m.apply(JSON.stringify({ counterpartyDetails: { remarks: sample } })), malformedRule(m.name)),
    ),
  ];
}
