/**
 * Oracle 'auth-challenge': a 401 carries a Bearer challenge.
 *
 * Requirement: auth-401-bearer-challenge (SHOULD).
 *
 * Rests on:
 * - interface.md §5: "Scheme: HTTP bearer. Every operation above is declared with it".
 * - RFC 9110 §15.5.2: "The server generating a 401 response MUST send a WWW-Authenticate header
 *   field (Section 11.6.1) containing at least one challenge applicable to the target resource."
 * - RFC 9110 §11.6.1: "WWW-Authenticate = #challenge"; §11.1: the auth-scheme is a token that
 *   identifies the scheme case-insensitively.
 * - RFC 6750 §3: "If the protected resource request does not include authentication credentials
 *   or does not contain an access token that enables access to the protected resource, the
 *   resource server MUST include the HTTP "WWW-Authenticate" response header field"; "All
 *   challenges defined by this specification MUST use the auth-scheme value "Bearer"."
 *
 * Applies to: every answered exchange of an operation of the interface with status 401. The
 * header holds when it parses as RFC 9110 challenges and one of them has the scheme Bearer, in
 * any case; the text of an auth-param (`Basic realm="bearer"`) is no challenge.
 *
 * The parser follows the grammar of RFC 9110 §11.2, §11.6.1 and §5.6 below. The parsers on npm
 * were tried on the values of the vectors and each fails some:
 * - http-auth-utils 6.0.1 parseWWWAuthenticateHeader reads one challenge, needs a space after
 *   the scheme and knows only Basic, Digest and Bearer: "Bearer" and
 *   'Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple", Bearer'
 *   throw E_UNKNOWN_AUTH_MECHANISM; 'Basic realm="x", Bearer error="invalid_token"' throws
 *   E_UNAUTHORIZED_KEY.
 * - auth-header 1.0.0 parse reads one challenge (its README: multiple challenges in one header
 *   are not supported): "Bearer" throws "Invalid scheme"; 'Basic realm="x", Bearer
 *   error="invalid_token"' gives scheme Basic with params realm and error and a stray token
 *   "Bearer".
 * - www-authenticate 0.6.3 parsers.WWW_Authenticate reads one challenge: "Bearer" throws
 *   (TypeError on a null match); 'Basic realm="x", Bearer error="invalid_token"' gives scheme
 *   Basic with a parameter named "Bearer error"; a quoted-pair (\") makes it fail.
 * - oauth4webapi parses challenges internally but does not export its parser.
 */
import type { RequirementId } from '../spec/requirements.ts';
import { held, violated, type ExchangeOracle, type Judgement } from './types.ts';

/** One challenge of a WWW-Authenticate value. */
export interface Challenge {
  /** The auth-scheme as sent; compare it case-insensitively. */
  scheme: string;
  /** The token68, when the challenge carries one instead of auth-params. */
  token68?: string;
  /** The auth-params: names in lower case (they match case-insensitively), quoted-strings unescaped. */
  params: Record<string, string>;
}

export type ChallengeParse =
  | { ok: true; challenges: Challenge[] }
  | { ok: false; error: string; /** Where in the value, from 0. */ offset: number };

class ChallengeSyntaxError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

const DQUOTE = '"';
const BACKSLASH = '\\';
/** RFC 9110 §5.6.2 tchar, apart from DIGIT and ALPHA. */
const TCHAR_SYMBOLS = "!#$%&'*+-.^_`|~";
/** RFC 9110 §11.2 token68, apart from DIGIT, ALPHA and the trailing "=". */
const TOKEN68_SYMBOLS = '-._~+/';

function isAlphaOrDigit(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
}

const isTchar = (ch: string): boolean => isAlphaOrDigit(ch.charCodeAt(0)) || TCHAR_SYMBOLS.includes(ch);
const isToken68Char = (ch: string): boolean =>
  isAlphaOrDigit(ch.charCodeAt(0)) || TOKEN68_SYMBOLS.includes(ch);

/** qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text (RFC 9110 §5.6.4). */
function isQdtext(c: number): boolean {
  return (
    c === 0x09 ||
    c === 0x20 ||
    c === 0x21 ||
    (c >= 0x23 && c <= 0x5b) ||
    (c >= 0x5d && c <= 0x7e) ||
    isObsText(c)
  );
}

