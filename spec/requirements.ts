/**
 * The requirement catalogue: every testable statement of ../shared/interface.md (and of the
 * RFCs it relies on) that the suite checks, with a stable id, the section it comes from, its
 * level and a one-line statement. Ids are names, never numbers that move; checks, the gallery
 * and the reports refer to requirements only through these ids.
 *
 * Level: MUST where the interface document states the rule, or where a MUST of an RFC the
 * document relies on applies; SHOULD where only a SHOULD or common HTTP practice applies.
 *
 * Quotes: each requirement carries, word for word, the sentence(s) it rests on, so that a
 * reader of a report sees the words and not only a section number. A quote of interface.md
 * is an exact substring of ../shared/interface.md within the section it names (checked by
 * tests/self/requirement-quotes.spec.ts, so an edit of the document that drops or rewords a
 * quoted sentence fails the self-tests); a quote of an RFC is its text, with the RFC's double
 * spaces between sentences written as one. The first quote is the one that carries the rule
 * most directly: the JUnit failure message shows it.
 */
export type Level = 'MUST' | 'SHOULD';

/** A sentence, bullet or table row a requirement rests on, quoted word for word. */
export interface Quote {
  /**
   * Where it is: "interface.md §4.1", "interface.md (introduction)" for the text before §1,
   * or an RFC clause such as "RFC 9110 §15.5.2".
   */
  source: string;
  /** The words, exactly as they appear (backticks, punctuation and pipes of a table row kept). */
  text: string;
}

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
  /** The words the rule rests on: at least one, the most direct first. */
  quotes: readonly Quote[];
}

