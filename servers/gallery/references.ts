/**
 * Faults of the reference in the path of GET/PATCH /api/v1/counterparties/{ref}: splitting,
 * decoding, validation and lookup (interface.md §4.1, §7).
 */
import { spec, type SchemaNode } from '../../spec/index.ts';
import { ReferenceServer, type Counterparty, type PathMatch, type RequestContext } from '../reference.ts';
import type { Variant } from './types.ts';

const REFERENCE = spec().schema('CounterpartyReference');
const COUNTERPARTY_PREFIX = 'api/v1/counterparties';

/** A server whose reference validation uses the spec's CounterpartyReference schema with `changes`. */
function validatingWith(changes: Partial<SchemaNode>): () => ReferenceServer {
  return () => {
    const validate = spec().ajv.compile({ ...REFERENCE, ...changes });
    return new (class extends ReferenceServer {
      protected override isValidReference(reference: string): boolean {
        return validate(reference) === true;
      }
    })();
  };
}

/** A greedy counterparty route: every segment after /counterparties/ is one reference. */
function greedy(segments: string[]): string[] {
  if (segments.length <= 4 || segments.slice(0, 3).join('/') !== COUNTERPARTY_PREFIX) return segments;
  return [...segments.slice(0, 3), segments.slice(3).join('%2F')];
}

