/**
 * Faults of PATCH /api/v1/counterparties/{ref} (interface.md §4.2, §7, §8; RFC 5789 §2): what it
 * lets through, what it refuses, and what it does to the stored counterparty. Most are quiet:
 * a status that looks right over stored data that is wrong.
 */
import { spec } from '../../spec/index.ts';
import {
  ReferenceServer,
  type Counterparty,
  type CounterpartyAccount,
  type CounterpartyPatch,
  type RequestContext,
  type SchemaProblem,
} from '../reference.ts';
import type { Variant } from './types.ts';

type Details = NonNullable<CounterpartyPatch['counterpartyDetails']>;

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

const detail = (field: string): RegExp => new RegExp(`^/counterpartyDetails/${field}$`);
const accountField = (field: string): RegExp => new RegExp(`^/counterpartyAccounts/\\d+/${field}$`);

/**
 * A server whose validation lets through the problems `ignored` matches, and stores the result
 * without checking it against the Counterparty schema.
 */
function ignoring(ignored: (p: SchemaProblem, body: unknown) => boolean): () => ReferenceServer {
  return () =>
    new (class extends ReferenceServer {
      protected override validatePatch(body: unknown): SchemaProblem[] {
        return super.validatePatch(body).filter((p) => !ignored(p, body));
      }
      protected override resultProblems(): SchemaProblem[] {
        return [];
      }
    })();
}

/** A server whose validation adds a problem for every valid body that `refuses` matches. */
export function refusing(refuses: (body: CounterpartyPatch) => string | undefined): () => ReferenceServer {
  return () =>
    new (class extends ReferenceServer {
      protected override validatePatch(body: unknown): SchemaProblem[] {
        const problems = super.validatePatch(body);
        if (problems.length > 0) return problems;
        const why = refuses(body as CounterpartyPatch);
        return why === undefined ? [] : [{ instancePath: '', keyword: 'custom', message: why }];
      }
    })();
}

/** A server that stores accounts added by a patch without `field` (and stores them unchecked). */
function droppingFromNewAccounts(field: string): () => ReferenceServer {
  return () =>
    new (class extends ReferenceServer {
      protected override resultProblems(): SchemaProblem[] {
        return [];
      }
      protected override newAccount(item: Record<string, unknown>, now: string): CounterpartyAccount {
        const { [field]: _dropped, ...account } = super.newAccount(item, now);
        return account as CounterpartyAccount;
      }
    })();
}

const upper = (v: unknown): unknown => (typeof v === 'string' ? v.toUpperCase() : v);
const remarksOf = (b: CounterpartyPatch): string | undefined => b.counterpartyDetails?.remarks;
const COUNTRIES = spec().schema('Country').enum ?? [];

/** Thrown while a patch is applied: the counterparty already holds an account it adds. */
class DuplicateAccount extends Error {}

/**
 * A clean server that refuses, with 409, a patch adding an account whose identifiers the
 * counterparty already holds (or that adds one twice). The document does not say whether a
 * counterparty may hold two accounts with one identifier, so this conforms.
 */
export function duplicateRefusingServer(): ReferenceServer {
  return new (class extends ReferenceServer {
    protected override applyPatch(current: Counterparty, patch: CounterpartyPatch): Counterparty {
      const key = (a: { accountIdentifier?: unknown; branchIdentifier?: unknown }): string =>
        JSON.stringify([a.accountIdentifier, a.branchIdentifier ?? null]);
      const held = new Set((current.counterpartyAccounts ?? []).map(key));
      for (const account of patch.counterpartyAccounts ?? []) {
        if (held.has(key(account))) throw new DuplicateAccount();
        held.add(key(account));
      }
      return super.applyPatch(current, patch);
    }
    protected override async patchCounterparty(ctx: RequestContext): Promise<void> {
      try {
        await super.patchCounterparty(ctx);
      } catch (error) {
        if (!(error instanceof DuplicateAccount)) throw error;
        this.sendError(ctx.res, 409, 'DUPLICATE_ACCOUNT', 'The counterparty already holds this account.');
      }
    }
  })();
}

