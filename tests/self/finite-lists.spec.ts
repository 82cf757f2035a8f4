/**
 * The credential and reference lists: every kind of wrong credential is sent and none of them is
 * the token, none is recorded with the token in it; every reference variant differs from the
 * known reference, and the percent-encoded ones decode to it (RFC 3986 §2.3).
 */
import { expect, test } from '@playwright/test';
import { REDACTED_TOKEN } from '../../exchange/redact.ts';
import { credentialModes, schemeCaseModes } from '../../probes/authentication.ts';
import { referenceVariants } from '../../probes/reference-variants.ts';

const TOKENS = ['reference-token', 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc_DEF-123', 'Z9'];

for (const token of TOKENS) {
  test(`credential modes of a token of ${token.length} characters: every kind, never the token, never recorded`, () => {
    const modes = credentialModes(token);
    const sent = modes.map((m) =>
      m.auth === 'none' ? undefined : typeof m.auth === 'object' ? m.auth.authorization : '',
    );
    expect(sent).toContain(undefined);
    expect(sent).toEqual(expect.arrayContaining(['Bearer', 'Bearer ', `Basic ${token}`, `Token ${token}`]));
    const bearer = sent.filter((s): s is string => s?.startsWith('Bearer ') === true).map((s) => s.slice(7));
    expect(bearer).not.toContain(token);
    expect(bearer).toContain(token.slice(0, -1));
    expect(bearer.some((b) => b.length === token.length + 1 && b.startsWith(token))).toBe(true);
    for (const i of [0, Math.floor(token.length / 2), token.length - 1]) {
      expect(
        bearer.some(
          (b) =>
            b.length === token.length &&
            b[i] !== token[i] &&
            b.slice(0, i) === token.slice(0, i) &&
            b.slice(i + 1) === token.slice(i + 1),
        ),
        `character ${i} changed`,
      ).toBe(true);
    }
    expect(bearer).toContain(
      [...token].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join(''),
    );
    for (const m of modes) {
      if (
        typeof m.auth !== 'object' ||
        m.auth.authorization === 'Bearer' ||
        m.auth.authorization === 'Bearer '
      )
        continue;
      expect(m.auth.recorded, m.label).toBeDefined();
      expect(m.auth.recorded!.includes(token), m.label).toBe(false);
      expect(m.auth.recorded!.includes(REDACTED_TOKEN), m.label).toBe(true);
    }
    expect(schemeCaseModes(token).map((m) => (m.auth as { authorization: string }).authorization)).toEqual([
      `bearer ${token}`,
      `BEARER ${token}`,
    ]);
  });
}

test('reference variants: each differs from the reference; the percent-encoded ones decode to it', () => {
  for (const ref of ['ACME-Supplies_0001', 'abc', '0123-_x']) {
    const variants = referenceVariants(ref);
    const plain = encodeURIComponent(ref);
    for (const v of variants) {
      expect(v.segment, v.label).not.toBe(plain);
      if (v.same) expect(decodeURIComponent(v.segment), v.label).toBe(ref);
      else expect(decodeURIComponent(v.segment), v.label).not.toBe(ref);
    }
    expect(variants.filter((v) => v.same).length).toBeGreaterThanOrEqual(3);
  }
  const labels = referenceVariants('ACME-Supplies_0001')
    .map((v) => v.label)
    .join('; ');
  for (const kind of ['upper case', 'lower case', 'toggled', 'look-alike', 'full-width', 'percent-encoded']) {
    expect(labels).toContain(kind);
  }
});
