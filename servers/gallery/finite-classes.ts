/**
 * Faults of the finite classes of PATCH /api/v1/counterparties/{ref} (interface.md §2.1, §2.2,
 * §4.2): one member of a class let through, where random cases seldom look. Each is caught by the
 * explicit lists of generators/finite-classes.ts, whatever the seed.
 */
import { spec } from '../../spec/index.ts';
import { ReferenceServer, type AuthResult, type SchemaProblem } from '../reference.ts';
import type { Variant } from './types.ts';

/** The value at a JSON pointer of ajv's instancePath form. */
function valueAt(body: unknown, pointer: string): unknown {
  let node = body;
  for (const part of pointer.split('/').slice(1)) {
    node =
      node !== null && typeof node === 'object' && Object.hasOwn(node, part)
        ? (node as Record<string, unknown>)[part]
        : undefined;
  }
  return node;
}

/**
 * A server whose validation lets through the problems at `path` (a regular expression over ajv's
 * instancePath) of `keyword` whose value `admits`, and stores the result unchecked.
 */
function admitting(
  path: RegExp,
  keyword: string,
  admits: (value: unknown) => boolean,
): () => ReferenceServer {
  return () =>
    new (class extends ReferenceServer {
      protected override validatePatch(body: unknown): SchemaProblem[] {
        return super
          .validatePatch(body)
          .filter(
            (p) =>
              !(path.test(p.instancePath) && p.keyword === keyword && admits(valueAt(body, p.instancePath))),
          );
      }
      protected override resultProblems(): SchemaProblem[] {
        return [];
      }
    })();
}

/** Whether a string keeps the pattern of a field of the spec. */
function keepsPattern(schema: string, prop: string, v: string): boolean {
  const pattern = spec().property(schema, prop).pattern;
  return pattern !== undefined && new RegExp(pattern, 'u').test(v);
}

/** The value, with every occurrence of `c` replaced by an allowed letter, keeps the field's pattern. */
function validWithout(schema: string, prop: string, c: string): (value: unknown) => boolean {
  return (v) => typeof v === 'string' && v.includes(c) && keepsPattern(schema, prop, v.split(c).join('x'));
}

const DETAIL = (field: string): RegExp => new RegExp(`^/counterpartyDetails/${field}$`);
const ACCOUNT = (field: string): RegExp => new RegExp(`^/counterpartyAccounts/\\d+/${field}$`);
const COUNTRIES = spec().schema('Country').enum ?? [];
const CURRENCIES = spec().property('PatchCounterpartyAccount', 'currency').enum ?? [];
const CATEGORIES = spec().property('PatchCounterpartyAccount', 'accountCategory').enum ?? [];

/** A server whose validation adds a problem for every valid body that `refuses` matches. */
function refusingDetails(refuses: (details: Record<string, unknown>) => boolean): () => ReferenceServer {
  return () =>
    new (class extends ReferenceServer {
      protected override validatePatch(body: unknown): SchemaProblem[] {
        const problems = super.validatePatch(body);
        if (problems.length > 0) return problems;
        const d = (body as { counterpartyDetails?: Record<string, unknown> }).counterpartyDetails;
        return d !== undefined && refuses(d)
          ? [{ instancePath: '/counterpartyDetails', keyword: 'custom', message: 'refused' }]
          : [];
      }
    })();
}

