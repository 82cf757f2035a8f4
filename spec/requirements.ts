/**
 * The requirement catalogue: every testable statement of ../shared/interface.md (and of the
 * RFCs it relies on) that the suite checks, with a stable id, the section it comes from, its
 * level and a one-line statement. Ids are names, never numbers that move; checks, the gallery
 * and the reports refer to requirements only through these ids.
 *
 * Level: MUST where the interface document states the rule, or where a MUST of an RFC the
 * document relies on applies; SHOULD where only a SHOULD or common HTTP practice applies.
 */
export type Level = 'MUST' | 'SHOULD';

export interface Requirement {
  /** Stable id, kebab-case. */
  id: string;
  /** Where the rule comes from: a section of interface.md and/or an RFC clause. */
  section: string;
  /** The document section it is grouped under in reports (for example "4.1"). */
  group: string;
  level: Level;
  /** One line stating the behaviour. */
  statement: string;
  /** Why the rule is asserted this way, where the document leaves room. */
  rationale?: string;
}

export const REQUIREMENTS = [
  {
    id: 'get-known-counterparty-200',
    section: 'interface.md §4.1',
    group: '4.1',
    level: 'MUST',
    statement: 'GET of an existing counterparty answers 200 with the counterparty as a JSON body.',
  },
  {
    id: 'counterparty-json',
    section: 'interface.md §4.1; RFC 8259 §11',
    group: '4.1',
    level: 'MUST',
    statement: 'A counterparty is returned with a JSON media type (application/json or +json).',
  },
  {
    id: 'counterparty-reference-echo',
    section: 'interface.md §2.1, §4.1',
    group: '4.1',
    level: 'MUST',
    statement: 'The counterparty returned carries the counterpartyReference that was asked for.',
  },
  {
    id: 'counterparty-schema',
    section: 'interface.md §2.1',
    group: '2.1',
    level: 'MUST',
    statement:
      'A returned counterparty has every required field, with the types, enums, lengths and patterns of §2.1.',
  },
  {
    id: 'timestamp-format',
    section: 'interface.md §2.1, §2.3',
    group: '2.1',
    level: 'MUST',
    statement:
      'createdAt, updatedAt and lastVerifiedAt are UTC timestamps YYYY-MM-DDThh:mm:ssZ: no fractional seconds, no offset.',
  },
  {
    id: 'address-schema',
    section: 'interface.md §2.2',
    group: '2.2',
    level: 'MUST',
    statement:
      'A returned address keeps the lengths and patterns of §2.2 and a country from the country list.',
  },
  {
    id: 'account-schema',
    section: 'interface.md §2.3',
    group: '2.3',
    level: 'MUST',
    statement:
      'Each returned counterparty account has its required fields, with the enums, lengths and patterns of §2.3.',
  },
  {
    id: 'reference-valid-not-400',
    section: 'interface.md §4.1, §7',
    group: '7',
    level: 'MUST',
    statement: 'A reference of length 3 to 90 matching ^[-_a-zA-Z0-9]+$ is never answered 400, known or not.',
    rationale:
      'The status of an unknown counterparty is not shown, so only 400 (the pattern-violation status) is ruled out.',
  },
  {
    id: 'reference-invalid-400',
    section: 'interface.md §4.1, §7',
    group: '7',
    level: 'MUST',
    statement:
      'A reference without a slash that violates the length (3 to 90) or the pattern is answered 400.',
  },
  {
    id: 'reference-slash-404',
    section: 'interface.md §4.1, §7',
    group: '7',
    level: 'MUST',
    statement: 'A reference containing a raw forward slash is a routing failure answered 404, not 400.',
  },
  {
    id: 'reference-encoded-slash-not-success',
    section: 'interface.md §4.1; RFC 3986 §2.1',
    group: '7',
    level: 'MUST',
    statement: 'A reference containing a percent-encoded slash (%2F) never returns a counterparty (not 2xx).',
    rationale:
      'The document does not say whether %2F is a pattern violation (400) or a routing failure (404), so only success is ruled out.',
  },
  {
    id: 'no-server-error',
    section: 'interface.md §7',
    group: '7',
    level: 'MUST',
    statement:
      'No request, valid or not, is answered with a 5xx status: the document describes no server error.',
  },
  {
    id: 'sunset-date-time',
    section: 'interface.md §4.1; RFC 8594 §3',
    group: '9',
    level: 'MUST',
    statement: 'A Sunset header, wherever it appears, carries a date: a date-time as the document declares.',
    rationale:
      'RFC 8594 writes Sunset as an HTTP-date while the document declares format date-time; either is accepted as a date here, and the form is checked by sunset-document-format.',
  },
  {
    id: 'sunset-document-format',
    section: 'interface.md §4.1',
    group: '9',
    level: 'SHOULD',
    statement:
      'A Sunset header uses the date-time form the document declares (RFC 3339), not another date form.',
    rationale: 'An RFC 8594 HTTP-date is a date too, so the form alone is reported as a warning.',
  },
  {
    id: 'sunset-not-before-deprecation',
    section: 'RFC 9745 §4',
    group: '9',
    level: 'MUST',
    statement: 'When Deprecation and Sunset are both dates, Sunset is not earlier than Deprecation.',
  },
  {
    id: 'deprecation-structured-date',
    section: 'RFC 9745 §2',
    group: '9',
    level: 'SHOULD',
    statement: 'A Deprecation header is an RFC 9745 structured date such as @1688169599.',
  },
  {
    id: 'auth-missing-rejected',
    section: 'interface.md §5',
    group: '5',
    level: 'MUST',
    statement: 'Every listed operation refuses a request without an Authorization header (no 2xx).',
  },
  {
    id: 'auth-wrong-token-rejected',
    section: 'interface.md §5',
    group: '5',
    level: 'MUST',
    statement: 'Every listed operation refuses a request carrying a wrong bearer token (no 2xx).',
  },
  {
    id: 'auth-401-bearer-challenge',
    section: 'RFC 6750 §3; RFC 9110 §11.6.1',
    group: '5',
    level: 'SHOULD',
    statement: 'Every 401 answer carries a WWW-Authenticate challenge for the Bearer scheme.',
    rationale:
      'RFC 9110 requires a challenge on every 401 and RFC 6750 names the Bearer scheme; the document does not show the status of unauthenticated requests, so this is a SHOULD.',
  },
  {
    id: 'auth-unauthenticated-401',
    section: 'RFC 6750 §3.1; RFC 9110 §15.5.2',
    group: '5',
    level: 'SHOULD',
    statement:
      'A request without credentials, or with a wrong bearer token, is answered 401 (not 403, 404 or another status).',
    rationale:
      'The document does not show the status for unauthenticated requests; RFC 6750 describes 401 for a missing or invalid token.',
  },
  {
    id: 'collection-routed',
    section: 'interface.md §4.3',
    group: '4.3',
    level: 'MUST',
    statement:
      'Each listed collection operation (GET /api/v1/bills, /mandates, /direct-debit) exists: with a valid token it is not answered 404, 405 or 501.',
  },
  {
    id: 'patch-valid-accepted',
    section: 'interface.md §4.2',
    group: '4.2',
    level: 'MUST',
    statement:
      'A valid patch body (counterpartyDetails, counterpartyAccounts or both) of an existing counterparty is accepted with a 2xx status.',
  },
  {
    id: 'patch-persisted',
    section: 'interface.md §4.2; RFC 5789 §2',
    group: '4.2',
    level: 'MUST',
    statement: 'After an accepted PATCH, a GET of the counterparty returns what the PATCH response returned.',
    rationale:
      'Account state, verificationStatus, lastVerifiedAt and updatedAt are left out of the comparison: their transitions are not shown (§3), so a verification that runs between the two requests may change them.',
  },
  {
    id: 'patch-sent-fields-applied',
    section: 'interface.md §4.2',
    group: '4.2',
    level: 'MUST',
    statement:
      'The updated counterparty carries the value sent for every detail field and every address field in the patch.',
  },
  {
    id: 'patch-unsent-fields-unchanged',
    section: 'interface.md §4.2',
    group: '4.2',
    level: 'MUST',
    statement:
      'Fields a patch does not send keep their values: details are merged, not replaced, and the existing accounts stay.',
    rationale:
      'Whether a partial address is merged into the stored address or replaces it is not specified: an address field not sent may keep its value or disappear, but may not take another value.',
  },
  {
    id: 'patch-immutable-fields',
    section: 'interface.md §2.1, §4.2',
    group: '4.2',
    level: 'MUST',
    statement: 'A PATCH never changes counterpartyReference or createdAt.',
  },
  {
    id: 'patch-updated-at',
    section: 'interface.md §2.1, §4.2',
    group: '4.2',
    level: 'MUST',
    statement:
      'An accepted PATCH never moves updatedAt backwards, and moves it forward when the stored counterparty was last updated before the PATCH.',
    rationale:
      'A forward move is only required when the stored updatedAt is more than 60 s older than the Date of the GET before the PATCH, so clock skew and updates within the same second cannot cause a false alarm.',
  },
  {
    id: 'patch-accounts-appended',
    section: 'interface.md §4.2',
    group: '4.2',
    level: 'MUST',
    statement:
      'Each item of counterpartyAccounts adds an account with the type, category, name, country and currency sent; the existing accounts stay.',
    rationale:
      'The inner fields of accountIdentifier are not shown (a service may mask them), so a new account is recognised by its other fields.',
  },
  {
    id: 'patch-invalid-rejected',
    section: 'interface.md §4.2, §7, §8',
    group: '4.2',
    level: 'MUST',
    statement:
      'A patch body that breaks a rule of §4.2 (minimum sizes, permitted properties, field constraints, not JSON at all) is rejected with a 4xx status.',
    rationale: 'The document does not say which 4xx, so any 4xx is accepted.',
  },
  {
    id: 'patch-rejected-unchanged',
    section: 'RFC 5789 §2; interface.md §4.2',
    group: '4.2',
    level: 'MUST',
    statement:
      'A PATCH that is not accepted changes nothing, not even the valid part of a partly invalid body (changes are applied atomically).',
    rationale:
      'Account state, verificationStatus, lastVerifiedAt and updatedAt are left out of the comparison, as for patch-persisted.',
  },
  {
    id: 'patch-unknown-not-created',
    section: 'interface.md §4.2',
    group: '4.2',
    level: 'MUST',
    statement:
      'A PATCH of a counterparty that does not exist is not answered 2xx and creates nothing: PATCH changes an existing counterparty.',
    rationale:
      'Whether the body is validated before or after the existence check, and which status follows, is not shown; only success and creation are ruled out.',
  },
  {
    id: 'json-well-formed',
    section: 'interface.md §1; RFC 8259 §2',
    group: '1',
    level: 'MUST',
    statement: 'A body labelled with a JSON media type (application/json or +json) is well-formed JSON.',
  },
  {
    id: 'response-json-media-type',
    section: 'interface.md §1',
    group: '4.3',
    level: 'SHOULD',
    statement:
      'A 2xx answer with a body, of an operation other than the counterparty ones, carries a JSON media type.',
    rationale:
      'The document says the interface has JSON bodies but shows none of these payloads, so the media type is a SHOULD.',
  },
  {
    id: 'immutable-fields-stable',
    section: 'interface.md §2.1',
    group: '2.1',
    level: 'MUST',
    statement:
      'Two answers about the same counterparty with no PATCH in between carry the same counterpartyReference and createdAt.',
    rationale:
      'Another client may change a counterparty at any time, so only the fields that never change are compared.',
  },
  {
    id: 'request-answered',
    section: 'RFC 9110 §15; interface.md §4',
    group: '4',
    level: 'MUST',
    statement:
      'Every request gets a complete HTTP response: a connection that opens and then never answers, or drops before the answer is complete, fails the request.',
    rationale:
      'A refused connection, a DNS or TLS failure is a configuration problem (exit 2), not a finding; a body over CONFORMANCE_MAX_RESPONSE_BYTES and a rate limit that does not lift are not judged.',
  },
] as const satisfies readonly Requirement[];

export type RequirementId = (typeof REQUIREMENTS)[number]['id'];

const byId = new Map<string, Requirement>(REQUIREMENTS.map((r) => [r.id, r]));

export function requirement(id: string): Requirement {
  const r = byId.get(id);
  if (!r) throw new Error(`unknown requirement id: ${id}`);
  return r;
}

export function isRequirementId(id: string): id is RequirementId {
  return byId.has(id);
}
