/**
 * Every pair of the finite fields of `counterpartyDetails` (interface.md §2.1, §2.2, §4.2), by a
 * pairwise covering array (generators/covering-array.ts) rather than by the seed. The finite
 * fields of a details patch are, read from the spec's PatchCounterpartyDetails, which fields it
 * carries: each detail field and each field of the address (its country too), present or left
 * out, as the patch "contains only the fields to change". So a deployment that refuses two
 * fields together, or one without the other, that the document allows (a postal code without an
 * address line, an email address without a holder name) is caught on every run, where the packs
 * of the other cases paired them as their number per field happened to fall. The values of the
 * enumerated field (the address country) are each sent, not paired: PAIR_ENUM_VALUES says why.
 *
 * A row fixes which fields are present (and, with PAIR_ENUM_VALUES, the enumerated values); the
 * strings of the present fields are not part of the pair, so the probe's packing lets other
 * cases fill them (each row a PATCH the other cases join), and a row alone carries a plain valid
 * value there (its filler). Rows hold at least the patch's minProperties of fields, and an address
 * only with one of its fields (an empty address is not a valid value here:
 * generators/patch-details.ts).
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
  /**
   * An enumerated field paired by its presence only: its members, which the rows take in turn
   * (its value is then the row's own, not one for other cases to fill: a case of the same value
   * joins the row, so a row is never taken for a boundary case equal to it and left open).
   */
  members?: readonly string[];
}

/** A plain valid string of a field: its word characters (or an email address), of a middling length. */
function fillerOf(node: SchemaNode, field: string): string {
  const f = stringField(node, field);
  const n = Math.min(f.maxLength, Math.max(f.minLength, 12));
  return f.format === 'email' ? emailOfLength(Math.max(n, 6)) : stringWith(f, '', n);
}

/**
 * Whether an enumerated field's values enter the pairs, or only its presence. Off: every value of
 * the address country paired with every other field present and left out takes two PATCHes per
 * country, 78 where the packed cases take some 42, and 5.5 s more for a write run on one writable
 * counterparty at 150 ms a request, past its 30 s goal (docs/performance.md); each country is
 * still sent, by a boundary case of its own (validPatchDetailsExamples), with whatever fields the
 * packing gives it.
 */
export const PAIR_ENUM_VALUES = false;

function slotOf(path: readonly [string] | readonly [string, string], node: SchemaNode): DetailSlot {
  const slot = path.join('.');
  if (node.enum !== undefined && PAIR_ENUM_VALUES)
    return { slot, path, kind: 'values', values: [undefined, ...node.enum] };
  if (node.enum !== undefined)
    return { slot, path, kind: 'presence', values: [false, true], members: node.enum.map(String) };
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
export function detailsOfRow(row: readonly DetailPairValue[], index = 0): PatchDetails {
  const top: [string, unknown][] = [];
  const nested = new Map<string, [string, unknown][]>();
  DETAIL_SLOTS.forEach((s, k) => {
    const v = row[k];
    if (!present(v)) return;
    const value =
      s.kind === 'values' ? v : s.members !== undefined ? s.members[index % s.members.length] : s.filler;
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
      { counterpartyDetails: detailsOfRow(row, i) },
      keeps(
        'counterpartyDetails',
        PAIRS,
        `details ${i + 1} of the ${array.rows.length} covering every pair of fields and values: ${describeDetailsRow(row)}`,
      ),
    ),
  );
}