/** What may follow "\" in a quoted-pair: HTAB / SP / VCHAR / obs-text. */
function isQuotedPairChar(c: number): boolean {
  return c === 0x09 || (c >= 0x20 && c <= 0x7e) || isObsText(c);
}

function isObsText(c: number): boolean {
  return c >= 0x80 && c <= 0xff;
}

/**
 * A recursive-descent parser of
 *
 *   WWW-Authenticate = #challenge                                        (RFC 9110 §11.6.1)
 *   challenge   = auth-scheme [ 1*SP ( token68 / #auth-param ) ]         (§11.2)
 *   auth-scheme = token
 *   auth-param  = token BWS "=" BWS ( token / quoted-string )
 *   token68     = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
 *   #element    = [ element ] *( OWS "," OWS [ element ] )              (§5.6.1, empty elements accepted)
 *
 * Challenges and their auth-params share the comma, so a list element that reads as an
 * auth-param (token BWS "=" ...) belongs to the challenge before it, and any other element starts
 * a new challenge. A name repeated within a challenge is an error (§11.2: "Each parameter name
 * MUST only occur once per challenge").
 */
class Parser {
  private pos = 0;
  constructor(private readonly s: string) {}

  parse(): Challenge[] {
    const challenges: Challenge[] = [];
    this.skipSeparators();
    while (!this.done()) challenges.push(this.challenge());
    if (challenges.length === 0) throw new ChallengeSyntaxError(0, 'no challenge');
    return challenges;
  }

  private done(): boolean {
    return this.pos >= this.s.length;
  }

  private peek(): string | undefined {
    return this.s[this.pos];
  }

  private ows(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.pos++;
  }

  /** Empty list elements: OWS *( "," OWS ). */
  private skipSeparators(): void {
    this.ows();
    while (this.peek() === ',') {
      this.pos++;
      this.ows();
    }
  }

  /** The end of a list element: OWS, then the end or at least one ",". */
  private endOfElement(): void {
    this.ows();
    if (this.done()) return;
    if (this.peek() !== ',')
      throw new ChallengeSyntaxError(
        this.pos,
        `expected "," or the end, found ${JSON.stringify(this.peek())}`,
      );
    this.skipSeparators();
  }

  private token(): string | undefined {
    const start = this.pos;
    while (!this.done() && isTchar(this.s[this.pos]!)) this.pos++;
    return this.pos > start ? this.s.slice(start, this.pos) : undefined;
  }

  private quotedString(): string {
    const start = this.pos;
    this.pos++; // the opening DQUOTE
    let out = '';
    while (!this.done()) {
      const ch = this.s[this.pos]!;
      const c = ch.charCodeAt(0);
      if (ch === DQUOTE) {
        this.pos++;
        return out;
      }
      if (ch === BACKSLASH) {
        const next = this.s[this.pos + 1];
        if (next === undefined || !isQuotedPairChar(next.charCodeAt(0)))
          throw new ChallengeSyntaxError(
            this.pos,
            'a "\\" in a quoted-string not followed by a visible character',
          );
        out += next;
        this.pos += 2;
        continue;
      }
      if (!isQdtext(c))
        throw new ChallengeSyntaxError(
          this.pos,
          `character U+${c.toString(16).padStart(4, '0')} in a quoted-string`,
        );
      out += ch;
      this.pos++;
    }
    throw new ChallengeSyntaxError(start, 'a quoted-string without its closing quote');
  }

  /** auth-param at the current position, or undefined (position unchanged) when there is none. */
  private authParam(): { name: string; value: string; offset: number } | undefined {
    const start = this.pos;
    const name = this.token();
    if (name !== undefined) {
      this.ows();
      if (this.peek() === '=') {
        this.pos++;
        this.ows();
        const value = this.peek() === DQUOTE ? this.quotedString() : this.token();
        if (value !== undefined) return { name: name.toLowerCase(), value, offset: start };
      }
    }
    this.pos = start;
    return undefined;
  }

  private token68(): string | undefined {
    const start = this.pos;
    while (!this.done() && isToken68Char(this.s[this.pos]!)) this.pos++;
    if (this.pos === start) return undefined;
    while (this.peek() === '=') this.pos++;
    return this.s.slice(start, this.pos);
  }