export const FINITE_CLASS_VARIANTS: Variant[] = [
  {
    id: 'finite-holder-name-blank-refused',
    fault:
      'accountHolderName is trimmed and refused when nothing is left, although the pattern allows a name of spaces.',
    trips: ['patch-valid-accepted'],
    create: refusingDetails(
      (d) => typeof d.accountHolderName === 'string' && d.accountHolderName.trim() === '',
    ),
  },
  {
    id: 'finite-postal-code-symbols-only-refused',
    fault:
      'A postalCode without a letter or a digit ("-", "   ") is refused, although the pattern allows it.',
    trips: ['patch-valid-accepted'],
    create: refusingDetails((d) => {
      const a = d.address as Record<string, unknown> | undefined;
      return typeof a?.postalCode === 'string' && !/[A-Za-z0-9]/.test(a.postalCode);
    }),
  },
  {
    id: 'finite-holder-name-dot',
    fault:
      'accountHolderName accepts "." (as in "Acme Ltd."), a character in the middle of the forbidden ASCII.',
    trips: ['patch-invalid-rejected', 'counterparty-schema'],
    create: admitting(
      DETAIL('accountHolderName'),
      'pattern',
      validWithout('PatchCounterpartyDetails', 'accountHolderName', '.'),
    ),
  },
  {
    id: 'finite-holder-name-ampersand',
    fault: 'accountHolderName accepts "&" (as in "Smith & Sons").',
    trips: ['patch-invalid-rejected', 'counterparty-schema'],
    create: admitting(
      DETAIL('accountHolderName'),
      'pattern',
      validWithout('PatchCounterpartyDetails', 'accountHolderName', '&'),
    ),
  },
  {
    id: 'finite-postal-code-underscore',
    fault: 'postalCode accepts "_" (the pattern was written with \\w).',
    trips: ['patch-invalid-rejected', 'address-schema'],
    create: admitting(DETAIL('address/postalCode'), 'pattern', validWithout('Address', 'postalCode', '_')),
  },
  {
    id: 'finite-address-line-asterisk',
    fault: 'addressLine accepts "*", a symbol outside its list.',
    trips: ['patch-invalid-rejected', 'address-schema'],
    create: admitting(DETAIL('address/addressLine'), 'pattern', validWithout('Address', 'addressLine', '*')),
  },
  {
    id: 'finite-mobile-unicode-digits',
    fault:
      'mobileNumber is checked with a Unicode digit class (\\p{Nd}), so Arabic-Indic or Devanagari digits pass.',
    trips: ['patch-invalid-rejected', 'counterparty-schema'],
    create: admitting(
      DETAIL('mobileNumber'),
      'pattern',
      (v) => typeof v === 'string' && /^\p{Nd}*$/u.test(v),
    ),
  },
  {
    id: 'finite-mobile-number-coerced',
    fault: 'mobileNumber given as a JSON number is coerced to a digit string and stored instead of refused.',
    trips: ['patch-invalid-rejected', 'patch-sent-fields-applied'],
    create: () =>
      new (class extends ReferenceServer {
        protected override validatePatch(body: unknown): SchemaProblem[] {
          const d = (body as { counterpartyDetails?: Record<string, unknown> } | null)?.counterpartyDetails;
          if (d && typeof d === 'object' && typeof d.mobileNumber === 'number')
            d.mobileNumber = String(d.mobileNumber);
          return super.validatePatch(body);
        }
      })(),
  },
  {
    id: 'finite-remarks-unicode-spaces',
    fault:
      'remarks words may be separated by any Unicode space separator (\\p{Zs}: no-break, thin, ideographic space).',
    trips: ['patch-invalid-rejected', 'counterparty-schema'],
    create: admitting(
      DETAIL('remarks'),
      'pattern',
      (v) =>
        typeof v === 'string' &&
        /[^ \P{Zs}]/u.test(v) &&
        keepsPattern('PatchCounterpartyDetails', 'remarks', v.replace(/\p{Zs}/gu, ' ')),
    ),
  },
  {
    id: 'finite-holder-name-full-width',
    fault:
      'accountHolderName is NFKC-normalised before the check but stored as sent, so full-width letters and digits pass.',
    trips: ['patch-invalid-rejected', 'counterparty-schema'],
    create: admitting(
      DETAIL('accountHolderName'),
      'pattern',
      (v) =>
        typeof v === 'string' &&
        keepsPattern('PatchCounterpartyDetails', 'accountHolderName', v.normalize('NFKC')),
    ),
  },
  {
    id: 'finite-country-case-insensitive',
    fault: 'address.country is compared with the list case-insensitively, and stored as sent ("de").',
    trips: ['patch-invalid-rejected', 'address-schema'],
    create: admitting(
      DETAIL('address/country'),
      'enum',
      (v) => typeof v === 'string' && v !== v.toUpperCase() && COUNTRIES.includes(v.toUpperCase()),
    ),
  },
  {
    id: 'finite-country-unlisted-accepted',
    fault:
      'address.country is checked only as two capitals (^[A-Z]{2}$), so codes outside the list such as "XK" pass (UK does not).',
    trips: ['patch-invalid-rejected', 'address-schema'],
    create: admitting(
      DETAIL('address/country'),
      'enum',
      (v) => typeof v === 'string' && /^[A-Z]{2}$/.test(v) && v !== 'UK' && v !== 'EU',
    ),
  },
  {
    id: 'finite-country-trimmed',
    fault: 'address.country is trimmed before the list check and stored as sent (" DE").',
    trips: ['patch-invalid-rejected', 'address-schema'],
    create: admitting(
      DETAIL('address/country'),
      'enum',
      (v) => typeof v === 'string' && v !== v.trim() && COUNTRIES.includes(v.trim()),
    ),
  },
  {
    id: 'finite-currency-case-insensitive',
    fault: 'An account currency is compared case-insensitively ("eur", "Usd" pass).',
    trips: ['patch-invalid-rejected', 'account-schema'],
    create: admitting(
      ACCOUNT('currency'),
      'enum',
      (v) => typeof v === 'string' && v !== v.toUpperCase() && CURRENCIES.includes(v.toUpperCase()),
    ),
  },
  {
    id: 'finite-category-trimmed',
    fault: 'An account category is trimmed before the enum check (" BUSINESS" passes).',
    trips: ['patch-invalid-rejected', 'account-schema'],
    create: admitting(
      ACCOUNT('accountCategory'),
      'enum',
      (v) => typeof v === 'string' && v !== v.trim() && CATEGORIES.includes(v.trim()),
    ),
  },
];