export const REFERENCE_VARIANTS: Variant[] = [
  /** Greedy route: everything after /counterparties/ is the reference, so a raw slash reaches validation. */
  {
    id: 'raw-slash-400',
    fault:
      'The counterparty route is greedy, so a reference with a raw slash is validated and answered 400 instead of 404.',
    trips: ['reference-slash-404'],
    create: () =>
      new (class extends ReferenceServer {
        protected override matchPath(segments: string[]): PathMatch | undefined {
          return super.matchPath(greedy(segments));
        }
      })(),
  },
  /** Sub-paths of a counterparty are routed to its PATCH handler only, so `abc/def` is 405. */
  {
    id: 'raw-slash-405',
    fault:
      'A path below a counterparty ({ref}/{sub}) is routed for PATCH only, so a raw-slash reference is answered 405 instead of 404.',
    trips: ['reference-slash-404'],
    create: () =>
      new (class extends ReferenceServer {
        protected override matchPath(segments: string[]): PathMatch | undefined {
          const parent = segments.length === 5 ? super.matchPath(segments.slice(0, 4)) : undefined;
          if (!parent || !parent.template.includes('{counterpartyReference}'))
            return super.matchPath(segments);
          const operations = parent.operations.filter((op) => op.method === 'PATCH');
          return { ...parent, template: `${parent.template}/{sub}`, operations };
        }
      })(),
  },
  /**
   * A gateway in front validates the reference and refuses what it deems invalid with 403, raw
   * slashes included: a refusal the configured, valid token did not earn (§7 names 400).
   */
  {
    id: 'gateway-403-invalid-reference',
    fault:
      'A gateway answers 403 Forbidden to a counterparty path whose reference breaks the pattern or holds a raw slash, instead of 400 or 404.',
    trips: ['reference-invalid-400', 'reference-slash-404'],
    create: () =>
      new (class extends ReferenceServer {
        protected override matchPath(segments: string[]): PathMatch | undefined {
          return super.matchPath(greedy(segments));
        }
        protected override rejectPathParam(ctx: RequestContext, name: string, value: string): void {
          if (name !== 'counterpartyReference') return super.rejectPathParam(ctx, name, value);
          this.sendError(ctx.res, 403, 'FORBIDDEN', 'The request was blocked by the gateway.');
        }
      })(),
  },
  /** minLength off by one: a 2-character reference passes validation and is looked up (404). */
  {
    id: 'min-length-off-by-one',
    fault:
      'Reference validation uses minLength 2, so a 2-character reference is answered 404 instead of 400.',
    trips: ['reference-invalid-400'],
    create: validatingWith({ minLength: REFERENCE.minLength! - 1 }),
  },
  /** maxLength off by one: a 91-character reference passes validation and is looked up (404). */
  {
    id: 'max-length-off-by-one',
    fault:
      'Reference validation uses maxLength 91, so a 91-character reference is answered 404 instead of 400.',
    trips: ['reference-invalid-400'],
    create: validatingWith({ maxLength: REFERENCE.maxLength! + 1 }),
  },
  /** maxLength too strict: a valid 90-character reference is rejected with 400. */
  {
    id: 'max-length-too-strict',
    fault: 'Reference validation uses maxLength 89, so a valid 90-character reference is answered 400.',
    trips: ['reference-valid-not-400'],
    create: validatingWith({ maxLength: REFERENCE.maxLength! - 1 }),
  },
  /** The reference pattern also admits '.', so `ab.cd` is looked up instead of rejected. */
  {
    id: 'dot-accepted',
    fault:
      "The reference pattern also admits '.', so a reference such as ab.cd is answered 404 instead of 400.",
    trips: ['reference-invalid-400'],
    create: validatingWith({ pattern: REFERENCE.pattern!.replace('_', '_.') }),
  },
  /** Copy-paste: the reference is validated with the accountHolderName schema, which admits spaces. */
  {
    id: 'space-accepted',
    fault:
      'The reference is validated with the AccountHolderName schema, so a reference with a space is answered 404 instead of 400.',
    trips: ['reference-invalid-400'],
    create: () =>
      new (class extends ReferenceServer {
        protected override isValidReference(reference: string): boolean {
          return spec().errors('AccountHolderName', reference).length === 0;
        }
      })(),
  },
  /** Pattern too strict: the 1.3.0 mandate pattern is applied too, so '_' is rejected with 400. */
  {
    id: 'underscore-rejected',
    fault:
      "The reference is also checked against the MandateReference pattern, so any reference with '_' (the known one too) is answered 400.",
    trips: ['get-known-counterparty-200', 'reference-valid-not-400'],
    create: () =>
      new (class extends ReferenceServer {
        protected override isValidReference(reference: string): boolean {
          return (
            super.isValidReference(reference) && spec().errors('MandateReference', reference).length === 0
          );
        }
      })(),
  },
  /** The store query treats '_' as a wildcard and crashes when an unknown reference holds one. */
  {
    id: 'unknown-underscore-500',
    fault:
      "Looking up an unknown reference that contains '_' throws, so a valid unknown reference is answered 500.",
    trips: ['no-server-error'],
    create: () =>
      new (class extends ReferenceServer {
        protected override lookup(reference: string): Counterparty | undefined {
          const found = super.lookup(reference);
          if (!found && reference.includes('_'))
            throw new Error('LIKE pattern matched no row: ESCAPE missing');
          return found;
        }
      })(),
  },
  /** The store key column is one character short: a valid 90-character reference crashes the lookup. */
  {
    id: 'max-length-reference-500',
    fault: 'Looking up a reference of the maximum length 90 overflows the store key and is answered 500.',
    trips: ['no-server-error'],
    create: () =>
      new (class extends ReferenceServer {
        protected override lookup(reference: string): Counterparty | undefined {
          if (reference.length >= REFERENCE.maxLength!) throw new RangeError('value too long for key column');
          return super.lookup(reference);
        }
      })(),
  },
  /** Decoded segments are made "key-safe" by dropping '/', so ACME%2FSupplies finds ACMESupplies. */
  {
    id: 'encoded-slash-found',
    fault:
      "Decoded path segments have '/' stripped before validation, so the known reference split by %2F returns the counterparty.",
    trips: ['reference-encoded-slash-not-success', 'counterparty-reference-echo'],
    create: () =>
      new (class extends ReferenceServer {
        protected override decodeSegment(raw: string): string | undefined {
          return super.decodeSegment(raw)?.replaceAll('/', '');
        }
      })(),
  },
  /** The lookup lower-cases the reference, so a known mixed-case counterparty is 404. */
  {
    id: 'known-counterparty-404',
    fault: 'The lookup lower-cases the reference, so the known mixed-case counterparty is answered 404.',
    trips: ['get-known-counterparty-200'],
    create: () =>
      new (class extends ReferenceServer {
        protected override lookup(reference: string): Counterparty | undefined {
          return super.lookup(reference.toLowerCase());
        }
      })(),
  },
  /** Path segments are decoded as ASCII: a non-ASCII character throws (500) instead of failing the pattern (400). */
  {
    id: 'non-ascii-reference-500',
    fault:
      'A percent-encoded non-ASCII character in the reference throws while decoding and is answered 500 instead of 400.',
    trips: ['reference-invalid-400', 'no-server-error'],
    create: () =>
      new (class extends ReferenceServer {
        protected override decodeSegment(raw: string): string | undefined {
          const decoded = super.decodeSegment(raw);
          if (decoded !== undefined && [...decoded].some((c) => c.charCodeAt(0) > 0x7f)) {
            throw new RangeError(`segment is not ASCII: ${raw}`);
          }
          return decoded;
        }
      })(),
  },
  /** Pattern violations get the framework default 422 instead of the 400 the document states. */
  {
    id: 'invalid-reference-422',
    fault: 'A reference that violates its length or pattern is answered 422 instead of 400.',
    trips: ['reference-invalid-400'],
    create: () =>
      new (class extends ReferenceServer {
        protected override rejectPathParam(ctx: RequestContext, name: string): void {
          this.sendError(ctx.res, 422, 'UNPROCESSABLE', `${name} is invalid`);
        }
      })(),
  },
  /** No reference validation at all: every reference is looked up, so invalid ones are 404. */
  {
    id: 'reference-not-validated',
    fault:
      'The reference is never validated, so a reference that violates length or pattern is answered 404 instead of 400.',
    trips: ['reference-invalid-400'],
    create: () =>
      new (class extends ReferenceServer {
        protected override isValidReference(): boolean {
          return true;
        }
      })(),
  },
];
