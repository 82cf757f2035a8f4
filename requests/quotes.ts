/**
 * The words the request rules rest on, word for word: sentences, bullets and table rows of
 * ../shared/interface.md (tests/self/request-model.spec.ts checks that each occurs there, in the
 * section named), and the RFC sentences HTTP and JSON add. Kept here once, so that two rules
 * resting on one sentence quote it the same way.
 */
import type { Quote } from '../spec/requirements.ts';

const doc = (section: string, text: string): Quote => ({
  source: section === 'intro' ? 'interface.md (introduction)' : `interface.md §${section}`,
  text,
});
const rfc = (source: string, text: string): Quote => ({ source, text });

export const Q = {
  jsonBodies: doc('intro', 'The interface follows OpenAPI 3.1 and is REST over HTTP with JSON bodies.'),

  // §2.1, §2.2, §2.3: the fields of a counterparty, an address and an account
  referenceRow: doc(
    '2.1',
    '| counterpartyReference | string | yes | length 3 to 90; pattern `^[-_a-zA-Z0-9]+$`; immutable |',
  ),
  holderNameRow: doc(
    '2.1',
    '| accountHolderName | string | yes | length 3 to 90; pattern `^[-_ a-zA-Z0-9]+$`; legal name as registered with the bank, used for anti-money-laundering matching |',
  ),
  emailRow: doc('2.1', '| emailAddress | string | no | length 6 to 255; format email |'),
  mobileRow: doc('2.1', '| mobileNumber | string | no | length 5 to 16; pattern `^[\\d]*$` (digits only) |'),
  remarksRow: doc(
    '2.1',
    "| remarks | string | no | length 3 to 90; pattern `^[A-Za-z0-9_.,'-]+( +[A-Za-z0-9_.,'-]+)*$` (words of letters, digits and `_ . , ' -`, separated by spaces only) |",
  ),
  createdByRow: doc(
    '2.1',
    '| createdBy | string | no | length 3 to 100; filled internally by the service from the channel (API, web or link); cannot be written by the client |',
  ),
  addressRow: doc('2.1', '| address | object | no | see 2.2 |'),
  addressLineRow: doc(
    '2.2',
    "| addressLine | string | length 1 to 210; pattern `^[ a-zA-Z0-9!@#$&()_+\\-./:,?']+$` (letters, digits, space and the symbols `! @ # $ & ( ) _ + - . / : , ? '`) |",
  ),
  postalCodeRow: doc('2.2', '| postalCode | string | length 1 to 16; pattern `^[A-Za-z0-9 -]*$` |'),
  addressCountryRow: doc(
    '2.2',
    '| country | string | ISO 3166 alpha-2, upper case, one of the country list below |',
  ),
  countryList: doc(
    '2.2',
    'Country list (used for address.country and account country): IN, DE, AT, GB, BE, BG, HR, CY, CZ, DK, EE, FI, FR, GR, HU, IE, IT, LV, LT, LU, MT, NL, PL, PT, RO, SK, SI, ES, SE, CH, SM, VA, AD, MC, IS, NO, LI, US.',
  ),
  ukNote: doc(
    '2.2',
    'A change note states that the region code for the United Kingdom is UK rather than GB in v1.1.0; the response enumeration above still lists GB and does not list UK.',
  ),
  accountCountryResponseRow: doc(
    '2.3',
    '| country | string | no | 2 upper-case letters, pattern `^[A-Z]{2,2}$`, from the country list; bank country |',
  ),
  branchRow: doc(
    '2.3',
    '| branchIdentifier | object | no | known identifier types: `SORT` (6-digit UK sort code, used with GBP) and `ROUTING` (9-digit US ABA routing number, used with USD), each matched to the account currency; other inner fields: not shown |',
  ),
  accountIdentifierResponseRow: doc('2.3', '| accountIdentifier | object | yes | inner fields: not shown |'),

  // §4.1
  referenceParam: doc(
    '4.1',
    'Path parameter `counterpartyReference`: required string, length 3 to 90, pattern `^[-_a-zA-Z0-9]+$`.',
  ),
  slash: doc(
    '4.1',
    'A reference containing a forward slash is treated as a path separator, so the request fails as a routing error with status 404, not as a pattern violation with status 400.',
  ),
  getNoBody: doc('4.1', 'Request body: none.'),
  auth41: doc('4.1', 'Authentication: bearer (section 5).'),

  // §4.2
  patchBody: doc(
    '4.2',
    'Request body: JSON object with at least 1 property. Permitted properties: `counterpartyDetails` and `counterpartyAccounts`. At least one of the two must be present.',
  ),
  patchDetails: doc(
    '4.2',
    '`counterpartyDetails`: object with at least 1 property; contains only the fields to change; `counterpartyReference` is immutable and cannot be changed.',
  ),
  permittedDetails: doc(
    '4.2',
    'Permitted fields, with the same constraints as in 2.1 and 2.2: `accountHolderName`, `emailAddress`, `mobileNumber`, `remarks`, `address` (object as in 2.2).',
  ),
  patchAccounts: doc(
    '4.2',
    '`counterpartyAccounts`: array with at least 1 item; each item adds an account to the counterparty. Item fields:',
  ),
  accountTypeRow: doc('4.2', '| accountType | string | yes | `BANK_ACCOUNT` |'),
  accountCategoryRow: doc('4.2', '| accountCategory | string | yes | `PERSONAL` or `BUSINESS` |'),
  accountNameRow: doc('4.2', '| name | string | yes | length 3 to 90; pattern `^[-_ a-zA-Z0-9]+$` |'),
  accountIdentifierRow: doc('4.2', '| accountIdentifier | object | yes | inner fields: not shown |'),
  accountCountryRow: doc(
    '4.2',
    '| country | string | required when accountType is `BANK_ACCOUNT` | exactly 2 characters; pattern `^[A-Z]*$` |',
  ),
  currencyRow: doc('4.2', '| currency | string | no | `EUR`, `USD`, `GBP` |'),
  branchRequestRow: doc('4.2', '| branchIdentifier | object | no | see 2.3 |'),

  // §4.3 (each operation's own row is in spec/operations.ts)
  notShown43: doc(
    '4.3',
    'Request and response payloads of these operations, and the paths of counterparty creation and listing, payout links and accounts: not shown.',
  ),
  otherOperations: doc(
    'intro',
    'The other operation groups are listed only as far as their method, path and purpose are known.',
  ),

  // §3, §5, §7, §8, §9
  processingRow: doc(
    '3',
    '| Bill | OPEN | system (payment begins) | payment in flight | PROCESSING | PROCESSING is set only by the system and cannot be written by clients |',
  ),
  billStatusesNotShown: doc(
    '3',
    'The complete list of bill, credit note, mandate and collection statuses: not shown.',
  ),
  bearer: doc(
    '5',
    'Scheme: HTTP bearer. Every operation above is declared with it; the client sends `Authorization: Bearer <ACCESS_TOKEN>`.',
  ),
  tokenNotShown: doc('5', 'How a token is issued, its lifetime and its scopes: not shown.'),
  slashRow: doc('7', '| `counterpartyReference` contains a forward slash | status 404 (routing failure) |'),
  patternRow: doc(
    '7',
    '| `counterpartyReference` violates length or pattern without a slash | status 400 (pattern mismatch) |',
  ),
  emptyPatch: doc(
    '7',
    'A patch that carries neither counterpartyDetails nor counterpartyAccounts, or carries an empty one, violates the minimum-size rules of section 4.2.',
  ),
  fieldLimits: doc('8', 'Field length and pattern limits are those in sections 2 and 4.'),
  minSizes: doc(
    '8',
    '`counterpartyDetails` holds at least 1 property; `counterpartyAccounts` holds at least 1 item; the patch body holds at least 1 property.',
  ),
  pagination: doc(
    '8',
    'In paginated bill lists, the page and page-size values in the pagination details have a minimum of 0, which allows zero-based page numbers.',
  ),
  uploadSizeNotShown: doc(
    '8',
    'Rate limits, maximum number of accounts per counterparty and maximum upload size: not shown.',
  ),
  paginationChange: doc('9', 'Pagination page and pageSize minimum lowered from 1 to 0.'),
  mandatePattern: doc('9', 'Mandate reference pattern becomes `^[a-zA-Z0-9\\-]+$`.'),
  collectionPattern: doc('9', 'Collection reference pattern becomes `^[a-zA-Z0-9\\-]+$`.'),
  currencyCode: doc('9', 'Bill currencyCode becomes an enum of INR, USD, EUR, GBP.'),
  processingChange: doc(
    '9',
    '| 1.2.0 | Bill and linked credit note status gains PROCESSING, set by the system only and absent from the bill write requests. |',
  ),
  mandateMode: doc(
    '9',
    'Mandate mode is CORE only; mandate type is RECURRING or ONE_OFF; frequency optional.',
  ),
  mandatesEu: doc('1', 'Mandates: SEPA direct-debit mandates. Region EU only, currency EUR only.'),

  // RFCs
  schemeCase: rfc(
    'RFC 9110 §11.1',
    'It uses a case-insensitive token to identify the authentication scheme:',
  ),
  bearerSyntax: rfc(
    'RFC 6750 §2.1',
    'b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="',
  ),
  bearerCredentials: rfc('RFC 6750 §2.1', 'credentials = "Bearer" 1*SP b64token'),
  contentTypeShould: rfc(
    'RFC 9110 §8.3',
    'A sender that generates a message containing content SHOULD generate a Content-Type header field in that message unless the intended media type of the enclosed representation is unknown to the sender.',
  ),
  mediaTypeSyntax: rfc('RFC 9110 §8.3.1', 'media-type = type "/" subtype parameters'),
  mediaTypeCase: rfc('RFC 9110 §8.3.1', 'The type and subtype tokens are case-insensitive.'),
  jsonMediaType: rfc('RFC 8259 §11', 'The media type for JSON text is application/json.'),
  jsonGenerator: rfc(
    'RFC 8259 §10',
    'A JSON generator produces JSON text. The resulting text MUST strictly conform to the JSON grammar.',
  ),
  utf8: rfc(
    'RFC 8259 §8.1',
    'JSON text exchanged between systems that are not part of a closed ecosystem MUST be encoded using UTF-8 [RFC3629].',
  ),
  noBom: rfc(
    'RFC 8259 §8.1',
    'Implementations MUST NOT add a byte order mark (U+FEFF) to the beginning of a networked-transmitted JSON text.',
  ),
  noCharset: rfc('RFC 8259 §11', 'No "charset" parameter is defined for this registration.'),
  uniqueNames: rfc('RFC 8259 §4', 'The names within an object SHOULD be unique.'),
  nestingLimit: rfc('RFC 8259 §9', 'An implementation may set limits on the maximum depth of nesting.'),
  singleField: rfc(
    'RFC 9110 §5.3',
    "A sender MUST NOT generate multiple field lines with the same name in a message (whether in the headers or trailers) or append a field line when a field line of the same name already exists in the message, unless that field's definition allows multiple field line values to be recombined as a comma-separated list",
  ),
  getContent: rfc(
    'RFC 9110 §9.3.1',
    'A client SHOULD NOT generate content in a GET request unless it is made directly to an origin server that has previously indicated, in or out of band, that such a request has a purpose and will be adequately supported.',
  ),
  deleteContent: rfc(
    'RFC 9110 §9.3.5',
    'A client SHOULD NOT generate content in a DELETE request unless it is made directly to an origin server that has previously indicated, in or out of band, that such a request has a purpose and will be adequately supported.',
  ),
} as const satisfies Record<string, Quote>;