  private challenge(): Challenge {
    const at = this.pos;
    const scheme = this.token();
    if (scheme === undefined)
      throw new ChallengeSyntaxError(
        at,
        `expected an auth-scheme (a token), found ${JSON.stringify(this.peek())}`,
      );
    const params = new Map<string, string>();
    const challenge = (token68?: string): Challenge => ({
      scheme,
      ...(token68 !== undefined ? { token68 } : {}),
      params: Object.fromEntries(params),
    });
    if (this.peek() !== ' ') {
      this.endOfElement();
      return challenge();
    }
    while (this.peek() === ' ') this.pos++; // 1*SP
    if (this.done() || this.peek() === ',' || this.peek() === '\t') {
      this.endOfElement();
      return challenge();
    }
    let param = this.authParam();
    if (param === undefined) {
      const token68 = this.token68();
      if (token68 === undefined)
        throw new ChallengeSyntaxError(
          this.pos,
          `expected a token68 or an auth-param after the auth-scheme ${scheme}`,
        );
      this.endOfElement();
      return challenge(token68);
    }
    while (param !== undefined) {
      if (params.has(param.name))
        throw new ChallengeSyntaxError(
          param.offset,
          `the auth-param ${param.name} occurs twice in the ${scheme} challenge`,
        );
      params.set(param.name, param.value);
      this.endOfElement();
      param = this.done() ? undefined : this.authParam();
    }
    return challenge();
  }
}

/** Parses a WWW-Authenticate value (repeated field lines joined with ", ") into its challenges. */
export function parseChallenges(value: string): ChallengeParse {
  try {
    return { ok: true, challenges: new Parser(value).parse() };
  } catch (e) {
    if (e instanceof ChallengeSyntaxError) return { ok: false, error: e.message, offset: e.offset };
    throw e;
  }
}

/** Whether a WWW-Authenticate value parses and holds a challenge for the Bearer scheme. */
export function hasBearerChallenge(value: string | undefined): boolean {
  if (value === undefined) return false;
  const parsed = parseChallenges(value);
  return parsed.ok && parsed.challenges.some(isBearer);
}

const isBearer = (c: Challenge): boolean => c.scheme.toLowerCase() === 'bearer';

const REQUIREMENT: RequirementId = 'auth-401-bearer-challenge';
const EXPECTED =
  'WWW-Authenticate with a Bearer challenge, e.g. WWW-Authenticate: Bearer realm="payflow" (RFC 6750 §3; RFC 9110 §11.6.1)';

/** A response header by name in any case (an Exchange keeps them in lower case). */
function responseHeader(headers: Record<string, string>, name: string): string | undefined {
  const lower = name.toLowerCase();
  if (Object.hasOwn(headers, lower)) return headers[lower];
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === lower) return v;
  return undefined;
}

export const AUTH_CHALLENGE_ORACLE: ExchangeOracle = {
  id: 'auth-challenge',
  kind: 'exchange',
  requirements: [REQUIREMENT],
  unexercised: { [REQUIREMENT]: 'no operation of the interface answered 401' },
  judge({ exchange, route }): Judgement[] {
    if (route === undefined || exchange.status !== 401) return [];
    const where = `${route.operation.method} ${route.operation.path} (401)`;
    const value = responseHeader(exchange.headers, 'www-authenticate');
    const fail = (message: string, received: string): Judgement[] => [
      violated({
        requirement: REQUIREMENT,
        exchange,
        message: `${where}: ${message}`,
        expected: EXPECTED,
        received,
      }),
    ];
    if (value === undefined)
      return fail('the 401 carries no WWW-Authenticate header', 'no WWW-Authenticate header');
    const received = `WWW-Authenticate: ${value}`;
    const parsed = parseChallenges(value);
    if (!parsed.ok) {
      return fail(
        `the WWW-Authenticate header does not parse as RFC 9110 challenges: ${parsed.error} at offset ${parsed.offset}`,
        received,
      );
    }
    if (!parsed.challenges.some(isBearer)) {
      const schemes = parsed.challenges.map((c) => c.scheme).join(', ');
      return fail(`the WWW-Authenticate header holds no Bearer challenge, only ${schemes}`, received);
    }
    return [held(REQUIREMENT)];
  },
};