export const REQUIREMENTS = [
  {
    id: 'get-known-counterparty-200',
    section: 'interface.md §4.1',
    group: '4.1',
    level: 'MUST',
    statement: 'GET of an existing counterparty answers 200 with the counterparty as a JSON body.',
    quotes: [
      { source: 'interface.md §4.1', text: 'Returns one counterparty.' },
      { source: 'interface.md §4.1', text: 'Success response: JSON counterparty object as in section 2.1.' },
      {
        source: 'RFC 9110 §15.3.1',
        text: 'The 200 (OK) status code indicates that the request has succeeded.',
      },
    ],
  },
  {
    id: 'counterparty-json',
    section: 'interface.md §4.1; RFC 8259 §11',
    group: '4.1',
    level: 'MUST',
    statement: 'A counterparty is returned with a JSON media type (application/json or +json).',
    quotes: [
      { source: 'interface.md §4.1', text: 'Success response: JSON counterparty object as in section 2.1.' },
      {
        source: 'interface.md (introduction)',
        text: 'The interface follows OpenAPI 3.1 and is REST over HTTP with JSON bodies.',
      },
      { source: 'RFC 8259 §11', text: 'The media type for JSON text is application/json.' },
    ],
  },
  {
    id: 'counterparty-reference-echo',
    section: 'interface.md §2.1, §4.1',
    group: '4.1',
    level: 'MUST',
    statement: 'The counterparty returned carries the counterpartyReference that was asked for.',
    quotes: [
      { source: 'interface.md §4.1', text: 'Returns one counterparty.' },
      {
        source: 'interface.md §1',
        text: "The counterparty reference is a client-chosen identifier, typically an ERP vendor id, that links the service's ledger to the client's own CRM or ERP.",
      },
    ],
  },
  {
    id: 'counterparty-schema',
    section: 'interface.md §2.1',
    group: '2.1',
    level: 'MUST',
    statement:
      'A returned counterparty has every required field, with the types, enums, lengths and patterns of §2.1.',
    quotes: [
      { source: 'interface.md §4.1', text: 'Success response: JSON counterparty object as in section 2.1.' },
      { source: 'interface.md §4.2', text: 'Success response: the updated counterparty object as in 2.1' },
      {
        source: 'interface.md §2.1',
        text: '| counterpartyReference | string | yes | length 3 to 90; pattern `^[-_a-zA-Z0-9]+$`; immutable |',
      },
      {
        source: 'interface.md §2.1',
        text: '| accountHolderName | string | yes | length 3 to 90; pattern `^[-_ a-zA-Z0-9]+$`; legal name as registered with the bank, used for anti-money-laundering matching |',
      },
    ],
  },
  {
    id: 'timestamp-format',
    section: 'interface.md §2.1, §2.3',
    group: '2.1',
    level: 'MUST',
    statement:
      'createdAt, updatedAt and lastVerifiedAt are UTC timestamps YYYY-MM-DDThh:mm:ssZ: no fractional seconds, no offset.',
    quotes: [
      {
        source: 'interface.md §2.1',
        text: '| createdAt | string | yes | UTC timestamp `YYYY-MM-DDThh:mm:ssZ` (ISO 8601, format date-time, no fractional seconds, no offset) |',
      },
      { source: 'interface.md §2.1', text: '| updatedAt | string | yes | same format as createdAt |' },
      { source: 'interface.md §2.3', text: '| lastVerifiedAt | string | no | UTC timestamp as above |' },
    ],
  },
  {
    id: 'address-schema',
    section: 'interface.md §2.2',
    group: '2.2',
    level: 'MUST',
    statement:
      'A returned address keeps the lengths and patterns of §2.2 and a country from the country list.',
    quotes: [
      {
        source: 'interface.md §2.2',
        text: "| addressLine | string | length 1 to 210; pattern `^[ a-zA-Z0-9!@#$&()_+\\-./:,?']+$` (letters, digits, space and the symbols `! @ # $ & ( ) _ + - . / : , ? '`) |",
      },
      {
        source: 'interface.md §2.2',
        text: '| postalCode | string | length 1 to 16; pattern `^[A-Za-z0-9 -]*$` |',
      },
      {
        source: 'interface.md §2.2',
        text: '| country | string | ISO 3166 alpha-2, upper case, one of the country list below |',
      },
      {
        source: 'interface.md §2.2',
        text: 'Country list (used for address.country and account country): IN, DE, AT, GB, BE, BG, HR, CY, CZ, DK, EE, FI, FR, GR, HU, IE, IT, LV, LT, LU, MT, NL, PL, PT, RO, SK, SI, ES, SE, CH, SM, VA, AD, MC, IS, NO, LI, US.',
      },
    ],
  },
  {
    id: 'account-schema',
    section: 'interface.md §2.3',
    group: '2.3',
    level: 'MUST',
    statement:
      'Each returned counterparty account has its required fields, with the enums, lengths and patterns of §2.3.',
    quotes: [
      { source: 'interface.md §2.1', text: '| counterpartyAccounts | array of account | no | see 2.3 |' },
      {
        source: 'interface.md §2.3',
        text: '| accountType | string | yes | `BANK_ACCOUNT` (the only supported value) |',
      },
      { source: 'interface.md §2.3', text: '| accountCategory | string | yes | `PERSONAL` or `BUSINESS` |' },
      {
        source: 'interface.md §2.3',
        text: '| verificationStatus | string | no | `VERIFIED`, `UNVERIFIED`, `FAILED` |',
      },
      {
        source: 'interface.md §2.3',
        text: '| country | string | no | 2 upper-case letters, pattern `^[A-Z]{2,2}$`, from the country list; bank country |',
      },
      {
        source: 'interface.md §2.3',
        text: '| currency | string | no | `EUR`, `USD`, `GBP`; decides the settlement currency and the regional payment rails |',
      },
      {
        source: 'interface.md §2.3',
        text: '| name | string | no | bank account name as on record; length 3 to 90; pattern `^[-_ a-zA-Z0-9]+$` |',
      },
    ],
  },
  {
    id: 'reference-valid-not-400',
    section: 'interface.md §4.1, §7',
    group: '7',
    level: 'MUST',
    statement: 'A reference of length 3 to 90 matching ^[-_a-zA-Z0-9]+$ is never answered 400, known or not.',
    rationale:
      'The status of an unknown counterparty is not shown, so only 400 (the pattern-violation status) is ruled out.',
    quotes: [
      {
        source: 'interface.md §4.1',
        text: 'Path parameter `counterpartyReference`: required string, length 3 to 90, pattern `^[-_a-zA-Z0-9]+$`.',
      },
      {
        source: 'interface.md §7',
        text: '| `counterpartyReference` violates length or pattern without a slash | status 400 (pattern mismatch) |',
      },
    ],
  },
  {
    id: 'reference-invalid-400',
    section: 'interface.md §4.1, §7',
    group: '7',
    level: 'MUST',
    statement:
      'A reference without a slash that violates the length (3 to 90) or the pattern is answered 400.',
    quotes: [
      {
        source: 'interface.md §7',
        text: '| `counterpartyReference` violates length or pattern without a slash | status 400 (pattern mismatch) |',
      },
      {
        source: 'interface.md §4.1',
        text: 'Path parameter `counterpartyReference`: required string, length 3 to 90, pattern `^[-_a-zA-Z0-9]+$`.',
      },
    ],
  },
  {
    id: 'reference-slash-404',
    section: 'interface.md §4.1, §7',
    group: '7',
    level: 'MUST',
    statement: 'A reference containing a raw forward slash is a routing failure answered 404, not 400.',
    quotes: [
      {
        source: 'interface.md §4.1',
        text: 'A reference containing a forward slash is treated as a path separator, so the request fails as a routing error with status 404, not as a pattern violation with status 400.',
      },
      {
        source: 'interface.md §7',
        text: '| `counterpartyReference` contains a forward slash | status 404 (routing failure) |',
      },
    ],
  },
  {
    id: 'reference-encoded-slash-not-success',
    section: 'interface.md §4.1; RFC 3986 §2.1',
    group: '7',
    level: 'MUST',
    statement: 'A reference containing a percent-encoded slash (%2F) never returns a counterparty (not 2xx).',
    rationale:
      'The document does not say whether %2F is a pattern violation (400) or a routing failure (404), so only success is ruled out.',
    quotes: [
      {
        source: 'interface.md §4.1',
        text: 'Path parameter `counterpartyReference`: required string, length 3 to 90, pattern `^[-_a-zA-Z0-9]+$`.',
      },
      {
        source: 'RFC 3986 §2.2',
        text: 'URIs that differ in the replacement of a reserved character with its corresponding percent-encoded octet are not equivalent.',
      },
    ],
  },
  {
    id: 'no-server-error',
    section: 'interface.md §7',
    group: '7',
    level: 'MUST',
    statement:
      'No request, valid or not, is answered with a 5xx status: the document describes no server error.',
    quotes: [
      {
        source: 'interface.md §7',
        text: '| `counterpartyReference` violates length or pattern without a slash | status 400 (pattern mismatch) |',
      },
      {
        source: 'interface.md §7',
        text: '| `counterpartyReference` contains a forward slash | status 404 (routing failure) |',
      },
      {
        source: 'RFC 9110 §15.6',
        text: 'The 5xx (Server Error) class of status code indicates that the server is aware that it has erred or is incapable of performing the requested method.',
      },
    ],
  },
  {
    id: 'sunset-date-time',
    section: 'interface.md §4.1; RFC 8594 §3',
    group: '9',
    level: 'MUST',
    statement: 'A Sunset header, wherever it appears, carries a date: a date-time as the document declares.',
    rationale:
      'RFC 8594 writes Sunset as an HTTP-date while the document declares format date-time; either is accepted as a date here, and the form is checked by sunset-document-format.',
    quotes: [
      {
        source: 'interface.md §4.1',
        text: 'Response headers: `Deprecation` (string, indicates deprecation) and `Sunset` (string, date-time, the date the operation is retired); both appear when applicable.',
      },
      {
        source: 'RFC 8594 §3',
        text: 'The Sunset value is an HTTP-date timestamp, as defined in Section 7.1.1.1 of [RFC7231], and SHOULD be a timestamp in the future.',
      },
    ],
  },
  {
    id: 'sunset-document-format',
    section: 'interface.md §4.1',
    group: '9',
    level: 'SHOULD',
    statement:
      'A Sunset header uses the date-time form the document declares (RFC 3339), not another date form.',
    rationale: 'An RFC 8594 HTTP-date is a date too, so the form alone is reported as a warning.',
    quotes: [
      {
        source: 'interface.md §4.1',
        text: 'Response headers: `Deprecation` (string, indicates deprecation) and `Sunset` (string, date-time, the date the operation is retired); both appear when applicable.',
      },
    ],
  },
  {
    id: 'sunset-not-before-deprecation',
    section: 'RFC 9745 §4',
    group: '9',
    level: 'MUST',
    statement: 'When Deprecation and Sunset are both dates, Sunset is not earlier than Deprecation.',
    quotes: [
      {
        source: 'RFC 9745 §4',
        text: 'The timestamp given in the Sunset HTTP header field MUST NOT be earlier than the one given in the Deprecation header field.',
      },
      {
        source: 'interface.md §9',
        text: 'Operations may be marked retired through the response headers `Deprecation` and `Sunset` (section 4.1).',
      },
    ],
  },
  {
    id: 'deprecation-structured-date',
    section: 'RFC 9745 §2',
    group: '9',
    level: 'SHOULD',
    statement: 'A Deprecation header is an RFC 9745 structured date such as @1688169599.',
    quotes: [
      {
        source: 'RFC 9745 §2.1',
        text: 'Deprecation is an Item Structured Header Field; its value MUST be a Date as per Section 3.3.7 of [RFC9651].',
      },
      {
        source: 'interface.md §4.1',
        text: 'Response headers: `Deprecation` (string, indicates deprecation) and `Sunset` (string, date-time, the date the operation is retired); both appear when applicable.',
      },
    ],
  },
  {
    id: 'reference-percent-encoding-equivalent',
    section: 'RFC 3986 §2.3, §6.2.2.2; interface.md §4.1',
    group: '4.1',
    level: 'SHOULD',
    statement:
      'The known reference with ordinary characters percent-encoded (%41 for A) names the same counterparty and is answered with it, as the plain reference is.',
    rationale:
      'RFC 3986 makes a percent-encoded unreserved character equivalent to the character, and asks normalizers to decode it; the document does not speak of encodings, and a client seldom encodes unreserved characters, so a refusal is a SHOULD.',
    quotes: [
      {
        source: 'RFC 3986 §2.3',
        text: 'URIs that differ in the replacement of an unreserved character with its corresponding percent-encoded US-ASCII octet are equivalent: they identify the same resource.',
      },
      {
        source: 'RFC 3986 §6.2.2.2',
        text: 'URIs should be normalized by decoding any percent-encoded octet that corresponds to an unreserved character, as described in Section 2.3.',
      },
      { source: 'interface.md §4.1', text: 'Returns one counterparty.' },
    ],
  },
  {
    id: 'auth-missing-rejected',
    section: 'interface.md §5',
    group: '5',
    level: 'MUST',
    statement: 'Every listed operation refuses a request without an Authorization header (no 2xx).',
    quotes: [
      {
        source: 'interface.md §5',
        text: 'Scheme: HTTP bearer. Every operation above is declared with it; the client sends `Authorization: Bearer <ACCESS_TOKEN>`.',
      },
    ],
  },
  {
    id: 'auth-wrong-token-rejected',
    section: 'interface.md §5',
    group: '5',
    level: 'MUST',
    statement: 'Every listed operation refuses a request carrying a wrong bearer token (no 2xx).',
    quotes: [
      {
        source: 'interface.md §5',
        text: 'Scheme: HTTP bearer. Every operation above is declared with it; the client sends `Authorization: Bearer <ACCESS_TOKEN>`.',
      },
    ],
  },
  {
    id: 'auth-scheme-case-insensitive',
    section: 'RFC 9110 §11.1; RFC 6750 §2.1',
    group: '5',
    level: 'SHOULD',
    statement:
      'The valid token under the scheme written in another case ("bearer", "BEARER") is accepted as under "Bearer" (not answered 401 or 403).',
    rationale:
      'RFC 9110 makes the scheme name case-insensitive, so "bearer <token>" is the same credential; the document shows only "Bearer", and a client that writes it so loses nothing, so a refusal is a SHOULD, and an acceptance is never a failure.',
    quotes: [
      {
        source: 'RFC 9110 §11.1',
        text: 'It uses a case-insensitive token to identify the authentication scheme:',
      },
      {
        source: 'interface.md §5',
        text: 'Scheme: HTTP bearer. Every operation above is declared with it; the client sends `Authorization: Bearer <ACCESS_TOKEN>`.',
      },
    ],
  },
  {
    id: 'auth-401-bearer-challenge',
    section: 'RFC 6750 §3; RFC 9110 §11.6.1',
    group: '5',
    level: 'SHOULD',
    statement: 'Every 401 answer carries a WWW-Authenticate challenge for the Bearer scheme.',
    rationale:
      'RFC 9110 requires a challenge on every 401 and RFC 6750 names the Bearer scheme; the document does not show the status of unauthenticated requests, so this is a SHOULD.',
    quotes: [
      {
        source: 'RFC 9110 §15.5.2',
        text: 'The server generating a 401 response MUST send a WWW-Authenticate header field (Section 11.6.1) containing at least one challenge applicable to the target resource.',
      },
      {
        source: 'RFC 6750 §3',
        text: 'All challenges defined by this specification MUST use the auth-scheme value "Bearer".',
      },
      { source: 'interface.md §5', text: 'Scheme: HTTP bearer.' },
    ],
  },
  {
    id: 'auth-401-error-code',
    section: 'RFC 6750 §3, §3.1',
    group: '5',
    level: 'SHOULD',
    statement:
      'The Bearer challenge of a 401 carries an error attribute when a bearer token was refused, and none when the request carried no credentials.',
    rationale:
      'RFC 6750 asks for both with SHOULD; the document shows no challenge at all. Requests under other schemes and "Bearer" without a token are not judged, and the error value is not: invalid_token and invalid_request both say why.',
    quotes: [
      {
        source: 'RFC 6750 §3',
        text: 'If the protected resource request included an access token and failed authentication, the resource server SHOULD include the "error" attribute to provide the client with the reason why the access request was declined.',
      },
      {
        source: 'RFC 6750 §3.1',
        text: 'If the request lacks any authentication information (e.g., the client was unaware that authentication is necessary or attempted using an unsupported authentication method), the resource server SHOULD NOT include an error code or other error information.',
      },
      { source: 'interface.md §5', text: 'Scheme: HTTP bearer.' },
    ],
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
    quotes: [
      {
        source: 'RFC 9110 §15.5.2',
        text: 'The 401 (Unauthorized) status code indicates that the request has not been applied because it lacks valid authentication credentials for the target resource.',
      },
      {
        source: 'RFC 6750 §3.1',
        text: 'The access token provided is expired, revoked, malformed, or invalid for other reasons. The resource SHOULD respond with the HTTP 401 (Unauthorized) status code.',
      },
      {
        source: 'interface.md §5',
        text: 'Scheme: HTTP bearer. Every operation above is declared with it; the client sends `Authorization: Bearer <ACCESS_TOKEN>`.',
      },
      {
        source: 'interface.md §7',
        text: 'The status for this, the error body shape, the error codes, and statuses for an unknown counterparty, unauthenticated or forbidden requests: not shown.',
      },
    ],
  },
  {
    id: 'method-not-allowed-allow',
    section: 'RFC 9110 §15.5.6, §5.6.1',
    group: '4',
    level: 'MUST',
    statement:
      'A 405 to a path of the document carries Allow, a list of methods without empty elements that names every method the document lists on that path.',
    rationale:
      'Which methods a path has beyond the documented ones (HEAD, OPTIONS, its own) and whether an undocumented method is 405 at all are open; only the Allow of a 405 is judged, and only for the documented methods.',
    quotes: [
      {
        source: 'RFC 9110 §15.5.6',
        text: "The origin server MUST generate an Allow header field in a 405 response containing a list of the target resource's currently supported methods.",
      },
      { source: 'RFC 9110 §5.6.1', text: 'a sender MUST NOT generate empty list elements' },
      {
        source: 'interface.md §4.3',
        text: '| DELETE | `/api/v1/mandates/{mandateReference}` | cancel an active mandate |',
      },
    ],
  },
  {
    id: 'head-no-content',
    section: 'RFC 9110 §9.3.2, §6.4.1',
    group: '4',
    level: 'MUST',
    statement: 'A response to HEAD carries no content, whatever its status.',
    rationale:
      'Whether a deployment answers HEAD at all (or 405, 501) is open: the document lists GET and PATCH. Only an answer to a HEAD the suite or the traffic sent is judged, on the bytes that followed its header section.',
    quotes: [
      {
        source: 'RFC 9110 §9.3.2',
        text: 'The HEAD method is identical to GET except that the server MUST NOT send content in the response.',
      },
      {
        source: 'RFC 9110 §6.4.1',
        text: 'Responses to the HEAD request method (Section 9.3.2) never include content; the associated response header fields indicate only what their values would have been if the request method had been GET (Section 9.3.1).',
      },
    ],
  },
  {
    id: 'head-headers-as-get',
    section: 'RFC 9110 §9.3.2',
    group: '4.1',
    level: 'SHOULD',
    statement:
      'A HEAD of a counterparty answered with success carries the header fields GET does: the same media type, the validators (ETag, Last-Modified) GET carries, and the same Deprecation and Sunset.',
    rationale:
      'A SHOULD of RFC 9110, judged only where the deployment answers HEAD with success. Fields whose value may be determined while generating the content (Content-Length, Vary, Transfer-Encoding, Content-Encoding) are not compared, nor the value of a validator: the counterparty may change between the two requests.',
    quotes: [
      {
        source: 'RFC 9110 §9.3.2',
        text: 'The server SHOULD send the same header fields in response to a HEAD request as it would have sent if the request method had been GET.',
      },
      {
        source: 'RFC 9110 §9.3.2',
        text: 'However, a server MAY omit header fields for which a value is determined only while generating the content.',
      },
    ],
  },
  {
    id: 'not-modified-condition-false',
    section: 'RFC 9110 §13.1.2, §13.1.3, §13.2.2, §15.4.5',
    group: '4.1',
    level: 'MUST',
    statement:
      'A 304 answers only a GET or HEAD whose condition evaluated to false: If-None-Match naming the current entity tag (the one the 304 carries, and the one the latest answer about the counterparty carried), or, without If-None-Match, If-Modified-Since not earlier than Last-Modified; it carries the ETag a 200 would.',
    rationale:
      'A 304 tells a client that the representation it holds is current: one answered to a tag the counterparty no longer has makes a cache or a client serve stale data. Judged on every 304; against the latest answer about the counterparty only where that answer carried a strong entity tag (a weak one may return to an earlier value) and no replica may trail it (outside the settle window of a PATCH).',
    quotes: [
      {
        source: 'RFC 9110 §15.4.5',
        text: 'The 304 (Not Modified) status code indicates that a conditional GET or HEAD request has been received and would have resulted in a 200 (OK) response if it were not for the fact that the condition evaluated to false.',
      },
      {
        source: 'RFC 9110 §13.1.2',
        text: 'If the field value is a list of entity tags, the condition is false if one of the listed tags matches the entity tag of the selected representation.',
      },
      {
        source: 'RFC 9110 §13.1.2',
        text: 'An origin server that evaluates an If-None-Match condition MUST NOT perform the requested method if the condition evaluates to false; instead, the origin server MUST respond with either a) the 304 (Not Modified) status code if the request method is GET or HEAD or b) the 412 (Precondition Failed) status code for all other request methods.',
      },
      {
        source: 'RFC 9110 §13.1.3',
        text: "If the selected representation's last modification date is earlier or equal to the date provided in the field value, the condition is false.",
      },
      {
        source: 'RFC 9110 §15.4.5',
        text: 'The server generating a 304 response MUST generate any of the following header fields that would have been sent in a 200 (OK) response to the same request:',
      },
      {
        source: 'RFC 9110 §8.8.1',
        text: 'A strong validator is unique across all versions of all representations associated with a particular resource over time.',
      },
    ],
  },
  {
    id: 'if-none-match-current-not-modified',
    section: 'RFC 9110 §13.1.2, §13.2.2',
    group: '4.1',
    level: 'MUST',
    statement:
      'A GET or HEAD whose If-None-Match names the entity tag of the representation it selects is answered 304, not 200 with that representation.',
    rationale:
      'Judged only where the deployment itself says the tag matches: the 200 carries an ETag that If-None-Match names (weak comparison). A deployment that sends no entity tag is not judged.',
    quotes: [
      {
        source: 'RFC 9110 §13.1.2',
        text: 'A recipient MUST use the weak comparison function when comparing entity tags for If-None-Match (Section 8.8.3.2), since weak entity tags can be used for cache validation even if there have been changes to the representation data.',
      },
      {
        source: 'RFC 9110 §13.1.2',
        text: 'An origin server that evaluates an If-None-Match condition MUST NOT perform the requested method if the condition evaluates to false; instead, the origin server MUST respond with either a) the 304 (Not Modified) status code if the request method is GET or HEAD or b) the 412 (Precondition Failed) status code for all other request methods.',
      },
      {
        source: 'RFC 9110 §13.1.2',
        text: 'When an origin server receives a request that selects a representation and that request includes an If-None-Match header field, the origin server MUST evaluate the If-None-Match condition per Section 13.2 prior to performing the method.',
      },
    ],
  },
  {
    id: 'strong-etag-changes',
    section: 'RFC 9110 §8.8.1, §8.8.3',
    group: '4.1',
    level: 'MUST',
    statement:
      'A strong entity tag changes whenever the counterparty it is sent with changes: two answers carrying the same strong ETag carry the same JSON value.',
    rationale:
      'A weak entity tag (W/"...") may stay the same across changes the server considers equivalent, so only strong ones are judged; representations are compared as JSON values (member order and white space aside), so only a change of the data itself counts.',
    quotes: [
      {
        source: 'RFC 9110 §8.8.1',
        text: 'A strong validator is representation metadata that changes value whenever a change occurs to the representation data that would be observable in the content of a 200 (OK) response to GET.',
      },
      {
        source: 'RFC 9110 §8.8.3',
        text: 'If an origin server provides an entity tag for a representation and the generation of that entity tag does not satisfy all of the characteristics of a strong validator (Section 8.8.1), then the origin server MUST mark the entity tag as weak by prefixing its opaque value with "W/" (case-sensitive).',
      },
      {
        source: 'RFC 9110 §8.8',
        text: 'In a successful response to a state-changing request, validator fields describe the new representation that has replaced the prior selected representation as a result of processing the request.',
      },
    ],
  },
  {
    id: 'patch-preconditions',
    section: 'RFC 9110 §13.1.1, §13.1.2, §13.2.2',
    group: '4.2',
    level: 'MUST',
    statement:
      'A PATCH whose If-Match names no current strong entity tag, or whose If-None-Match names the current one, changes nothing (412); one whose If-Match names the current strong tag is not refused with 412.',
    rationale:
      'Judged only where the read before the PATCH carried a strong entity tag: a weak one never matches If-Match (strong comparison), and a deployment that offers only weak tags offers no lost-update prevention to judge. A 2xx to a failed If-Match that changed nothing is allowed (the change appears to have been applied already); a 412 to the current tag is judged only when the read after shows that nothing changed meanwhile.',
    quotes: [
      {
        source: 'RFC 9110 §13.1.1',
        text: 'An origin server that evaluates an If-Match condition MUST NOT perform the requested method if the condition evaluates to false.',
      },
      {
        source: 'RFC 9110 §13.1.1',
        text: 'An origin server MUST use the strong comparison function when comparing entity tags for If-Match (Section 8.8.3.2), since the client intends this precondition to prevent the method from being applied if there have been any changes to the representation data.',
      },
      {
        source: 'RFC 9110 §13.1.2',
        text: 'An origin server that evaluates an If-None-Match condition MUST NOT perform the requested method if the condition evaluates to false; instead, the origin server MUST respond with either a) the 304 (Not Modified) status code if the request method is GET or HEAD or b) the 412 (Precondition Failed) status code for all other request methods.',
      },
      {
        source: 'RFC 9110 §15.5.13',
        text: 'The 412 (Precondition Failed) status code indicates that one or more conditions given in the request header fields evaluated to false when tested on the server (Section 13).',
      },
    ],
  },
  {
    id: 'collection-routed',
    section: 'interface.md §4.3',
    group: '4.3',
    level: 'MUST',
    statement:
      'Each listed collection operation (GET /api/v1/bills, /mandates, /direct-debit) exists: with a valid token it is not answered 404, 405 or 501.',
    quotes: [
      {
        source: 'interface.md §4.3',
        text: '| GET | `/api/v1/bills` | list bills; filters: status, type, cashflowType, counterpartyReference, due-date range; paginated |',
      },
      { source: 'interface.md §4.3', text: '| GET | `/api/v1/mandates` | list mandates, optional filters |' },
      {
        source: 'interface.md §4.3',
        text: '| GET | `/api/v1/direct-debit` | list collections, cursor-based pagination |',
      },
    ],
  },
  {
    id: 'patch-valid-accepted',
    section: 'interface.md §4.2',
    group: '4.2',
    level: 'MUST',
    statement:
      'A valid patch body (counterpartyDetails, counterpartyAccounts or both) of an existing counterparty is accepted with a 2xx status.',
    quotes: [
      {
        source: 'interface.md §4.2',
        text: 'Changes the details of an existing counterparty, adds accounts to it, or both.',
      },
      {
        source: 'interface.md §4.2',
        text: 'Success response: the updated counterparty object as in 2.1, with the same `Deprecation` and `Sunset` headers as 4.1.',
      },
    ],
  },
  {
    id: 'patch-persisted',
    section: 'interface.md §4.2; RFC 5789 §2',
    group: '4.2',
    level: 'MUST',
    statement: 'After an accepted PATCH, a GET of the counterparty returns what the PATCH response returned.',
    rationale:
      'Account state, verificationStatus, lastVerifiedAt and updatedAt are left out of the comparison: their transitions are not shown (§3), so a verification that runs between the two requests may change them.',
    quotes: [
      { source: 'interface.md §4.2', text: 'Success response: the updated counterparty object as in 2.1' },
      {
        source: 'RFC 5789 §2',
        text: 'The PATCH method requests that a set of changes described in the request entity be applied to the resource identified by the Request-URI.',
      },
    ],
  },
  {
    id: 'patch-sent-fields-applied',
    section: 'interface.md §4.2',
    group: '4.2',
    level: 'MUST',
    statement:
      'The updated counterparty carries the value sent for every detail field and every address field in the patch.',
    quotes: [
      {
        source: 'interface.md §4.2',
        text: '`counterpartyDetails`: object with at least 1 property; contains only the fields to change; `counterpartyReference` is immutable and cannot be changed.',
      },
      {
        source: 'interface.md §4.2',
        text: 'Permitted fields, with the same constraints as in 2.1 and 2.2: `accountHolderName`, `emailAddress`, `mobileNumber`, `remarks`, `address` (object as in 2.2).',
      },
    ],
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
    quotes: [
      {
        source: 'interface.md §4.2',
        text: '`counterpartyDetails`: object with at least 1 property; contains only the fields to change; `counterpartyReference` is immutable and cannot be changed.',
      },
      {
        source: 'interface.md §4.2',
        text: '`counterpartyAccounts`: array with at least 1 item; each item adds an account to the counterparty.',
      },
    ],
  },
  {
    id: 'patch-immutable-fields',
    section: 'interface.md §2.1, §4.2',
    group: '4.2',
    level: 'MUST',
    statement: 'A PATCH never changes counterpartyReference or createdAt.',
    quotes: [
      { source: 'interface.md §4.2', text: '`counterpartyReference` is immutable and cannot be changed.' },
      {
        source: 'interface.md §2.1',
        text: '| counterpartyReference | string | yes | length 3 to 90; pattern `^[-_a-zA-Z0-9]+$`; immutable |',
      },
    ],
  },
  {
    id: 'patch-updated-at',
    section: 'interface.md §2.1, §4.2',
    group: '4.2',
    level: 'MUST',
    statement:
      'An accepted PATCH never moves updatedAt backwards, and moves it forward when it changes the counterparty and the stored counterparty was last updated before the PATCH.',
    rationale:
      'A forward move is only required when the stored updatedAt is more than 60 s older than the Date of the GET before the PATCH, so clock skew and updates within the same second cannot cause a false alarm, and when the PATCH changed what the document settles: whether an update that changes nothing moves updatedAt is not said.',
    quotes: [
      { source: 'interface.md §2.1', text: '| updatedAt | string | yes | same format as createdAt |' },
      {
        source: 'interface.md §4.2',
        text: 'Changes the details of an existing counterparty, adds accounts to it, or both.',
      },
    ],
  },
  {
    id: 'patch-lifecycle-headers-as-get',
    section: 'interface.md §4.2',
    group: '4.2',
    level: 'MUST',
    statement:
      'An accepted PATCH carries the same Deprecation and Sunset headers as a GET of the same counterparty answered around it: both present with the same dates, or both absent.',
    rationale:
      'Judged against the successful reads just before and just after the PATCH; it holds if either read agrees, so a deployment that announces a deprecation between two requests is not blamed. Dates are compared as instants, so an HTTP-date and a date-time of the same moment are the same; their form is judged by the lifecycle requirements.',
    quotes: [
      {
        source: 'interface.md §4.2',
        text: 'Success response: the updated counterparty object as in 2.1, with the same `Deprecation` and `Sunset` headers as 4.1.',
      },
    ],
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
    quotes: [
      {
        source: 'interface.md §4.2',
        text: '`counterpartyAccounts`: array with at least 1 item; each item adds an account to the counterparty.',
      },
      {
        source: 'interface.md §4.2',
        text: 'Changes the details of an existing counterparty, adds accounts to it, or both.',
      },
    ],
  },
  {
    id: 'patch-equivalent-accepted',
    section: 'RFC 9110 §5.5, §8.3.1, §11.4; RFC 8259 §2, §4, §7; interface.md (introduction), §4.2',
    group: '4.2',
    level: 'MUST',
    statement:
      'A valid PATCH written in a form HTTP or JSON makes one with its plain form (white space around header values, the media type in another case or with a charset or other parameters, several spaces after Bearer, JSON white space, member order, escaped characters) is accepted as the plain form is.',
    rationale:
      'The RFCs define these as the same request, so refusing one refuses the request itself. Only forms the RFCs settle are sent: not a header name in another case (servers receive names normalised), not chunked framing (the suite sends a Content-Length), not query order or number forms (the API may read those differently).',
    quotes: [
      {
        source: 'interface.md (introduction)',
        text: 'The interface follows OpenAPI 3.1 and is REST over HTTP with JSON bodies.',
      },
      {
        source: 'interface.md §4.2',
        text: 'Changes the details of an existing counterparty, adds accounts to it, or both.',
      },
      {
        source: 'RFC 9110 §8.3.1',
        text: 'The type and subtype tokens are case-insensitive.',
      },
      {
        source: 'RFC 8259 §2',
        text: 'Insignificant whitespace is allowed before or after any of the six structural characters.',
      },
      {
        source: 'RFC 8259 §4',
        text: 'An object is an unordered collection of zero or more name/value pairs',
      },
      {
        source: 'RFC 8259 §7',
        text: 'Any character may be escaped.',
      },
    ],
  },
  {
    id: 'patch-invalid-rejected',
    section: 'interface.md §4.2, §7, §8',
    group: '4.2',
    level: 'MUST',
    statement:
      'A patch body that breaks a rule of §4.2 (minimum sizes, permitted properties, field constraints, not JSON at all) is rejected with a 4xx status.',
    rationale: 'The document does not say which 4xx, so any 4xx is accepted.',
    quotes: [
      {
        source: 'interface.md §4.2',
        text: 'Request body: JSON object with at least 1 property. Permitted properties: `counterpartyDetails` and `counterpartyAccounts`. At least one of the two must be present.',
      },
      {
        source: 'interface.md §7',
        text: 'A patch that carries neither counterpartyDetails nor counterpartyAccounts, or carries an empty one, violates the minimum-size rules of section 4.2.',
      },
      {
        source: 'interface.md §8',
        text: '`counterpartyDetails` holds at least 1 property; `counterpartyAccounts` holds at least 1 item; the patch body holds at least 1 property.',
      },
      { source: 'interface.md §8', text: 'Field length and pattern limits are those in sections 2 and 4.' },
    ],
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
    quotes: [
      {
        source: 'RFC 5789 §2',
        text: 'The server MUST apply the entire set of changes atomically and never provide (e.g., in response to a GET during this operation) a partially modified representation.',
      },
      {
        source: 'RFC 5789 §2',
        text: 'If the entire patch document cannot be successfully applied, then the server MUST NOT apply any of the changes.',
      },
      {
        source: 'interface.md §4.2',
        text: 'Request body: JSON object with at least 1 property. Permitted properties: `counterpartyDetails` and `counterpartyAccounts`. At least one of the two must be present.',
      },
    ],
  },
  {
    id: 'patch-concurrent-serializable',
    section: 'RFC 5789 §2; interface.md §4.2',
    group: '4.2',
    level: 'MUST',
    statement:
      'Accepted PATCHes of one counterparty that overlap in time (concurrent clients) leave it as some serial order of them makes it: every change answered 2xx is kept, or overwritten by a later accepted PATCH of the same field; no update is lost.',
    rationale:
      'The order the deployment applies them in is its own (any order passes); a partial address may be merged or may replace the stored one, so an address field a later PATCH of the group did not send may be gone. Fields none of them sent are judged per PATCH (patch-unsent-fields-unchanged).',
    quotes: [
      {
        source: 'RFC 5789 §2',
        text: 'The server MUST apply the entire set of changes atomically and never provide (e.g., in response to a GET during this operation) a partially modified representation.',
      },
      {
        source: 'interface.md §4.2',
        text: 'Changes the details of an existing counterparty, adds accounts to it, or both.',
      },
      { source: 'interface.md §4.2', text: 'Success response: the updated counterparty object as in 2.1' },
    ],
  },
  {
    id: 'patch-other-counterparty-unchanged',
    section: 'interface.md §4.2; RFC 5789 §2',
    group: '4.2',
    level: 'MUST',
    statement:
      'A PATCH changes the counterparty of its path only: the details and accounts it sends never appear on another counterparty.',
    rationale:
      "RFC 5789 lets a PATCH have side effects on other resources, but the document names none for a counterparty, whose details are its own legal name, contacts and accounts. Only a value the PATCH sent, appearing on another counterparty read before and after it where it was not before, is a finding: any other change between two reads may be another client's.",
    quotes: [
      {
        source: 'interface.md §4.2',
        text: 'Changes the details of an existing counterparty, adds accounts to it, or both.',
      },
      {
        source: 'RFC 5789 §2',
        text: 'The PATCH method requests that a set of changes described in the request entity be applied to the resource identified by the Request-URI.',
      },
    ],
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
    quotes: [
      {
        source: 'interface.md §4.2',
        text: 'Changes the details of an existing counterparty, adds accounts to it, or both.',
      },
    ],
  },
  {
    id: 'json-well-formed',
    section: 'interface.md §1; RFC 8259 §2',
    group: '1',
    level: 'MUST',
    statement: 'A body labelled with a JSON media type (application/json or +json) is well-formed JSON.',
    quotes: [
      {
        source: 'interface.md (introduction)',
        text: 'The interface follows OpenAPI 3.1 and is REST over HTTP with JSON bodies.',
      },
      {
        source: 'RFC 8259 §10',
        text: 'A JSON generator produces JSON text. The resulting text MUST strictly conform to the JSON grammar.',
      },
    ],
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
    quotes: [
      {
        source: 'interface.md (introduction)',
        text: 'The interface follows OpenAPI 3.1 and is REST over HTTP with JSON bodies.',
      },
      {
        source: 'interface.md §4.3',
        text: 'Request and response payloads of these operations, and the paths of counterparty creation and listing, payout links and accounts: not shown.',
      },
      { source: 'RFC 8259 §11', text: 'The media type for JSON text is application/json.' },
    ],
  },
  {
    id: 'immutable-fields-stable',
    section: 'interface.md §2.1',
    group: '2.1',
    level: 'MUST',
    statement:
      'Two answers about the same counterparty with no PATCH in between carry the same counterpartyReference and createdAt.',
    rationale:
      'Another client may change a counterparty at any time, so only the fields that never change are compared. The document calls counterpartyReference immutable; createdAt is the time of creation, which no later answer can move.',
    quotes: [
      { source: 'interface.md §4.2', text: '`counterpartyReference` is immutable and cannot be changed.' },
      {
        source: 'interface.md §2.1',
        text: '| createdAt | string | yes | UTC timestamp `YYYY-MM-DDThh:mm:ssZ` (ISO 8601, format date-time, no fractional seconds, no offset) |',
      },
    ],
  },
  {
    id: 'request-answered',
    section: 'RFC 9110 §3.4; interface.md §4',
    group: '4',
    level: 'MUST',
    statement:
      'Every request gets a complete HTTP response: a connection that opens and then never answers, or drops before the answer is complete, fails the request.',
    rationale:
      'A refused connection, a DNS or TLS failure before the first request is a configuration problem (exit 2), not a finding; once the deployment has answered, a connection it refuses or drops mid-run is a request it did not answer. A body over CONFORMANCE_MAX_RESPONSE_BYTES and a rate limit that does not lift are not judged.',
    quotes: [
      {
        source: 'RFC 9110 §3.4',
        text: 'A server responds to a client\'s request by sending one or more "response" messages, each including a status code (Section 15).',
      },
      {
        source: 'interface.md (introduction)',
        text: 'The interface follows OpenAPI 3.1 and is REST over HTTP with JSON bodies.',
      },
    ],
  },
  {
    id: 'bill-list-filters-accepted',
    section: 'interface.md §4.3, §3',
    group: '4.3',
    level: 'MUST',
    statement:
      'GET /api/v1/bills with the documented filters, status (every bill status the document names) and counterpartyReference (a valid reference), each alone and combined, is not answered 400.',
    rationale:
      'The filters are named; the statuses OPEN, PROCESSING, PAID and POST are named in §3 (PROCESSING is set only by the system, which bars writing it, not filtering by it); a counterpartyReference keeps the §2.1 rules. type and cashflowType are named without values, and the due-date range without parameter names, so they are not sent. Whether a filter matches anything, and the answer body, are not shown; only a refusal as a bad request is asserted against.',
    quotes: [
      {
        source: 'interface.md §4.3',
        text: '| GET | `/api/v1/bills` | list bills; filters: status, type, cashflowType, counterpartyReference, due-date range; paginated |',
      },
      {
        source: 'interface.md §3',
        text: '| Bill | OPEN | system (payment begins) | payment in flight | PROCESSING | PROCESSING is set only by the system and cannot be written by clients |',
      },
      { source: 'interface.md §3', text: '| Bill | PAID | system | settled flow | POST | none shown |' },
    ],
  },
  {
    id: 'bill-list-pagination-zero-accepted',
    section: 'interface.md §8, §9',
    group: '8',
    level: 'SHOULD',
    statement:
      'GET /api/v1/bills with page and pageSize at their minimum 0 (zero-based pages) or above is not answered 400.',
    rationale:
      'The minimum of 0 is stated, and the names page and pageSize come from the 1.3.0 change note; that they are the query parameters of GET /api/v1/bills is not stated, hence SHOULD. The document shows no maximum, so only values up to 100 are sent.',
    quotes: [
      {
        source: 'interface.md §8',
        text: 'In paginated bill lists, the page and page-size values in the pagination details have a minimum of 0, which allows zero-based page numbers.',
      },
      { source: 'interface.md §9', text: 'Pagination page and pageSize minimum lowered from 1 to 0.' },
    ],
  },
  {
    id: 'list-without-query-accepted',
    section: 'interface.md §4.3',
    group: '4.3',
    level: 'MUST',
    statement:
      'GET /api/v1/mandates (optional filters) and GET /api/v1/direct-debit (cursor-based: the first page has no cursor) without a query are not answered 400.',
    rationale:
      'The mandate filters are optional, and a cursor comes from a previous page, so the first request carries none. The filter and cursor parameter names are not shown, so nothing else is sent.',
    quotes: [
      { source: 'interface.md §4.3', text: '| GET | `/api/v1/mandates` | list mandates, optional filters |' },
      {
        source: 'interface.md §4.3',
        text: '| GET | `/api/v1/direct-debit` | list collections, cursor-based pagination |',
      },
    ],
  },
  {
    id: 'item-reference-pattern-not-success',
    section: 'interface.md §9, §4.3',
    group: '9',
    level: 'MUST',
    statement:
      'GET /api/v1/mandates/{ref} and /api/v1/direct-debit/{ref} with a reference breaking its 1.3.0 pattern is not answered 2xx: no mandate or collection can have it.',
    rationale:
      'Which 4xx (400 or 404) is not shown: §7 settles 400 for counterpartyReference only. Bill references have no documented pattern, so only invented ones are sent (item-unknown-reference-not-another).',
    quotes: [
      { source: 'interface.md §9', text: 'Mandate reference pattern becomes `^[a-zA-Z0-9\\-]+$`.' },
      { source: 'interface.md §9', text: 'Collection reference pattern becomes `^[a-zA-Z0-9\\-]+$`.' },
    ],
  },
  {
    id: 'item-unknown-reference-not-another',
    section: 'interface.md §4.3',
    group: '4.3',
    level: 'MUST',
    statement:
      'GET of one bill, mandate or collection by an invented, well-formed reference (up to 4096 characters) is never answered 2xx with a body for another reference (a body that does not carry the reference asked for).',
    rationale:
      'The payloads are not shown, so the suite cannot read which reference a body is for; a body that does not even contain the reference asked for is not that resource. The status for an unknown reference (404 or another 4xx) is not shown.',
    quotes: [
      {
        source: 'interface.md §4.3',
        text: '| GET | `/api/v1/bills/{uniqueReferenceIdentifier}` | get one bill |',
      },
      {
        source: 'interface.md §4.3',
        text: '| GET | `/api/v1/mandates/{mandateReference}` | get one mandate |',
      },
      {
        source: 'interface.md §4.3',
        text: '| GET | `/api/v1/direct-debit/{collectionReference}` | get one collection |',
      },
    ],
  },
  {
    id: 'item-known-readable',
    section: 'interface.md §4.3',
    group: '4.3',
    level: 'MUST',
    statement: 'GET of one bill, mandate or collection that exists (named in ITEM_FIXTURES) answers 2xx.',
    rationale:
      'The payloads are not shown, so nothing is asserted of the body beyond what the oracles judge of every answer; the operation exists to return the item, and the item exists.',
    quotes: [
      {
        source: 'interface.md §4.3',
        text: '| GET | `/api/v1/bills/{uniqueReferenceIdentifier}` | get one bill |',
      },
      {
        source: 'interface.md §4.3',
        text: '| GET | `/api/v1/mandates/{mandateReference}` | get one mandate |',
      },
      {
        source: 'interface.md §4.3',
        text: '| GET | `/api/v1/direct-debit/{collectionReference}` | get one collection |',
      },
      {
        source: 'RFC 9110 §15.3.1',
        text: 'The 200 (OK) status code indicates that the request has succeeded.',
      },
    ],
  },
  {
    id: 'item-create-accepted',
    section: 'interface.md §4.3',
    group: '4.3',
    level: 'MUST',
    statement:
      'POST /api/v1/bills, /api/v1/mandates and /api/v1/direct-debit with a body the deployment accepts (ITEM_FIXTURES) answer 2xx, and the item created can then be read (GET answers 2xx).',
    rationale:
      "The payloads are not shown, so the body is the deployment's own (ITEM_FIXTURES); the created item is found by the Location header or by a field of the answer named like the path parameter, and when neither names it, it is not read back. A read may trail the write by the settle window.",
    quotes: [
      { source: 'interface.md §4.3', text: '| POST | `/api/v1/bills` | ingest a bill |' },
      {
        source: 'interface.md §4.3',
        text: '| POST | `/api/v1/mandates` | create a SEPA direct-debit mandate |',
      },
      {
        source: 'interface.md §4.3',
        text: '| POST | `/api/v1/direct-debit` | start a collection against an active mandate |',
      },
      {
        source: 'RFC 9110 §15.3.2',
        text: 'The 201 (Created) status code indicates that the request has been fulfilled and has resulted in one or more new resources being created.',
      },
    ],
  },
  {
    id: 'item-update-accepted',
    section: 'interface.md §4.3',
    group: '4.3',
    level: 'MUST',
    statement:
      'PATCH /api/v1/bills/{ref} of a bill that exists, with a body the deployment accepts (ITEM_FIXTURES updateBill), answers 2xx.',
    rationale:
      "The payload is not shown, so the body is the deployment's own and only its acceptance is judged, not what the bill then holds.",
    quotes: [
      {
        source: 'interface.md §4.3',
        text: '| PATCH | `/api/v1/bills/{uniqueReferenceIdentifier}` | update bill status, open amount or due date |',
      },
    ],
  },
  {
    id: 'bill-document-accepted',
    section: 'interface.md §4.3',
    group: '4.3',
    level: 'MUST',
    statement:
      'POST /api/v1/bills/{ref}/document of a PDF, of a JPEG and of a PNG to a bill that exists, each framed as the deployment takes documents (ITEM_FIXTURES document), answers 2xx.',
    rationale:
      'Whether the file is the whole body or a part of a multipart/form-data body is not shown, so the deployment says which. The three kinds the purpose row names are a finite class: each is sent (generators/documents.ts), the images as the bytes of a one-pixel file.',
    quotes: [
      {
        source: 'interface.md §4.3',
        text: '| POST | `/api/v1/bills/{uniqueReferenceIdentifier}/document` | upload a PDF, JPEG or PNG and link it to the bill |',
      },
    ],
  },
  {
    id: 'mandate-cancel',
    section: 'interface.md §3, §4.3',
    group: '3',
    level: 'MUST',
    statement:
      'DELETE /api/v1/mandates/{ref} of an active mandate (one the run created) answers 2xx, and a read of the mandate after it shows CANCELLED.',
    rationale:
      "The field that holds a mandate's state is not shown, so the read after must hold the value CANCELLED somewhere in its body; a read may trail by the settle window.",
    quotes: [
      {
        source: 'interface.md §3',
        text: '| Mandate | active | DELETE `/api/v1/mandates/{mandateReference}` | mandate is active | CANCELLED | none shown |',
      },
      {
        source: 'interface.md §4.3',
        text: '| DELETE | `/api/v1/mandates/{mandateReference}` | cancel an active mandate |',
      },
    ],
  },
  {
    id: 'write-body-malformed-not-success',
    section: 'interface.md (introduction), §4.3',
    group: '4.3',
    level: 'MUST',
    statement:
      'POST /api/v1/bills, PATCH /api/v1/bills/{ref}, POST /api/v1/bills/{ref}/document, POST /api/v1/mandates and POST /api/v1/direct-debit with a body that is empty, not JSON, a JSON scalar, or very large and one of these, are never answered 2xx.',
    rationale:
      'The payloads are not shown, but a bill, a mandate or a collection is not nothing, not text that fails to parse and not a JSON scalar, and none of these is a PDF, JPEG or PNG. Item operations are sent to invented references. Which 4xx (400, 413, 415, 404 for the unknown bill, 422) is not shown. No JSON object or array is sent: one could be valid.',
    quotes: [
      {
        source: 'interface.md (introduction)',
        text: 'The interface follows OpenAPI 3.1 and is REST over HTTP with JSON bodies.',
      },
      { source: 'interface.md §4.3', text: '| POST | `/api/v1/bills` | ingest a bill |' },
      {
        source: 'interface.md §4.3',
        text: '| PATCH | `/api/v1/bills/{uniqueReferenceIdentifier}` | update bill status, open amount or due date |',
      },
      {
        source: 'interface.md §4.3',
        text: '| POST | `/api/v1/bills/{uniqueReferenceIdentifier}/document` | upload a PDF, JPEG or PNG and link it to the bill |',
      },
      {
        source: 'interface.md §4.3',
        text: '| POST | `/api/v1/mandates` | create a SEPA direct-debit mandate |',
      },
      {
        source: 'interface.md §4.3',
        text: '| POST | `/api/v1/direct-debit` | start a collection against an active mandate |',
      },
    ],
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
