/**
 * The covering arrays of the valid-PATCH probes (probes/counterparty-patch.ts) put together with
 * what only a probe may know: the request model, which says which rows are valid (relations
 * included: SORT with GBP, ROUTING with USD), and how the rows share PATCHes. Account rows go
 * ACCOUNTS_PER_PATCH to a PATCH, so the array also sends several accounts at once; a detail row
 * fixes which fields a PATCH carries and lets other cases fill their strings.
 */
import { canonicalJson } from '../exchange/canonical-json.ts';
import { counterpartyPath } from '../exchange/paths.ts';
import { REDACTED_TOKEN } from '../exchange/redact.ts';
import { ownOf } from '../exchange/own.ts';
import { ANY_VALUE, NO_VALUE, type CasePacking, type PackValue } from '../engine/probe-api.ts';
import type { AccountFixture } from '../generators/account-fixture.ts';
import { type AccountPairOptions } from '../generators/account-pairs.ts';
import { DETAIL_SLOTS, PAIRS } from '../generators/details-pairs.ts';
import { keeps, labelled, type Labelled } from '../generators/labelled.ts';
import type { PatchBody } from '../generators/patch-body.ts';
import type { PatchDetails } from '../generators/patch-details.ts';
import { branchType, modelRequest } from '../requests/index.ts';

/**
 * How many accounts of the covering array one PATCH adds. The interface sets no maximum. Twelve
 * sends the 36 rows of the default budget in 3 PATCHes (each PATCH is 150 ms of a remote write
 * lane, one after another: six a PATCH cost 0.45 s more, four 0.9 s), and is more than the two a
 * random case adds, so a deployment that fails on three accounts in one PATCH fails a pack (and
 * the report says no single case fails alone). A pack a deployment refuses is sent again case by
 * case, so a larger pack costs more only where a row is refused.
 */
export const ACCOUNTS_PER_PATCH = 12;

/** The kind of a branch identifier the request model cannot name (its type field is not shown). */
export const OTHER_BRANCH = 'another';

/** The account rows' validity and branch kinds, from the request model, for the fixtures given. */
export function accountPairOptions(fixtures: readonly AccountFixture[]): AccountPairOptions {
  const knownAccounts = fixtures.map((f) => ({
    accountIdentifier: f.accountIdentifier,
    ...(f.branchIdentifier ? { branchIdentifier: f.branchIdentifier } : {}),
  }));
  return {
    fixtures,
    branchKind: (branch) => branchType(branch) ?? OTHER_BRANCH,
    valid: (account) =>
      modelRequest(
        {
          method: 'PATCH',
          url: counterpartyPath('pairs-check'),
          headers: { Authorization: `Bearer ${REDACTED_TOKEN}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ counterpartyAccounts: [account] }),
        },
        { knownAccounts },
      ).verdict === 'valid',
  };
}

/** One label for a merged pack: its cases' descriptions. */
function packLabel<T>(value: T, cases: readonly Labelled<PatchBody>[]): Labelled<T> {
  return labelled(
    value,
    keeps(
      'body',
      'schema',
      `${cases.length} valid cases in one patch: ${cases.map((c) => c.rule.description).join('; ')}`,
    ),
  );
}

/**
 * How the account rows share PATCHes: ACCOUNTS_PER_PATCH consecutive rows to a PATCH (each row a
 * part of its own, numbered modulo the pack size), their accounts one after another; every other
 * case (the random ones) goes alone.
 */
export function accountPacking(rows: readonly Labelled<PatchBody>[]): CasePacking<Labelled<PatchBody>> {
  const slotOf = new Map(rows.map((c, i) => [canonicalJson(c.value), `account ${i % ACCOUNTS_PER_PATCH}`]));
  return {
    slots(c) {
      const slot = slotOf.get(canonicalJson(c.value));
      if (slot === undefined) return undefined;
      return c.value.counterpartyDetails !== undefined ? [slot, 'counterpartyDetails'] : [slot];
    },
    merge(cases) {
      const counterpartyAccounts = cases.flatMap((c) => c.value.counterpartyAccounts ?? []);
      const details = cases.flatMap((c) =>
        c.value.counterpartyDetails ? [c.value.counterpartyDetails] : [],
      );
      const body: PatchBody = {
        counterpartyAccounts,
        ...(details.length > 0 ? { counterpartyDetails: Object.assign({}, ...details) as PatchDetails } : {}),
      };
      return packLabel(body, cases);
    },
  };
}

/** Whether a case is a row of the details' covering array. */
export const isDetailsRow = (c: Labelled<PatchBody>): boolean =>
  c.rule.keyword === PAIRS && c.value.counterpartyAccounts === undefined;

/**
 * The parts a details row occupies: every finite field of the details, and the address as a whole
 * (so an empty address joins none).
 */
export const DETAILS_ROW_SLOTS: readonly string[] = [...DETAIL_SLOTS.map((s) => s.slot), 'address'];

/**
 * What a details row gives a part: a field it leaves out, nothing (no case may add it); a field
 * it carries whatever its string, any value (one case may give it its own); an enumerated field,
 * its value (a case of that value joins it).
 */
export function detailsRowValue(details: PatchDetails, slot: string): PackValue {
  const s = DETAIL_SLOTS.find((d) => d.slot === slot);
  if (s === undefined) return NO_VALUE;
  const [key, sub] = s.path;
  const value = sub === undefined ? ownOf(details, key) : ownOf(ownOf(details, key), sub);
  if (value === undefined) return NO_VALUE;
  return s.kind === 'presence' && s.members === undefined ? ANY_VALUE : canonicalJson(value);
}
