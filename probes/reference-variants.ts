/**
 * References, completely: variants of the known reference in the path of GET
 * /api/v1/counterparties/{ref} (interface.md §4.1, §7; RFC 3986 §2.1, §2.3, §6.2.2). In case
 * (upper, lower, toggled), with look-alike characters (Cyrillic and Greek homoglyphs, full-width
 * forms), and with ordinary characters percent-encoded. The answers to the first kinds are judged
 * by the oracles from the URL alone: a success must carry the reference asked for
 * (counterparty-reference-echo), a reference the pattern forbids must be refused with 400
 * (reference-invalid-400). The probe judges what needs its plan: a percent-encoded unreserved
 * character is the same character (RFC 3986 §2.3), so that URL names the known counterparty and
 * should be answered like its plain form.
 */
import { describeResponse } from '../exchange/describe.ts';
import { is2xx } from '../exchange/exchange.ts';
import { COUNTERPARTIES, counterpartyPath } from '../exchange/paths.ts';
import { type Probe, runCases } from '../engine/probe-api.ts';
import { family } from './family.ts';
import { own } from '../exchange/own.ts';
import { operationIds } from '../spec/operations.ts';

/** Latin letters and their Cyrillic or Greek look-alikes. */
export const HOMOGLYPHS: Readonly<Record<string, string>> = {
  a: '\u0430',
  c: '\u0441',
  e: '\u0435',
  o: '\u043e',
  p: '\u0440',
  x: '\u0445',
  A: '\u0391',
  B: '\u0392',
  C: '\u0421',
  E: '\u0395',
  H: '\u0397',
  K: '\u039a',
  M: '\u039c',
  O: '\u039f',
  P: '\u03a1',
  T: '\u03a4',
  X: '\u03a7',
};

const toggle = (s: string): string =>
  [...s].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('');

const fullWidth = (s: string): string =>
  [...s].map((c) => (/[!-~]/.test(c) ? String.fromCharCode(c.charCodeAt(0) + 0xfee0) : c)).join('');

/** A variant of the reference: its label and the raw path segment (already encoded). */
export interface ReferenceVariant {
  label: string;
  segment: string;
  /** Whether the URL names the same reference as the plain one (percent-encoded unreserved characters). */
  same: boolean;
}

const hex = (c: string): string => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`;

/** Every variant of `ref`: case, homoglyphs, full width, percent-encodings; none equal to the plain path. */
export function referenceVariants(ref: string): ReferenceVariant[] {
  const enc = (s: string): string => encodeURIComponent(s);
  const out: ReferenceVariant[] = [];
  const differing = (label: string, value: string): void => {
    if (value !== ref) out.push({ label, segment: enc(value), same: false });
  };
  differing('in upper case', ref.toUpperCase());
  differing('in lower case', ref.toLowerCase());
  differing('with its case toggled', toggle(ref));
  const chars = [...ref];
  const first = chars.findIndex((c) => own(HOMOGLYPHS, c) !== undefined);
  if (first >= 0) {
    const c = chars[first]!;
    const one = [...chars];
    const lookAlike = own(HOMOGLYPHS, c)!;
    one[first] = lookAlike;
    differing(
      `with ${JSON.stringify(c)} as its look-alike U+${lookAlike.charCodeAt(0).toString(16).toUpperCase()}`,
      one.join(''),
    );
    differing(
      'with every letter that has one as its Cyrillic or Greek look-alike',
      chars.map((x) => own(HOMOGLYPHS, x) ?? x).join(''),
    );
  }
  differing('in full-width forms', fullWidth(ref));
  differing('with its first character in full width', fullWidth(chars[0] ?? '') + chars.slice(1).join(''));
  const letter = chars.findIndex((c) => /[A-Za-z]/.test(c));
  const encodedAt = (i: number, lower = false): string =>
    chars.map((c, j) => (j === i ? (lower ? hex(c).toLowerCase() : hex(c)) : enc(c))).join('');
  out.push({ label: 'with its first character percent-encoded', segment: encodedAt(0), same: true });
  out.push({
    label: 'with its last character percent-encoded',
    segment: encodedAt(chars.length - 1),
    same: true,
  });
  if (letter >= 0) {
    out.push({
      label: 'with a letter percent-encoded in lower-case hex',
      segment: encodedAt(letter, true),
      same: true,
    });
  }
  out.push({ label: 'with every character percent-encoded', segment: chars.map(hex).join(''), same: true });
  return out;
}

export const referenceVariantsProbe: Probe = {
  id: 'reference-variants',
  title:
    'GET of variants of the known reference: case, Cyrillic/Greek look-alikes, full width, percent-encoded characters',
  requirements: [
    'reference-percent-encoding-equivalent',
    'counterparty-reference-echo',
    'reference-invalid-400',
    'reference-valid-not-400',
  ],
  judges: ['reference-percent-encoding-equivalent'],
  operations: operationIds({ resource: 'counterparty', action: 'read' }),
  group: 'references',
  access: 'read',
  async run(ctx) {
    const ref = ctx.target.counterpartyRef;
    // The plain reference and every variant are independent reads: they go together, and each
    // variant is judged once the plain answer is in.
    const plainSent = ctx.http.send({
      method: 'GET',
      path: counterpartyPath(ref),
      role: 'the plain reference',
    });
    // Awaited below; a failure here is thrown there, not left unhandled if every case stops first.
    plainSent.catch(() => undefined);
    const variants = referenceVariants(ref);
    const skipped = await runCases(ctx, variants, {
      // Variants that coincide (a reference in one case is its case toggled) are sent once.
      schedule: { key: (v) => v.segment },
      async probe(v) {
        const ex = await ctx.http.send({
          method: 'GET',
          path: `${COUNTERPARTIES}/${v.segment}`,
          role: `the reference ${v.label}`,
        });
        const plain = await plainSent;
        if (!v.same || !is2xx(plain.status)) return undefined;
        if (is2xx(ex.status)) ctx.held('reference-percent-encoding-equivalent');
        else if (ex.status > 0) {
          return {
            requirement: 'reference-percent-encoding-equivalent',
            exchange: ex,
            message: `GET of the known reference ${JSON.stringify(ref)} ${v.label} (${v.segment}) was answered ${ex.status}, the plain reference ${plain.status}`,
            expected:
              'the answer of the plain reference: a percent-encoded unreserved character is that character (RFC 3986 §2.3, §6.2.2.2)',
            received: describeResponse(ex),
            context: [plain],
          };
        }
        return undefined;
      },
    });
    const plain = await plainSent;
    if (!is2xx(plain.status)) {
      ctx.notApplicable(
        'reference-percent-encoding-equivalent',
        `GET of the known reference ${ref} was answered ${plain.status}: no answer to compare the encoded forms with`,
      );
    }
    ctx.note(`${variants.length} variant(s) of ${ref}: ${variants.map((v) => v.label).join('; ')}`);
    if (skipped > 0) ctx.note(`${skipped} variant(s) equal to another were sent once`);
  },
};

export const REFERENCE_VARIANT_PROBES = family(import.meta.url, [referenceVariantsProbe]);
