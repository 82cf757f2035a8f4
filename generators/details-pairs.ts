/**
 * Every pair of values of the finite fields of `counterpartyDetails` (interface.md §2.1, §2.2,
 * §4.2), by a pairwise covering array (generators/covering-array.ts) rather than by the seed.
 * The finite fields of a details patch are, read from the spec's PatchCounterpartyDetails: which
 * fields it carries (each detail field and each field of the address, present or left out: the
 * patch "contains only the fields to change"), and the value of each enumerated one (the
 * address's country, from the country list, or left out). So a deployment that refuses a
 * combination the document allows (an address in GB without a postal code, an email address
 * without a mobile number) is caught on every run, where packs of random cases paired them on
 * some seeds only.
 *
 * A row fixes which fields are present and the enumerated values; the strings of the present
 * fields are not part of the pair, so the probe's packing lets other cases fill them (each row a
 * PATCH the other cases join), and a row alone carries a plain valid string there (its filler).
 * Rows hold at least the patch's minProperties of fields, and an address only with one of its
 * fields (an empty address is not a valid value here: generators/patch-details.ts).
 */
import { spec, type SchemaNode } from '../spec/index.ts';
import { coveringArray, type CoveringArray, type Factor } from './covering-array.ts';
import { emailOfLength, stringField, stringWith } from './fields.ts';
import { keeps, labelled, type Labelled } from './labelled.ts';
import { DETAILS_MIN_PROPERTIES, type PatchDetails } from './patch-details.ts';

/** A factor's value: whether a field is present, an enum member, or undefined for one left out. */
export type DetailPairValue = boolean | string | undefined;

/** One finite field of counterpartyDetails: a field's presence, or an enumerated field's value. */
export interface DetailSlot {
  /** Its name in the packing's slots: 'remarks', 'address.postalCode', 'address.country'. */
  slot: string;
  /** The detail property, and the address's field within it. */
  path: readonly [string] | readonly [string, string];
  /** `presence`: present or left out, any valid string; `values`: one of the enum, or left out. */
  kind: 'presence' | 'values';
  values: readonly DetailPairValue[];
  /** A plain valid value of a present field (for `presence`). */
  filler?: string;
}

/** A plain valid string of a field: its word characters (or an email address), of a middling length. */
function fillerOf(node: SchemaNode, field: string): string {
  const f = stringField(node, field);
  const n = Math.min(f.maxLength, Math.max(f.minLength, 12));
  return f.format === 'email' ? emailOfLength(Math.max(n, 6)) : stringWith(f, '', n);
}

function slotOf(path: readonly [string] | readonly [string, string], node: SchemaNode): DetailSlot {
  const slot = path.join('.');
  if (node.enum !== undefined) return { slot, path, kind: 'values', values: [undefined, ...node.enum] };
  if (node.type !== 'string')
    throw new Error(`spec: counterpartyDetails.${slot} is neither a string nor an enum`);
  return {
    slot,
    path,
    kind: 'presence',
    values: [false, true],
    filler: fillerOf(node, `counterpartyDetails.${slot}`),
  };
}

/** The finite fields of a details patch, read from the spec: an object's fields each on its own. */
export const DETAIL_SLOTS: readonly DetailSlot[] = Object.entries(
  spec().schema('PatchCounterpartyDetails').properties ?? {},
).flatMap(([key, ref]) => {
  const node = spec().deref(ref);
  return node.type === 'object' && node.properties !== undefined
    ? Object.entries(node.properties).map(([sub, child]) => slotOf([key, sub], spec().deref(child)))
    : [slotOf([key], node)];
});

/** The rule keyword of a pair case (a covering row): the packing treats its fields as its own. */
export const PAIRS = 'pairs';

const present = (v: DetailPairValue): boolean => v !== undefined && v !== false;

/** The details of a row: its present fields with their fillers, its enumerated values. */
export function detailsOfRow(row: readonly DetailPairValue[]): PatchDetails {
  const top: [string, unknown][] = [];
  const nested = new Map<string, [string, unknown][]>();
  DETAIL_SLOTS.forEach((s, k) => {
    const v = row[k];
    if (!present(v)) return;
    const value = s.kind === 'presence' ? s.filler : v;
    const [key, sub] = s.path;
    if (sub === undefined) top.push([key, value]);
    else nested.set(key, [...(nested.get(key) ?? []), [sub, value]]);
  });
  // Built with fromEntries: the names are the spec's, but a data name is never assigned into an object.
  return Object.fromEntries([
    ...top,
    ...[...nested].map(([key, fields]) => [key, Object.fromEntries(fields)] as [string, unknown]),
  ]) as PatchDetails;
}

/** The covering array of the details' finite fields, over rows with enough fields. */
export function detailsPairArray(): CoveringArray<DetailPairValue> {
  const factors: Factor<DetailPairValue>[] = DETAIL_SLOTS.map((s) => ({ name: s.slot, values: s.values }));
  return coveringArray(factors, {
    allowed: (row) => Object.keys(detailsOfRow(row)).length >= Math.max(1, DETAILS_MIN_PROPERTIES),
  });
}

/** One line naming a row: the fields it carries and those it leaves out. */
export function describeDetailsRow(row: readonly DetailPairValue[]): string {
  const carried = DETAIL_SLOTS.flatMap((s, k) =>
    !present(row[k]) ? [] : s.kind === 'values' ? [`${s.slot} ${String(row[k])}`] : [s.slot],
  );
  const left = DETAIL_SLOTS.flatMap((s, k) => (present(row[k]) ? [] : [s.slot]));
  return `${carried.join(', ')}${left.length > 0 ? `; without ${left.join(', ')}` : ''}`;
}

/** The rows of the covering array as explicit cases, in the array's order. */
export function detailsPairBodies(
  array: CoveringArray<DetailPairValue> = detailsPairArray(),
): Labelled<{ counterpartyDetails: PatchDetails }>[] {
  return array.rows.map((row, i) =>
    labelled(
      { counterpartyDetails: detailsOfRow(row) },
      keeps(
        'counterpartyDetails',
        PAIRS,
        `details ${i + 1} of the ${array.rows.length} covering every pair of fields and values: ${describeDetailsRow(row)}`,
      ),
    ),
  );
}