export const PATCH_VARIANTS: Variant[] = [
  // ------------------------------------------------------------ invalid bodies let through
  {
    id: 'patch-remarks-max-length-off-by-one',
    fault: 'remarks are checked against maxLength 91, so a 91-character remark is stored.',
    trips: ['patch-invalid-rejected', 'counterparty-schema'],
    create: ignoring(
      (p, body) =>
        detail('remarks').test(p.instancePath) &&
        p.keyword === 'maxLength' &&
        String(valueAt(body, p.instancePath)).length === (spec().schema('Remarks').maxLength ?? 0) + 1,
    ),
  },
  {
    id: 'patch-holder-name-min-length-off-by-one',
    fault: 'accountHolderName is checked against minLength 2, so a 2-character holder name is stored.',
    trips: ['patch-invalid-rejected', 'counterparty-schema'],
    create: ignoring(
      (p, body) =>
        detail('accountHolderName').test(p.instancePath) &&
        p.keyword === 'minLength' &&
        String(valueAt(body, p.instancePath)).length ===
          (spec().schema('AccountHolderName').minLength ?? 0) - 1,
    ),
  },
  {
    id: 'patch-remarks-trimmed-before-check',
    fault:
      'remarks are trimmed before the pattern check but stored untrimmed, so a trailing space gets through.',
    trips: ['patch-invalid-rejected', 'counterparty-schema'],
    create: ignoring(
      (p, body) =>
        detail('remarks').test(p.instancePath) &&
        p.keyword === 'pattern' &&
        spec().errors('Remarks', String(valueAt(body, p.instancePath)).trim()).length === 0,
    ),
  },
  {
    id: 'patch-address-country-uk-accepted',
    fault:
      'The address country UK (the v1.1.0 region code) is accepted although the country list holds GB only.',
    trips: ['patch-invalid-rejected', 'address-schema'],
    create: ignoring(
      (p, body) => detail('address/country').test(p.instancePath) && valueAt(body, p.instancePath) === 'UK',
    ),
  },
  {
    id: 'patch-unknown-detail-ignored',
    fault: 'Unknown properties in counterpartyDetails are silently dropped instead of rejected.',
    trips: ['patch-invalid-rejected', 'patch-sent-fields-applied'],
    create: () =>
      new (class extends ReferenceServer {
        protected override validatePatch(body: unknown): SchemaProblem[] {
          return super
            .validatePatch(body)
            .filter(
              (p) => !(p.instancePath === '/counterpartyDetails' && p.keyword === 'additionalProperties'),
            );
        }
        protected override mergeDetails(into: Counterparty, details: Details): void {
          const permitted = Object.keys(spec().schema('PatchCounterpartyDetails').properties ?? {});
          super.mergeDetails(
            into,
            Object.fromEntries(Object.entries(details).filter(([k]) => permitted.includes(k))) as Details,
          );
        }
      })(),
  },
  {
    id: 'patch-created-by-writable',
    fault: 'createdBy is accepted in counterpartyDetails and overwrites the channel the service recorded.',
    trips: ['patch-invalid-rejected'],
    create: ignoring(
      (p) =>
        p.instancePath === '/counterpartyDetails' &&
        p.keyword === 'additionalProperties' &&
        p.params?.additionalProperty === 'createdBy',
    ),
  },
  {
    id: 'patch-empty-body-accepted',
    fault: 'An empty body {} is accepted as a no-op (200) instead of violating the minimum size.',
    trips: ['patch-invalid-rejected'],
    create: ignoring(
      (_p, body) =>
        body !== null && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0,
    ),
  },
  {
    id: 'patch-empty-details-accepted',
    fault: 'An empty counterpartyDetails {} is accepted instead of violating minProperties 1.',
    trips: ['patch-invalid-rejected'],
    create: ignoring((p) => p.instancePath === '/counterpartyDetails' && p.keyword === 'minProperties'),
  },
  {
    id: 'patch-empty-accounts-accepted',
    fault: 'An empty counterpartyAccounts [] is accepted instead of violating minItems 1.',
    trips: ['patch-invalid-rejected'],
    create: ignoring((p) => p.instancePath === '/counterpartyAccounts' && p.keyword === 'minItems'),
  },
  {
    id: 'patch-bank-account-country-optional',
    fault: 'A BANK_ACCOUNT without country is accepted: the conditional requirement is not enforced.',
    trips: ['patch-invalid-rejected'],
    create: ignoring(
      (p) =>
        /^\/counterpartyAccounts\/\d+$/.test(p.instancePath) &&
        (p.keyword === 'if' || (p.keyword === 'required' && p.params?.missingProperty === 'country')),
    ),
  },
  {
    id: 'patch-account-identifier-optional',
    fault: 'An account without accountIdentifier is accepted and stored without one.',
    trips: ['patch-invalid-rejected', 'account-schema'],
    create: ignoring(
      (p) =>
        /^\/counterpartyAccounts\/\d+$/.test(p.instancePath) &&
        p.keyword === 'required' &&
        p.params?.missingProperty === 'accountIdentifier',
    ),
  },
  {
    id: 'patch-currency-inr-accepted',
    fault:
      'The account currency INR (a bill currency) is accepted although accounts take EUR, USD and GBP only.',
    trips: ['patch-invalid-rejected', 'account-schema'],
    create: ignoring(
      (p, body) => accountField('currency').test(p.instancePath) && valueAt(body, p.instancePath) === 'INR',
    ),
  },
  {
    id: 'patch-enums-case-insensitive',
    fault:
      'Enum values are matched case-insensitively and upper-cased on storage (business, eur, gb are accepted).',
    trips: ['patch-invalid-rejected', 'patch-accounts-appended', 'patch-sent-fields-applied'],
    create: () =>
      new (class extends ReferenceServer {
        protected override validatePatch(body: unknown): SchemaProblem[] {
          return super.validatePatch(body).filter((p) => {
            if (p.keyword !== 'enum') return true;
            const allowed = (p.params?.allowedValues as unknown[] | undefined) ?? [];
            const v = valueAt(body, p.instancePath);
            return !(typeof v === 'string' && allowed.includes(v.toUpperCase()));
          });
        }
        protected override mergeDetails(into: Counterparty, details: Details): void {
          if (details.address?.country !== undefined) {
            details.address.country = String(upper(details.address.country));
          }
          super.mergeDetails(into, details);
        }
        protected override newAccount(item: Record<string, unknown>, now: string): CounterpartyAccount {
          const fixed = { ...item };
          for (const k of ['accountType', 'accountCategory', 'currency'] as const) {
            if (k in fixed) fixed[k] = upper(fixed[k]);
          }
          return super.newAccount(fixed, now);
        }
      })(),
  },
  {
    id: 'patch-null-removes-field',
    fault:
      'null in counterpartyDetails is taken as "remove this field" (JSON merge patch) instead of rejected.',
    trips: ['patch-invalid-rejected', 'counterparty-schema', 'patch-sent-fields-applied'],
    create: () =>
      new (class extends ReferenceServer {
        protected override validatePatch(body: unknown): SchemaProblem[] {
          return super
            .validatePatch(body)
            .filter(
              (p) =>
                !(
                  p.keyword === 'type' &&
                  p.instancePath.startsWith('/counterpartyDetails/') &&
                  valueAt(body, p.instancePath) === null
                ),
            );
        }
        protected override resultProblems(): SchemaProblem[] {
          return [];
        }
        protected override mergeDetails(into: Counterparty, details: Details): void {
          const target = into as Record<string, unknown>;
          // Defined, not assigned: a member named __proto__ is a member, not the prototype.
          const put = (key: string, value: unknown): void =>
            void Object.defineProperty(target, key, {
              value,
              writable: true,
              enumerable: true,
              configurable: true,
            });
          for (const [key, value] of Object.entries(details)) {
            if (value === null) delete target[key];
            else if (key === 'address' && typeof value === 'object') {
              const address = new Map(Object.entries(into.address ?? {}));
              for (const [f, v] of Object.entries(value)) {
                if (v === null) address.delete(f);
                else address.set(f, v);
              }
              target.address = Object.fromEntries(address);
            } else put(key, value);
          }
        }
      })(),
  },
  {
    id: 'patch-email-format-unchecked',
    fault: 'emailAddress is only checked for its length, not for the email format.',
    trips: ['patch-invalid-rejected', 'counterparty-schema'],
    create: ignoring((p) => detail('emailAddress').test(p.instancePath) && p.keyword === 'format'),
  },
  {
    id: 'patch-mobile-pattern-unchecked',
    fault: 'mobileNumber is only checked for its length, so non-digits (spaces, "+", letters) are stored.',
    trips: ['patch-invalid-rejected', 'counterparty-schema'],
    create: ignoring((p) => detail('mobileNumber').test(p.instancePath) && p.keyword === 'pattern'),
  },
  {
    id: 'patch-unknown-top-level-ignored',
    fault:
      'Unknown top-level properties next to counterpartyDetails are silently ignored instead of rejected.',
    trips: ['patch-invalid-rejected'],
    create: ignoring((p) => p.instancePath === '' && p.keyword === 'additionalProperties'),
  },
  {
    id: 'patch-uk-instead-of-gb',
    fault:
      'The address country list follows the v1.1.0 change note: UK is accepted and GB, which the list holds, is refused.',
    trips: ['patch-invalid-rejected', 'patch-valid-accepted', 'address-schema'],
    create: () =>
      new (class extends ReferenceServer {
        protected override validatePatch(body: unknown): SchemaProblem[] {
          const country = (body as CounterpartyPatch | null)?.counterpartyDetails?.address?.country;
          const problems = super
            .validatePatch(body)
            .filter((p) => !(detail('address/country').test(p.instancePath) && country === 'UK'));
          if (country === 'GB')
            problems.push({ instancePath: '/counterpartyDetails/address/country', keyword: 'enum' });
          return problems;
        }
        protected override resultProblems(): SchemaProblem[] {
          return [];
        }
      })(),
  },
  // ------------------------------------------------------------ crashes
  {
    id: 'patch-malformed-json-500',
    fault: 'A body that is not JSON makes the parser throw, answered 500 instead of a 4xx.',
    trips: ['no-server-error', 'patch-invalid-rejected'],
    create: () =>
      new (class extends ReferenceServer {
        protected override async readJson(ctx: RequestContext): Promise<{ ok: true; value: unknown }> {
          const body = await this.readBody(ctx, 1024 * 1024);
          if (!body.ok) throw new Error('body too large');
          return { ok: true, value: JSON.parse(body.value.toString('utf8')) as unknown };
        }
      })(),
  },
  {
    id: 'patch-non-string-detail-500',
    fault:
      'A detail sent as a number, array or object (or null) is trimmed before validation and throws: 500.',
    trips: ['no-server-error', 'patch-invalid-rejected'],
    create: () =>
      new (class extends ReferenceServer {
        protected override validatePatch(body: unknown): SchemaProblem[] {
          const details = (body as CounterpartyPatch | null)?.counterpartyDetails;
          if (details && typeof details === 'object') {
            for (const key of ['accountHolderName', 'emailAddress', 'mobileNumber', 'remarks'] as const) {
              const v = (details as Record<string, unknown>)[key];
              if (v !== undefined) (v as { trim(): string }).trim();
            }
          }
          return super.validatePatch(body);
        }
      })(),
  },
  {
    id: 'patch-comma-in-remarks-500',
    fault:
      'A remark holding a comma breaks the CSV audit log written on update: the valid patch is answered 500.',
    trips: ['no-server-error', 'patch-valid-accepted'],
    create: () =>
      new (class extends ReferenceServer {
        protected override applyPatch(current: Counterparty, patch: CounterpartyPatch): Counterparty {
          if (remarksOf(patch)?.includes(',')) throw new Error('audit log: unescaped separator in field 3');
          return super.applyPatch(current, patch);
        }
      })(),
  },
  // ------------------------------------------------------------ valid bodies refused
  {
    id: 'patch-apostrophe-rejected',
    fault: "A remark holding an apostrophe (O'Neill) is refused as a suspected injection.",
    trips: ['patch-valid-accepted'],
    create: refusing((b) => (remarksOf(b)?.includes("'") ? 'remarks must not contain quotes' : undefined)),
  },
  {
    id: 'patch-address-hash-rejected',
    fault: 'An address line holding "#" (Flat #4) is refused although the pattern allows it.',
    trips: ['patch-valid-accepted'],
    create: refusing((b) =>
      b.counterpartyDetails?.address?.addressLine?.includes('#')
        ? 'addressLine must not contain #'
        : undefined,
    ),
  },
  {
    id: 'patch-mobile-max-15',
    fault: 'mobileNumber is limited to the 15 digits of E.164, so a valid 16-digit number is refused.',
    trips: ['patch-valid-accepted'],
    create: refusing((b) =>
      (b.counterpartyDetails?.mobileNumber?.length ?? 0) > 15 ? 'mobileNumber too long' : undefined,
    ),
  },
  {
    id: 'patch-holder-name-shortest-refused',
    fault:
      'accountHolderName is checked against a minLength one above the documented one, so a valid holder name of the shortest length is refused (a case that shares its PATCH with cases of other fields).',
    trips: ['patch-valid-accepted'],
    create: refusing((b) => {
      const name = b.counterpartyDetails?.accountHolderName;
      return name !== undefined && name.length === (spec().schema('AccountHolderName').minLength ?? 0)
        ? 'accountHolderName too short'
        : undefined;
    }),
  },
  {
    id: 'patch-email-max-254',
    fault:
      'emailAddress is limited to 254 characters (the SMTP path limit), so a valid 255-character address is refused.',
    trips: ['patch-valid-accepted'],
    create: refusing((b) =>
      (b.counterpartyDetails?.emailAddress?.length ?? 0) > 254 ? 'emailAddress too long' : undefined,
    ),
  },
  {
    id: 'patch-currency-required',
    fault: 'A new account without currency is refused although currency is optional.',
    trips: ['patch-valid-accepted'],
    create: refusing((b) =>
      b.counterpartyAccounts?.some((a) => a.currency === undefined) ? 'currency is required' : undefined,
    ),
  },
  {
    id: 'patch-holder-name-untrimmed-rejected',
    fault:
      'A holder name with a leading or trailing space is refused although the pattern allows spaces anywhere.',
    trips: ['patch-valid-accepted'],
    create: refusing((b) => {
      const name = b.counterpartyDetails?.accountHolderName;
      return name !== undefined && name !== name.trim() ? 'accountHolderName must be trimmed' : undefined;
    }),
  },
  // ------------------------------------------------------------ what an update does to stored data
  {
    id: 'patch-details-replaced',
    fault: 'counterpartyDetails replace the stored details as a whole: detail fields not sent are removed.',
    trips: ['patch-unsent-fields-unchanged'],
    create: () =>
      new (class extends ReferenceServer {
        protected override mergeDetails(into: Counterparty, details: Details): void {
          for (const key of ['emailAddress', 'mobileNumber', 'remarks', 'address'] as const) delete into[key];
          super.mergeDetails(into, details);
        }
      })(),
  },
  {
    id: 'patch-address-defaults',
    fault:
      'A partial address is completed with defaults (country DE) instead of keeping or dropping the fields not sent.',
    trips: ['patch-unsent-fields-unchanged'],
    create: () =>
      new (class extends ReferenceServer {
        protected override mergeDetails(into: Counterparty, details: Details): void {
          if (details.address)
            details.address = { country: COUNTRIES.includes('DE') ? 'DE' : COUNTRIES[0], ...details.address };
          super.mergeDetails(into, details);
        }
      })(),
  },
  {
    id: 'patch-accounts-replaced',
    fault: 'counterpartyAccounts replace the stored accounts instead of being added to them.',
    trips: ['patch-accounts-appended'],
    create: () =>
      new (class extends ReferenceServer {
        protected override mergeAccounts(
          _existing: CounterpartyAccount[],
          added: CounterpartyAccount[],
        ): CounterpartyAccount[] {
          return added;
        }
      })(),
  },
  {
    id: 'patch-details-drop-accounts',
    fault:
      'A patch without counterpartyAccounts stores the counterparty with no accounts (an ORM overwrites the relation).',
    trips: ['patch-unsent-fields-unchanged'],
    create: () =>
      new (class extends ReferenceServer {
        protected override applyPatch(current: Counterparty, patch: CounterpartyPatch): Counterparty {
          const next = super.applyPatch(current, patch);
          if (!patch.counterpartyAccounts) next.counterpartyAccounts = [];
          return next;
        }
      })(),
  },
  {
    id: 'patch-response-stale',
    fault:
      'The PATCH response is the counterparty as it was before the update, although the update is stored.',
    // updatedAt stays put in the response too, but only the first update finds the stored one old
    // enough to insist on a move, and that update is already spent on another requirement.
    trips: ['patch-accounts-appended', 'patch-persisted', 'patch-sent-fields-applied'],
    create: () =>
      new (class extends ReferenceServer {
        protected override sendUpdated(
          ctx: RequestContext,
          _updated: Counterparty,
          previous: Counterparty,
        ): void {
          super.sendUpdated(ctx, previous, previous);
        }
      })(),
  },
  {
    id: 'patch-not-persisted',
    fault:
      'The PATCH response shows the update, but the transaction is never committed: a GET returns the old data.',
    trips: ['patch-persisted'],
    create: () =>
      new (class extends ReferenceServer {
        protected override save(): void {}
      })(),
  },
  {
    id: 'patch-created-at-moved',
    fault: 'An update rewrites createdAt with the time of the update.',
    trips: ['patch-immutable-fields'],
    create: () =>
      new (class extends ReferenceServer {
        protected override applyPatch(current: Counterparty, patch: CounterpartyPatch): Counterparty {
          const next = super.applyPatch(current, patch);
          next.createdAt = next.updatedAt;
          return next;
        }
      })(),
  },
  {
    id: 'patch-updated-at-unchanged',
    fault: 'An update leaves updatedAt as it was.',
    trips: ['patch-updated-at'],
    create: () =>
      new (class extends ReferenceServer {
        protected override applyPatch(current: Counterparty, patch: CounterpartyPatch): Counterparty {
          return { ...super.applyPatch(current, patch), updatedAt: current.updatedAt };
        }
      })(),
  },
  {
    id: 'patch-updated-at-milliseconds',
    fault: 'An update writes updatedAt with milliseconds (2026-11-22T10:00:00.123Z).',
    trips: ['timestamp-format'],
    create: () =>
      new (class extends ReferenceServer {
        protected override resultProblems(): SchemaProblem[] {
          return [];
        }
        protected override applyPatch(current: Counterparty, patch: CounterpartyPatch): Counterparty {
          const next = super.applyPatch(current, patch);
          next.updatedAt = new Date(Math.max(Date.now(), Date.parse(current.updatedAt) + 1)).toISOString();
          return next;
        }
      })(),
  },
  {
    id: 'patch-new-account-no-created-at',
    fault: 'Accounts added by a patch are stored without createdAt, a required field of an account.',
    trips: ['account-schema'],
    create: droppingFromNewAccounts('createdAt'),
  },
  {
    id: 'patch-account-currency-dropped',
    fault: 'Accounts added by a patch lose the currency sent (the column is not mapped).',
    trips: ['patch-accounts-appended'],
    create: droppingFromNewAccounts('currency'),
  },
  {
    id: 'patch-upsert',
    fault: 'A PATCH of an unknown reference creates the counterparty (an upsert) instead of failing.',
    trips: ['patch-unknown-not-created'],
    create: () =>
      new (class extends ReferenceServer {
        protected override patchUnknown(ctx: RequestContext, patch: CounterpartyPatch): void {
          const now = this.now();
          const created: Counterparty = {
            counterpartyReference: ctx.params.counterpartyReference!,
            state: 'ACTIVE',
            createdAt: now,
            updatedAt: now,
            accountHolderName: 'Created by PATCH',
            createdBy: 'API',
          };
          const next = this.applyPatch(created, patch);
          this.save(next);
          this.sendJson(ctx.res, 201, this.present(next), this.lifecycleHeaders());
        }
      })(),
  },
  {
    id: 'patch-unknown-200',
    fault:
      'A PATCH of an unknown reference answers 200 with an empty object (nothing matched, nothing to do).',
    trips: [
      'patch-unknown-not-created',
      'counterparty-reference-echo',
      'counterparty-schema',
      'patch-sent-fields-applied',
    ],
    create: () =>
      new (class extends ReferenceServer {
        protected override patchUnknown(ctx: RequestContext): void {
          this.sendJson(ctx.res, 200, {});
        }
      })(),
  },
  {
    id: 'patch-partial-apply',
    fault:
      'counterpartyDetails are stored before counterpartyAccounts are validated, so a rejected patch leaves its valid details behind.',
    trips: ['patch-rejected-unchanged'],
    create: () =>
      new (class extends ReferenceServer {
        protected override validatePatch(body: unknown): SchemaProblem[] {
          const problems = super.validatePatch(body);
          const patch = body as CounterpartyPatch | null;
          const detailsOk = !problems.some((p) => p.instancePath.startsWith('/counterpartyDetails'));
          const current = this.lookup(this.currentReference);
          if (problems.length > 0 && detailsOk && patch?.counterpartyDetails && current) {
            const next = structuredClone(current);
            this.mergeDetails(next, structuredClone(patch.counterpartyDetails));
            next.updatedAt = this.now();
            if (spec().errors('Counterparty', next).length === 0) this.save(next);
          }
          return problems;
        }
        private currentReference = '';
        protected override async patchCounterparty(ctx: RequestContext): Promise<void> {
          this.currentReference = ctx.params.counterpartyReference!;
          await super.patchCounterparty(ctx);
        }
      })(),
  },
  // ------------------------------------------------------------ the response
  {
    id: 'patch-204-no-content',
    fault: 'An accepted PATCH is answered 204 No Content instead of returning the updated counterparty.',
    trips: ['counterparty-json', 'counterparty-schema'],
    create: () =>
      new (class extends ReferenceServer {
        protected override sendUpdated(ctx: RequestContext): void {
          ctx.res.writeHead(204, this.lifecycleHeaders());
          ctx.res.end();
        }
      })(),
  },
  {
    id: 'patch-sunset-not-a-date',
    fault: "PATCH responses carry the Sunset header 'never' (GET responses are right).",
    trips: ['sunset-date-time', 'patch-lifecycle-headers-as-get'],
    create: () =>
      new (class extends ReferenceServer {
        protected override sendUpdated(ctx: RequestContext, updated: Counterparty): void {
          this.sendJson(ctx.res, 200, this.present(updated), { ...this.lifecycleHeaders(), Sunset: 'never' });
        }
      })(),
  },
];