/** A server whose Authorization check is `check` (the header, the configured token). */
function authenticating(check: (header: string, token: string) => boolean): () => ReferenceServer {
  return () =>
    new (class extends ReferenceServer {
      protected override authenticate(header: string | undefined): AuthResult {
        if (header === undefined) return 'missing';
        return check(header, this.token) ? 'ok' : 'invalid';
      }
    })();
}

/** The credentials after a "Bearer" scheme written exactly so, or undefined. */
const bearer = (header: string): string | undefined => /^Bearer +(\S+) *$/i.exec(header)?.[1];

/** Faults of the check of the Authorization header (interface.md §5; RFC 6750 §2.1; RFC 9110 §11.1). */
export const CREDENTIAL_VARIANTS: Variant[] = [
  {
    id: 'credentials-token-prefix-only',
    fault:
      'Only the first half of the bearer token is compared, so a token changed or cut at its end passes.',
    trips: ['auth-wrong-token-rejected', 'auth-unauthenticated-401'],
    create: authenticating(
      (h, token) => bearer(h)?.startsWith(token.slice(0, Math.ceil(token.length / 2))) === true,
    ),
  },
  {
    id: 'credentials-token-length-unchecked',
    fault:
      'The token is compared over the shorter of the two lengths, so a token one character short or long passes.',
    trips: ['auth-wrong-token-rejected', 'auth-unauthenticated-401'],
    create: authenticating((h, token) => {
      const given = bearer(h);
      if (given === undefined) return false;
      const n = Math.min(given.length, token.length);
      return given.slice(0, n) === token.slice(0, n);
    }),
  },
  {
    id: 'credentials-token-case-insensitive',
    fault:
      'The token is compared case-insensitively, so the token with its letters in the other case passes.',
    trips: ['auth-wrong-token-rejected', 'auth-unauthenticated-401'],
    create: authenticating((h, token) => bearer(h)?.toLowerCase() === token.toLowerCase()),
  },
  {
    id: 'credentials-empty-bearer-accepted',
    fault:
      'An Authorization header of "Bearer" with no credentials is let through, as if the header were enough.',
    trips: ['auth-missing-rejected', 'auth-unauthenticated-401'],
    create: authenticating((h, token) => /^Bearer\s*$/i.test(h) || bearer(h) === token),
  },
  {
    id: 'credentials-any-scheme',
    fault: 'The scheme is not checked: the token under Basic or Token passes as under Bearer.',
    trips: ['auth-wrong-token-rejected', 'auth-unauthenticated-401'],
    create: authenticating((h, token) => /^[A-Za-z]+ +(\S+) *$/.exec(h)?.[1] === token),
  },
  {
    id: 'credentials-scheme-case-sensitive',
    fault: 'The scheme is compared case-sensitively, so the valid token under "bearer" is refused 401.',
    trips: ['auth-scheme-case-insensitive'],
    create: authenticating((h, token) => /^Bearer +(\S+) *$/.exec(h)?.[1] === token),
  },
];

