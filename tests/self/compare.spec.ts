/** The diff helpers the PATCH oracles rest on, tested directly. */
import { expect, test } from '@playwright/test';
import { comparable, differences, unmatched } from '../../oracles/compare.ts';

const account = (name: string, extra: Record<string, unknown> = {}) => ({
  state: 'ACTIVE',
  verificationStatus: 'UNVERIFIED',
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: '2026-01-01T00:00:00Z',
  accountType: 'BANK_ACCOUNT',
  accountCategory: 'BUSINESS',
  name,
  accountIdentifier: { iban: 'X' },
  ...extra,
});

test('comparable keeps the documented fields, without the system-managed account fields, accounts sorted', () => {
  const cp = {
    counterpartyReference: 'A-1',
    remarks: 'x',
    requestId: 'per-response',
    address: { addressLine: 'l', country: 'NL', formatted: 'extra' },
    counterpartyAccounts: [account('b', { state: 'INACTIVE', etag: '1' }), account('a')],
  };
  const c = comparable(cp);
  expect(c).not.toHaveProperty('requestId');
  expect(c.address).toEqual({ addressLine: 'l', country: 'NL' });
  const accounts = c.counterpartyAccounts as Record<string, unknown>[];
  expect(accounts.map((a) => a.name)).toEqual(['a', 'b']);
  for (const a of accounts) {
    expect(a).not.toHaveProperty('state');
    expect(a).not.toHaveProperty('updatedAt');
    expect(a).not.toHaveProperty('etag');
    expect(a).toHaveProperty('createdAt');
  }
  // Two reads that differ only where the document leaves room compare equal.
  const later = {
    ...cp,
    requestId: 'another',
    counterpartyAccounts: [account('a', { state: 'INACTIVE' }), account('b')],
  };
  expect(differences(comparable(cp), comparable(later))).toEqual([]);
});

test('differences names each path with both values, up to a limit', () => {
  expect(differences({ a: 1, b: { c: 'x' } }, { a: 1, b: { c: 'y' } })).toEqual(['/b/c: "x" → "y"']);
  expect(differences({ a: 1 }, {})).toEqual(['/a: 1 → absent']);
  expect(differences([1, 2], [1, 2, 3])).toEqual(['(root): [1,2] → [1,2,3]']);
  expect(differences({ a: 1, b: 2, c: 3 }, { a: 0, b: 0, c: 0 }, 2)).toHaveLength(2);
  expect(differences({ k: 'x'.repeat(300) }, { k: 'y' })[0]!.length).toBeLessThan(200);
  expect(differences({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toEqual([]);
});

test('unmatched pairs items as multisets', () => {
  const eq = (x: Record<string, unknown>, y: Record<string, unknown>) => x.n === y.n;
  expect(unmatched([{ n: 1 }, { n: 1 }], [{ n: 1 }, { n: 2 }], eq)).toEqual({
    missing: [{ n: 1 }],
    rest: [{ n: 2 }],
  });
  expect(unmatched([], [{ n: 1 }], eq)).toEqual({ missing: [], rest: [{ n: 1 }] });
});
