/**
 * The vocabulary of the request model: what goes in (a request as a log records it), what comes
 * out (the operation it targets, and whether it is valid: every rule it breaks, and every point
 * the document leaves open that it touches), and how a rule is described (a stable id, a level,
 * where it applies, and the words it rests on).
 *
 * Three verdicts and one non-verdict:
 * - `valid`: no rule is broken and nothing the model needs is left open by the document. Whether
 *   the deployment accepts the bearer token is never known to a request model: `credentials`
 *   says so on every request (validity `unknown`), and `valid` never covers it.
 * - `invalid`: at least one rule is broken (all of them are listed, MUST and SHOULD alike; see
 *   each rule's `level` and `refusal` for what follows).
 * - `undetermined`: nothing is broken, but the request touches something the document does not
 *   show (a payload of §4.3, the inner fields of an account identifier, an undocumented path...):
 *   the model will not claim validity it cannot know.
 * - `outside`: the URL is not below the interface's /api/v1/ prefix; nothing is judged.
 */
import type { Operation } from '../spec/index.ts';
import type { Level, Quote } from '../spec/requirements.ts';

export type { Level, Quote };

/** A request as the exchange log (or a HAR entry, or the proxy) records it. */
export interface HttpRequest {
  method: string;
  /** An absolute URL, or a path with its query. */
  url: string;
  /**
   * The header fields as received: a record (one value per name, as an Exchange keeps them) or
   * the field lines in order, a repeated name once per line.
   */
  headers: Readonly<Record<string, string>> | readonly (readonly [string, string])[];
  /** The content: text, or the bytes as sent (then UTF-8 is checked too). Absent or empty: none. */
  body?: string | Uint8Array;
}

/** An account identifier (and branch identifier) the caller knows a deployment accepts. */
export interface KnownAccount {
  accountIdentifier: unknown;
  branchIdentifier?: unknown;
}

export interface ModelOptions {
  /** The path of the base URL ('' or '/gateway'): as exchange/route.ts takes it. */
  basePath?: string;
  /**
   * Identifiers vouched for by whoever runs the model (the suite's account fixture): the document
   * does not show their inner fields, so only an identifier equal to one of these counts as valid;
   * any other leaves the request undetermined.
   */
  knownAccounts?: readonly KnownAccount[];
}

/** Where a rule applies. Body pointers are JSON Pointers with `*` for any array index. */
export type Where =
  | { in: 'path'; name: string }
  | { in: 'query'; name: string }
  | { in: 'header'; name: string }
  | { in: 'credentials' }
  | { in: 'body'; pointer: string }
  | { in: 'relation'; pointers: readonly string[] };

/**
 * What a conforming deployment does with a request that breaks the rule: `required`, it refuses
 * it (no 2xx; the rule's quotes say which status where the document does); `permitted`, it may
 * refuse it or serve it (HTTP practice, a SHOULD, or a point the document does not settle).
 */
export type Refusal = 'required' | 'permitted';

export interface RequestRule {
  /** Stable, kebab-case. */
  id: string;
  level: Level;
  refusal: Refusal;
  where: Where;
  /** The operations (operationId) it applies to. */
  operations: readonly string[];
  /** One line: what a valid request does. */
  statement: string;
  /** The words it rests on, word for word: interface.md first where it speaks. */
  quotes: readonly Quote[];
  /** Why the rule is drawn where it is, where the document leaves room. */
  rationale?: string;
}

/** Something the document leaves open that a request can touch: never valid, never broken. */
export interface OpenPoint {
  id: string;
  where: Where;
  operations: readonly string[];
  /** What the model cannot decide, and why. */
  statement: string;
  quotes: readonly Quote[];
}

/** A rule a request breaks, where, and how. */
export interface Breach {
  rule: string;
  level: Level;
  /** 'path counterpartyReference', 'query page', 'header Content-Type', '/counterpartyAccounts/0/name', ... */
  at: string;
  message: string;
}

/** An open point a request touches. */
export interface OpenHit {
  point: string;
  at: string;
  message: string;
}

/** The operation a request targets, or why it targets none. */
export type Target =
  | {
      kind: 'operation';
      operation: Operation;
      /** Path parameters, percent-decoded. */
      params: Readonly<Record<string, string>>;
      /** As they stood in the URL. */
      rawParams: Readonly<Record<string, string>>;
    }
  /** A counterparty reference holding a raw "/": a routing failure, 404 (§4.1). */
  | { kind: 'slash'; operation: Operation; reference: string }
  /** Below /api/v1/ but no documented path: 404-ish, unless an operation the document does not show lives there. */
  | { kind: 'undocumented-path' }
  /** A documented path, a method it does not list: 405-ish, unless an undocumented operation uses it. */
  | { kind: 'undocumented-method'; allowed: readonly string[] }
  /** Not below the interface's prefix. */
  | { kind: 'outside' };

export interface Credentials {
  /** The scheme as written ('Bearer', 'bearer', 'Basic'), absent without an Authorization header. */
  scheme: string | undefined;
  /** absent; present; redacted: recorded as $API_TOKEN (…), its syntax not judged. */
  token: 'absent' | 'present' | 'redacted';
  /** Whether the deployment accepts the token: never known from the request. */
  validity: 'unknown';
}

/** The content as the model read it. */
export interface BodyView {
  /**
   * none: no content; json: parsed; malformed: not JSON text; other: not labelled or expected as
   * JSON; too-deep: JSON text nested deeper than MAX_JSON_DEPTH, not read as a value.
   */
  kind: 'none' | 'json' | 'malformed' | 'other' | 'too-deep';
  /** The media type's essence (type/subtype, lower case), when labelled. */
  mediaType: string | undefined;
  /** The JSON value, when kind is json. */
  json?: unknown;
  /** Its size in UTF-16 code units (text) or bytes (bytes). */
  size: number;
}

export type Verdict = 'valid' | 'invalid' | 'undetermined' | 'outside';

export interface ModelledRequest {
  verdict: Verdict;
  target: Target;
  /** The operation targeted (for a slash, the one it was aimed at). */
  operationId: string | undefined;
  /** Decoded path parameters. */
  params: Readonly<Record<string, string>>;
  /** Query parameters, decoded, in order. */
  query: readonly (readonly [string, string])[];
  credentials: Credentials;
  body: BodyView;
  /** Every rule broken, in the order the families judge (routing, path, query, headers, credentials, body, relations). */
  broken: readonly Breach[];
  /** Every open point touched. */
  open: readonly OpenHit[];
}

/** For every rule: a minimal request on which it holds and one that breaks it alone. */
export interface RuleCase {
  rule: string;
  holds: HttpRequest;
  breaks: HttpRequest;
}

/** For every open point: a minimal request that touches it alone. */
export interface OpenCase {
  point: string;
  request: HttpRequest;
}