/** Cyrillic and Greek letters folded to the Latin letters they look like. */
const FOLD: Readonly<Record<string, string>> = {
  '\u0430': 'a',
  '\u0441': 'c',
  '\u0435': 'e',
  '\u043e': 'o',
  '\u0440': 'p',
  '\u0445': 'x',
  '\u0391': 'A',
  '\u0392': 'B',
  '\u0421': 'C',
  '\u0395': 'E',
  '\u0397': 'H',
  '\u039a': 'K',
  '\u039c': 'M',
  '\u039f': 'O',
  '\u03a1': 'P',
  '\u03a4': 'T',
  '\u03a7': 'X',
};

/** A server that rewrites a decoded reference with `rewrite` before it validates and looks it up. */
function rewritingReference(rewrite: (raw: string) => string): () => ReferenceServer {
  return () =>
    new (class extends ReferenceServer {
      protected override decodeSegment(raw: string): string | undefined {
        const decoded = super.decodeSegment(raw);
        return decoded === undefined ? undefined : rewrite(decoded);
      }
    })();
}

/** Faults of the reference in the path (interface.md §4.1, §7; RFC 3986 §2.3). */
export const REFERENCE_VARIANT_VARIANTS: Variant[] = [
  {
    id: 'reference-homoglyph-resolved',
    fault:
      'The reference is NFKC-normalised and Cyrillic/Greek look-alikes folded to Latin before it is validated, so a look-alike or full-width reference resolves to the known counterparty.',
    trips: ['reference-invalid-400', 'counterparty-reference-echo'],
    create: rewritingReference((r) =>
      [...r.normalize('NFKC')].map((c) => (Object.hasOwn(FOLD, c) ? FOLD[c] : undefined) ?? c).join(''),
    ),
  },
  {
    id: 'reference-case-insensitive',
    fault: 'References are looked up case-insensitively, so "acme-supplies_0001" returns ACME-Supplies_0001.',
    trips: ['counterparty-reference-echo'],
    create: () =>
      new (class extends ReferenceServer {
        protected override lookup(reference: string): ReturnType<ReferenceServer['lookup']> {
          const exact = super.lookup(reference);
          if (exact) return exact;
          const key = [...this.counterparties.keys()].find(
            (k) => k.toLowerCase() === reference.toLowerCase(),
          );
          return key === undefined ? undefined : super.lookup(key);
        }
      })(),
  },
  {
    id: 'reference-percent-encoding-not-decoded',
    fault:
      'Path segments are matched before percent-decoding of unreserved characters, so ACME%2DSupplies... or %41CME... is not found.',
    trips: ['reference-percent-encoding-equivalent'],
    create: () =>
      new (class extends ReferenceServer {
        protected override decodeSegment(raw: string): string | undefined {
          // a segment with an encoded unreserved character is compared undecoded: it names nothing
          const unreserved = /%(?:4[1-9A-F]|5[0-9A]|6[1-9A-F]|7[0-9A]|3[0-9]|2D|2E|5F|7E)/i;
          return unreserved.test(raw) ? 'no-such-counterparty' : super.decodeSegment(raw);
        }
      })(),
  },
];
